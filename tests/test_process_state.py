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

A memo (``@cache``, ``@lru_cache``) is module state too: each is listed in
``PURE_MEMOS`` with why what it keeps is a function of its arguments and of
what is fixed at startup, never of what the process has seen; anything else
(a client, a connection, a count) belongs in a runtime part. So are class
attributes written at run time (``Class.name = …``, ``cls.name = …``) and a
list, dict or set bound in a class body that some code changes in place:
every instance would share it.

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

# What each memo keeps is the same in every process: a pure function of its
# arguments, and of the translation catalogs or a data file read at startup.
_TRANSLATED = "a function of its arguments and the translation catalogs, fixed at startup"
_PURE = "a pure function of its arguments (the rules and the solver's constants)"
PURE_MEMOS = {
    "games/present/rendering.py:_die": _TRANSLATED,
    "games/present/rendering.py:avatar": "a function of a seat's place and name",
    "games/present/rendering.py:_box_names": _TRANSLATED,
    "games/present/rendering.py:_ruleset_name": _TRANSLATED,
    "games/present/rendering.py:_rolls_left": _TRANSLATED,
    "games/present/rules_pages.py:best_box": _PURE,
    "games/solver/model.py:model_for": _PURE,
    "games/solver/dice.py:sub_keeps": _PURE,
    "games/solver/bots.py:_rule_of_thumb": _PURE,
    "games/solver/bots.py:_solid_turn": _PURE,
    "games/play/names.py:_look_alike_classes": "Unicode's confusables, from the data file "
    "a package ships",
    "yachtsite/jinja2.py:catalog": _TRANSLATED,
    "yachtsite/jinja2.py:words": _TRANSLATED,
    "yachtsite/jinja2.py:in_language": "an overlay of the template engine Django configures "
    "once, holding only the templates it compiled",
    "yachtsite/clientaddr.py:_networks": "the networks a list of addresses names",
}
MEMOS = {"cache", "lru_cache", "functools.cache", "functools.lru_cache"}

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


def memos_in(sources: dict[str, str]) -> list[str]:
    """Each memoised function, as ``path:name``."""
    found = []
    for path, text in sources.items():
        for node in ast.walk(ast.parse(text, path)):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for decorator in node.decorator_list:
                called = decorator.func if isinstance(decorator, ast.Call) else decorator
                if dotted(called) in MEMOS:
                    found.append(f"{path}:{node.name}")
    return found


def _attribute_of(target: ast.expr, owners: set[str]) -> bool:
    """Whether ``target`` is an attribute of one of ``owners`` (``Class.name``)."""
    owner = target.value if isinstance(target, ast.Attribute) else None
    return isinstance(owner, ast.Name) and owner.id in owners


def attributes_changed_in_place(trees: list[ast.Module], classes: set[str]) -> set[str]:
    """The attributes of classes or instances some code changes in place."""
    changed = set()
    for tree in trees:
        for node in ast.walk(tree):
            target: ast.expr | None = None
            if isinstance(node, ast.Subscript) and isinstance(node.ctx, (ast.Store, ast.Del)):
                target = node.value
            elif isinstance(node, ast.AugAssign):
                target = node.target
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in CHANGERS
            ):
                target = node.func.value
            if target is not None and _attribute_of(target, classes | {"cls", "self"}):
                changed.add(last_name(target))
    return changed


def class_state_in(sources: dict[str, str]) -> list[str]:
    """Class attributes that hold process state, as ``path:line what``: one
    written from a function (``Class.name = …``, ``cls.name = …``), or a
    list, dict or set in a class body that code changes in place through a
    class or an instance (every instance shares it)."""
    trees = {path: ast.parse(text, path) for path, text in sources.items()}
    classes = {n.name for t in trees.values() for n in ast.walk(t) if isinstance(n, ast.ClassDef)}
    changed = attributes_changed_in_place(list(trees.values()), classes)
    found = []
    for path, tree in trees.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                for line, name, value in module_bindings(ast.Module(node.body, [])):
                    why = mutable(value, set())
                    if why in ("a list", "a dict", "a set") and name in changed:
                        found.append(
                            f"{path}:{line} {node.name}.{name} = {why} every instance shares"
                        )
            elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if _attribute_of(target, classes | {"cls"}):
                        found.append(f"{path}:{node.lineno} {dotted(target)} set at run time")
    return sorted(found, key=lambda finding: int(finding.split(":")[1].split()[0]))


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


def test_every_memo_keeps_only_what_is_the_same_in_every_process() -> None:
    memos = memos_in(project())
    assert [memo for memo in memos if memo not in PURE_MEMOS] == []
    assert sorted(set(PURE_MEMOS) - set(memos)) == [], "a memo gone is no longer allowed"


def test_no_class_keeps_process_state_in_its_attributes() -> None:
    assert class_state_in(project()) == []


def test_the_live_layer_and_the_store_read_the_time_through_the_runtimes_clock() -> None:
    live = {
        path: text
        for path, text in project().items()
        if path.startswith(("games/live/", "games/store/")) and path not in OWN_CLOCKS
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

MEMO_SAMPLE = """
import functools
from functools import cache, lru_cache

class Registry:
    seen = []
    LABELS = ["a"]

    @classmethod
    def note(cls, item):
        cls.last = item
        cls.seen.append(item)

@cache
def client(url): ...

@lru_cache(maxsize=4)
def parsed(text): ...

@functools.lru_cache
def table(): ...

def remember(item):
    Registry.first = item
"""


def test_the_rule_finds_every_memo_and_class_attributes_written_at_run_time() -> None:
    sample = {"sample.py": MEMO_SAMPLE}
    assert memos_in(sample) == ["sample.py:client", "sample.py:parsed", "sample.py:table"]
    assert class_state_in(sample) == [
        "sample.py:6 Registry.seen = a list every instance shares",
        "sample.py:11 cls.last set at run time",
        "sample.py:24 Registry.first set at run time",
    ]


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
