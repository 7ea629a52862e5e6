"""Two servers on one database, the database restarted mid-play: how long until every table moves again, what is lost.

    .venv/bin/python bench/pg_restart.py                 (40 tables, 80 players; under a minute)
    .venv/bin/python bench/pg_restart.py --down 5        (the database stopped 5 s, then started)
    .venv/bin/python bench/pg_restart.py --tables 100    (more)

Two hall processes (bench/_hall_server.py: ``cabinet serve``'s hall on the database, as
``--store`` runs it, without the SSH front) share a throwaway PostgreSQL cluster
(tests/pg.py, durable: fsync and synchronous_commit on).  Half the tables (2-player
L'Agent Jean!) are opened on each server; a table's first player plays on that server, its
second on the other one (through a follower), each thinking 0.5 to 1 s before a move.
After the warm-up the cluster is restarted as an administrator restarts it (``pg_ctl
restart -m fast``: every session ended at once), or with ``--down S`` stopped, left down S
seconds and started again.  A player whose connection ends joins the table again on the
same server every 0.1 s (the app tries every 2 s) until a server serves it there.  Measured:

* for each table, the seconds from the restart (the command issued) to its first move
  answered once the database is back, which includes its player's thought; the last
  table's is the figure (every table moves again), also counted from the database back
  (``pg_ctl`` returned: it accepts connections), the goal's;
* moves lost: the events a player was shown (a server shows a move once it is committed)
  that the table no longer has when the player joins it again (goal 0); the moves in flight
  (sent, and not answered when the connection ended) may be lost, and are counted apart, as
  are the moves a follower could not pass on while the database was away (made again);
* what the servers printed: tracebacks and unhandled exceptions (goal 0), and their lines
  saying they lost the database and have it again (one of each a server);
* a move's latency before the restart, and after every table went on (a window as long as
  the warm-up).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.net import machine, med, ms, pct, tree  # noqa: E402
from bench.takeover import Server, open_table, two_servers  # noqa: E402
from net.client import JoinError, RemoteTable  # noqa: E402
from net.protocol import Address, ProtocolError  # noqa: E402
from tests import pg  # noqa: E402

GOAL_RESUMED = 5.0  # seconds from the database back to a table's next move, every table
THINK = (0.5, 1.0)  # seconds a scripted player thinks before a move


@dataclass
class Table:
    id: str
    home: int  # the server it was opened on (its first player's; its second is on the other)
    first_move_after: float | None = None  # seconds from the restart to its first move answered after it
    reopened_after: float | None = None  # seconds from the restart to a seat of it open again (joined again)
    lost: int = 0  # events its players were shown and did not find again
    in_flight: int = 0  # moves sent, and not answered when their connection ended
    refused: int = 0  # moves a follower could not pass on (the database away), made again
    moves_after: int = 0  # moves answered in the window after every table went on
    done: bool = False


@dataclass
class Run:
    latencies: list[tuple[float, float]] = field(default_factory=list)  # (when answered, seconds)
    restarted_at: float | None = None  # the restart command issued
    back_at: float | None = None  # the database accepting connections again
    recovered: float = 0.0  # when every table had moved again (or 60 s passed)
    stop: bool = False


def common(a: list, b: list) -> int:
    """How many events the two lists begin with alike."""
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


async def seat_player(server: Server, table: Table, name: str, run: Run, rng: random.Random) -> None:
    """One scripted player at its seat, on one server, to the end of the run; joining again
    whenever its connection ends."""
    shown: list = []  # the events this seat was shown, as it was shown them
    while not run.stop and not table.done:
        remote = RemoteTable(Address(path=Path(server.socket)), token=server.tokens[name], table_id=table.id)
        try:
            await remote.connect(timeout=10)
        except JoinError:
            if run.restarted_at is None:
                raise
            await asyncio.sleep(0.1)  # the table is not served yet (or the database is away): again
            continue
        pending: tuple[float, int] | None = None  # when the last command was sent, and the events then
        first = True
        try:
            while not run.stop:
                message = await remote.receive()
                if message is None:
                    break  # hung up: the table moved, join it again
                if message.get("t") == "error" and pending is not None:
                    table.refused += 1  # not passed on (the database away): made again
                    pending = None
                    if remote.legal:
                        await asyncio.sleep(rng.uniform(*THINK))
                        pending = (time.monotonic(), len(remote.events))
                        remote.command(rng.choice(remote.legal))
                    continue
                if message.get("t") != "update":
                    continue
                remote.apply(message)
                now = time.monotonic()
                if first:
                    first = False
                    if shown:  # joined again: the table must still hold all it showed this seat
                        table.lost += len(shown) - common(shown, remote.events)
                        if run.restarted_at is not None and table.reopened_after is None:
                            table.reopened_after = now - run.restarted_at
                shown = list(remote.events)
                if pending is not None and len(remote.events) > pending[1]:
                    run.latencies.append((now, now - pending[0]))
                    if run.recovered and now > run.recovered:
                        table.moves_after += 1
                    if run.back_at is not None and now > run.back_at and table.first_move_after is None:
                        assert run.restarted_at is not None
                        table.first_move_after = now - run.restarted_at
                    pending = None
                if remote.outcome is not None:
                    table.done = True
                    break
                if remote.legal and pending is None:
                    await asyncio.sleep(rng.uniform(*THINK))
                    pending = (time.monotonic(), len(remote.events))
                    remote.command(rng.choice(remote.legal))
        except (OSError, EOFError, ProtocolError):
            pass  # the connection broke mid-frame
        finally:
            await remote.close()
        if pending is not None:
            table.in_flight += 1


async def bench(
    servers: list[Server], tables: int, warm: float, seed: int, cluster: Path, down: float
) -> tuple[list[Table], Run]:
    rng = random.Random(seed)
    run = Run()
    made: list[Table] = []
    for t in range(tables):
        home = t % 2
        made.append(Table(await open_table(servers[home], f"p{2 * t}", f"p{2 * t + 1}"), home))
    players = [
        asyncio.get_running_loop().create_task(
            seat_player(servers[(table.home + s) % 2], table, f"p{2 * i + s}", run, random.Random(rng.random()))
        )
        for i, table in enumerate(made)
        for s in (0, 1)
    ]
    began = time.monotonic()
    await asyncio.sleep(warm)
    run.restarted_at = time.monotonic()
    if down > 0:
        await asyncio.to_thread(pg.shut_down, cluster)
        await asyncio.sleep(down)
        await asyncio.to_thread(pg.start_again, cluster)
    else:
        await asyncio.to_thread(pg.restart, cluster)
    run.back_at = time.monotonic()
    deadline = run.restarted_at + 60
    while time.monotonic() < deadline and any(t.first_move_after is None and not t.done for t in made):
        await asyncio.sleep(0.1)
    run.recovered = time.monotonic()
    await asyncio.sleep(warm)  # a window as long as the warm-up, every table going on
    run.stop = True
    for task in players:
        task.cancel()
    for ended in await asyncio.gather(*players, return_exceptions=True):
        if isinstance(ended, Exception):
            print(f"  a player's task failed: {type(ended).__name__}: {ended}")
    run.latencies = [(when - began, seconds) for when, seconds in run.latencies]
    run.restarted_at -= began
    run.back_at -= began
    run.recovered -= began
    return made, run


def said(server: Server) -> tuple[int, int, int, int, tuple[str, int]]:
    """What a server printed: tracebacks, unhandled exceptions, lines saying it lost the database
    and has it again, and its line printed most often (and how often)."""
    lines = server.log.read_text(errors="replace").splitlines()
    text = "\n".join(lines)
    lost = sum(line.startswith("Lost the connection to ") for line in lines)
    back = sum(line.startswith("Connected again to ") for line in lines)
    # a table's own lines name it ("[k7f3mb] ..."): the same thing said every second would not
    common_line = Counter(line for line in lines if not line.startswith("[")).most_common(1)
    return (
        text.count("Traceback"),
        text.count("Unhandled exception"),
        lost,
        back,
        (common_line[0] if common_line else ("", 0)),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=40)
    parser.add_argument(
        "--warm", type=float, default=10.0, help="seconds of play before the restart, and after the recovery"
    )
    parser.add_argument(
        "--down", type=float, default=0.0, help="seconds the database stays stopped (0: pg_ctl restart)"
    )
    parser.add_argument("--seed", type=int, default=31)
    args = parser.parse_args(argv)
    names = [f"p{i}" for i in range(2 * args.tables)]
    print(f"# bench/pg_restart.py: {machine()}; {tree()}")
    cluster = Path(tempfile.mkdtemp(prefix="cabinet-pg-"))
    with two_servers(names, cluster) as servers:
        made, run = asyncio.run(bench(servers, args.tables, args.warm, args.seed, cluster, args.down))
        printed = [said(server) for server in servers]
        logs = [server.log.read_text(errors="replace").splitlines() for server in servers]

    how = f"stopped {args.down:g} s and started again" if args.down > 0 else "restarted (pg_ctl restart -m fast)"
    before = [s for when, s in run.latencies if when < run.restarted_at]
    after = [s for when, s in run.latencies if when > run.recovered]
    playing = [t for t in made if not (t.done and t.first_move_after is None)]
    gone_on = [t.first_move_after for t in playing if t.first_move_after is not None]
    stuck = [t for t in playing if t.first_move_after is None]
    reopened = [t.reopened_after for t in made if t.reopened_after is not None]
    lost = sum(t.lost for t in made)
    print(
        f"\n{args.tables} tables, {2 * args.tables} players (one of each table on each server); the database {how} "
        f"after {run.restarted_at:.1f} s, back {run.back_at - run.restarted_at:.2f} s later"
    )
    print(
        f"  moves answered: {len(before)} before the restart, {len(after)} in as long a window after every table went on"
    )
    print(f"  move latency before: p50 {ms(med(before))}, p95 {ms(pct(before, 0.95))}")
    if after:
        print(f"  move latency after:  p50 {ms(med(after))}, p95 {ms(pct(after, 0.95))}")
    away = run.back_at - run.restarted_at
    if gone_on:
        print(
            f"  every table moving again, from the restart issued: median {med(gone_on):.2f} s, p95 {pct(gone_on, 0.95):.2f} s, "
            f"the last {max(gone_on):.2f} s; from the database back: the last {max(gone_on) - away:.2f} s "
            f"(goal <= {GOAL_RESUMED:.0f} s, every table; with the player's {THINK[0]}-{THINK[1]} s of thought)"
        )
    if reopened:
        print(
            f"  (seats joined again by players whose connection ended: {len(reopened)}, "
            f"after a median of {med(reopened):.2f} s, the last {max(reopened):.2f} s)"
        )
    print(
        f"  tables that did not move again within 60 s: {len(stuck)}; finished before: {len(made) - len(playing)}; "
        f"moving in the window after: {sum(t.moves_after > 0 for t in made)}, finished by its end: {sum(t.done for t in made)}"
    )
    for table in stuck:
        print(f"  table {table.id} (opened on server {table.home}) did not move again; the servers said of it:")
        for i, lines in enumerate(logs):
            print("".join(f"    {i}: {line}\n" for line in lines if line.startswith(f"[{table.id}]")), end="")
    print(f"  events shown to a player and missing when it joined again: {lost} (goal 0)")
    print(
        f"  moves in flight when a connection ended (may be lost; made again): {sum(t.in_flight for t in made)}; "
        f"moves a follower could not pass on meanwhile (made again): {sum(t.refused for t in made)}"
    )
    for i, (tracebacks, unhandled, lost_lines, back_lines, (line, times)) in enumerate(printed):
        print(
            f"  server {i} printed: {tracebacks} tracebacks, {unhandled} unhandled exceptions; "
            f"'Lost the connection' {lost_lines}x, 'Connected again' {back_lines}x; "
            f"its line printed most often, {times}x: {line[:90]!r}"
        )
        if lost_lines != 1 or back_lines != 1:
            print("".join(f"    {line}\n" for line in logs[i] if not line.startswith("[")), end="")
    clean = all(t == u == 0 and lo == ba == 1 for t, u, lo, ba, _ in printed)
    ok = not stuck and gone_on and max(gone_on) - away <= GOAL_RESUMED and lost == 0 and clean
    print(f"  verdict: {'PASS' if ok else 'FAIL'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
