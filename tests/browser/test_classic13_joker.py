"""Classic 13's forced joker, played in the browser.

The server's dice are fair and cannot be steered, so the test arranges the
one position it needs straight in the database (a filled yacht box and five
sixes on the table, as if just rolled), then plays on through the page: the
server alone decides which boxes the joker allows and what they score.
"""

import pytest
from playwright.sync_api import Page, expect

from games.models import Game, Player, ScoreEntry
from tests.browser import setups
from tests.browser.test_live_game import version, wait_past

pytestmark = pytest.mark.browser


def five_sixes_rolled(game: Game) -> None:
    game.refresh_from_db()
    Game.objects.filter(pk=game.pk).update(
        dice=[6, 6, 6, 6, 6], held=[], rolls_used=1, version=game.version + 1
    )


def scorable(page: Page) -> dict[str, str]:
    boxes = page.locator("button.box")
    return {
        boxes.nth(i).get_attribute("data-category") or "": boxes.nth(i).inner_text().split()[0]
        for i in range(boxes.count())
    }


def test_a_five_alike_after_a_yacht_must_go_where_the_joker_says_and_earns_the_bonus(new_page):
    page = new_page()
    setups.start_from_home(page, seats=1, ruleset="classic13")
    # A solitaire table starts at once.
    expect(page.get_by_role("heading", name="Your turn")).to_be_visible()
    game = Game.objects.get(token=page.url.rstrip("/").rsplit("/", 1)[1])
    assert game.ruleset == "classic13"
    ana = Player.objects.get(game=game)
    ScoreEntry.objects.create(player=ana, category="yacht", points=50)

    # The own upper box is open: it is the only box offered, with the bonus shown.
    five_sixes_rolled(game)
    page.reload()
    expect(page.locator("button.box")).to_have_count(1)
    assert scorable(page) == {"sixes": "130"}
    v = version(page)
    page.locator('button.box[data-category="sixes"]').click()
    wait_past(page, v)
    assert ScoreEntry.objects.get(player=ana, category="sixes").extra_bonus == 100

    # Sixes filled: any open lower box, at the joker's fixed points, plus the bonus.
    five_sixes_rolled(game)
    page.reload()
    offered = scorable(page)
    assert offered == {
        "three_of_a_kind": "130",
        "four_of_a_kind": "130",
        "full_house": "125",
        "little_straight": "130",
        "big_straight": "140",
        "choice": "130",
    }
    v = version(page)
    page.locator('button.box[data-category="big_straight"]').click()
    wait_past(page, v)
    entry = ScoreEntry.objects.get(player=ana, category="big_straight")
    assert (entry.points, entry.extra_bonus) == (40, 100)
    expect(page.locator(".scorecard")).to_contain_text("+200")
