"""A table another server holds, served here: its players and spectators on this server.

With ``cabinet serve --store postgresql://...`` each table in play is served by
the one server holding its lease (the *owner*), yet a player may reach any
server.  A server that does not hold a table its player opens serves it from a
:class:`Follower`: the match rebuilt from the table's log in the database and
kept current as the owner commits records (it tells every server with
``NOTIFY``).  A follower is a :class:`GameServer` without a save: it speaks to
its connections exactly as the owner does (the same welcome, updates with that
seat's view, events and legal commands only, the same sentences), and passes
its seats' commands and take-backs on to the owner through the database, which
plays them as it plays its own connections' and sends back the sentence of a
refusal.  The owner runs the bots and writes the log; a follower only reads it.
It reads and relays through the cluster (``net.cluster.Cluster``), in threads
(``net.offloop``), never on the event loop.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from typing import Any

import msgpack

from core.engine import Command, Match
from net.cluster import Cluster
from net.offloop import Offloop
from net.server import Connection, GameServer
from saves import SaveError
from saves.format import HEADER, MOVE, BadRecord, decode_body, fold
from saves.format import rebuild as saves_rebuild

#: what a player is told when a command cannot be passed on to the table's server
UNREACHABLE = "The table's server cannot be reached just now; try that again in a moment."


def moves_of(table: str, records: list[tuple[int, bytes, bytes]]) -> list[Any]:
    """The move records among a table's records, decoded (checkpoints and the result say
    nothing the moves do not).  Raises SaveError."""
    try:
        return [decode_body(body) for _, kind, body in records if kind == MOVE]
    except BadRecord as exc:
        raise SaveError(f"table {table} is damaged: {exc.what}.") from None


def rebuild(table: str, records: list[tuple[int, bytes, bytes]]) -> Match:
    """The match of a table's log (its records' sequence numbers, kinds and bodies, as
    its server committed them), by the one rebuild (``saves.format.rebuild``).  Raises SaveError."""
    if not records or records[0][1] != HEADER:
        raise SaveError(f"table {table} has no log yet.")
    try:
        header = decode_body(records[0][2])
    except BadRecord as exc:
        raise SaveError(f"table {table} is damaged: {exc.what}.") from None
    return saves_rebuild(f"table {table}", header, moves_of(table, records[1:]))


def follow(table: str, match: Match, records: list[tuple[int, bytes, bytes]]) -> None:
    """Fold the move records among ``records`` into ``match``.  Raises SaveError."""
    fold(f"table {table}", match, moves_of(table, records))


class Follower(GameServer):
    """A table held by another server, served to this server's connections.

    ``cluster``: the servers of the database (``saves.postgres.PostgresStore``);
    ``hall``: this server's name there (its listening connection's pid), which answers
    are sent to.  Made with :meth:`open` (which reads the log off the loop)."""

    def __init__(
        self,
        cluster: Cluster,
        offloop: Offloop,
        table: str,
        hall: Callable[[], int],
        records: list[tuple[int, bytes, bytes]],
        **options: Any,
    ) -> None:
        super().__init__(None, {}, match=rebuild(table, records), **options)
        self.cluster = cluster
        self.offloop = offloop
        self.table_id = table
        self.hall = hall
        self.runner = None  # the owner runs them
        #: the last record folded in
        self.seq = records[-1][0]
        #: the connections whose commands were passed on and not answered yet, by number
        self.asked: dict[int, Connection] = {}
        #: answers heard before their command's number came back from the cluster
        self.early: dict[int, tuple[str, str]] = {}
        #: the seats' commands, passed on in the order they came
        self.relaying = offloop.lane()
        #: one catching up at a time, folded in the order read
        self.reading = asyncio.Lock()

    @classmethod
    async def open(
        cls, cluster: Cluster, offloop: Offloop, table: str, hall: Callable[[], int], **options: Any
    ) -> Follower:
        """The follower of ``table``, its log read.  Raises SaveError."""
        records = await offloop.call(cluster.records_after, table, -1)
        return cls(cluster, offloop, table, hall, records, **options)

    def schedule_bots(self) -> None:
        if self.match.outcome is not None:
            self.finished.set()

    # -- a seat's commands go to the table's server ------------------------------------

    def play(self, conn: Connection, seat: int, command: Command) -> None:
        self.relay(conn, seat, "command", msgpack.packb(command, use_bin_type=True))

    def ask_takeback(self, conn: Connection, seat: int) -> None:
        self.relay(conn, seat, "takeback", b"")

    def relay(self, conn: Connection, seat: int, kind: str, body: bytes) -> None:
        """Pass the command on (off the loop, after those before it); its answer comes as news."""

        def passed(number: Any, exc: BaseException | None) -> None:
            if exc is not None:
                if not isinstance(exc, OSError):
                    self.log(f"Could not pass a command on: {exc!r}.")
                elif self.cluster.reachable:  # else the store said it once, and says when it is back
                    self.log(f"Could not pass a command on: {exc.strerror or exc}.")
                conn.send({"t": "error", "message": UNREACHABLE})
                return
            early = self.early.pop(number, None)
            if early is not None:
                self.tell_answer(conn, *early)
            else:
                self.asked[number] = conn

        self.relaying.push(functools.partial(self.cluster.relay, self.table_id, seat, kind, body, self.hall()), passed)

    def answered(self, number: int, kind: str, message: str) -> None:
        """The table's server played command ``number`` (``kind`` "ok"), or tells its
        player ``message`` (``kind`` "error" or "info")."""
        conn = self.asked.pop(number, None)
        if conn is None:
            # heard before the cluster gave this hall its number (the owner was quick): kept for it
            self.early[number] = (kind, message)
            while len(self.early) > 64:  # others' (another follower of this hall's), never claimed
                del self.early[next(iter(self.early))]
            return
        self.tell_answer(conn, kind, message)

    @staticmethod
    def tell_answer(conn: Connection, kind: str, message: str) -> None:
        if kind != "ok":
            conn.send({"t": kind, "message": message})

    # -- the log moves on -------------------------------------------------------------------

    async def catch_up(self, rewritten: bool = False) -> None:
        """Fold in the records committed since the last one folded, or read the whole log
        again if it was ``rewritten`` (a take-back cut it); everybody is told.  Raises SaveError."""
        async with self.reading:
            self.fold(await self.offloop.call(self.read, rewritten))

    def read(self, rewritten: bool) -> tuple[bool, list[tuple[int, bytes, bytes]]]:
        """In a thread: the records after the last folded, or the whole log if it was rewritten."""
        records = [] if rewritten else self.cluster.records_after(self.table_id, self.seq)
        if records and records[0][0] != self.seq + 1:
            rewritten = True  # a record is missing: the log was rewritten meanwhile
        if rewritten:
            records = self.cluster.records_after(self.table_id, -1)
        return rewritten, records

    def fold(self, read: tuple[bool, list[tuple[int, bytes, bytes]]]) -> None:
        rewritten, records = read
        if rewritten:
            match = rebuild(self.table_id, records)
            old = self.match.events
            same = 0
            while same < min(len(old), len(match.events)) and old[same] == match.events[same]:
                same += 1
            self.table.match = match  # the log as its server now has it
            for conn in [*self.players.values(), *self.watchers]:
                conn.told = min(conn.told, same)  # their next update starts where the logs part
        else:
            follow(self.table_id, self.match, records)
        if not records:
            return
        self.seq = records[-1][0]
        self.version += 1
        self.broadcast()
        if self.match.outcome is not None:
            self.finished.set()
