"""The store's calls, made off the event loop that carries every session.

A call to a log store, a cluster or the keeper of names may wait: a disk's fsync, a
database's commit, a row another server has locked, a database restarting.  The
event loop of ``cabinet serve`` carries every SSH session, every lobby and every
table: what waits there makes them all wait.  So the hall, the tables' servers and
the SSH front make those calls in threads (:class:`Offloop`, a bounded pool) and
handle what comes back on the loop.

Threads rather than psycopg's asynchronous connections: the stores are synchronous
(the command line's ``export``, ``import`` and ``verify`` use them as they are), the
PostgreSQL store's connections are made again by threads of their own when a
database restarts, and one pool serves the files' store too, whose fsyncs also
wait.  The pool is bounded (:data:`THREADS`): the store serialises its transactions
on its connections anyway, and a stalled database holds that many threads, never
more.

Where order matters a :class:`Lane` keeps it: its calls run one after the other, in
the order they were asked for (a table's records, a seat's coming and going, a
player's relayed commands).  A table's save is written through a :class:`QueuedLog`:
the records are made on the loop, in order, and written in the table's lane; the
table shows a move once its lane is idle (``SaveWriter.when_written``), that is once
the move is on disk or committed.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from saves.format import Log

T = TypeVar("T")

#: threads a server makes its store's calls in, at most
THREADS = 4


class Offloop:
    """A bounded pool of threads for the calls that may wait, with their results on the loop."""

    def __init__(self, threads: int = THREADS) -> None:
        self.threads = threads
        self.executor: ThreadPoolExecutor | None = None
        self.lanes: set[Lane] = set()  # those with calls not done yet
        self.closed = False

    def pool(self) -> ThreadPoolExecutor:
        """The threads (made at the first call).  Raises RuntimeError once closed."""
        if self.closed:
            raise RuntimeError("the server is stopping: nothing more is asked of its store")
        if self.executor is None:
            self.executor = ThreadPoolExecutor(self.threads, thread_name_prefix="cabinet-store")
        return self.executor

    async def call(self, work: Callable[..., T], *args: Any) -> T:
        """``work(*args)`` in a thread of the pool; its result (or what it raised) here."""
        return await asyncio.get_running_loop().run_in_executor(self.pool(), functools.partial(work, *args))

    def lane(self) -> Lane:
        return Lane(self)

    async def drain(self) -> None:
        """Wait until every lane's calls are done (those asked for meanwhile too)."""
        while self.lanes:
            await asyncio.gather(*(lane.idle() for lane in list(self.lanes)))

    async def close(self) -> None:
        """The lanes drained, then the pool's threads ended."""
        await self.drain()
        self.closed = True
        executor, self.executor = self.executor, None
        if executor is not None:
            await asyncio.to_thread(executor.shutdown)


class Lane:
    """Calls made off the loop one after the other, in the order they were pushed.

    ``push`` is for the loop's synchronous code (a save written as a move is played):
    the call runs when those before it are done, and ``done`` gets its result (or what it
    raised) on the loop.  ``call`` awaits one."""

    def __init__(self, offloop: Offloop) -> None:
        self.offloop = offloop
        self.jobs: deque[tuple[Callable[[], Any], Callable[[Any, BaseException | None], None] | None]] = deque()
        self.busy = False
        self.waiting: dict[Callable[[], None], None] = {}  # called when the lane is next idle, once each

    @property
    def pending(self) -> bool:
        """Whether calls pushed are not done yet."""
        return self.busy or bool(self.jobs)

    def push(self, work: Callable[[], Any], done: Callable[[Any, BaseException | None], None] | None = None) -> None:
        self.jobs.append((work, done))
        self.offloop.lanes.add(self)
        self._next()

    async def call(self, work: Callable[..., T], *args: Any) -> T:
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()

        def done(result: Any, exc: BaseException | None) -> None:
            if future.done():
                return
            if exc is not None:
                future.set_exception(exc)
            else:
                future.set_result(result)

        self.push(functools.partial(work, *args), done)
        return await future

    def when_idle(self, callback: Callable[[], None]) -> None:
        """``callback()`` once every call pushed so far (and since) is done: now, if none is pending."""
        if not self.pending:
            callback()
        else:
            self.waiting[callback] = None

    async def idle(self) -> None:
        if self.pending:
            future: asyncio.Future[None] = asyncio.get_running_loop().create_future()

            def now_idle() -> None:
                if not future.done():
                    future.set_result(None)

            self.when_idle(now_idle)
            await future

    def _next(self) -> None:
        if self.busy:
            return
        if not self.jobs:
            self.offloop.lanes.discard(self)
            waiting, self.waiting = self.waiting, {}
            for callback in waiting:
                callback()
            return
        work, done = self.jobs.popleft()
        self.busy = True
        try:
            future = asyncio.get_running_loop().run_in_executor(self.offloop.pool(), work)
        except RuntimeError as exc:  # the pool is shut down (the server is stopping)
            self.busy = False
            if done is not None:
                done(None, exc)
            self._next()
            return
        future.add_done_callback(functools.partial(self._finished, done))

    def _finished(self, done: Callable[[Any, BaseException | None], None] | None, future: asyncio.Future[Any]) -> None:
        self.busy = False
        try:
            result: Any = None
            exc: BaseException | None
            if future.cancelled():
                exc = asyncio.CancelledError()
            else:
                exc = future.exception()
                result = None if exc is not None else future.result()
            if done is not None:
                done(result, exc)
        finally:
            self._next()


class QueuedLog(Log):
    """A table's log written in a lane of its own, off the loop.

    The writer (``saves.SaveWriter``) makes its records on the loop, in order, as
    the moves are played; here they are queued and written one after the other.  A
    write that fails is told to ``failed`` on the loop (the writer's error, as if
    the write had raised), and the records queued after it are not written (they
    follow one that is not there): the writer's next move writes the whole log again,
    as it does after any failure."""

    def __init__(self, log: Log, lane: Lane, failed: Callable[[Exception], None]) -> None:
        """Made in a thread (it asks the log for its key, which may read the store)."""
        self.log = log
        self.lane = lane
        self.failed = failed
        self.name = log.name
        self.path = log.path
        self._key = log.key()
        #: on the loop: a write failed, and the log was not replaced since
        self.broken = False
        #: in the lane: a write failed, and the log was not replaced since (appends wait for that)
        self._gap = False

    def key(self) -> bytes | None:
        return self._key

    def replace(self, data: bytes) -> None:
        self.broken = False
        self.lane.push(functools.partial(self._replace, data), self._done)

    def append(self, data: bytes, durable: bool) -> None:
        self.lane.push(functools.partial(self._append, data, durable), self._done)

    def _replace(self, data: bytes) -> None:
        try:
            self.log.replace(data)
        except BaseException:
            self._gap = True
            raise
        self._gap = False

    def _append(self, data: bytes, durable: bool) -> None:
        if self._gap:
            return  # after a record that is not there: the next move writes the log whole
        try:
            self.log.append(data, durable)
        except BaseException:
            self._gap = True
            with contextlib.suppress(Exception):
                self.log.drop()
            raise

    def _done(self, result: Any, exc: BaseException | None) -> None:
        if isinstance(exc, Exception):
            self.broken = True
            self.failed(exc)

    def resume_at(self, end: int) -> bool:
        return self.log.resume_at(end)

    @property
    def ready(self) -> bool:
        return not self.broken and not self.log.lost

    def drop(self) -> None:
        self.lane.push(self.log.drop)

    @property
    def lost(self) -> bool:
        return self.log.lost

    def release(self) -> None:
        self.lane.push(self.log.release)

    @property
    def pending(self) -> bool:
        return self.lane.pending

    def when_written(self, callback: Callable[[], None]) -> None:
        self.lane.when_idle(callback)
