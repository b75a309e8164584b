"""A guest's record (``games.store.records``) as My games and My stats show
it: each rule set by the name people read, and the scores over time as a
chart. The store reads the figures; the words and the drawing are made here."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.utils.functional import Promise

from games.present.charts import score_chart
from games.present.labels import RULESET_NAMES
from games.store.records import MyGame, RulesetStats


class ListedGame(MyGame):
    """One of a guest's games, as a line of their list."""

    @property
    def ruleset_name(self) -> Promise:
        return RULESET_NAMES[self.ruleset]


@dataclass
class StatsShown(RulesetStats):
    """One rule set's figures, under its name, with the chart of its scores."""

    chart: dict[str, Any] = field(default_factory=dict)

    @property
    def ruleset_name(self) -> Promise:
        return RULESET_NAMES[self.ruleset]


def games_listed(games: list[MyGame]) -> list[ListedGame]:
    return [ListedGame(**vars(game)) for game in games]


def stats_shown(stats: list[RulesetStats]) -> list[StatsShown]:
    return [StatsShown(**vars(s), chart=score_chart(s.scores)) for s in stats]
