"""What a rules page shows, as data shared by every language.

The prose of a page lives in per-language templates (``templates/rules/<lang>/``);
everything a reader could check against the engine (the sections, the example
dice, the boxes they go in, their points, the best possible total) is decided
here once, so the four languages cannot drift apart and no printed score can
disagree with ``games.rules.score``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import combinations_with_replacement

from games.present.labels import category_name
from games.rules import RULESETS, Scorecard, box_value, joker_boxes, score
from games.rules.rulesets import UPPER_KEYS, RuleSet

LANGUAGES = ("en", "es", "it", "ca")

# How each box of each rule set is scored, named so that boxes scored the same
# way in several rule sets share one explanation per language
# (templates/rules/<lang>/boxes/<how>.html).
_HOW: dict[str, dict[str, str]] = {
    "yacht": {
        "full_house": "full_house_sum",
        "four_of_a_kind": "four_of_those",
        "little_straight": "little_exact",
        "big_straight": "big_exact",
    },
    "yacht_sum": {
        "full_house": "full_house_sum",
        "four_of_a_kind": "four_of_all",
        "little_straight": "little_exact",
        "big_straight": "big_exact",
    },
    "yacht_bonus": {
        "full_house": "full_house_or_five",
        "four_of_a_kind": "four_of_all",
        "little_straight": "little_any_four",
        "big_straight": "big_any_five",
    },
    "yatzy": {
        "one_pair": "one_pair",
        "two_pairs": "two_pairs",
        "three_of_a_kind": "three_of_those",
        "four_of_a_kind": "four_of_those",
        "little_straight": "little_exact",
        "big_straight": "big_exact",
        "full_house": "full_house_sum",
    },
    "classic13": {
        "three_of_a_kind": "three_of_all",
        "four_of_a_kind": "four_of_all",
        "full_house": "full_house_fixed",
        "little_straight": "little_any_four",
        "big_straight": "big_any_five",
    },
}
_HOW_EVERYWHERE = {"choice": "choice", "yacht": "yacht"}

# Example rolls for each box: a hit, the edge cases the rule turns on, a miss.
# The points are never written down; the engine computes them.
_UPPER_EXAMPLES = (
    ((1, 1, 4, 5, 6), "ones"),
    ((2, 2, 2, 3, 6), "twos"),
    ((3, 3, 3, 5, 5), "threes"),
    ((4, 4, 4, 4, 4), "fours"),
    ((5, 5, 5, 2, 1), "fives"),
    ((6, 6, 1, 2, 3), "sixes"),
    ((1, 2, 3, 4, 5), "sixes"),
)
_EXAMPLE_DICE: dict[str, tuple[tuple[int, ...], ...]] = {
    "one_pair": ((3, 3, 5, 5, 1), (6, 6, 2, 4, 1), (1, 2, 3, 4, 6)),
    "two_pairs": ((6, 6, 5, 5, 1), (4, 4, 4, 2, 2), (4, 4, 4, 4, 2)),
    "three_of_a_kind": ((4, 4, 4, 2, 6), (4, 4, 4, 4, 1), (2, 2, 5, 5, 6)),
    "four_of_a_kind": ((5, 5, 5, 5, 1), (6, 6, 6, 6, 6), (3, 3, 3, 5, 5)),
    "full_house": ((3, 3, 3, 5, 5), (6, 6, 6, 5, 5), (4, 4, 4, 4, 4), (2, 2, 3, 3, 4)),
    "little_straight": ((5, 3, 1, 4, 2), (1, 2, 3, 4, 6), (2, 3, 4, 5, 6), (1, 2, 3, 5, 6)),
    "big_straight": ((6, 2, 5, 3, 4), (1, 2, 3, 4, 5), (1, 2, 3, 4, 6)),
    "choice": ((1, 3, 4, 6, 6), (3, 3, 3, 5, 5)),
    "yacht": ((4, 4, 4, 4, 4), (1, 1, 1, 1, 1), (4, 4, 4, 4, 2)),
}

# One roll put to every box of the card ("one roll, several choices").
CHOICES_DICE = (3, 3, 3, 5, 5)

# The worked turn, roll by roll: what lay on the table after each roll and the
# dice held for the next one.
STORY_ROLLS = ((2, 6, 3, 6, 5), (6, 6, 6, 1, 4), (6, 6, 6, 4, 4))
STORY_HOLDS = ((6, 6), (6, 6, 6))


@dataclass(frozen=True)
class Example:
    dice: tuple[int, ...]
    category: str
    name: str
    points: int

    @property
    def dice_attr(self) -> str:
        return ",".join(str(d) for d in self.dice)


@dataclass(frozen=True)
class JokerExample(Example):
    """A five-alike scored under the forced joker, with 50 in the Yacht box;
    ``points`` are the box's joker points, ``bonus`` the extra yacht bonus."""

    bonus: int


@dataclass(frozen=True)
class BoxGroup:
    """One heading of "The boxes": the six number boxes together, else one box."""

    id: str
    how: str
    names: tuple[str, ...]
    examples: tuple[Example, ...]
    best: int

    @property
    def name(self) -> str:
        return ", ".join(self.names)


@dataclass(frozen=True)
class TableRow:
    key: str
    name: str
    how: str
    best: int
    face: int | None


def _example(ruleset: str, dice: tuple[int, ...], key: str) -> Example:
    return Example(dice, key, category_name(ruleset, key), score(ruleset, key, dice))


def box_how(ruleset: str, key: str) -> str:
    """Which explanation (templates/rules/<lang>/boxes/<how>.html) a box of a rule set has."""
    if key in UPPER_KEYS:
        return "upper"
    return _HOW[ruleset].get(key) or _HOW_EVERYWHERE[key]


def box_groups(ruleset: str) -> list[BoxGroup]:
    rs = RULESETS[ruleset]
    upper = BoxGroup(
        id="box-upper",
        how="upper",
        names=tuple(category_name(ruleset, k) for k in UPPER_KEYS),
        examples=tuple(_example(ruleset, dice, key) for dice, key in _UPPER_EXAMPLES),
        best=best_box(ruleset, "sixes"),
    )
    lower = [
        BoxGroup(
            id=f"box-{key}",
            how=box_how(ruleset, key),
            names=(category_name(ruleset, key),),
            examples=tuple(_example(ruleset, dice, key) for dice in _EXAMPLE_DICE[key]),
            best=best_box(ruleset, key),
        )
        for key in rs.category_keys
        if key not in UPPER_KEYS
    ]
    return [upper, *lower]


# Five 4s under the joker: the boxes already filled besides Yacht, and the box
# the roll goes in. Each language's _joker.html tells these cases in order.
JOKER_DICE = (4, 4, 4, 4, 4)
_JOKER_CASES: tuple[tuple[tuple[str, ...], str], ...] = (
    ((), "fours"),
    (("fours",), "big_straight"),
    (("fours",), "full_house"),
    (("fours",), "choice"),
    (
        (
            "fours",
            "three_of_a_kind",
            "four_of_a_kind",
            "full_house",
            "little_straight",
            "big_straight",
            "choice",
        ),
        "ones",
    ),
)


def joker_examples(ruleset: str) -> list[JokerExample]:
    rs = RULESETS[ruleset]
    if not rs.forced_joker:
        return []
    examples = []
    for filled, key in _JOKER_CASES:
        card = Scorecard({"yacht": 50, **dict.fromkeys(filled, 0)})
        allowed = joker_boxes(rs, card, JOKER_DICE) or ()
        # A case the joker would forbid would teach a wrong rule.
        assert key in allowed, (filled, key, allowed)
        points, bonus = box_value(rs, card, key, JOKER_DICE)
        examples.append(JokerExample(JOKER_DICE, key, category_name(ruleset, key), points, bonus))
    return examples


_ALL_ROLLS = tuple(combinations_with_replacement(range(1, 7), 5))


@cache
def best_box(ruleset: str, key: str) -> int:
    return max(score(ruleset, key, dice) for dice in _ALL_ROLLS)


def best_total(rs: RuleSet) -> int:
    """The highest total a card can reach.

    Every box's best can be reached together, and the number boxes' best (105)
    always earns the upper bonus. Where further yachts earn an extra bonus, the
    forced joker lets a five-alike take every other box's best too, so all
    boxes but the Yacht box itself can each bring one.
    """
    boxes = sum(best_box(rs.key, key) for key in rs.category_keys)
    extra = rs.extra_yacht_bonus * (len(rs.categories) - 1)
    return boxes + rs.upper_bonus + extra


def table_rows(ruleset: str) -> list[TableRow]:
    return [
        TableRow(
            key,
            category_name(ruleset, key),
            box_how(ruleset, key),
            best_box(ruleset, key),
            RULESETS[ruleset].category(key).upper_face,
        )
        for key in RULESETS[ruleset].category_keys
    ]


def sections(rs: RuleSet) -> list[str]:
    """The section ids of a rule set's page, in order, in every language."""
    rules = ["bonus"] if rs.upper_bonus else ["no-bonus"]
    if rs.extra_yacht_bonus:
        rules.append("extra-yacht")
    if rs.forced_joker:
        rules.append("joker")
    return [
        "players",
        "turn",
        "boxes",
        "choices",
        *rules,
        "zero",
        "story",
        "end",
        "table",
        "strategy",
        "faq",
        "history",
    ]


def page_context(ruleset: str, language: str) -> dict[str, object]:
    rs = RULESETS[ruleset]
    final = STORY_ROLLS[-1]
    return {
        "lang_dir": f"rules/{language}",
        "sections": sections(rs),
        "box_groups": box_groups(ruleset),
        "choices": [_example(ruleset, CHOICES_DICE, key) for key in rs.category_keys],
        "choices_dice": CHOICES_DICE,
        "story": {
            "rolls": STORY_ROLLS,
            "holds": STORY_HOLDS,
            "full_house": _example(ruleset, final, "full_house"),
            "sixes": _example(ruleset, final, "sixes"),
            "choice": _example(ruleset, final, "choice"),
        },
        "joker": joker_examples(ruleset),
        "extra_yacht_bonus": rs.extra_yacht_bonus,
        "yacht_name": category_name(ruleset, "yacht"),
        "choice_name": category_name(ruleset, "choice"),
        "table_rows": table_rows(ruleset),
        "best_total": best_total(rs),
        "box_count": len(rs.categories),
        "extra_yacht_count": len(rs.categories) - 1,
    }
