"""Join posts are throttled per client address and per session, and a join
that takes no seat (refused for any reason, throttled or not) writes no
session: only taking a seat does."""

from __future__ import annotations

import html

import pytest
from django.contrib.sessions.models import Session
from django.test import Client

from games.models import Game, Player
from games.play import services
from games.present.messages import error_message

pytestmark = pytest.mark.django_db


def lobby(seats: int = 2) -> Game:
    return services.game_create(guest_id="host", name="Host", seat_count=seats)


def join(token: str, name: str, *, address: str, client: Client | None = None) -> str:
    """Post the join form; the page it leads to, as the player reads it."""
    browser = client or Client(REMOTE_ADDR=address)
    answer = browser.post(f"/en/g/{token}/join/", {"name": name}, REMOTE_ADDR=address)
    assert answer.status_code in (302, 404), answer.status_code
    if answer.status_code == 404:
        return ""
    return html.unescape(browser.get(answer["Location"], REMOTE_ADDR=address).content.decode())


def test_joins_refused_for_any_reason_write_no_session_row(settings):
    settings.YACHT_JOINS_PER_ADDRESS = 6
    open_game, full_game = lobby(), lobby(seats=1)
    address = "192.0.2.20"
    refusals = [
        (open_game.token, "", "bad_name"),
        (open_game.token, "Host", "name_taken"),
        (open_game.token, "Ana\u202eevil", "bad_name_characters"),
        (open_game.token, "Z" + "\u0301" * 23, "bad_name_marks"),
        (full_game.token, "Ana", "game_full"),
        ("NoSuchGame12", "Ana", None),
        # Six posts are this address's share: the seventh is throttled before
        # the game is even looked up, though it would have taken the free seat.
        (open_game.token, "Bo", "too_many_joins"),
    ]
    for token, name, code in refusals:
        page = join(token, name, address=address)
        if code is not None:
            assert error_message(code) in page, code
    assert Session.objects.count() == 0
    assert Player.objects.filter(game=open_game).count() == 1
    # Another address is not held back by this one, and its seat is its session.
    join(open_game.token, "Bo", address="192.0.2.21")
    assert Player.objects.filter(game=open_game).count() == 2
    assert Session.objects.count() == 1


def test_one_session_is_throttled_whatever_address_it_posts_from(settings):
    settings.YACHT_JOINS_PER_SESSION = 3
    games = [lobby() for _ in range(6)]
    browser = Client()
    # The first join takes a seat and makes the session. Its next three posts
    # are refused by their games; the one after is past the session's share,
    # though every post came from an address of its own.
    assert "Ana" in join(games[0].token, "Ana", address="192.0.2.30", client=browser)
    for n, name in enumerate(["Host", "", "Host"], start=1):
        join(games[n].token, name, address=f"192.0.2.3{n}", client=browser)
    page = join(games[4].token, "Ana", address="192.0.2.34", client=browser)
    assert error_message("too_many_joins") in page
    assert [Player.objects.filter(game=g).count() for g in games] == [2, 1, 1, 1, 1, 1]
    assert Session.objects.count() == 1
    # Another browser from the same address is a session of its own.
    join(games[5].token, "Bo", address="192.0.2.34")
    assert Player.objects.filter(game=games[5]).count() == 2
