"""Pass and play from the home page's "More options", without JavaScript: a
game for the people named, all on this browser, its page asking for the
device to reach the person to move; My games, the review and the end line
for a device that several people held."""

from __future__ import annotations

import re

import pytest

from games.edge.guests import GUEST_KEY
from games.models import Game, Player
from games.play import services
from tests.pages.test_front_door import home_post, token_of

pytestmark = pytest.mark.django_db


def passed(client, people: str = "Ana\nBen\n\nCai", **fields: str):
    return home_post(client, pass_and_play="1", people=people, **fields)


def test_the_pass_and_play_button_starts_a_game_for_the_people_named_on_this_browser(client):
    html = client.get("/en/").content.decode()
    assert 'name="pass_and_play" value="1"' in html and 'name="people"' in html
    game = Game.objects.get(token=token_of(passed(client, people_bots="1")))
    seats = list(Player.objects.filter(game=game).order_by("order"))
    guest = client.session[GUEST_KEY]
    assert game.status == Game.Status.PLAYING
    assert [(p.name, p.guest_id, p.shared) for p in seats[:3]] == [
        ("Ana", guest, True),
        ("Ben", guest, True),
        ("Cai", guest, True),
    ]
    assert seats[3].bot == "solid" and not seats[3].guest_id


def test_enter_in_the_name_field_still_opens_the_friends_lobby_not_pass_and_play(client):
    form = client.get("/en/").content.decode().split('<form class="front-door"', 1)[1]
    first_button = re.search(r"<button[^>]*>", form)
    assert first_button and 'type="submit"' in first_button.group(0)
    assert "name=" not in first_button.group(0)


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({"people": "Ana"}, "Write the names of 2 to 6 people, one a line."),
        ({"people": "A\nB\nC\nD\nE", "people_bots": "2"}, "at most 6 seats, bots included"),
        ({"people": "Ana\nAna"}, "already has that name"),
        ({"people": "Ana\nBen", "duplicate": "on"}, "needs a device for each person"),
    ],
)
def test_a_pass_and_play_form_that_cannot_make_a_table_says_why_and_makes_nothing(
    client, fields, error
):
    response = passed(client, **fields)
    assert response.status_code == 200
    assert error in response.content.decode()
    assert not Game.objects.exists()
    # The options stay open, with the names as they were typed.
    assert '<details class="more-options" open>' in response.content.decode()


def test_the_game_page_asks_for_the_device_to_reach_the_person_to_move(client):
    token = token_of(passed(client))
    html = client.get(f"/en/g/{token}/").content.decode()
    assert 'data-handover="1-0"' in html
    assert "Pass the device to Ana, then tap when Ana has it." in html
    title = re.sub(r"<[^>]+>", "", html.split('id="turn-title"', 1)[1].split("</h2>", 1)[0])
    assert "Ana's turn" in title and "Your turn" not in title
    # In every language of the site.
    assert "Pasa el dispositivo a Ana" in client.get(f"/es/g/{token}/").content.decode()


def test_my_games_lists_the_game_once_and_the_end_line_speaks_to_nobody(client):
    token = token_of(passed(client))
    listed = client.get("/en/my/games/").content.decode()
    assert listed.count(f"/g/{token}/") == 1
    game = Game.objects.get(token=token)
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
    end = client.get(f"/en/g/{token}/end/")
    assert end.status_code == 200
    assert "end-review" not in end.content.decode()


def test_a_rematch_asked_from_the_device_keeps_everyone_on_it(client):
    token = token_of(passed(client))
    game = Game.objects.get(token=token)
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
    new = services.game_rematch(token=token, guest_id=client.session[GUEST_KEY])
    assert Player.objects.filter(game=new, shared=True).count() == 3


def test_no_hand_over_is_asked_for_a_turn_a_bot_plays_for_its_person(client):
    token = token_of(passed(client, turn_seconds="30"))
    # Ana's turn clock ran out: the stand-in bot plays it, nobody needs the device.
    Player.objects.filter(game__token=token, order=0).update(bot="solid")
    html = client.get(f"/en/g/{token}/").content.decode()
    assert "data-handover=" not in html
    assert "a bot is playing it for you" in html


def test_my_stats_say_that_pass_and_play_games_are_left_out_once_one_is_over(client):
    assert "Pass-and-play games are left out" not in client.get("/en/my/stats/").content.decode()
    token = token_of(passed(client))
    Game.objects.filter(token=token).update(status=Game.Status.FINISHED)
    assert "Pass-and-play games are left out" in client.get("/en/my/stats/").content.decode()
