"""A guest is their browser session: it carries a random guest id that seats
are bound to. The id (not the session key) is what a seat stores, so a
session whose key is cycled (a staff login, say) keeps its seats."""

import secrets
from collections.abc import MutableMapping
from typing import Any

from django.http import HttpRequest

GUEST_KEY = "yacht_guest"


def ensure_guest_id(session: MutableMapping[str, Any]) -> str:
    guest = session.get(GUEST_KEY)
    if not guest:
        guest = session[GUEST_KEY] = secrets.token_urlsafe(18)
    return guest


def guest_id_of(session: MutableMapping[str, Any] | None) -> str:
    return (session or {}).get(GUEST_KEY, "") or ""


def took_a_seat(request: HttpRequest) -> None:
    """A new session key once the session holds a seat.

    A key known before (planted in the browser by someone else, or seen on a
    shared machine) must not come to own the seat: the guest id moves over
    to the new key and the old one stops working.

    A session that has no key yet (a browser's first seat) has none to give
    up: the response's save creates it with a fresh key, once. Cycling it
    too wrote it twice (an insert, then an update of the same row).
    """
    if request.session.session_key is None:
        return
    request.session.cycle_key()
