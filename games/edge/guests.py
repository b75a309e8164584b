"""A guest is their browser session: it carries a random guest id that seats
are bound to. The id (not the session key) is what a seat stores, so a
session whose key is cycled (a staff login, say) keeps its seats."""

import secrets
from collections.abc import MutableMapping
from typing import Any

from django.http import HttpRequest

GUEST_KEY = "yacht_guest"
# The name a guest last gave, offered again on the next form.
NAME_KEY = "yacht_name"


def guest_id_for(session: MutableMapping[str, Any]) -> str:
    """The session's guest id, or a new one that it keeps only if it takes a
    seat (``took_a_seat``): a refused creation or join writes no session."""
    return guest_id_of(session) or secrets.token_urlsafe(18)


def guest_id_of(session: MutableMapping[str, Any] | None) -> str:
    return (session or {}).get(GUEST_KEY, "") or ""


def remembered_name(session: MutableMapping[str, Any] | None) -> str:
    return (session or {}).get(NAME_KEY, "") or ""


def took_a_seat(request: HttpRequest, guest: str, *, name: str = "") -> None:
    """The session keeps the guest id its seat is bound to, under a new key,
    and the name the guest gave (none given: the one remembered stays).

    A key known before (planted in the browser by someone else, or seen on a
    shared machine) must not come to own the seat: the guest id moves over
    to the new key and the old one stops working.

    A session that has no key yet (a browser's first seat) has none to give
    up: the response's save creates it with a fresh key, once. Cycling it
    too wrote it twice (an insert, then an update of the same row).
    """
    request.session[GUEST_KEY] = guest
    if name:
        request.session[NAME_KEY] = name
    if request.session.session_key is None:
        return
    request.session.cycle_key()
