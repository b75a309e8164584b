"""The rules pages players read: one structure (templates/rules/page.html and
games/present/rules_pages.py) in the words of each language (templates/rules/<lang>/).

Every example on a page is written as
``<span class="example" data-dice="3,3,3,5,5" data-category="full_house" data-points="19">``
so that the scores printed for players are checked against the engine.
Examples that ``score`` alone cannot check (joker, bonuses) leave out
``data-points``.

To cover a new language, add its (language, rule set) pairs to ``PAGES``.
"""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.utils import translation

from games.present.labels import category_name
from games.rules import RULESETS, score

_YACHT_EN = (
    "Ones", "Twos", "Threes", "Fours", "Fives", "Sixes",
    "Full House", "Four of a Kind", "Little Straight", "Big Straight", "Choice", "Yacht",
)  # fmt: skip
# The Spanish names the rulebook gives for the traditional game.
_YACHT_ES = (
    "Unos", "Doses", "Treses", "Cuatros", "Cincos", "Seises",
    "Full House", "Cuatro iguales", "Escalera pequeña", "Escalera grande", "Elección", "Yacht",
)  # fmt: skip

# The Italian names the rulebook gives for the traditional game.
_YACHT_IT = (
    "Uno", "Due", "Tre", "Quattro", "Cinque", "Sei",
    "Full House", "Poker", "Scala piccola", "Scala grande", "Scelta", "Yacht",
)  # fmt: skip
# The Catalan names the rulebook gives for the traditional game.
_YACHT_CA = (
    "Uns", "Dos", "Tres", "Quatres", "Cincs", "Sis",
    "Full House", "Quatre iguals", "Escala petita", "Escala gran", "Elecció", "Yacht",
)  # fmt: skip

# (language, rule set) -> the box names that page must use.
PAGES: dict[tuple[str, str], tuple[str, ...]] = {
    ("en", "yacht"): _YACHT_EN,
    ("en", "yacht_sum"): _YACHT_EN,
    ("en", "yacht_bonus"): _YACHT_EN,
    ("en", "yatzy"): (
        "Ones", "Twos", "Threes", "Fours", "Fives", "Sixes",
        "One Pair", "Two Pairs", "Three of a Kind", "Four of a Kind",
        "Small Straight", "Large Straight", "Full House", "Chance", "Yatzy",
    ),
    ("en", "classic13"): (
        "Ones", "Twos", "Threes", "Fours", "Fives", "Sixes",
        "Three of a Kind", "Four of a Kind", "Full House",
        "Small Straight", "Large Straight", "Yacht", "Chance",
    ),
    ("es", "yacht"): _YACHT_ES,
    ("es", "yacht_sum"): _YACHT_ES,
    ("es", "yacht_bonus"): _YACHT_ES,
    ("es", "yatzy"): (
        "Unos", "Doses", "Treses", "Cuatros", "Cincos", "Seises",
        "Pareja", "Doble pareja", "Tres iguales", "Cuatro iguales",
        "Escalera corta", "Escalera larga", "Full House", "Azar", "Yatzy",
    ),
    ("es", "classic13"): (
        "Unos", "Doses", "Treses", "Cuatros", "Cincos", "Seises",
        "Tres iguales", "Cuatro iguales", "Full House",
        "Escalera corta", "Escalera larga", "Yacht", "Azar",
    ),
    ("it", "yacht"): _YACHT_IT,
    ("it", "yacht_sum"): _YACHT_IT,
    ("it", "yacht_bonus"): _YACHT_IT,
    ("it", "yatzy"): (
        "Uno", "Due", "Tre", "Quattro", "Cinque", "Sei",
        "Coppia", "Doppia coppia", "Tris", "Poker",
        "Scala minore", "Scala maggiore", "Full House", "Chance", "Yatzy",
    ),
    ("it", "classic13"): (
        "Uno", "Due", "Tre", "Quattro", "Cinque", "Sei",
        "Tris", "Poker", "Full House",
        "Scala minore", "Scala maggiore", "Yacht", "Chance",
    ),
    ("ca", "yacht"): _YACHT_CA,
    ("ca", "yacht_sum"): _YACHT_CA,
    ("ca", "yacht_bonus"): _YACHT_CA,
    ("ca", "yatzy"): (
        "Uns", "Dos", "Tres", "Quatres", "Cincs", "Sis",
        "Parella", "Doble parella", "Tres iguals", "Quatre iguals",
        "Escala curta", "Escala llarga", "Full House", "Atzar", "Yatzy",
    ),
    ("ca", "classic13"): (
        "Uns", "Dos", "Tres", "Quatres", "Cincs", "Sis",
        "Tres iguals", "Quatre iguals", "Full House",
        "Escala curta", "Escala llarga", "Yacht", "Atzar",
    ),
}  # fmt: skip


class _Examples(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.examples: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "span" and "example" in (found.get("class") or "").split():
            self.examples.append(found)


def _page(client, language: str, ruleset: str) -> str:
    response = client.get(f"/{language}/rules/{ruleset}/")
    assert response.status_code == 200
    return response.content.decode()


def _examples(html: str) -> list[dict[str, str | None]]:
    parser = _Examples()
    parser.feed(html)
    return parser.examples


def _dice(example: dict[str, str | None]) -> list[int]:
    return [int(d) for d in (example["data-dice"] or "").split(",")]


pages = pytest.mark.parametrize(
    ("language", "ruleset"), list(PAGES), ids=[f"{lang}-{key}" for lang, key in PAGES]
)


@pages
def test_the_page_is_served_in_its_language(client, language: str, ruleset: str) -> None:
    html = _page(client, language, ruleset)
    assert f'<html lang="{language}">' in html
    assert f'<article class="rules" lang="{language}">' in html
    assert 'class="rules-nav"' in html


@pages
def test_the_page_names_every_box_as_players_of_that_game_know_it(
    client, language: str, ruleset: str
) -> None:
    html = _page(client, language, ruleset)
    assert len(PAGES[language, ruleset]) == len(RULESETS[ruleset].categories)
    missing = [name for name in PAGES[language, ruleset] if name not in html]
    assert missing == []


@pages
def test_the_page_uses_the_box_names_the_scorecard_shows(
    client, language: str, ruleset: str
) -> None:
    html = _page(client, language, ruleset)
    with translation.override(language):
        names = [category_name(ruleset, key) for key in RULESETS[ruleset].category_keys]
    assert [name for name in names if name not in html] == []


@pages
def test_the_page_has_a_score_table(client, language: str, ruleset: str) -> None:
    assert "<table" in _page(client, language, ruleset)


@pages
def test_every_example_score_on_the_page_is_what_the_engine_scores(
    client, language: str, ruleset: str
) -> None:
    examples = _examples(_page(client, language, ruleset))
    assert examples
    wrong = []
    for example in examples:
        dice, category = _dice(example), example["data-category"] or ""
        assert RULESETS[ruleset].has_category(category), example
        if example.get("data-points") is not None:
            points = int(example["data-points"] or "")
            if score(ruleset, category, dice) != points:
                wrong.append((dice, category, points, score(ruleset, category, dice)))
    assert wrong == []


@pages
def test_every_box_has_a_checked_example(client, language: str, ruleset: str) -> None:
    examples = _examples(_page(client, language, ruleset))
    checked = {e["data-category"] for e in examples if e.get("data-points") is not None}
    assert set(RULESETS[ruleset].category_keys) - checked == set()
