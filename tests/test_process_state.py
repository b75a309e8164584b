"""What a server process keeps from one request or message to the next is
held by its one runtime object (``games.runtime``), never by a module; and
the live layer reads time only through that object's clock.

Every module of ``games/`` and ``yachtsite/`` (migrations aside) is read
with ``ast``. At module level, a name may not be bound to:

- a list, dict or set (literal or comprehension), unless the name is in
  capitals, PEP 8's mark of a constant, and no code changes it in place
  (an item set or deleted, ``+=``, or a call of a list's, dict's or set's
  own changing methods on it);
- a generator, which changes as it is read;
- a call of anything not known to make a value that cannot change
  (``IMMUTABLE_CALLS``, or a class of the project's own declared frozen:
  a frozen dataclass, a NamedTuple, an Enum);
- a clock function (``time.time``…): time is read through ``runtime.clock``.

And no function may rebind a module's name (``global``): that is process
state however immutable each value it holds.

The rule reads the source, not the objects, so it cannot tell what an
unknown call returns (any such call is refused), nor follow a constant
through another name. What Django itself requires, and the runtime object
itself, are allowed by name (``ALLOWED_NAMES``), each with its reason.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("games", "yachtsite")

# Calls whose value cannot change in place, or holds nothing of a process's
# own: their arguments are consumed.
IMMUTABLE_CALLS = {
    "frozenset": "an immutable set",
    "tuple": "an immutable sequence",
    "range": "an immutable sequence",
    "int": "a number",
    "float": "a number",
    "str": "a string",
    "object": "a sentinel with no state",
    "Path": "a path is immutable",
    "timedelta": "an immutable span of time",
    "re.compile": "a compiled pattern holds no state",
    "TypeVar": "a typing construct",
    "get_args": "a typing construct's arguments, as a tuple",
    "logging.getLogger": "loggers are the logging module's registry, configured once",
    "gettext_lazy": "a lazy translation: a string once the language is known",
    "pgettext_lazy": "a lazy translation: a string once the language is known",
    "_": "a lazy translation: a string once the language is known",
    "ContextVar": "a value per context, set and reset around one call",
    "secrets.SystemRandom": "draws from the operating system: seeding it does nothing",
    "AsyncScript": "a Redis script's text and digest, fixed when made",
    "Jinja2": "Django's form renderer, which loads its template engine once",
    "get_wsgi_application": "Django's WSGI handler, made once at startup",
}

# Names bound once at startup, each by what needs it.
ALLOWED_NAMES = {
    "__all__": "a package's exports, read by ``import *``",
    "urlpatterns": "Django's URL configuration, read once when the resolver loads",
    "websocket_urlpatterns": "channels' URL configuration, read once at startup",
    "application": "the ASGI application, made once at startup",
    "runtime": "the runtime object: where every layer's process state lives",
}

# Module-level values computed once at import and never written since.
ALLOWED_BINDINGS = {
    "games/solver/dice.py:LEVELS": "a tuple of the dice's levels, built once",
    "games/solver/dice.py:FIRST_ROLL": "each roll's chance, made read-only where it is built",
}

# Whole modules that are configuration, not state.
ALLOWED_MODULES = {
    "yachtsite/settings.py": "Django's settings: read once at startup, never changed by the code",
    "yachtsite/settings_typecheck.py": "settings for mypy's Django plugin, never served",
}

CLOCKS = {"time.time", "time.monotonic", "time.perf_counter", "datetime.now", "timezone.now"}
# The live layer's modules that may read the clock themselves.
OWN_CLOCKS = {
    "games/live/memorylayer.py": "extends channels' layer, whose own code dates messages "
    "by time.time(): a message's expiry is set on the clock it is checked against",
    "games/live/redislayer.py": "likewise for channels-redis's layer and its wire format",
}

CONSTANT = re.compile(r"_?[A-Z][A-Z0-9_]*")
CHANGERS = {
    "append",
    "extend",
    "insert",
    "pop",
    "popitem",
    "clear",
    "update",
    "setdefault",
    "add",
    "discard",
    "remove",
    "sort",
    "reverse",
}


def modules() -> Iterator[Path]:
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if "/migrations/" not in relative and relative not in ALLOWED_MODULES:
                yield path


def dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{dotted(node.value)}.{node.attr}"
    return ""


def last_name(node: ast.expr) -> str:
    return dotted(node).rpartition(".")[2]


def frozen_classes(trees: list[ast.Module]) -> set[str]:
    """The project's classes whose instances cannot change: frozen
    dataclasses, NamedTuples and Enums."""
    frozen = set()
    for tree in trees:
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef):
                continue
            bases = {last_name(base) for base in node.bases}
            if bases & {"NamedTuple", "Enum", "IntEnum", "StrEnum", "TextChoices"}:
                frozen.add(node.name)
            for decorator in node.decorator_list:
                frozen_dataclass = (
                    isinstance(decorator, ast.Call)
                    and dotted(decorator.func).endswith("dataclass")
                    and any(
                        k.arg == "frozen" and isinstance(k.value, ast.Constant) and k.value.value
                        for k in decorator.keywords
                    )
                )
                if frozen_dataclass:
                    frozen.add(node.name)
    return frozen


def changed_in_place(trees: list[ast.Module]) -> set[str]:
    """The names some code changes in place, by their last part."""
    changed = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Subscript) and isinstance(node.ctx, (ast.Store, ast.Del)):
                changed.add(last_name(node.value))
            elif isinstance(node, ast.AugAssign):
                changed.add(last_name(node.target))
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in CHANGERS
            ):
                changed.add(last_name(node.func.value))
    return changed - {""}


def mutable(value: ast.expr, frozen: set[str]) -> str | None:
    """What ``value`` is, if it can change in place; None if it cannot."""
    if isinstance(value, (ast.List, ast.ListComp)):
        return "a list"
    if isinstance(value, (ast.Dict, ast.DictComp)):
        return "a dict"
    if isinstance(value, (ast.Set, ast.SetComp)):
        return "a set"
    if isinstance(value, ast.GeneratorExp):
        return "a generator"
    if isinstance(value, (ast.Tuple, ast.BinOp, ast.BoolOp, ast.IfExp)):
        # Any part may be what the name ends up holding.
        parts = [part for part in ast.iter_child_nodes(value) if isinstance(part, ast.expr)]
        return next((why for part in parts if (why := mutable(part, frozen))), None)
    if isinstance(value, ast.Call):
        name = dotted(value.func)
        if name in IMMUTABLE_CALLS or last_name(value.func) in frozen:
            return None
        return f"a call of {name or 'an expression'}"
    if isinstance(value, ast.Attribute) and dotted(value) in CLOCKS:
        return f"the clock {dotted(value)}"
    return None


def module_bindings(tree: ast.Module) -> Iterator[tuple[int, str, ast.expr]]:
    """(line, name, value) of each name bound at module level, inside
    module-level ``if`` and ``try`` blocks too."""
    pending: list[ast.stmt] = list(tree.body)
    while pending:
        node = pending.pop(0)
        if isinstance(node, (ast.If, ast.Try)):
            pending[:0] = [*node.body, *node.orelse, *getattr(node, "finalbody", [])]
            for handler in getattr(node, "handlers", []):
                pending[:0] = handler.body
            continue
        targets: list[ast.expr] = []
        value: ast.expr | None = None
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and node.value is not None:
            targets, value = [node.target], node.value
        if value is None:
            continue
        for target in targets:
            for name in ast.walk(target):
                if isinstance(name, ast.Name):
                    yield node.lineno, name.id, value


def state_in(sources: dict[str, str]) -> list[str]:
    """Each piece of module-level state in ``sources`` (path → text), as
    ``path:line what``."""
    trees = {path: ast.parse(text, path) for path, text in sources.items()}
    frozen = frozen_classes(list(trees.values()))
    changed = changed_in_place(list(trees.values()))
    found = []
    for path, tree in trees.items():
        for line, name, value in module_bindings(tree):
            if name in ALLOWED_NAMES or f"{path}:{name}" in ALLOWED_BINDINGS:
                continue
            why = mutable(value, frozen)
            literal = isinstance(
                value, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)
            )
            if why and literal and CONSTANT.fullmatch(name) and name not in changed:
                continue
            if why:
                found.append(f"{path}:{line} {name} = {why}")
        for node in ast.walk(tree):
            if isinstance(node, ast.Global):
                found.append(f"{path}:{node.lineno} global {', '.join(node.names)}")
    return found


def clock_reads_in(sources: dict[str, str]) -> list[str]:
    """Each call of a clock function, as ``path:line name``."""
    return [
        f"{path}:{node.lineno} {dotted(node.func)}"
        for path, text in sources.items()
        for node in ast.walk(ast.parse(text, path))
        if isinstance(node, ast.Call) and dotted(node.func) in CLOCKS
    ]


def project() -> dict[str, str]:
    return {path.relative_to(ROOT).as_posix(): path.read_text() for path in modules()}


def test_no_module_keeps_process_state_of_its_own() -> None:
    assert state_in(project()) == []


def test_the_live_layer_reads_the_time_through_the_runtimes_clock() -> None:
    live = {
        path: text
        for path, text in project().items()
        if path.startswith("games/live/") and path not in OWN_CLOCKS
    }
    assert clock_reads_in(live) == []


SAMPLE = """
import time
from dataclasses import dataclass

@dataclass(frozen=True)
class Point:
    x: int

counts = {}
seen: set[str] = set()
queue = [1, 2]
table = {k: k for k in range(3)}
made = Tally()
now = time.monotonic
lines = (line for line in "ab")
ORIGIN = Point(0)
NAMES = frozenset({"a"})
PAIR = (1, "b")
PLACES = {"a": 1}
GROWN = []

def bump():
    global ORIGIN
    GROWN.append(1)
    return time.time()
"""


def test_the_rule_finds_each_kind_of_module_state_and_passes_constants() -> None:
    found = state_in({"sample.py": SAMPLE})
    assert [finding.split(" = ")[0].split(" ", 1)[1] for finding in found[:-1]] == [
        "counts",
        "seen",
        "queue",
        "table",
        "made",
        "now",
        "lines",
        "GROWN",
    ]
    assert found[-1] == "sample.py:23 global ORIGIN"
    assert clock_reads_in({"sample.py": SAMPLE}) == ["sample.py:25 time.time"]
