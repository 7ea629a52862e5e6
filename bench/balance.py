"""Balance report: how often each seat wins between equal bots, seats fixed.

Not a test: at ``normal`` it takes a long while (the search thinks about a
second a move).  For every game and player count it plays ``--games`` games
between bots of one level (every seat the same level, seat 1 always seat 1)
and prints a Markdown table: each seat's wins (a shared win counted as its
share), the shared games, the mean length in moves, and the most any seat won
against its fair share, with the margin of error of a proportion over that
many games (two standard errors).  The figures in docs/BALANCE.md come from it.

    .venv/bin/python bench/balance.py                       # easy, 200 games each
    .venv/bin/python bench/balance.py --level normal --games 40 --only edgar-lucien:2
    .venv/bin/python bench/balance.py --variant edgar-lucien:start=outskirts

The games of a row take their seeds from ``derive_rng(seed, "balance", game,
players)``, so a row played alone gives the same figures.  The solo mode of
1988 is left to bench/cm_campaign.py, which plays both sides.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.bots import bots_for, play_out  # noqa: E402
from core.engine import derive_rng  # noqa: E402
from core.games import get_game  # noqa: E402
from tui.session import new_match  # noqa: E402

#: every game and the player counts it is played at
TABLES = {
    "edgar-lucien": (2, 3, 4),
    "agent-jean": (2, 3, 4, 5),
    "ministeres": (2, 3, 4, 5),
    "chirac-mitterrand": (2,),
}


def play(job: tuple[str, int, str, int, int, dict[str, str]]) -> tuple[tuple[int, ...], int]:
    """One game between bots of ``level``: (winners, moves)."""
    game_id, players, level, seed, bot_seed, variants = job
    game = get_game(game_id)
    seats = [{"name": f"P{i + 1}"} for i in range(players)]
    controllers = [{"kind": "bot", "level": level}] * players
    match = new_match(game, players, seats, controllers, seed=seed, bot_seed=bot_seed, variants=variants)
    play_out(match, bots_for(match))
    assert match.outcome is not None
    return tuple(match.outcome.winners), len(match.moves) - 1


def row(game_id: str, players: int, level: str, games: int, seed: int, variants: dict[str, str], pool) -> str:
    rng = derive_rng(seed, "balance", game_id, players)
    jobs = [(game_id, players, level, rng.getrandbits(48), rng.getrandbits(48), variants) for _ in range(games)]
    began = time.perf_counter()
    results = list(pool.map(play, jobs)) if pool else [play(j) for j in jobs]
    wins = [0.0] * players
    shared = 0
    for winners, _ in results:
        for w in winners:
            wins[w] += 1 / len(winners)
        shared += len(winners) > 1
    moves = sum(m for _, m in results) / games
    fair = 1 / players
    worst = max(w / games for w in wins)
    margin = 2 * math.sqrt(fair * (1 - fair) / games)
    seats = " / ".join(f"{100 * w / games:.1f}" for w in wins)
    chosen = ", ".join(f"{k}={v}" for k, v in variants.items()) or "defaults"
    return (
        f"| {game_id} | {players} | {level} | {chosen} | {games} | {seats} | {shared} | {moves:.0f} "
        f"| {100 * (worst - fair):+.1f} (±{100 * margin:.1f}) | {time.perf_counter() - began:.0f} s |"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--level", default="easy", help="the bots' level, the same at every seat")
    parser.add_argument("--games", type=int, default=200, help="games a row")
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--jobs", type=int, default=1, help="games played at once, in N processes")
    parser.add_argument("--only", action="append", default=[], metavar="GAME[:PLAYERS]",
                        help="these rows only (repeatable)")
    parser.add_argument("--variant", action="append", default=[], metavar="GAME:K=V",
                        help="a variant for one game's rows (repeatable)")
    args = parser.parse_args(argv)
    variants: dict[str, dict[str, str]] = {}
    for item in args.variant:
        game_id, _, kv = item.partition(":")
        key, _, value = kv.partition("=")
        variants.setdefault(game_id, {})[key] = value
    wanted = []
    for game_id, counts in TABLES.items():
        for players in counts:
            if args.only and not any(o in (game_id, f"{game_id}:{players}") for o in args.only):
                continue
            wanted.append((game_id, players))
    pool = concurrent.futures.ProcessPoolExecutor(args.jobs) if args.jobs > 1 else None
    print("| game | players | level | variants | games | seat wins % (seat 1 / 2 / ...) | shared | moves "
          "| most over fair share, points (±2 s.e.) | time |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    try:
        for game_id, players in wanted:
            print(row(game_id, players, args.level, args.games, args.seed, variants.get(game_id, {}), pool), flush=True)
    finally:
        if pool:
            pool.shutdown(cancel_futures=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
