import random

import pytest

from games import services
from games.models import Game
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


def test_there_is_no_review_before_the_end(client):
    game = services.game_create(guest_id="ana", name="Ana", seat_count=1)
    assert client.get(f"/en/g/{game.token}/review/").status_code == 404
