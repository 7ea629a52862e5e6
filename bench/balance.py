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
    .venv/bin/python bench/balance.py --only edgar-lucien:4 --starts   # and how each start did

``--starts`` adds, under each row of a game where the players choose a
starting district (Edgar & Lucien), how often each start won whoever took it
and how often each seat took it: a seat that wins more than its share may
only be the seat that takes a strong start more often.

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

from core.engine import derive_rng
from core.games import all_games, get_game
from table import Table
from tui.session import new_match


def tables() -> dict[str, tuple[int, ...]]:
    """Every game the registry finds and the player counts it is played at: each from
    two (a solo mode has no seats to compare) to its most."""
    return {
        game_id: tuple(range(max(2, game.min_players), game.max_players + 1)) for game_id, game in all_games().items()
    }


def play(job: tuple[str, int, str, int, int, dict[str, str]]) -> tuple[tuple[int, ...], int, tuple[str, ...]]:
    """One game between bots of ``level``: (winners, moves, each seat's starting district if any)."""
    game_id, players, level, seed, bot_seed, variants = job
    game = get_game(game_id)
    seats = [{"name": f"P{i + 1}"} for i in range(players)]
    controllers = [{"kind": "bot", "level": level}] * players
    match = new_match(game, players, seats, controllers, seed=seed, bot_seed=bot_seed, variants=variants)
    Table(match).play_out()
    assert match.outcome is not None
    starts = {e["seat"]: e["district"] for e in match.events if e.get("t") == "Placed"}
    return tuple(match.outcome.winners), len(match.moves) - 1, tuple(starts[seat] for seat in sorted(starts))


def row(
    game_id: str,
    players: int,
    level: str,
    games: int,
    seed: int,
    variants: dict[str, str],
    pool,
    by_start: bool = False,
) -> str:
    rng = derive_rng(seed, "balance", game_id, players)
    jobs = [(game_id, players, level, rng.getrandbits(48), rng.getrandbits(48), variants) for _ in range(games)]
    began = time.perf_counter()
    results = list(pool.map(play, jobs)) if pool else [play(j) for j in jobs]
    wins = [0.0] * players
    shared = 0
    for winners, _, _ in results:
        for w in winners:
            wins[w] += 1 / len(winners)
        shared += len(winners) > 1
    moves = sum(m for _, m, _ in results) / games
    fair = 1 / players
    worst = max(w / games for w in wins)
    margin = 2 * math.sqrt(fair * (1 - fair) / games)
    seats = " / ".join(f"{100 * w / games:.1f}" for w in wins)
    chosen = ", ".join(f"{k}={v}" for k, v in variants.items()) or "defaults"
    line = (
        f"| {game_id} | {players} | {level} | {chosen} | {games} | {seats} | {shared} | {moves:.0f} "
        f"| {100 * (worst - fair):+.1f} (±{100 * margin:.1f}) | {time.perf_counter() - began:.0f} s |"
    )
    return line + (starts_report(results, players) if by_start else "")


def starts_report(results: list[tuple[tuple[int, ...], int, tuple[str, ...]]], players: int) -> str:
    """Under a row: each start, how often it was taken and won (a shared win
    counted as its share), best first, and how many times each seat took it."""
    taken: dict[str, list[int]] = {}
    won: dict[str, float] = {}
    for winners, _, starts in results:
        for seat, start in enumerate(starts):
            taken.setdefault(start, [0] * players)[seat] += 1
            won[start] = won.get(start, 0.0) + (1 / len(winners) if seat in winners else 0.0)
    lines = [
        f"\n    {start:<14} taken {sum(by_seat):>4}, won {100 * won[start] / sum(by_seat):5.1f}%"
        f"  (taken by seat: {' / '.join(map(str, by_seat))})"
        for start, by_seat in sorted(taken.items(), key=lambda kv: -won[kv[0]] / sum(kv[1]))
    ]
    return "".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--level", default="easy", help="the bots' level, the same at every seat")
    parser.add_argument("--games", type=int, default=200, help="games a row")
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--jobs", type=int, default=1, help="games played at once, in N processes")
    parser.add_argument(
        "--only", action="append", default=[], metavar="GAME[:PLAYERS]", help="these rows only (repeatable)"
    )
    parser.add_argument(
        "--variant", action="append", default=[], metavar="GAME:K=V", help="a variant for one game's rows (repeatable)"
    )
    parser.add_argument(
        "--starts", action="store_true", help="under each row, how each starting district did (Edgar & Lucien)"
    )
    args = parser.parse_args(argv)
    variants: dict[str, dict[str, str]] = {}
    for item in args.variant:
        game_id, _, kv = item.partition(":")
        key, _, value = kv.partition("=")
        variants.setdefault(game_id, {})[key] = value
    wanted = []
    for game_id, counts in tables().items():
        for players in counts:
            if args.only and not any(o in (game_id, f"{game_id}:{players}") for o in args.only):
                continue
            wanted.append((game_id, players))
    pool = concurrent.futures.ProcessPoolExecutor(args.jobs) if args.jobs > 1 else None
    print(
        "| game | players | level | variants | games | seat wins % (seat 1 / 2 / ...) | shared | moves "
        "| most over fair share, points (±2 s.e.) | time |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    try:
        for game_id, players in wanted:
            print(
                row(game_id, players, args.level, args.games, args.seed, variants.get(game_id, {}), pool, args.starts),
                flush=True,
            )
    finally:
        if pool:
            pool.shutdown(cancel_futures=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
