import ast
from pathlib import Path

from games.messages import MESSAGES

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
    for path in [*(ROOT / "games").glob("*.py"), *(ROOT / "games" / "rules").glob("*.py")]:
        raised |= codes_raised_in(path)
    assert "not_your_turn" in raised and "stale_version" in raised
    assert raised - MESSAGES.keys() == set()
