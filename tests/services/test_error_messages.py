import ast
from dataclasses import replace
from itertools import product
from pathlib import Path

from games import rules
from games.present.messages import MESSAGES

ROOT = Path(__file__).resolve().parents[2]


def codes_raised_in(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    codes = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(
            node.func, "id", getattr(node.func, "attr", "")
        ) in ("GameError", "BadMessage"):
            for arg in node.args:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    codes.add(arg.value)
                elif isinstance(arg, ast.IfExp):
                    codes |= {
                        branch.value
                        for branch in (arg.body, arg.orelse)
                        if isinstance(branch, ast.Constant) and isinstance(branch.value, str)
                    }
    return codes


def test_every_error_code_the_server_raises_has_a_message_people_can_read():
    raised = set()
    for path in [*(ROOT / "games").rglob("*.py"), *(ROOT / "games" / "rules").glob("*.py")]:
        raised |= codes_raised_in(path)
    assert "not_your_turn" in raised and "stale_version" in raised
    assert raised - MESSAGES.keys() == set()


def test_every_refusal_of_the_rules_checks_has_a_message_people_can_read():
    # Every check, over tables of every status, seating, roll count and
    # setting, from every kind of asker: the codes they answer with.
    state = rules.new_game("yacht", 2)
    rolled = rules.apply(state, 0, rules.Roll(), rules.ScriptedDice([1, 2, 3, 4, 5]))
    done = replace(rolled, rolls=rules.MAX_ROLLS)
    seatings = [
        (rules.Seat(person=True), rules.Seat(person=True)),
        (rules.Seat(person=True), rules.Seat(person=False, bot="solid")),
        (rules.Seat(person=True, bot="solid"), rules.Seat(person=True)),
        (rules.Seat(person=False, bot="solid"), rules.Seat(person=False, bot="solid")),
    ]
    stages: list[tuple[rules.Status, rules.GameState | None]] = [
        ("lobby", None),
        ("playing", state),
        ("playing", rolled),
        ("playing", done),
        ("finished", done),
    ]
    answered = set()
    for status, game in stages:
        for seats, seat_count, hints, absent in product(seatings, (2, 3), (0, 1), (0, 1)):
            table = rules.Table(
                status, 5, seat_count, seats, game, hints=bool(hints), absent=bool(absent)
            )
            for seat, action, version in product((None, 0, 1), rules.ACTION_NAMES, (None, 4)):
                answered.add(rules.refusal(table, seat, action, version=version))
    answered.discard(None)
    assert {"not_host", "game_full", "not_absent", "hints_off", "stale_version"} <= answered
    assert answered - MESSAGES.keys() == set()
