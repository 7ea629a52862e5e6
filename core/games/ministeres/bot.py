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
It takes the best centre card.  In the auctions it bids up to what a lot is
worth to it, in gold: a gold is worth the share of the gold-paid lots still
to come that the bot's gold must buy (so it neither runs dry halfway nor
ends with gold that buys nothing), and an Or card is worth its gold that
way, bought with the cards it values least.  It never bids beyond what it
can pay, and pays with as little waste as it can.
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
#: how dear the bot holds its gold against the lots to come (1: it would spend
#: it all on its share of them at their worth; more: it saves some)
GOLD_APPETITE = 1.0


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
        # in the auctions gold is worth what it can still buy (see _gold_worth)
        self._per_gold = self._gold_worth(view) if kind in ("Bid", "Pass", "Pay") else 1.0
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
        totals = dict.fromkeys(C.MINISTRIES, 0)
        for c in hand:
            if C.is_gouvernement(c):
                totals[C.ministry_of(c)] += C.value(c)
        return totals

    def _tokens(self, view: dict[str, Any]) -> dict[str, float]:
        out = {}
        for m in view["ministries"]:
            out[m["id"]] = m["primaire"] + 0.5 * (m["secondaire"] or 0)
        return out

    def _worth(self, view: dict[str, Any], card: str) -> float:
        kind = C.kind(card)
        if kind == "or":
            return C.value(card) * self._per_gold
        totals = self._hand_totals
        tokens = self._token_worth
        if kind == "gouvernement":
            m = C.ministry_of(card)
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

    def _gold_worth(self, view: dict[str, Any]) -> float:
        """What one gold is worth to the bot now, in the unit of card worth.

        Gold buys nothing at the end: it is worth the lots still to come that
        are paid in gold (the Gouvernement and Roi cards), as much of them as
        the bot's share of the table can buy, divided by the bot's gold.  The
        lots it put on the Favours pile are known; the others are guessed as
        the average of the cards it has not seen.  Scarce gold and many lots
        to come make every gold (and every Or card) dear; plenty of gold, or
        few lots left, make it cheap.
        """
        me = view["seat"]
        gold = view["players"][me]["gold"] or 0
        lots = view["favours"] + (1 if view.get("auction") else 0)
        mine = list(view.get("favours_known") or [])
        seen = set(view["hand"] or []) | set(view["discard"]) | set(mine)
        auction = view.get("auction")
        if auction:
            mine.append(auction["card"])
            seen.add(auction["card"])
        unseen = [c for c in C.ALL_CARDS if c not in seen]
        paid_in_gold = [self._worth_in_gold_lot(view, c) for c in unseen if not C.is_or(c)]
        average = sum(paid_in_gold) / len(unseen) if unseen else 0.0
        coming = sum(self._worth_in_gold_lot(view, c) for c in mine if not C.is_or(c))
        coming += max(0, lots - len(mine)) * average
        share = coming / len(view["players"])
        return max(0.05, share / max(gold, 1)) * GOLD_APPETITE

    def _worth_in_gold_lot(self, view: dict[str, Any], card: str) -> float:
        return max(0.0, self._worth(view, card)) if not C.is_or(card) else 0.0

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
            # the cards worth the least, for as long as they cost less than the gold is worth
            value = self._worth(view, card)
            worths = sorted(self._worth(view, c) for c in hand)
            limit, cost = 0, 0.0
            for w in worths:
                if cost + w >= value:
                    break
                cost += w
                limit += 1
            limit = min(limit, len(hand))  # never more cards than it holds: no bluff
        else:
            worth = self._worth(view, card)
            if worth <= 0:
                return {"t": "Pass"}
            # as many gold as the card is worth, never more than it holds
            limit = min(gold, math.floor(worth / self._per_gold + 0.5))
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
