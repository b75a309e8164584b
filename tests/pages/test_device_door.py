"""The home page's "On one device" door, without JavaScript: how many
people, then one press for a pass-and-play game with the server's dice or
with real dice; the names and bots under "More options" joining in; and a
refusal said inside the door, which stays as it was chosen."""

from __future__ import annotations

import re

import pytest

from games.edge.guests import GUEST_KEY
from games.models import Game, Player
from games.web.forms import default_people
from tests.pages.test_front_door import home_post, token_of

pytestmark = pytest.mark.django_db


def door(html: str) -> str:
    """The door's own markup."""
    start = html.index('<section class="door door-device"')
    return html[start : html.index("</section>", start)]


def people_of(game: Game) -> list[tuple[str, str, bool, str]]:
    seats = Player.objects.filter(game=game).order_by("order")
    return [(p.name, p.guest_id, p.shared, p.bot) for p in seats]


def test_the_door_holds_its_count_and_both_starts_in_the_one_form(client):
    html = client.get("/en/").content.decode()
    start = html.index('<form class="front-door"')
    form = html[start : html.index("</form>", start)]
    inside = door(form)
    assert '<select name="people_count" id="id_people_count">' in inside
    assert re.search(r'<option value="2" selected>2</option>', inside)
    assert '<button type="submit" name="pass_and_play" value="1"' in inside
    assert '<button type="submit" name="pass_and_play" value="real"' in inside
    assert "Start with real dice" in inside and "Start on this device" in inside
    # The names and bots stay under "More options", with no start of their own.
    options = form[form.index('<details class="more-options">') : form.index("</details>")]
    assert 'name="people"' in options and 'name="people_bots"' in options
    assert "pass_and_play" not in options


def test_one_press_starts_a_pass_and_play_game_for_the_people_counted(client):
    response = home_post(client, name="Ana", pass_and_play="1", people_count="3")
    game = Game.objects.get(token=token_of(response))
    guest = client.session[GUEST_KEY]
    assert game.status == Game.Status.PLAYING and not game.dice_entered
    assert people_of(game) == [
        ("Ana", guest, True, ""),
        ("Player 2", guest, True, ""),
        ("Player 3", guest, True, ""),
    ]


def test_with_no_name_and_no_count_the_door_seats_two_players_in_the_page_s_language(client):
    game = Game.objects.get(token=token_of(home_post(client, "es", pass_and_play="1")))
    assert [name for name, *_ in people_of(game)] == ["Jugador 1", "Jugador 2"]


def test_the_real_dice_start_makes_a_companion_game_on_this_device(client):
    response = home_post(client, pass_and_play="real", people_count="4", ruleset="classic13")
    game = Game.objects.get(token=token_of(response))
    assert game.dice_entered and game.hints and not game.seed_commitment
    assert (game.ruleset, game.seat_count, game.status) == ("classic13", 4, Game.Status.PLAYING)
    assert {shared for _name, _guest, shared, _bot in people_of(game)} == {True}
    table = client.get(f"/en/g/{game.token}/").content.decode()
    assert "data-keypad" in table and 'data-handover="1-0"' in table


def test_names_written_under_more_options_decide_who_plays_and_bots_join_them(client):
    response = home_post(
        client,
        pass_and_play="1",
        people_count="5",
        people="Ana\nBen",
        people_bots="1",
        people_bot_level="beginner",
    )
    game = Game.objects.get(token=token_of(response))
    people = people_of(game)
    assert [name for name, *_ in people[:2]] == ["Ana", "Ben"]
    assert len(people) == 3 and people[2][3] == "beginner"


def test_the_numbered_names_skip_one_that_looks_like_the_name_given():
    assert default_people(3, "player 2") == ["player 2", "Player 3", "Player 4"]
    assert default_people(2, "") == ["Player 1", "Player 2"]


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({"turn_seconds": "30"}, "choose no clock for real dice"),
        ({"people_bots": "1"}, "Bots need the server&#39;s dice"),
    ],
)
def test_real_dice_refused_says_why_inside_the_door_which_keeps_its_count(client, fields, error):
    response = home_post(client, pass_and_play="real", people_count="4", **fields)
    assert response.status_code == 200
    html = response.content.decode()
    assert error in door(html)
    assert re.search(r'<option value="4" selected>4</option>', door(html))
    # The setting in the way is under "More options", opened to show it; the
    # real-dice box there stays as the player left it.
    assert '<details class="more-options" open>' in html
    ticked = re.search(r'<input[^>]*name="dice_entered"[^>]*>', html)
    assert ticked and "checked" not in ticked.group(0)
    assert not Game.objects.exists()


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({"people_count": "5", "people_bots": "2"}, "A table has at most 6 seats, bots included."),
        ({"duplicate": "on"}, "A duplicate game needs a device for each person: untick it."),
    ],
)
def test_a_setting_under_more_options_in_the_door_s_way_is_refused_beside_it(client, fields, error):
    for pressed in ("1", "real"):
        response = home_post(client, pass_and_play=pressed, **fields)
        html = response.content.decode()
        assert response.status_code == 200
        assert '<details class="more-options" open>' in html
        start = html.index('<details class="more-options"')
        options = html[start : html.index("</details>", start)]
        assert error in options
        chosen = fields.get("people_count", "2")
        assert f'<option value="{chosen}" selected>{chosen}</option>' in door(html)
    assert not Game.objects.exists()


def test_a_count_the_door_does_not_offer_is_refused_inside_it(client):
    response = home_post(client, pass_and_play="1", people_count="9")
    assert response.status_code == 200
    assert "Select a valid choice." in door(response.content.decode())
    assert '<details class="more-options">' in response.content.decode()
    assert not Game.objects.exists()


def test_the_door_s_words_are_translated(client):
    for lang, words in [
        ("es", ("En un solo dispositivo", "Empezar con dados de verdad", "Personas")),
        ("it", ("Su un solo dispositivo", "Inizia con dadi veri", "Persone")),
        ("ca", ("En un sol dispositiu", "Comença amb daus de veritat", "Persones")),
    ]:
        inside = door(client.get(f"/{lang}/").content.decode())
        for word in words:
            assert word in inside, (lang, word)
