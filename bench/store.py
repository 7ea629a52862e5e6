"""The PostgreSQL store against save files: two ratios, both sides measured in the same run.

    .venv/bin/python bench/store.py            (from the repo root; about a minute)
    .venv/bin/python bench/store.py --quick    (fewer repetitions)

1. Appending a move, durable on both sides: ``Match.submit`` with a
   ``SaveWriter`` on a save file (write, flush, fsync) against the same with a
   writer on a table of the database (one INSERT, committed: the commit waits
   for the WAL to reach the disk).  Two matches of L'Agent Jean! on the same
   seed are played in lockstep, the same command to both, each move timed on one
   side then the other (which side first alternates), so that the game's own work
   (decide, evolve) is the same on both sides and the difference is the store's.
   A third match with no writer gives the game's share, for information.
2. Opening a 10,000-event table: ``saves.load`` of the 10,000-event save of
   bench/fixtures.py from its file, against ``saves.load`` of the same game
   written to a table of the database by a ``SaveWriter`` (so sealed by the
   database's writers, and folded, as the file is by its directory's): reading
   the rows, checking every checksum and link, decoding and folding.

The database is a throwaway cluster (tests/pg.py) on a Unix socket, in the same
temporary directory's file system as the save files, with fsync on (the
default): both sides wait for the same disk.  Benchmarks are run on demand;
nothing here is part of the test run.  See docs/PERFORMANCE.md.
"""

from __future__ import annotations

import argparse
import gc
import random
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import fixtures  # noqa: E402
from bench.net import machine, med, ms, pct, tree  # noqa: E402
from saves import SaveWriter, load, open_store  # noqa: E402
from table import Table  # noqa: E402
from tests import pg  # noqa: E402
from tui.session import new_match  # noqa: E402

GOAL_APPEND = 3.0  # x the file store's durable append
GOAL_OPEN = 2.0  # x opening the same log from a file
PLAYERS = 3


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def bench_append(store, directory: Path, moves: int, seed: int) -> dict[str, list[float]]:
    """Seconds a move takes to submit, with a writer on each side (and with none)."""
    game = fixtures.GAMES["agent-jean"]
    times: dict[str, list[float]] = {"files": [], "postgresql": [], "no writer": []}
    rng = random.Random(seed)
    table = 0
    while len(times["files"]) < moves:
        table += 1
        table_seed = rng.getrandbits(32)
        controllers = [{"kind": "human"}] * PLAYERS
        sides = {
            name: new_match(game, PLAYERS, controllers=controllers, seed=table_seed, bot_seed=table_seed)
            for name in times
        }
        writers = [
            SaveWriter(directory / f"t{table}.cab", sides["files"]),
            SaveWriter(store.hold(f"t{table}"), sides["postgresql"]),
        ]
        # each side's moves as a table plays them: the rules' step, then the save's
        tables = {
            "files": Table(sides["files"], writers[0]),
            "postgresql": Table(sides["postgresql"], writers[1]),
            "no writer": Table(sides["no writer"]),
        }
        order = list(times)
        try:
            while sides["no writer"].active() and len(times["files"]) < moves:
                lead = tables["no writer"]
                seat = lead.active()[0]
                command = lead.bot_move(seat)
                order = order[1:] + order[:1]  # each side first in turn
                for name in order:
                    gc.collect()
                    t0 = time.perf_counter()
                    refusal = tables[name].submit(seat, command)
                    times[name].append(time.perf_counter() - t0)
                    assert refusal is None, refusal
        finally:
            for writer in writers:
                writer.close()
        for writer in writers:
            assert writer.error is None, writer.error
    return times


def bench_open(store, directory: Path, reps: int) -> dict[str, list[float]]:
    path = fixtures.long_save(directory / "long.cab")
    loaded = load(path, fixtures.GAMES)
    assert loaded.sealed
    with SaveWriter(store.hold("long"), loaded.match, times=loaded.times):
        pass  # the whole log written at once, as a writer does after a take-back
    in_db = load(store.source("long"), fixtures.GAMES)
    assert in_db.sealed and in_db.match.events == loaded.match.events
    events = len(loaded.match.events)
    opens = {
        "files": lambda: load(path, fixtures.GAMES),
        "postgresql": lambda: load(store.source("long"), fixtures.GAMES),
    }
    # the bytes alone (what differs between the two sides), for where the time goes
    reads = {"files": path.read_bytes, "postgresql": lambda: store.read("long")}
    times: dict[str, list[float]] = {"files": [], "postgresql": [], "read files": [], "read postgresql": []}
    for i in range(reps):
        for name in ("files", "postgresql") if i % 2 == 0 else ("postgresql", "files"):
            for prefix, calls in (("", opens), ("read ", reads)):
                gc.collect()
                t0 = time.perf_counter()
                calls[name]()
                times[prefix + name].append(time.perf_counter() - t0)
    times["events"] = [float(events)]
    times["bytes"] = [float(path.stat().st_size)]
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--seed", type=int, default=19)
    args = parser.parse_args(argv)
    moves, reps = (100, 5) if args.quick else (400, 15)
    print(f"# bench/store.py: {machine()}; {tree()}")
    with tempfile.TemporaryDirectory(prefix="cabinet-store-bench-") as tmp:
        # beside it, not in it: the cluster's user (postgres, when we are root) must reach it
        cluster = Path(tempfile.mkdtemp(prefix="cabinet-pg-"))
        saves_dir = Path(tmp) / "saves"
        saves_dir.mkdir()
        address = pg.start(cluster, durable=True)
        try:
            base = pg.fresh_database(address)
            store = open_store(base)
            (version,) = store.conn.execute("SHOW server_version").fetchone()
            (fsync,) = store.conn.execute("SHOW fsync").fetchone()
            print(
                f"# PostgreSQL {version} on a Unix socket, fsync {fsync}, synchronous_commit on; files fsynced a move"
            )
            try:
                append = bench_append(store, saves_dir, moves, args.seed)
                opened = bench_open(store, saves_dir, reps)
            finally:
                store.close()
        finally:
            pg.stop(cluster)

    f, d, bare = append["files"], append["postgresql"], append["no writer"]
    ratio = med(d) / med(f)
    print(f"\n1. Appending a move, durable ({len(f)} moves a side, L'Agent Jean! {PLAYERS} players)")
    print(f"   save file:  median {ms(med(f))}, p95 {ms(pct(f, 0.95))}")
    print(f"   PostgreSQL: median {ms(med(d))}, p95 {ms(pct(d, 0.95))}")
    print(f"   no writer:  median {ms(med(bare))} (the game's own work, in both)")
    print(f"   PostgreSQL / file: {ratio:.2f}x (goal <= {GOAL_APPEND:.0f}x): {verdict(ratio <= GOAL_APPEND)}")

    f, d = opened["files"], opened["postgresql"]
    ratio = med(d) / med(f)
    print(f"\n2. Opening a {int(opened['events'][0]):,}-event table ({len(f)} opens a side, alternating)")
    print(f"   save file:  median {ms(med(f))} (min {ms(min(f))}, max {ms(max(f))})")
    print(f"   PostgreSQL: median {ms(med(d))} (min {ms(min(d))}, max {ms(max(d))})")
    print(f"   PostgreSQL / file: {ratio:.2f}x (goal <= {GOAL_OPEN:.0f}x): {verdict(ratio <= GOAL_OPEN)}")
    rf, rd = opened["read files"], opened["read postgresql"]
    print(
        f"   of which reading the log's {int(opened['bytes'][0]) // 1024} KiB: file {ms(med(rf))}, "
        f"PostgreSQL {ms(med(rd))} ({med(rd) / med(rf):.1f}x); the rest (checks, decoding, fold) is the same code"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
