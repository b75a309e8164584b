"""The points of one box, rule set by rule set, worked out by hand from RULES.md."""

from __future__ import annotations

import pytest

from games.rules import RULESETS, get_ruleset, score

ALL = tuple(RULESETS)
UPPER = ("ones", "twos", "threes", "fours", "fives", "sixes")


def dice(text: str) -> tuple[int, ...]:
    return tuple(int(face) for face in text.split("-"))


# (dice, points) worked by hand; the same in every rule set.
UPPER_EXAMPLES = {
    "ones": [("1-1-2-3-1", 3), ("2-3-4-5-6", 0), ("1-1-1-1-1", 5)],
    "twos": [("2-2-2-2-2", 10), ("1-3-4-5-6", 0), ("2-6-2-6-6", 4)],
    "threes": [("3-3-3-5-5", 9), ("1-2-4-5-6", 0)],
    "fours": [("4-1-4-2-4", 12), ("4-4-4-4-4", 20), ("1-2-3-5-6", 0)],
    "fives": [("5-5-5-2-1", 15), ("1-2-3-4-6", 0)],
    "sixes": [("6-6-1-1-1", 12), ("6-6-6-6-6", 30), ("1-2-3-4-5", 0)],
}
CHOICE_EXAMPLES = [("1-1-1-1-1", 5), ("6-6-6-6-6", 30), ("3-3-3-5-5", 19), ("1-2-3-4-6", 16)]
YACHT_EXAMPLES = [("4-4-4-4-4", 50), ("1-1-1-1-1", 50), ("4-4-4-4-3", 0), ("1-2-3-4-5", 0)]

EXACT_STRAIGHTS_30 = {
    "little_straight": [
        ("1-2-3-4-5", 30),
        ("5-4-3-2-1", 30),
        ("3-1-5-2-4", 30),
        ("1-2-3-4-6", 0),
        ("1-2-3-4-4", 0),
        ("2-3-4-5-6", 0),
    ],
    "big_straight": [
        ("2-3-4-5-6", 30),
        ("6-2-5-3-4", 30),
        ("1-2-3-4-5", 0),
        ("2-3-4-5-5", 0),
        ("1-2-3-4-6", 0),
        ("2-2-3-4-5", 0),
    ],
}

EXAMPLES: dict[str, dict[str, list[tuple[str, int]]]] = {
    "yacht": {
        "full_house": [
            ("3-3-3-5-5", 19),
            ("5-3-5-3-3", 19),
            ("6-6-1-1-1", 15),
            ("4-4-4-4-4", 0),
            ("4-4-4-4-1", 0),
            ("2-2-3-3-4", 0),
            ("1-2-3-4-5", 0),
        ],
        "four_of_a_kind": [
            ("4-4-4-4-4", 16),
            ("6-6-6-6-6", 24),
            ("4-4-4-4-1", 16),
            ("2-5-5-5-5", 20),
            ("3-3-3-5-5", 0),
            ("1-2-3-4-5", 0),
        ],
        **EXACT_STRAIGHTS_30,
    },
    "yacht_sum": {
        "full_house": [
            ("3-3-3-6-6", 21),
            ("6-3-6-3-3", 21),
            ("4-4-4-4-4", 0),
            ("4-4-4-4-1", 0),
            ("2-2-3-3-4", 0),
        ],
        "four_of_a_kind": [
            ("4-4-4-4-1", 17),
            ("6-6-6-6-6", 30),
            ("1-6-6-6-6", 25),
            ("3-3-3-5-5", 0),
            ("1-2-3-4-5", 0),
        ],
        **EXACT_STRAIGHTS_30,
    },
    "yacht_bonus": {
        "full_house": [
            ("3-3-3-5-5", 19),
            ("4-4-4-4-4", 20),
            ("1-1-1-1-1", 5),
            ("4-4-4-4-1", 0),
            ("2-2-3-3-4", 0),
        ],
        "four_of_a_kind": [
            ("4-4-4-4-1", 17),
            ("6-6-6-6-6", 30),
            ("3-3-3-5-5", 0),
        ],
        "little_straight": [
            ("1-2-3-4-6", 15),
            ("2-3-4-5-5", 15),
            ("6-5-4-3-3", 15),
            ("6-5-4-3-1", 15),
            ("1-2-3-4-5", 15),
            ("2-3-4-5-6", 15),
            ("1-2-3-5-6", 0),
            ("1-2-4-5-6", 0),
            ("1-1-2-2-3", 0),
        ],
        "big_straight": [
            ("1-2-3-4-5", 30),
            ("2-3-4-5-6", 30),
            ("4-6-2-5-3", 30),
            ("1-2-3-4-6", 0),
            ("2-3-4-5-5", 0),
        ],
    },
    "yatzy": {
        "one_pair": [
            ("3-3-4-5-6", 6),
            ("3-3-5-5-1", 10),
            ("6-6-6-6-6", 12),
            ("4-4-4-1-2", 8),
            ("2-2-2-5-5", 10),
            ("1-2-3-4-5", 0),
        ],
        "two_pairs": [
            ("4-4-4-2-2", 12),
            ("4-4-4-4-2", 0),
            ("3-3-5-5-1", 16),
            ("2-2-3-3-3", 10),
            ("1-1-2-3-4", 0),
            ("6-6-6-6-6", 0),
        ],
        "three_of_a_kind": [
            ("3-3-3-5-5", 9),
            ("4-4-4-4-1", 12),
            ("6-6-6-6-6", 18),
            ("2-2-5-5-1", 0),
        ],
        "four_of_a_kind": [
            ("4-4-4-4-1", 16),
            ("6-6-6-6-6", 24),
            ("3-3-3-5-5", 0),
        ],
        "little_straight": [
            ("1-2-3-4-5", 15),
            ("5-3-1-4-2", 15),
            ("1-2-3-4-6", 0),
            ("2-3-4-5-6", 0),
            ("1-2-3-4-4", 0),
        ],
        "big_straight": [
            ("2-3-4-5-6", 20),
            ("6-5-4-3-2", 20),
            ("1-2-3-4-5", 0),
            ("2-3-4-5-5", 0),
        ],
        "full_house": [
            ("3-3-3-5-5", 19),
            ("1-1-6-6-6", 20),
            ("4-4-4-4-4", 0),
            ("4-4-4-4-1", 0),
        ],
    },
    "classic13": {
        "three_of_a_kind": [
            ("3-3-3-5-5", 19),
            ("4-4-4-4-1", 17),
            ("6-6-6-6-6", 30),
            ("1-2-2-2-6", 13),
            ("2-2-5-5-1", 0),
        ],
        "four_of_a_kind": [
            ("4-4-4-4-1", 17),
            ("6-6-6-6-6", 30),
            ("3-3-3-5-5", 0),
        ],
        "full_house": [
            ("3-3-3-5-5", 25),
            ("6-6-1-1-1", 25),
            ("4-4-4-4-4", 0),
            ("4-4-4-4-1", 0),
            ("1-2-3-4-5", 0),
        ],
        "little_straight": [
            ("2-3-4-5-5", 30),
            ("1-2-3-4-6", 30),
            ("1-2-3-4-5", 30),
            ("3-4-5-6-6", 30),
            ("1-2-3-5-6", 0),
            ("1-1-2-2-3", 0),
        ],
        "big_straight": [
            ("1-2-3-4-5", 40),
            ("2-3-4-5-6", 40),
            ("2-3-4-5-5", 0),
            ("1-2-3-4-6", 0),
        ],
    },
}
for _rs in ALL:
    EXAMPLES[_rs].update(UPPER_EXAMPLES)
    EXAMPLES[_rs]["choice"] = CHOICE_EXAMPLES
    EXAMPLES[_rs]["yacht"] = YACHT_EXAMPLES

CASES = [
    pytest.param(rs, cat, dice(d), points, id=f"{rs}-{cat}-{d}")
    for rs, categories in EXAMPLES.items()
    for cat, examples in categories.items()
    for d, points in examples
]


@pytest.mark.parametrize(("ruleset", "category", "roll", "points"), CASES)
def test_a_box_scores_the_points_worked_out_by_hand(ruleset, category, roll, points):
    assert score(ruleset, category, roll) == points


@pytest.mark.parametrize("ruleset", ALL)
def test_every_category_of_every_rule_set_has_hand_worked_examples(ruleset):
    assert set(EXAMPLES[ruleset]) == set(get_ruleset(ruleset).category_keys)


@pytest.mark.parametrize("ruleset", ALL)
def test_every_category_has_both_a_scoring_and_a_zero_example_where_zero_is_possible(ruleset):
    for category, examples in EXAMPLES[ruleset].items():
        points = {p for _, p in examples}
        assert any(p > 0 for p in points), category
        if category != "choice":
            assert 0 in points, category


TWELVE = {*UPPER, "full_house", "four_of_a_kind", "little_straight", "big_straight"}
TWELVE |= {"choice", "yacht"}
RULEBOOK_CATEGORIES = {
    "yacht": TWELVE,
    "yacht_sum": TWELVE,
    "yacht_bonus": TWELVE,
    "yatzy": TWELVE | {"one_pair", "two_pairs", "three_of_a_kind"},
    "classic13": TWELVE | {"three_of_a_kind"},
}


@pytest.mark.parametrize("ruleset", ALL)
def test_each_rule_set_has_exactly_the_categories_of_the_rulebook_uppers_first(ruleset):
    keys = get_ruleset(ruleset).category_keys
    assert set(keys) == RULEBOOK_CATEGORIES[ruleset]
    assert keys[:6] == UPPER


@pytest.mark.parametrize(
    ("ruleset", "count"),
    [("yacht", 12), ("yacht_sum", 12), ("yacht_bonus", 12), ("yatzy", 15), ("classic13", 13)],
)
def test_each_rule_set_has_the_number_of_categories_the_rulebook_gives(ruleset, count):
    keys = get_ruleset(ruleset).category_keys
    assert len(keys) == len(set(keys)) == count


def test_the_five_rule_sets_of_the_rulebook_are_the_ones_offered():
    assert set(RULESETS) == {"yacht", "yacht_sum", "yacht_bonus", "yatzy", "classic13"}


# The "Checks anyone can do by hand" list of RULES.md, verbatim.
@pytest.mark.parametrize(
    ("ruleset", "roll", "category", "points"),
    [
        ("yacht", "3-3-3-5-5", "full_house", 19),
        ("yacht", "3-3-3-5-5", "four_of_a_kind", 0),
        ("yacht", "3-3-3-5-5", "choice", 19),
        ("yacht", "3-3-3-5-5", "threes", 9),
        ("yacht", "4-4-4-4-4", "yacht", 50),
        ("yacht", "4-4-4-4-4", "four_of_a_kind", 16),
        ("yacht", "4-4-4-4-4", "full_house", 0),
        ("yacht", "4-4-4-4-4", "fours", 20),
        ("yacht", "1-2-3-4-6", "little_straight", 0),
        ("yacht", "1-2-3-4-6", "big_straight", 0),
        ("yacht_bonus", "1-2-3-4-6", "little_straight", 15),
        ("yacht_bonus", "1-2-3-4-6", "big_straight", 0),
        ("classic13", "2-3-4-5-5", "little_straight", 30),
        ("classic13", "2-3-4-5-5", "big_straight", 0),
    ],
)
def test_the_rulebooks_checks_by_hand_hold(ruleset, roll, category, points):
    assert score(ruleset, category, dice(roll)) == points


@pytest.mark.parametrize("ruleset", ["yacht", "yacht_sum", "yatzy", "classic13"])
@pytest.mark.parametrize("face", range(1, 7))
def test_five_alike_is_not_a_full_house_outside_yacht_bonus(ruleset, face):
    assert score(ruleset, "full_house", [face] * 5) == 0


@pytest.mark.parametrize("face", range(1, 7))
def test_five_alike_is_a_full_house_worth_its_sum_in_yacht_bonus(face):
    assert score("yacht_bonus", "full_house", [face] * 5) == 5 * face


@pytest.mark.parametrize("face", range(1, 7))
@pytest.mark.parametrize("other", range(1, 7))
def test_four_of_a_kind_in_yacht_never_adds_the_fifth_die(face, other):
    assert score("yacht", "four_of_a_kind", [face, face, other, face, face]) == 4 * face


@pytest.mark.parametrize("ruleset", ["yacht_sum", "yacht_bonus", "classic13"])
@pytest.mark.parametrize("face", range(1, 7))
@pytest.mark.parametrize("other", range(1, 7))
def test_four_of_a_kind_adds_all_five_dice_where_the_rule_set_says_so(ruleset, face, other):
    assert score(ruleset, "four_of_a_kind", [face, other, face, face, face]) == 4 * face + other


@pytest.mark.parametrize(
    "roll", ["1-1-2-3-4", "1-2-2-3-4", "2-3-4-5-5", "2-3-3-4-5", "3-4-5-6-6", "1-2-3-4-4"]
)
@pytest.mark.parametrize("ruleset", ["yacht", "yacht_sum", "yatzy"])
def test_a_straight_with_a_duplicate_is_no_straight_where_straights_are_exact(ruleset, roll):
    assert score(ruleset, "little_straight", dice(roll)) == 0
    assert score(ruleset, "big_straight", dice(roll)) == 0


@pytest.mark.parametrize(("ruleset", "points"), [("yacht_bonus", 15), ("classic13", 30)])
@pytest.mark.parametrize("roll", ["1-1-2-3-4", "1-2-2-3-4", "2-3-4-5-5", "3-4-5-6-6", "3-4-4-5-6"])
def test_a_four_run_with_a_duplicate_is_a_little_straight_but_no_big_one(ruleset, points, roll):
    assert score(ruleset, "little_straight", dice(roll)) == points
    assert score(ruleset, "big_straight", dice(roll)) == 0


@pytest.mark.parametrize("face", range(1, 7))
@pytest.mark.parametrize("other", range(1, 7))
def test_two_pairs_are_never_made_from_four_alike(face, other):
    assert score("yatzy", "two_pairs", [face, face, face, face, other]) == 0


def test_a_yatzy_full_house_counts_as_two_pairs_of_the_pair_and_the_triple():
    assert score("yatzy", "two_pairs", dice("4-4-4-2-2")) == 12


@pytest.mark.parametrize("ruleset", ALL)
def test_score_accepts_the_dice_in_any_iterable(ruleset):
    assert score(ruleset, "choice", iter([1, 2, 3, 4, 6])) == 16
    assert score(ruleset, "full_house", (3, 3, 3, 5, 5)) == score(
        ruleset, "full_house", [5, 3, 5, 3, 3]
    )


@pytest.mark.parametrize("ruleset", ["poker", "", "Yacht", None, 1])
def test_score_rejects_an_unknown_rule_set_with_value_error(ruleset):
    with pytest.raises(ValueError):
        score(ruleset, "choice", [1, 2, 3, 4, 5])


@pytest.mark.parametrize(
    ("ruleset", "category"),
    [
        ("yacht", "one_pair"),
        ("yacht", "two_pairs"),
        ("yacht", "three_of_a_kind"),
        ("yacht_sum", "three_of_a_kind"),
        ("yacht_bonus", "one_pair"),
        ("classic13", "two_pairs"),
        ("yatzy", "small_straight"),
        ("yatzy", "chance"),
        ("classic13", "Ones"),
        ("yacht", ""),
    ],
)
def test_score_rejects_a_category_the_rule_set_does_not_have_with_value_error(ruleset, category):
    with pytest.raises(ValueError):
        score(ruleset, category, [1, 2, 3, 4, 5])


@pytest.mark.parametrize(
    "roll",
    [
        [],
        [1, 2, 3, 4],
        [1, 2, 3, 4, 5, 6],
        [0, 1, 2, 3, 4],
        [1, 2, 3, 4, 7],
        [-1, 2, 3, 4, 5],
        [1.0, 2, 3, 4, 5],
        [2.5, 2, 3, 4, 5],
        ["3", 3, 3, 3, 3],
        [True, 1, 1, 1, 1],
        [None, 1, 1, 1, 1],
    ],
    ids=repr,
)
@pytest.mark.parametrize("ruleset", ALL)
def test_score_rejects_anything_but_five_whole_numbers_from_1_to_6_with_value_error(ruleset, roll):
    with pytest.raises(ValueError):
        score(ruleset, "choice", roll)
