"""Every language's rules page of a rule set has the same sections, headings
and examples as the English one, and the facts the rulebook fixes (best
totals, the joker's points) are the rulebook's."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from games.rules import RULESETS

LANGUAGES = ["en", "es", "it", "ca"]
RULESET_KEYS = list(RULESETS)

# RULES.md, added up by hand: every box at its best, plus the upper bonus
# (105 in the number boxes always earns it), plus for Classic 13 twelve
# further yachts at 100 each, which the joker lets fill every other box.
BEST_TOTALS = {
    "yacht": 5 + 10 + 15 + 20 + 25 + 30 + 28 + 24 + 30 + 30 + 30 + 50,
    "yacht_sum": 105 + 28 + 30 + 30 + 30 + 30 + 50,
    "yacht_bonus": 105 + 35 + 30 + 30 + 15 + 30 + 30 + 50,
    "yatzy": 105 + 50 + 12 + 22 + 18 + 24 + 15 + 20 + 28 + 30 + 50,
    "classic13": 105 + 35 + 30 + 30 + 25 + 30 + 40 + 50 + 30 + 12 * 100,
}

# RULES.md, Classic 13: five 4s with 50 in the Yacht box, box by box.
JOKER = [
    ("fours", 20, 100),
    ("big_straight", 40, 100),
    ("full_house", 25, 100),
    ("choice", 20, 100),
    ("ones", 0, 100),
]

# What players asked for on every page, in every language.
EVERY_PAGE_HAS = {"players", "turn", "boxes", "choices", "zero", "story", "end", "table",
                  "strategy", "faq", "history"}  # fmt: skip


_EXAMPLE_ATTRIBUTES = (
    "data-dice",
    "data-category",
    "data-points",
    "data-joker-points",
    "data-bonus",
)


class _Outline(HTMLParser):
    """The parts of a rules page that must match across languages."""

    def __init__(self) -> None:
        super().__init__()
        self.sections: list[str] = []
        self.headings: list[tuple[str, str, str]] = []  # (section, tag, id)
        self.examples: list[tuple[str, ...]] = []
        self.dice_drawings = 0
        self.lead = 0
        self.tables = 0
        self._in_article = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {name: value or "" for name, value in attrs}
        classes = found.get("class", "").split()
        if tag == "article":
            self._in_article = True
        if not self._in_article:
            return
        if tag == "section":
            self.sections.append(found.get("id", ""))
        elif tag in {"h1", "h2", "h3"}:
            section = self.sections[-1] if self.sections else ""
            self.headings.append((section, tag, found.get("id", "")))
        elif tag == "span" and "example" in classes:
            self.examples.append(tuple(found.get(name, "") for name in _EXAMPLE_ATTRIBUTES))
        elif tag == "span" and "example-dice" in classes:
            self.dice_drawings += 1
        elif tag == "p" and "rules-lead" in classes:
            self.lead += 1
        elif tag == "table" and "score-table" in classes:
            self.tables += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "article":
            self._in_article = False


def outline(client, language: str, ruleset: str) -> _Outline:
    response = client.get(f"/{language}/rules/{ruleset}/")
    assert response.status_code == 200
    parser = _Outline()
    parser.feed(response.content.decode())
    return parser


@pytest.mark.parametrize("ruleset", RULESET_KEYS)
@pytest.mark.parametrize("language", ["es", "it", "ca"])
def test_a_translated_rules_page_has_the_sections_headings_and_examples_of_the_english_one(
    client, language: str, ruleset: str
) -> None:
    english, translated = outline(client, "en", ruleset), outline(client, language, ruleset)
    assert translated.sections == english.sections
    assert translated.headings == english.headings
    assert translated.examples == english.examples
    assert translated.dice_drawings == english.dice_drawings


@pytest.mark.parametrize("ruleset", RULESET_KEYS)
@pytest.mark.parametrize("language", LANGUAGES)
def test_every_rules_page_has_a_lead_a_styled_table_and_a_heading_per_section(
    client, language: str, ruleset: str
) -> None:
    page = outline(client, language, ruleset)
    assert set(page.sections) >= EVERY_PAGE_HAS
    assert [h for h in page.headings if h[1] == "h1"] != []
    headed = {section for section, tag, _id in page.headings if tag == "h2"}
    assert headed == set(page.sections)
    assert page.lead == 1
    assert page.tables == 1


@pytest.mark.parametrize("ruleset", RULESET_KEYS)
@pytest.mark.parametrize("language", LANGUAGES)
def test_every_example_with_dice_in_a_box_section_is_drawn_as_dice(
    client, language: str, ruleset: str
) -> None:
    page = outline(client, language, ruleset)
    # The box sections and the worked turn draw their dice; "one roll, several
    # choices" names one roll drawn once above its list.
    assert page.dice_drawings >= len(page.examples) - len(RULESETS[ruleset].categories)


@pytest.mark.parametrize("ruleset", RULESET_KEYS)
@pytest.mark.parametrize("language", LANGUAGES)
def test_the_page_gives_the_best_possible_total_of_the_rulebook(
    client, language: str, ruleset: str
) -> None:
    html = client.get(f"/{language}/rules/{ruleset}/").content.decode()
    assert f"<td>{BEST_TOTALS[ruleset]}</td>" in html
    assert f" {BEST_TOTALS[ruleset]}:" in html


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_joker_examples_score_what_the_rulebook_says(client, language: str) -> None:
    page = outline(client, language, "classic13")
    joker = [(e[1], int(e[3]), int(e[4])) for e in page.examples if e[3]]
    assert joker == JOKER


# How each language says plainly that a rule set has no joker rule.
NO_JOKER = {
    "en": "no joker rule",
    "es": "ni regla del comodín",
    "it": "non esiste la regola del jolly",
    "ca": "ni regla del comodí",
}


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("ruleset", ["yacht", "yacht_sum"])
def test_the_pages_of_the_traditional_game_say_plainly_there_is_no_joker_rule(
    client, language: str, ruleset: str
) -> None:
    page = outline(client, language, ruleset)
    assert "no-bonus" in page.sections
    assert "joker" not in page.sections
    html = client.get(f"/{language}/rules/{ruleset}/").content.decode()
    assert NO_JOKER[language] in html
