"""My games and my stats: a guest's own games and how they play, from the
seats their browser session holds, and nothing of anyone else's."""

from __future__ import annotations

import random
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import rules
from games.edge.guests import GUEST_KEY
from games.models import Game, Player
from games.play import services
from games.present import charts
from tests import factories

pytestmark = pytest.mark.django_db


def as_guest(client, guest: str):
    session = client.session
    session[GUEST_KEY] = guest
    session.save()
    return client


def finished(seats: int = 2, *, guests=factories.GUESTS, seed: int = 3, **lobby) -> Game:
    game = factories.started_game(seats, guests=guests, **lobby)
    return factories.played_out(game, guests=guests, rng=random.Random(seed))


def test_my_games_lists_lobby_games_in_play_with_my_turn_marked_and_finished_with_place_and_score(
    client,
):
    lobby = factories.lobby_game(3, joined=2)
    my_turn = factories.started_game(2)
    their_turn = factories.play_turns(factories.started_game(2), 1)
    done = finished(2)
    strangers = finished(2, guests=("xi.stranger", "yu.stranger"))
    html = as_guest(client, "bo").get("/en/my/games/").content.decode()

    for game in (lobby, my_turn, their_turn, done):
        assert f"/en/g/{game.token}/" in html
    assert f"/en/g/{strangers.token}/" not in html and "Xi.Stranger" not in html
    assert "Waiting in the lobby: 2 of 3 seats taken" in html
    # Bo's turn in one game only: Ana moved first in the other.
    assert html.count("Your turn") == 1
    turn_item = re.search(r'<li class="my-game my-game-turn">.*?</li>', html, re.S)
    assert turn_item and f"/en/g/{their_turn.token}/" in turn_item.group(0)
    players = {p.order: p for p in Player.objects.filter(game=done)}
    assert players[1].name == "Bo"
    assert re.search(r"Place [12] · \d+ points", html)


def test_my_games_is_empty_for_a_visitor_without_a_session_and_sets_none(client):
    finished(2)
    response = client.get("/en/my/games/")
    assert response.status_code == 200
    assert "No games yet" in response.content.decode()
    assert "sessionid" not in response.cookies


def test_the_home_page_and_the_header_lead_to_my_games_and_an_unfinished_game(client):
    game = factories.started_game(2)
    home = as_guest(client, "ana").get("/en/").content.decode()
    assert 'href="/en/my/games/"' in home and 'href="/en/my/stats/"' in home
    assert "Your unfinished games" in home and f"/en/g/{game.token}/" in home


def test_the_home_page_reads_only_the_guests_unfinished_games(client, monkeypatch):
    done = [finished(2, seed=s) for s in range(4)]
    playing = factories.started_game(2)
    summed = []
    totals = rules.totals

    def counted(*args):
        summed.append(args)
        return totals(*args)

    monkeypatch.setattr(rules, "totals", counted)
    home = as_guest(client, "ana").get("/en/").content.decode()
    assert f"/en/g/{playing.token}/" in home
    assert not any(f"/en/g/{game.token}/" in home for game in done)
    # Only the game in play is summed up: a long record of finished games
    # costs the home page nothing.
    assert len(summed) == 1


def test_my_stats_sum_up_finished_games_per_rule_set_with_a_chart(client):
    games = [finished(2, seed=s) for s in (1, 2, 3)]
    solo = finished(1, ruleset="yacht_bonus", seed=9)
    finished(2, guests=("xi.stranger", "yu.stranger"), seed=4)
    factories.started_game(2)  # unfinished: not counted
    response = as_guest(client, "ana").get("/it/my/stats/")
    html = response.content.decode()
    assert response.status_code == 200
    yacht = html.index('id="stats-yacht"')
    bonus = html.index('id="stats-yacht_bonus"')
    yacht_part = html[yacht:bonus]
    assert re.search(r"<dt>Partite</dt><dd>3</dd>", yacht_part), yacht_part[:800]
    scores = []
    for game in games:
        ana = Player.objects.get(game=game, order=0)
        scores.append(sum(ana.scores.values_list("points", flat=True)))
    assert f"<dd>{max(scores)}</dd>" in yacht_part
    assert yacht_part.count('class="stats-dot"') == 3 and "<polyline" in yacht_part
    assert yacht_part.count('class="stats-tick"') == 3
    # The review's points lost to optimal play were kept as each game ended.
    kept = Player.objects.filter(guest_id="ana", game__status="finished")
    assert all(p.lost_to_optimal is not None for p in kept)
    assert Player.objects.get(game=solo, order=0).lost_to_optimal is not None
    wins = sum(
        1
        for game in games
        if max(
            sum(p.scores.values_list("points", flat=True)) for p in Player.objects.filter(game=game)
        )
        == scores[games.index(game)]
    )
    assert f"<dt>Vittorie</dt><dd>{wins}</dd>" in yacht_part
    # A solitaire is a game played, not a game won.
    assert "<dt>Vittorie</dt><dd>0</dd>" in html[bonus:]
    assert "Xi.Stranger" not in html


def writes_made(queries: CaptureQueriesContext) -> list[str]:
    return [
        query["sql"]
        for query in queries.captured_queries
        if query["sql"].lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE"))
    ]


def test_the_end_line_the_review_and_a_guests_record_only_read_the_database(client):
    games = [finished(2, bot_level="solid", seed=s) for s in (1, 2)]
    # What the stats show of the review was kept by the move that ended each game.
    for game in games:
        assert Player.objects.get(game=game, guest_id="ana").lost_to_optimal is not None
    guest = as_guest(client, "ana")
    token = games[0].token
    for page in (f"/en/g/{token}/end/", f"/en/g/{token}/review/", "/en/my/stats/", "/en/my/games/"):
        with CaptureQueriesContext(connection) as queries:
            assert guest.get(page).status_code == 200, page
        assert writes_made(queries) == [], page


def test_my_stats_say_so_when_there_is_nothing_finished(client):
    services.game_create(guest_id="ana", name="Ana", seat_count=1)
    html = as_guest(client, "ana").get("/en/my/stats/").content.decode()
    assert "No finished games yet" in html


def test_the_score_chart_marks_its_axis_at_round_numbers_above_the_best_score():
    marks = charts.score_chart([120, 187, 95])
    assert marks["top"] == 200
    ticks = marks["ticks"]
    assert [t["label"] for t in ticks] == [0, 100, 200]
    heights = {t["label"]: float(t["y"]) for t in ticks}
    # 0 on the bottom edge of the drawing, the top on its top edge.
    assert heights[0] == charts.CHART_HEIGHT - charts.CHART_PAD
    assert heights[200] == charts.CHART_PAD and heights[100] == (heights[0] + heights[200]) / 2
    # Each score's dot sits at its height on that axis, oldest on the left.
    dots = marks["dots"]
    for dot, score in zip(dots, (120, 187, 95), strict=True):
        expected = heights[0] - score / 200 * (heights[0] - heights[200])
        assert float(dot["y"]) == pytest.approx(expected, abs=0.1)
    xs = [float(d["x"]) for d in dots]
    assert xs == sorted(xs) and xs[0] == marks["left"] and xs[-1] == marks["right"]
    # A best score on a round number is the top; none at all still has an axis.
    assert charts.score_chart([150])["top"] == 150
    assert [t["label"] for t in charts.score_chart([])["ticks"]] == [0, 25, 50]


def titles(html: str) -> list[str]:
    return [
        " ".join(t.split()) for t in re.findall(r'<span class="my-game-title">(.*?)</span>', html)
    ]


def test_my_games_titles_each_game_by_its_rule_set_and_who_else_played_it(client):
    factories.started_game(3, ruleset="yatzy")
    factories.started_game(1, guests=("bo",))
    with_bots = factories.started_game(3, bot_level="perfect", joined=1, guests=("bo",))
    bots = list(with_bots.players.exclude(guest_id="bo").values_list("name", flat=True))
    as_guest(client, "bo")
    listed = titles(client.get("/en/my/games/").content.decode())
    assert listed == [f"Yacht against {', '.join(bots)}", "Yacht, alone", "Yatzy against Ana, Cy"]
    assert titles(client.get("/es/my/games/").content.decode())[1] == "Yacht en solitario"


def test_my_games_titles_a_daily_entry_by_its_day(client):
    from games.play import daily

    daily.daily_enter(guest_id="ana", name="Ana", address="192.0.2.1")
    day = daily.today()
    listed = titles(as_guest(client, "ana").get("/en/my/games/").content.decode())
    assert listed == [f"Daily challenge of {day.month:02d}/{day.day:02d}/{day.year}"]
