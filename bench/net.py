"""Cabinet's network benchmarks: `cabinet host` (net/server.py) on loopback TCP.

    /work/venv/bin/python bench/net.py            (from the repo root; about 2 minutes)
    /work/venv/bin/python bench/net.py --quick    (shorter windows, N x 4 a step; about 1 minute)
    /work/venv/bin/python bench/net.py --figures 3   (only the crowd: about 40 s)

1. One command's round trip: a 4-player game with 4 human seats, each joined
   by an in-process asyncio client (net.client.RemoteTable); the time from the
   moment a client writes its command frame until all 4 clients have read the
   resulting update (its events redacted for each seat, view, legal...).
   Yardstick, in the same run and the same event loop: a bare msgpack echo, an
   asyncio server that reads one length-framed frame, decodes it, encodes it
   once and writes it to its 4 connections, each of which reads and decodes
   it; the payload is a real update of the same game, of median size.  The two
   sides alternate in blocks of round trips (A B, B A, A B...); the figure is
   the ratio of the medians of the single round trips.  For L'Agent Jean! and
   for Ministeres.  The CPU time of the process per round trip is a
   cross-check (the whole round trip, clients included, is in this process).
2. How many games one server process holds: N GameServers in one process
   (one event loop), each with 4 clients, every game moving at once; the
   clients run in a second process (this script with --client-worker), so
   the server has its own interpreter; each game's active client thinks for
   a uniform 0.5-1.0 s, then plays a random legal command.  N doubles from 1
   until the median or the 95th percentile of the round trip passes 100 ms
   (or N reaches a cap: see CAP), then one step halfway back (geometrically).
   Absolute figures: the goal is a latency.  The server's CPU, event-loop lag,
   write buffers and cyclic-GC pauses are printed beside them.
3. A crowd joining while two play: a 2-player game of Ministeres, its 2 human
   seats' clients in this process, each move a random legal command a uniform
   50-100 ms after the last one's update; then CROWD spectators (1,000) join
   all at once from a second process (this script with --crowd-worker), watch
   for a while, and leave.  The figure is the 95th percentile of the players'
   move acknowledgement (the time from writing a command until the mover has
   read its update) while the crowd joins; the yardstick, in the same run, is
   the same acknowledgement in the same game with no crowd, measured before
   each crowd in each of ROUNDS rounds (a fresh game each).  Goal: under 100 ms.

Benchmarks are run on demand; nothing here is part of the test run.  See
docs/PERFORMANCE.md.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import platform
import random
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import msgpack  # noqa: E402

from net.client import RemoteTable  # noqa: E402
from net.protocol import CLIENT_MAX, SERVER_MAX, Address, open_connection, pack, read_frame  # noqa: E402

PLAYERS = 4
GOAL_RT = 0.100  # s: figure 2's limit, on the median and on the 95th percentile
THINK = (0.5, 1.0)  # s: figure 2, a client's pause before each of its moves
#: figure 2: games at most, 2048 x sqrt(2).  The server process holds 6 files a
#: game (4 connections, the listening socket, the save), the clients' 4: the
#: cap is lowered to fit `ulimit -n` (20000 on the machine of docs/PERFORMANCE.md)
CAP = 2896
FILES_PER_GAME = 6
RT_TIMEOUT = 30.0  # s: a round trip this long is a hang, not a measurement
CROWD = 1000  # figure 3: spectators joining at once
CROWD_THINK = (0.05, 0.1)  # s: figure 3, the players' pause before each move
HOST = "127.0.0.1"


# -- helpers (as in bench/run.py) ---------------------------------------------------


def med(xs: list[float]) -> float:
    return statistics.median(xs)


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * (len(s) - 1) + 0.5))]


def ms(seconds: float) -> str:
    if abs(seconds) >= 0.01:
        return f"{seconds * 1000:.1f} ms"
    if abs(seconds) >= 0.001:
        return f"{seconds * 1000:.2f} ms"
    return f"{seconds * 1e6:.0f} us"


def machine() -> str:
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:
        cpus = os.cpu_count()
    return (
        f"{platform.system()} {platform.machine()}, {cpus} CPUs (nproc), "
        f"Python {platform.python_version()} ({platform.python_implementation()}), "
        f"msgpack {'.'.join(map(str, msgpack.version))}, asyncio default event loop"
    )


CODE = ("cabinet", "core", "net", "saves", "screens", "table", "tui")  # the folders of the code a benchmark runs


def tree() -> str:
    """The commit measured, and the files changed since (but not committed) in the code it runs."""
    import subprocess

    def git(*a: str) -> str:
        try:
            return subprocess.run(["git", *a], cwd=ROOT, capture_output=True, text=True, timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""

    head = git("rev-parse", "--short", "HEAD") or "?"
    dirty = [line.split(maxsplit=1)[-1] for line in git("status", "--porcelain", "--", *CODE).splitlines()]
    return f"commit {head}" + (f", with uncommitted changes to {', '.join(dirty)}" if dirty else "")


def rss_mib() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


class LoopNoise:
    """Counts what the event loop reports instead of printing it (see close_table)."""

    def __init__(self) -> None:
        self.count = 0
        self.kinds: dict[str, int] = {}

    def __call__(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        exc = context.get("exception")
        kind = f"{context.get('message', '?')}: {type(exc).__name__ if exc else '-'}"
        self.count += 1
        self.kinds[kind] = self.kinds.get(kind, 0) + 1


# -- a hosted game and its clients ----------------------------------------------------


def make_server(game_id: str, seed: int, tmp: Path, server_cls: type | None = None, players: int = PLAYERS) -> Any:
    from core.games import get_game
    from net.server import GameServer, load_or_make_codes
    from tui.session import new_match, start_save

    game = get_game(game_id)
    assert game is not None, game_id
    match = new_match(game, players, [], controllers=[{"kind": "human"}] * players, seed=seed, bot_seed=seed + 1)
    writer = start_save(tmp, match, durable=False)
    codes = load_or_make_codes(writer.path, match)
    return (server_cls or GameServer)(writer, codes, bot_delay=0)


async def join_all(address: Address, codes: list[str]) -> list[RemoteTable]:
    """The 4 seats' clients, joined, with the updates their joining caused read."""
    clients = [RemoteTable(address, code) for code in codes]
    for c in clients:
        await c.connect()
    for c in clients:  # every join is broadcast: read until nobody is away
        while True:
            u = await asyncio.wait_for(c.receive(), RT_TIMEOUT)
            assert u is not None and u["t"] == "update", u
            c.apply(u)
            if not u["away"]:
                break
    return clients


async def _arrival(c: RemoteTable) -> tuple[float, dict[str, Any]]:
    u = await c.receive()
    t = time.perf_counter()
    if u is None or u["t"] != "update":
        raise RuntimeError(f"expected an update, got {u!r}")
    c.apply(u)
    return t, u


async def play_one(clients: list[RemoteTable], rng: random.Random) -> tuple[float, list[dict[str, Any]]]:
    """A random legal command of an active seat: its round trip, and the 4 updates."""
    seat = rng.choice(clients[0].active)
    c = clients[seat]
    command = rng.choice(c.legal or [])
    t0 = time.perf_counter()
    c.command(command)
    got = await asyncio.wait_for(asyncio.gather(*(_arrival(k) for k in clients)), RT_TIMEOUT)
    return max(t for t, _ in got) - t0, [u for _, u in got]


async def close_clients(clients: list[RemoteTable]) -> None:
    await asyncio.gather(*(c.close() for c in clients), return_exceptions=True)


# -- 1. one round trip -----------------------------------------------------------------


def timed_server_cls() -> type:
    from net.server import GameServer

    class TimedServer(GameServer):
        """GameServer noting how long its own work on each command takes
        (information only): ``submit`` (decide, evolve, the save's append) and
        ``moved`` (an update built, packed and written for each of the 4 seats)."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.work: list[tuple[float, float, float]] = []  # submit, of which saving, broadcast
            self._t_moved = 0.0
            self._t_save = 0.0
            inner = self.save.record  # the table's save step, timed where the table takes it

            def timed_save(move: Any) -> None:
                t = time.perf_counter()
                inner(move)
                self._t_save += time.perf_counter() - t

            self.save.record = timed_save

        def command(self, conn: Any, message: dict[str, Any]) -> None:
            self._t_moved = 0.0
            self._t_save = 0.0
            t0 = time.perf_counter()
            super().command(conn, message)
            t2 = time.perf_counter()
            if self._t_moved:
                self.work.append((self._t_moved - t0, self._t_save, t2 - self._t_moved))

        def moved(self) -> None:
            self._t_moved = time.perf_counter()
            super().moved()

    return TimedServer


class GameSide:
    """Figure 1's game side: a hosted 4-player game and its 4 clients; a new
    game replaces a finished one (outside the timings)."""

    def __init__(self, game_id: str, tmp: Path, seed: int) -> None:
        self.game_id, self.tmp, self.seed = game_id, tmp, seed
        self.rng = random.Random(seed)
        self.server: Any = None
        self.clients: list[RemoteTable] = []
        self.work: list[tuple[float, float, float]] = []
        self.sizes: list[int] = []
        self.updates: list[dict[str, Any]] = []
        self.games = 0

    async def open(self) -> None:
        self.seed += 100
        self.server = make_server(self.game_id, self.seed, self.tmp, timed_server_cls())
        address = await self.server.start(Address(host=HOST, port=0))
        self.clients = await join_all(address, [self.server.codes[s] for s in range(PLAYERS)])
        self.games += 1

    async def close(self) -> None:
        if self.server is None:
            return
        self.work += self.server.work
        await close_clients(self.clients)
        await asyncio.sleep(0.01)  # the server's handlers see the ends of their streams
        await self.server.close()
        self.server.save.close()
        self.server = None

    async def ensure(self) -> None:
        if self.server is None or self.server.match.outcome is not None:
            await self.close()
            await self.open()

    async def one(self, keep: bool = False) -> float:
        rt, updates = await play_one(self.clients, self.rng)
        if keep:
            self.sizes += [len(pack(u)) for u in updates]
            self.updates += updates
        return rt


class EchoSide:
    """Figure 1's yardstick: the same fan-out with no game (see the docstring)."""

    def __init__(self, payload: dict[str, Any], seed: int) -> None:
        self.payload = payload
        self.frame = pack(payload)
        self.rng = random.Random(seed)
        self.server: asyncio.base_events.Server | None = None
        self.room: list[asyncio.StreamWriter] = []
        self.streams: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []

    async def open(self) -> None:
        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            self.room.append(writer)
            with contextlib.suppress(Exception):
                while True:
                    message = await read_frame(reader, CLIENT_MAX)
                    if message is None:
                        break
                    frame = pack(message)
                    for w in self.room:
                        w.write(frame)
            writer.close()

        self.server = await asyncio.start_server(handle, HOST, 0, limit=CLIENT_MAX + 8)
        port = self.server.sockets[0].getsockname()[1]
        for _ in range(PLAYERS):
            self.streams.append(await open_connection(Address(host=HOST, port=port)))
        while len(self.room) < PLAYERS:
            await asyncio.sleep(0.001)

    async def close(self) -> None:
        for _, w in self.streams:
            w.close()
            with contextlib.suppress(Exception):
                await w.wait_closed()
        await asyncio.sleep(0.01)
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()

    async def one(self) -> float:
        async def arrival(reader: asyncio.StreamReader) -> float:
            message = await read_frame(reader, SERVER_MAX)
            t = time.perf_counter()
            assert message is not None and message["t"] == "update"
            return t

        _, w = self.streams[self.rng.randrange(PLAYERS)]
        t0 = time.perf_counter()
        w.write(self.frame)
        got = await asyncio.wait_for(asyncio.gather(*(arrival(r) for r, _ in self.streams)), RT_TIMEOUT)
        return max(got) - t0


async def bench_round_trip(game_id: str, blocks: int, per_block: int, tmp: Path, seed: int) -> dict[str, Any]:
    game = GameSide(game_id, tmp, seed)
    await game.open()
    # warm-up: a whole game's worth of moves, also to choose the echo's payload
    for _ in range(150):
        await game.ensure()
        await game.one(keep=True)
    by_size = sorted(zip((len(pack(u)) for u in game.updates), range(len(game.updates)), strict=True))
    payload = game.updates[by_size[len(by_size) // 2][1]]
    game.work = []
    if game.server is not None:
        game.server.work = []
    echo = EchoSide(payload, seed)
    await echo.open()
    for _ in range(20):
        await echo.one()

    rt_game: list[float] = []
    rt_echo: list[float] = []
    cpu_game: list[float] = []
    cpu_echo: list[float] = []
    block_game: list[float] = []
    block_echo: list[float] = []

    async def run_game() -> None:
        times = []
        spent = 0.0
        for _ in range(per_block):
            if game.server.match.outcome is not None:  # a new game, off the clock
                c = time.process_time()
                await game.ensure()
                spent += time.process_time() - c
            c0 = time.process_time()
            times.append(await game.one())
            spent += time.process_time() - c0
        # the CPU of the round trips alone (not of replacing a finished game)
        cpu_game.append(spent / per_block)
        rt_game.extend(times)
        block_game.append(med(times))

    async def run_echo() -> None:
        c0 = time.process_time()
        times = [await echo.one() for _ in range(per_block)]
        cpu_echo.append((time.process_time() - c0) / per_block)
        rt_echo.extend(times)
        block_echo.append(med(times))

    gc.collect()
    for i in range(blocks):
        if i % 2 == 0:
            await run_game()
            await run_echo()
        else:
            await run_echo()
            await run_game()
    await game.close()
    await echo.close()
    paired = sorted(g / e for g, e in zip(block_game, block_echo, strict=True))
    q1, _, q3 = statistics.quantiles(paired, n=4)
    work = game.work
    return {
        "game": game_id,
        "games": game.games,
        "n": len(rt_game),
        "game_rt": rt_game,
        "echo_rt": rt_echo,
        "ratio": med(rt_game) / med(rt_echo),
        "paired": med(paired),
        "paired_iqr": (q1, q3),
        "cpu_game": med(cpu_game),
        "cpu_echo": med(cpu_echo),
        "ratio_cpu": med(cpu_game) / med(cpu_echo),
        "payload": len(echo.frame),
        "update_median": med(game.sizes),
        "update_max": max(game.sizes),
        "submit": med([w[0] for w in work]),
        "save": med([w[1] for w in work]),
        "broadcast": med([w[2] for w in work]),
    }


# -- 2. games held at once -------------------------------------------------------------


async def client_worker() -> None:
    """The clients of figure 2, in their own process: reads one job a line on
    stdin ({"games": [[port, [code x4]], ...], "warm", "measure", "seed"}),
    answers on stdout with JSON lines: ready, measuring, done (with the round
    trips), closed."""
    loop = asyncio.get_running_loop()
    noise = LoopNoise()
    loop.set_exception_handler(noise)
    reader = asyncio.StreamReader(limit=2**26)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)

    def say(obj: dict[str, Any]) -> None:
        sys.stdout.write(json.dumps(obj) + "\n")
        sys.stdout.flush()

    async def run(job: dict[str, Any]) -> None:
        """One job: its state its own, so a task left from a job cannot touch the next one's."""
        rng = random.Random(job["seed"])
        # The clients are the measuring instrument: 4 x N tables of events in
        # one process would give its cyclic GC pauses that real clients, each
        # in its own process, do not have.  Off while a job runs.
        gc.collect()
        gc.disable()
        gate = asyncio.Semaphore(200)

        async def join(port: int, codes: list[str]) -> list[RemoteTable]:
            async with gate:
                return await join_all(Address(host=HOST, port=port), codes)

        t_join = time.perf_counter()
        tables = await asyncio.gather(*(join(p, c) for p, c in job["games"]), return_exceptions=True)
        failed = [repr(t) for t in tables if isinstance(t, BaseException)]
        tables = [t for t in tables if not isinstance(t, BaseException)]
        say(
            {
                "ready": True,
                "join_s": time.perf_counter() - t_join,
                "join_failed": failed[:3],
                "join_failures": len(failed),
            }
        )

        window = [float("inf"), float("inf")]
        samples: list[float] = []
        outside = [0]
        finished = [0]
        errors: list[str] = []
        stop = asyncio.Event()

        async def game_loop(clients: list[RemoteTable], grng: random.Random) -> None:
            try:
                while not stop.is_set():
                    if clients[0].outcome is not None:
                        finished[0] += 1
                        return
                    await asyncio.sleep(grng.uniform(*THINK))
                    if stop.is_set():
                        return
                    t0 = time.perf_counter()
                    rt, _ = await play_one(clients, grng)
                    if window[0] <= t0 and t0 + rt <= window[1]:
                        samples.append(rt)
                    else:
                        outside[0] += 1
            except Exception as exc:  # noqa: BLE001 - a hang (RT_TIMEOUT), a broken connection: counted, not fatal
                errors.append(f"{type(exc).__name__}: {exc}"[:200])

        tasks = [asyncio.create_task(game_loop(c, random.Random(rng.random()))) for c in tables]
        await asyncio.sleep(job["warm"])
        window[0] = time.perf_counter()
        window[1] = window[0] + job["measure"]
        cpu0 = time.process_time()
        say({"measuring": True})
        await asyncio.sleep(job["measure"])
        cpu = time.process_time() - cpu0
        stop.set()
        _, pending = await asyncio.wait(tasks, timeout=RT_TIMEOUT + 5)
        for t in pending:
            t.cancel()
        say(
            {
                "done": True,
                "rt": samples,
                "cpu": cpu,
                "games": len(tables),
                "finished": finished[0],
                "outside": outside[0],
                "errors": errors[:5],
                "error_count": len(errors),
                "hung": len(pending),
                "loop_noise": noise.kinds,
            }
        )
        await asyncio.gather(*(close_clients(c) for c in tables))
        del tables, tasks
        gc.enable()
        gc.collect()
        say({"closed": True})

    while True:
        line = await reader.readline()
        if not line:
            return
        job = json.loads(line)
        await run(job)


class ServerWatch:
    """The server process's own view during figure 2's window: how late its
    event loop wakes up (a 20 ms ticker), and the bytes waiting in its
    sockets' write buffers (an unbounded growth would show there)."""

    def __init__(self, servers: list[Any]) -> None:
        self.servers = servers
        self.lags: list[float] = []
        self.buffered_max = 0
        self.gc_pauses: list[tuple[float, int]] = []  # every collection of the cyclic GC: s, generation
        self._gc_t = 0.0
        gc.callbacks.append(self._gc)

    def _gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._gc_t = time.perf_counter()
        elif self._gc_t:
            self.gc_pauses.append((time.perf_counter() - self._gc_t, info.get("generation", -1)))

    def stop(self) -> None:
        with contextlib.suppress(ValueError):
            gc.callbacks.remove(self._gc)

    async def run(self) -> None:
        tick = 0.02
        n = 0
        while True:
            t = time.perf_counter()
            await asyncio.sleep(tick)
            self.lags.append(time.perf_counter() - t - tick)
            n += 1
            if n % 25 == 0:
                total = 0
                for s in self.servers:
                    for conn in s.players.values():
                        tr = conn.writer.transport
                        if tr is not None:
                            total += tr.get_write_buffer_size()
                self.buffered_max = max(self.buffered_max, total)


def held(r: dict[str, Any]) -> bool:
    """Did N games keep their round trips under the goal, with no error nor hang?"""
    ok = r["samples"] > 0 and r["median"] <= GOAL_RT and r["p95"] <= GOAL_RT
    return ok and not r["error_count"] and not r["hung"] and not r["join_failures"]


async def bench_capacity(
    steps: list[int], warm: float, measure: float, tmp: Path, seed: int, log: Any, refine: bool = True
) -> list[dict[str, Any]]:
    loop = asyncio.get_running_loop()
    noise = LoopNoise()
    loop.set_exception_handler(noise)
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        str(Path(__file__).resolve()),
        "--client-worker",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        limit=2**26,
        cwd=ROOT,
    )
    assert proc.stdin is not None and proc.stdout is not None

    async def hear(timeout: float) -> dict[str, Any]:
        line = await asyncio.wait_for(proc.stdout.readline(), timeout)
        if not line:
            raise RuntimeError("the client worker died")
        return json.loads(line)

    results: list[dict[str, Any]] = []
    todo = list(steps)
    refined = False
    try:
        while todo:
            n = todo.pop(0)
            step_dir = Path(tempfile.mkdtemp(prefix=f"n{n}-", dir=tmp))
            t_setup = time.perf_counter()
            servers = []
            for i in range(n):
                s = make_server("agent-jean", seed + 1000 * n + i, step_dir)
                await s.start(Address(host=HOST, port=0))
                servers.append(s)
            setup = time.perf_counter() - t_setup
            moves0 = sum(len(s.match.moves) for s in servers)
            job = {
                "games": [[s.address.port, [s.codes[k] for k in range(PLAYERS)]] for s in servers],
                "warm": warm,
                "measure": measure,
                "seed": seed + n,
            }
            proc.stdin.write((json.dumps(job) + "\n").encode())
            await proc.stdin.drain()
            ready = await hear(300)
            watch = ServerWatch(servers)
            watch_task = asyncio.create_task(watch.run())
            await hear(warm + 60)  # measuring
            cpu0 = time.process_time()
            moves_w0 = sum(len(s.match.moves) for s in servers)
            lag0 = len(watch.lags)
            watch.gc_pauses.clear()
            done = await hear(measure + RT_TIMEOUT + 60)
            cpu = time.process_time() - cpu0
            objects = len(gc.get_objects())  # what a full collection of the cyclic GC walks
            moves = sum(len(s.match.moves) for s in servers) - moves_w0
            lags = watch.lags[lag0:]
            pauses = list(watch.gc_pauses)
            watch.stop()
            watch_task.cancel()
            await hear(300)  # closed
            await asyncio.sleep(0.05)
            rss = rss_mib()
            frames = sum(s.frames_sent for s in servers)
            moves_total = sum(len(s.match.moves) for s in servers) - moves0
            buffered_max = watch.buffered_max
            for s in servers:
                await s.close()
                s.save.close()
            del servers, s, watch, watch_task
            gc.collect()  # the next N starts from a clean heap (a match and its save writer are a cycle)
            rt = done["rt"]
            r = {
                "n": n,
                "setup_s": setup,
                "join_s": ready["join_s"],
                "join_failures": ready["join_failures"],
                "samples": len(rt),
                "median": med(rt) if rt else float("nan"),
                "p95": pct(rt, 0.95) if rt else float("nan"),
                "p99": pct(rt, 0.99) if rt else float("nan"),
                "max": max(rt) if rt else float("nan"),
                "moves_per_s": moves / measure,
                "moves_total": moves_total,
                "server_cpu": cpu / measure,
                "server_cpu_per_move": cpu / moves if moves else float("nan"),
                "client_cpu": done["cpu"] / measure,
                "lag_median": med(lags) if lags else float("nan"),
                "lag_p95": pct(lags, 0.95) if lags else float("nan"),
                "lag_max": max(lags) if lags else float("nan"),
                "buffered_max": buffered_max,
                "objects": objects,
                "gc_count": len(pauses),
                "gc_full": sum(1 for _, g in pauses if g == 2),
                "gc_max": max((p for p, _ in pauses), default=0.0),
                "gc_max_young": max((p for p, g in pauses if g != 2), default=0.0),
                "gc_total": sum(p for p, _ in pauses),
                "rss_mib": rss,
                "frames": frames,
                "finished": done["finished"],
                "errors": done["errors"],
                "error_count": done["error_count"],
                "hung": done["hung"],
                "client_noise": done["loop_noise"],
                "server_noise": dict(noise.kinds),
                "load": os.getloadavg()[0],
            }
            results.append(r)
            log(r)
            if not held(r):
                ok = [x["n"] for x in results if held(x) and x["n"] < n]
                todo = []
                if refine and not refined and ok and n / ok[-1] >= 1.3:
                    todo = [round((ok[-1] * n) ** 0.5)]  # once, halfway (geometrically) back
                    refined = True
                else:
                    break
    finally:
        proc.stdin.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(proc.wait(), 30)
        if proc.returncode is None:
            proc.kill()
    return results


# -- 3. a crowd joining while two play ---------------------------------------------------------


async def crowd_worker() -> None:
    """The spectators of figure 3, in their own process: reads jobs a line on stdin,
    {"join": port, "n": N} (N spectators connect at once, each says hello and reads its
    welcome and first update, then reads every update until told to leave) and
    {"leave": true}; answers each with a JSON line."""
    loop = asyncio.get_running_loop()
    noise = LoopNoise()
    loop.set_exception_handler(noise)
    reader = asyncio.StreamReader(limit=2**26)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)

    def say(obj: dict[str, Any]) -> None:
        sys.stdout.write(json.dumps(obj) + "\n")
        sys.stdout.flush()

    held: list[asyncio.StreamWriter] = []
    watching: list[asyncio.Task[None]] = []
    updates = [0]

    async def watch(r: asyncio.StreamReader) -> None:
        with contextlib.suppress(Exception):
            while await read_frame(r, SERVER_MAX) is not None:
                updates[0] += 1

    async def join(job: dict[str, Any]) -> None:
        """One job's spectators, joining at once: this job's state, not the next one's."""
        address = Address(host=HOST, port=job["join"])
        latencies: list[float] = []
        failed: list[str] = []

        async def one() -> None:
            t0 = time.perf_counter()
            try:
                r, w = await asyncio.wait_for(open_connection(address), RT_TIMEOUT)
                w.write(pack({"t": "hello", "v": 1, "watch": True}))
                welcome = await asyncio.wait_for(read_frame(r, SERVER_MAX), RT_TIMEOUT)
                first = await asyncio.wait_for(read_frame(r, SERVER_MAX), RT_TIMEOUT)
                if not (welcome and welcome["t"] == "welcome" and first and first["t"] == "update"):
                    raise RuntimeError(f"answered {welcome!r}")
            except Exception as exc:  # noqa: BLE001 - whatever stopped a spectator joining is counted and shown
                failed.append(f"{type(exc).__name__}: {exc}"[:200])
                return
            latencies.append(time.perf_counter() - t0)
            held.append(w)
            watching.append(asyncio.create_task(watch(r)))

        t0 = time.perf_counter()
        cpu0 = time.process_time()
        await asyncio.gather(*(one() for _ in range(job["n"])))
        say(
            {
                "joined": len(latencies),
                "took": time.perf_counter() - t0,
                "cpu": time.process_time() - cpu0,
                "latency": latencies,
                "failures": len(failed),
                "failed": failed[:3],
            }
        )

    while True:
        line = await reader.readline()
        if not line:
            return
        job = json.loads(line)
        if "join" in job:
            await join(job)
        elif "leave" in job:
            for w in held:
                w.close()
            await asyncio.gather(*watching, return_exceptions=True)
            say({"left": len(held), "updates": updates[0], "loop_noise": noise.kinds})
            held.clear()
            watching.clear()
            updates[0] = 0


class Acks:
    """The players' move acknowledgements, each with the moment its command was written."""

    def __init__(self) -> None:
        self.samples: list[tuple[float, float]] = []
        self.hung = 0  # acknowledgements not seen within RT_TIMEOUT

    def between(self, t0: float, t1: float) -> list[float]:
        """The acknowledgements of the commands written between t0 and t1."""
        return [ack for at, ack in self.samples if t0 <= at < t1]


async def play_acked(clients: list[RemoteTable], rng: random.Random, acks: Acks, stop: asyncio.Event) -> None:
    """The two players play random legal commands, a CROWD_THINK pause before each, until
    ``stop`` or the end of the game; each acknowledgement noted."""
    while not stop.is_set() and clients[0].outcome is None:
        await asyncio.sleep(rng.uniform(*CROWD_THINK))
        seat = rng.choice(clients[0].active)
        mover = clients[seat]
        command = rng.choice(mover.legal or [])
        n = len(mover.events)
        t0 = time.perf_counter()
        mover.command(command)
        try:
            got = await asyncio.wait_for(asyncio.gather(*(_arrival_after(c, n) for c in clients)), RT_TIMEOUT)
        except TimeoutError:  # counted as RT_TIMEOUT (a lower bound); this round's play ends
            acks.samples.append((t0, RT_TIMEOUT))
            acks.hung += 1
            return
        acks.samples.append((t0, got[seat] - t0))


async def _arrival_after(c: RemoteTable, n: int) -> float:
    """When ``c`` read the update past ``n`` events (those before it, as a presence update
    queued behind a crowd's joins, are read and taken in, but are no acknowledgement)."""
    while True:
        u = await c.receive()
        t = time.perf_counter()
        if u is None:
            raise RuntimeError("the server closed the connection")
        if u["t"] != "update":
            continue
        c.apply(u)
        if u["n"] > n:
            return t


async def bench_crowd(crowd: int, rounds: int, quiet: float, watching: float, tmp: Path, seed: int) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    noise = LoopNoise()
    loop.set_exception_handler(noise)
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        str(Path(__file__).resolve()),
        "--crowd-worker",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        limit=2**26,
        cwd=ROOT,
    )
    assert proc.stdin is not None and proc.stdout is not None

    async def ask(job: dict[str, Any], timeout: float) -> dict[str, Any]:
        proc.stdin.write((json.dumps(job) + "\n").encode())
        await proc.stdin.drain()
        line = await asyncio.wait_for(proc.stdout.readline(), timeout)
        if not line:
            raise RuntimeError("the crowd worker died")
        return json.loads(line)

    out: dict[str, Any] = {
        "quiet": [],
        "joining": [],
        "watching": [],
        "took": [],
        "latency": [],
        "failures": 0,
        "failed": [],
        "frames_per_join": [],
        "cpu_quiet": [],
        "cpu_joining": [],
        "moves_per_s": [],
        "ended": 0,
        "hung": 0,
    }
    try:
        for k in range(rounds):
            server = make_server("ministeres", seed + k, tmp, players=2)
            address = await server.start(Address(host=HOST, port=0))
            clients = await join_all(address, [server.codes[s] for s in range(2)])
            acks, stop = Acks(), asyncio.Event()
            playing = asyncio.create_task(play_acked(clients, random.Random(seed + k), acks, stop))
            await asyncio.sleep(0.5)  # warm-up
            gc.collect()
            t0, c0, m0 = time.perf_counter(), time.process_time(), len(server.match.moves)
            await asyncio.sleep(quiet)
            t1, c1, m1 = time.perf_counter(), time.process_time(), len(server.match.moves)
            frames0 = server.frames_sent
            joined = await ask({"join": address.port, "n": crowd}, RT_TIMEOUT * 4)
            t2, c2, m2 = time.perf_counter(), time.process_time(), len(server.match.moves)
            # the frames the server sent while they joined, less the moves' updates to those watching already
            out["frames_per_join"].append((server.frames_sent - frames0) / max(1, joined["joined"]))
            await asyncio.sleep(watching)
            t3 = time.perf_counter()
            left = await ask({"leave": True}, RT_TIMEOUT * 4)
            stop.set()
            await asyncio.wait_for(playing, RT_TIMEOUT)
            out["ended"] += clients[0].outcome is not None
            out["hung"] += acks.hung
            out["quiet"] += acks.between(t0, t1)
            out["joining"] += acks.between(t1, t2)
            out["watching"] += acks.between(t2, t3)
            out["took"].append(joined["took"])
            out.setdefault("crowd_cpu", []).append(joined["cpu"] / joined["took"])
            out["latency"] += joined["latency"]
            out["failures"] += joined["failures"]
            out["failed"] += joined["failed"]
            out["cpu_quiet"].append((c1 - c0) / (t1 - t0))
            out["cpu_joining"].append((c2 - c1) / (t2 - t1))
            out["moves_per_s"].append(((m1 - m0) / (t1 - t0), (m2 - m1) / (t2 - t1)))
            out.setdefault("updates", []).append(left["updates"])
            await close_clients(clients)
            await asyncio.sleep(0.05)
            await server.close()
            del server, clients
            gc.collect()
    finally:
        proc.stdin.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(proc.wait(), 30)
        if proc.returncode is None:
            proc.kill()
    out["noise"] = dict(noise.kinds)
    return out


def print_crowd(r: dict[str, Any], crowd: int, rounds: int) -> None:
    def row(label: str, xs: list[float]) -> str:
        if not xs:
            return f"   {label:<26} no acknowledgement in the window"
        return (
            f"   {label:<26} {len(xs):>4} acks   median {ms(med(xs)):>8}   p95 {ms(pct(xs, 0.95)):>8}   "
            f"p99 {ms(pct(xs, 0.99)):>8}   max {ms(max(xs)):>8}"
        )

    print(row("no crowd (yardstick)", r["quiet"]))
    print(row(f"{crowd} spectators joining", r["joining"]))
    print(row(f"{crowd} spectators watching", r["watching"]))
    q, j = r["quiet"], r["joining"]
    if q and j:
        print(f"   ratio of the p95s, joining against no crowd: {pct(j, 0.95) / pct(q, 0.95):.1f}x")
    took = r["took"]
    lat = r["latency"]
    print(
        f"   the {crowd} joins took {', '.join(f'{t:.2f}' for t in took)} s ({crowd / med(took):.0f} a second, median); "
        f"one spectator's join (connect to first update) median {ms(med(lat))}, p95 {ms(pct(lat, 0.95))}, "
        f"max {ms(max(lat))}; failures {r['failures']} {r['failed'][:1]}"
    )
    moves = r["moves_per_s"]
    print(
        f"   frames the server sent a join (its welcome and update, and the moves' updates to those already "
        f"watching): {', '.join(f'{f:.1f}' for f in r['frames_per_join'])}; moves a second, no crowd / joining: "
        f"{', '.join(f'{a:.1f}/{b:.1f}' for a, b in moves)}"
    )
    print(
        f"   this process's CPU (server and the 2 players), no crowd / joining: "
        f"{', '.join(f'{a * 100:.0f}%/{b * 100:.0f}%' for a, b in zip(r['cpu_quiet'], r['cpu_joining'], strict=True))} of a core; "
        f"the spectators' process while they joined: {', '.join(f'{c * 100:.0f}%' for c in r['crowd_cpu'])}"
    )
    if r["hung"]:
        print(
            f"   {r['hung']} acknowledgements not seen within {RT_TIMEOUT:.0f} s: counted as {RT_TIMEOUT:.0f} s, and the round's play stopped"
        )
    if r["ended"]:
        print(f"   ({r['ended']} of the {rounds} games ended before their round did: fewer acknowledgements)")
    if r["noise"]:
        print(f"   the event loop reported: {r['noise']}")
    verdict = "PASS" if j and pct(j, 0.95) < GOAL_RT and not r["failures"] and not r["hung"] else "FAIL"
    print(f"   goal: p95 of the acknowledgement while the crowd joins under {GOAL_RT * 1000:.0f} ms: {verdict}")


# -- report ---------------------------------------------------------------------------------


def print_capacity_row(r: dict[str, Any]) -> None:
    flag = "" if held(r) else "  <-- over 100 ms" if r["samples"] else "  <-- no round trip"
    extra = ""
    if r["error_count"] or r["hung"] or r["join_failures"]:
        extra = f"  errors {r['error_count']} hung {r['hung']} join failures {r['join_failures']} {r['errors'][:1]}"
    print(
        f"   {r['n']:>5} {r['moves_per_s']:>7.1f} {r['samples']:>7} {ms(r['median']):>9} {ms(r['p95']):>9} "
        f"{ms(r['p99']):>9} {ms(r['max']):>9}   {r['server_cpu'] * 100:>4.0f}% {ms(r['server_cpu_per_move']):>8}"
        f"   {r['client_cpu'] * 100:>4.0f}%   {ms(r['lag_p95']):>8} {ms(r['lag_max']):>8} "
        f"{r['buffered_max'] / 1024:>7.0f} {r['rss_mib']:>6.0f} {r['objects'] / 1000:>6.0f}k  {r['gc_full']:>2} {ms(r['gc_max']):>8}  {r['load']:>4.1f}{flag}{extra}",
        flush=True,
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer round trips, shorter windows (a rough look)")
    ap.add_argument("--cap", type=int, default=CAP, help=f"figure 2: most games (default {CAP})")
    ap.add_argument("--steps", help="figure 2: the numbers of games to try, e.g. 1024,1448,2048 (instead of doubling)")
    ap.add_argument("--figures", default="1,2,3", help="which figures to run, e.g. 3 or 1,3 (default all)")
    ap.add_argument("--crowd", type=int, default=CROWD, help=f"figure 3: spectators joining (default {CROWD})")
    ap.add_argument("--client-worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--crowd-worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.client_worker:
        asyncio.run(client_worker())
        return 0
    if args.crowd_worker:
        asyncio.run(crowd_worker())
        return 0
    figures = {int(x) for x in args.figures.split(",") if x.strip()}
    # figure 3's crowd and figure 2's games need descriptors: the soft limit up to the hard one
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and (hard == resource.RLIM_INFINITY or soft < hard):
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        print(f"(ulimit -n raised from {soft} to {hard}, the hard limit)")
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and args.cap * FILES_PER_GAME + 200 > soft:
        args.cap = (soft - 200) // FILES_PER_GAME
        print(f"(figure 2 capped at {args.cap} games by ulimit -n {soft})")
    blocks, per_block = (20, 10) if args.quick else (60, 10)
    warm, measure = (1.5, 3.0) if args.quick else (2.0, 5.0)

    t_all = time.perf_counter()
    print("Cabinet network benchmarks (loopback TCP)")
    print("machine:", machine())
    print(f"tree: {tree()}; load average at start: {os.getloadavg()[0]:.2f}")
    print()

    async def figure1(tmp: Path) -> list[dict[str, Any]]:
        noise = LoopNoise()
        asyncio.get_running_loop().set_exception_handler(noise)
        out = [
            await bench_round_trip(g, blocks, per_block, tmp, seed)
            for seed, g in ((1, "agent-jean"), (2, "ministeres"))
        ]
        if noise.count:
            print(f"   (event loop reported {noise.count} exceptions: {noise.kinds})")
        return out

    with tempfile.TemporaryDirectory(prefix="cabinet-net-") as tmp:
        if 1 in figures:
            t0 = time.perf_counter()
            rts = asyncio.run(figure1(Path(tmp)))
            print(
                f"1. One command to its update at all {PLAYERS} clients, {PLAYERS} human seats, clients in this process "
                f"({time.perf_counter() - t0:.0f} s)"
            )
            for r in rts:
                print(
                    f"   {r['game']}: {r['n']} round trips each side, in {blocks} alternated blocks of {per_block} "
                    f"({r['games']} games); updates {r['update_median']:.0f} B median, {r['update_max']} B max; "
                    f"echo payload {r['payload']} B"
                )
                g, e = r["game_rt"], r["echo_rt"]
                print(
                    f"     game server   {ms(med(g))}   (p95 {ms(pct(g, 0.95))}, p99 {ms(pct(g, 0.99))}, max {ms(max(g))})"
                )
                print(
                    f"     msgpack echo  {ms(med(e))}   (p95 {ms(pct(e, 0.95))}, p99 {ms(pct(e, 0.99))}, max {ms(max(e))})"
                )
                print(f"     ratio         {r['ratio']:.2f}x")
                q1, q3 = r["paired_iqr"]
                print(
                    f"     cross-checks: median of the {blocks} block-by-block ratios {r['paired']:.2f}x (middle half "
                    f"{q1:.2f}x-{q3:.2f}x); CPU time per round trip {ms(r['cpu_game'])} against {ms(r['cpu_echo'])}, "
                    f"{r['ratio_cpu']:.2f}x"
                )
                print(
                    f"     the server's own work per command (medians): submit {ms(r['submit'])} (of which the save's "
                    f"append {ms(r['save'])}), {PLAYERS} updates built, packed and written {ms(r['broadcast'])}"
                )
            print()
        if 2 in figures:
            print(
                f"2. Games held by one server process: N L'Agent Jean! games of {PLAYERS} human seats, clients in a "
                f"second process, a move every {THINK[0]}-{THINK[1]} s of think time per game; {warm:.1f} s warm-up, "
                f"{measure:.1f} s measured per N; stop at a median or p95 over {GOAL_RT * 1000:.0f} ms, or at {args.cap}"
            )
            print(
                "       N  moves/s   round    median       p95       p99       max   server CPU       clients"
                "   loop lag p95/max  buf KiB   RSS  objects full  longest  load"
            )
            print(
                "                    trips                                           (of 1 core)  per move   CPU"
                "                        max     MiB   (GC)    GCs       GC"
            )
            if args.steps:
                steps = [int(x) for x in args.steps.split(",")]
            else:
                steps = []
                n = 1
                while n < args.cap:
                    steps.append(n)
                    n *= 4 if args.quick else 2
                steps.append(args.cap)
            gc.collect()
            t0 = time.perf_counter()
            caps = asyncio.run(
                bench_capacity(steps, warm, measure, Path(tmp), 7, print_capacity_row, refine=not args.steps)
            )
            took2 = time.perf_counter() - t0
            ok = [r for r in caps if held(r)]
            over = sorted(r["n"] for r in caps if not held(r))
            best = max((r["n"] for r in ok), default=0)
            if over:
                print(
                    f"   held: {best} games ({best * PLAYERS} clients) with median and p95 under 100 ms; "
                    f"{', '.join(map(str, over))} did not"
                )
            else:
                print(f"   held: {best} games ({best * PLAYERS} clients), the cap, with median and p95 under 100 ms")
            last = max(caps, key=lambda r: r["n"])
            if last["client_cpu"] > 0.85:
                print(
                    f"   at {last['n']} games the clients' process used {last['client_cpu'] * 100:.0f}% of a core and the "
                    f"server {last['server_cpu'] * 100:.0f}%: on 2 cores the clients may give out as soon as the server"
                )
            full = [(r["n"], r["gc_max"]) for r in sorted(caps, key=lambda r: r["n"]) if r["gc_full"]]
            if full:
                print(
                    "   full collections of the cyclic GC in the server's windows (every game waits for them): "
                    + ", ".join(f"{ms(p)} at {n} games" for n, p in full)
                )
            late = sorted(r["n"] for r in caps if r["p99"] > GOAL_RT)
            if late:
                print(f"   99th percentile over 100 ms at: {', '.join(map(str, late))} games")
            per_move = med([r["server_cpu_per_move"] for r in caps if r["n"] >= 64] or [last["server_cpu_per_move"]])
            rate = 2 / (THINK[0] + THINK[1])
            print(
                f"   server CPU per move (median over N >= 64): {ms(per_move)}; one whole core would serve about "
                f"{1 / per_move:.0f} moves/s, {1 / per_move / rate:.0f} games at {rate:.2f} moves/s each (an estimate, not a measurement)"
            )
            noisy = {k: v for r in caps for k, v in r["server_noise"].items()}
            if noisy:
                print(f"   the server's event loop reported: {noisy}")
            print(f"   ({took2:.0f} s)")
            print()
        if 3 in figures:
            rounds, quiet, watching = (2, 1.5, 1.0) if args.quick else (3, 3.0, 2.0)
            print(
                f"3. A crowd joining while two play: Ministères, 2 human seats, their clients in this process, a move "
                f"{CROWD_THINK[0] * 1000:.0f}-{CROWD_THINK[1] * 1000:.0f} ms after the last; {args.crowd} spectators join "
                f"at once from a second process, watch {watching:.0f} s and leave; {rounds} rounds, a fresh game each, "
                f"{quiet:.1f} s without a crowd before each"
            )
            t0 = time.perf_counter()
            crowd = asyncio.run(bench_crowd(args.crowd, rounds, quiet, watching, Path(tmp), 11))
            print_crowd(crowd, args.crowd, rounds)
            print(f"   ({time.perf_counter() - t0:.0f} s)")
            print()
    print(
        f"load average at the end: {os.getloadavg()[0]:.2f}; peak RSS of this process {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB"
    )
    print(f"bench run took {time.perf_counter() - t_all:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
