"""What a move's update costs a screen: the app's CPU an update, and what each frame drew.

    .venv/bin/python bench/update_cost.py                 (from the repo root; about 3 minutes)
    .venv/bin/python bench/update_cost.py --games ministeres --moves 60
    .venv/bin/python bench/update_cost.py --tree /some/other/checkout   (the same on another tree)

For each of the four games, a table of two players is hosted in this process (net.server's
GameServer on loopback, the server `cabinet host` runs).  Seat 1 is a scripted client in this
process (net.client.RemoteTable); seat 0 is `cabinet join` (cabinet.main.main itself), a fresh
process in a pseudo-terminal of 80x24 that this script reads and drains, with the environment
of a served session (TERM xterm-256color, truecolor, TEXTUAL_FPS 30).  The player at seat 0 is
scripted inside that app: when its update says it must move, it plays a random legal command
through the table screen's feed after a pause (what its board's Chosen message does), first
answering a dialog over the table as a player would (a score sheet: go on; 1988's campaign draw:
a pick of its own).  Each seat
waits PACE seconds before it moves, so that every update is drawn on its own, as at a table of
people (a move every 1-2 s leaves the screen idle between updates).

The figure is the app's CPU (user + system, /proc/PID/stat) over a window of MOVES moves, each
move one update to the app, divided by the moves: CPU per update, everything the app does for it
(reading the frame, the seat's log, the board, status line, history, footer, the layout, the
frames written to the terminal).  The window starts after WARM moves; for Ministères, once the
table is in its auctions (the phase issue 35 names), where every move passes the turn.

Where it goes: the app counts, over the window, the lines of every widget drawn (Textual's
StylesCache.render_widget: the height of the part asked for, by the widget's class and id; a
container is drawn under every part of it a frame redraws), every layout of the screen
(Screen._refresh_layout with a layout) and every frame written (App._display).

`--compare TREE` measures each game on another tree (say, a checkout from before a change)
and on this one, alternated, `--rounds` times, and gives the medians of both.

Benchmarks are run on demand; nothing here is part of the test run.  See docs/PERFORMANCE.md,
"Issue 35: start-up and updates".
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import platform
import random
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
GAMES = ("agent-jean", "chirac-mitterrand", "edgar-lucien", "ministeres")
COLS, ROWS = 80, 24
PACE = 0.4  # s a seat waits before it moves in the window
WARM_PACE = 0.05  # s before the window
HOST = "127.0.0.1"


# -- the app's side: `cabinet join`, its seat played by a script ----------------------------


def child(tree: Path, address: str, code: str, pace: float, seed: int, counts: Path) -> int:
    sys.path.insert(0, str(tree))
    from textual._styles_cache import StylesCache
    from textual.app import App
    from textual.screen import Screen

    import cabinet.main as program
    from screens.play import PlayScreen

    drawn: collections.Counter[str] = collections.Counter()
    tally = {"frames": 0, "layouts": 0, "refreshes": 0}

    render_widget = StylesCache.render_widget

    frame_parts: collections.Counter[str] = collections.Counter()  # what the frame being made draws
    frames_seen: collections.Counter[str] = collections.Counter()  # frames, by what they drew

    def counted_render_widget(self: Any, widget: Any, crop: Any) -> Any:
        name = f"{type(widget).__name__}#{widget.id}" if widget.id else type(widget).__name__
        drawn[name] += crop.height
        frame_parts[name] += crop.height
        return render_widget(self, widget, crop)

    display = App._display

    def counted_display(self: Any, screen: Any, renderable: Any) -> None:
        if renderable is not None and not self._batch_count:
            tally["frames"] += 1
            frames_seen[" ".join(f"{k}:{v}" for k, v in sorted(frame_parts.items()))] += 1
            trace.append(("frame", " ".join(sorted(frame_parts))))
        frame_parts.clear()
        display(self, screen, renderable)

    refresh_layout = Screen._refresh_layout

    def counted_refresh_layout(self: Any, size: Any = None, scroll: bool = False) -> None:
        if self._layout_required:
            tally["layouts"] += 1
        else:
            tally["refreshes"] += 1
        refresh_layout(self, size, scroll)

    from textual.widget import Widget

    refresh = Widget.refresh

    def counted_refresh(self: Any, *regions: Any, repaint: bool = True, layout: bool = False, **kw: Any) -> Any:
        if layout:  # who asks for a layout, by the widget's class and id (and why, with CABINET_BENCH_WHY)
            name = f"{type(self).__name__}#{self.id}" if self.id else type(self).__name__
            if os.environ.get("CABINET_BENCH_WHY"):
                f = sys._getframe(1)
                trail = []
                while f is not None and len(trail) < 4:
                    trail.append(f"{Path(f.f_code.co_filename).stem}.{f.f_code.co_name}")
                    f = f.f_back
                name += " <- " + " <- ".join(trail)
            why[name] += 1
            trace.append(("layout", name))
        return refresh(self, *regions, repaint=repaint, layout=layout, **kw)

    why: collections.Counter[str] = collections.Counter()
    trace: collections.deque[tuple[str, str]] = collections.deque(maxlen=400)  # with CABINET_BENCH_WHY
    Widget.refresh = counted_refresh  # type: ignore[method-assign]
    profile_to = os.environ.get("CABINET_BENCH_PROFILE")
    profiler = None
    if profile_to:
        import cProfile

        profiler = cProfile.Profile()

    StylesCache.render_widget = counted_render_widget  # type: ignore[method-assign]
    App._display = counted_display  # type: ignore[method-assign]
    Screen._refresh_layout = counted_refresh_layout  # type: ignore[method-assign]

    def reset(*_: Any) -> None:
        drawn.clear()
        why.clear()
        frames_seen.clear()
        tally.update(dict.fromkeys(tally, 0))
        if profiler is not None:
            profiler.enable()

    def dump(*_: Any) -> None:
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(profile_to)
        counts.write_text(
            json.dumps(
                {
                    "drawn": dict(drawn),
                    "layout_asked": dict(why),
                    "frames_seen": dict(frames_seen),
                    "trace": list(trace),
                    **tally,
                }
            )
        )

    signal.signal(signal.SIGUSR1, reset)
    signal.signal(signal.SIGUSR2, dump)

    rng = random.Random(seed)
    updated = PlayScreen.updated

    def scripted_updated(self: PlayScreen, update: dict[str, Any]) -> None:
        trace.append(("update", f"move {update.get('move_count', '?')}"))
        updated(self, update)
        log = self.knows
        if log.outcome is None and log.my_move() and log.legal:
            moves = list(log.legal)
            n = log.move_count

            def play() -> None:  # what the board's Chosen message does
                if not (self.is_attached and self.knows.move_count == n and self.knows.my_move()):
                    return
                top = self.app.screen
                if top is not self:  # a dialog over the table, answered as its player would
                    commands = getattr(top, "commands", None)  # 1988's campaign draw: a pick
                    if commands:
                        top.dismiss(rng.choice(commands))  # type: ignore[attr-defined]
                        return
                    top.dismiss(None)  # type: ignore[attr-defined]  # a score sheet: go on
                self.feed.command(rng.choice(moves))

            self.set_timer(self.app.bench_pace, play)  # type: ignore[attr-defined]

    PlayScreen.updated = scripted_updated  # type: ignore[method-assign]

    def set_pace(*_: Any) -> None:
        app = getattr(program, "running_app", None)
        if app is not None:
            app.bench_pace = PACE

    signal.signal(signal.SIGHUP, set_pace)

    from screens import app as app_module

    class PacedApp(app_module.CabinetApp):
        bench_pace = pace

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            program.running_app = self  # type: ignore[attr-defined]

    app_module.CabinetApp = PacedApp  # type: ignore[misc]
    return program.main(["join", address, code])


# -- this side: the table, the other seat, the terminal ----------------------------------------


def cpu_of(pid: int) -> float:
    """CPU seconds (user + system) process ``pid`` has used."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def measure(game_id: str, tree: Path, warm: int, moves: int, seed: int, tmp: Path) -> dict[str, Any]:
    import ptyprocess

    from core.games import get_game
    from net.client import RemoteTable
    from net.protocol import Address
    from net.server import GameServer, load_or_make_codes
    from tui.session import new_match, start_save

    game = get_game(game_id)
    assert game is not None, game_id
    match = new_match(game, 2, [], controllers=[{"kind": "human"}] * 2, seed=seed, bot_seed=seed + 1)
    writer = start_save(tmp, match, durable=False)
    server = GameServer(writer, load_or_make_codes(writer.path, match), bot_delay=0)
    address = await server.start(Address(host=HOST, port=0))
    other = RemoteTable(address, server.codes[1])
    await other.connect()
    counts = tmp / f"counts-{game_id}.json"
    env = {
        **os.environ,
        "TERM": "xterm-256color",
        "COLORTERM": "truecolor",
        "TEXTUAL_FPS": "30",
        "CABINET_SAVE_DIR": str(tmp / "saves"),
    }
    env.pop("NO_COLOR", None)
    argv = [sys.executable, str(Path(__file__).resolve()), "--child", str(tree), f"{HOST}:{address.port}"]
    argv += [server.codes[0], str(WARM_PACE), str(seed), str(counts)]
    proc = ptyprocess.PtyProcess.spawn(argv, env=env, dimensions=(ROWS, COLS), cwd=str(ROOT))
    loop = asyncio.get_running_loop()
    written = 0
    tail = bytearray()  # the last of what the app wrote, shown if it fails

    def drain() -> None:
        nonlocal written
        try:
            data = os.read(proc.fd, 1 << 16)
        except OSError:
            loop.remove_reader(proc.fd)
            return
        written += len(data)
        tail[:] = (tail + data)[-60000:]

    loop.add_reader(proc.fd, drain)
    rng = random.Random(seed + 7)
    pace = WARM_PACE
    played = 0  # moves made at the table (updates the app was sent)
    window: dict[str, Any] | None = None
    finished = False
    try:
        while True:
            try:
                u = await asyncio.wait_for(other.receive(), 30)
            except TimeoutError:
                raise RuntimeError(f"no move for 30 s; the app wrote last: {bytes(tail)!r}") from None
            if u is None:
                raise RuntimeError("the table's server closed the connection")
            if u.get("t") != "update":
                continue
            other.apply(u)
            if u.get("events"):
                played += 1
            view = other.view or {}
            ready = played >= warm and (game_id != "ministeres" or view.get("phase") == "auction")
            if window is None and ready:
                pace = PACE
                proc.kill(signal.SIGHUP)  # the app's player to the window's pace
                proc.kill(signal.SIGUSR1)  # its counts from zero
                await asyncio.sleep(0.1)
                window = {"cpu": cpu_of(proc.pid), "t": time.perf_counter(), "played": played, "bytes": written}
            if window is not None and (played - window["played"] >= moves or other.outcome is not None):
                finished = other.outcome is not None
                await asyncio.sleep(PACE + 0.3)  # the last update drawn
                cpu = cpu_of(proc.pid)
                proc.kill(signal.SIGUSR2)
                await asyncio.sleep(0.3)
                n = played - window["played"]
                got = json.loads(counts.read_text())
                return {
                    "game": game.title,
                    "moves": n,
                    "cpu_per_update": (cpu - window["cpu"]) / max(n, 1),
                    "seconds": time.perf_counter() - window["t"],
                    "bytes_per_update": (written - window["bytes"]) / max(n, 1),
                    "frames": got["frames"] / max(n, 1),
                    "layouts": got["layouts"] / max(n, 1),
                    "refreshes": got["refreshes"] / max(n, 1),
                    "drawn": {k: v / max(n, 1) for k, v in got["drawn"].items()},
                    "layout_asked": {k: v / max(n, 1) for k, v in got["layout_asked"].items()},
                    "frames_seen": got["frames_seen"],
                    "trace": got["trace"],
                    "finished": finished,
                    "phase": view.get("phase"),
                }
            if other.outcome is not None and window is None:
                raise RuntimeError(f"{game.title}: the game ended before the window ({played} moves)")
            if other.my_move() and other.legal:
                await asyncio.sleep(pace * (0.75 + 0.5 * rng.random()))
                other.command(rng.choice(other.legal))
    finally:
        loop.remove_reader(proc.fd)
        if proc.isalive():
            proc.terminate(force=True)
        await other.close()
        await server.close()


def compare(args: argparse.Namespace) -> int:
    """Each game on the two trees, alternated (A B, B A, ...), --rounds times: medians."""
    trees = {"before": Path(args.compare), "after": Path(args.tree)}
    print(f"A move's update, before ({args.compare}) and after ({args.tree}): {COLS}x{ROWS}, {args.moves} moves a run")
    print(f"{platform.python_implementation()} {platform.python_version()}; load at the start {os.getloadavg()}")
    for game_id in args.games.split(","):
        runs: dict[str, list[dict[str, Any]]] = {"before": [], "after": []}
        for i in range(args.rounds):
            for side in ("before", "after") if i % 2 == 0 else ("after", "before"):
                with tempfile.TemporaryDirectory(prefix="cabinet-bench-") as tmp:
                    r = asyncio.run(measure(game_id, trees[side], args.warm, args.moves, args.seed + i, Path(tmp)))
                runs[side].append(r)
        title = runs["after"][0]["game"]
        cells = []
        for side in ("before", "after"):
            rs = runs[side]
            cpu = statistics.median(r["cpu_per_update"] for r in rs) * 1000
            frames = statistics.median(r["frames"] for r in rs)
            layouts = statistics.median(r["layouts"] for r in rs)
            drawn = statistics.median(sum(r["drawn"].values()) for r in rs)
            cells.append(f"{side} {cpu:.1f} ms ({frames:.2f} frames, {layouts:.2f} layouts, {drawn:.0f} lines drawn)")
        each = " / ".join(
            f"{statistics.median(r['cpu_per_update'] for r in runs[s]) / statistics.median(r['cpu_per_update'] for r in runs['before']):.2f}"
            for s in ("after",)
        )
        print(f"{title}: CPU an update, medians of {args.rounds}: " + "; ".join(cells) + f"; after/before {each}")
        print(f"   load {os.getloadavg()[0]:.2f}")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--child":
        tree, address, code, pace, seed, counts = argv[1:7]
        return child(Path(tree), address, code, float(pace), int(seed), Path(counts))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", default=",".join(GAMES), help="games, by id, comma-separated")
    ap.add_argument("--moves", type=int, default=40, help="moves in each game's window")
    ap.add_argument("--warm", type=int, default=20, help="moves before the window")
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--tree", default=str(ROOT), help="the Cabinet tree the app runs from")
    ap.add_argument("--widgets", type=int, default=8, help="widgets listed by lines drawn an update")
    ap.add_argument(
        "--compare",
        metavar="TREE",
        help="another Cabinet tree (before a change): each game measured on both, alternated, --rounds times",
    )
    ap.add_argument("--rounds", type=int, default=3, help="with --compare: rounds of both trees")
    args = ap.parse_args(argv)
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    if args.compare:
        return compare(args)
    print(f"A move's update to a screen: {COLS}x{ROWS}, a move every {PACE:.1f} s or so, {args.moves} moves a game")
    print(f"tree {args.tree}; {platform.python_implementation()} {platform.python_version()}; load {os.getloadavg()}")
    for game_id in args.games.split(","):
        with tempfile.TemporaryDirectory(prefix="cabinet-bench-") as tmp:
            r = asyncio.run(measure(game_id, Path(args.tree), args.warm, args.moves, args.seed, Path(tmp)))
        top = sorted(r["drawn"].items(), key=lambda kv: -kv[1])[: args.widgets]
        print(
            f"{r['game']}: {r['moves']} moves{' (to the end)' if r['finished'] else ''}, "
            f"phase {r['phase']}: CPU {r['cpu_per_update'] * 1000:.1f} ms an update; "
            f"{r['frames']:.2f} frames, {r['layouts']:.2f} layouts, {r['refreshes']:.2f} repaints, "
            f"{r['bytes_per_update'] / 1024:.1f} KiB an update"
        )
        print("   lines drawn an update, by widget: " + ", ".join(f"{k} {v:.1f}" for k, v in top))
        print(f"   lines drawn an update, all widgets: {sum(r['drawn'].values()):.1f}; load {os.getloadavg()[0]:.2f}")
        asked = sorted(r["layout_asked"].items(), key=lambda kv: -kv[1])[: args.widgets]
        print("   layouts asked an update, by widget: " + ", ".join(f"{k} {v:.2f}" for k, v in asked))
        if os.environ.get("CABINET_BENCH_WHY"):
            for what, count in sorted(r["frames_seen"].items(), key=lambda kv: -kv[1])[: args.widgets]:
                print(f"   frame x{count}: {what}")
            print("   the last updates, in order:")
            for kind, what in r["trace"][-60:]:
                print(f"     {kind:7s} {what}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
