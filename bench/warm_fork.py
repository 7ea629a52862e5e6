"""What a session forked from the warm parent copies of it (issue 35, docs/PERFORMANCE.md).

    .venv/bin/python bench/warm_fork.py        (from the repo root; about 20 s)

A process prepared as ``cabinet warm-parent`` prepares itself (``cabinet.main.warm_up``: the
imports, the app run once headless to its menu), its heap collected and frozen, forks; the
child runs the app headless to its menu (as a session's first frame), or to a table of
Ministères against a bot and three keys.  The child's memory before and after, from
/proc/self/smaps_rollup: Private_Dirty (what is its own: pages it wrote, copied from the parent
or new) against Rss (its pages in all: what grew is new) and the blocks Python allocated.
Variants, each in a fresh process, alternated over the rounds: as the warm parent does
("warm"); without the rehearsal ("no rehearsal"); with the allocator's free blocks filled in
the parent before the fork ("holes filled": whether the child's new objects, landing in the
parent's pages, are what copies them).
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VARIANTS = ("warm", "no rehearsal", "holes filled")
SCENES = ("menu", "table")


def memory() -> dict[str, int]:
    out = {"blocks": sys.getallocatedblocks()}
    for line in Path("/proc/self/smaps_rollup").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("Rss", "Private_Dirty"):
            out[key] = int(value.split()[0])
    return out


def free_blocks() -> dict[int, int]:
    """Free blocks of each size class in pymalloc's pools (sys._debugmallocstats, on stderr)."""
    r, w = os.pipe()
    saved = os.dup(2)
    os.dup2(w, 2)
    os.close(w)
    try:
        sys._debugmallocstats()
    finally:
        os.dup2(saved, 2)
        os.close(saved)
    with os.fdopen(r, "rb") as f:
        text = f.read().decode()
    classes = {}
    for line in text.splitlines():
        found = re.match(r"\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*$", line)
        if found:
            classes[int(found.group(1))] = int(found.group(5))
    return classes


def fill_holes() -> list[object]:
    """Objects of every size class, as many as the pools have free blocks of it."""
    ballast: list[object] = []
    for size_class, n in free_blocks().items():
        for _ in range(n):
            if size_class == 0:
                ballast.append(object())
            elif size_class == 1:
                ballast.append(float(len(ballast)))
            else:
                ballast.append(bytes((size_class + 1) * 16 - 33))  # a bytes object of that block size
    return ballast


async def scene(name: str) -> None:
    from screens.app import CabinetApp
    from tui import cli
    from tui.start import Start

    start = Start()
    keys: list[str] = []
    if name == "table":
        parser = cli.build_parser()
        args = parser.parse_args(["play", "ministeres", "--players", "2", "--bots", "2"])
        start = Start(mode="play", match=cli.match_from_args(parser, args))
        keys = ["down", "enter", "down"]
    app = CabinetApp(save_dir=Path(os.devnull), start=start)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        for key in keys:
            await pilot.press(key)
            await pilot.pause()


def child(variant: str, name: str) -> None:
    """In a fresh process: the parent prepared as ``variant`` says, the fork, the scene."""
    sys.path.insert(0, str(ROOT))
    import cabinet.main as program

    if variant == "no rehearsal":
        program.rehearse = lambda: None  # type: ignore[assignment]
    program.warm_up()
    gc.collect()
    gc.freeze()
    ballast = fill_holes() if variant == "holes filled" else []
    gc.freeze()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        before = memory()
        asyncio.run(scene(name))
        after = memory()
        os.write(w, json.dumps([before, after]).encode())
        os._exit(0)
    os.close(w)
    with os.fdopen(r) as f:
        print(f.read())
    os.waitpid(pid, 0)
    del ballast


def main() -> int:
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3])
        return 0
    rounds = 3
    got: dict[tuple[str, str], list[list[dict[str, int]]]] = {}
    for k in range(rounds):
        order = VARIANTS if k % 2 == 0 else tuple(reversed(VARIANTS))
        for variant in order:
            for name in SCENES:
                out = subprocess.run(
                    [sys.executable, __file__, "--child", variant, name], capture_output=True, text=True, check=True
                )
                got.setdefault((variant, name), []).append(json.loads(out.stdout.strip().splitlines()[-1]))
    print(f"A forked child's memory, KiB (medians of {rounds}); load average {os.getloadavg()[0]:.1f}")
    for name in SCENES:
        for variant in VARIANTS:
            runs = got[(variant, name)]
            own = statistics.median(a["Private_Dirty"] - b["Private_Dirty"] for b, a in runs)
            new = statistics.median(a["Rss"] - b["Rss"] for b, a in runs)
            blocks = statistics.median(a["blocks"] - b["blocks"] for b, a in runs)
            print(
                f"  {name:5} {variant:12}  its own memory +{own:6.0f}  of it new pages +{new:6.0f}, "
                f"so copied from the parent ~{own - new:6.0f}; Python blocks +{blocks:.0f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
