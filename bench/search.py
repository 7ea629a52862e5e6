"""The search bot's speed, per game: iterations a second, moves simulated a
second (its budget is counted in moves), and one iteration against one
``evolve`` of the same game (the yardstick, timed in the same run), so that
the engine's own speed shows as the limit of the bot's strength.  Then the ``normal`` level over whole games against the ``easy``
bot: the seconds it takes a move (mean and longest), which must stay under 1.

    /work/venv/bin/python bench/search.py            (about 10 minutes)
    /work/venv/bin/python bench/search.py --quick    (about 2 minutes)
    /work/venv/bin/python bench/search.py --games 0  (iterations only)

Positions are taken from seeded games of the easy bot, at every decision with
a choice (one in ``--every``), and the search spends ``--budget`` moves on each.  Figures in docs/PERFORMANCE.md.  Not part of the test run.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from core.bots import bot_inputs  # noqa: E402
from core.bots.search import SearchBot  # noqa: E402
from core.engine import Game, Match, make_header  # noqa: E402
from core.games import all_games  # noqa: E402
from table.bots import bot_for  # noqa: E402


def easy_match(game: Game, players: int, seed: int, levels: list[str] | None = None) -> Match:
    levels = levels or ["easy"] * players
    header = make_header(
        game, game.make_config(players), seed, [{"kind": "bot", "level": lv} for lv in levels], bot_seed=seed
    )
    return Match.new(game, header)


def positions(game: Game, players: int, seed: int, every: int) -> list[tuple[Match, int]]:
    """(state, seat) at every ``every``-th decision with a choice of an easy-bot game."""
    match = easy_match(game, players, seed)
    found = []
    k = 0
    while match.active():
        seat = match.active()[0]
        view, legal, known = bot_inputs(game, match.state, seat)
        if len(legal) > 1:
            if k % every == 0:
                found.append((match.state, seat))
            k += 1
        match.submit(seat, bot_for(match, seat).choose(game, view, legal, known))
    return found


def evolve_seconds(game: Game, players: int, seed: int, reps: int = 20) -> float:
    """One evolve, on average, folding a whole easy-bot game's log."""
    match = easy_match(game, players, seed)
    while match.active():
        seat = match.active()[0]
        view, legal, known = bot_inputs(game, match.state, seat)
        match.submit(seat, bot_for(match, seat).choose(game, view, legal, known))
    first = game.initial(match.config)
    best = []
    for _ in range(reps):
        gc.collect()
        t0 = time.perf_counter()
        state = first
        for event in match.events:
            state = game.evolve(state, event)
        best.append((time.perf_counter() - t0) / len(match.events))
    return statistics.median(best)


def iteration_seconds(game: Game, found: list[tuple[object, int]], budget: int) -> tuple[float, float]:
    """Seconds an iteration and seconds a simulated move, over all the positions."""
    spent = 0.0
    iterations = 0
    for state, seat in found:
        view, legal, known = bot_inputs(game, state, seat)
        bot = SearchBot(1, budget)
        gc.collect()
        t0 = time.perf_counter()
        bot.choose(game, view, legal, known)
        spent += time.perf_counter() - t0
        iterations += bot.last["iterations"]
    return spent / iterations, spent / (len(found) * budget)


def normal_over_games(game: Game, players: int, games: int) -> list[float]:
    """Seconds the normal level took on each of its moves with a choice, in
    ``games`` whole games against easy bots (the normal seat rotating)."""
    times = []
    for k in range(games):
        levels = ["easy"] * players
        levels[k % players] = "normal"
        match = easy_match(game, players, 1000 + k, levels)
        while match.active():
            seat = match.active()[0]
            view, legal, known = bot_inputs(game, match.state, seat)
            t0 = time.perf_counter()
            command = bot_for(match, seat).choose(game, view, legal, known)
            if levels[seat] == "normal" and len(legal) > 1:
                times.append(time.perf_counter() - t0)
            match.submit(seat, command)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer positions and games")
    parser.add_argument("--budget", type=int, default=3000, help="moves simulated a position")
    parser.add_argument("--every", type=int, default=4, help="one decision in EVERY is searched")
    parser.add_argument("--games", type=int, default=None, help="whole games for the normal level (default 6, quick 2)")
    parser.add_argument("--game", action="append", help="only these games (repeatable)")
    args = parser.parse_args(argv)
    games = args.games if args.games is not None else (2 if args.quick else 6)
    every = args.every * (3 if args.quick else 1)
    chosen = {gid: g for gid, g in all_games().items() if not args.game or gid in args.game}
    # each game at two players and at four (or its most, if fewer)
    tables = [
        (gid, game, players)
        for gid, game in chosen.items()
        for players in sorted({2, min(4, game.max_players)})
        if game.min_players <= players <= game.max_players
    ]
    t_all = time.perf_counter()
    print(f"Search bot, {args.budget} moves simulated a position, one decision in {every} of an easy-bot game")
    print(
        f"{'game':<20}{'players':>8}{'positions':>10}{'iter/s':>9}{'moves/s':>9}{'evolve':>10}{'iteration/evolve':>18}"
    )
    for gid, game, players in tables:
        found = positions(game, players, 7, every)
        per_iteration, per_move = iteration_seconds(game, found, args.budget)
        per_evolve = evolve_seconds(game, players, 7)
        print(
            f"{gid:<20}{players:>8}{len(found):>10}{1 / per_iteration:>9.0f}{1 / per_move:>9.0f}"
            f"{per_evolve * 1e6:>8.1f}us{per_iteration / per_evolve:>17.0f}x",
            flush=True,
        )
    if games:
        print()
        print(f"The normal level over {games} whole games against easy bots (seconds a move with a choice)")
        print(f"{'game':<20}{'players':>8}{'budget':>8}{'moves':>7}{'mean':>8}{'longest':>9}  goal: under 1 s")
        for gid, game, players in tables:
            times = normal_over_games(game, players, games)
            print(
                f"{gid:<20}{players:>8}{game.search_budget['normal']:>8}{len(times):>7}"
                f"{statistics.mean(times):>8.3f}{max(times):>9.3f}  {'ok' if max(times) < 1 else 'OVER'}",
                flush=True,
            )
    print(f"\nbench run took {time.perf_counter() - t_all:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
