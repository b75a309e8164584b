"""Display names of rule sets and boxes. Keys stay stable everywhere else;
people read these, translated."""

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

RULESET_NAMES: dict[str, Promise] = {
    "yacht": _("Yacht"),
    "yacht_sum": _("Yacht, totals variant"),
    "yacht_bonus": _("Yacht with upper bonus"),
    "yatzy": _("Yatzy"),
    "classic13": _("Classic 13"),
}

RULESET_BLURBS: dict[str, Promise] = {
    "yacht": _("The traditional game: 12 boxes, no bonuses."),
    "yacht_sum": _("Like Yacht, but four of a kind counts all five dice."),
    "yacht_bonus": _("A modern 12-box game with a 35-point upper bonus."),
    "yatzy": _("The Scandinavian game: 15 boxes, pairs, and a 50-point bonus."),
    "classic13": _("13 boxes, the upper bonus, yacht bonuses and the joker."),
}

# What playing each bot is like, beside its level on the home page.
BOT_LEVEL_NOTES: dict[str, Promise] = {
    "beginner": _("Plays for the moment"),
    "solid": _("Plays each turn well"),
    "perfect": _("The best possible play"),
}

CATEGORY_NAMES: dict[str, Promise] = {
    "ones": _("Ones"),
    "twos": _("Twos"),
    "threes": _("Threes"),
    "fours": _("Fours"),
    "fives": _("Fives"),
    "sixes": _("Sixes"),
    "one_pair": _("One Pair"),
    "two_pairs": _("Two Pairs"),
    "three_of_a_kind": _("Three of a Kind"),
    "four_of_a_kind": _("Four of a Kind"),
    "full_house": _("Full House"),
    "little_straight": _("Little Straight"),
    "big_straight": _("Big Straight"),
    "choice": _("Choice"),
    "yacht": _("Yacht"),
}

# Where players of a rule set know a box by another name.
CATEGORY_NAMES_BY_RULESET: dict[str, dict[str, Promise]] = {
    "yatzy": {
        "choice": pgettext_lazy("yatzy box", "Chance"),
        "yacht": pgettext_lazy("yatzy box", "Yatzy"),
        "little_straight": pgettext_lazy("yatzy box", "Small Straight"),
        "big_straight": pgettext_lazy("yatzy box", "Large Straight"),
    },
    "classic13": {
        "choice": pgettext_lazy("classic13 box", "Chance"),
        "little_straight": pgettext_lazy("classic13 box", "Small Straight"),
        "big_straight": pgettext_lazy("classic13 box", "Large Straight"),
    },
}


def category_name(ruleset: str, key: str) -> str:
    name = CATEGORY_NAMES_BY_RULESET.get(ruleset, {}).get(key) or CATEGORY_NAMES.get(key)
    return str(name) if name is not None else key


def ruleset_name(key: str) -> str:
    name = RULESET_NAMES.get(key)
    return str(name) if name is not None else key
