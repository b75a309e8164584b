"""The in-memory channel layer of the embedded setup, with pushes that cost
the same however many sockets the process has.

Channels' ``InMemoryChannelLayer`` looks through every channel and every
group for expired entries on each receive and each group send. A socket
waiting for its next push is one of those channels, so with 300 games (600
sockets) every push walked more than a thousand entries, several times
over: once for the group send, once for each socket's receive that follows.
It also copies the message deeply, and starts a task, for each member of
the group.

Here the walk for expired entries runs at most once a second, and a group
send puts one copy of the message straight into each member's queue, the
copy shared by the process's sockets as the Redis layer's readers share a
popped message. Capacities and groups behave as before, and expired
messages and memberships still go, within a second of expiring. A message a
full channel misses is counted (``inbox_overflows`` at ``/health/``), as the
Redis layer counts one its inboxes drop: channels' own layer dropped it
silently.
"""

from __future__ import annotations

import asyncio
import time
from copy import deepcopy
from typing import Any

from channels.layers import InMemoryChannelLayer

from games.runtime import runtime

# How often, at most, queues and groups are searched for expired entries.
CLEAN_EVERY_SECONDS = 1.0


class SharedCopyInMemoryChannelLayer(InMemoryChannelLayer):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._next_clean = 0.0

    def _clean_expired(self) -> None:
        now = time.monotonic()
        if now < self._next_clean:
            return
        self._next_clean = now + CLEAN_EVERY_SECONDS
        super()._clean_expired()

    def forget(self, channel: str) -> None:
        """Drop the queue of a socket that has ended (as the Redis layer's
        ``forget`` drops its inbox): messages pushed to it before it left
        its group are nobody's."""
        self.channels.pop(channel, None)

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        assert isinstance(message, dict), "Message is not a dict"
        self.require_valid_group_name(group)
        self._clean_expired()
        members = self.groups.get(group)
        if not members:
            return
        entry = (time.time() + self.expiry, deepcopy(message))
        for channel in list(members):
            queue = self.channels.setdefault(
                channel, asyncio.Queue(maxsize=self.get_capacity(channel))
            )
            try:
                queue.put_nowait(entry)
            except asyncio.QueueFull:
                # As the stock layer, a full channel misses this message; as
                # the Redis layer's inboxes, the miss is counted for /health/.
                runtime.counts["inbox_overflows"] += 1
