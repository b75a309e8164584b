"""The process's one runtime object: everything a server process keeps
between one request or message and the next, and the clock it reads.

Each layer's state is a part of it, made on first use from the part's class
(``runtime.part(CommittedSeats)``) and reached through a function of the
module that owns it (``known.committed_seats()``), so no module holds
process state of its own and a test can swap one part or the clock for the
length of a test (``runtime.swap``). It imports nothing of the project, so
every layer may use it.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any, TypeVar, cast

T = TypeVar("T")


class Clock:
    """The time as the process reads it: wall time for what is stored and
    shown, the monotonic clock for intervals."""

    def now(self) -> datetime:
        return datetime.now(tz=UTC)

    def monotonic(self) -> float:
        return time.monotonic()


class Runtime:
    def __init__(self, clock: Clock | None = None) -> None:
        self.clock = clock or Clock()
        self._parts: dict[type[Any], Any] = {}
        self._making = threading.Lock()

    def part(self, kind: type[T], make: Callable[[], T] | None = None) -> T:
        """This process's ``kind``, made now (by ``make``, else ``kind()``)
        if it is the first to be asked for."""
        try:
            return cast(T, self._parts[kind])
        except KeyError:
            with self._making:
                if kind not in self._parts:
                    self._parts[kind] = (make or kind)()
                return cast(T, self._parts[kind])

    def made(self, kind: type[T]) -> T | None:
        """This process's ``kind`` if one was made, without making one."""
        return cast("T | None", self._parts.get(kind))

    @contextlib.contextmanager
    def swap(self, kind: type[T], part: T) -> Iterator[T]:
        """``part`` in place of this process's ``kind`` while the block runs
        (tests: a fresh count, a fake)."""
        with self._making:
            before = self._parts.get(kind)
            self._parts[kind] = part
        try:
            yield part
        finally:
            with self._making:
                if before is None:
                    self._parts.pop(kind, None)
                else:
                    self._parts[kind] = before

    def drop(self, kind: type[Any]) -> None:
        """Forget this process's ``kind``: the next to ask gets a new one."""
        with self._making:
            self._parts.pop(kind, None)


runtime = Runtime()
