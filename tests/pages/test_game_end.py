"""The end of a game as each kind of game says it: places and a winner with
others at the table, a final score alone; the review's verdict and the
day's place in one line; and no table furniture a one-seat game has no use
for."""

from __future__ import annotations

import random
import re
from datetime import timedelta
from io import StringIO

import pytest
import time_machine
from django.core.management import call_command
from django.utils import timezone

from games.edge.guests import GUEST_KEY
from games.models import Game
from games.play import daily, services
from games.rules import GameError
from games.store import records
from games.store.advice import game_review
from games.store.selectors import game_snapshot
from tests import factories
from tests.pages.test_daily import BOXES, play_to_the_end

pytestmark = pytest.mark.django_db


def as_guest(client, guest: str):
    session = client.session
    session[GUEST_KEY] = guest
    session.save()
    return client


def finished(seats: int, **lobby) -> Game:
    game = factories.started_game(seats, **lobby)
    return factories.played_out(game, rng=random.Random(5))


def result_of(html: str) -> str:
    found = re.search(
        r'<section class="result.*?</section>\s*(?=<div class="scorecard-wrap")', html, re.S
    )
    assert found is not None
    return found.group(0)


def test_a_solitaire_ends_with_its_final_score_and_no_place_and_no_win(client):
    game = finished(1)
    total = game_snapshot(game)["seats"][0]["total"]
    result = result_of(as_guest(client, "ana").get(f"/en/g/{game.token}/").content.decode())
    heading = re.search(r"<h2.*?</h2>", result, re.S)
    assert heading is not None
    title = re.sub(r"<[^>]+>|\s+", " ", heading.group(0))
    assert " ".join(title.split()) == f"Final score {total}"
    assert f'data-count-up="{total}"' in result
    assert "wins" not in result
    assert "#1" not in result
    assert "place-rank" not in result
    assert "Rematch" in result


def test_a_two_player_game_ends_with_places_and_its_winner(client):
    game = finished(2)
    result = result_of(as_guest(client, "ana").get(f"/en/g/{game.token}/").content.decode())
    assert "Final scores" in result
    assert re.search(r"(wins with|share first place)", result)
    assert '<span class="place-rank">#1</span>' in result
    assert result.count("data-count-up=") == 2


def test_what_the_end_says_of_winning_agrees_with_my_stats(client):
    solo = finished(1)
    html = as_guest(client, "ana").get(f"/en/g/{solo.token}/").content.decode()
    assert "wins" not in result_of(html)
    assert records.guest_stats("ana")[0].wins == 0
    listed = client.get("/en/my/games/").content.decode()
    total = game_snapshot(solo)["seats"][0]["total"]
    assert f"Final score {total}" in listed and "Place 1" not in listed
    duel = finished(2)
    winners = game_snapshot(duel)["winners"]
    html = client.get(f"/en/g/{duel.token}/").content.decode()
    said = "Ana wins" in result_of(html) or "Ana, " in result_of(html)
    assert said == (0 in winners)
    assert records.guest_stats("ana")[0].wins == (1 if 0 in winners else 0)


def test_a_one_seat_game_has_no_chat_and_a_two_seat_game_has(client):
    as_guest(client, "ana")
    solo = factories.started_game(1)
    html = client.get(f"/en/g/{solo.token}/").content.decode()
    assert "data-chat" not in html
    assert "Your turn!" not in html
    assert "Close the chat to spectators" not in html
    assert "game-columns-solo" in html
    # A spectator watches a one-seat game without a chat too.
    watcher = client.__class__()
    assert "data-chat" not in watcher.get(f"/en/g/{solo.token}/").content.decode()
    duel = factories.started_game(2)
    html = client.get(f"/en/g/{duel.token}/").content.decode()
    assert "data-chat" in html
    assert "Your turn!" in html
    assert "Close the chat to spectators" in html


def test_the_end_line_is_the_solvers_review_of_the_players_game(client):
    game = finished(2, bot_level="solid")
    review = next(r for r in game_review(game) if r.order == 0)
    worst = max(review.decisions, key=lambda d: d.cost)
    assert review.cost >= records.TO_A_TENTH
    line = as_guest(client, "ana").get(f"/en/g/{game.token}/end/").content.decode()
    assert (
        f"You gave away {review.cost:.1f} points to perfect play; "
        f"your costliest choice was round {worst.round}."
    ) in line
    assert f'href="/en/g/{game.token}/review/"' in line
    spanish = client.get(f"/es/g/{game.token}/end/").content.decode()
    assert f"{review.cost:.1f}".replace(".", ",") in spanish
    assert f"ronda {worst.round}" in spanish
    # The points lost on the seat, kept as the game ended, are the same.
    assert game.players.get(order=0).lost_to_optimal == pytest.approx(review.cost)


def test_the_end_line_says_nothing_to_a_spectator_and_waits_for_the_end(client):
    game = finished(2, bot_level="solid")
    assert client.get(f"/en/g/{game.token}/end/").content.decode().strip() == ""
    playing = factories.started_game(2)
    assert as_guest(client, "ana").get(f"/en/g/{playing.token}/end/").status_code == 404


def test_the_daily_ends_with_its_place_on_the_days_board_and_no_rematch(client):
    play_to_the_end(daily.daily_enter(guest_id="bo", name="Bo", address="192.0.2.2"), "bo")
    ana = play_to_the_end(daily.daily_enter(guest_id="ana", name="Ana", address="192.0.2.1"), "ana")
    assert ana.daily is not None
    board = daily.daily_board(ana.daily)
    place = next(r.place for r in board.rows if r.token == ana.token)
    as_guest(client, "ana")
    result = result_of(client.get(f"/en/g/{ana.token}/").content.decode())
    assert "Rematch" not in result
    assert "Final score" in result and "wins" not in result
    # Nobody to compare a round with, and no "played" chip during the day either.
    assert "side by side" not in result
    other = daily.daily_enter(guest_id="cy", name="Cy", address="192.0.2.3")
    other = play_to_the_end(other, "cy", BOXES[:2])
    playing = as_guest(client, "cy").get(f"/en/g/{other.token}/").content.decode()
    assert "fold-chip" not in playing and "side by side" not in playing
    as_guest(client, "ana")
    assert f'data-end-line="/en/g/{ana.token}/end/"' in result
    line = client.get(f"/en/g/{ana.token}/end/").content.decode()
    assert f"Place {place} of 2 on the day's board" in line
    assert f'href="/en/daily/{ana.daily.day.isoformat()}/"' in line
    assert f"Posizione {place} su 2" in client.get(f"/it/g/{ana.token}/end/").content.decode()


def test_a_finished_daily_has_no_rematch_however_it_is_asked_for():
    # One game a day: a rematch sent by hand, not only the hidden button, is refused.
    ana = play_to_the_end(daily.daily_enter(guest_id="ana", name="Ana", address="192.0.2.1"), "ana")
    with pytest.raises(GameError) as refused:
        services.game_rematch(token=ana.token, guest_id="ana")
    assert refused.value.code == "daily_entered"
    assert Game.objects.count() == 1


def duplicate_with_the_perfect_player() -> Game:
    """Ana and Bo's duplicate game, the perfect player on the same dice,
    played to the end by scoring each round's first roll in card order."""
    game = services.game_create(
        guest_id="ana", name="Ana", seat_count=2, duplicate=True, perfect_reference=True
    )
    services.game_join(token=game.token, guest_id="bo", name="Bo")
    game = services.game_start(token=game.token, guest_id="ana")
    for box in BOXES:
        for guest in ("ana", "bo"):
            game = services.game_roll(token=game.token, guest_id=guest, version=game.version)
            game = services.game_score(
                token=game.token, guest_id=guest, version=game.version, category=box
            )
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.perfect_score is not None
    return game


def end_line(client, game: Game, language: str = "en") -> str:
    html = client.get(f"/{language}/g/{game.token}/end/").content.decode()
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def test_the_end_line_says_by_how_much_the_perfect_player_outscored_the_player(client):
    game = duplicate_with_the_perfect_player()
    total = game_snapshot(game)["seats"][0]["total"]
    # Scoring every first roll in card order loses to the perfect player on the same dice.
    assert game.perfect_score is not None and game.perfect_score > total
    gap = game.perfect_score - total
    line = end_line(as_guest(client, "ana"), game)
    said = f"The perfect player scored {gap} point{'s' if gap != 1 else ''} more on these dice."
    assert said in line
    assert "beat" not in line


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("en", "You beat the perfect player by 8 points on these dice!"),
        ("es", "¡Has superado al jugador perfecto por 8 puntos con estos dados!"),
        ("it", "Hai battuto il giocatore perfetto di 8 punti con questi dadi!"),
        ("ca", "Has superat el jugador perfecte per 8 punts amb aquests daus!"),
    ],
)
def test_a_player_who_beat_the_perfect_player_is_told_by_how_much(client, language, said):
    game = duplicate_with_the_perfect_player()
    total = game_snapshot(game)["seats"][0]["total"]
    # Luck can beat perfect play on the same dice: the score it is compared with is the stored one.
    Game.objects.filter(pk=game.pk).update(perfect_score=total - 8)
    assert said in end_line(as_guest(client, "ana"), game, language)


def test_one_point_ahead_and_a_tie_with_the_perfect_player_are_said_as_such(client):
    game = duplicate_with_the_perfect_player()
    total = game_snapshot(game)["seats"][0]["total"]
    as_guest(client, "ana")
    Game.objects.filter(pk=game.pk).update(perfect_score=total - 1)
    assert "You beat the perfect player by 1 point on these dice!" in end_line(client, game)
    Game.objects.filter(pk=game.pk).update(perfect_score=total)
    line = end_line(client, game)
    assert "You tied the perfect player on these dice!" in line and "beat" not in line


def test_without_the_perfect_player_the_end_compares_with_nobody(client):
    game = finished(2, bot_level="solid")
    line = end_line(as_guest(client, "ana"), game)
    assert "perfect play" in line
    assert "perfect player" not in line


def test_the_daily_compares_with_the_perfect_player_only_once_the_day_is_over_and_worked_out(
    client,
):
    ana = play_to_the_end(daily.daily_enter(guest_id="ana", name="Ana", address="192.0.2.1"), "ana")
    assert ana.daily is not None
    as_guest(client, "ana")
    assert "perfect player" not in end_line(client, ana)
    total = game_snapshot(ana)["seats"][0]["total"]
    with time_machine.travel(timezone.now() + timedelta(days=1), tick=False):
        # The page never runs the solver for the day: the scheduled cleanup does.
        assert "perfect player" not in end_line(client, ana)
        call_command("clean_stale", stdout=StringIO())
        line = end_line(client, ana)
    ana.daily.refresh_from_db()
    perfect = ana.daily.perfect_score
    assert perfect is not None
    if perfect > total:
        assert f"The perfect player scored {perfect - total} point" in line
    elif perfect < total:
        assert f"You beat the perfect player by {total - perfect} point" in line
    else:
        assert "You tied the perfect player" in line
