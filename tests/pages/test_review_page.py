import random
import re

import pytest

from games.models import Game
from games.play import services
from games.present.charts import round_top
from games.present.rendering import review_rows
from games.solver.review import Decision, SeatReview
from tests import factories

pytestmark = pytest.mark.django_db


def finished_game_against_a_bot() -> Game:
    game = factories.started_game(2, bot_level="solid")
    return factories.play_turns(game, rng=random.Random(5))


def test_the_review_prices_each_decision_of_the_person_and_not_of_the_bot(client):
    game = finished_game_against_a_bot()
    response = client.get(f"/en/g/{game.token}/review/")
    assert response.status_code == 200
    html = response.content.decode()
    assert '<h2 id="review-0">Ana</h2>' in html
    assert 'id="review-1"' not in html
    assert html.count('<tr class="mistake">') + html.count("<tr><td>") >= 12
    assert "<polyline" in html
    # The chart's axis is marked: zero, half-way and a round top above the total.
    ticks = re.findall(r'<span class="review-tick">([^<]*)</span>', html)
    assert len(ticks) == 3 and ticks[2] == "0"
    given = re.search(r"given away: ([0-9.]+)", html)
    assert given is not None
    assert float(ticks[0]) >= float(given.group(1))
    assert float(ticks[1]) == float(ticks[0]) / 2
    rounds = r'<div class="review-rounds"[^>]*><span>(Round \d+)</span><span>(Round \d+)</span>'
    assert re.findall(rounds, html) == [("Round 1", "Round 12")]


def test_the_review_chart_is_marked_in_spanish(client):
    game = finished_game_against_a_bot()
    html = client.get(f"/es/g/{game.token}/review/").content.decode()
    assert "Ronda 1</span>" in html
    assert "en una escala de 0 a" in html


@pytest.mark.parametrize(
    ("total", "top"),
    [
        (0.0, 1.0),
        (0.4, 1.0),
        (1.0, 1.0),
        (1.2, 1.5),
        (3.2, 4.0),
        (7.0, 8.0),
        (9.5, 10.0),
        (10.0, 10.0),
        (12.0, 15.0),
        (132.6, 150.0),
        (151.0, 200.0),
        (420.0, 500.0),
    ],
)
def test_the_chart_top_is_the_next_round_number(total, top):
    assert round_top(total) == pytest.approx(top)
    assert round_top(total) >= total
    # The score chart's floor: its top is never under 50.
    assert round_top(total, least=50) == pytest.approx(max(top, 50))


def test_the_chart_line_ends_at_the_total_against_its_axis():
    decisions = [
        Decision(0, n + 1, (1, 2, 3, 4, 5), ("score", "choice"), ("score", "choice"), 0.0, cost)
        for n, cost in enumerate([2.0, 0.0, 5.0])
    ]
    chart = review_rows("yacht", SeatReview(0, "Ana", decisions))["chart"]
    assert chart["top"] == 8.0 and chart["ticks"] == [8.0, 4.0, 0]
    assert chart["rounds"] == (1, 3)
    # Seven of eight: the last point is an eighth of the height below the top.
    assert chart["points"].split()[-1] == "600.0,20.0"


def test_there_is_no_review_before_the_end(client):
    game = services.game_create(guest_id="ana", name="Ana", seat_count=1)
    assert client.get(f"/en/g/{game.token}/review/").status_code == 404
