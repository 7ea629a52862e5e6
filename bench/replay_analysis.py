"""The replay while its analysis is being made (issue 36): how long one step (→, the board
and history drawn again) takes with the analysis working in its thread, against the same
step with nothing running, in one app, windows alternated (a window each side, in turn;
which side goes first alternates too).  The analysis is the real one, on a whole 3-player
L'Agent Jean! game, at 10 times the replay's effort (at the replay's own, 48, it is over in
a few seconds: a window would outlast it; the work is the same kind, only longer); each
"with" window starts it (a) and stops it (Esc) after its steps, so nothing is kept and
every window measures it under way.

    .venv/bin/python bench/replay_analysis.py [--windows 8] [--steps 12]

Figures in docs/PERFORMANCE.md ("Issue 36: the replay while it analyses").  Not part of the test run.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from textual import events  # noqa: E402

from saves import load  # noqa: E402
from screens.app import CabinetApp  # noqa: E402
from screens.replay import ReplayScreen  # noqa: E402
from table import Table  # noqa: E402
from tests.tui_helpers import agent_jean_match  # noqa: E402
from tui.session import start_save  # noqa: E402


def finished_game(where: Path) -> Path:
    match = agent_jean_match(humans=0, players=3, seed=9)
    writer = start_save(where, match, durable=False)
    Table(match, writer).play_out()
    writer.close()
    return writer.path


async def measure(path: Path, windows: int, steps: int) -> tuple[list[float], list[float]]:
    """Seconds a step took, with the analysis under way and without."""
    ReplayScreen.ANALYSIS_EFFORT = 10 * ReplayScreen.ANALYSIS_EFFORT
    app = CabinetApp(save_dir=path.parent)
    busy: list[float] = []
    idle: list[float] = []
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        app.open_replay(load(path).match, path, at=0)
        await pilot.pause()
        replay = app.screen
        assert isinstance(replay, ReplayScreen)
        forward = True

        async def step(key: str) -> float:
            """Seconds from the key sent to the screen refreshed after its step (not Pilot's
            press, which waits for the process to be idle: never, while the analysis works)."""
            at = replay.position
            drawn = asyncio.get_running_loop().create_future()
            t0 = time.perf_counter()
            app.post_message(events.Key(key, None))
            while replay.position == at:
                await asyncio.sleep(0.0005)
            replay.call_after_refresh(lambda: drawn.done() or drawn.set_result(None))
            await drawn
            return time.perf_counter() - t0

        async def step_window(into: list[float]) -> None:
            nonlocal forward
            for _ in range(steps):
                into.append(await step("right" if forward else "left"))
                await asyncio.sleep(0.05)  # a player's pace, not a flood
            forward = not forward  # back and forth over the same moves

        for window in range(windows):
            for side in ("busy", "idle") if window % 2 == 0 else ("idle", "busy"):
                if side == "busy":
                    await pilot.press("a")
                    await asyncio.sleep(0.3)  # under way
                    assert replay.analysing is not None, "the analysis ended before its window"
                    await step_window(busy)
                    await pilot.press("escape")
                    await app.workers.wait_for_complete()
                    await pilot.pause()
                else:
                    await step_window(idle)
    return busy, idle


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--windows", type=int, default=8)
    parser.add_argument("--steps", type=int, default=12)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as where:
        path = finished_game(Path(where))
        busy, idle = asyncio.run(measure(path, args.windows, args.steps))
    load_avg = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    ms = lambda s: f"{s * 1000:.1f} ms"  # noqa: E731
    q = lambda xs, p: sorted(xs)[int(p * (len(xs) - 1))]  # noqa: E731
    print(f"load average {load_avg}; {args.windows} windows of {args.steps} steps a side, alternated")
    print(f"  a step, nothing running:      median {ms(statistics.median(idle))}, p95 {ms(q(idle, 0.95))}")
    print(f"  a step, the analysis running: median {ms(statistics.median(busy))}, p95 {ms(q(busy, 0.95))}")
    print(
        f"  ratio: median {statistics.median(busy) / statistics.median(idle):.2f}x, "
        f"p95 {q(busy, 0.95) / q(idle, 0.95):.2f}x"
    )


if __name__ == "__main__":
    main()
