"""Two servers on one database, a player of each table on each: a move's latency on the
table's own server against on the other one (through a follower).

    .venv/bin/python bench/relay.py                 (40 tables, 80 players, 30 s of play)
    .venv/bin/python bench/relay.py --tables 10     (fewer)

Two hall processes (bench/_hall_server.py, as bench/takeover.py runs them) share a
throwaway durable PostgreSQL cluster (tests/pg.py).  Every table (2-player L'Agent
Jean!) is opened and started on server 0, which holds it; its first player plays there,
its second through server 1, which serves the table from its log and passes the
player's commands on to server 0.  Each player thinks 0.2 to 0.6 s before a move.  A
move's latency is from the command sent to the update that shows it: on the holder, the
move is committed first; through the other server, the command is written to the
database and announced, the holder plays and commits it and announces the new records,
and the follower reads them.  Printed: p50 and p95 of each side, and their ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.net import machine, med, ms, pct, tree  # noqa: E402
from bench.takeover import Server, open_table, two_servers  # noqa: E402
from net.client import RemoteTable  # noqa: E402
from net.protocol import Address  # noqa: E402

THINK = (0.2, 0.6)  # seconds a scripted player thinks before a move


async def player(
    server: Server, name: str, table_id: str, until: float, rng: random.Random, latencies: list[float]
) -> None:
    """One scripted player at its seat until ``until`` (or the game's end)."""
    remote = RemoteTable(Address(path=Path(server.socket)), token=server.tokens[name], table_id=table_id)
    await remote.connect(timeout=30)
    pending: tuple[float, int] | None = None
    try:
        while time.monotonic() < until:
            try:
                message = await asyncio.wait_for(remote.receive(), max(0.1, until - time.monotonic()))
            except TimeoutError:
                return
            if message is None:
                return
            if message.get("t") != "update":
                continue
            remote.apply(message)
            if pending is not None and len(remote.events) > pending[1]:
                latencies.append(time.monotonic() - pending[0])
                pending = None
            if remote.outcome is not None:
                return
            if remote.legal and pending is None:
                await asyncio.sleep(rng.uniform(*THINK))
                pending = (time.monotonic(), len(remote.events))
                remote.command(rng.choice(remote.legal))
    finally:
        await remote.close()


async def bench(servers: list[Server], tables: int, seconds: float, seed: int) -> tuple[list[float], list[float]]:
    rng = random.Random(seed)
    made = []
    for t in range(tables):
        made.append(await open_table(servers[0], f"p{2 * t}", f"p{2 * t + 1}"))
    await asyncio.sleep(1.0)  # server 1 hears of every table
    holder: list[float] = []
    relayed: list[float] = []
    until = time.monotonic() + seconds
    players = []
    for t, table_id in enumerate(made):
        players.append(player(servers[0], f"p{2 * t}", table_id, until, random.Random(rng.random()), holder))
        players.append(player(servers[1], f"p{2 * t + 1}", table_id, until, random.Random(rng.random()), relayed))
    await asyncio.gather(*players)
    return holder, relayed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=40)
    parser.add_argument("--seconds", type=float, default=30.0, help="seconds of play")
    parser.add_argument("--seed", type=int, default=19)
    args = parser.parse_args(argv)
    names = [f"p{i}" for i in range(2 * args.tables)]
    print(f"# bench/relay.py: {machine()}; {tree()}")
    with two_servers(names) as servers:
        holder, relayed = asyncio.run(bench(servers, args.tables, args.seconds, args.seed))
    print(
        f"\n{args.tables} tables held by server 0, {args.seconds:.0f} s of play; a player of each table on each server"
    )
    print(f"  on the holder:      {len(holder)} moves, p50 {ms(med(holder))}, p95 {ms(pct(holder, 0.95))}")
    print(f"  through the other:  {len(relayed)} moves, p50 {ms(med(relayed))}, p95 {ms(pct(relayed, 0.95))}")
    if holder and relayed:
        print(
            f"  ratio, other / holder: p50 {med(relayed) / med(holder):.2f}x, p95 {pct(relayed, 0.95) / pct(holder, 0.95):.2f}x"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
