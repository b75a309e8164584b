"""The rule sets of the rulebook, as data.

A rule set is its ordered categories (each with its scoring function) plus a
few switches: an upper-section bonus, an extra bonus for further five-alikes,
and the forced joker. The engine reads these switches and never asks which
rule set it is playing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import scoring as s

UPPER_KEYS = ("ones", "twos", "threes", "fours", "fives", "sixes")


@dataclass(frozen=True)
class Category:
    key: str
    scorer: s.Scorer
    upper_face: int | None = None
    # Under the forced joker a five-alike earns these fixed points here
    # (Classic 13's full house and straights); None means the box's own score.
    joker_points: int | None = None

    @property
    def is_upper(self) -> bool:
        return self.upper_face is not None


@dataclass(frozen=True)
class RuleSet:
    key: str
    categories: tuple[Category, ...]
    upper_bonus_threshold: int | None = None
    upper_bonus: int = 0
    extra_yacht_bonus: int = 0
    forced_joker: bool = False
    upper_keys: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_key", {c.key: c for c in self.categories})
        # Kept, not worked out again: a card's totals read them every time.
        object.__setattr__(self, "upper_keys", tuple(c.key for c in self.categories if c.is_upper))

    @property
    def category_keys(self) -> tuple[str, ...]:
        return tuple(c.key for c in self.categories)

    def category(self, key: str) -> Category:
        try:
            found: Category = self._by_key[key]  # type: ignore[attr-defined]
            return found
        except KeyError:
            raise ValueError(f"rule set {self.key!r} has no category {key!r}") from None

    def has_category(self, key: str) -> bool:
        return key in self._by_key  # type: ignore[attr-defined]


def _uppers() -> tuple[Category, ...]:
    return tuple(
        Category(key, s.upper(face), upper_face=face) for face, key in enumerate(UPPER_KEYS, 1)
    )


YACHT = RuleSet(
    key="yacht",
    categories=(
        *_uppers(),
        Category("full_house", s.full_house_sum),
        Category("four_of_a_kind", s.kind_of_those(4)),
        Category("little_straight", s.exact_run(s.LITTLE_STRAIGHT, 30)),
        Category("big_straight", s.exact_run(s.BIG_STRAIGHT, 30)),
        Category("choice", s.choice),
        Category("yacht", s.yacht),
    ),
)

YACHT_SUM = RuleSet(
    key="yacht_sum",
    categories=(
        *_uppers(),
        Category("full_house", s.full_house_sum),
        Category("four_of_a_kind", s.kind_of_all(4)),
        Category("little_straight", s.exact_run(s.LITTLE_STRAIGHT, 30)),
        Category("big_straight", s.exact_run(s.BIG_STRAIGHT, 30)),
        Category("choice", s.choice),
        Category("yacht", s.yacht),
    ),
)

YACHT_BONUS = RuleSet(
    key="yacht_bonus",
    categories=(
        *_uppers(),
        Category("full_house", s.full_house_or_yacht_sum),
        Category("four_of_a_kind", s.kind_of_all(4)),
        Category("little_straight", s.any_four_run(15)),
        Category("big_straight", s.any_five_run(30)),
        Category("choice", s.choice),
        Category("yacht", s.yacht),
    ),
    upper_bonus_threshold=63,
    upper_bonus=35,
)

YATZY = RuleSet(
    key="yatzy",
    categories=(
        *_uppers(),
        Category("one_pair", s.one_pair),
        Category("two_pairs", s.two_pairs),
        Category("three_of_a_kind", s.kind_of_those(3)),
        Category("four_of_a_kind", s.kind_of_those(4)),
        Category("little_straight", s.exact_run(s.LITTLE_STRAIGHT, 15)),
        Category("big_straight", s.exact_run(s.BIG_STRAIGHT, 20)),
        Category("full_house", s.full_house_sum),
        Category("choice", s.choice),
        Category("yacht", s.yacht),
    ),
    upper_bonus_threshold=63,
    upper_bonus=50,
)

CLASSIC13 = RuleSet(
    key="classic13",
    categories=(
        *_uppers(),
        Category("three_of_a_kind", s.kind_of_all(3)),
        Category("four_of_a_kind", s.kind_of_all(4)),
        Category("full_house", s.full_house_fixed(25), joker_points=25),
        Category("little_straight", s.any_four_run(30), joker_points=30),
        Category("big_straight", s.any_five_run(40), joker_points=40),
        Category("yacht", s.yacht),
        Category("choice", s.choice),
    ),
    upper_bonus_threshold=63,
    upper_bonus=35,
    extra_yacht_bonus=100,
    forced_joker=True,
)

RULESETS: dict[str, RuleSet] = {
    rs.key: rs for rs in (YACHT, YACHT_SUM, YACHT_BONUS, YATZY, CLASSIC13)
}
DEFAULT_RULESET = YACHT.key


def get_ruleset(key: str) -> RuleSet:
    try:
        return RULESETS[key]
    except (KeyError, TypeError):
        raise ValueError(f"unknown rule set {key!r}") from None
