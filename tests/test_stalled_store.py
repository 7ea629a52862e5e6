"""A database that makes the server wait holds up nobody else (a throwaway cluster, see tests/pg.py).

Another connection holds a lock on the table the hall writes a move to (or the names a
login claims): the write waits, and meanwhile the event loop that carries every session
goes on: a new lobby is given its tables, the table's own player is answered, a heartbeat on
the loop keeps beating.  The move waiting is not shown to its player until it is written;
once the lock goes, it is written, then shown.  Were the write made on the loop, the loop
would stop with it: the lock is let go by a timer thread after STALL seconds, and the tests
say so rather than hang.
"""

from __future__ import annotations

import asyncio
import random
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from net.hall import Hall
from net.identity import StoredIdentities
from net.ssh import SSHFront
from saves import load, open_store
from saves.postgres import PostgresStore
from tests.test_hall import STEP, listed, lobby_of
from tui.serve import of_database

psycopg = pytest.importorskip("psycopg", reason="the PostgreSQL driver (the extra 'postgres') is not installed")

#: seconds a lock is held at most, should the loop be stuck behind it (the test then fails, not hangs)
STALL = 15.0


class Stall:
    """A lock another connection holds on a table of the store, let go by ``release`` (or by
    a timer after STALL seconds, which ``timed_out`` says)."""

    def __init__(self, url: str, table: str) -> None:
        self.conn = psycopg.connect(url, autocommit=True)
        self.conn.execute("BEGIN")
        # EXCLUSIVE: others may read the table, not write to it
        self.conn.execute(f"LOCK TABLE {table} IN EXCLUSIVE MODE")
        self.timed_out = False
        self.lock = threading.Lock()
        self.released = False
        self.timer = threading.Timer(STALL, self.expire)
        self.timer.start()

    def expire(self) -> None:
        self.timed_out = True
        self.release()

    def release(self) -> None:
        with self.lock:
            if self.released:
                return
            self.released = True
        self.timer.cancel()
        self.conn.execute("ROLLBACK")
        self.conn.close()


def waiting_on_a_lock(url: str) -> int:
    """The sessions of the database waiting for a lock now."""
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'").fetchone()
    return int(row[0])


async def until_true(ready: Any, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if await ready():
            return True
        await asyncio.sleep(0.02)
    return bool(await ready())


def test_a_move_waiting_on_the_database_holds_up_no_other_session(tmp_path: Path, pg_url: str) -> None:
    async def run() -> None:
        hall = Hall(tmp_path / "hall", bot_delay=0.0, **of_database(PostgresStore(pg_url)))
        await hall.start()
        try:
            ann, _ = await lobby_of(hall, "ann")
            made = await ann.request(
                {
                    "t": "create",
                    "game": "agent-jean",
                    "players": 2,
                    "seats": [{}, {"kind": "bot", "level": "random"}],
                    "sit": 0,
                }
            )
            assert made["started"], made
            table_id = made["table"]
            remote = ann.table(table_id)
            await remote.connect(timeout=STEP)
            while not remote.legal:  # until it is Ann's turn (the bot may move first)
                message = await asyncio.wait_for(remote.receive(), STEP)
                assert message is not None
                if message["t"] == "update":
                    remote.apply(message)
            shown = len(remote.events)

            stall = Stall(pg_url, "cabinet.events")
            try:
                remote.command(random.Random(1).choice(remote.legal))
                remote.send({"t": "ping"})
                # the table answers the ping that came after the move: its loop is not waiting
                # on the write, and the move is not shown before it is written
                while True:
                    message = await asyncio.wait_for(remote.receive(), STEP)
                    assert message is not None
                    assert message["t"] != "update", "a move was shown before it was written"
                    if message["t"] == "pong":
                        break
                assert not stall.timed_out, "the table answered only once the lock was let go"
                assert await until_true(lambda: asyncio.to_thread(waiting_on_a_lock, pg_url), STEP)
                # a new session's lobby is given the tables meanwhile
                dee, _ = await lobby_of(hall, "dee")
                assert listed(dee, table_id) is not None
                assert not stall.timed_out, "the lobby was served only once the lock was let go"
                assert len(await asyncio.to_thread(committed, pg_url, table_id)) == len(remote.events) == shown
            finally:
                await asyncio.to_thread(stall.release)
            # the lock gone: the move is written, and then shown
            while True:
                message = await asyncio.wait_for(remote.receive(), STEP)
                assert message is not None
                if message["t"] == "update":
                    remote.apply(message)
                    break
            assert len(remote.events) > shown
            events = await asyncio.to_thread(committed, pg_url, table_id)
            assert len(events) >= len(remote.events)
            await remote.close()
        finally:
            await hall.close()
            hall.store.close()

    asyncio.run(run())


def committed(url: str, table_id: str) -> list[Any]:
    store = open_store(url)
    try:
        return load(store.source(table_id)).match.events
    finally:
        store.close()


def test_a_name_claimed_while_the_database_waits_holds_up_nobody(tmp_path: Path, pg_url: str) -> None:
    """The SSH front asks the keeper of names in a thread: a claim that waits on the database
    leaves the loop beating; it is answered once the lock goes, and the name is claimed."""

    async def run() -> None:
        store = PostgresStore(pg_url)
        front = SSHFront(tmp_path, allow=None, child=lambda login: ([], {}), identities=StoredIdentities(store))
        front.identities = front.given_identities  # what start() does, without listening
        beats = 0

        async def heartbeat() -> None:
            nonlocal beats
            while True:
                await asyncio.sleep(0.01)
                beats += 1

        beating = asyncio.get_running_loop().create_task(heartbeat())
        try:
            stall = Stall(pg_url, "cabinet.players")
            try:
                claim = asyncio.get_running_loop().create_task(front.ask_names("eve", "SHA256:eve", True))
                assert await until_true(lambda: asyncio.to_thread(waiting_on_a_lock, pg_url), STEP)
                before = beats
                await asyncio.sleep(0.3)
                assert not claim.done() and not stall.timed_out
                assert beats - before >= 5, "the loop stood still while the name was claimed"
            finally:
                await asyncio.to_thread(stall.release)
            assert await asyncio.wait_for(claim, STEP) is None
            assert await front.ask_names("eve", "SHA256:someone-else", True) == "The name eve belongs to another key."
        finally:
            beating.cancel()
            await front.offloop.close()
            store.close()

    asyncio.run(run())
