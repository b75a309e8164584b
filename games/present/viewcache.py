"""Each distinct view of a table rendered once, shared by every socket that
sees it.

A push goes to every socket of a game, and most of them see the same
thing: every spectator in one language, and each seat in its language. The
table message is a function of the snapshot and the view (seat or
spectator, language), and a version's snapshot never changes, so the first
socket to need a view renders it and the rest send the same text. A crowd
of spectators then costs one render per language, not one per socket.

``last`` (what produced the version) is only in pushed snapshots, not in
the one read back on connect, so whether it is there is part of the key.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import orjson

from games.present.rendering import chat_message, table_message
from games.runtime import runtime
from games.store.selectors import ChatLine, Snapshot

# Each entry is one table's message, about 10-20 KB: a few hundred recent
# views are what live pushes need, and memory stays bounded.
MAX_VIEWS = 512


def _text(message: dict[str, Any]) -> str:
    # A table's message is 10-20 KB, mostly HTML: orjson writes it several
    # times faster than the standard library's encoder did (about a fifth
    # of a view's whole cost). Its text is UTF-8, not ASCII escapes.
    return orjson.dumps(message).decode()


class Views:
    """The recent table and chat messages, as sent, by view."""

    def __init__(self) -> None:
        self.tables: OrderedDict[tuple[str, int, int | None, str, bool], str] = OrderedDict()
        self.chat: OrderedDict[tuple[int, str], str] = OrderedDict()


def _views() -> Views:
    return runtime.part(Views)


def table_text(snap: Snapshot, seat: int | None, language: str) -> str:
    """The ``table`` message of ``snap`` for the viewer in ``seat``, as sent."""
    key = (snap["token"], snap["version"], seat, language, snap.get("last") is not None)
    views = _views().tables
    text = views.get(key)
    if text is None:
        text = _text(table_message(snap, seat, language))
        views[key] = text
        if len(views) > MAX_VIEWS:
            views.popitem(last=False)
    else:
        views.move_to_end(key)
    return text


def chat_text(line: ChatLine, language: str) -> str:
    """The ``chat`` message of one line for a reader of ``language``, as
    sent: rendered once per language however many read it."""
    key = (line["id"], language)
    views = _views().chat
    text = views.get(key)
    if text is None:
        text = _text(chat_message(line, language))
        views[key] = text
        if len(views) > MAX_VIEWS:
            views.popitem(last=False)
    return text
