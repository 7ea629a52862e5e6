"""A heuristic bot for Edgar & Lucien: it reads only its seat's view.

It plays for three of the four conditions: money (bank robberies, Steel
taxes, robbing other Luciens), districts (cheap neutral ones first, the
Administration ones above all) and popularity (for the Governor's office).
Everything it could do is priced in one currency, "points" (10,000 Cogs is
one point), by :func:`worth`: what the player holds, plus a bonus for each
condition met and a huge one for three.

- **Placing**: a start near the Administration districts (the Bank above
  all), away from the rivals; not always the best rated, so that its
  openings vary as a player's do.
- **Programming**: every pair of orders on offer is scored by where it
  puts the two pawns: the best action each pawn could do there or, further
  away, a discounted share of it; a Lucien left where a rival Edgar may
  land is a risk (unless his own Edgar comes along), a rival Lucien where
  Edgar may land is a chance; Political Support pairs (Edgar on the Bank,
  Lucien on City Hall) are planned together.
- **Actions**: the action with the best gain in points, if any gain.
- **Choices**: requisition the district worth most, intimidate the leaders,
  give up the district worth least, pay a Discredit Threat with what costs
  least, bid for the Governor's office up to what it is worth.
"""

from __future__ import annotations

import math
import random
from collections import deque
from collections.abc import Callable
from functools import cache
from typing import Any

from core.engine import Bot, Command, Game

from .fosko import ADMIN, ADMIN_DISTRICTS, ARCHIVES, BANK, HALL, IVORY, PIG, SIDES, STEEL, Fosko

#: where each Edgar administration action is done
EDGAR_PLACE = {"draw": "pig", "intimidate": "archives", "heist": BANK, "requisition": HALL}
#: where each Lucien administration action is done
LUCIEN_PLACE = {"speech": "pig", "heritage": "archives", "certificate": BANK, "support": HALL}

POINT = 10_000  # Cogs in a point
POP = 0.08  # points per popularity point
CARD = 1.0  # points per Manigance card in hand
CONDITION = 6.0  # points per condition met
CERTIFIED = 1.5  # points per certificate held
WIN = 1000.0
HARM = 0.5  # what a loss to a rival is worth to us, per point
GAMMA = 0.55  # discount per move still to make
GUESS_COGS = 50_000  # a hidden fortune, guessed
#: what a start's own kind is worth, in the placing score (an Administration start is a
#: third of the Influential Bureaucrat, half of it at 4 players)
START_VALUE = {STEEL: 1.0, IVORY: 0.6, ADMIN: 3.0}
#: what starting on each Administration district is worth at 2 players, besides its kind (the
#: rulebook's start, on any neutral district). Between easy bots City Hall (a Requisition from
#: the first turn) wins most; the Archives (an Intimidation makes the rival's start neutral) beat
#: a Central Bank start but not City Hall; Drunken Pig Square wins least. From 3 players on the
#: Bank and City Hall, the strongest starts there, are rated by their nearness to the Bank
#: (docs/rules/edgar-lucien.md, "Starting on an Administration district", has the figures).
ADMIN_START_2 = {HALL: 1.0, ARCHIVES: 1.0, BANK: 0.4, PIG: 0.0}
OPENING_TEMPERATURE = 0.3  # how far a start's rating may fall below the best and still be chosen
DANDY_COGS = 150_000


@cache
def distances(side: Fosko) -> dict[str, dict[str, int]]:
    """Moves from every district to every other."""
    out = {}
    for start in side.ids:
        seen = {start: 0}
        todo = deque([start])
        while todo:
            here = todo.popleft()
            for there in side.moves(here).values():
                if there not in seen:
                    seen[there] = seen[here] + 1
                    todo.append(there)
        out[start] = seen
    return out


@cache
def landing(side: Fosko, district: str) -> dict[str, float]:
    """Where a pawn on ``district`` may be after one move, each with its share of the orders."""
    moves = side.moves(district)
    out: dict[str, float] = {}
    for there in moves.values():
        out[there] = out.get(there, 0.0) + 1.0 / len(moves)
    return out


class Me:
    """What the bot counts of its own position."""

    __slots__ = ("admin", "cards", "certs", "cogs", "governor", "ivory", "needs", "pop", "steel")

    def __init__(self, view: dict[str, Any]) -> None:
        seat = view["seat"]
        p = view["players"][seat]
        self.cogs = p["cogs"] or 0
        self.pop = p["popularity"]
        self.steel = p["districts"]["steel"]
        self.ivory = p["districts"]["ivory"]
        self.admin = p["districts"]["admin"]
        self.cards = len(p["cards"] or ())
        self.certs = {c for c, s in view["certificates"].items() if s == seat}
        self.governor = view["governor"] == seat
        self.needs = view["needs"]

    def copy(self, **changes: Any) -> Me:
        new = object.__new__(Me)
        for name in Me.__slots__:
            setattr(new, name, getattr(self, name))
        for name, value in changes.items():
            setattr(new, name, value)
        return new

    def conditions(self) -> int:
        n = self.needs
        return (
            (self.cogs >= n["cogs"] or "dandy" in self.certs)
            + (self.steel + self.ivory + self.admin >= n["districts"] or "collector" in self.certs)
            + (self.admin >= n["admin"] or "bureaucrat" in self.certs)
            + ((self.governor and self.pop >= n["popularity"]) or "zealot" in self.certs)
        )

    def met(self, cert: str) -> bool:
        n = self.needs
        return {
            "dandy": self.cogs >= n["cogs"],
            "collector": self.steel + self.ivory + self.admin >= n["districts"],
            "bureaucrat": self.admin >= n["admin"],
            "zealot": self.governor and self.pop >= n["popularity"],
        }[cert]


def worth(me: Me) -> float:
    """The position in points."""
    cogs = min(me.cogs, DANDY_COGS) / POINT + max(0, me.cogs - DANDY_COGS) / POINT * 0.3
    pop = me.pop * POP * (1.5 if me.governor else 1.0)
    admin_need = me.needs["admin"]
    admin = 5.0 * min(me.admin, admin_need) + 2.0 * max(0, me.admin - admin_need)
    districts = 3.5 * me.steel + 2.5 * me.ivory + admin
    conds = me.conditions()
    return (
        cogs
        + pop
        + districts
        + CARD * me.cards
        + CONDITION * conds
        + CERTIFIED * len(me.certs)
        + (WIN if conds >= 3 else 0.0)
    )


class HeuristicBot(Bot):
    level = "easy"

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    # -- reading the view -----------------------------------------------------------------

    def _setup(self, view: dict[str, Any]) -> None:
        self.view = view
        self.seat = view["seat"]
        self.side = SIDES[view["side"]]
        self.dist = distances(self.side)
        self.me = Me(view)
        self.base = worth(self.me)
        self.players = view["players"]
        self.mine = self.players[self.seat]
        self.n = len(self.players)
        self.owners = view["owners"]
        self.neutral = [d for d in self.side.ids if d not in self.owners]
        self.used = set(self.mine["used"])

    def gain(self, after: Me) -> float:
        return worth(after) - self.base

    def rival_cogs(self, seat: int) -> int:
        cogs = self.players[seat]["cogs"]
        return GUESS_COGS if cogs is None else cogs

    def threat(self, seat: int) -> float:
        """How close a rival is to winning, roughly in conditions."""
        p = self.players[seat]
        conds = sum(1 for c in p["conditions"].values() if c)
        return conds + 0.1 * sum(p["districts"].values())

    def district_gain(self, district: str, cost: int = 0, me: Me | None = None) -> float:
        """Points for taking ``district`` (paying ``cost``), and the harm done to its owner."""
        me = me or self.me
        kind = self.side.kind(district)
        after = me.copy(cogs=me.cogs - cost, **{kind: getattr(me, kind) + 1})
        value = worth(after) - worth(me)
        owner = self.owners.get(district)
        if owner is not None and owner != self.seat:
            value += HARM * (3.0 if kind == ADMIN else 2.5) * (0.3 + 0.3 * self.threat(owner))
            value -= HARM * cost / POINT  # the owner is paid
            # a rival Lucien standing there (or coming back) buys it straight back
            if (
                cost
                and self.view["heritage"] != self.seat
                and any(p["lucien"] == district for i, p in enumerate(self.players) if i != self.seat)
            ):
                value -= 3.0
        return value

    def best_requisition(self, me: Me | None = None) -> float:
        if not self.mine["supply"]:
            return 0.0
        pool = self.neutral or [d for d, s in self.owners.items() if s != self.seat and s != self.view["heritage"]]
        return max((self.district_gain(d, me=me) for d in pool), default=0.0)

    # -- what each administration action is worth ------------------------------------------

    def edgar_admin(self, action: str, doubled: bool = False) -> float:
        me = self.me
        cost = 30 if doubled else 20
        if me.pop < cost:
            return -1.0
        k = 2 if doubled else 1
        paid = me.copy(pop=me.pop - cost)
        if action == "heist":
            return self.gain(paid.copy(cogs=paid.cogs + 50_000 * k))
        if action == "draw":
            return self.gain(paid.copy(cards=paid.cards + 2 * k))
        if action == "requisition":
            value = self.gain(paid)
            first = self.best_requisition()
            return value + first * k * (0.9 if k == 2 else 1.0)
        if action == "intimidate":
            rivals = sorted((self.threat(s) for s in range(self.n) if s != self.seat), reverse=True)
            hurt = sum(HARM * 2.5 * (1 + 0.3 * t) for t in rivals[:2])
            if self.n == 2:
                hurt = HARM * 3.0 * (1 + 0.3 * rivals[0])
            owned = sum(1 for s in self.owners.values() if s != self.seat)
            if not owned:
                return -1.0
            return self.gain(paid) + hurt * k
        return 0.0

    def lucien_admin(self, action: str, **params: Any) -> float:
        me = self.me
        if action == "speech":
            return self.gain(me.copy(pop=min(100, me.pop + 50)))
        if action == "heritage":
            if self.view["heritage"] == self.seat:
                return -1.0
            mine = sum(1 for s in self.owners.values() if s == self.seat)
            return 0.35 * mine + (0.5 if self.view["heritage"] is not None else 0.0) - 0.3
        if action == "certificate":
            cert = params.get("certificate")
            return (
                self.cert_gain(cert)
                if cert
                else max(
                    (self.cert_gain(c) for c in ("dandy", "collector", "bureaucrat", "zealot") if self.me.met(c)),
                    default=-1.0,
                )
            )
        if action == "support":
            edgar = params.get("edgar")
            if edgar is None:
                return max(self.edgar_admin(a, doubled=True) for a in EDGAR_PLACE)
            value = self.edgar_admin(edgar, doubled=True)
            if params.get("remote"):
                value -= CARD
            return value
        return 0.0

    def cert_gain(self, cert: str) -> float:
        if cert in self.me.certs:
            return -1.0
        certs = self.me.certs | {cert}
        value = self.gain(self.me.copy(certs=certs))
        # the certificates most worth having guard what is easily lost
        value += {"dandy": 4.0, "zealot": 3.0, "collector": 2.0, "bureaucrat": 2.0}[cert]
        holder = self.view["certificates"].get(cert)
        if holder is not None and holder != self.seat:
            value += HARM * CONDITION * (1 + 0.3 * self.threat(holder))
        return value

    # -- choosing ---------------------------------------------------------------------------

    def choose(self, game: Game, view: dict[str, Any], legal: list[Command], known: Any = None) -> Command:
        if len(legal) == 1:
            return legal[0]
        self._setup(view)
        kind = legal[0]["t"]
        if kind == "Place":
            return self._place(legal)
        if kind == "Program":
            return self._program(legal)
        kinds = {c["t"] for c in legal}
        if kinds & {"Bid", "Drop"}:
            return self._bid(legal)
        return self._best(legal, self._command_value)

    def _best(self, legal: list[Command], score: Callable[[Command], float]) -> Command:
        best: list[Command] = []
        best_score = float("-inf")
        for command in legal:
            value = score(command)
            if value > best_score + 1e-9:
                best, best_score = [command], value
            elif value > best_score - 1e-9:
                best.append(command)
        return best[0] if len(best) == 1 else self.rng.choice(best)

    # -- placing ----------------------------------------------------------------------------

    def _place(self, legal: list[Command]) -> Command:
        taken = [p["lucien"] for i, p in enumerate(self.players) if i != self.seat and p["lucien"]]

        def score(command: Command) -> float:
            d = command["district"]
            kind = self.side.kind(d)
            value = START_VALUE[kind]
            here = self.dist[d]
            value += sum(GAMMA ** here[a] for a in ADMIN_DISTRICTS)
            if kind == ADMIN and self.n == 2:
                value += ADMIN_START_2[d]
            else:  # near the Bank (or on it): robbed every period without walking far
                value += 0.8 * GAMMA ** here[BANK]
            # away from the others' Edgars
            value += 0.15 * sum(min(3, here[t]) for t in taken)
            return value

        # Not always the start it rates best: the likelier the better it rates it
        # (a start a point below the best is chosen e^-3.3, about 1/28, as often).
        # Always taking the best let the first seat take Rivet Row and the second
        # Tram Sheds in every game, and Rivet Row won 77% of those whoever took it
        # (docs/rules/edgar-lucien.md, "Seats and starts").
        scores = [score(command) for command in legal]
        top = max(scores)
        weights = [math.exp((value - top) / OPENING_TEMPERATURE) for value in scores]
        return self.rng.choices(legal, weights=weights)[0]

    # -- programming ------------------------------------------------------------------------

    def _edgar_here(self, district: str) -> float:
        """What Edgar could do on ``district`` (besides robbing), in points."""
        me = self.me
        best = 0.0
        for action, place in EDGAR_PLACE.items():
            if place == district and action not in self.used:
                best = max(best, self.edgar_admin(action))
        cards = set(self.mine["cards"] or ())
        owner = self.owners.get(district)
        kind = self.side.kind(district)
        if owner == self.seat and kind == STEEL and "backer" in cards:
            best = max(best, self.gain(me.copy(cogs=me.cogs + 40_000)))
        if owner == self.seat and kind == IVORY and "popular" in cards:
            best = max(best, self.gain(me.copy(pop=min(100, me.pop + 40))))
        if (
            "trafficking" in cards
            and owner is not None
            and owner != self.seat
            and owner != self.view["heritage"]
            and me.cogs >= 30_000
            and self.mine["supply"]
        ):
            best = max(best, self.district_gain(district, 30_000) - CARD)
        if "coup" in cards and district == HALL:
            best = max(best, self._coup_value() - CARD)
        return best

    def _lucien_here(self, district: str) -> float:
        """What Lucien could do on ``district``, in points."""
        best = 0.0
        owner = self.owners.get(district)
        if self.mine["supply"]:
            if owner is None and self.me.cogs >= 20_000:
                best = self.district_gain(district, 20_000)
            elif owner is not None and owner != self.seat and owner != self.view["heritage"] and self.me.cogs >= 30_000:
                best = self.district_gain(district, 30_000)
        for action, place in LUCIEN_PLACE.items():
            if place == district and action not in self.used and action != "support":
                if action == "certificate" and self.mine["certified_this_period"]:
                    continue
                best = max(best, self.lucien_admin(action))
        return best

    def _field(self, here_value: Callable[[str], float]) -> dict[str, float]:
        """For every district: the best value reachable from it, discounted by distance."""
        values = {d: here_value(d) for d in self.side.ids}
        goals = [(d, v) for d, v in values.items() if v > 0]
        out = {}
        for d in self.side.ids:
            row = self.dist[d]
            out[d] = max((v * GAMMA ** row[g] for g, v in goals), default=0.0)
        return out

    def _program(self, legal: list[Command]) -> Command:
        side = self.side
        e_at, l_at = self.mine["edgar"], self.mine["lucien"]
        e_field = self._field(self._edgar_here)
        l_field = self._field(self._lucien_here)
        rivals = [s for s in range(self.n) if s != self.seat]
        rival_edgar = {s: landing(side, self.players[s]["edgar"]) for s in rivals if self.players[s]["edgar"]}
        rival_lucien = {s: landing(side, self.players[s]["lucien"]) for s in rivals if self.players[s]["lucien"]}
        half_mine = (self.me.cogs + 10_000) // 20_000 * 10_000
        # Edgar robbing a rival Lucien where he may land, unguarded
        rob: dict[str, float] = {}
        for s, where in rival_lucien.items():
            loot = ((self.rival_cogs(s) + 10_000) // 20_000) * 10_000 / POINT
            guard = rival_edgar.get(s, {})
            for d, p in where.items():
                rob[d] = rob.get(d, 0.0) + loot * p * (1.0 - guard.get(d, 0.0)) * 1.5
            # chasing him over several turns
            here = self.players[s]["lucien"]
            for d in side.ids:
                rob[d] = max(rob.get(d, 0.0), loot * 0.25 * GAMMA ** self.dist[d][here])
        # a rival Edgar landing on our Lucien
        danger: dict[str, float] = {}
        for where in rival_edgar.values():
            for d, p in where.items():
                danger[d] = danger.get(d, 0.0) + min(1.0, 2.0 * p)
        loss = half_mine / POINT
        if self.me.cogs - half_mine < DANDY_COGS <= self.me.cogs and "dandy" not in self.me.certs:
            loss += CONDITION
        # Political Support: Edgar on an Administration district, Lucien on City Hall
        support: list[tuple[str, float]] = []
        if "support" not in self.used and self.me.pop >= 30:
            for action, place in EDGAR_PLACE.items():
                if action not in self.used:
                    value = self.edgar_admin(action, doubled=True)
                    if value > 0:
                        support.append((place, value))

        cache: dict[tuple[str, str], float] = {}

        def score(command: Command) -> float:
            e = side.destination(e_at, command["edgar"])
            lu = side.destination(l_at, command["lucien"])
            key = (e, lu)
            if key in cache:
                return cache[key]
            value = e_field[e] + l_field[lu] + rob.get(e, 0.0)
            if e != lu:
                value -= loss * min(1.0, danger.get(lu, 0.0))
            for place, v in support:
                joint = v * GAMMA ** max(self.dist[e][place], self.dist[lu][HALL])
                value = max(value, joint + 0.1 * (e_field[e] + l_field[lu]))
            cache[key] = value
            return value

        return self._best(legal, score)

    # -- the action phase and the questions ---------------------------------------------------

    def _command_value(self, command: Command) -> float:
        t = command["t"]
        me = self.me
        if t == "Done":
            return 0.0
        if t == "Rob":
            cogs = self.players[command["victim"]]["cogs"]
            loot = GUESS_COGS if cogs is None else cogs
            half = (loot + 10_000) // 20_000 * 10_000
            return self.gain(me.copy(cogs=me.cogs + half)) + 0.3 * HARM * half / POINT + 0.01
        if t == "EdgarAdmin":
            return self.edgar_admin(command["action"])
        if t == "LucienAdmin":
            return self.lucien_admin(
                command["action"], **{k: v for k, v in command.items() if k not in ("t", "action")}
            )
        if t == "Buy":
            district = self.mine["lucien"]
            cost = 30_000 if self.owners.get(district) not in (None, self.seat) else 20_000
            return self.district_gain(district, cost)
        if t == "PlayCard":
            return self._card_value(command)
        if t == "Requisition":
            return self.district_gain(command["district"])
        if t == "Intimidate":
            if "players" in command:
                return sum(self.threat(s) for s in command["players"])
            d = command["district"]
            return {ADMIN: 3.0, STEEL: 2.0, IVORY: 1.5}[self.side.kind(d)]
        if t == "Surrender":
            d = command["district"]
            kind = self.side.kind(d)
            return -(worth(me) - worth(me.copy(**{kind: getattr(me, kind) - 1})))
        if t == "Yield":
            if command["pay"] == "cogs":
                return self.gain(me.copy(cogs=me.cogs - 10_000))
            return self.gain(me.copy(pop=max(0, me.pop - 20)))
        return -0.5

    def _card_value(self, command: Command) -> float:
        card = command["card"]
        me = self.me
        acted = self.mine["acted"]
        if card == "plan-b":
            if acted["lucien"]:
                return -1.0
            return self._lucien_here(command["district"]) - self._lucien_here(self.mine["lucien"]) - CARD
        if card == "trafficking":
            return self.district_gain(self.mine["edgar"], 30_000) - CARD
        if card == "discredit":
            return 0.9 * (self.n - 1) - CARD
        if card == "certification":
            return self.cert_gain(command["certificate"]) - CARD
        if card == "backer":
            return self.gain(me.copy(cogs=me.cogs + 40_000)) - CARD
        if card == "popular":
            return self.gain(me.copy(pop=min(100, me.pop + 40))) - CARD
        if card == "extortion":
            return 0.3
        if card == "remote":
            action = command.get("action")
            if action is None:
                return -1.0
            value = self.edgar_admin(action) - CARD
            # a Remote Action with Political Support is worth more: keep it for City Hall
            if "support" not in self.used and me.pop >= 30 and self.mine["lucien"] != HALL:
                value -= 1.0
            return value
        if card == "coup":
            return self._coup_value() - CARD
        return -1.0

    def _coup_value(self) -> float:
        governor = self.view["governor"]
        if governor is None or governor == self.seat:
            return -1.0
        value = self.gain(self.me.copy(governor=True)) + 1.0
        value += HARM * 2.0 * (1 + 0.3 * self.threat(governor))
        return value

    def _bid(self, legal: list[Command]) -> Command:
        """The lowest bid on offer if the office is worth it, else drop out."""
        me = self.me
        office = 1.5 + (3.0 if me.pop >= 80 else 0.0)
        bids = sorted((c for c in legal if c["t"] == "Bid"), key=lambda c: c["amount"])
        drop = next((c for c in legal if c["t"] == "Drop"), None)
        if bids:
            after = me.copy(cogs=me.cogs - bids[0]["amount"], governor=True)
            if self.gain(after) + office > 0 or drop is None:
                return bids[0]
        return drop if drop is not None else legal[0]
