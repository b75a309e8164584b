import random

import pytest
from django.contrib.auth.models import User

from games import services
from games.models import Game, Move
from games.rules import Roll, Score
from games.selectors import game_players, game_state

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client(client):
    user = User.objects.create_superuser("staff", "staff@example.com", "a-long-password-1")
    client.force_login(user)
    return client


def finished_game() -> Game:
    rng = random.Random(11)
    game = services.game_create(guest_id="ana", name="Ana", seat_count=2, ruleset="yatzy")
    services.game_join(token=game.token, guest_id="bo", name="Bo")
    game = services.game_start(token=game.token, guest_id="ana")
    while game.status == Game.Status.PLAYING:
        guest = ["ana", "bo"][game.current_seat]
        game = services.game_act(
            token=game.token, guest_id=guest, version=game.version, action=Roll(), rng=rng
        )
        box = game_state(game, game_players(game)).allowed_boxes()[0]
        game = services.game_act(
            token=game.token, guest_id=guest, version=game.version, action=Score(box), rng=rng
        )
    return game


def test_staff_read_a_finished_game_move_by_move_with_every_scorecard(staff_client):
    game = finished_game()
    response = staff_client.get(f"/en/admin/games/game/{game.pk}/change/")
    assert response.status_code == 200
    html = response.content.decode()
    rolls = list(Move.objects.filter(game=game, kind="roll").order_by("version"))
    assert len(rolls) == 30
    # The move log is shown in order: each roll's dice appear after the previous roll's.
    position = html.index("Moves")
    for move in rolls:
        position = html.index(str(move.dice), position + 1)
    assert html.count("<tr><th>") >= 15 + 1  # every yatzy box and the total
    assert "Ana" in html and "Bo" in html
    assert f"/en/g/{game.token}/review/" in html
    assert "Save" not in html, "the game page is read-only"


def test_staff_filter_games_by_rule_set_and_status_and_search_by_player(staff_client):
    finished_game()
    services.game_create(guest_id="cy", name="Cyrano", seat_count=1, ruleset="classic13")
    response = staff_client.get("/en/admin/games/game/?ruleset__exact=classic13")
    assert response.status_code == 200
    assert "Cyrano" in response.content.decode() and "Ana, Bo" not in response.content.decode()
    response = staff_client.get("/en/admin/games/game/?status__exact=finished&q=Bo")
    text = response.content.decode()
    assert "Ana, Bo" in text and "Cyrano" not in text


def test_the_admin_is_for_staff_only(client):
    User.objects.create_user("player", "p@example.com", "a-long-password-1")
    client.force_login(User.objects.get(username="player"))
    response = client.get("/en/admin/games/game/")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
