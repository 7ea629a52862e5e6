"""The analysis of a finished game (issue 36, ``core/analysis.py``): how long it takes,
and how steady its marks are at a given effort.

    .venv/bin/python bench/analysis.py                 (about 10 minutes on a quiet machine)
    .venv/bin/python bench/analysis.py --quick         (one repetition, no noise figures)

Two games, each played to its end by easy bots from a fixed seed: a whole game of 1988
(two players) and a three-player game of L'Agent Jean!.  For each:

1. **Seconds.** The analysis at ``--effort`` in one process and in two (a process pool
   over the moves), against a yardstick timed in the same run, alternated with them: the
   ``normal`` search bot choosing a move at every position the analysis judges (what a
   bot spends playing those moves).  The ratio is the analysis's seconds over the
   yardstick's; the seconds are printed as well, with the load.
2. **Noise.** The same game analysed twice with other worlds (another seed), at each
   effort of ``--noise``: how far apart the two estimates of a move's chances are (the
   mean absolute difference of the mover's chance after its move), and how many of the
   marks one run gives the other gives too.  This is what says which effort makes the
   marks mean something.
3. **Blunders** (``--blunders``). A game of the same table where seat 1 plays at random
   and the others are easy bots, analysed at ``--effort``: the marks each seat gets.

Figures in docs/PERFORMANCE.md ("Issue 36: analysis").  Not part of the test run.
"""

from __future__ import annotations

import argparse
import copy
import os
import resource
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from core.analysis import Analysis, analyse, positions_of  # noqa: E402
from core.bots import make_bot  # noqa: E402
from core.engine import Match, make_header  # noqa: E402
from core.games import get_game  # noqa: E402
from table import Table  # noqa: E402

#: (label, game, players, seed)
GAMES = [
    ("1988, 2 players", "chirac-mitterrand", 2, 2026),
    ("L'Agent Jean!, 3 players", "agent-jean", 3, 2026),
]


def easy_game(game_id: str, players: int, seed: int, levels: list[str] | None = None) -> Match:
    game = get_game(game_id)
    assert game is not None
    controllers = [{"kind": "bot", "level": level} for level in levels or ["easy"] * players]
    match = Match.new(game, make_header(game, game.make_config(players), seed, controllers, bot_seed=seed))
    Table(match).play_out()
    return match


def cpu() -> float:
    """CPU seconds of this process (a pool's workers are the forkserver's children, not
    ours: their time is not counted, and the two-process runs are timed on the wall only)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


def yardstick(match: Match) -> tuple[float, float]:
    """Seconds (wall, CPU) the normal search bot takes to choose at every position the
    analysis judges."""
    game = match.game
    began, used = time.perf_counter(), cpu()
    for position in positions_of(match, 1):
        if position is not None:
            bot = make_bot(game, "normal", position.move)
            bot.choose(game, position.view, position.legal, position.known)
    return time.perf_counter() - began, cpu() - used


def timed(match: Match, effort: int, workers: int) -> tuple[float, float, Analysis]:
    """Seconds (wall, CPU of this process) of the analysis, and the analysis."""
    began, used = time.perf_counter(), cpu()
    result = analyse(match, effort=effort, workers=workers)
    return time.perf_counter() - began, cpu() - used, result


def reseeded(match: Match, seed: int) -> Match:
    """The same game, its analysis drawing other worlds (the analysis seeds from the header)."""
    other = copy.copy(match)
    other.header = {**match.header, "seed": seed}
    return other


def noise(match: Match, effort: int, workers: int) -> tuple[float, int, int, int]:
    """Two analyses with other worlds: the mean |difference| of the mover's chance after
    each move judged, the marks of each, and the marks both give."""
    one = timed(match, effort, workers)[2]
    two = timed(reseeded(match, match.header["seed"] + 1), effort, workers)[2]
    judged = [p.move for p in positions_of(match, 1) if p is not None]
    gaps = []
    for k in judged:
        a, b = one.judgements[k - 1], two.judgements[k - 1]
        gaps.append(abs(a.after[a.seat] - b.after[b.seat]))
    marked_one = {j.move for j in one.judgements if j.mark}
    marked_two = {j.move for j in two.judgements if j.mark}
    return statistics.fmean(gaps), len(marked_one), len(marked_two), len(marked_one & marked_two)


def blunders(game_id: str, players: int, seed: int, effort: int) -> str:
    """The marks of each seat in a game where seat 1 plays at random and the others are easy
    bots: marks that mean something fall on the random player."""
    levels = ["random"] + ["easy"] * (players - 1)
    match = easy_game(game_id, players, seed, levels)
    result = analyse(match, effort=effort, workers=2)
    parts = []
    for seat, level in enumerate(levels):
        mine = [j for j in result.judgements if j.seat == seat]
        marked = sum(1 for j in mine if j.mark)
        parts.append(f"seat {seat + 1} ({level}) {marked} marked of {len(mine)} moves")
    return "; ".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--effort", type=int, default=None, help="the effort timed (default: the analysis's default)")
    parser.add_argument("--repeat", type=int, default=2, help="alternated repetitions of the timings")
    parser.add_argument("--noise", default="16,48,96", help="efforts whose noise is measured (empty: none)")
    parser.add_argument("--quick", action="store_true", help="one repetition, no noise figures")
    parser.add_argument(
        "--blunders", action="store_true", help="also: the marks of a random player against easy bots, per seat"
    )
    args = parser.parse_args()
    from core.analysis import DEFAULT_EFFORT

    effort = args.effort or DEFAULT_EFFORT
    repeat = 1 if args.quick else args.repeat
    efforts = [] if args.quick or not args.noise else [int(e) for e in args.noise.split(",")]
    print(f"cores: {os.cpu_count()}; load at start: {os.getloadavg()[0]:.2f}; effort timed: {effort}")
    for label, game_id, players, seed in GAMES:
        match = easy_game(game_id, players, seed)
        judged = sum(p is not None for p in positions_of(match, 1))
        print(f"\n{label}: {len(match.moves) - 1} moves, {judged} with a choice (seed {seed}, easy bots)")
        rows = []
        for rep in range(repeat):
            order = ["bot", "one", "two"] if rep % 2 == 0 else ["two", "one", "bot"]
            wall: dict[str, float] = {}
            used: dict[str, float] = {}
            marks = 0
            for side in order:
                if side == "bot":
                    wall[side], used[side] = yardstick(match)
                else:
                    wall[side], used[side], result = timed(match, effort, 1 if side == "one" else 2)
                    marks = sum(1 for j in result.judgements if j.mark)
            rows.append((wall, used))
            print(
                f"  rep {rep + 1}: normal bot at every choice {wall['bot']:.1f} s ({used['bot']:.1f} s CPU); "
                f"analysis in 1 process {wall['one']:.1f} s ({used['one']:.1f} s CPU, "
                f"{used['one'] / used['bot']:.1f}x the bot's), in 2 processes {wall['two']:.1f} s; "
                f"{marks} moves marked; load {os.getloadavg()[0]:.2f}"
            )
        ratio = statistics.median(u["one"] / u["bot"] for _, u in rows)
        wall_ratio = statistics.median(w["one"] / w["bot"] for w, _ in rows)
        speedup = statistics.median(w["one"] / w["two"] for w, _ in rows)
        print(
            f"  medians: analysis / normal bot {ratio:.1f}x in CPU time ({wall_ratio:.1f}x wall); "
            f"2 processes {speedup:.2f}x faster than 1 (wall)"
        )
        if args.blunders and not args.quick:
            print(
                f"  marks at effort {effort}, a random player against easy bots: {blunders(game_id, players, seed, effort)}"
            )
        for e in efforts:
            gap, a, b, both = noise(match, e, 2)
            print(
                f"  noise at effort {e}: the mover's chance after a move differs by {gap:.3f} on average "
                f"between two draws of worlds; marks {a} and {b}, {both} in both; load {os.getloadavg()[0]:.2f}"
            )


if __name__ == "__main__":  # the workers of the pool import this module again
    main()
