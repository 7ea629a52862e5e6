"""1988: how the Electoral Campaign cards and the Media token play out between bots.

    .venv/bin/python bench/cm_campaign.py --games 300 --level easy --seed 1
    .venv/bin/python bench/cm_campaign.py --games 20 --level normal --seed 1
    .venv/bin/python bench/cm_campaign.py --solo --games 300 --level easy

Plays games directly through core.engine and core.bots (no saves), in one
process, and prints:

- per campaign card: how often it was among the three drawn, how often the
  drawer applied it, removed it, put it back (applied / drawn is the share
  the issue asks to keep between 15% and 85%);
- the winners by seat and by candidate, and how games ended;
- how often the Media token decided an election.

``--campaign-level normal`` lets the search bot make only the campaign
choices while the easy bot plays the turns: the normal bot's judgement of
the cards over many more games than full normal games allow.

"The Media token decided an election" means: the election was reached and
the candidates were ahead in the same number of qualities, so the result
would have been different without the token (no winner at all, instead of
its holder).  The script also counts the elections where the holder of the
token won (decided or not), and the games ended by a sixth Power Erosion.

``--variant key=value`` (repeatable) passes variants; solo games put the bot
on the seat and the automaton on the other candidate (``--candidate``).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.bots import (
    bot_inputs,
    make_bot,
)
from core.games import get_game
from core.games.chirac_mitterrand import cards as C
from table.bots import bot_for
from tui.session import new_match


def play(game, seed: int, levels: list[str], variants: dict, solo_candidate: str | None, campaign_level=None):
    if solo_candidate:
        seats = [{"name": "P1", "candidate": solo_candidate}]
    else:
        seats = [{"name": f"P{i + 1}"} for i in range(len(levels))]
    controllers = [{"kind": "bot", "level": level} for level in levels]
    match = new_match(game, len(levels), seats, controllers, seed=seed, bot_seed=seed * 7 + 1, variants=variants)
    chooser = make_bot(game, campaign_level, seed) if campaign_level else None
    while match.active():
        seat = match.active()[0]
        view, legal, known = bot_inputs(game, match.state, seat)
        bot = bot_for(match, seat)
        if chooser is not None and match.state.phase == "campaign":
            bot = chooser  # only the campaign choice is made by this level
        command = bot.choose(game, view, legal, known)
        match.submit(seat, command)
    return match, list(match.events)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--level", default="easy", help="one level, or two separated by a comma (seat 1, seat 2)")
    ap.add_argument("--solo", action="store_true")
    ap.add_argument("--candidate", default=None, help="solo: the bot's candidate (default: both, half each)")
    ap.add_argument("--variant", action="append", default=[])
    ap.add_argument(
        "--campaign-level",
        default=None,
        help="the level that makes every campaign choice (the turns stay at --level): "
        "the normal bot's judgement of the cards, at a fraction of the time",
    )
    args = ap.parse_args(argv)
    game = get_game("chirac-mitterrand")
    variants = dict(v.split("=", 1) for v in args.variant)
    levels = args.level.split(",")
    drawn, applied, removed, returned = Counter(), Counter(), Counter(), Counter()
    draws_by, applied_by = Counter(), Counter()
    seat_wins, cand_wins, ends = Counter(), Counter(), Counter()
    elections = ties = holder_won = 0
    solo_games, solo_wins = Counter(), Counter()
    began = time.perf_counter()
    for g in range(args.games):
        seed = args.seed * 100_003 + g
        cand = None
        if args.solo:
            cand = args.candidate or C.CANDIDATES[g % 2]
            lv = [levels[0]]
        else:
            lv = levels if len(levels) == 2 else levels * 2
        match, events = play(game, seed, lv, variants, cand, args.campaign_level)
        for ev in events:
            if ev["t"] == "CampaignDrawn":
                for card in ev["cards"] or ():
                    drawn[card] += 1
            elif ev["t"] == "CampaignApplied":
                applied[ev["applied"]] += 1
                draws_by[ev["by"]] += 1
                applied_by[ev["applied"], ev["by"]] += 1
                if ev["removed"]:
                    removed[ev["removed"]] += 1
                for card in ev["returned"] or ():
                    returned[card] += 1
            elif ev["t"] == "GameEnded":
                ends[ev["by"]] += 1
                cand_wins[ev["winner"]] += 1
                if ev["by"] == "election":
                    elections += 1
                    if ev["tie"]:
                        ties += 1
                    if ev["media"] == ev["winner"]:
                        holder_won += 1
                if args.solo:
                    solo_games[cand] += 1
                    if not ev["automaton"]:
                        solo_wins[cand] += 1
        for w in match.outcome.winners:
            seat_wins[w] += 1
    took = time.perf_counter() - began
    n = args.games
    how = f"level {args.level}" + (f", campaign choices at {args.campaign_level}" if args.campaign_level else "")
    print(f"{n} games, {how}, seed {args.seed}, variants {variants or 'default'}, {took:.0f} s")
    print()
    print(
        f"{'card':6} {'name':32} {'drawn':>6} {'applied':>8} {'share':>6} {'removed':>8} {'returned':>9}"
        f" {'by Chirac':>10} {'by Mitt.':>9}"
    )
    for card in sorted(set(drawn) | set(applied)):
        d = drawn[card]
        share = f"{100 * applied[card] / d:5.1f}%" if d else "   -  "
        name = C.campaign(card).name[:32]
        print(
            f"{card:6} {name:32} {d:6} {applied[card]:8} {share:>6} {removed[card]:8} {returned[card]:9}"
            f" {applied_by[card, 'chirac']:10} {applied_by[card, 'mitterrand']:9}"
        )
    print(f"campaign draws made by Chirac {draws_by['chirac']}, by Mitterrand {draws_by['mitterrand']}")
    print()
    if args.solo:
        for cand in C.CANDIDATES:
            if solo_games[cand]:
                k, m = solo_wins[cand], solo_games[cand]
                print(f"solo as {cand}: the bot won {k} of {m} ({100 * k / m:.1f}%)")
    else:
        print(f"wins by seat: {dict(sorted(seat_wins.items()))}; by candidate: {dict(cand_wins)}")
    print(f"ends: {dict(ends)}")
    if elections:
        print(
            f"elections {elections}: Media token decided {ties} ({100 * ties / elections:.1f}% of elections, "
            f"{100 * ties / n:.1f}% of games); holder won {holder_won} ({100 * holder_won / elections:.1f}%)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
