"""'Teach me' on the game page: on for a first game, per session, per viewer;
and every box's name opening its rule."""

from __future__ import annotations

import re

import pytest
from django.template.loader import render_to_string
from django.test import Client

from games.edge.guests import GUEST_KEY
from games.models import Game
from games.play import services
from games.present.rules_pages import best_box
from games.rules import Roll, Score, get_ruleset

pytestmark = pytest.mark.django_db


def new_game(client: Client, **fields: str) -> Game:
    data = {"name": "Ana", "seats": "1", "ruleset": "yacht", **fields}
    response = client.post("/en/", data)
    assert response.status_code == 302
    return Game.objects.get(token=response["Location"].rstrip("/").rsplit("/", 1)[-1])


def page(client: Client, game: Game, lang: str = "en") -> str:
    return client.get(f"/{lang}/g/{game.token}/").content.decode()


def coach_setting(html: str) -> str:
    found = re.search(r'data-coach="(\d)"', html)
    assert found is not None
    return found.group(1)


def finish(game: Game, guest: str) -> None:
    for key in get_ruleset(game.ruleset).category_keys:
        for action in (Roll(), Score(key)):
            game.refresh_from_db()
            services.game_act(token=game.token, guest_id=guest, version=game.version, action=action)


def test_a_first_game_is_coached_and_the_next_one_is_not():
    ana = Client()
    game = new_game(ana)
    html = page(ana, game)
    assert coach_setting(html) == "1"
    assert "data-coach-toggle" in html and "Teach me" in html
    finish(game, ana.session[GUEST_KEY])
    assert coach_setting(page(ana, new_game(ana))) == "0"


def test_teach_me_is_kept_per_session_either_way():
    ana = Client()
    game = new_game(ana)
    assert ana.post("/en/coach/", {"on": "0"}).status_code == 204
    assert coach_setting(page(ana, game)) == "0"
    finish(game, ana.session[GUEST_KEY])
    ana.post("/en/coach/", {"on": "1"})
    assert coach_setting(page(ana, new_game(ana))) == "1"
    # Another browser, another session: its own first game.
    bo = Client()
    assert coach_setting(page(bo, new_game(bo))) == "1"


def test_setting_teach_me_without_a_seat_makes_no_session():
    visitor = Client()
    assert visitor.post("/en/coach/", {"on": "1"}).status_code == 204
    assert "sessionid" not in visitor.cookies


def test_the_toggle_is_never_shown_to_a_spectator():
    ana = Client()
    game = new_game(ana, seats="2", opponents="solid")
    assert "data-coach-toggle" in page(ana, game)
    html = page(Client(), game)
    assert "data-coach-toggle" not in html
    assert coach_setting(html) == "0"


def test_with_another_person_the_toggle_shows_only_where_hints_are_on_and_on_ones_turn():
    for hints, shown in (("", False), ("on", True)):
        ana = Client()
        fields = {"seats": "2", **({"hints": hints} if hints else {})}
        game = new_game(ana, **fields)
        bo = Client()
        bo.post(f"/en/g/{game.token}/join/", {"name": "Bo"})
        services.game_start(token=game.token, guest_id=ana.session[GUEST_KEY])
        assert ("data-coach-toggle" in page(ana, game)) is shown
        # Coaching is for the player to move: Bo waits his turn.
        assert "data-coach-toggle" not in page(bo, game)
        assert "data-coach-toggle" not in page(Client(), game)


@pytest.mark.parametrize("lang", ["en", "es", "it", "ca"])
def test_every_box_name_opens_the_rule_the_rules_page_gives_it(lang: str):
    ana = Client()
    game = new_game(ana)
    html = page(ana, game, lang)
    body = html.split("<tbody>")[1].split("</tbody>")[0]
    for key in get_ruleset("yacht").category_keys:
        assert (
            f'<button type="button" class="box-name-button" popovertarget="box-help-{key}"'
            ' popovertargetaction="show">' in body
        )
        assert f'id="box-help-{key}" popover>' in body
    rule = render_to_string(
        f"rules/{lang}/boxes/full_house_sum.html",
        {"part": "text", "box": {"best": best_box("yacht", "full_house")}},
    ).strip()
    help_box = body.split('id="box-help-full_house" popover>')[1].split("</div>")[0]
    assert rule in help_box
