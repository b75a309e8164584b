import random
from datetime import timedelta

import pytest
import time_machine
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games.models import DailyChallenge, Game, Move, Player, ScoreEntry
from games.play import daily, services
from games.store.selectors import game_snapshot
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client(client):
    user = User.objects.create_superuser("staff", "staff@example.com", "a-long-password-1")
    client.force_login(user)
    return client


def finished_game() -> Game:
    game = factories.started_game(2, ruleset="yatzy")
    return factories.play_turns(game, rng=random.Random(11))


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


def test_the_game_list_costs_the_same_queries_for_two_games_as_for_twelve(staff_client):
    def queries_for_list() -> int:
        with CaptureQueriesContext(connection) as captured:
            response = staff_client.get("/en/admin/games/game/")
        assert response.status_code == 200
        return len(captured)

    def started(seats: int) -> None:
        factories.play_turn(factories.started_game(seats), rng=random.Random(1))

    for seats in (1, 2):
        started(seats)
    few = queries_for_list()
    for n in range(10):
        started(1 + n % 3)
    assert queries_for_list() == few


def test_the_game_list_shows_each_games_totals_and_round(staff_client):
    game = finished_game()
    response = staff_client.get("/en/admin/games/game/")
    totals = " / ".join(str(s["total"]) for s in game_snapshot(game)["seats"])
    assert totals in response.content.decode()


def test_the_admin_names_rule_sets_shows_held_dice_by_face_and_place_and_folds_the_move_log(
    staff_client,
):
    game = finished_game()
    html = staff_client.get(f"/en/admin/games/game/{game.pk}/change/").content.decode()
    # A finished game has no seat to move; its rule set goes by its name.
    assert "Yatzy" in html
    seat = html.split("Seat to move", 1)[1][:300]
    assert '<div class="readonly">-</div>' in seat
    assert "collapse" in html.split("Moves", 1)[0][-2000:] or "<details" in html
    listing = staff_client.get("/en/admin/games/game/").content.decode()
    assert "Yatzy" in listing
    playing = factories.started_game(1, guests=["ana"])
    playing = services.game_roll(token=playing.token, guest_id="ana", version=playing.version)
    services.game_hold(token=playing.token, guest_id="ana", version=playing.version, dice=[0, 2])
    hold = Move.objects.get(game=playing, kind="hold")
    faces = f"{hold.dice[0]}, {hold.dice[2]} (dice 1, 3)"
    page = staff_client.get(f"/en/admin/games/move/{hold.pk}/change/").content.decode()
    assert f'<div class="readonly">{faces}</div>' in page
    # The game in play: one seat to move, counted from 1, and its holds as faces.
    page = staff_client.get(f"/en/admin/games/game/{playing.pk}/change/").content.decode()
    assert "Current seat" not in page and "[0, 2]" not in page
    assert page.split("Seat to move", 1)[1][:300].count('<div class="readonly">1</div>') == 1
    assert f'<div class="readonly">{faces}</div>' in page.split("Held dice", 1)[1][:300]
    # A duplicate seat keeps its own dice and holds: shown the same way on the seat.
    duplicate = services.game_create(guest_id="ana", name="Ana", seat_count=2, duplicate=True)
    services.game_join(token=duplicate.token, guest_id="bo", name="Bo")
    duplicate = services.game_start(token=duplicate.token, guest_id="ana")
    duplicate = services.game_roll(token=duplicate.token, guest_id="ana", version=duplicate.version)
    services.game_hold(token=duplicate.token, guest_id="ana", version=duplicate.version, dice=[1])
    seat = Player.objects.get(game=duplicate, order=0)
    page = staff_client.get(f"/en/admin/games/player/{seat.pk}/change/").content.decode()
    assert "[1]" not in page
    assert f'<div class="readonly">{seat.dice[1]} (dice 2)</div>' in page


def test_staff_see_each_days_challenge_and_its_entries_and_its_seed_only_once_the_day_is_over(
    staff_client,
):
    ana = daily.daily_enter(guest_id="ana", name="Ana", address="192.0.2.1")
    daily.daily_enter(guest_id="bo", name="Bo", address="192.0.2.2")
    challenge = DailyChallenge.objects.get(day=daily.today())
    listing = staff_client.get("/en/admin/games/dailychallenge/").content.decode()
    assert f"/en/admin/games/dailychallenge/{challenge.pk}/change/" in listing
    assert challenge.seed_commitment in listing
    assert '<td class="field-entry_count">2</td>' in listing
    page = staff_client.get(f"/en/admin/games/dailychallenge/{challenge.pk}/change/")
    assert page.status_code == 200
    html = page.content.decode()
    # Both entries, each linking to its game's page; the seed still secret.
    assert "Ana" in html and "Bo" in html
    assert f"/en/admin/games/game/{ana.pk}/change/" in html
    assert challenge.server_seed not in html
    assert "kept secret until the day is over" in html
    assert "Save" not in html, "the challenge page is read-only"
    later = timezone.now() + timedelta(days=1)
    with time_machine.travel(later, tick=False):
        html = staff_client.get(
            f"/en/admin/games/dailychallenge/{challenge.pk}/change/"
        ).content.decode()
    assert challenge.server_seed in html


def test_staff_see_no_dice_moves_or_boxes_of_a_daily_game_until_its_day_is_over(staff_client):
    game = daily.daily_enter(guest_id="ana", name="Ana", address="192.0.2.1")
    game = services.game_roll(token=game.token, guest_id="ana", version=game.version)
    game = services.game_hold(token=game.token, guest_id="ana", version=game.version, dice=[0])
    game = services.game_roll(token=game.token, guest_id="ana", version=game.version)
    services.game_score(token=game.token, guest_id="ana", version=game.version, category="choice")
    rolls = list(Move.objects.filter(game=game, kind="roll").order_by("version"))
    player = Player.objects.get(game=game)
    box = ScoreEntry.objects.get(player=player)
    pages = {
        "game": f"/en/admin/games/game/{game.pk}/change/",
        "seat": f"/en/admin/games/player/{player.pk}/change/",
        "moves": "/en/admin/games/move/",
        "boxes": "/en/admin/games/scoreentry/",
    }

    def seen() -> dict[str, str]:
        return {what: staff_client.get(url).content.decode() for what, url in pages.items()}

    during = seen()
    for what, html in during.items():
        for move in rolls:
            assert str(move.dice) not in html, f"the {what} page showed a roll's dice"
    assert "hidden until the day is over" in during["game"]
    assert "Ana" in during["game"], "the game page is still there, without its dice"
    assert f"/en/admin/games/scoreentry/{box.pk}/change/" not in during["boxes"]
    for move in rolls:
        assert f"/en/admin/games/move/{move.pk}/change/" not in during["moves"]
        opened = staff_client.get(f"/en/admin/games/move/{move.pk}/change/")
        assert opened.status_code == 302, "a roll of the day opened by its address"
    with time_machine.travel(timezone.now() + timedelta(days=1), tick=False):
        after = seen()
        assert staff_client.get(f"/en/admin/games/move/{rolls[0].pk}/change/").status_code == 200
    for move in rolls:
        assert str(move.dice) in after["game"] and str(move.dice) in after["moves"]
    assert "hidden until the day is over" not in after["game"]
    assert f"/en/admin/games/scoreentry/{box.pk}/change/" in after["boxes"]


def test_staff_see_who_waits_under_play_now_and_where_each_ticket_ended(staff_client):
    from games.play import queue

    queue.queue_join(guest_id="ana", name="Ana", address="198.51.100.1")
    queue.queue_join(guest_id="bo", name="Bo", address="198.51.100.2")
    queue.queue_join(guest_id="cy", name="Cy", address="198.51.100.3", seats=3)
    listing = staff_client.get("/en/admin/games/queueticket/").content.decode()
    assert "Ana" in listing and "Bo" in listing and "Cy" in listing
    waiting = staff_client.get("/en/admin/games/queueticket/?state=waiting").content.decode()
    assert "Cy" in waiting and "Ana" not in waiting
    paired = staff_client.get("/en/admin/games/queueticket/?state=paired").content.decode()
    assert "Ana" in paired and "Bo" in paired
    # Read-only, as every window on the games is: no address is kept to see.
    assert staff_client.get("/en/admin/games/queueticket/add/").status_code == 403
    assert "198.51.100" not in listing
