"""Cabinet's benchmarks: three figures, each a ratio against a yardstick
measured in the same run, plus the absolute times for information.

    /work/venv/bin/python bench/run.py            (from the repo root; 1 to 1.5 minutes)
    /work/venv/bin/python bench/run.py --quick    (fewer repetitions; about 25 s)
    /work/venv/bin/python bench/run.py --only 2,3 (some of the figures)

1. Start-up: fresh `cabinet` subprocess to its interactive main menu, against
   a fresh bare Textual app showing one Label (bench/_start_*.py).
2. Opening a save and showing its last position (saves.load + game.view +
   table.Table.history), against decoding the same file with msgpack
   alone; on a 10,000-event save and on the longest real game (bench/fixtures.py).
3. One step back at a random point: Match.state_at(n - 1) on the loaded
   10,000-event match at random n, against one game.evolve; and the same per
   game for 1988: Chirac contre Mitterrand, on its longest real 2-player game
   (bench/fixtures.py cm_match).  And a replay stepping back move by move from
   the end to move 1 of the 10,000-event save just loaded, whose states before
   its last checkpoint are made as the steps reach them (issue 35).

Every figure is the median over repetitions that alternate the two sides
(and which side goes first), so machine noise hits both; figures 1 and 2 also
print their CPU-time ratio, which other work on the machine moves less.
The game server (`cabinet host`, on loopback TCP) has its own: bench/net.py.
Benchmarks are run on demand; nothing here is part of the test run.  See
docs/PERFORMANCE.md.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import random
import resource
import statistics
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
for p in (str(ROOT), str(BENCH)):
    if p not in sys.path:
        sys.path.insert(0, p)

import fixtures  # noqa: E402
import msgpack  # noqa: E402

import saves  # noqa: E402
from core.engine import PUBLIC, Match  # noqa: E402
from table import Table  # noqa: E402
from table.feed import local_log  # noqa: E402
from table.table import HISTORY_CHUNK  # noqa: E402

GOAL_STARTUP = 1.15  # x the bare Textual app (issue 35; it was 1.3)
GOAL_OPEN = 2.0  # x msgpack alone (issue 35; 5.0 before)
GOAL_STEP_MS = 5.0  # ms per step back

_PREAMBLE = 14  # MAGIC (12 bytes) + format version (u16): see saves/format.py
_FRAME = struct.Struct(">cIII8s8s")  # kind, record number, body length, CRC32, link, seal


# -- timing helpers ----------------------------------------------------------------


def timed(fn: Callable[[], Any]) -> float:
    gc.collect()
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def cpu_timed(fn: Callable[[], Any]) -> float:
    """CPU time of this process for one call: blind to waiting for a core."""
    gc.collect()
    c0 = time.process_time()
    fn()
    return time.process_time() - c0


def alternate(a: Callable[[], Any], b: Callable[[], Any], reps: int) -> tuple[list[Any], list[Any]]:
    """``reps`` measurements of each side, A B, B A, A B...: one side never
    gets all the warm (or all the noisy) slots."""
    ta: list[Any] = []
    tb: list[Any] = []
    for i in range(reps):
        if i % 2 == 0:
            ta.append(a())
            tb.append(b())
        else:
            tb.append(b())
            ta.append(a())
    return ta, tb


def med(xs: list[float]) -> float:
    return statistics.median(xs)


def ms(seconds: float) -> str:
    if abs(seconds) >= 0.01:
        return f"{seconds * 1000:.1f} ms"
    if abs(seconds) >= 0.001:
        return f"{seconds * 1000:.2f} ms"
    return f"{seconds * 1e6:.1f} us"


def spread(xs: list[float]) -> str:
    return f"min {ms(min(xs))}, max {ms(max(xs))}"


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


# -- 1. start-up ----------------------------------------------------------------


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def run_child(script: Path, env: dict[str, str]) -> tuple[float, float]:
    """(wall time, CPU time user + system) of one fresh child process.  The
    children run one at a time, so the growth of RUSAGE_CHILDREN is this one's."""
    cpu0 = _children_cpu()
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, str(script)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    elapsed = time.perf_counter() - t0
    cpu = _children_cpu() - cpu0
    if proc.returncode != 0 or proc.stdout.strip() != "shown":
        raise SystemExit(f"{script.name} did not come up (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
    return elapsed, cpu


def child_env(tmp: str, bytecode_cache: bool) -> dict[str, str]:
    """The children's environment.  ``bytecode_cache``: Python may cache the
    compiled modules (as for any installed app), kept under ``tmp`` so nothing
    is written next to the sources; otherwise the environment is inherited as
    it is (this sandbox sets PYTHONDONTWRITEBYTECODE=1, so Cabinet's own
    modules, installed editable with no .pyc beside them, are compiled from
    source at every start, while Textual's come precompiled from its wheel)."""
    env = {**os.environ, "CABINET_SAVE_DIR": str(Path(tmp) / "saves")}
    env.pop("TEXTUAL", None)  # no devtools
    if bytecode_cache:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
    return env


def bench_startup(reps: int, bytecode_cache: bool) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="cabinet-bench-") as tmp:
        env = child_env(tmp, bytecode_cache)
        cab = BENCH / "_start_cabinet.py"
        bare = BENCH / "_start_bare.py"
        for _ in range(2):  # warm the page cache (and the bytecode cache) of both
            run_child(bare, env)
            run_child(cab, env)
        tc, tb = alternate(lambda: run_child(cab, env), lambda: run_child(bare, env), reps)
    cab_wall, cab_cpu = [w for w, _ in tc], [c for _, c in tc]
    bare_wall, bare_cpu = [w for w, _ in tb], [c for _, c in tb]
    # each run's ratio to its neighbour of the other side: how much the
    # figure moves with the machine's mood
    paired = sorted(c / b for c, b in zip(cab_wall, bare_wall, strict=True))
    q1, _, q3 = statistics.quantiles(paired, n=4)
    return {
        "cabinet": cab_wall,
        "bare": bare_wall,
        "ratio": med(cab_wall) / med(bare_wall),
        "paired": med(paired),
        "paired_iqr": (q1, q3),
        "cabinet_cpu": cab_cpu,
        "bare_cpu": bare_cpu,
        "ratio_cpu": med(cab_cpu) / med(bare_cpu),
    }


def _importtime(script: Path, env: dict[str, str]) -> dict[str, int]:
    """Self time (us) of every module one child imports (python -X importtime)."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", str(script)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    out: dict[str, int] = {}
    for line in proc.stderr.splitlines():
        if line.startswith("import time:") and "self [us]" not in line:
            self_us, _, name = line.split(":", 1)[1].split("|")
            out[name.strip()] = int(self_us)
    return out


def startup_imports(bytecode_cache: bool, reps: int = 5) -> dict[str, Any]:
    """Import time of both children, and of the modules only Cabinet imports
    (medians of ``reps`` runs each, alternated)."""
    with tempfile.TemporaryDirectory(prefix="cabinet-bench-") as tmp:
        env = child_env(tmp, bytecode_cache)
        cab = BENCH / "_start_cabinet.py"
        bare = BENCH / "_start_bare.py"
        run_child(bare, env)
        run_child(cab, env)
        rc, rb = alternate(lambda: _importtime(cab, env), lambda: _importtime(bare, env), reps)
    extra = sorted(set(rc[0]) - set(rb[0]))
    per_module = {m: med([r.get(m, 0) for r in rc]) / 1e6 for m in extra}
    return {
        "cabinet": med([sum(r.values()) for r in rc]) / 1e6,
        "bare": med([sum(r.values()) for r in rb]) / 1e6,
        "extra_count": len(extra),
        "extra": med([sum(r.get(m, 0) for m in extra) for r in rc]) / 1e6,
        "top": sorted(per_module.items(), key=lambda kv: -kv[1])[:8],
    }


def inherited_bytecode() -> str:
    if os.environ.get("PYTHONPYCACHEPREFIX"):
        return "PYTHONPYCACHEPREFIX is set"
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        if (ROOT / "tui" / "__pycache__").is_dir():
            return "PYTHONDONTWRITEBYTECODE is set, but tui/__pycache__ exists"
        return "PYTHONDONTWRITEBYTECODE is set: Cabinet's own modules compiled at every start"
    return "bytecode cached beside the sources, as usual"


# -- 2. opening a save --------------------------------------------------------------


def msgpack_alone(path: Path) -> list[Any]:
    """The yardstick: read the file, walk the frames, msgpack.unpackb each body."""
    data = path.read_bytes()
    pos = _PREAMBLE
    bodies = []
    while pos < len(data):
        _, _, length, _, _, _ = _FRAME.unpack_from(data, pos)
        pos += _FRAME.size
        bodies.append(msgpack.unpackb(data[pos : pos + length]))
        pos += length
    return bodies


def viewer_of(match: Match) -> Any:
    """Whose eyes the play screen shows the game through (PlayScreen.__init__)."""
    humans = match.humans()
    return humans[0] if humans else PUBLIC


def open_and_show(path: Path) -> tuple[Match, Any, list]:
    """What opening a save to play on costs, as the play screen opens it: the load, the
    table's first update to the seat (the newest events as the seat may see them, the moves,
    the view, the legal moves: ``LocalFeed.tell``) taken into its log (``local_log``), then the lines a
    history panel builds at first from that log (``HistoryPanel.set_history``: the newest
    chunk's)."""
    match = saves.load(path, fixtures.GAMES).match
    table = Table(match)
    log = local_log(table, viewer_of(match))
    log.apply(table.update_for(log.seat, 0, newest=HISTORY_CHUNK))
    n = len(log.events)
    lines = log.lines_between(max(0, n - HISTORY_CHUNK), n)
    return match, log.view, lines


def bench_open(path: Path, reps: int, inner: int = 1) -> dict[str, Any]:
    """``inner``: back-to-back calls per timing (for a small save), the time
    reported per call.  The CPU time of this process is taken beside the wall
    time, as a cross-check: it leaves out the time the process waits for a
    core while other work runs (it still feels the caches shared with it)."""

    def each(fn: Callable[[Path], Any]) -> Callable[[], tuple[float, float]]:
        def run() -> tuple[float, float]:
            gc.collect()
            c0 = time.process_time()
            t0 = time.perf_counter()
            for _ in range(inner):
                fn(path)
            t1 = time.perf_counter()
            c1 = time.process_time()
            return (t1 - t0) / inner, (c1 - c0) / inner

        return run

    rc, rm = alternate(each(open_and_show), each(msgpack_alone), reps)
    tc, tm = [w for w, _ in rc], [w for w, _ in rm]
    cc, cm = [c for _, c in rc], [c for _, c in rm]
    paired = sorted(c / m for c, m in zip(tc, tm, strict=True))
    match, _, lines = open_and_show(path)
    return {
        "events": len(match.events),
        "moves": len(match.moves) - 1,
        "rounds": getattr(match.state, "round", "?"),
        "finished": match.outcome is not None,
        "lines": len(lines),
        "bytes": path.stat().st_size,
        "cabinet": tc,
        "msgpack": tm,
        "ratio": med(tc) / med(tm),
        "paired": med(paired),
        "cabinet_cpu": cc,
        "msgpack_cpu": cm,
        "ratio_cpu": med(cc) / med(cm),
    }


def stateless_copy(path: Path, dst: Path) -> Path:
    """``path`` as a Cabinet before issue 35 wrote it (checkpoints without their state),
    sealed with the key of ``dst``'s directory, which is made ``path``'s: what an old save
    costs to open."""
    from saves import format as F

    (dst.parent / F.KEY_NAME).write_bytes((path.parent / F.KEY_NAME).read_bytes())
    data = path.read_bytes()
    chain = F.Chain(F.dir_key(dst.parent))
    out = [F.preamble()]
    pos = _PREAMBLE
    while pos < len(data):
        kind, _, length, _, _, _ = _FRAME.unpack_from(data, pos)
        body = data[pos + _FRAME.size : pos + _FRAME.size + length]
        if kind == F.CHECKPOINT:
            plain = msgpack.unpackb(body)
            plain.pop("state", None)
            body = msgpack.packb(plain, use_bin_type=True)
        out.append(chain.frame(kind, body))
        pos += _FRAME.size + length
    dst.write_bytes(b"".join(out))
    return dst


def open_breakdown(path: Path, reps: int) -> list[tuple[str, float]]:
    """Where the opening time goes, stage by stage, each timed on its own in CPU time
    (medians).  Uses saves.format internals: information only."""
    from saves import format as F

    data = path.read_bytes()
    frames: list[tuple[bytes, bytes, int]] = []
    pos = _PREAMBLE
    while pos < len(data):
        kind, _, length, crc, _, _ = _FRAME.unpack_from(data, pos)
        pos += _FRAME.size
        frames.append((kind, data[pos : pos + length], crc))
        pos += length
    bodies = [msgpack.unpackb(b) for _, b, _ in frames]
    header = bodies[0]
    game = fixtures.GAMES[header["game"]]
    moves = [b for (k, _, _), b in zip(frames, bodies, strict=True) if k == F.MOVE]
    (path.parent / "old").mkdir(exist_ok=True)
    old = stateless_copy(path, path.parent / "old" / path.name)

    strict = F._STRICT  # the loader's options for a save not sealed here, map-key check included
    no_hook = {k: v for k, v in strict.items() if k != "object_pairs_hook"}

    # the decoded bodies are kept, as the yardstick and the loader keep them
    # (the match holds its events): discarding them would hide the work the
    # cyclic GC does as the kept containers pile up
    def decode(options: dict[str, Any]) -> Callable[[], list[Any]]:
        def run() -> list[Any]:
            out = []
            for _, body, crc in frames:
                assert zlib.crc32(body) == crc
                out.append(msgpack.unpackb(body, **options))
            return out

        return run

    key = F.dir_key(path.parent)

    def skim() -> None:
        reader = F._Reader(data, path.name)
        F._read_header(reader)
        reader.walk([])
        assert reader.sealed_by(key)

    def replay() -> Match:
        match = Match(game, header)
        for m in moves:
            match.replay_move(m["seat"], m["command"], m["events"])
        return match

    match = saves.load(path, fixtures.GAMES).match
    viewer = viewer_of(match)
    stages: list[tuple[str, Callable[[], Any]]] = [
        ("msgpack alone (the yardstick)", lambda: msgpack_alone(path)),
        ("frames, the file's hash, the last seal (no body decoded)", skim),
        ("frames + CRC + decode, keys unchecked (sealed)", decode(no_hook)),
        ("  same, string keys checked (not sealed here)", decode(strict)),
        (f"fold every event: Match + evolve x {len(match.events)}", replay),
        ("saves.load as a whole (sealed: last state + tail)", lambda: saves.load(path, fixtures.GAMES)),
        ("  an old save, no states: every event folded", lambda: saves.load(old, fixtures.GAMES)),
        ("  every move decided again (a copied save, verify)", lambda: saves.load(path, fixtures.GAMES, rederive=True)),
        ("game.view", lambda: game.view(match.state, viewer)),
        ("history_lines, every event's (before issue 35)", lambda: Table(match).history(viewer)),
        (
            f"history_lines, the newest {HISTORY_CHUNK} events' (the panel's first)",
            lambda: Table(match).history(viewer, max(0, len(match.events) - HISTORY_CHUNK)),
        ),
    ]
    return [(name, med([cpu_timed(fn) for _ in range(reps)])) for name, fn in stages]


def bench_walk_back(path: Path) -> dict[str, Any]:
    """A replay of the save just loaded stepping back one move at a time from the end to
    move 1: the states before the last checkpoint are made as the steps reach them."""
    match = saves.load(path, fixtures.GAMES).match
    ends = [move.end for move in match.moves[1:]]
    times = []
    for n in reversed(ends[:-1]):
        t0 = time.perf_counter()
        match.state_at(n)
        times.append(time.perf_counter() - t0)
    times_sorted = sorted(times)
    return {
        "steps": len(times),
        "mean": sum(times) / len(times),
        "p99": times_sorted[int(0.99 * (len(times) - 1))],
        "max": times_sorted[-1],
    }


# -- 3. one step back -------------------------------------------------------------


def bench_step(match: Match, reps: int, per_rep: int, seed: int = 1, min_evolves: int = 5000) -> dict[str, Any]:
    """``min_evolves``: a short log is folded again and again until one timing
    of the evolve side covers at least that many evolves."""
    game = match.game
    events = match.events
    folds = max(1, -(-min_evolves // len(events)))
    rng = random.Random(seed)
    all_steps: list[float] = []

    def evolve_side() -> float:
        """Mean time of one evolve: fold the whole log from the empty table
        (``folds`` times over)."""
        evolve = game.evolve
        initial = [game.initial(match.config) for _ in range(folds)]
        gc.collect()
        t0 = time.perf_counter()
        for state in initial:
            for ev in events:
                state = evolve(state, ev)
        return (time.perf_counter() - t0) / (len(events) * folds)

    def step_side() -> float:
        ns = [rng.randint(1, len(events)) for _ in range(per_rep)]
        gc.collect()
        times = []
        for n in ns:
            t0 = time.perf_counter()
            match.state_at(n - 1)
            times.append(time.perf_counter() - t0)
        all_steps.extend(times)
        return sum(times) / len(times)

    ts, te = alternate(step_side, evolve_side, reps)
    all_steps.sort()
    return {
        "game": game.title,
        "events": len(events),
        "folds": folds,
        "snapshot_every": match.snapshot_every,
        "step": ts,
        "evolve": te,
        "ratio": med(ts) / med(te),
        "p99": all_steps[int(0.99 * (len(all_steps) - 1))],
        "max": all_steps[-1],
        "calls": len(all_steps),
    }


# -- report -------------------------------------------------------------------------


def machine() -> str:
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:
        cpus = os.cpu_count()
    from importlib.metadata import PackageNotFoundError, version

    import textual

    try:
        tv = version("textual")
    except PackageNotFoundError:
        tv = getattr(textual, "__version__", "?")
    return (
        f"{platform.system()} {platform.machine()}, {cpus} CPUs (nproc), "
        f"Python {platform.python_version()} ({platform.python_implementation()}), "
        f"textual {tv}, msgpack {'.'.join(map(str, msgpack.version))}"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer repetitions (a rough look)")
    ap.add_argument("--no-breakdown", action="store_true", help="skip the import and stage breakdowns")
    ap.add_argument("--only", "--figures", dest="only", default="1,2,3", help="the figures to measure, e.g. 2,3")
    args = ap.parse_args(argv)
    only = {int(x) for x in args.only.split(",") if x.strip()}
    r_start, r_open, r_step = (7, 3, 3) if args.quick else (41, 11, 9)

    t_all = time.perf_counter()
    print("Cabinet benchmarks")
    print("machine:", machine())
    print()

    # 1
    conditions = (
        (True, r_start, "with a bytecode cache (as installed)"),
        (False, max(5, r_start // 2), f"environment as inherited ({inherited_bytecode()})"),
    )
    if 1 in only:
        print("1. Start-up to the interactive main menu, fresh process, headless (medians)")
    for cached, reps, label in conditions if 1 in only else ():
        s = bench_startup(reps, cached)
        print(f"   {label}, {reps} runs each:")
        print(f"     cabinet        {ms(med(s['cabinet']))}   ({spread(s['cabinet'])})")
        print(f"     bare Textual   {ms(med(s['bare']))}   ({spread(s['bare'])})")
        print(
            f"     ratio          {s['ratio']:.2f}x   goal <= {GOAL_STARTUP}x   {verdict(s['ratio'] <= GOAL_STARTUP)}"
        )
        q1, q3 = s["paired_iqr"]
        print(
            f"     cross-checks: median of the {reps} side-by-side ratios {s['paired']:.2f}x "
            f"(middle half {q1:.2f}x-{q3:.2f}x); CPU time (user+sys) {ms(med(s['cabinet_cpu']))} "
            f"against {ms(med(s['bare_cpu']))}, {s['ratio_cpu']:.2f}x"
        )
        if not args.no_breakdown:
            imp = startup_imports(cached, 3 if args.quick else 5)
            top = ", ".join(f"{m} {t * 1000:.1f}" for m, t in imp["top"])
            gap = med(s["cabinet"]) - med(s["bare"])
            print(
                f"     the gap, {ms(gap)}: the {imp['extra_count']} modules only Cabinet imports take "
                f"{ms(imp['extra'])} (python -X importtime, self times); the rest is mounting and painting the menu"
            )
            print(f"       biggest of those (ms): {top}")
    print()

    # 2
    with tempfile.TemporaryDirectory(prefix="cabinet-bench-") as tmp:
        t0 = time.perf_counter()
        long_path = fixtures.long_save(Path(tmp) / "long.cab")
        real_path = fixtures.real_save(Path(tmp) / "real.cab")
        short_path = fixtures.real_save(Path(tmp) / "short.cab", fixtures.SHORT_SEED) if 2 in only else None
        made = time.perf_counter() - t0
        if 2 in only:
            assert short_path is not None
            results = {
                "10,000-event save (marathon)": bench_open(long_path, r_open),
                "longest real game": bench_open(real_path, r_open * 3),
                "a short real game (no goal: stated)": bench_open(short_path, r_open * 3),
            }
            print(f"2. Opening a save and showing its last position (medians; saves made by bots in {made:.1f} s)")
            for label, o in results.items():
                state = "finished" if o["finished"] else "in progress"
                print(
                    f"   {label}: {o['events']} events, {o['moves']} moves, round {o['rounds']}, {state}, "
                    f"{o['bytes'] / 1024:.0f} KiB, {o['lines']} history lines; {len(o['cabinet'])} runs each"
                )
                print(f"     load + view + history   {ms(med(o['cabinet']))}   ({spread(o['cabinet'])})")
                print(f"     msgpack alone           {ms(med(o['msgpack']))}   ({spread(o['msgpack'])})")
                goal = f"goal <= {GOAL_OPEN}x   {verdict(o['ratio'] <= GOAL_OPEN)}" if "no goal" not in label else ""
                print(f"     ratio                   {o['ratio']:.2f}x   {goal}")
                print(
                    f"     cross-checks: median of the side-by-side ratios {o['paired']:.2f}x; CPU time "
                    f"{ms(med(o['cabinet_cpu']))} against {ms(med(o['msgpack_cpu']))}, {o['ratio_cpu']:.2f}x"
                )
            if not args.no_breakdown:
                for label, path in (("10,000-event save", long_path), ("longest real game", real_path)):
                    print(f"   where the time goes ({label}; each stage timed alone, CPU time, medians):")
                    stages = open_breakdown(path, max(3, r_open // 2) * (1 if path is long_path else 9))
                    yardstick = stages[0][1]
                    for name, t in stages:
                        print(f"     {name:<52} {ms(t):>10}  {t / yardstick:5.2f}x")
            print()

        # 3
        if 3 in only:
            match = saves.load(long_path, fixtures.GAMES).match
            per_rep = 400 if not args.quick else 200
            steps = [("L'Agent Jean! (marathon), the loaded 10,000-event save", bench_step(match, r_step, per_rep))]
            cm = fixtures.cm_match()
            steps.append((f"{cm.game.title}, longest real 2-player game (in memory)", bench_step(cm, r_step, per_rep)))
            walks = [bench_walk_back(long_path) for _ in range(r_step)]
    if 3 in only:
        print("3. One step back at a random point: state_at(n-1) at random n, against one evolve of the same game")
        for label, st in steps:
            fold = f", log folded {st['folds']}x per run" if st["folds"] > 1 else ""
            print(
                f"   {label}: {st['events']} events, snapshot every {st['snapshot_every']}; "
                f"{st['calls']} calls in {r_step} runs{fold}"
            )
            print(
                f"     state_at(n-1)   {ms(med(st['step']))} mean per call (median of runs); p99 {ms(st['p99'])}, max {ms(st['max'])}"
            )
            print(f"     one evolve      {ms(med(st['evolve']))} (mean over the whole log)")
            ok = med(st["step"]) < GOAL_STEP_MS / 1000 and st["p99"] < GOAL_STEP_MS / 1000
            print(
                f"     ratio           {st['ratio']:.1f}x one evolve   goal < {GOAL_STEP_MS:.0f} ms (mean and p99)   {verdict(ok)}"
            )
        mean = med([w["mean"] for w in walks])
        p99 = med([w["p99"] for w in walks])
        print(
            f"   a replay of the 10,000-event save just loaded, stepping back move by move to move 1 "
            f"({walks[0]['steps']} steps, {len(walks)} loads): mean {ms(mean)} a step (median of loads), "
            f"p99 {ms(p99)}, max {ms(max(w['max'] for w in walks))}   goal < {GOAL_STEP_MS:.0f} ms   "
            f"{verdict(mean < GOAL_STEP_MS / 1000 and p99 < GOAL_STEP_MS / 1000)}"
        )
        print()
    print(f"bench run took {time.perf_counter() - t_all:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
