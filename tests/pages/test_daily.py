"""The daily challenge: the same dice for every entry, one entry per browser
and per network a day, each name once on a day's board, and a board that
tells nothing of the dice until the day is over."""

from __future__ import annotations

import re
from datetime import date, timedelta
from io import StringIO
from unittest import mock

import pytest
import time_machine
from django.core.management import call_command
from django.db import IntegrityError
from django.test import Client
from django.utils import timezone

from games.edge.guests import GUEST_KEY
from games.models import DailyChallenge, DailyEntry, Game, Player
from games.play import daily, services
from games.present.rendering import table_message
from games.rules import GameError, fairness
from games.store.selectors import game_snapshot

pytestmark = pytest.mark.django_db

BOXES = (
    "ones", "twos", "threes", "fours", "fives", "sixes", "full_house",
    "four_of_a_kind", "little_straight", "big_straight", "choice", "yacht",
)  # fmt: skip


def as_guest(client, guest: str):
    session = client.session
    session[GUEST_KEY] = guest
    session.save()
    return client


def play_to_the_end(game: Game, guest: str, boxes=BOXES) -> Game:
    for box in boxes:
        game = services.game_roll(token=game.token, guest_id=guest, version=game.version)
        game = services.game_score(
            token=game.token, guest_id=guest, version=game.version, category=box
        )
    game.refresh_from_db()
    return game


def test_entries_play_the_days_shared_dice_and_its_commitment_was_published_the_day_before(
    client,
):
    page = client.get("/en/daily/").content.decode()
    today, tomorrow = daily.today(), daily.today() + timedelta(days=1)
    challenge = DailyChallenge.objects.get(day=today)
    ahead = DailyChallenge.objects.get(day=tomorrow)
    assert challenge.seed_commitment in page and ahead.seed_commitment in page
    assert challenge.server_seed not in page and ahead.server_seed not in page
    ana = daily.daily_enter(guest_id="ana", name="Ana", address="192.0.2.1")
    bo = daily.daily_enter(guest_id="bo", name="Bo", address="192.0.2.2")
    seed = bytes.fromhex(challenge.server_seed)
    for game, guest in ((ana, "ana"), (bo, "bo")):
        game = services.game_roll(token=game.token, guest_id=guest, version=game.version)
        assert Player.objects.get(game=game).dice == [
            fairness.duplicate_die(seed, 1, 1, p) for p in range(5)
        ]
    assert ana.seed_commitment == bo.seed_commitment == challenge.seed_commitment


def test_a_browser_gets_one_entry_a_day(client):
    as_guest(client, "ana")
    first = client.post("/en/daily/", {"name": "Ana"})
    assert first.status_code == 302 and "/g/" in first["Location"]
    second = client.post("/en/daily/", {"name": "Ana again"}, follow=True)
    assert "already played today" in second.content.decode()
    assert DailyEntry.objects.filter(guest_id="ana").count() == 1
    with pytest.raises(GameError) as refused:
        daily.daily_enter(guest_id="ana", name="Ana", address="192.0.2.1")
    assert refused.value.code == "daily_entered"
    # The page leads back to the game instead of offering another.
    page = client.get("/en/daily/").content.decode()
    assert "Open my game" in page and "Play today&#x27;s challenge" not in page


def test_during_the_day_the_board_and_the_finished_game_tell_nothing_of_the_dice(client):
    ana = play_to_the_end(daily.daily_enter(guest_id="ana", name="Ana", address="192.0.2.1"), "ana")
    bo = daily.daily_enter(guest_id="bo", name="Bo", address="192.0.2.2")
    challenge = DailyChallenge.objects.get(day=daily.today())
    total = game_snapshot(ana)["seats"][0]["total"]
    board = client.get(f"/en/daily/{daily.today().isoformat()}/").content.decode()
    assert "Ana" in board and f"<td>{total}</td>" in board
    assert "1 game still being played" in board
    # No seed, no review, no dice, no perfect player, no box: names and totals.
    assert challenge.server_seed not in board
    assert "/review/" not in board and "perfect player" not in board
    for box in ("Ones", "Full House", "Choice", "Sixes"):
        assert box not in board
    snap = game_snapshot(ana)
    assert snap["status"] == "finished" and snap["seed"] is None
    assert client.get(f"/en/g/{ana.token}/verify.json").status_code == 403
    table = client.get(f"/en/g/{ana.token}/").content.decode()
    assert challenge.server_seed not in table and "Check the dice" not in table
    assert bo.status == Game.Status.PLAYING


def test_once_the_day_is_over_the_board_ranks_with_losses_reviews_and_the_perfect_player(client):
    ana = play_to_the_end(daily.daily_enter(guest_id="ana", name="Ana", address="192.0.2.1"), "ana")
    bo = play_to_the_end(
        daily.daily_enter(guest_id="bo", name="Bo", address="192.0.2.2"),
        "bo",
        tuple(reversed(BOXES)),
    )
    cy = daily.daily_enter(guest_id="cy", name="Cy", address="192.0.2.3")
    day = daily.today()
    challenge = DailyChallenge.objects.get(day=day)
    later = timezone.now() + timedelta(days=1)
    with time_machine.travel(later, tick=False):
        with pytest.raises(GameError) as refused:
            services.game_roll(token=cy.token, guest_id="cy", version=cy.version)
        assert refused.value.code == "daily_over"
        assert client.get(f"/en/g/{ana.token}/verify.json").json()["seed"] == (
            challenge.server_seed
        )
        call_command("clean_stale", stdout=StringIO())
        board = client.get(f"/en/daily/{day.isoformat()}/").content.decode()
    challenge.refresh_from_db()
    from games.solver.reference import perfect_score

    assert challenge.perfect_score == perfect_score("yacht", bytes.fromhex(challenge.server_seed))
    assert f"The perfect player scored {challenge.perfect_score}" in board
    assert "being worked out" not in board
    assert challenge.server_seed in board
    assert f"/en/g/{ana.token}/review/" in board and f"/en/g/{bo.token}/review/" in board
    totals = {g.token: game_snapshot(g)["seats"][0]["total"] for g in (ana, bo)}
    order = [m.group(1) for m in re.finditer(r"/en/g/([\w-]+)/review/", board)]
    assert order == sorted(totals, key=lambda t: -totals[t])
    for game in (ana, bo):
        lost = Player.objects.get(game=game).lost_to_optimal
        assert lost is not None and f"<td>{lost:.1f}</td>" in board


def test_the_board_of_a_day_just_over_only_reads_and_says_its_losses_are_being_worked_out(
    client,
):
    ana = play_to_the_end(daily.daily_enter(guest_id="ana", name="Ana", address="192.0.2.1"), "ana")
    day = daily.today()
    with time_machine.travel(timezone.now() + timedelta(days=1), tick=False):
        for lang, words in (("en", "being worked out"), ("it", "in fase di calcolo")):
            page = client.get(f"/{lang}/daily/{day.isoformat()}/").content.decode()
            assert words in page and "Ana" in page
            assert "perfect player scored" not in page and "giocatore perfetto ha fatto" not in page
        with mock.patch("games.solver.reference.perfect_score") as solver:
            client.get(f"/en/daily/{day.isoformat()}/")
        assert solver.call_count == 0, "no page works the day out"
    assert DailyChallenge.objects.get(day=day).perfect_score is None
    assert Player.objects.get(game=ana).lost_to_optimal is None


def test_the_scheduled_cleanup_works_out_each_day_once_it_is_over_and_only_once(client):
    ana = play_to_the_end(daily.daily_enter(guest_id="ana", name="Ana", address="192.0.2.1"), "ana")
    day = daily.today()
    assert daily.daily_work_out_over() == 0, "a day still on keeps its secrets"
    assert DailyChallenge.objects.get(day=day).perfect_score is None
    with time_machine.travel(timezone.now() + timedelta(days=1), tick=False):
        out = StringIO()
        call_command("clean_stale", stdout=out)
        assert "worked out 1 finished daily challenges" in out.getvalue()
        worked = DailyChallenge.objects.get(day=day)
        lost = Player.objects.get(game=ana).lost_to_optimal
        assert worked.perfect_score is not None and lost is not None
        # What is kept is not worked out again.
        with mock.patch("games.solver.reference.perfect_score") as solver:
            assert daily.daily_work_out_over() == 0
        assert solver.call_count == 0


def test_earlier_boards_stay_readable_and_future_ones_do_not_exist(client):
    old = date(2026, 1, 2)
    DailyChallenge.objects.create(day=old, server_seed="00" * 32, seed_commitment="ab" * 32)
    page = client.get("/en/daily/").content.decode()
    assert f"/en/daily/{old.isoformat()}/" in page
    board = client.get(f"/en/daily/{old.isoformat()}/")
    assert board.status_code == 200 and "00" * 32 in board.content.decode()
    tomorrow = (daily.today() + timedelta(days=1)).isoformat()
    assert client.get(f"/en/daily/{tomorrow}/").status_code == 404
    assert client.get("/en/daily/not-a-day/").status_code == 404
    # A day nobody opened is never made afterwards.
    assert daily.daily_challenge(date(2026, 1, 3)) is None


def test_the_home_page_leads_to_the_daily_challenge(client):
    assert "/en/daily/" in client.get("/en/").content.decode()


def test_a_stranger_sees_nothing_of_a_daily_entry_and_its_review_waits_for_the_day(client):
    ana = daily.daily_enter(guest_id="ana", name="Ana", address="192.0.2.1")
    ana = play_to_the_end(ana, "ana", ("choice",))
    as_guest(client, "someone")
    page = client.get(f"/en/g/{ana.token}/").content.decode()
    assert "Round 1, side by side" not in page
    assert re.search(r'<td class="total[^"]*">0</td>', page), "a stranger saw a total"
    ana = play_to_the_end(ana, "ana", tuple(b for b in BOXES if b != "choice"))
    assert ana.status == Game.Status.FINISHED
    assert client.get(f"/en/g/{ana.token}/review/").status_code == 404
    snap = game_snapshot(ana)
    watched = table_message(snap, None, "en")
    assert all(s["boxes"] == {} for s in watched["state"]["seats"])
    assert watched["state"]["duplicate"]["results"] == []
    assert table_message(snap, 0, "en")["state"]["seats"][0]["boxes"]
    as_guest(client, "ana")
    assert client.get(f"/en/g/{ana.token}/review/").status_code == 200
    later = timezone.now() + timedelta(days=1)
    client.cookies.clear()
    with time_machine.travel(later, tick=False):
        assert client.get(f"/en/g/{ana.token}/review/").status_code == 200


def enter(address: str, name: str, guest: str, **follow):
    """A new browser at ``address`` asks for today's challenge as ``name``."""
    return as_guest(Client(), guest).post(
        "/en/daily/", {"name": name}, REMOTE_ADDR=address, **follow
    )


def test_a_second_browser_on_the_same_network_is_refused_and_offered_an_ordinary_game():
    assert enter("203.0.113.5", "Clair", "ana").status_code == 302
    refused = enter("203.0.113.5", "Bo", "bo", follow=True)
    page = refused.content.decode()
    assert "already been played from your network" in page
    assert "Play today&#x27;s challenge" not in page, "the form was offered again"
    assert 'href="/en/"' in page and "Play an ordinary game" in page
    assert DailyEntry.objects.count() == 1
    # Another /64's address, and another IPv4 address, are other networks;
    # a second address in the same /64 is the same one.
    assert enter("2001:db8:1::1", "Cy", "cy").status_code == 302
    same_64 = enter("2001:db8:1::2", "Dee", "dee", follow=True).content.decode()
    assert "already been played from your network" in same_64
    assert enter("203.0.113.6", "Eve", "eve").status_code == 302
    assert DailyEntry.objects.count() == 3


def test_a_network_enters_again_the_next_day():
    assert enter("203.0.113.5", "Clair", "ana").status_code == 302
    tomorrow = timezone.now() + timedelta(days=1)
    with time_machine.travel(tomorrow, tick=False):
        assert enter("203.0.113.5", "Bo", "bo").status_code == 302
        assert DailyChallenge.objects.get(day=daily.today()).entries.count() == 1
    # The networks of two days' entries cannot be matched to each other.
    first, second = DailyEntry.objects.order_by("challenge__day")
    assert first.network and second.network and first.network != second.network
    assert "203.0.113" not in first.network + second.network


@pytest.mark.parametrize(
    "look_alike",
    [
        "clair",  # case
        "Cláir",  # an accent
        "\uff23\uff4c\uff41\uff49\uff52",  # fullwidth
        "\u0421lair",  # a Cyrillic capital Es for the C
        "CIair",  # a capital I for the small l
        " Clair ",  # spaces around it
    ],
)
def test_a_name_that_reads_as_one_on_the_days_board_is_refused_and_kept_in_the_form(look_alike):
    assert enter("203.0.113.5", "Clair", "ana").status_code == 302
    response = enter("203.0.113.6", look_alike, "bo")
    page = response.content.decode()
    assert response.status_code == 200
    assert "under that name, or one that looks like it: choose another" in page
    assert f'value="{look_alike}"' in page, "what the player typed was lost"
    assert DailyEntry.objects.count() == 1
    assert enter("203.0.113.6", "Claire", "bo").status_code == 302


def test_the_database_admits_one_entry_per_network_and_name_even_when_two_checks_pass_at_once():
    daily.daily_enter(guest_id="ana", name="Clair", address="203.0.113.5")
    real = daily._refusal
    calls: list[str] = []

    def too_late(*args):
        # The first check runs before the other request's entry is in.
        calls.append("check")
        return "" if len(calls) == 1 else real(*args)

    with mock.patch.object(daily, "_refusal", too_late), pytest.raises(GameError) as refused:
        daily.daily_enter(guest_id="bo", name="Bo", address="203.0.113.5")
    assert refused.value.code == "daily_network_entered"
    calls.clear()
    with mock.patch.object(daily, "_refusal", too_late), pytest.raises(GameError) as refused:
        daily.daily_enter(guest_id="cy", name="CLAIR", address="203.0.113.7")
    assert refused.value.code == "daily_name_taken"
    assert DailyEntry.objects.count() == 1
    entry = DailyEntry.objects.get()
    with pytest.raises(IntegrityError):
        DailyEntry.objects.create(
            challenge=entry.challenge,
            guest_id="another",
            network=entry.network,
            game=Game.objects.create(seat_count=1),
        )


@pytest.mark.parametrize(
    ("language", "line"),
    [
        ("en", "One entry per browser and per network a day"),
        ("es", "Una participación por navegador y por red al día"),
    ],
)
def test_the_board_says_what_an_entry_proves(client, language, line):
    daily_page = client.get(f"/{language}/daily/").content.decode()
    board = client.get(f"/{language}/daily/{daily.today().isoformat()}/").content.decode()
    assert line in daily_page and line in board


def test_the_days_board_reads_the_same_few_queries_for_two_entries_or_four():
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def queries_for_the_board(entries: int) -> int:
        challenge = DailyChallenge.objects.get(day=daily.today())
        with CaptureQueriesContext(connection) as seen:
            board = daily.daily_board(challenge)
        assert len(board.rows) == entries
        totals = [row.total for row in board.rows]
        assert totals == sorted(totals, reverse=True) and all(t > 0 for t in totals)
        return len(seen)

    seen = {}
    for n in range(1, 5):
        entry = daily.daily_enter(guest_id=f"g{n}", name=f"P{n}", address=f"192.0.2.{n + 10}")
        play_to_the_end(entry, f"g{n}")
        seen[n] = queries_for_the_board(n)
    assert seen[4] == seen[2] <= 3
