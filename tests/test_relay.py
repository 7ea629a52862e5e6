"""Several halls on one PostgreSQL database (a throwaway cluster, see tests/pg.py): every
hall lists every table, a player on any hall sits and plays at any table, the seats and
spectators on a hall that does not hold the table see its moves (each only what its seat
may see), their commands and take-backs are played by the table's hall and refused in its
sentences, who is away is known everywhere, the last free seat goes to one player when two
halls race for it, and a table whose hall dies goes on at another with every committed move.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import msgpack
import pytest

from net.client import RemoteTable
from net.hall import Hall
from saves import load, open_store
from saves.postgres import PostgresStore
from table import Table
from tests.test_hall import STEP, Audit, listed, lobby_of, play_random, until
from tui.serve import of_database

pytest.importorskip("psycopg", reason="the PostgreSQL driver (the extra 'postgres') is not installed")


class Served:
    """A hall as an Audit looks at it: the tables it holds and those it follows."""

    def __init__(self, hall: Hall) -> None:
        self.hall = hall

    @property
    def tables(self) -> dict[str, Any]:
        return {**self.hall.followers, **self.hall.tables}


async def open_hall(data: Path, address: str, audit: Audit | None = None, **options: Any) -> Hall:
    hall = Hall(data, **of_database(PostgresStore(address)), on_send=audit, **{"bot_delay": 0.0, **options})
    if audit is not None:
        audit.hall = Served(hall)  # type: ignore[assignment]
    await hall.start()
    return hall


async def close_hall(hall: Hall) -> None:
    await hall.close()
    hall.store.close()


async def leave(*sessions: tuple[Any, asyncio.Task[None]]) -> None:
    """Close each session's lobby (and whatever else it holds), and wait for its listener."""
    for client, task in sessions:
        await client.close()
        await asyncio.wait_for(task, STEP)


async def next_update(remote: RemoteTable, ready=lambda remote: True) -> list[dict[str, Any]]:
    """Messages until an update after which ``ready(remote)``; the others met on the way."""
    others = []
    while True:
        message = await asyncio.wait_for(remote.receive(), STEP)
        assert message is not None, others
        if message["t"] == "update":
            remote.apply(message)
            if ready(remote):
                return others
        else:
            others.append(message)


def test_a_table_opened_on_one_hall_is_played_from_both_each_seat_seeing_only_its_own(
    tmp_path: Path, pg_url: str
) -> None:
    audits = (Audit(), Audit())

    async def run() -> None:
        a = await open_hall(tmp_path / "a", pg_url, audits[0])
        b = await open_hall(tmp_path / "b", pg_url, audits[1])
        try:
            ann, ann_task = await lobby_of(a, "ann")
            bob, bob_task = await lobby_of(b, "bob")
            made = await ann.request({"t": "create", "game": "agent-jean", "players": 2, "seats": [{}, {}], "sit": 0})
            assert made["ok"] and not made["started"], made
            table_id = made["table"]
            # hall b lists it, waiting for a player; bob, on hall b, sits there: b starts it
            assert await until(lambda: (listed(bob, table_id) or {}).get("state") == "waiting")
            assert [s["user"] for s in listed(bob, table_id)["seats"]] == ["ann", None]
            sat = await bob.request({"t": "sit", "table": table_id, "seat": 1})
            assert sat["ok"] and sat["started"], sat
            assert b.tables[table_id].server is not None
            assert await until(lambda: table_id not in a.tables and table_id in a.elsewhere)  # a heard of it
            assert await until(lambda: (listed(ann, table_id) or {}).get("state") == "playing")

            # ann plays from hall a (a follower of b's table), bob at b; cy watches from a
            at_a, at_b = ann.table(table_id), bob.table(table_id)
            await at_a.connect(timeout=STEP)
            await at_b.connect(timeout=STEP)
            assert (at_a.seat, at_b.seat) == (0, 1) and table_id in a.followers
            cy, cy_task = await lobby_of(a, "cy")
            watcher = cy.table(table_id)
            await watcher.connect(timeout=STEP)
            assert watcher.seat == "public"
            await next_update(at_a)
            await next_update(at_b)

            # a command ann may not play, from hall a: the table's hall refuses it, in its sentence
            idle = at_a if 0 not in at_a.active else at_b
            other = at_b if idle is at_a else at_a
            mover = other.legal[0]
            idle.command(mover)
            others = await asyncio.wait_for(_until_error(idle), STEP)
            assert others["message"] == "It is not your move.", others

            # ann leaves the table: bob, at b, sees her away, and both lobbies say so; she comes back
            await at_a.close()
            await next_update(at_b, lambda remote: remote.away == [0])
            assert await until(lambda: ((listed(bob, table_id) or {}).get("seats") or [{}])[0].get("away") is True)
            assert await until(lambda: ((listed(ann, table_id) or {}).get("seats") or [{}])[0].get("away") is True)
            at_a = ann.table(table_id)
            await at_a.connect(timeout=STEP)
            await next_update(at_b, lambda remote: remote.away == [])
            assert await until(lambda: ((listed(cy, table_id) or {}).get("seats") or [{}])[0].get("away") is False)

            # both play to the end, each seeing the other's moves; the watcher sees them too
            await at_b.close()  # bob joins again, so that his play starts from a fresh update
            at_b = bob.table(table_id)
            await at_b.connect(timeout=STEP)
            await asyncio.wait_for(asyncio.gather(play_random(at_a, 1), play_random(at_b, 2)), 240)
            match = b.tables[table_id].match
            assert match is not None and match.outcome is not None
            assert await until(lambda: a.followers[table_id].match.events == match.events)
            assert await until(lambda: (listed(cy, table_id) or {}).get("state") == "finished")
            assert at_a.events and len(at_a.events) == len(match.events) == len(at_b.events)
            for client in (at_a, at_b, watcher):
                await client.close()
            assert await until(lambda: table_id not in a.followers)  # nobody at a follows it any more
            await leave((ann, ann_task), (bob, bob_task), (cy, cy_task))
        finally:
            await close_hall(a)
            await close_hall(b)

    asyncio.run(run())
    for audit in audits:
        assert not audit.failures, audit.failures[:3]
    assert audits[0].sent > 10 and audits[1].sent > 10
    # a sent the follower's seat and its spectator their updates; b its own seat's
    # (the audits checked each against the seat's own view, legal moves and redacted events)


async def _until_error(remote: RemoteTable) -> dict[str, Any]:
    while True:
        message = await remote.receive()
        assert message is not None
        if message["t"] == "update":
            remote.apply(message)
        elif message["t"] == "error":
            return message


def test_a_move_taken_back_from_another_hall_is_taken_back_everywhere(tmp_path: Path, pg_url: str) -> None:
    async def run() -> None:
        a = await open_hall(tmp_path / "a", pg_url, bot_delay=30.0)  # the take-back comes before the bot's move
        b = await open_hall(tmp_path / "b", pg_url)
        try:
            ann, ann_task = await lobby_of(a, "ann")
            made = await ann.request(
                {
                    "t": "create",
                    "game": "chirac-mitterrand",
                    "players": 2,
                    "seats": [{}, {"kind": "bot", "level": "easy"}],
                    "sit": 0,
                }
            )
            assert made["started"] and made["table"] in a.tables
            table_id = made["table"]
            owner = a.tables[table_id].match
            again, again_task = await lobby_of(b, "ann")  # ann in another session, on hall b
            remote = again.table(table_id)
            await remote.connect(timeout=STEP)
            assert remote.seat == 0 and table_id in b.followers
            await next_update(remote, lambda r: bool(r.legal) and 0 in r.active)
            start = len(remote.events)
            remote.command(remote.legal[0])
            await next_update(remote, lambda r: len(r.events) > start)
            if Table(owner).takeback_point(0) is None:
                pytest.skip("this opening move cannot be taken back")
            remote.takeback()
            others = await next_update(remote, lambda r: r.reset)
            assert len(remote.events) == start == len(owner.events) == len(b.followers[table_id].match.events)
            assert remote.view == msgpack.unpackb(msgpack.packb(owner.game.view(owner.state, 0)), raw=False)
            while not others:
                message = await asyncio.wait_for(remote.receive(), STEP)
                others.append(message)
            assert {"t": "info", "message": "Move taken back."} in others
            await remote.close()
            await leave((ann, ann_task), (again, again_task))
        finally:
            await close_hall(a)
            await close_hall(b)

    asyncio.run(run())


def test_two_halls_racing_for_the_last_seat_give_it_to_one_player(tmp_path: Path, pg_url: str) -> None:
    async def run() -> None:
        a = await open_hall(tmp_path / "a", pg_url)
        b = await open_hall(tmp_path / "b", pg_url)
        try:
            ann, ann_task = await lobby_of(a, "ann")
            made = await ann.request({"t": "create", "game": "agent-jean", "players": 2, "seats": [{}, {}], "sit": 0})
            table_id = made["table"]
            bob, bob_task = await lobby_of(a, "bob")
            cy, cy_task = await lobby_of(b, "cy")
            assert await until(lambda: listed(cy, table_id) is not None)
            # both ask at once: whichever comes second finds the seat taken, though its hall
            # had not heard of the first yet
            replies = await asyncio.gather(
                bob.request({"t": "sit", "table": table_id, "seat": 1}),
                cy.request({"t": "sit", "table": table_id, "seat": 1}),
            )
            assert sorted(r["ok"] for r in replies) == [False, True], replies
            refused = next(r for r in replies if not r["ok"])
            assert refused["message"] == "That table has started: watch it instead."
            winner = "bob" if replies[0]["ok"] else "cy"
            owner = a if winner == "bob" else b
            assert owner.tables[table_id].server is not None
            assert owner.tables[table_id].match.header["seats"][1]["name"] == winner
            await leave((ann, ann_task), (bob, bob_task), (cy, cy_task))
        finally:
            await close_hall(a)
            await close_hall(b)

    asyncio.run(run())


def test_a_lobby_record_changed_by_two_processes_at_once_keeps_both_changes(tmp_path: Path, pg_url: str) -> None:
    first, second = open_store(pg_url), open_store(pg_url)
    try:
        first.keep_lobby("race01", msgpack.packb([]))
        inside = threading.Event()

        def slow(record: bytes | None) -> bytes:
            inside.set()
            threading.Event().wait(0.3)  # the other waits for the row meanwhile
            return msgpack.packb([*msgpack.unpackb(record), "first"])

        def quick(record: bytes | None) -> bytes:
            return msgpack.packb([*msgpack.unpackb(record), "second"])

        worker = threading.Thread(target=first.update_lobby, args=("race01", slow))
        worker.start()
        inside.wait(5)
        second.update_lobby("race01", quick)
        worker.join(5)
        assert msgpack.unpackb(dict(first.lobby())["race01"]) == ["first", "second"]
    finally:
        first.forget_lobby("race01")
        first.close()
        second.close()


SERVER_THAT_DIES = """
import asyncio, sys
from pathlib import Path
from net.hall import BotPool, Hall
from saves.postgres import PostgresStore
from tests.test_hall import STEP, lobby_of, play_random
from tui.serve import of_database

async def main():
    bots = BotPool()
    bots.unusable = True  # no worker left behind when this process is killed
    hall = Hall(Path(sys.argv[1]), bot_delay=0.0, **of_database(PostgresStore(sys.argv[2])), bots=bots)
    await hall.start()
    cyd, _ = await lobby_of(hall, "cyd")
    sat = await cyd.request({"t": "sit", "table": sys.argv[3]})
    assert sat["ok"] and sat["started"], sat
    remote = cyd.table(sys.argv[3])
    await remote.connect(timeout=STEP)
    print("started", flush=True)
    while True:  # cyd's moves, whenever cyd is to move, until this process is killed
        try:
            await play_random(remote, 3)
        except asyncio.TimeoutError:
            continue
        await asyncio.Event().wait()

asyncio.run(main())
"""


def test_when_the_tables_hall_dies_the_player_on_another_hall_plays_on_there(tmp_path: Path, pg_url: str) -> None:
    import signal
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent

    async def run() -> None:
        log: list[str] = []
        survivor = await open_hall(tmp_path / "b", pg_url, log=log.append, take_over_every=0.1)
        dying = None
        try:
            dan, dan_task = await lobby_of(survivor, "dan")
            made = await dan.request({"t": "create", "game": "agent-jean", "players": 2, "seats": [{}, {}], "sit": 0})
            table_id = made["table"]
            # another server process seats the last player: it holds the table
            dying = subprocess.Popen(
                [sys.executable, "-c", SERVER_THAT_DIES, str(tmp_path / "a"), pg_url, table_id],
                cwd=root,
                stdout=subprocess.PIPE,
                text=True,
            )
            assert dying.stdout is not None
            assert (await asyncio.to_thread(dying.stdout.readline)).strip() == "started"
            remote = dan.table(table_id)
            await remote.connect(timeout=STEP)
            assert remote.seat == 0 and table_id in survivor.followers and table_id not in survivor.tables
            await asyncio.wait_for(play_random(remote, 4, stop_after=3), 60)  # now dan is to move
            seen = len(remote.events)
            dying.send_signal(signal.SIGKILL)
            # the survivor takes the table over; dan's connection is told to join again
            message = await asyncio.wait_for(_bye(remote), STEP)
            assert message == {
                "t": "bye",
                "message": "This table's server changed; you are back at it in a moment.",
                "come_back": True,
            }
            assert table_id in survivor.tables and table_id not in survivor.followers
            assert f"[{table_id}] taken over from its log." in log
            store = open_store(pg_url)
            committed = load(store.source(table_id)).match.events
            store.close()
            match = survivor.tables[table_id].match
            assert match is not None and match.events == committed and len(committed) >= seen
            remote = dan.table(table_id)
            await remote.connect(timeout=STEP)
            await next_update(remote)
            assert remote.seat == 0 and len(remote.events) == len(committed) and remote.legal
            remote.command(remote.legal[0])
            await next_update(remote, lambda r: len(r.events) > len(committed))
            assert len(match.events) > len(committed)
            await remote.close()
            await leave((dan, dan_task))
        finally:
            if dying is not None:
                dying.kill()
                dying.wait(10)
            await close_hall(survivor)

    asyncio.run(run())


async def _bye(remote: RemoteTable) -> dict[str, Any]:
    """The bye that ends the connection; the updates before it applied."""
    while True:
        message = await remote.receive()
        assert message is not None
        if message["t"] == "update":
            remote.apply(message)
        if message["t"] == "bye":
            return message


@pytest.mark.parametrize("moving", [True, False], ids=["found-by-a-move", "found-idle"])
def test_a_hall_that_loses_a_tables_lease_lets_it_go_and_its_player_plays_on_from_the_new_holder(
    tmp_path: Path, pg_url: str, moving: bool
) -> None:
    import psycopg

    async def run() -> None:
        log: list[str] = []
        # found idle: hall a's own look at its leases finds it (then a or b takes the table over)
        a = await open_hall(tmp_path / "a", pg_url, log=log.append, take_over_every=None if moving else 0.1)
        b = await open_hall(tmp_path / "b", pg_url, take_over_every=0.1)
        try:
            ann, ann_task = await lobby_of(a, "ann")
            made = await ann.request(
                {
                    "t": "create",
                    "game": "agent-jean",
                    "players": 2,
                    "seats": [{}, {"kind": "bot", "level": "random"}],
                    "sit": 0,
                }
            )
            table_id = made["table"]
            remote = ann.table(table_id)
            await remote.connect(timeout=STEP)
            await asyncio.wait_for(play_random(remote, 5, stop_after=2), 60)  # ann is to move
            # the database ends hall a's connection for leases (a restart, a network cut would)
            lease = a.store.leases.conn
            assert lease is not None
            with psycopg.connect(pg_url, autocommit=True) as admin:
                admin.execute("SELECT pg_terminate_backend(%s)", (lease.info.backend_pid,))
            shown = len(remote.events)
            if moving:
                remote.command(remote.legal[0])  # it cannot be saved: hall a lets the table go
            message = await asyncio.wait_for(_bye(remote), STEP)
            assert (
                message["message"] == "This table's server changed; you are back at it in a moment."
                and message["come_back"]
            )
            assert len(remote.events) == shown  # a move that was not saved is never shown played
            if moving:
                assert any(line.startswith(f"[{table_id}] Could not save table {table_id}: ") for line in log), log
            assert f"[{table_id}] Its lease is lost: this server serves it no more." in log
            assert await until(lambda: table_id in b.tables or table_id in a.tables)  # taken over from its log
            holder = b if table_id in b.tables else a
            committed = holder.tables[table_id].match.events
            remote = ann.table(table_id)  # ann, still on hall a, joins it again (through a follower if b holds it)
            await remote.connect(timeout=STEP)
            assert remote.seat == 0 and (table_id in a.followers) == (holder is b)
            await next_update(remote)
            assert len(remote.events) == len(committed)  # the move in flight is lost, nothing else
            if not remote.legal:  # the bot is to move first
                await next_update(remote, lambda r: bool(r.legal))
            done = len(remote.events)
            remote.command(remote.legal[0])
            await next_update(remote, lambda r: len(r.events) > done)
            assert len(holder.tables[table_id].match.events) > done
            await remote.close()
            await leave((ann, ann_task))
        finally:
            await close_hall(a)
            await close_hall(b)

    asyncio.run(run())


def test_a_move_passed_on_that_the_tables_hall_cannot_save_is_to_be_made_again(tmp_path: Path, pg_url: str) -> None:
    """Bob plays at hall b a table hall a holds; hall a loses its lease (the database ended its
    connection, as a restart does) just before it plays Bob's move: the move cannot be saved,
    so Bob is told to make it again (never "ok" for a move the log will not hold), is never
    shown it, and makes it again once the table is taken over."""
    import psycopg

    from net.hall import MOVED, NOT_SAVED

    async def run() -> None:
        a = await open_hall(tmp_path / "a", pg_url)  # no look of its own at its leases: the move finds it
        b = await open_hall(tmp_path / "b", pg_url, take_over_every=0.1)
        try:
            ann, ann_task = await lobby_of(a, "ann")
            bob_at_a, bob_at_a_task = await lobby_of(a, "bob")
            bob, bob_task = await lobby_of(b, "bob")
            made = await ann.request({"t": "create", "game": "agent-jean", "players": 2, "seats": [{}, {}], "sit": 0})
            table_id = made["table"]
            sat = await bob_at_a.request({"t": "sit", "table": table_id, "seat": 1})  # seated at a: a holds it
            assert sat["started"] and table_id in a.tables
            at_a, at_b = ann.table(table_id), bob.table(table_id)
            await at_a.connect(timeout=STEP)
            await at_b.connect(timeout=STEP)
            assert table_id in b.followers
            await next_update(at_b)
            while not at_b.legal:  # ann moves until it is bob's move
                await next_update(at_a, lambda remote: bool(remote.legal))
                at_a.command(at_a.legal[0])
                await next_update(at_b, lambda remote: bool(remote.legal) or len(remote.events) > len(at_a.events))
            shown = len(at_b.events)
            lease = a.store.leases.conn
            assert lease is not None
            with psycopg.connect(pg_url, autocommit=True) as admin:
                admin.execute("SELECT pg_terminate_backend(%s)", (lease.info.backend_pid,))
            at_b.command(at_b.legal[0])
            refused = await asyncio.wait_for(_until_error(at_b), STEP)
            assert refused["message"] == NOT_SAVED and len(at_b.events) == shown
            # hall b takes the table over; bob's follower there hangs up, he joins again and plays
            bye = await asyncio.wait_for(_bye(at_b), STEP)
            assert bye["message"] == MOVED
            assert await until(lambda: table_id in b.tables)
            at_b = bob.table(table_id)
            await at_b.connect(timeout=STEP)
            await next_update(at_b)
            assert len(at_b.events) == shown and at_b.legal
            at_b.command(at_b.legal[0])
            await next_update(at_b, lambda remote: len(remote.events) > shown)
            for remote in (at_a, at_b):
                await remote.close()
            await leave((ann, ann_task), (bob_at_a, bob_at_a_task), (bob, bob_task))
        finally:
            await close_hall(a)
            await close_hall(b)

    asyncio.run(run())


def test_a_table_left_full_and_not_started_by_a_hall_that_died_is_started_by_another(
    tmp_path: Path, pg_url: str, monkeypatch
) -> None:
    """The hall that seats a table's last player starts it at once; should it die between the
    two, the table would wait for ever, full: after STALLED seconds another hall starts it."""
    import net.hall
    from net.hall import Table

    monkeypatch.setattr(net.hall, "STALLED", 0.5)

    async def run() -> None:
        log: list[str] = []
        b = await open_hall(tmp_path / "b", pg_url, log=log.append, take_over_every=0.1)
        try:
            # what a dead hall left: both seats taken in the lobby record, and no log
            table = Table(
                "stall1",
                "agent-jean",
                2,
                [{"kind": "human", "user": "ann"}, {"kind": "human", "user": "bob"}],
                {},
                "ann",
                0.0,
            )
            b.store.keep_lobby(table.id, msgpack.packb(table.record(), use_bin_type=True))
            assert await until(lambda: "stall1" in b.tables and b.tables["stall1"].server is not None, tries=200)
            assert any("started here" in line for line in log), log
            assert load(b.store.source("stall1")).match.header["seats"][1]["name"] == "bob"
            # and it is played: ann, on this hall, opens it and finds her seat
            ann, ann_task = await lobby_of(b, "ann")
            remote = ann.table("stall1")
            await remote.connect(timeout=STEP)
            assert remote.seat == 0
            await next_update(remote)
            await remote.close()
            await leave((ann, ann_task))
        finally:
            await close_hall(b)

    asyncio.run(run())
