"""Ministères: what the auctions and the endings of bot games look like.

Plays bot games headless through core.engine and core.bots (no saves), on the
same tables as ``cabinet simulate`` with the same ``--seed`` (same deals, same
bot seeds), and prints:

- the winning seats and the shared games, and which step of the tie-break
  decided the games tied on points;
- the lots: how many were sold, unsold (nobody bid) or defaulted (the winner
  could not pay), by kind of card, and the average winning bid;
- how contested the sold lots were (how many players bid on them).

    python bench/ministeres_lots.py --players 2 --games 200 --seed 21 --bot-level easy
    python bench/ministeres_lots.py --players 2 --games 200 --seed 21 --variant tiebreak=tokens

A figure from n games has a margin of about 2*sqrt(p(1-p)/n).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.engine import derive_rng
from core.games.ministeres import GAME
from core.games.ministeres import cards as C
from core.games.ministeres.rules import decided_by
from table import Table
from tui.session import new_match


def play(levels: list[str], seed: int, bot_seed: int, variants: dict[str, str]):
    seats = [{"name": f"P{i + 1}"} for i in range(len(levels))]
    controllers = [{"kind": "bot", "level": level} for level in levels]
    match = new_match(GAME, len(levels), seats, controllers, seed=seed, variants=variants or None, bot_seed=bot_seed)
    Table(match).play_out()
    return match


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--games", type=int, default=200)
    p.add_argument("--seed", type=int, default=21)
    p.add_argument("--bot-level", default="easy")
    p.add_argument("--variant", action="append", default=[], help="key=value, as many as needed")
    args = p.parse_args()
    levels = args.bot_level.split(",")
    if len(levels) == 1:
        levels = levels * args.players
    variants = dict(v.split("=", 1) for v in args.variant)
    seeds = derive_rng(args.seed, "simulate")  # the tables of ``cabinet simulate``
    wins: Counter[int] = Counter()
    shared = 0
    decided: Counter[str] = Counter()
    lots: Counter[tuple[str, str]] = Counter()
    prices: dict[str, list[int]] = {"gouvernement": [], "roi": [], "or": []}
    bidders: Counter[int] = Counter()
    for _ in range(args.games):
        seed, bot_seed = seeds.getrandbits(48), seeds.getrandbits(48)
        match = play(levels, seed, bot_seed, variants)
        winners = match.outcome.winners
        if len(winners) > 1:
            shared += 1
        else:
            wins[winners[0]] += 1
        scored = next(e for e in reversed(match.events) if e["t"] == "GameScored")
        decided[
            decided_by(scored["scores"], scored["tokens"], match.state.hands, list(winners), match.state.tiebreak)
        ] += 1
        lot, who = None, set()
        for ev in match.events:
            t = ev["t"]
            if t == "AuctionOpened":
                lot, who = ev["card"], set()
            elif t == "BidMade":
                who.add(ev["seat"])
            elif t == "AuctionUnsold":
                lots[(C.kind(lot), "unsold")] += 1
            elif t == "AuctionWon":
                if ev["amount"] == 0:
                    lots[(C.kind(lot), "to opener")] += 1
                    continue
                prices[C.kind(lot)].append(ev["amount"])
                bidders[len(who)] += 1
            elif t == "PaymentDefaulted":
                lots[(C.kind(lot), "defaulted")] += 1
    n = args.games
    print(
        f"{n} games of Ministères, {args.players} players, levels {','.join(levels)}, seed {args.seed}"
        + (f", variants {variants}" if variants else "")
    )
    seats = " / ".join(f"seat {s + 1} {wins[s]}" for s in range(args.players))
    print(f"  wins: {seats} / shared {shared} ({100 * shared / n:.1f}%)")
    print("  decided by: " + ", ".join(f"{k} {v}" for k, v in decided.most_common()))
    total = sum(len(v) for v in prices.values()) + sum(c for (k, r), c in lots.items() if r in ("unsold", "to opener"))
    print(f"  lots: {total} ({total / n:.1f} a game)")
    for kind in ("gouvernement", "roi", "or"):
        won = len(prices[kind])
        unsold = lots[(kind, "unsold")] + lots[(kind, "to opener")]
        default = lots[(kind, "defaulted")]
        all_ = won + unsold
        if not all_:
            continue
        avg = sum(prices[kind]) / won if won else 0
        print(
            f"    {kind:12} {all_:5}: won {won} ({100 * won / all_:.1f}%, of which {default} not paid), "
            f"nobody bid {unsold} ({100 * unsold / all_:.1f}%); average winning bid {avg:.2f}"
        )
    unsold_all = sum(c for (k, r), c in lots.items() if r in ("unsold", "to opener"))
    print(
        f"    all          {total:5}: nobody bid {unsold_all} ({100 * unsold_all / total:.1f}%), "
        f"not paid {sum(c for (k, r), c in lots.items() if r == 'defaulted')}"
    )
    won = sum(bidders.values())
    print(
        "  lots won, by how many players bid: "
        + ", ".join(f"{k}: {v} ({100 * v / won:.0f}%)" for k, v in sorted(bidders.items()))
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
