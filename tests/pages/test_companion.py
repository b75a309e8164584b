"""Real dice from the home page: the option under "More options", what it
refuses to combine with, and entered dice marked as such on the table, the
review, the check-the-dice page, My games and My stats."""

from __future__ import annotations

import re

import pytest

from games.models import Game, Move
from games.play import services
from games.present.rendering import table_message
from games.store.selectors import game_players, game_snapshot, game_state, last_action
from tests.pages.test_front_door import home_post, token_of

pytestmark = pytest.mark.django_db


def test_real_dice_is_offered_under_more_options_and_makes_a_companion_game(client):
    html = client.get("/en/").content.decode()
    assert 'name="dice_entered"' in html and "Real dice: enter what you roll" in html
    game = Game.objects.get(token=token_of(home_post(client, dice_entered="on", seats="1")))
    assert game.dice_entered and game.hints and not game.seed_commitment
    table = client.get(f"/en/g/{game.token}/").content.decode()
    assert "data-keypad" in table and 'data-action="roll"' not in table
    assert "real dice" in table and "prove nothing about fairness" in table


def test_real_dice_with_pass_and_play_puts_every_person_on_the_device(client):
    response = home_post(client, dice_entered="on", pass_and_play="1", people="Ana\nBen")
    game = Game.objects.get(token=token_of(response))
    assert game.dice_entered and game.status == Game.Status.PLAYING


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({"opponents": "solid"}, "Bots need the server&#39;s dice"),
        ({"pass_and_play": "1", "people": "Ana\nBen", "people_bots": "1"}, "Bots need"),
        ({"turn_seconds": "30"}, "choose no clock for real dice"),
        ({"duplicate": "on"}, "Duplicate rounds share the server&#39;s dice"),
    ],
)
def test_real_dice_with_what_needs_server_dice_says_why_and_makes_nothing(client, fields, error):
    response = home_post(client, dice_entered="on", **fields)
    assert response.status_code == 200
    html = response.content.decode()
    assert error in html
    ticked = re.search(r'<input[^>]*name="dice_entered"[^>]*>', html)
    assert ticked and "checked" in ticked.group(0)
    assert not Game.objects.exists()


def test_the_daily_challenge_refuses_real_dice_in_the_visitors_language(client):
    response = client.post("/es/daily/", {"dice_entered": "on", "name": "Ana"})
    assert response.status_code == 200
    assert "dados de verdad" in response.content.decode()
    assert not Game.objects.exists()


def _finished_companion() -> Game:
    game = services.game_create(guest_id="ana", name="Ana", seat_count=1, dice_entered=True)
    game = services.game_start(token=game.token, guest_id="ana")
    for box in game_state(game, game_players(game)).ruleset.category_keys:
        game.refresh_from_db()
        game = services.game_enter(
            token=game.token, guest_id="ana", version=game.version, dice=[2, 3, 4, 5, 6]
        )
        game = services.game_score(
            token=game.token, guest_id="ana", version=game.version, category=box
        )
    return game


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("en", "entered these dice from real dice"),
        ("es", "dados de verdad"),
        ("it", "dadi veri"),
        ("ca", "daus de veritat"),
    ],
)
def test_check_the_dice_says_plainly_the_players_entered_them(client, lang, words):
    game = _finished_companion()
    html = client.get(f"/{lang}/g/{game.token}/verify/").content.decode()
    assert words in html
    assert "verify-rolls" not in html


def test_the_review_and_the_end_of_the_table_mark_the_dice_as_entered(client):
    game = _finished_companion()
    review = client.get(f"/en/g/{game.token}/review/").content.decode()
    assert "every die here was entered by the players" in review
    table = client.get(f"/en/g/{game.token}/").content.decode()
    assert "verify-link" in table


def test_my_stats_and_my_games_keep_real_dice_apart(client):
    home_post(client, dice_entered="on", seats="1")
    game = Game.objects.get()
    guest = game.players.get().guest_id
    for box in game_state(game, game_players(game)).ruleset.category_keys:
        game.refresh_from_db()
        game = services.game_enter(
            token=game.token, guest_id=guest, version=game.version, dice=[1, 1, 1, 1, 1]
        )
        game = services.game_score(
            token=game.token, guest_id=guest, version=game.version, category=box
        )
    stats = client.get("/en/my/stats/").content.decode()
    assert "Games played with real dice are kept apart" in stats
    assert "No finished games yet" in stats
    mine = client.get("/en/my/games/").content.decode()
    assert "tag-entered" in mine


def _entered(game: Game, guest: str, dice: list[int], hold: list[int] | None = None):
    """The snapshot a push carries after ``guest`` entered ``dice``."""
    game.refresh_from_db()
    game = services.game_enter(
        token=game.token, guest_id=guest, version=game.version, dice=dice, hold=hold
    )
    move = Move.objects.filter(game=game, kind=Move.Kind.ROLL).latest("version")
    return {**game_snapshot(game), "last": last_action("roll", 0, move)}


@pytest.mark.parametrize(
    ("lang", "others_hear", "ana_hears", "after_keeping"),
    [
        (
            "en",
            "Ana entered 3, 3, 5, 6, 6.",
            "You entered 3, 3, 5, 6, 6.",
            "Ana kept 6, 6 and entered 1, 2, 4.",
        ),
        (
            "es",
            "Ana ha introducido 3, 3, 5, 6, 6.",
            "Has introducido 3, 3, 5, 6, 6.",
            "Ana ha guardado 6, 6 y ha introducido 1, 2, 4.",
        ),
        (
            "it",
            "Ana ha inserito 3, 3, 5, 6, 6.",
            "Hai inserito 3, 3, 5, 6, 6.",
            "Ana ha tenuto 6, 6 e ha inserito 1, 2, 4.",
        ),
        (
            "ca",
            "Ana ha introduït 3, 3, 5, 6, 6.",
            "Has introduït 3, 3, 5, 6, 6.",
            "Ana ha guardat 6, 6 i ha introduït 1, 2, 4.",
        ),
    ],
)
def test_screen_readers_hear_that_real_dice_were_entered_not_rolled(
    lang, others_hear, ana_hears, after_keeping
):
    game = services.game_create(guest_id="ana", name="Ana", seat_count=2, dice_entered=True)
    services.game_join(token=game.token, guest_id="ben", name="Ben")
    game = services.game_start(token=game.token, guest_id="ana")
    snap = _entered(game, "ana", [3, 3, 5, 6, 6])
    for me in (1, None):
        assert table_message(snap, me, lang)["announce"] == others_hear
    assert table_message(snap, 0, lang)["announce"] == ana_hears
    snap = _entered(game, "ana", [1, 2, 4, 6, 6], hold=[3, 4])
    assert table_message(snap, 1, lang)["announce"] == after_keeping
