"""What a player may be called, and how two names at one table stay apart.

A name is shown to everyone at the table, so it must be visible, must not
reorder or hide text, and must not pass for another player's: the
scoreboard would otherwise lie about who is who.
"""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Iterable, Sequence
from functools import lru_cache

from confusable_homoglyphs import utils as homoglyph_data

from games.models import NAME_MAX_LENGTH
from games.rules import GameError

# Marks that reorder or hide text.
BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
# Letters and symbols that draw nothing: a name made of them looks blank.
BLANK_LOOKING = frozenset("\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0")
ZERO_WIDTH_JOINER = "\u200d"
# Vietnamese and Thai stack two marks on a letter; a pile of dozens draws
# over the neighbouring rows of the scoreboard.
MAX_STACKED_MARKS = 3
VISIBLE_CATEGORIES = ("L", "N", "P", "S")


def clean_name(name: str) -> str:
    """The name as it will be stored, or ``GameError`` saying what is wrong."""
    cleaned = unicodedata.normalize("NFC", " ".join(str(name).split()))
    if not cleaned or len(cleaned) > NAME_MAX_LENGTH:
        raise GameError("bad_name")
    if any(
        c in BIDI_CONTROLS or unicodedata.category(c) in ("Cc", "Cs", "Co", "Cn") for c in cleaned
    ):
        raise GameError("bad_name_characters")
    if _has_invisible(cleaned) or not any(_visible(c) for c in cleaned):
        raise GameError("bad_name_invisible")
    if _longest_mark_run(cleaned) > MAX_STACKED_MARKS:
        raise GameError("bad_name_marks")
    return cleaned


def _visible(c: str) -> bool:
    return unicodedata.category(c)[0] in VISIBLE_CATEGORIES and c not in BLANK_LOOKING


def _has_invisible(name: str) -> bool:
    for i, c in enumerate(name):
        if c in BLANK_LOOKING:
            return True
        if unicodedata.category(c) != "Cf":
            continue
        # The joiner inside an emoji sequence (a family, a flag) draws one
        # picture; anywhere else it, like every other format character
        # (zero-width space, BOM, soft hyphen), is invisible.
        joins_symbols = (
            c == ZERO_WIDTH_JOINER
            and 0 < i < len(name) - 1
            and unicodedata.category(name[i - 1]) == "So"
            and unicodedata.category(name[i + 1]) == "So"
        )
        if not joins_symbols:
            return True
    return False


def _longest_mark_run(name: str) -> int:
    longest = run = 0
    for c in name:
        run = run + 1 if unicodedata.category(c).startswith("M") else 0
        longest = max(longest, run)
    return longest


@lru_cache(maxsize=1)
def _look_alike_classes() -> dict[str, str]:
    """Each character that Unicode lists as confusable (UTS #39), mapped to
    one representative of all the characters it can pass for."""
    parent: dict[str, str] = {}

    def root(c: str) -> str:
        while parent.get(c, c) != c:
            c = parent[c]
        return c

    for char, alikes in homoglyph_data.load("confusables.json").items():
        for alike in alikes:
            a, b = root(char), root(alike["c"])
            if a != b:
                parent[max(a, b)] = min(a, b)
    return {c: root(c) for c in parent}


def skeletons(name: str) -> tuple[str, str]:
    """What a name looks like, as text: two names a reader could take for
    each other (case, accents, width and look-alike letters aside) share
    one of these.

    Look-alikes and case do not commute (a capital I passes for a small l,
    a capital O for a zero, yet i and o pass for neither), so the mapping is
    applied both before and after case folding, and either may match.
    """
    classes = _look_alike_classes()

    def alike(text: str) -> str:
        return "".join(classes.get(c, c) for c in text)

    bare = "".join(
        c
        for c in unicodedata.normalize("NFKD", name)
        if not unicodedata.category(c).startswith("M")
    )
    return alike(alike(bare).casefold()), alike(bare.casefold())


def look_alike(one: str, other: str) -> bool:
    return any(a == b for a, b in zip(skeletons(one), skeletons(other), strict=True))


def require_distinct(name: str, others: Iterable[str]) -> None:
    """Refuse a name that repeats or imitates one already at the table."""
    if any(look_alike(name, other) for other in others):
        raise GameError("name_taken")


BOT_NAMES = ("Ada", "Blaise", "Carl", "Dora", "Emmy", "Fermat")


def _first_unlike(candidates: Sequence[str], start: int, taken: Iterable[str]) -> str | None:
    """The first of ``candidates`` from ``start`` on (round the end) that
    looks like no name ``taken``; None if every one does."""
    taken = list(taken)
    for step in range(len(candidates)):
        candidate = candidates[(start + step) % len(candidates)]
        if not any(look_alike(candidate, name) for name in taken):
            return candidate
    return None


def bot_name(order: int, taken: Iterable[str]) -> str:
    """A bot's name for ``order``, skipping any a player at the table already has."""
    name = _first_unlike(BOT_NAMES, order, taken)
    if name is None:
        # Six seats at most and six bot names: only reached if every one is
        # a person's look-alike, and then a number tells the bot apart.
        name = f"{BOT_NAMES[order % len(BOT_NAMES)]} {order + 1}"
    return name


def unnamed_name(candidates: Sequence[str], key: str, taken: Iterable[str]) -> str:
    """A name for a stranger who gave none: one of ``candidates``, starting
    at a place fixed by ``key`` (their guest id, so a browser keeps its name
    from table to table), skipping any that looks like a name ``taken`` by
    those they may be seated with. If all do, its own anyway: the table tells
    the two apart by their seat's number, as for any look-alike names."""
    start = int.from_bytes(hashlib.sha256(key.encode()).digest()[:4], "big") % len(candidates)
    return _first_unlike(candidates, start, taken) or candidates[start]
