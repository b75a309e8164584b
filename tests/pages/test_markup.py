"""The markup html-validate's recommended rules flagged, held on every kind
of page: no line of spaces left by a template's indentation, no label on a
plain list (screen readers skip it; a heading names it), and a region is a
<section>, not a <div> with a role."""

from __future__ import annotations

import random
import re

import pytest
from django.test import Client

from games.edge.guests import GUEST_KEY
from games.play import queue, services
from tests import factories

pytestmark = pytest.mark.django_db


def as_guest(guest: str) -> Client:
    client = Client()
    session = client.session
    session[GUEST_KEY] = guest
    session.save()
    return client


def pages() -> dict[str, str]:
    """Each page html-validate was run on, rendered as its visitor sees it."""
    visitor, ana = Client(), as_guest("ana")
    lobby = factories.lobby_game(3, joined=2)
    playing = factories.play_turns(factories.started_game(2), 5, rng=random.Random(3))
    over = factories.play_turns(factories.started_game(2), rng=random.Random(5))
    duplicate = services.game_create(guest_id="ana", name="Ana", seat_count=2, duplicate=True)
    services.game_join(token=duplicate.token, guest_id="bo", name="Bo")
    services.game_start(token=duplicate.token, guest_id="ana")
    passed = services.game_create_shared(guest_id="ana", names=("Ana", "Ben", "Cai"))
    queue.queue_join(guest_id="waiting", name="Wai", address="192.0.2.1")
    urls = {
        "home": (visitor, "/en/"),
        "rules": (visitor, "/en/rules/"),
        "daily": (visitor, "/en/daily/"),
        "join": (visitor, f"/en/g/{lobby.token}/"),
        "lobby": (ana, f"/en/g/{lobby.token}/"),
        "table": (ana, f"/en/g/{playing.token}/"),
        "watching": (visitor, f"/en/g/{playing.token}/"),
        "duplicate": (ana, f"/en/g/{duplicate.token}/"),
        "pass and play": (ana, f"/en/g/{passed.token}/"),
        "play now waiting": (as_guest("waiting"), "/en/now/wait/"),
        "end": (ana, f"/en/g/{over.token}/"),
        "review": (ana, f"/en/g/{over.token}/review/"),
        "verify": (visitor, f"/en/g/{over.token}/verify/"),
        "my games": (ana, "/en/my/games/"),
        "my stats": (ana, "/en/my/stats/"),
    }
    rendered = {}
    for name, (client, url) in urls.items():
        response = client.get(url)
        assert response.status_code == 200, (name, response.status_code)
        rendered[name] = response.content.decode()
    return rendered


def test_no_page_has_a_line_ending_in_spaces():
    for name, html in pages().items():
        ending = [n for n, line in enumerate(html.splitlines(), 1) if line != line.rstrip()]
        assert ending == [], name


def test_no_plain_list_carries_a_label_and_no_div_plays_a_region():
    for name, html in pages().items():
        assert not re.search(r"<[uo]l\b(?![^>]*\brole=)[^>]*\baria-label=", html), name
        assert not re.search(r'<div\b[^>]*\brole="region"', html), name
