"""The game pages' flow: starting, inviting, titles, the review's dice."""

import random
import re

import pytest

from games.models import Game
from tests import factories

pytestmark = pytest.mark.django_db


def create(client, **fields) -> Game:
    data = {"name": "Ana", "seats": "2", "ruleset": "yacht", **fields}
    response = client.post("/en/", data)
    assert response.status_code == 302, response.content[:500]
    return Game.objects.get(token=response["Location"].rstrip("/").rsplit("/", 1)[-1])


@pytest.mark.parametrize(
    ("fields", "status"),
    [
        ({"seats": "1"}, Game.Status.PLAYING),
        ({"seats": "3", "opponents": "solid"}, Game.Status.PLAYING),
        ({"seats": "3"}, Game.Status.LOBBY),
    ],
)
def test_a_game_whose_seats_are_all_taken_at_creation_starts_at_once(client, fields, status):
    assert create(client, **fields).status == status


def test_the_invite_link_has_no_language_so_each_friend_lands_in_their_own(client):
    game = create(client)
    html = client.get(f"/en/g/{game.token}/").content.decode()
    link = re.search(r'id="invite-link" type="text" readonly value="([^"]+)"', html)
    assert link is not None and link.group(1).endswith(f"/g/{game.token}/")
    assert "/en/" not in link.group(1)
    friend = client.__class__()
    response = friend.get(f"/g/{game.token}/", headers={"accept-language": "ca"})
    assert response.status_code == 302
    assert response["Location"] == f"/ca/g/{game.token}/"


def test_the_tab_title_says_where_the_viewer_is(client):
    game = create(client, seats="1")
    html = client.get(f"/en/g/{game.token}/").content.decode()
    assert "<title>Your turn · Yacht</title>" in html
    lobby = create(client)
    html = client.get(f"/es/g/{lobby.token}/").content.decode()
    assert "<title>Sala de espera · Yacht</title>" in html


def test_the_page_tells_its_script_the_pace_the_server_holds_each_socket_to(client, settings):
    settings.YACHT_SOCKET_MESSAGE_BURST = 12
    settings.YACHT_SOCKET_MESSAGES_PER_SECOND = 2.5
    game = create(client, seats="1")
    html = client.get(f"/en/g/{game.token}/").content.decode()
    assert 'data-pace-burst="12" data-pace-rate="2.5"' in html


def test_the_review_draws_the_dice_with_pips(client):
    game = factories.play_turns(factories.started_game(2, bot_level="solid"), rng=random.Random(5))
    html = client.get(f"/en/g/{game.token}/review/").content.decode()
    assert html.count('class="mini-die"') >= 5 * 12
    assert 'class="pip on"' in html


def first_roll(game: Game, dice: list[int]) -> Game:
    """Ana, in the first seat, rolls ``dice``."""
    from games.play import services
    from games.rules import Roll, ScriptedDice

    return services.game_act(
        token=game.token,
        guest_id="ana",
        version=game.version,
        action=Roll(),
        rng=ScriptedDice(dice),
    )


def test_previews_mute_zeros_and_light_the_most_points_and_a_bot_to_move_is_thinking():
    from games.play import services
    from games.present.rendering import table_message
    from games.store.selectors import game_snapshot

    game = first_roll(factories.started_game(2, bot_level="solid"), [6, 6, 6, 6, 2])
    html = table_message(game_snapshot(game), 0, "en")["html"]
    assert re.search(r'class="box best"[^>]*data-category="yacht"', html) is None
    best = re.findall(r'class="box best" data-action="score" data-category="(\w+)"', html)
    assert best == ["choice"]  # 26 points, the most this roll scores
    zeros = re.findall(r'class="box zero" data-action="score" data-category="(\w+)"', html)
    assert "ones" in zeros and "yacht" in zeros
    game = services.game_score(
        token=game.token, guest_id="ana", version=game.version, category="choice"
    )
    html = table_message(game_snapshot(game), 0, "en")["html"]
    assert "thinking…" in html


def test_each_viewer_sees_the_dice_in_their_language_and_only_the_mover_may_hold_them():
    """A die's button is rendered once and shared by every table that shows
    it: what it says and allows must still be each viewer's own."""
    from games.play import services
    from games.present.rendering import table_message
    from games.store.selectors import game_snapshot

    game = first_roll(factories.started_game(2), [3, 1, 4, 1, 5])
    game = services.game_hold(token=game.token, guest_id="ana", version=game.version, dice=[2])
    snap = game_snapshot(game)

    def dice(seat, language):
        html = table_message(snap, seat, language)["html"]
        return re.findall(r'<button type="button" class="die[^"]*".*?</button>', html, re.S)

    mine, theirs, catalan = dice(0, "en"), dice(1, "en"), dice(0, "ca")
    assert len(mine) == len(theirs) == len(catalan) == 5
    assert 'aria-label="Die 3: 4, held"' in mine[2] and 'class="die held"' in mine[2]
    assert 'aria-label="Die 1: 3"' in mine[0] and 'aria-pressed="false"' in mine[0]
    assert 'aria-label="Dau 3: 4, ' in catalan[2]
    assert all("disabled" not in die and 'class="die-key"' in die for die in mine)
    assert all("disabled" in die and "die-key" not in die for die in theirs)


def test_a_view_speaks_its_own_language_and_leaves_the_active_one_as_it_was():
    """A view's sentences come in its language whatever the active one, and
    the words asked for after it, outside any view, in the active one."""
    from django.utils import translation

    from games.present.rendering import page_title, table_message
    from games.store.selectors import game_snapshot

    game = first_roll(factories.started_game(2), [3, 1, 4, 1, 5])
    snap = game_snapshot(game)
    with translation.override("it"):
        italian = page_title(snap, 1)
        spanish = table_message(snap, 1, "es")
        assert page_title(snap, 1) == italian
    assert spanish["html"].count(f'data-title="{spanish_title(snap)}"') == 1
    assert italian != spanish_title(snap) and "Round" not in italian


def spanish_title(snap):
    from django.utils import translation

    from games.present.rendering import page_title

    with translation.override("es"):
        return page_title(snap, 1)


def test_the_game_page_reads_its_seats_once(client):
    """The viewer's seat is found among the seats the table is drawn from."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    game = create(client)
    with CaptureQueriesContext(connection) as queries:
        html = client.get(f"/en/g/{game.token}/").content.decode()
    seat_reads = [q for q in queries.captured_queries if 'FROM "games_player"' in q["sql"]]
    assert len(seat_reads) == 1
    assert 'data-seat="0"' in html
