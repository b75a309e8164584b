"""Play now: guests wait in a queue of rows and are seated together, the
oldest compatible first, exactly once, whichever process pairs them; a
lone guest plays a bot; a network cannot flood the queue."""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test import override_settings
from django.utils import timezone

from games.models import Game, Player, QueueTicket
from games.play import queue, services
from games.play.names import unnamed_name
from games.rules import GameError

pytestmark = pytest.mark.django_db

WAITING = QueueTicket.State.WAITING


def join(guest: str, address: str = "", **wish: Any) -> QueueTicket:
    # Each guest its own network unless told: the per-network cap is tested apart.
    return queue.queue_join(
        guest_id=guest,
        name=guest.title(),
        address=address or f"198.51.100.{sum(map(ord, guest)) % 250}",
        **wish,
    )


def test_two_guests_pressing_play_now_are_seated_in_one_game_started_with_the_turn_clock():
    first = join("ana")
    assert first.state == WAITING and first.game is None
    second = join("ben")
    first.refresh_from_db()
    assert first.state == second.state == QueueTicket.State.PAIRED
    game = second.game
    assert game is not None and first.game_id == game.pk
    assert game.status == Game.Status.PLAYING and game.turn_seconds == 30
    assert game.turn_deadline is not None
    seats = list(Player.objects.filter(game=game).order_by("order"))
    assert [(p.guest_id, p.name, p.bot) for p in seats] == [("ana", "Ana", ""), ("ben", "Ben", "")]


def test_the_oldest_waiting_guest_is_seated_first():
    join("ana")
    with override_settings(YACHT_PLAY_NOW_WAITING_PER_ADDRESS=10):
        join("ben", ruleset="classic13")
        join("cai")
    assert QueueTicket.objects.get(guest_id="ben").state == WAITING
    game = QueueTicket.objects.get(guest_id="cai").game
    assert sorted(Player.objects.filter(game=game).values_list("guest_id", flat=True)) == [
        "ana",
        "cai",
    ]


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ({"ruleset": "yacht"}, {"ruleset": "classic13"}),
        ({"seats": 2}, {"seats": 3}),
        ({"language": "es"}, {"language": "it"}),
    ],
)
def test_guests_wanting_different_tables_are_not_paired(one, other):
    join("ana", **one)
    join("ben", **other)
    assert list(QueueTicket.objects.values_list("state", flat=True)) == [WAITING, WAITING]
    assert not Game.objects.exists()


def test_a_guest_who_asks_for_no_language_is_paired_with_one_who_asked_for_theirs():
    join("ana", language="ca")
    assert join("ben").state == QueueTicket.State.PAIRED


def test_names_that_look_alike_are_told_apart_by_seat_number():
    queue.queue_join(guest_id="a", name="Player", address="198.51.100.1")
    ticket = queue.queue_join(guest_id="b", name="Player", address="198.51.100.2")
    names = list(Player.objects.filter(game=ticket.game).values_list("name", flat=True))
    assert names == ["Player", "Player 2"]


def test_the_names_ahead_are_those_a_guest_would_be_seated_with_oldest_first():
    join("ana", seats=3)
    join("ben", seats=3)
    join("cai", seats=3)  # a table of three: seated, no longer ahead of anyone
    join("dee", seats=3)
    join("eva", seats=3, language="es")
    join("fay", seats=3, language="it")
    join("gus")
    ahead = queue.queue_names_ahead
    assert ahead(guest_id="new", ruleset="yacht", seats=3) == ["Dee", "Eva"]
    assert ahead(guest_id="new", ruleset="yacht", seats=3, language="it") == ["Dee", "Fay"]
    assert ahead(guest_id="dee", ruleset="yacht", seats=3) == ["Eva", "Fay"]
    assert ahead(guest_id="new", ruleset="yacht") == ["Gus"]
    assert ahead(guest_id="new", ruleset="yatzy") == []


def test_a_name_for_one_who_gave_none_is_the_same_each_time_unless_one_ahead_looks_like_it():
    animals = ["Otter", "Fox", "Owl"]
    mine = unnamed_name(animals, "guest-1", [])
    assert unnamed_name(animals, "guest-1", ["Ana"]) == mine
    following = animals[(animals.index(mine) + 1) % 3]
    assert unnamed_name(animals, "guest-1", [mine.upper()]) == following
    assert len({unnamed_name(animals, f"guest-{n}", []) for n in range(30)}) == 3
    # Every one taken: the guest's own, told apart at the table by its seat.
    assert unnamed_name(animals, "guest-1", animals) == mine


def test_a_table_of_three_starts_only_when_the_third_guest_comes():
    join("ana", seats=3)
    join("ben", seats=3)
    assert not Game.objects.exists()
    game = join("cai", seats=3).game
    assert game is not None and game.seat_count == 3
    assert Player.objects.filter(game=game).count() == 3


def test_a_ticket_whose_page_stopped_asking_is_paired_with_nobody():
    join("ana")
    QueueTicket.objects.update(seen_at=timezone.now() - timedelta(seconds=16))
    assert join("ben").state == WAITING
    assert QueueTicket.objects.get(guest_id="ana").state == WAITING
    assert not Game.objects.exists()


def test_a_page_that_asks_again_keeps_its_ticket_in_the_queue():
    join("ana")
    QueueTicket.objects.update(seen_at=timezone.now() - timedelta(seconds=10))
    polled = queue.queue_poll(guest_id="ana")
    assert polled is not None and polled.state == WAITING
    assert join("ben").state == QueueTicket.State.PAIRED


def test_pressing_play_now_again_keeps_the_place_and_another_table_leaves_the_old_ticket():
    first = join("ana")
    again = join("ana")
    assert again.pk == first.pk and QueueTicket.objects.count() == 1
    other = join("ana", ruleset="classic13")
    assert other.pk != first.pk
    assert dict(QueueTicket.objects.values_list("pk", "state")) == {
        first.pk: QueueTicket.State.LEFT,
        other.pk: WAITING,
    }


def test_a_guest_who_left_the_queue_is_paired_with_nobody():
    join("ana")
    assert queue.queue_leave(guest_id="ana")
    assert join("ben").state == WAITING
    assert not queue.queue_leave(guest_id="nobody")


def test_play_a_bot_starts_a_game_against_the_solid_bot_in_the_rule_set_waited_for():
    join("ana", ruleset="classic13", seats=3)
    game = queue.queue_play_bot(guest_id="ana")
    assert game.status == Game.Status.PLAYING and game.ruleset == "classic13"
    seats = list(Player.objects.filter(game=game).order_by("order"))
    assert [(p.guest_id, p.bot) for p in seats] == [("ana", ""), ("", "solid"), ("", "solid")]
    ticket = QueueTicket.objects.get(guest_id="ana")
    assert (ticket.state, ticket.game_id) == (QueueTicket.State.BOT, game.pk)
    assert join("ben").state == WAITING


def test_play_a_bot_after_a_pairing_took_the_ticket_goes_to_the_paired_game():
    join("ana")
    paired = join("ben").game
    assert queue.queue_play_bot(guest_id="ana") == paired
    assert Game.objects.count() == 1
    with pytest.raises(GameError) as nothing:
        queue.queue_play_bot(guest_id="cai")
    assert nothing.value.code == "not_queued"


def test_keep_waiting_keeps_the_place_and_turns_down_the_offer():
    join("ana")
    assert queue.queue_keep_waiting(guest_id="ana")
    ticket = QueueTicket.objects.get(guest_id="ana")
    assert ticket.kept_waiting and ticket.state == WAITING
    assert join("ben").state == QueueTicket.State.PAIRED


def test_a_network_holds_a_few_waiting_tickets_and_a_refused_join_writes_no_row():
    for guest in ("a1", "a2", "a3"):
        join(guest, address="203.0.113.5", seats=4)
    with pytest.raises(GameError) as full:
        join("a4", address="203.0.113.5", seats=4)
    assert full.value.code == "queue_network_full"
    assert QueueTicket.objects.count() == 3
    # Another network is not held back by this one: it completes the table.
    assert join("b1", address="192.0.2.9", seats=4).state == QueueTicket.State.PAIRED


def test_a_network_s_tickets_that_stopped_asking_do_not_count_against_it():
    for guest in ("a1", "a2", "a3"):
        join(guest, address="203.0.113.5", seats=4)
    QueueTicket.objects.update(seen_at=timezone.now() - timedelta(seconds=16))
    assert join("a4", address="203.0.113.5", seats=4).state == WAITING


@pytest.mark.parametrize(
    ("wish", "code"),
    [
        ({"ruleset": "nope"}, "unknown_ruleset"),
        ({"seats": 5}, "bad_queue_seats"),
        ({"seats": 1}, "bad_queue_seats"),
        ({"language": "xx"}, "unknown_language"),
    ],
)
def test_a_wish_the_queue_cannot_seat_is_refused_and_writes_nothing(wish, code):
    with pytest.raises(GameError) as refused:
        join("ana", **wish)
    assert refused.value.code == code
    assert not QueueTicket.objects.exists()


def test_stale_tickets_are_deleted_and_fresh_ones_kept():
    join("ana")
    join("ben")
    join("cai")
    QueueTicket.objects.exclude(guest_id="cai").update(seen_at=timezone.now() - timedelta(hours=2))
    assert queue.stale_tickets(before=timedelta(hours=1)) == 2
    assert list(QueueTicket.objects.values_list("guest_id", flat=True)) == ["cai"]
    assert Game.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_guests_pairing_at_the_same_time_are_each_seated_in_exactly_one_game():
    guests = [f"guest{n}" for n in range(10)]
    with override_settings(YACHT_PLAY_NOW_WAITING_PER_ADDRESS=20):
        for guest in guests:
            QueueTicket.objects.create(
                guest_id=guest,
                network="net",
                name=guest,
                created_at=timezone.now(),
                seen_at=timezone.now(),
            )
    start = threading.Barrier(len(guests))
    failures: list[BaseException] = []

    def wait(guest: str) -> None:
        try:
            start.wait()
            # A pairing that finds the tickets locked by another finds no
            # table: the page asks again, as a waiting page does.
            for _ in range(500):
                ticket = queue.queue_poll(guest_id=guest)
                if ticket is not None and ticket.state != WAITING:
                    return
        except BaseException as failure:
            failures.append(failure)
        finally:
            connection.close()

    threads = [threading.Thread(target=wait, args=(guest,)) for guest in guests]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures
    seated = list(Player.objects.values_list("guest_id", flat=True))
    assert sorted(seated) == sorted(guests)
    assert Game.objects.count() == 5
    for ticket in QueueTicket.objects.all():
        assert ticket.state == QueueTicket.State.PAIRED
        assert Player.objects.get(guest_id=ticket.guest_id).game_id == ticket.game_id


def test_a_pairing_that_fails_while_making_the_game_leaves_every_ticket_waiting(monkeypatch):
    join("ana")

    def crash(**_: object) -> Game:
        raise RuntimeError("the process died here")

    monkeypatch.setattr(queue.services, "game_create_paired", crash)
    with pytest.raises(RuntimeError):
        join("ben")
    assert set(QueueTicket.objects.values_list("state", flat=True)) == {WAITING}
    assert not Game.objects.exists()
    monkeypatch.undo()
    polled = queue.queue_poll(guest_id="ana")
    assert polled is not None and polled.state == QueueTicket.State.PAIRED


def test_a_person_who_leaves_a_paired_game_has_the_stand_in_bot_play_when_their_clock_runs_out():
    join("ana")
    game = join("ben").game
    assert game is not None
    Game.objects.filter(pk=game.pk).update(turn_deadline=timezone.now() - timedelta(seconds=1))
    assert services.game_clock_expire(token=game.token)
    away = Player.objects.get(game=game, order=0)
    assert away.guest_id == "ana" and away.bot == services.STAND_IN_LEVEL
