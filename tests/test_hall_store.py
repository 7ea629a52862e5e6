"""``cabinet serve``'s hall keeping its tables in a PostgreSQL database (a throwaway
cluster, see tests/pg.py) rather than in its data directory: stopped, and started again
with another data directory, every table is where it was; while one hall holds a table,
another on the same database does not serve it as its own (it lists it, naming the holder in
its log), and takes it once it is let go; and when the database restarts or stops a while,
the halls take every table again and play on.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from net.hall import Hall
from saves import load, open_store
from saves.postgres import PostgresStore
from tests.test_hall import STEP, lobby_of, play_random, two_tables_left
from tui.serve import of_database

pytest.importorskip("psycopg", reason="the PostgreSQL driver (the extra 'postgres') is not installed")


async def open_hall(data: Path, address: str, log: list[str] | None = None) -> Hall:
    hall = Hall(
        data, bot_delay=0.0, **of_database(PostgresStore(address)), log=(log.append if log is not None else None)
    )
    await hall.start()
    return hall


async def close_hall(hall: Hall) -> None:
    await hall.close()
    hall.store.close()


class Halls:
    """How a test opens a hall on either log store: ``await halls(name)``, a hall on the
    store's tables (files: in one data directory whatever ``name``; the database: from the
    data directory ``name``, another machine's)."""

    def __init__(self, kind: str, tmp_path: Path, url: str = "") -> None:
        self.kind, self.tmp_path, self.url = kind, tmp_path, url

    async def __call__(self, name: str) -> Hall:
        if self.kind == "files":
            hall = Hall(self.tmp_path / "files", bot_delay=0.0)
            await hall.start()
            return hall
        return await open_hall(self.tmp_path / name, self.url)


@pytest.fixture(params=["files", "postgresql"])
def halls(request, tmp_path: Path) -> Halls:
    if request.param == "files":
        return Halls("files", tmp_path)
    return Halls("postgresql", tmp_path, request.getfixturevalue("pg_url"))


def test_a_stopped_server_starts_again_with_every_table_where_it_was(tmp_path: Path, halls: Halls) -> None:
    """Over files (one server) or a database (another data directory: another machine), the
    same: every table resumed where it was, the same seat for the same name, a waiting table
    closed when its last player stands up; in a database, nothing is left in the data directory."""

    async def run() -> None:
        hall = await halls("first")
        versus_bot, waiting, played = await two_tables_left(hall)
        await close_hall(hall)
        if halls.kind == "postgresql":
            assert not list((tmp_path / "first").rglob("*.cabinet")) and not list((tmp_path / "first").rglob("*.table"))
            store = open_store(halls.url)
            try:
                assert (
                    versus_bot["table"] in store.tables() and waiting["table"] not in store.tables()
                )  # no game yet: no log
                assert {t for t, _ in store.lobby()} >= {versus_bot["table"], waiting["table"]}
                assert load(store.source(versus_bot["table"])).match.events[: len(played)] == played
            finally:
                store.close()

        again = await halls("elsewhere")
        try:
            resumed = again.tables[versus_bot["table"]]
            assert resumed.match is not None and resumed.match.events[: len(played)] == played
            assert resumed.seat_of("ann") == 0
            assert (
                again.tables[waiting["table"]].state() == "waiting"
                and again.tables[waiting["table"]].seat_of("ann") == 1
            )
            ann, task = await lobby_of(again, "ann")
            assert {t["id"] for t in ann.tables} >= {versus_bot["table"], waiting["table"]}
            remote = ann.table(versus_bot["table"])
            await remote.connect(timeout=STEP)
            assert remote.seat == 0  # the same seat, from the same name
            await asyncio.wait_for(play_random(remote, 6, stop_after=2), 60)
            await remote.close()
            reply = await ann.request({"t": "stand", "table": waiting["table"]})  # its last player: it closes
            assert reply["ok"] and reply["closed"] and waiting["table"] not in again.tables
            assert waiting["table"] not in {t for t, _ in again.store.lobby()}
            await ann.close()
            await asyncio.wait_for(task, STEP)
        finally:
            await close_hall(again)

    asyncio.run(run())


def test_a_second_hall_does_not_hold_the_tables_the_first_holds_until_it_lets_them_go(
    tmp_path: Path, pg_url: str
) -> None:
    async def run() -> None:
        first = await open_hall(tmp_path / "a", pg_url)
        ann, task = await lobby_of(first, "bea")
        made = await ann.request(
            {
                "t": "create",
                "game": "ministeres",
                "players": 2,
                "seats": [{}, {"kind": "bot", "level": "random"}],
                "sit": 0,
            }
        )
        assert made["started"]
        log: list[str] = []
        second = await open_hall(tmp_path / "b", pg_url, log)
        try:
            assert made["table"] not in second.tables
            assert any(
                line.startswith(f"Table {made['table']} is served by another server: ")
                and "is playing this game already" in line
                for line in log
            ), log
            assert made["table"] in second.elsewhere  # listed, and served here from the first's log if opened
        finally:
            await close_hall(second)
        await ann.close()
        await asyncio.wait_for(task, STEP)
        events = list(first.tables[made["table"]].match.events)
        await close_hall(first)  # every table let go
        third = await open_hall(tmp_path / "b", pg_url)
        try:
            assert third.tables[made["table"]].match.events == events
        finally:
            await close_hall(third)

    asyncio.run(run())


def test_cabinet_serve_keeps_its_tables_in_the_store_it_is_given(tmp_path: Path, pg_url: str) -> None:
    from tests.test_serve import Serve

    store = open_store(pg_url)
    # the tables the tests above left there and not finished (waiting, or in play): those it resumes
    logged = set(store.tables())
    kept = sum(1 for t, _ in store.lobby() if t not in logged or load(store.source(t)).match.outcome is None)
    store.close()
    server = Serve(tmp_path / "data", "--store", pg_url).start()
    try:
        line = server.wait_line(r"^Cabinet serves on ").string
        resumed = f"{kept} table" if kept == 1 else f"{kept} tables"  # as many as the tests before it here left
        assert f"({resumed} resumed; tables in PostgreSQL database cabinet_test_" in line
        assert line.endswith(f", the rest in {tmp_path / 'data'}).")
    finally:
        assert server.stop() == 0
    server.check_clean()


def test_cabinet_serve_refuses_a_store_it_cannot_use(tmp_path: Path, capsys) -> None:
    from cabinet.main import main
    from tests.test_cli import exit_code

    assert exit_code(["serve", "--data", str(tmp_path), "--store", str(tmp_path / "dir")]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        "cabinet serve: --store takes a PostgreSQL address, postgresql://USER@HOST/DATABASE (the files are --data's)"
    )
    assert main(["serve", "--data", str(tmp_path), "--store", f"postgresql://postgres@/cabinet?host={tmp_path}"]) == 1
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith(f"cabinet serve: Cannot reach PostgreSQL database cabinet on {tmp_path}: ")


SERVER_THAT_DIES = """
import asyncio, sys
from pathlib import Path
from net.hall import BotPool, Hall
from saves.postgres import PostgresStore
from tests.test_hall import STEP, lobby_of, play_random
from tui.serve import of_database

async def main():
    bots = BotPool()
    bots.unusable = True  # bots think in threads: no worker left behind when this process is killed
    hall = Hall(Path(sys.argv[1]), bot_delay=0.0, **of_database(PostgresStore(sys.argv[2])), bots=bots)
    await hall.start()
    cyd, _ = await lobby_of(hall, "cyd")
    made = await cyd.request({"t": "create", "game": "agent-jean", "players": 2,
                              "seats": [{}, {"kind": "bot", "level": "easy"}], "sit": 0})
    remote = cyd.table(made["table"])
    await remote.connect(timeout=STEP)
    await play_random(remote, 3, stop_after=4)
    print(made["table"], flush=True)
    await asyncio.Event().wait()

asyncio.run(main())
"""


def test_when_a_server_dies_another_takes_its_tables_over_from_the_log(tmp_path: Path, pg_url: str) -> None:
    import signal
    import subprocess
    import sys
    import time

    from tests.test_hall import until

    root = Path(__file__).resolve().parent.parent
    dying = subprocess.Popen(
        [sys.executable, "-c", SERVER_THAT_DIES, str(tmp_path / "a"), pg_url],
        cwd=root,
        stdout=subprocess.PIPE,
        text=True,
    )

    async def run() -> None:
        log: list[str] = []
        survivor = Hall(
            tmp_path / "b", bot_delay=0.0, **of_database(PostgresStore(pg_url)), log=log.append, take_over_every=0.1
        )
        await survivor.start()
        try:
            assert dying.stdout is not None
            table_id = (await asyncio.to_thread(dying.stdout.readline)).strip()
            await asyncio.sleep(0.3)  # a few looks: the table is held, so left alone, without a word
            assert table_id not in survivor.tables and not any(table_id in line for line in log), log
            dying.send_signal(signal.SIGKILL)
            killed = time.monotonic()
            assert await until(lambda: table_id in survivor.tables, tries=250)
            assert time.monotonic() - killed < 5.0
            assert f"[{table_id}] taken over from its log." in log
            store = open_store(pg_url)
            committed = load(store.source(table_id)).match.events
            store.close()
            match = survivor.tables[table_id].match
            assert match is not None and match.events[: len(committed)] == committed and len(match.moves) >= 5
            cyd, task = await lobby_of(survivor, "cyd")  # the player comes back, to this server
            remote = cyd.table(table_id)
            await remote.connect(timeout=STEP)
            assert remote.seat == 0
            await asyncio.wait_for(play_random(remote, 4, stop_after=2), 60)  # and plays on
            await remote.close()
            await cyd.close()
            await asyncio.wait_for(task, STEP)
        finally:
            await close_hall(survivor)

    try:
        asyncio.run(run())
    finally:
        dying.kill()
        dying.wait(10)


# -- the database restarts, or stops a while ------------------------------------------------------


async def join_again(client, table_id: str, timeout: float = 30.0):
    """The table joined again as the app joins it: again and again (a bye with its sentence
    meanwhile) until a hall serves it, for ``timeout`` seconds at most."""
    from net.client import JoinError

    deadline = time.monotonic() + timeout
    while True:
        remote = client.table(table_id)
        try:
            await remote.connect(timeout=STEP)
            return remote
        except JoinError as exc:
            if time.monotonic() > deadline:
                raise AssertionError(f"table {table_id} could not be joined again: {exc}") from None
        await asyncio.sleep(0.1)


async def refused_while_down(client, table_id: str) -> str:
    """The sentence a try to join the table is refused in, the database away."""
    from net.client import JoinError

    try:
        await client.table(table_id).connect(timeout=STEP)
    except JoinError as exc:
        return str(exc)
    raise AssertionError(f"table {table_id} was joined with the database away")


async def plays_on(client, table_id: str, seed: int) -> None:
    """The player joins the table again and makes two moves; joined where it is served meanwhile
    (a follower here, closed when this hall takes the table over), it joins again and goes on."""
    made = 0
    while made < 2:
        remote = await join_again(client, table_id)
        made += await asyncio.wait_for(play_random(remote, seed + made, stop_after=2 - made), 60)
        await remote.close()


def test_halls_on_a_database_that_restarts_or_stops_a_while_play_on(tmp_path: Path, pg_cluster) -> None:
    """Two halls, a table held by each. The database restarts: every table is let go (its
    lease went with the restart) and taken over again, and its player plays on, with every
    committed move. The database stops a while: a player who joins a table meanwhile, or asks
    the lobby, is told in a sentence (no exception escapes into the event loop), and once it
    starts again every table plays on. Each hall says once that it lost the database, and once
    that it has it again, never the same failure every second."""
    from net.hall import UNREACHABLE
    from tests.test_hall import until

    url = pg_cluster.url

    async def run() -> None:
        unhandled: list[dict] = []
        asyncio.get_running_loop().set_exception_handler(lambda loop, context: unhandled.append(context))
        logs: list[list[str]] = [[], []]
        halls: list[Hall] = []
        for name, log in zip("ab", logs, strict=True):
            hall = Hall(
                tmp_path / name, bot_delay=0.0, **of_database(PostgresStore(url)), log=log.append, take_over_every=0.1
            )
            await hall.start()
            halls.append(hall)
        try:
            players = []
            for hall, name in zip(halls, ("ann", "bob"), strict=True):
                client, task = await lobby_of(hall, name)
                made = await client.request(
                    {
                        "t": "create",
                        "game": "agent-jean",
                        "players": 2,
                        "seats": [{}, {"kind": "bot", "level": "random"}],
                        "sit": 0,
                    }
                )
                assert made["started"] and made["table"] in hall.tables
                players.append((client, task, made["table"]))
                await plays_on(client, made["table"], len(players))
            tables = [table for _, _, table in players]

            def committed() -> dict[str, list]:
                store = open_store(url)
                try:
                    return {table: load(store.source(table)).match.events for table in tables}
                finally:
                    store.close()

            def held_once() -> bool:
                return all(sum(table in hall.tables for hall in halls) == 1 for table in tables)

            for stop in ("restart", "stop a while"):
                before = committed()
                if stop == "restart":
                    await asyncio.to_thread(pg_cluster.restart)
                else:
                    marks = [len(log) for log in logs]
                    await asyncio.to_thread(pg_cluster.shut_down)
                    assert await until(
                        lambda marks=marks: all(
                            any(line.startswith("Lost the connection to ") for line in log[mark:])
                            for log, mark in zip(logs, marks, strict=True)
                        ),
                        tries=1500,
                    )
                    assert await until(
                        lambda: not any(table in hall.tables for hall in halls for table in tables), tries=1500
                    )
                    client = players[0][0]
                    # the issue's traceback: a table opened with the database away ("Unhandled exception
                    # in client_connected_cb", a SaveError out of Hall.follow); now a sentence
                    assert await refused_while_down(client, tables[0]) == f"Could not join: {UNREACHABLE}"
                    reply = await client.request(
                        {
                            "t": "create",
                            "game": "agent-jean",
                            "players": 2,
                            "seats": [{}, {"kind": "bot", "level": "random"}],
                            "sit": 0,
                        }
                    )
                    assert not reply["ok"] and reply["message"] == UNREACHABLE, reply
                    await asyncio.to_thread(pg_cluster.start_again)
                for client, _, table in players:
                    await plays_on(client, table, 7)
                assert await until(held_once, tries=1500)  # one writer a table again

                async def played_on(before: dict[str, list] = before) -> bool:
                    # (a move passed on by a follower may still be on its way)
                    after = await asyncio.to_thread(committed)
                    assert all(after[table][: len(before[table])] == before[table] for table in tables)
                    return all(len(after[table]) > len(before[table]) for table in tables)

                for _ in range(250):
                    if await played_on():
                        break
                    await asyncio.sleep(0.02)
                assert await played_on()
                # the outage over for each hall (every one of its connections made again) before
                # the next: one still mending would make the next one part of this one, unsaid
                outages = 1 if stop == "restart" else 2
                assert await until(
                    lambda outages=outages: all(
                        sum(line.startswith("Connected again to ") for line in log) == outages for log in logs
                    ),
                    tries=1500,
                )
            for client, task, _ in players:
                await client.close()
                await asyncio.wait_for(task, STEP)
        finally:
            for hall in halls:
                await close_hall(hall)
            for name, log in zip("ab", logs, strict=True):
                print(f"-- hall {name} said --", *log, sep="\n")  # shown if the test fails
        assert not unhandled, unhandled
        for log in logs:
            assert len([line for line in log if line.startswith("Lost the connection to ")]) == 2, log
            assert len([line for line in log if line.startswith("Connected again to ")]) == 2, log
            # nothing else says the database failed: a table's lost lease is said once a table
            said = [line for line in log if "PostgreSQL database" in line and "Could not save table" not in line]
            assert len(said) == 4, log

    asyncio.run(run())
