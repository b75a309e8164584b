"""The event loop that serves this process's sockets.

Commits happen in worker threads; what must follow them on the event loop
(sending a push, scheduling a bot's step) is handed over here. The loop is
learnt from the first socket that connects.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Callable
from typing import Any

_loop: asyncio.AbstractEventLoop | None = None


def remember(loop: asyncio.AbstractEventLoop) -> None:
    global _loop
    _loop = loop


def running() -> asyncio.AbstractEventLoop | None:
    """The sockets' loop, if one is running in this process now."""
    loop = _loop
    if loop is None or loop.is_closed() or not loop.is_running():
        return None
    return loop


def call_soon(callback: Callable[..., Any], *args: Any) -> bool:
    """Run ``callback(*args)`` on the sockets' loop, from any thread.

    False when there is no such loop (a management command, a test calling
    services directly, a server shutting down): the caller decides what then.
    """
    loop = running()
    if loop is None:
        return False
    try:
        # A fresh context: the committing thread's one says it is inside
        # sync_to_async, and a task inheriting that would refuse to call back out.
        loop.call_soon_threadsafe(callback, *args, context=contextvars.Context())
    except RuntimeError:  # closed since we looked
        return False
    return True
