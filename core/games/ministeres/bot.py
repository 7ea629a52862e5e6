"""A heuristic bot for Ministères: it reads only its seat's view.

Everything is weighed in one unit, the worth of a card to the bot:

- a Gouvernement card is worth its value times its ministry's tokens
  (Primaire, plus a share of the Secondaire), more in a ministry where the
  bot already leads its own hand, less where it holds almost nothing;
- an Or card is worth its value, since gold only buys Favours;
- a Roi card is worth what its token moves do to the ministries the bot is
  strong in (a Roi kept in hand under the *kept* variant is worth nothing).

As dealer it keeps a card that is good enough (or the last chance), gives
the centre the weakest, and sends the middling ones to the Favours pile.
It takes the best centre card, bids up to a share of its gold that grows
with the card's worth and with how few auctions remain, never beyond what
it can pay, and pays with as little waste as it can.
"""

from __future__ import annotations

import math
from typing import Any

from core.engine import Bot, Command, Game

from . import cards as C

#: a card at least this good goes into the dealer's hand
KEEP_THRESHOLD = 2.2
#: under this, a card is given to the centre rather than the Favours pile
GIVE_THRESHOLD = 1.2


class HeuristicBot(Bot):
    level = "easy"

    def __init__(self, seed: int) -> None:
        self.seed = seed  # the bot is deterministic: the same view gives the same move

    def choose(self, game: Game, view: dict[str, Any], legal: list[Command], known: Any = None) -> Command:
        if len(legal) == 1:
            return legal[0]
        # worked out once a move: the bot's totals per ministry and what each token is worth
        self._hand_totals = self._totals(view["hand"] or [])
        self._token_worth = self._tokens(view)
        kind = legal[0]["t"]
        if kind == "Place":
            return self._place(view, legal)
        if kind == "Take":
            return max(legal, key=lambda c: (self._worth(view, c["card"]), c["card"]))
        if kind in ("Bid", "Pass"):
            return self._bid(view, legal)
        if kind == "Pay":
            return self._pay(view, legal)
        return legal[0]

    # -- worth ------------------------------------------------------------------------

    @staticmethod
    def _totals(hand: list[str]) -> dict[str, int]:
        totals = {m: 0 for m in C.MINISTRIES}
        for c in hand:
            if C.is_gouvernement(c):
                totals[C.ministry(c)] += C.value(c)
        return totals

    def _tokens(self, view: dict[str, Any]) -> dict[str, float]:
        out = {}
        for m in view["ministries"]:
            out[m["id"]] = m["primaire"] + 0.5 * (m["secondaire"] or 0)
        return out

    def _worth(self, view: dict[str, Any], card: str) -> float:
        kind = C.kind(card)
        if kind == "or":
            return float(C.value(card))
        totals = self._hand_totals
        tokens = self._token_worth
        if kind == "gouvernement":
            m = C.ministry(card)
            focus = 1.0 + min(totals[m], 8) / 8  # building on a ministry already held
            return C.value(card) * tokens[m] / 4 * focus * 0.9
        if view["phase"] == "gifts" and view.get("variants", {}).get("dealer_roi") == "kept":
            return 0.2
        # a Roi: its moves, weighed by how much of each ministry the bot holds
        total = 0.0
        for m, delta in C.ROI_EFFECTS[card]:
            share = min(totals[m], 10) / 10 - 0.3
            total += delta * share * 2
        return total

    # -- the gifts ----------------------------------------------------------------------

    def _place(self, view: dict[str, Any], legal: list[Command]) -> Command:
        card = view["drawn"]
        w = self._worth(view, card)
        limits = view["limits"]
        places = {c["where"] for c in legal}
        slots = sum(limits.values())
        if "hand" in places and (w >= KEEP_THRESHOLD or (slots == 1) or (view["deck"] == 0)):
            return {"t": "Place", "where": "hand"}
        if "hand" in places and slots <= limits["hand"] + 1 and w >= GIVE_THRESHOLD:
            # the hand slot is about to be forced on whatever comes last: better this card
            return {"t": "Place", "where": "hand"}
        if "centre" in places and (w < GIVE_THRESHOLD or "favours" not in places):
            return {"t": "Place", "where": "centre"}
        if "favours" in places:
            return {"t": "Place", "where": "favours"}
        return legal[0]

    # -- the auctions -------------------------------------------------------------------

    def _bid(self, view: dict[str, Any], legal: list[Command]) -> Command:
        auction = view["auction"]
        card = auction["card"]
        hand = view["hand"] or []
        me = view["seat"]
        gold = view["players"][me]["gold"] or 0
        bids = [c["amount"] for c in legal if c["t"] == "Bid"]
        if not bids:
            return {"t": "Pass"}
        low = min(bids)
        if C.is_or(card):
            # pay with the cards worth the least; worthwhile only if they are worth less than the gold
            worths = sorted(self._worth(view, c) for c in hand)
            limit, cost = 0, 0.0
            for w in worths:
                if cost + w >= C.value(card) - 0.3:
                    break
                cost += w
                limit += 1
            limit = min(limit, len(hand))
        else:
            worth = self._worth(view, card)
            if worth <= 0:
                return {"t": "Pass"}
            left = view["favours"] + 1  # this one included
            per_auction = gold / left
            limit = min(gold, math.floor(per_auction * 1.6 * worth + 0.5))
        if low <= limit:
            return {"t": "Bid", "amount": low}
        return {"t": "Pass"}

    def _pay(self, view: dict[str, Any], legal: list[Command]) -> Command:
        payment = view["payment"]
        if payment["kind"] == "gold":
            left = payment["owed"] - payment["paid"]
            enough = [c for c in legal if C.value(c["card"]) >= left]
            if enough:
                return min(enough, key=lambda c: (C.value(c["card"]), c["card"]))
            return max(legal, key=lambda c: (C.value(c["card"]), c["card"]))
        return min(legal, key=lambda c: (self._worth(view, c["card"]), c["card"]))
