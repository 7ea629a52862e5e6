"""Seat balance of L'Agent Jean! between bots of one level, with variants.

``cabinet simulate`` takes no variants; this plays the same tables (the same
seeds, drawn as simulate draws them, fixed seats, no save) with the variants
given, and prints how often each seat won (a shared victory counts apart).

    python bench/agent_jean_seats.py --players 2 --games 200 --seed 21 --level easy counts=open
"""

from __future__ import annotations

import argparse
from collections import Counter

from core.engine import derive_rng
from core.games import get_game
from table import Table
from tui.session import new_match


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--players", type=int, required=True)
    parser.add_argument("--games", type=int, required=True)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--level", default="easy")
    parser.add_argument("variants", nargs="*", metavar="K=V")
    args = parser.parse_args()
    game = get_game("agent-jean")
    variants = dict(v.split("=", 1) for v in args.variants)
    seeds = derive_rng(args.seed, "simulate")
    wins: Counter[int] = Counter()
    shared = 0
    for _ in range(args.games):
        seed, bot_seed = seeds.getrandbits(48), seeds.getrandbits(48)
        seats = [{"name": f"P{i + 1}-{args.level}"} for i in range(args.players)]
        controllers = [{"kind": "bot", "level": args.level}] * args.players
        match = new_match(game, args.players, seats, controllers, seed=seed, bot_seed=bot_seed, variants=variants)
        Table(match).play_out()
        winners = match.outcome.winners
        if len(winners) == 1:
            wins[winners[0]] += 1
        else:
            shared += 1
    line = ", ".join(f"seat {s + 1} {wins[s]}" for s in range(args.players))
    print(
        f"{args.players} players, {args.games} games, seed {args.seed}, {args.level}, {variants or 'defaults'}: "
        f"{line}, shared {shared}"
    )


if __name__ == "__main__":
    main()
