import random

import pytest

from games.rules import Roll, Score, ScriptedDice, apply, new_game
from games.solver import best_action
from games.solver.review import LoggedMove, review


def play(table, seats: int, policy, seed: int) -> list[LoggedMove]:
    """Play a whole game with ``policy`` and log it the way the server does."""
    rng = random.Random(seed)
    state = new_game(table.ruleset.key, seats)
    log = []
    while not state.finished:
        seat = state.current
        action = policy(state)
        after = apply(state, seat, action, rng)
        if isinstance(action, Roll):
            log.append(
                LoggedMove(seat, "roll", tuple(sorted(action.hold or ())), tuple(after.dice))
            )
        else:
            log.append(LoggedMove(seat, "score", category=action.category))
        state = after
    return log


@pytest.mark.parametrize("ruleset", ["yacht", "classic13"])
def test_a_game_of_optimal_moves_costs_nothing(tables, ruleset):
    table = tables[ruleset]
    log = play(table, 2, lambda s: best_action(table, s), seed=7)
    decisions = review(table, 2, log)
    assert decisions, "every turn has at least the decision of where to score"
    assert sum(d.cost for d in decisions) == pytest.approx(0, abs=1e-6)
    assert {d.seat for d in decisions} == {0, 1}


def test_scoring_a_yacht_in_ones_costs_the_difference_the_table_gives(tables):
    table = tables["yacht"]
    log = [
        LoggedMove(0, "roll", (), (6, 6, 6, 6, 6)),
        LoggedMove(0, "score", category="ones"),
    ]
    [decision] = review(table, 1, log)
    assert decision.chosen == ("score", "ones")
    assert decision.best == ("score", "yacht")
    state = apply(new_game("yacht", 1), 0, Roll(), ScriptedDice([6] * 5))
    worth = {
        key: table.expected_final(apply(state, 0, Score(key), ScriptedDice(())).cards[0])
        for key in ("yacht", "ones")
    }
    assert decision.cost == pytest.approx(worth["yacht"] - worth["ones"])
    assert decision.cost > 20


def test_rerolling_five_sixes_is_priced_as_a_hold_decision(tables):
    table = tables["yacht"]
    log = [
        LoggedMove(0, "roll", (), (6, 6, 6, 6, 6)),
        LoggedMove(0, "roll", (), (1, 2, 3, 4, 6)),
        LoggedMove(0, "score", category="choice"),
    ]
    hold, score = review(table, 1, log)
    assert hold.chosen == ("hold", ())
    assert hold.cost > 20
    assert score.chosen == ("score", "choice") and score.round == 1


def test_only_the_judged_seats_are_reviewed(tables):
    table = tables["yacht"]
    log = play(table, 2, lambda s: best_action(table, s), seed=3)
    assert {d.seat for d in review(table, 2, log, judged=[1])} == {1}


def test_a_log_that_contradicts_itself_is_refused(tables):
    table = tables["yacht"]
    log = [
        LoggedMove(0, "roll", (), (6, 6, 6, 6, 6)),
        LoggedMove(0, "roll", (0,), (5, 1, 1, 1, 1)),
    ]
    with pytest.raises(ValueError, match="does not follow"):
        review(table, 1, log)
