"""A heuristic bot for L'Agent Jean!: it reads only its seat's view.

For each card it could play it estimates the chance of winning the turn
(exact when it plays last, otherwise against the cards it has not seen) and
what winning or losing would be worth: the plan's points, minus the greens
and yellows it would take, against what the others would gain.  Strong
cards (purple above all) are kept for plans worth them, and yellows and
greens are dumped on turns it cannot win.
"""

from __future__ import annotations

from typing import Any

from core.engine import Bot, Command, Game

from . import cards as C
from .rules import bonus_amount, card_strength, play_order, trick_winner

#: what Martha reckons the second plan card she may take is worth
EXPECTED_SECOND_PLAN = 3.5


class HeuristicBot(Bot):
    level = "easy"

    def __init__(self, seed: int) -> None:
        self.seed = seed  # the bot is deterministic: the same view gives the same move

    def choose(self, game: Game, view: dict[str, Any], legal: list[Command], known: Any = None) -> Command:
        if len(legal) <= 1:
            return legal[0]
        kinds = {c["t"] for c in legal}
        if "TakeSecondPlan" in kinds:
            return {"t": "TakeSecondPlan"}  # plans are never worth less than nothing
        if "ChooseLeader" in kinds:
            return self._leader(view, legal)
        if "Sabotage" in kinds:
            return self._sabotage(view, legal)
        return self._play(view, legal)

    # -- reading the view --------------------------------------------------------

    def _context(self, view: dict[str, Any]) -> dict[str, Any]:
        me = view["seat"]
        players = view["players"]
        n = len(players)
        agents = [p["agent"] for p in players]
        powers = view.get("powers") or []
        seat_of = {a: i for i, a in enumerate(agents)}
        top = view["plan_top"]
        plan_points: float = C.plan_value(top) if top else 0
        if "martha" in powers and agents[me] == "martha":
            plan_points += EXPECTED_SECOND_PLAN
        # the bonus variant is not in the view: the rulebook's amount is the usual one
        amount = bonus_amount("rulebook", n)
        greens, yellows = self._colour_counts(view)
        return {
            "me": me,
            "n": n,
            "powers": powers,
            "bulle": seat_of["bulle"] if "bulle" in powers else None,
            "wxt": seat_of["wxt"] if "wxt" in powers else None,
            "jean": seat_of["jean"] if "jean" in powers else None,
            "acc": C.accomplice(top),
            "plan": plan_points,
            "green_cost": self._green_cost(me, greens, amount),
            "yellow_cost": self._yellow_cost(me, yellows, amount),
        }

    @staticmethod
    def _colour_counts(view: dict[str, Any]) -> tuple[list[float], list[float]]:
        """Each seat's greens and yellows won this round: as the view gives
        them (open counts), or, for the others when it does not (hidden
        counts, the default), what an even share of the turns played would
        bring: the cards none of them can know the colours of are about a
        quarter green and a quarter yellow (16 of each among the 60)."""
        me = view["seat"]
        players = view["players"]
        if all(p["greens"] is not None for p in players):
            return [p["greens"] for p in players], [p["yellows"] for p in players]
        n = len(players)
        mine = players[me]
        played = 12 - mine["hand"] - mine["reserve"] - any(e["seat"] == me for e in view["table"])
        others_won = max(0, played * n - mine["won"]) / (n - 1)
        guess_g = others_won * 16 / 60
        guess_y = others_won * 16 / 60
        greens = [p["greens"] if p["greens"] is not None else guess_g for p in players]
        yellows = [p["yellows"] if p["yellows"] is not None else guess_y for p in players]
        return greens, yellows

    @staticmethod
    def _green_cost(me: int, greens: list[float], amount: int) -> float:
        others = min(g for i, g in enumerate(greens) if i != me)
        gap = greens[me] - others
        if gap >= 3:
            return amount / 10  # the bonus is probably lost anyway
        return amount / 3 if gap >= 0 else amount / 4

    @staticmethod
    def _yellow_cost(me: int, yellows: list[float], amount: int) -> float:
        others = max(y for i, y in enumerate(yellows) if i != me)
        gap = yellows[me] - others
        if gap >= 3:
            return amount / 10  # the penalty is probably ours anyway
        return amount / 3 if gap >= -1 else amount / 6

    def _eff(self, ctx: dict[str, Any], seat: int, card: str) -> int:
        return C.value(card) + (99 if ctx["bulle"] == seat else 0)

    # -- playing a card ------------------------------------------------------------

    def _play(self, view: dict[str, Any], legal: list[Command]) -> Command:
        ctx = self._context(view)
        me, n = ctx["me"], ctx["n"]
        table = [(e["seat"], e["card"], e["value"]) for e in view["table"]]
        order = view["order"]
        later = order[len(table) + 1 :]
        hand = [c["card"] for c in legal]
        unseen = [c for c in C.ACTION_CARDS if c not in set(hand) and c not in {e[1] for e in table}]
        hand_counts = {i: p["hand"] for i, p in enumerate(view["players"])}

        best, best_score = legal[0], float("-inf")
        for command in legal:
            card = command["card"]
            entries = table + [(me, card, self._eff(ctx, me, card))]
            p = self._chance(ctx, entries, later, unseen, hand_counts)
            greens = sum(1 for _, c, _ in entries if c[0] == "G")
            yellows = sum(1 for _, c, _ in entries if c[0] == "Y")
            taken = ctx["green_cost"] * greens + ctx["yellow_cost"] * yellows
            # later players add cards too: about a quarter green, a quarter yellow
            taken += len(later) * 0.27 * (ctx["green_cost"] + ctx["yellow_cost"])
            win = ctx["plan"] - taken
            lose = (taken - ctx["plan"]) / (n - 1)
            score = p * win + (1 - p) * lose - self._keep_value(card)
            if score > best_score + 1e-9:
                best, best_score = command, score
        return best

    @staticmethod
    def _keep_value(card: str) -> float:
        """What a card is worth kept for a later turn."""
        v = C.value(card)
        letter = card[0]
        if letter == "P":
            return 1.0 + 0.25 * v
        if letter == "B":
            return 0.12 * v
        return 0.05 * v

    def _chance(
        self,
        ctx: dict[str, Any],
        entries: list[tuple[int, str, int]],
        later: list[int],
        unseen: list[str],
        hand_counts: dict[int, int],
    ) -> float:
        me, acc, wxt = ctx["me"], ctx["acc"], ctx["wxt"]
        if trick_winner(entries, acc) != me:
            if wxt == me and not later:
                return (
                    1.0 if any(self._after_sabotage(entries, t, acc) == me for t, _, _ in entries if t != me) else 0.0
                )
            return 0.0
        if later:
            first = entries[0][1][0]
            mine = next(e for e in entries if e[0] == me)
            bar = card_strength(mine[1], mine[2], first, acc)
            chance = 1.0
            for seat in later:
                beats = sum(1 for c in unseen if card_strength(c, self._eff(ctx, seat, c), first, acc) > bar)
                q = beats / len(unseen) if unseen else 0.0
                held = max(1, hand_counts.get(seat, 1))
                # between a player who beats whenever they can and one who plays at random
                chance *= 0.5 * (1 - q) ** held + 0.5 * (1 - q)
        else:
            chance = 1.0
        if wxt is not None and wxt != me:
            chance *= 0.25  # WXT will most likely hit the winning card
        elif wxt == me and later:
            chance = 1 - (1 - chance) * 0.4  # one card that beats ours can be knocked out
        return chance

    @staticmethod
    def _after_sabotage(entries: list[tuple[int, str, int]], target: int, acc: str | None) -> int:
        hit = [(s, c, v - 99 if s == target else v) for s, c, v in entries]
        return trick_winner(hit, acc)

    # -- powers ---------------------------------------------------------------------

    def _leader(self, view: dict[str, Any], legal: list[Command]) -> Command:
        """Henry: have the turn led so that we play as late as possible."""
        ctx = self._context(view)
        me, n = ctx["me"], ctx["n"]
        reverse = ctx["acc"] == "brioche"
        best = max(
            legal,
            key=lambda c: play_order(n, c["seat"], reverse, ctx["jean"]).index(me),
        )
        return best

    def _sabotage(self, view: dict[str, Any], legal: list[Command]) -> Command:
        ctx = self._context(view)
        me, n = ctx["me"], ctx["n"]
        entries = [(e["seat"], e["card"], e["value"]) for e in view["table"]]
        greens = sum(1 for _, c, _ in entries if c[0] == "G")
        yellows = sum(1 for _, c, _ in entries if c[0] == "Y")
        taken = ctx["green_cost"] * greens + ctx["yellow_cost"] * yellows
        win = ctx["plan"] - taken
        lose = (taken - ctx["plan"]) / (n - 1)

        def worth(command: Command) -> float:
            return win if self._after_sabotage(entries, command["seat"], ctx["acc"]) == me else lose

        return max(legal, key=worth)
