"""The Redis channel layer, with the process's read owned by the layer.

channels-redis keeps one Redis queue per process for all its sockets. Its
stock ``receive()`` lets whichever socket's receive holds a lock pop that
queue (``BZPOPMIN``) and hand out what it pops. A socket that closes is
cancelled inside its receive; if it held the lock and Redis had just popped
a message for another socket, the reply dies with the cancelled task: Redis
no longer has the message and nobody got it. A push carries a whole game's
sockets on one process, so the game stalls. Sockets closing all the time
(games ending, tabs closing) made this a few lost pushes in every few
hundred games.

Here one task per process, which no socket can cancel, does every pop and
files each message in the inbox of the socket it is for. A socket's receive
only waits on its own inbox, so cancelling it loses nothing but its own
mail. If Redis fails under the reader, every waiting socket hears the error
(and closes with "try again"), as with the stock layer.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from channels_redis.core import RedisChannelLayer

from games.live import live

log = logging.getLogger(__name__)


class Inbox(asyncio.Queue[Any]):
    """A socket's messages; past ``maxsize`` the oldest goes, and is counted."""

    def put_nowait(self, item: Any) -> None:
        if self.full():
            self.get_nowait()
            live.counts["inbox_overflows"] += 1
            log.warning("a socket's inbox overflowed: dropped its oldest message")
        super().put_nowait(item)


class OwnReaderRedisChannelLayer(RedisChannelLayer):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._inboxes: dict[str, Inbox] = {}
        self._readers: dict[str, asyncio.Task[None]] = {}

    async def new_channel(self, prefix: str = "specific") -> str:
        channel: str = await super().new_channel(prefix)
        # Messages may come before the socket's first receive: keep them.
        self._inboxes[channel] = Inbox(self.capacity)
        return channel

    async def receive(self, channel: str) -> Any:
        if "!" not in channel:
            return await super().receive(channel)
        inbox = self._inboxes.get(channel)
        if inbox is None:
            inbox = self._inboxes[channel] = Inbox(self.capacity)
        self._ensure_reader(self.non_local_name(channel))
        try:
            item = await inbox.get()
        except asyncio.CancelledError:
            # Channels cancels a consumer's receive only when the consumer is done.
            self._inboxes.pop(channel, None)
            if not self._inboxes:
                # No socket left to read for: stop reading (nothing popped now
                # could be anyone's), so no reader outlives its event loop.
                # The next receive starts a new one.
                for reader in self._readers.values():
                    reader.cancel()
                self._readers.clear()
            raise
        if isinstance(item, BaseException):
            raise item
        return item

    def _ensure_reader(self, process_channel: str) -> None:
        loop = asyncio.get_running_loop()
        reader = self._readers.get(process_channel)
        if reader is not None and not reader.done() and reader.get_loop() is loop:
            return
        self._readers[process_channel] = loop.create_task(self._read(process_channel))

    async def _read(self, process_channel: str) -> None:
        index = self.consistent_hash(process_channel)
        key = self.prefix + process_channel
        while self._inboxes and not self._stopping():
            # A pop moves the backup of the last one back to the queue first:
            # wait until that one's cleanup is done (as the stock layer does),
            # or a delivered message would come again.
            await self.receive_clean_locks.acquire(key)
            try:
                # One blocking pop at a time (it waits up to brpop_timeout),
                # so the loop can look between pops whether it should stop.
                content = await self._brpop_with_clean(index, key, timeout=self.brpop_timeout)
            except BaseException as error:
                self.receive_clean_locks.release(key)
                if not isinstance(error, Exception):
                    raise
                # Redis is gone or failing: tell every waiting socket, as the
                # stock layer tells the one holding its lock. The next receive
                # starts a new reader.
                for inbox in self._inboxes.values():
                    inbox.put_nowait(error)
                break
            if content is None:
                self.receive_clean_locks.release(key)
                continue
            # The popped message waits in a backup queue until this clears it.
            self.spawn_cleanup(index, key)
            message = self.deserialize(content)
            destination = message.pop("__asgi_channel__", process_channel)
            for name in destination if isinstance(destination, list) else [destination]:
                found = self._inboxes.get(name)
                if found is not None:
                    found.put_nowait(message)
        if self._readers.get(process_channel) is asyncio.current_task():
            del self._readers[process_channel]

    @staticmethod
    def _stopping() -> bool:
        # redis-py retries a read that timed out just as its task was
        # cancelled, which swallows the cancellation (Python 3.11): a reader
        # asked to stop checks for it between pops instead of reading forever.
        task = asyncio.current_task()
        return task is not None and task.cancelling() > 0

    def spawn_cleanup(self, index: int, key: str) -> None:
        cleaner = asyncio.ensure_future(self._clean_receive_backup(index, key))
        self.receive_cleaners.append(cleaner)

        def done(cleaner: asyncio.Future[Any]) -> None:
            self.receive_cleaners.remove(cleaner)
            self.receive_clean_locks.release(key)

        cleaner.add_done_callback(done)

    async def flush(self) -> None:
        for reader in list(self._readers.values()):
            reader.cancel()
        self._readers.clear()
        self._inboxes.clear()
        await super().flush()
