"""The rules of Edgar & Lucien as a decider (see core/engine.py).

Each player has two henchmen in the city of Fosko: Edgar (robberies,
Manigance cards, dirty administration work) and Lucien (buying districts,
respectable administration work).  An Electoral Period is 4 turns; a turn is
a secret programming of both characters' moves (every seat at once), the
simultaneous reveal and the movements, then an action phase in turn order
where each character may act once.  After the fourth turn come the Tax
Collection and the Governor Election.  The first player to meet three of
the four victory conditions (met or certified) wins at once.

``decide`` returns the events of the command and every automatic event that
follows (reveal and movements, the end of a player's action step, the next
turn, taxes, election, the next period) until a seat must choose again.
Choices that belong to another seat in the middle of an action (the victims
of an Intimidation, the players hit by a Discredit Threat, the districts a
Requisition takes) are *asks*, a queue in the state.  The internal phases
``setup``, ``turn_end`` and ``period_end`` mark automatic steps and never
await a command; the view shows them as the nearest player phase.

Every rule check is a *refusal*: a function returning the sentence that
refuses a command, or None.  ``legal`` keeps the candidate commands nobody
refuses and ``decide`` raises the refusal, so the two never disagree.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from itertools import combinations
from typing import Any, ClassVar, TypeGuard

from core.engine import (
    ALL,
    UNSEEN,
    Command,
    ConfigError,
    Event,
    Game,
    IllegalCommand,
    Outcome,
    ScoreSheet,
    Shape,
    Variant,
    Viewer,
    flag,
    items,
    revise,
    shape,
    shapes,
    text,
    whole,
    win_shares,
)

from . import cards as C
from .fosko import (
    ADMIN,
    ARCHIVES,
    BANK,
    BORDER_COLOURS,
    HALL,
    IVORY,
    LARGE,
    LINE_NAMES,
    METRO_COLOURS,
    PIG,
    SIDES,
    STAY,
    STEEL,
    is_move,
    move_words,
    side_for,
)

START_COGS = 50_000
START_POPULARITY = 50
#: the notes in the box: 45 of 10,000 and 15 of 50,000
BOX_COGS = 1_200_000
TOKENS = 16
UNIT = 10_000
TURNS = 4
CITY_PRICE = 20_000
BUYBACK_PRICE = 30_000
HEIST = 50_000
BACKER = 40_000
POPULAR = 40
SPEECH = 50
DISCREDIT_POPULARITY = 20
DISCREDIT_COGS = 10_000
IVORY_TAX = 20
STEEL_TAX = 20_000
DRAW = 2
#: a hidden fortune is guessed uniformly in 10,000s from 0 to this (see ``determinize``)
GUESS_MAX = 200_000

#: the phases the view shows; the others are automatic steps
PLAYER_PHASES = ("place", "program", "act", "ask", "bid", "over")
#: events after which someone may have met a new victory condition
GAINS = frozenset(
    {
        "Robbed",
        "DistrictBought",
        "BankPaid",
        "PopularityGained",
        "CertificateTaken",
        "GovernorStolen",
        "Requisitioned",
        "Yielded",
        "TaxesCollected",
        "GovernorElected",
    }
)
ASK_COMMANDS = {"requisition": "Requisition", "intimidate": "Intimidate", "surrender": "Surrender", "yield": "Yield"}


# -- the board, indexed once per side ----------------------------------------------------


@dataclass(frozen=True)
class Board:
    """One side of Fosko as the rules read it: ids, index, kinds and moves."""

    ids: tuple[str, ...]
    index: dict[str, int]
    kinds: tuple[str, ...]
    moves: dict[str, dict[str, str]]


@cache
def board(side: str) -> Board:
    f = SIDES[side]
    ids = f.ids
    return Board(ids, {d: i for i, d in enumerate(ids)}, tuple(f.kind(d) for d in ids), {d: f.moves(d) for d in ids})


#: every district's name (both sides share names; the 4-player side has them all)
_NAMES = {d.id: d.name for d in LARGE.districts}


def district_name(district: str) -> str:
    """``"Rivet Row"``."""
    return _NAMES[district]


_PLACE = {BANK: "the Central Bank", ARCHIVES: "the Archives", PIG: "Drunken Pig Square", HALL: "City Hall"}


def place_name(district: str) -> str:
    """The name as it follows "on": ``"the Central Bank"``, ``"Forges"``."""
    return _PLACE.get(district) or district_name(district)


def cogs(amount: int) -> str:
    return f"{amount:,} Cogs"


# -- the state ------------------------------------------------------------------------------


@dataclass(frozen=True)
class State:
    names: tuple[str, ...]
    side: str
    #: fortunes hidden from the other players (variant)
    hidden: bool = True
    #: Administration districts allowed as starting districts (the rulebook; False: the outskirts
    #: variant, and every save from before the variant)
    anywhere: bool = False
    deck_size: int = 15
    phase: str = "setup"
    period: int = 1
    #: this period's turn, 0 before its first
    turn: int = 0
    first: int = 0
    governor: int | None = None
    heritage: int | None = None
    #: this turn's order (the placement order before the first turn)
    order: tuple[int, ...] = ()
    #: index in ``order`` of the player placing or acting
    step: int = 0
    #: the owner of each district (board index), None when neutral
    owners: tuple[int | None, ...] = ()
    #: the holder of each certificate, in C.CERTIFICATES order
    certs: tuple[int | None, ...] = (None, None, None, None)
    bank: int = 0
    #: the Manigance deck, top first, and the discard pile
    deck: tuple[str, ...] = ()
    discard: tuple[str, ...] = ()
    cogs: tuple[int, ...] = ()
    popularity: tuple[int, ...] = ()
    edgar: tuple[str | None, ...] = ()
    lucien: tuple[str | None, ...] = ()
    hands: tuple[tuple[str, ...], ...] = ()
    #: administration actions used this period, per player
    used: tuple[tuple[str, ...], ...] = ()
    #: a certificate taken this period, per player
    certified: tuple[bool, ...] = ()
    #: (Edgar, Lucien) acted this turn, per player
    acted: tuple[tuple[bool, bool], ...] = ()
    #: this turn's (Edgar move, Lucien move), per player, None until programmed
    programs: tuple[tuple[str, str] | None, ...] = ()
    revealed: bool = False
    #: this turn's movements: (seat, pawn, from, to, move)
    last_moves: tuple[tuple[int, str, str, str, str], ...] = ()
    #: choices awaited, first first: (kind, seat, by, left)
    asks: tuple[tuple[str, int, int, int], ...] = ()
    #: the player on turn had Political Support this turn
    supported: bool = False
    #: Governor election tie: (tied, bid, bidder, dropped, to_bid)
    bidding: Bidding | None = None
    winner: int | None = None
    reason: str | None = None

    @property
    def players(self) -> int:
        return len(self.names)

    @property
    def board(self) -> Board:
        return board(self.side)

    def owner(self, district: str) -> int | None:
        return self.owners[board(self.side).index[district]]

    def edgar_at(self, seat: int) -> str:
        """Where ``seat``'s Edgar stands, once the pawns are placed."""
        return _placed(self.edgar[seat])

    def lucien_at(self, seat: int) -> str:
        """Where ``seat``'s Lucien stands, once the pawns are placed."""
        return _placed(self.lucien[seat])

    def program(self, seat: int) -> tuple[str, str]:
        """``seat``'s program this turn, once programmed."""
        p = self.programs[seat]
        if p is None:
            raise ValueError(f"seat {seat} has not programmed its wheel")
        return p

    @property
    def auction(self) -> Bidding:
        """The Governor election tie, while it is bid for."""
        if self.bidding is None:
            raise ValueError("nobody is bidding for the post of Governor")
        return self.bidding

    @property
    def on_turn(self) -> int | None:
        """The player placing or acting now."""
        if self.phase in ("place", "act", "ask") and self.step < len(self.order):
            return self.order[self.step]
        return None


#: a Governor election tie: (the tied seats, the bid, the bidder, the seats dropped out, the seat to bid)
Bidding = tuple[tuple[int, ...], int, int | None, tuple[int, ...], int]


def _placed(district: str | None) -> str:
    if district is None:
        raise ValueError("the pawns are not placed yet")
    return district


# -- pure rule helpers (also for the bot) ---------------------------------------------------


def turn_order(players: int, first: int, governor: int | None) -> tuple[int, ...]:
    """Clockwise from the first player, the Governor (if any) moved last."""
    order = [(first + i) % players for i in range(players)]
    if governor is not None:
        order.remove(governor)
        order.append(governor)
    return tuple(order)


def robbery_amount(fortune: int) -> int:
    """Half a fortune, rounded up to the next 10,000: 30,000 -> 20,000, 10,000 -> 10,000."""
    return -(-fortune // (2 * UNIT)) * UNIT


def holdings(s: State, seat: int) -> tuple[int, int, int, int]:
    """(districts, Administration, Steel, Ivory) controlled by ``seat``."""
    total = admin = steel = ivory = 0
    kinds = board(s.side).kinds
    for i, owner in enumerate(s.owners):
        if owner == seat:
            total += 1
            kind = kinds[i]
            if kind == ADMIN:
                admin += 1
            elif kind == STEEL:
                steel += 1
            else:
                ivory += 1
    return total, admin, steel, ivory


def districts_of(s: State, seat: int) -> list[str]:
    ids = board(s.side).ids
    return [ids[i] for i, owner in enumerate(s.owners) if owner == seat]


def supply(s: State, seat: int) -> int:
    """Influence tokens not on the board."""
    return TOKENS - sum(1 for owner in s.owners if owner == seat)


def met(s: State, seat: int) -> tuple[bool, bool, bool, bool]:
    """The victory conditions ``seat`` meets now, certificates aside."""
    total, admin, _, _ = holdings(s, seat)
    n = s.players
    return (
        s.cogs[seat] >= C.WEALTH,
        total >= C.districts_needed(n),
        admin >= C.admin_needed(n),
        s.governor == seat and s.popularity[seat] >= C.MAX_POPULARITY,
    )


def conditions(s: State, seat: int) -> tuple[bool, ...]:
    """The victory conditions ``seat`` meets or holds the certificate of."""
    return tuple(m or s.certs[k] == seat for k, m in enumerate(met(s, seat)))


def requisition_targets(s: State, seat: int) -> list[str]:
    """A neutral district anywhere; another player's only when none is
    neutral, never the Heritage Protection holder's."""
    ids = board(s.side).ids
    neutral = [ids[i] for i, owner in enumerate(s.owners) if owner is None]
    if neutral:
        return neutral
    return [ids[i] for i, owner in enumerate(s.owners) if owner not in (seat, s.heritage)]


def can_requisition(s: State, seat: int) -> bool:
    return supply(s, seat) > 0 and bool(requisition_targets(s, seat))


def next_bidder(tied: tuple[int, ...], dropped: tuple[int, ...], after: int) -> int | None:
    i = tied.index(after)
    for k in range(1, len(tied) + 1):
        seat = tied[(i + k) % len(tied)]
        if seat not in dropped:
            return seat
    return None


def _put(values: tuple[Any, ...], i: int, value: Any) -> tuple[Any, ...]:
    return values[:i] + (value,) + values[i + 1 :]


def _without(cards: tuple[str, ...], card: str) -> tuple[str, ...]:
    i = cards.index(card)
    return cards[:i] + cards[i + 1 :]


def _dealt(cards: tuple[str, ...], deal: Iterator[str]) -> tuple[str, ...]:
    """``cards`` with every UNSEEN slot filled from the iterator ``deal``."""
    if UNSEEN not in cards:
        return cards
    return tuple(next(deal) if c == UNSEEN else c for c in cards)


@cache
def _full_deck(size: int) -> tuple[str, ...]:
    return C.deck(size)


def _and(words: list[str]) -> str:
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def _is_seat(value: object, players: int) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < players


# -- the flow of one decide: events applied as they are made ----------------------------------


class _Flow:
    """The events of one ``decide``, each folded as it is added.  After an
    event that can complete a condition the victory is checked; once the game
    is won nothing more is added."""

    __slots__ = ("events", "game", "s")

    def __init__(self, game: EdgarLucien, state: State) -> None:
        self.game = game
        self.s = state
        self.events: list[Event] = []

    @property
    def over(self) -> bool:
        return self.s.phase == "over"

    def add(self, *events: Event) -> None:
        for ev in events:
            if self.over:
                return
            self.events.append(ev)
            self.s = self.game.evolve(self.s, ev)
            if ev["t"] in GAINS:
                won = self.game._won_event(self.s)
                if won is not None:
                    self.events.append(won)
                    self.s = self.game.evolve(self.s, won)


# -- the game ---------------------------------------------------------------------------------


def _command_shapes() -> dict[str, Shape]:
    """Every command of the game and its exact fields (core.engine.Shape).

    A district is any district of either side of Fosko and a wheel setting
    any the wheel can show (a metro exit any district): the rules then say
    which ones mean something at this table."""
    districts = tuple(dict.fromkeys(d for side in SIDES.values() for d in side.ids))
    district = text(districts, what="district")
    wheel = (STAY, *BORDER_COLOURS, *(f"{line}>{d}" for line in METRO_COLOURS for d in districts))
    how = 'choose Immobile ("stay"), a border colour or a metro line and its exit ("pink>docks").'
    seat = whole(0, 3)
    edgar_action = text(
        C.EDGAR_ACTIONS,
        say="Name the administration action of Edgar: draw, intimidate, heist or requisition.",
    )
    certificate = text(C.CERTIFICATES, say="Name the certificate you take: dandy, collector, bureaucrat or zealot.")
    param_fields = {"district": district, "certificate": certificate, "target": seat, "action": edgar_action}
    return shapes(
        shape("Place", district=district),
        shape(
            "Program",
            edgar=text(wheel, say=f"That is not a setting of the wheel for Edgar: {how}"),
            lucien=text(wheel, say=f"That is not a setting of the wheel for Lucien: {how}"),
        ),
        shape("Rob", victim=whole(0, 3, say="Choose one of the players at this table as your victim.")),
        shape("PlayCard", card=text(C.CARD_IDS, what="Manigance card")).by(
            "card", {c.id: {c.param: param_fields[c.param]} for c in C.CARDS if c.param is not None}
        ),
        shape("EdgarAdmin", action=edgar_action),
        shape("Buy"),
        shape(
            "LucienAdmin",
            action=text(
                C.LUCIEN_ACTIONS,
                say="Lucien's administration actions are speech, heritage, certificate and support.",
            ),
        ).by(
            "action",
            {
                "certificate": {"certificate": certificate},
                "support": {
                    "edgar": edgar_action,
                    "remote": flag(
                        default=False,
                        keep=True,
                        say="Say whether your Edgar acts from afar with a Remote Action card (true or false).",
                    ),
                },
            },
        ),
        shape("Done"),
        shape("Requisition", district=district),
        # two players: the district made neutral; more: the two players who each give one up
        shape(
            "Intimidate",
            district=text(districts, what="district", default=None),
            players=items(
                seat, 2, 2, sort=True, default=None, say="Designate two different players other than yourself."
            ),
        ),
        shape("Surrender", district=district),
        shape("Yield", pay=text(("popularity", "cogs"), say="Pay with popularity or with cogs.")),
        shape("Bid", amount=whole(0, BOX_COGS)),
        shape("Drop"),
    )


#: the rules' dispatch tables: a refusal of a command (None: allowed), the events of one
Refusal = Callable[["EdgarLucien", State, int, Command], "str | None"]
Decision = Callable[["EdgarLucien", _Flow, int, Command, random.Random], None]


class EdgarLucien(Game):
    id = "edgar-lucien"
    title = "Edgar & Lucien"
    min_players = 2
    max_players = 4
    rules_version = 1
    variants = (
        Variant(
            "fortunes",
            "Fortunes",
            ("hidden", "open"),
            "hidden",
            "hidden: each player sees only their own Cogs (and what a robbery takes from them); "
            "open: all on the table.",
        ),
        Variant(
            "deck",
            "Manigance deck",
            ("15", "20"),
            "15",
            "15: the Compendium's cards; "
            "20: one more Plan B, Discredit Threat, Certification, Extortion and Coup d'État.",
        ),
        Variant(
            "map",
            "Map of Fosko",
            ("2", "1"),
            "2",
            "2: the map of today; 1: the first 4-player map, kept for the games saved on it "
            "(from Opera, the Bank Robbery could be doubled on the first turn).",
            listed=False,
        ),
        Variant(
            "start",
            "Starting districts",
            ("anywhere", "outskirts"),
            "anywhere",
            "anywhere: any neutral district, an Administration one too, as the rulebook says; "
            "outskirts: Steel or Ivory districts only, fairer at 3 and 4 players, where a start on "
            "City Hall or the Central Bank wins about half the games.",
        ),
    )
    bot_classes: ClassVar[dict[str, str]] = {"easy": "core.games.edgar_lucien.bot:HeuristicBot"}
    #: moves the search bot simulates a decision (bench/search.py, docs/BOTS.md)
    search_budget: ClassVar[dict[str, int]] = {"normal": 250, "hard": 800}

    # -- table ------------------------------------------------------------------------

    def initial(self, config: dict[str, Any]) -> State:
        n = config["players"]
        if not self.min_players <= n <= self.max_players:
            raise ConfigError(f"{self.title} is played by 2 to 4 players, not {n}.")
        seats = config["seats"]
        variants = config.get("variants", {})
        # a save from before the map had editions lacks the key: it was played on the first map
        side = side_for(n, str(variants.get("map", "1"))).side
        return State(
            names=tuple(s.get("name", f"Player {i + 1}") for i, s in enumerate(seats)),
            side=side,
            hidden=variants.get("fortunes", "hidden") != "open",
            # the rulebook's "any neutral district" is the default; a header from before the variant
            # lacks the key and was played when only Steel and Ivory starts were allowed
            anywhere=variants.get("start", "outskirts") == "anywhere",
            deck_size=20 if str(variants.get("deck", "15")) == "20" else 15,
            order=tuple(range(n)),
            owners=(None,) * len(board(side).ids),
            bank=BOX_COGS - START_COGS * n,
            cogs=(START_COGS,) * n,
            popularity=(START_POPULARITY,) * n,
            edgar=(None,) * n,
            lucien=(None,) * n,
            hands=((),) * n,
            used=((),) * n,
            certified=(False,) * n,
            acted=((False, False),) * n,
            programs=(None,) * n,
        )

    def setup(self, config: dict[str, Any], rng: random.Random) -> list[Event]:
        s = self.initial(config)
        cards = list(C.deck(s.deck_size))
        top = list((config.get("arranged") or {}).get("deck") or ())
        rest = list(cards)
        for card in top:
            if card not in rest:
                raise ConfigError(f"The arranged deck holds more {card!r} cards than the {s.deck_size}-card deck.")
            rest.remove(card)
        rng.shuffle(rest)
        flow = _Flow(self, s)
        flow.add(
            {
                "t": "GameSetUp",
                "names": list(s.names),
                "side": s.side,
                "fortunes": "hidden" if s.hidden else "open",
                "start": "anywhere" if s.anywhere else "outskirts",
                "deck": s.deck_size,
                "cogs": START_COGS,
                "popularity": START_POPULARITY,
                "bank": s.bank,
            },
            {"t": "DeckShuffled", "cards": top + rest, "count": len(cards), "reason": "setup"},
        )
        return flow.events

    # -- who acts ------------------------------------------------------------------------

    def active(self, state: State) -> tuple[int, ...]:
        s = state
        phase = s.phase
        if phase in ("place", "act"):
            return (s.order[s.step],)
        if phase == "program":
            return tuple(i for i, p in enumerate(s.programs) if p is None)
        if phase == "ask":
            return (s.asks[0][1],)
        if phase == "bid":
            return (s.auction[4],)
        return ()

    def waiting_for(self, state: State) -> str:
        s = state
        phase = s.phase
        if phase == "place":
            return f"{s.names[s.order[s.step]]} is choosing a starting district."
        if phase == "program":
            who = [s.names[i] for i in self.active(s)]
            return f"Waiting for {_and(who)} to program their movements."
        if phase == "act":
            return f"It is {s.names[s.order[s.step]]}'s turn to act."
        if phase == "ask":
            kind, seat, by, _ = s.asks[0]
            what = {
                "requisition": "a district to requisition",
                "intimidate": "whom to intimidate",
                "surrender": "a district to give up",
                "yield": f"whether to lose popularity or pay {s.names[by]}",
            }[kind]
            return f"{s.names[seat]} is choosing {what}."
        if phase == "bid":
            return f"{s.names[s.auction[4]]} is bidding for the post of Governor."
        return "Nobody can move now."

    # -- commands --------------------------------------------------------------------------

    command_shapes = _command_shapes()

    def decide(self, state: State, seat: int, command: Command, rng: random.Random) -> list[Event]:
        command = self.refuse_out_of_turn(state, seat, command)
        flow = _Flow(self, state)
        self._DECIDE[state.phase](self, flow, seat, command, rng)
        self._auto(flow, rng)
        return flow.events

    def legal(self, state: State, seat: int) -> list[Command]:
        if self.outcome(state) is not None or seat not in self.active(state):
            return []
        return self._LEGAL[state.phase](self, state, seat)

    @staticmethod
    def _enforce(refusal: str | None) -> None:
        if refusal is not None:
            raise IllegalCommand(refusal)

    # -- placement -------------------------------------------------------------------------

    def _refuse_place(self, s: State, seat: int, command: Command) -> str | None:
        if command["t"] != "Place":
            return "Place your Edgar, your Lucien and an influence token on your starting district."
        d = command.get("district")
        b = s.board
        if not isinstance(d, str) or d not in b.index:
            return f"There is no district called {d!r} on this side of Fosko."
        owner = s.owner(d)
        if owner is not None:
            return f"{district_name(d)} is {s.names[owner]}'s starting district: choose a neutral one."
        if not s.anywhere and b.kinds[b.index[d]] == ADMIN:
            return f"{district_name(d)} is an Administration district: start on a Steel or Ivory district."
        return None

    def _legal_place(self, s: State, seat: int) -> list[Command]:
        commands = [{"t": "Place", "district": d} for d in s.board.ids]
        return [c for c in commands if self._refuse_place(s, seat, c) is None]

    def _decide_place(self, flow: _Flow, seat: int, command: Command, rng: random.Random) -> None:
        s = flow.s
        self._enforce(self._refuse_place(s, seat, command))
        flow.add({"t": "Placed", "seat": seat, "name": s.names[seat], "district": command["district"]})

    # -- programming and movement ----------------------------------------------------------

    def _legal_program(self, s: State, seat: int) -> list[Command]:
        b = s.board
        return [
            {"t": "Program", "edgar": e, "lucien": lu}
            for e in b.moves[s.edgar_at(seat)]
            for lu in b.moves[s.lucien_at(seat)]
        ]

    def _decide_program(self, flow: _Flow, seat: int, command: Command, rng: random.Random) -> None:
        s = flow.s
        if command["t"] != "Program":
            raise IllegalCommand("Program your two characters' movements on your wheel first.")
        edgar, lucien = command.get("edgar"), command.get("lucien")
        for pawn, move in (("Edgar", edgar), ("Lucien", lucien)):
            if not is_move(move):
                raise IllegalCommand(
                    f"{move!r} is not a setting of the wheel for {pawn}: "
                    'choose Immobile ("stay"), a border colour or a metro line and its exit ("pink>docks").'
                )
        flow.add({"t": "Programmed", "seat": seat, "name": s.names[seat], "edgar": edgar, "lucien": lucien})
        s = flow.s
        if any(p is None for p in s.programs):
            return
        flow.add(
            {
                "t": "ProgramsRevealed",
                "programs": [{"edgar": e, "lucien": lu} for e, lu in map(s.program, range(s.players))],
            }
        )
        b = s.board
        for i in s.order:
            for pawn, start in ((C.EDGAR, s.edgar_at(i)), (C.LUCIEN, s.lucien_at(i))):
                move = s.program(i)[0 if pawn == C.EDGAR else 1]
                moves = b.moves[start]
                flow.add(
                    {
                        "t": "Moved",
                        "seat": i,
                        "name": s.names[i],
                        "pawn": pawn,
                        "from": start,
                        "to": moves.get(move, start),
                        "move": move,
                        "valid": move in moves,
                    }
                )

    # -- the action phase: candidates and refusals -------------------------------------------

    def _act_candidates(self, s: State, seat: int) -> Iterator[Command]:
        """Every action command worth checking for ``seat`` (Done aside)."""
        n = s.players
        for v in range(n):
            if v != seat:
                yield {"t": "Rob", "victim": v}
        for card in sorted(set(s.hands[seat]), key=C.hand_order):
            param = C.card(card).param
            if param == "district":
                for d in s.board.ids:
                    yield {"t": "PlayCard", "card": card, "district": d}
            elif param == "certificate":
                for cert in C.CERTIFICATES:
                    yield {"t": "PlayCard", "card": card, "certificate": cert}
            elif param == "target":
                for t in range(n):
                    if t != seat:
                        yield {"t": "PlayCard", "card": card, "target": t}
            elif param == "action":
                for a in C.EDGAR_ACTIONS:
                    yield {"t": "PlayCard", "card": card, "action": a}
            else:
                yield {"t": "PlayCard", "card": card}
        for a in C.EDGAR_ACTIONS:
            yield {"t": "EdgarAdmin", "action": a}
        yield {"t": "Buy"}
        yield {"t": "LucienAdmin", "action": "speech"}
        yield {"t": "LucienAdmin", "action": "heritage"}
        for cert in C.CERTIFICATES:
            yield {"t": "LucienAdmin", "action": "certificate", "certificate": cert}
        for a in C.EDGAR_ACTIONS:
            for remote in (False, True):
                yield {"t": "LucienAdmin", "action": "support", "edgar": a, "remote": remote}

    def _refuse_act(self, s: State, seat: int, command: Command) -> str | None:
        entry = self._ACT.get(command["t"])
        if entry is None:
            return "Act with your Edgar or your Lucien, or end your action phase (Done)."
        return entry[0](self, s, seat, command)

    def _has_action(self, s: State, seat: int) -> bool:
        return any(self._refuse_act(s, seat, c) is None for c in self._act_candidates(s, seat))

    def _legal_act(self, s: State, seat: int) -> list[Command]:
        out = [c for c in self._act_candidates(s, seat) if self._refuse_act(s, seat, c) is None]
        return out + [{"t": "Done"}]

    def _decide_act(self, flow: _Flow, seat: int, command: Command, rng: random.Random) -> None:
        self._enforce(self._refuse_act(flow.s, seat, command))
        self._ACT[command["t"]][1](self, flow, seat, command, rng)

    # Edgar is free, or Lucien is free

    @staticmethod
    def _edgar_busy(s: State, seat: int) -> str | None:
        return "Your Edgar has already acted this turn." if s.acted[seat][0] else None

    @staticmethod
    def _lucien_busy(s: State, seat: int) -> str | None:
        return "Your Lucien has already acted this turn." if s.acted[seat][1] else None

    # -- rob --

    def _refuse_rob(self, s: State, seat: int, command: Command) -> str | None:
        busy = self._edgar_busy(s, seat)
        if busy:
            return busy
        v = command.get("victim")
        if not _is_seat(v, s.players):
            return "Choose one of the players at this table as your victim."
        if v == seat:
            return "Your Edgar does not rob your own Lucien."
        here = s.edgar_at(seat)
        if s.lucien[v] != here:
            return f"{s.names[v]}'s Lucien is not on {place_name(here)} with your Edgar."
        if s.edgar[v] == here:
            return f"{s.names[v]}'s Edgar is on {place_name(here)} guarding their Lucien."
        return None

    def _do_rob(self, flow: _Flow, seat: int, command: Command, rng: random.Random) -> None:
        s = flow.s
        v = command["victim"]
        flow.add(
            {
                "t": "Robbed",
                "seat": seat,
                "name": s.names[seat],
                "victim": v,
                "victim_name": s.names[v],
                "district": s.edgar[seat],
                "amount": robbery_amount(s.cogs[v]),
                "hidden": s.hidden,
            }
        )

    # -- Manigance cards --

    def _refuse_card(self, s: State, seat: int, command: Command) -> str | None:
        busy = self._edgar_busy(s, seat)
        if busy:
            return busy
        card = command.get("card")
        if not C.is_card(card):
            return f"There is no Manigance card called {card!r}."
        if card not in s.hands[seat]:
            return f"You have no {C.title(card)} card in your hand."
        return self._CARD_REFUSALS[card](self, s, seat, command)

    def _card_plan_b(self, s: State, seat: int, command: Command) -> str | None:
        d = command.get("district")
        if not isinstance(d, str) or d not in s.board.index:
            return "Name the district your Lucien goes to."
        if s.lucien[seat] == d:
            return f"Your Lucien is already on {place_name(d)}."
        return None

    def _card_trafficking(self, s: State, seat: int, command: Command) -> str | None:
        d = s.edgar_at(seat)
        owner = s.owner(d)
        if owner is None:
            return f"Nobody owns {place_name(d)}, where your Edgar stands: only a player's district is bought back."
        if owner == seat:
            return f"You already control {place_name(d)}."
        if owner == s.heritage:
            return f"{s.names[owner]} holds the Heritage Protection: their districts cannot be bought back."
        if s.cogs[seat] < BUYBACK_PRICE:
            return "Buying a district back costs 30,000 Cogs and you have less."
        if supply(s, seat) == 0:
            return "You have no influence token left to place."
        return None

    def _card_none(self, s: State, seat: int, command: Command) -> str | None:
        return None

    def _refuse_certificate(self, s: State, seat: int, cert: object, steal: bool) -> str | None:
        if cert not in C.CERTIFICATES:
            return "Name the certificate you take: dandy, collector, bureaucrat or zealot."
        if s.certified[seat]:
            return "You have already taken a certificate this Electoral Period."
        k = C.CERTIFICATES.index(cert)
        holder = s.certs[k]
        name = C.CERTIFICATE_NAMES[cert]
        if holder == seat:
            return f"You already hold the {name} certificate."
        if holder is not None and not steal:
            return f"{s.names[holder]} holds the {name} certificate: Certification cannot take it from them."
        if not met(s, seat)[k]:
            return f"You do not meet the {name} condition yourself."
        return None

    def _card_certification(self, s: State, seat: int, command: Command) -> str | None:
        return self._refuse_certificate(s, seat, command.get("certificate"), steal=False)

    def _card_own_district(self, s: State, seat: int, kind: str, title: str) -> str | None:
        d = s.edgar_at(seat)
        if s.owner(d) != seat or s.board.kinds[s.board.index[d]] != kind:
            return f"{title} needs your Edgar on one of your {kind.capitalize()} districts."
        return None

    def _card_backer(self, s: State, seat: int, command: Command) -> str | None:
        return self._card_own_district(s, seat, STEEL, "Financial Backer")

    def _card_popular(self, s: State, seat: int, command: Command) -> str | None:
        return self._card_own_district(s, seat, IVORY, "Popular Support")

    def _card_extortion(self, s: State, seat: int, command: Command) -> str | None:
        t = command.get("target")
        if not _is_seat(t, s.players) or t == seat:
            return "Choose another player to extort."
        here = s.edgar_at(seat)
        if here not in (s.edgar[t], s.lucien[t]):
            return f"Neither of {s.names[t]}'s characters is on {place_name(here)} with your Edgar."
        if not s.hands[t]:
            return f"{s.names[t]} has no Manigance card."
        return None

    def _refuse_edgar_action(self, s: State, seat: int, action: str, cost: int) -> str | None:
        """What every way of performing an Edgar administration action needs."""
        name = C.admin_name(action)
        if action in s.used[seat]:
            return f"You have already performed the {name} this Electoral Period."
        if s.popularity[seat] < cost:
            return f"That costs {cost} popularity and you have only {s.popularity[seat]}."
        if action == "requisition":
            if supply(s, seat) == 0:
                return "You have no influence token left to place."
            if not requisition_targets(s, seat):
                return "There is no district you could requisition."
        return None

    def _card_remote(self, s: State, seat: int, command: Command) -> str | None:
        action = command.get("action")
        if action not in C.EDGAR_ACTIONS:
            return "Name the administration action of Edgar to perform: draw, intimidate, heist or requisition."
        return self._refuse_edgar_action(s, seat, action, C.EDGAR_ADMIN_COST)

    def _card_coup(self, s: State, seat: int, command: Command) -> str | None:
        if s.edgar[seat] != HALL:
            return "Your Edgar is not on City Hall."
        if s.governor is None:
            return "Nobody holds the Governor token."
        if s.governor == seat:
            return "You already hold the Governor token."
        return None

    _CARD_REFUSALS: ClassVar[dict[str, Refusal]] = {
        C.PLAN_B: _card_plan_b,
        C.TRAFFICKING: _card_trafficking,
        C.DISCREDIT: _card_none,
        C.CERTIFICATION: _card_certification,
        C.BACKER: _card_backer,
        C.POPULAR: _card_popular,
        C.EXTORTION: _card_extortion,
        C.REMOTE: _card_remote,
        C.COUP: _card_coup,
    }

    def _do_card(self, flow: _Flow, seat: int, command: Command, rng: random.Random) -> None:
        s = flow.s
        card = command["card"]
        ev: Event = {"t": "CardPlayed", "seat": seat, "name": s.names[seat], "card": card}
        param = C.card(card).param
        if param is not None:
            ev[param] = command[param]
        if param == "target":
            ev["target_name"] = s.names[command["target"]]
        if card == C.REMOTE:
            ev["cost"] = C.EDGAR_ADMIN_COST
        flow.add(ev)
        s = flow.s
        name = s.names[seat]
        if card == C.PLAN_B:
            flow.add({"t": "LucienSent", "seat": seat, "name": name, "from": s.lucien[seat], "to": command["district"]})
        elif card == C.TRAFFICKING:
            self._buy(flow, seat, s.edgar_at(seat), via="trafficking")
        elif card == C.DISCREDIT:
            asks = [
                ("yield", p, seat, 1)
                for p in s.order
                if p != seat and (s.popularity[p] > 0 or s.cogs[p] >= DISCREDIT_COGS)
            ]
            self._ask(flow, seat, asks)
        elif card == C.CERTIFICATION:
            self._take_certificate(flow, seat, command["certificate"])
        elif card == C.BACKER:
            flow.add(self._bank_pays(s, seat, BACKER, "backer"))
        elif card == C.POPULAR:
            flow.add(self._popularity_gain(s, seat, POPULAR, "popular"))
        elif card == C.EXTORTION:
            t = command["target"]
            hand = s.hands[t]
            taken = hand[rng.randrange(len(hand))]
            flow.add(
                {"t": "CardExtorted", "seat": seat, "name": name, "target": t, "target_name": s.names[t], "card": taken}
            )
        elif card == C.REMOTE:
            self._edgar_effect(flow, seat, command["action"], 1, rng)
        elif card == C.COUP:
            first = (seat + 1) % s.players
            governor = s.governor
            if governor is None:
                raise ValueError("a coup was allowed with nobody holding the Governor token")
            flow.add(
                {
                    "t": "GovernorStolen",
                    "seat": seat,
                    "name": name,
                    "from": governor,
                    "from_name": s.names[governor],
                    "first": first,
                    "first_name": s.names[first],
                }
            )

    # -- Edgar's administration actions --

    def _refuse_edgar_admin(self, s: State, seat: int, command: Command) -> str | None:
        action = command.get("action")
        if action not in C.EDGAR_ACTIONS:
            return "Edgar's administration actions are draw, intimidate, heist and requisition."
        busy = self._edgar_busy(s, seat)
        if busy:
            return busy
        d = C.admin_district(action)
        if s.edgar[seat] != d:
            return f"Your Edgar is not on {place_name(d)}."
        return self._refuse_edgar_action(s, seat, action, C.EDGAR_ADMIN_COST)

    def _do_edgar_admin(self, flow: _Flow, seat: int, command: Command, rng: random.Random) -> None:
        s = flow.s
        action = command["action"]
        flow.add(
            {
                "t": "AdminActionTaken",
                "seat": seat,
                "name": s.names[seat],
                "pawn": C.EDGAR,
                "action": action,
                "cost": C.EDGAR_ADMIN_COST,
            }
        )
        self._edgar_effect(flow, seat, action, 1, rng)

    def _edgar_effect(self, flow: _Flow, seat: int, action: str, times: int, rng: random.Random) -> None:
        """What Edgar's administration action does, ``times`` over (2: Political Support)."""
        s = flow.s
        if action == "draw":
            self._draw(flow, seat, DRAW * times, rng)
        elif action == "heist":
            flow.add(self._bank_pays(s, seat, HEIST * times, "heist"))
        elif action == "intimidate":
            self._intimidation(flow, seat, times)
        elif action == "requisition":
            self._ask(flow, seat, [("requisition", seat, seat, times)])

    def _intimidation(self, flow: _Flow, seat: int, left: int) -> None:
        s = flow.s
        if s.players == 2:
            victim = 1 - seat
            if not districts_of(s, victim):
                flow.add(
                    {
                        "t": "IntimidationVoid",
                        "seat": seat,
                        "name": s.names[seat],
                        "victim": victim,
                        "victim_name": s.names[victim],
                    }
                )
                return
        self._ask(flow, seat, [("intimidate", seat, seat, left)])

    # -- buying --

    def _refuse_buy(self, s: State, seat: int, command: Command) -> str | None:
        busy = self._lucien_busy(s, seat)
        if busy:
            return busy
        d = s.lucien_at(seat)
        owner = s.owner(d)
        if owner == seat:
            return f"You already control {place_name(d)}."
        if supply(s, seat) == 0:
            return "You have no influence token left to place."
        if owner is None:
            if s.cogs[seat] < CITY_PRICE:
                return f"{district_name(d)} costs 20,000 Cogs from the city and you have less."
            return None
        if owner == s.heritage:
            return f"{s.names[owner]} holds the Heritage Protection: their districts cannot be bought."
        if s.cogs[seat] < BUYBACK_PRICE:
            return f"Buying {district_name(d)} from {s.names[owner]} costs 30,000 Cogs and you have less."
        return None

    def _do_buy(self, flow: _Flow, seat: int, command: Command, rng: random.Random) -> None:
        self._buy(flow, seat, flow.s.lucien_at(seat), via="lucien")

    def _buy(self, flow: _Flow, seat: int, district: str, via: str) -> None:
        s = flow.s
        owner = s.owner(district)
        flow.add(
            {
                "t": "DistrictBought",
                "seat": seat,
                "name": s.names[seat],
                "district": district,
                "owner": owner,
                "owner_name": None if owner is None else s.names[owner],
                "price": CITY_PRICE if owner is None else BUYBACK_PRICE,
                "via": via,
            }
        )

    # -- Lucien's administration actions --

    def _refuse_lucien_admin(self, s: State, seat: int, command: Command) -> str | None:
        action = command.get("action")
        if action not in C.LUCIEN_ACTIONS:
            return "Lucien's administration actions are speech, heritage, certificate and support."
        busy = self._lucien_busy(s, seat)
        if busy:
            return busy
        d = C.admin_district(action)
        if s.lucien[seat] != d:
            return f"Your Lucien is not on {place_name(d)}."
        if action in s.used[seat]:
            return f"You have already performed the {C.admin_name(action)} this Electoral Period."
        if action == "heritage" and s.heritage == seat:
            return "You already hold the Heritage Protection."
        if action == "certificate":
            return self._refuse_certificate(s, seat, command.get("certificate"), steal=True)
        if action == "support":
            return self._refuse_support(s, seat, command)
        return None

    def _refuse_support(self, s: State, seat: int, command: Command) -> str | None:
        edgar = command.get("edgar")
        if edgar not in C.EDGAR_ACTIONS:
            return "Name the administration action of your Edgar to double: draw, intimidate, heist or requisition."
        remote = command.get("remote", False)
        if not isinstance(remote, bool):
            return "Say whether your Edgar acts from afar with a Remote Action card (true or false)."
        busy = self._edgar_busy(s, seat)
        if busy:
            return busy
        refusal = self._refuse_edgar_action(s, seat, edgar, C.SUPPORT_COST)
        if refusal:
            return refusal
        d = C.admin_district(edgar)
        if not remote and s.edgar[seat] != d:
            return f"Your Edgar is not on {place_name(d)}; only a Remote Action card would let him act from afar."
        if remote and s.edgar[seat] == d:
            return f"Your Edgar is already on {place_name(d)}: he needs no Remote Action card."
        if remote and C.REMOTE not in s.hands[seat]:
            return "You have no Remote Action card."
        return None

    def _do_lucien_admin(self, flow: _Flow, seat: int, command: Command, rng: random.Random) -> None:
        s = flow.s
        action = command["action"]
        name = s.names[seat]
        if action == "support":
            edgar = command["edgar"]
            remote = command.get("remote", False)
            flow.add(
                {"t": "Supported", "seat": seat, "name": name, "edgar": edgar, "remote": remote, "cost": C.SUPPORT_COST}
            )
            self._edgar_effect(flow, seat, edgar, 2, rng)
            return
        flow.add({"t": "AdminActionTaken", "seat": seat, "name": name, "pawn": C.LUCIEN, "action": action, "cost": 0})
        s = flow.s
        if action == "speech":
            flow.add(self._popularity_gain(s, seat, SPEECH, "speech"))
        elif action == "heritage":
            holder = s.heritage
            flow.add(
                {
                    "t": "HeritageTaken",
                    "seat": seat,
                    "name": name,
                    "from": holder,
                    "from_name": None if holder is None else s.names[holder],
                }
            )
        elif action == "certificate":
            self._take_certificate(flow, seat, command["certificate"])

    # -- end of the step --

    def _refuse_done(self, s: State, seat: int, command: Command) -> str | None:
        return None

    def _do_done(self, flow: _Flow, seat: int, command: Command, rng: random.Random) -> None:
        flow.add({"t": "StepEnded", "seat": seat, "name": flow.s.names[seat], "why": "done"})

    _ACT: ClassVar[dict[str, tuple[Refusal, Decision]]] = {
        "Rob": (_refuse_rob, _do_rob),
        "PlayCard": (_refuse_card, _do_card),
        "EdgarAdmin": (_refuse_edgar_admin, _do_edgar_admin),
        "Buy": (_refuse_buy, _do_buy),
        "LucienAdmin": (_refuse_lucien_admin, _do_lucien_admin),
        "Done": (_refuse_done, _do_done),
    }

    # -- shared effects ---------------------------------------------------------------------

    def _bank_pays(self, s: State, seat: int, amount: int, source: str) -> Event:
        return {
            "t": "BankPaid",
            "seat": seat,
            "name": s.names[seat],
            "amount": min(amount, s.bank),
            "source": source,
        }

    def _popularity_gain(self, s: State, seat: int, amount: int, source: str) -> Event:
        return {
            "t": "PopularityGained",
            "seat": seat,
            "name": s.names[seat],
            "amount": amount,
            "now": min(C.MAX_POPULARITY, s.popularity[seat] + amount),
            "source": source,
        }

    def _take_certificate(self, flow: _Flow, seat: int, cert: str) -> None:
        s = flow.s
        holder = s.certs[C.CERTIFICATES.index(cert)]
        flow.add(
            {
                "t": "CertificateTaken",
                "seat": seat,
                "name": s.names[seat],
                "certificate": cert,
                "from": holder,
                "from_name": None if holder is None else s.names[holder],
            }
        )

    def _draw(self, flow: _Flow, seat: int, count: int, rng: random.Random) -> None:
        """Draw ``count`` cards; an empty deck is rebuilt from the shuffled discard pile."""
        s = flow.s
        name = s.names[seat]
        take = min(count, len(s.deck))
        if take or not s.discard:
            flow.add({"t": "CardsDrawn", "seat": seat, "name": name, "cards": list(s.deck[:take]), "count": take})
        rest = count - take
        s = flow.s
        if rest and s.discard:
            cards = list(s.discard)
            rng.shuffle(cards)
            flow.add({"t": "DeckShuffled", "cards": cards, "count": len(cards), "reason": "reshuffle"})
            more = min(rest, len(cards))
            flow.add({"t": "CardsDrawn", "seat": seat, "name": name, "cards": cards[:more], "count": more})

    def _ask(self, flow: _Flow, by: int, asks: list[tuple[str, int, int, int]]) -> None:
        """Put choices in front of the queue (they come before any left)."""
        if not asks:
            return
        s = flow.s
        flow.add(
            {
                "t": "Asked",
                "seat": by,
                "name": s.names[by],
                "asks": [{"kind": k, "seat": p, "by": b, "left": left} for k, p, b, left in asks],
                "names": [s.names[p] for _, p, _, _ in asks],
            }
        )

    # -- asks -------------------------------------------------------------------------------

    def _ask_candidates(self, s: State, seat: int) -> list[Command]:
        kind = s.asks[0][0]
        ids = s.board.ids
        if kind == "requisition":
            return [{"t": "Requisition", "district": d} for d in ids]
        if kind == "intimidate":
            if s.players == 2:
                return [{"t": "Intimidate", "district": d} for d in ids]
            others = [p for p in range(s.players) if p != seat]
            return [{"t": "Intimidate", "players": [a, b]} for a, b in combinations(others, 2)]
        if kind == "surrender":
            return [{"t": "Surrender", "district": d} for d in ids]
        return [{"t": "Yield", "pay": "popularity"}, {"t": "Yield", "pay": "cogs"}]

    def _refuse_ask(self, s: State, seat: int, command: Command) -> str | None:
        kind, _, by, _ = s.asks[0]
        expected = ASK_COMMANDS[kind]
        if command["t"] != expected:
            return {
                "requisition": "Choose the district your Edgar requisitions.",
                "intimidate": "Choose whom your Edgar intimidates.",
                "surrender": "Choose one of your districts to give up.",
                "yield": f"Choose: lose 20 popularity or give {s.names[by]} 10,000 Cogs.",
            }[kind]
        return self._ASK_REFUSALS[kind](self, s, seat, command)

    def _district_arg(self, s: State, command: Command) -> str | None:
        d = command.get("district")
        return d if isinstance(d, str) and d in s.board.index else None

    def _refuse_requisition(self, s: State, seat: int, command: Command) -> str | None:
        d = self._district_arg(s, command)
        if d is None:
            return "Name a district of Fosko to requisition."
        owner = s.owner(d)
        if owner == seat:
            return f"You already control {district_name(d)}."
        if owner is not None:
            if any(o is None for o in s.owners):
                return (
                    f"{district_name(d)} belongs to {s.names[owner]}: "
                    "another player's district may be requisitioned only when none is neutral."
                )
            if owner == s.heritage:
                return f"{s.names[owner]} holds the Heritage Protection: their districts cannot be requisitioned."
        return None

    def _refuse_intimidate(self, s: State, seat: int, command: Command) -> str | None:
        if s.players == 2:
            victim = 1 - seat
            d = self._district_arg(s, command)
            if d is None or s.owner(d) != victim or "players" in command:
                return f"Choose one of {s.names[victim]}'s districts to make neutral."
            return None
        if "district" in command:
            return "Designate two different players other than yourself: they choose the districts they give up."
        players = command.get("players")
        if (
            not isinstance(players, list)
            or len(players) != 2
            or not all(_is_seat(p, s.players) and p != seat for p in players)
            or players[0] == players[1]
        ):
            return "Designate two different players other than yourself."
        return None

    def _refuse_surrender(self, s: State, seat: int, command: Command) -> str | None:
        d = self._district_arg(s, command)
        if d is None or s.owner(d) != seat:
            return "Choose one of your own districts to make neutral."
        return None

    def _refuse_yield(self, s: State, seat: int, command: Command) -> str | None:
        pay = command.get("pay")
        if pay == "popularity":
            if s.popularity[seat] == 0:
                return "You have no popularity left to lose: you must pay 10,000 Cogs."
            return None
        if pay == "cogs":
            if s.cogs[seat] < DISCREDIT_COGS:
                return "You have no Cogs to give: you must lose the popularity."
            return None
        return "Pay with popularity or with cogs."

    _ASK_REFUSALS: ClassVar[dict[str, Refusal]] = {
        "requisition": _refuse_requisition,
        "intimidate": _refuse_intimidate,
        "surrender": _refuse_surrender,
        "yield": _refuse_yield,
    }

    def _legal_ask(self, s: State, seat: int) -> list[Command]:
        return [c for c in self._ask_candidates(s, seat) if self._refuse_ask(s, seat, c) is None]

    def _decide_ask(self, flow: _Flow, seat: int, command: Command, rng: random.Random) -> None:
        s = flow.s
        self._enforce(self._refuse_ask(s, seat, command))
        kind, _, by, left = s.asks[0]
        name = s.names[seat]
        if kind == "requisition":
            d = command["district"]
            owner = s.owner(d)
            flow.add(
                {
                    "t": "Requisitioned",
                    "seat": seat,
                    "name": name,
                    "district": d,
                    "owner": owner,
                    "owner_name": None if owner is None else s.names[owner],
                }
            )
            if left > 1 and can_requisition(flow.s, seat):
                self._ask(flow, seat, [("requisition", seat, seat, left - 1)])
        elif kind == "intimidate":
            if s.players == 2:
                victim = 1 - seat
                flow.add(
                    {
                        "t": "Intimidated",
                        "seat": seat,
                        "name": name,
                        "players": [victim],
                        "names": [s.names[victim]],
                        "district": command["district"],
                        "empty": [],
                    }
                )
                if left > 1:
                    self._intimidation(flow, seat, left - 1)
                return
            chosen = set(command["players"])
            players = [p for p in s.order if p in chosen]
            empty = [p for p in players if not districts_of(s, p)]
            flow.add(
                {
                    "t": "Intimidated",
                    "seat": seat,
                    "name": name,
                    "players": players,
                    "names": [s.names[p] for p in players],
                    "district": None,
                    "empty": empty,
                }
            )
            asks = [("surrender", p, seat, 1) for p in players if p not in empty]
            if left > 1:
                asks.append(("intimidate", seat, seat, left - 1))
            self._ask(flow, seat, asks)
        elif kind == "surrender":
            flow.add(
                {
                    "t": "DistrictSurrendered",
                    "seat": seat,
                    "name": name,
                    "district": command["district"],
                    "by": by,
                    "by_name": s.names[by],
                }
            )
        else:
            pay = command["pay"]
            amount = DISCREDIT_COGS if pay == "cogs" else min(DISCREDIT_POPULARITY, s.popularity[seat])
            flow.add(
                {
                    "t": "Yielded",
                    "seat": seat,
                    "name": name,
                    "by": by,
                    "by_name": s.names[by],
                    "pay": pay,
                    "amount": amount,
                }
            )

    # -- the Governor election bidding ---------------------------------------------------------

    def _refuse_bid(self, s: State, seat: int, command: Command) -> str | None:
        if command["t"] == "Drop":
            return None
        if command["t"] != "Bid":
            return "Bid more Cogs for the post of Governor, or drop out."
        amount = command.get("amount")
        if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0 or amount % UNIT:
            return "Bid a whole number of 10,000 Cogs."
        bid = s.auction[1]
        if amount <= bid:
            return f"The bid is already {cogs(bid)}: bid more or drop out."
        if amount > s.cogs[seat]:
            return "You do not have that many Cogs."
        return None

    def _legal_bid(self, s: State, seat: int) -> list[Command]:
        bid = s.auction[1]
        bids = [{"t": "Bid", "amount": a} for a in range(bid + UNIT, s.cogs[seat] + 1, UNIT)]
        return bids + [{"t": "Drop"}]

    def _decide_bid(self, flow: _Flow, seat: int, command: Command, rng: random.Random) -> None:
        s = flow.s
        self._enforce(self._refuse_bid(s, seat, command))
        name = s.names[seat]
        if command["t"] == "Bid":
            flow.add({"t": "BidMade", "seat": seat, "name": name, "amount": command["amount"]})
        else:
            flow.add({"t": "BidDropped", "seat": seat, "name": name})
        s = flow.s
        tied, bid, bidder, dropped, _ = s.auction
        remaining = [p for p in tied if p not in dropped]
        if not remaining:
            flow.add({"t": "NoGovernor"})
        elif bidder is not None and remaining == [bidder]:
            flow.add(
                {
                    "t": "GovernorElected",
                    "seat": bidder,
                    "name": s.names[bidder],
                    "popularity": s.popularity[bidder],
                    "bid": bid,
                }
            )

    # -- automatic steps ------------------------------------------------------------------------

    def _auto(self, flow: _Flow, rng: random.Random) -> None:
        """Every automatic event from here until a seat must choose."""
        while not flow.over:
            s = flow.s
            phase = s.phase
            if phase == "act":
                seat = s.order[s.step]
                if all(s.acted[seat]):
                    flow.add({"t": "StepEnded", "seat": seat, "name": s.names[seat], "why": "both"})
                elif not self._has_action(s, seat):
                    flow.add({"t": "StepEnded", "seat": seat, "name": s.names[seat], "why": "nothing"})
                else:
                    return
            elif phase == "turn_end":
                if s.turn < TURNS:
                    flow.add(self._turn_started(s))
                else:
                    self._end_of_period(flow)
            elif phase == "period_end":
                passed = s.governor is not None
                first = (s.first + 1) % s.players if passed else s.first
                flow.add(
                    {
                        "t": "PeriodEnded",
                        "period": s.period,
                        "first": first,
                        "first_name": s.names[first],
                        "passed": passed,
                        "governor": s.governor,
                    }
                )
            else:
                return

    def _turn_started(self, s: State) -> Event:
        order = turn_order(s.players, s.first, s.governor)
        return {
            "t": "TurnStarted",
            "period": s.period,
            "turn": s.turn + 1,
            "order": list(order),
            "names": [s.names[i] for i in order],
            "first": s.first,
            "governor": s.governor,
        }

    def _end_of_period(self, flow: _Flow) -> None:
        """Tax Collection in turn order, then the Governor Election."""
        for seat in flow.s.order:
            s = flow.s
            _, _, steel, ivory = holdings(s, seat)
            gain = min(C.MAX_POPULARITY, s.popularity[seat] + IVORY_TAX * ivory) - s.popularity[seat]
            flow.add(
                {
                    "t": "TaxesCollected",
                    "seat": seat,
                    "name": s.names[seat],
                    "steel": steel,
                    "ivory": ivory,
                    "cogs": min(STEEL_TAX * steel, s.bank),
                    "popularity": gain,
                }
            )
        if flow.over:
            return
        s = flow.s
        best = max(s.popularity)
        tied = [p for p in s.order if s.popularity[p] == best]
        if len(tied) == 1:
            (seat,) = tied
            flow.add({"t": "GovernorElected", "seat": seat, "name": s.names[seat], "popularity": best, "bid": None})
        else:
            flow.add({"t": "BiddingOpened", "tied": tied, "names": [s.names[p] for p in tied], "popularity": best})

    def _won_event(self, s: State) -> Event | None:
        """The first player in turn order with three conditions, if any."""
        for seat in s.order:
            conds = conditions(s, seat)
            if sum(conds) >= 3:
                names = [c for c, ok in zip(C.CERTIFICATES, conds, strict=True) if ok]
                ev: Event = {"t": "GameWon", "seat": seat, "name": s.names[seat], "conditions": names}
                if C.DANDY in names:
                    ev["cogs"] = s.cogs[seat]
                return ev
        return None

    _DECIDE: ClassVar[dict[str, Decision]] = {
        "place": _decide_place,
        "program": _decide_program,
        "act": _decide_act,
        "ask": _decide_ask,
        "bid": _decide_bid,
    }
    _LEGAL: ClassVar[dict[str, Callable[[EdgarLucien, State, int], list[Command]]]] = {
        "place": _legal_place,
        "program": _legal_program,
        "act": _legal_act,
        "ask": _legal_ask,
        "bid": _legal_bid,
    }

    # -- evolve -----------------------------------------------------------------------------

    def evolve(self, state: State, event: Event) -> State:
        return self._EVOLVE[event["t"]](state, event)

    @staticmethod
    def _on_game_set_up(s: State, ev: Event) -> State:
        return revise(s, phase="place", step=0)

    @staticmethod
    def _on_deck_shuffled(s: State, ev: Event) -> State:
        if ev["reason"] == "reshuffle":
            return revise(s, deck=tuple(ev["cards"]), discard=())
        return revise(s, deck=tuple(ev["cards"]))

    @staticmethod
    def _on_placed(s: State, ev: Event) -> State:
        seat, d = ev["seat"], ev["district"]
        step = s.step + 1
        return revise(
            s,
            edgar=_put(s.edgar, seat, d),
            lucien=_put(s.lucien, seat, d),
            owners=_put(s.owners, s.board.index[d], seat),
            step=step,
            phase="turn_end" if step >= s.players else "place",
        )

    @staticmethod
    def _on_turn_started(s: State, ev: Event) -> State:
        n = s.players
        return revise(
            s,
            phase="program",
            period=ev["period"],
            turn=ev["turn"],
            order=tuple(ev["order"]),
            step=0,
            programs=(None,) * n,
            revealed=False,
            acted=((False, False),) * n,
            last_moves=(),
            supported=False,
        )

    @staticmethod
    def _on_programmed(s: State, ev: Event) -> State:
        return revise(s, programs=_put(s.programs, ev["seat"], (ev["edgar"], ev["lucien"])))

    @staticmethod
    def _on_programs_revealed(s: State, ev: Event) -> State:
        return revise(s, revealed=True, phase="act", step=0)

    @staticmethod
    def _on_moved(s: State, ev: Event) -> State:
        seat, pawn, to = ev["seat"], ev["pawn"], ev["to"]
        move = (seat, pawn, ev["from"], to, ev["move"])
        if pawn == C.EDGAR:
            return revise(s, edgar=_put(s.edgar, seat, to), last_moves=s.last_moves + (move,))
        return revise(s, lucien=_put(s.lucien, seat, to), last_moves=s.last_moves + (move,))

    @staticmethod
    def _acted(s: State, seat: int, edgar: bool = False, lucien: bool = False) -> tuple[tuple[bool, bool], ...]:
        e, lu = s.acted[seat]
        return _put(s.acted, seat, (e or edgar, lu or lucien))

    @staticmethod
    def _on_robbed(s: State, ev: Event) -> State:
        seat, victim, amount = ev["seat"], ev["victim"], ev["amount"]
        money = _put(s.cogs, victim, s.cogs[victim] - amount)
        money = _put(money, seat, money[seat] + amount)
        return revise(s, cogs=money, acted=EdgarLucien._acted(s, seat, edgar=True))

    @staticmethod
    def _on_card_played(s: State, ev: Event) -> State:
        seat, card = ev["seat"], ev["card"]
        changes: dict[str, Any] = {
            "hands": _put(s.hands, seat, _without(s.hands[seat], card)),
            "discard": s.discard + (card,),
            "acted": EdgarLucien._acted(s, seat, edgar=True),
        }
        if card == C.REMOTE:
            changes["used"] = _put(s.used, seat, s.used[seat] + (ev["action"],))
            changes["popularity"] = _put(s.popularity, seat, s.popularity[seat] - ev["cost"])
        return revise(s, **changes)

    @staticmethod
    def _on_lucien_sent(s: State, ev: Event) -> State:
        return revise(s, lucien=_put(s.lucien, ev["seat"], ev["to"]))

    @staticmethod
    def _on_district_bought(s: State, ev: Event) -> State:
        seat, owner, price = ev["seat"], ev["owner"], ev["price"]
        money = _put(s.cogs, seat, s.cogs[seat] - price)
        bank = s.bank
        if owner is None:
            bank += price
        else:
            money = _put(money, owner, money[owner] + price)
        acted = EdgarLucien._acted(s, seat, lucien=True) if ev["via"] == "lucien" else s.acted
        owners = _put(s.owners, s.board.index[ev["district"]], seat)
        return revise(s, cogs=money, bank=bank, owners=owners, acted=acted)

    @staticmethod
    def _on_bank_paid(s: State, ev: Event) -> State:
        seat, amount = ev["seat"], ev["amount"]
        return revise(s, cogs=_put(s.cogs, seat, s.cogs[seat] + amount), bank=s.bank - amount)

    @staticmethod
    def _on_popularity_gained(s: State, ev: Event) -> State:
        return revise(s, popularity=_put(s.popularity, ev["seat"], ev["now"]))

    @staticmethod
    def _on_admin_action_taken(s: State, ev: Event) -> State:
        seat = ev["seat"]
        edgar = ev["pawn"] == C.EDGAR
        return revise(
            s,
            used=_put(s.used, seat, s.used[seat] + (ev["action"],)),
            popularity=_put(s.popularity, seat, s.popularity[seat] - ev["cost"]),
            acted=EdgarLucien._acted(s, seat, edgar=edgar, lucien=not edgar),
        )

    @staticmethod
    def _on_supported(s: State, ev: Event) -> State:
        seat = ev["seat"]
        changes: dict[str, Any] = {
            "used": _put(s.used, seat, s.used[seat] + ("support", ev["edgar"])),
            "popularity": _put(s.popularity, seat, s.popularity[seat] - ev["cost"]),
            "acted": _put(s.acted, seat, (True, True)),
            "supported": True,
        }
        if ev["remote"]:
            changes["hands"] = _put(s.hands, seat, _without(s.hands[seat], C.REMOTE))
            changes["discard"] = s.discard + (C.REMOTE,)
        return revise(s, **changes)

    @staticmethod
    def _on_heritage_taken(s: State, ev: Event) -> State:
        return revise(s, heritage=ev["seat"])

    @staticmethod
    def _on_certificate_taken(s: State, ev: Event) -> State:
        seat = ev["seat"]
        k = C.CERTIFICATES.index(ev["certificate"])
        return revise(s, certs=_put(s.certs, k, seat), certified=_put(s.certified, seat, True))

    @staticmethod
    def _on_governor_stolen(s: State, ev: Event) -> State:
        return revise(s, governor=ev["seat"], first=ev["first"])

    @staticmethod
    def _on_cards_drawn(s: State, ev: Event) -> State:
        seat, count = ev["seat"], ev["count"]
        return revise(s, hands=_put(s.hands, seat, s.hands[seat] + tuple(ev["cards"])), deck=s.deck[count:])

    @staticmethod
    def _on_card_extorted(s: State, ev: Event) -> State:
        seat, target, card = ev["seat"], ev["target"], ev["card"]
        hands = _put(s.hands, target, _without(s.hands[target], card))
        hands = _put(hands, seat, hands[seat] + (card,))
        return revise(s, hands=hands)

    @staticmethod
    def _on_asked(s: State, ev: Event) -> State:
        asks = tuple((a["kind"], a["seat"], a["by"], a["left"]) for a in ev["asks"])
        return revise(s, asks=asks + s.asks, phase="ask")

    @staticmethod
    def _answered(s: State, **changes: Any) -> State:
        asks = s.asks[1:]
        return revise(s, asks=asks, phase="ask" if asks else "act", **changes)

    @staticmethod
    def _on_intimidated(s: State, ev: Event) -> State:
        d = ev["district"]
        if d is None:
            return EdgarLucien._answered(s)
        return EdgarLucien._answered(s, owners=_put(s.owners, s.board.index[d], None))

    @staticmethod
    def _on_intimidation_void(s: State, ev: Event) -> State:
        return s

    @staticmethod
    def _on_district_surrendered(s: State, ev: Event) -> State:
        return EdgarLucien._answered(s, owners=_put(s.owners, s.board.index[ev["district"]], None))

    @staticmethod
    def _on_requisitioned(s: State, ev: Event) -> State:
        return EdgarLucien._answered(s, owners=_put(s.owners, s.board.index[ev["district"]], ev["seat"]))

    @staticmethod
    def _on_yielded(s: State, ev: Event) -> State:
        seat, by, amount = ev["seat"], ev["by"], ev["amount"]
        if ev["pay"] == "cogs":
            money = _put(s.cogs, seat, s.cogs[seat] - amount)
            money = _put(money, by, money[by] + amount)
            return EdgarLucien._answered(s, cogs=money)
        return EdgarLucien._answered(s, popularity=_put(s.popularity, seat, s.popularity[seat] - amount))

    @staticmethod
    def _on_step_ended(s: State, ev: Event) -> State:
        step = s.step + 1
        return revise(s, step=step, supported=False, phase="turn_end" if step >= len(s.order) else "act")

    @staticmethod
    def _on_taxes_collected(s: State, ev: Event) -> State:
        seat = ev["seat"]
        return revise(
            s,
            cogs=_put(s.cogs, seat, s.cogs[seat] + ev["cogs"]),
            popularity=_put(s.popularity, seat, s.popularity[seat] + ev["popularity"]),
            bank=s.bank - ev["cogs"],
        )

    @staticmethod
    def _on_bidding_opened(s: State, ev: Event) -> State:
        tied = tuple(ev["tied"])
        return revise(s, phase="bid", bidding=(tied, 0, None, (), tied[0]))

    @staticmethod
    def _on_bid_made(s: State, ev: Event) -> State:
        tied, _, _, dropped, _ = s.auction
        seat = ev["seat"]
        return revise(s, bidding=(tied, ev["amount"], seat, dropped, next_bidder(tied, dropped, seat)))

    @staticmethod
    def _on_bid_dropped(s: State, ev: Event) -> State:
        tied, bid, bidder, dropped, _ = s.auction
        seat = ev["seat"]
        dropped = dropped + (seat,)
        return revise(s, bidding=(tied, bid, bidder, dropped, next_bidder(tied, dropped, seat)))

    @staticmethod
    def _on_governor_elected(s: State, ev: Event) -> State:
        seat, bid = ev["seat"], ev["bid"] or 0
        return revise(
            s,
            governor=seat,
            cogs=_put(s.cogs, seat, s.cogs[seat] - bid),
            bank=s.bank + bid,
            bidding=None,
            phase="period_end",
        )

    @staticmethod
    def _on_no_governor(s: State, ev: Event) -> State:
        return revise(s, governor=None, bidding=None, phase="period_end")

    @staticmethod
    def _on_period_ended(s: State, ev: Event) -> State:
        n = s.players
        return revise(
            s,
            period=ev["period"] + 1,
            turn=0,
            first=ev["first"],
            used=((),) * n,
            certified=(False,) * n,
            phase="turn_end",
        )

    @staticmethod
    def _on_game_won(s: State, ev: Event) -> State:
        titles = [C.CERTIFICATE_NAMES[c] for c in ev["conditions"]]
        reason = f"{ev['name']} is the Grand Triumphant: {_and(titles)}"
        return revise(s, phase="over", winner=ev["seat"], reason=reason)

    _EVOLVE: ClassVar[dict[str, Callable[[State, Event], State]]] = {
        "GameSetUp": _on_game_set_up,
        "DeckShuffled": _on_deck_shuffled,
        "Placed": _on_placed,
        "TurnStarted": _on_turn_started,
        "Programmed": _on_programmed,
        "ProgramsRevealed": _on_programs_revealed,
        "Moved": _on_moved,
        "Robbed": _on_robbed,
        "CardPlayed": _on_card_played,
        "LucienSent": _on_lucien_sent,
        "DistrictBought": _on_district_bought,
        "BankPaid": _on_bank_paid,
        "PopularityGained": _on_popularity_gained,
        "AdminActionTaken": _on_admin_action_taken,
        "Supported": _on_supported,
        "HeritageTaken": _on_heritage_taken,
        "CertificateTaken": _on_certificate_taken,
        "GovernorStolen": _on_governor_stolen,
        "CardsDrawn": _on_cards_drawn,
        "CardExtorted": _on_card_extorted,
        "Asked": _on_asked,
        "Intimidated": _on_intimidated,
        "IntimidationVoid": _on_intimidation_void,
        "DistrictSurrendered": _on_district_surrendered,
        "Requisitioned": _on_requisitioned,
        "Yielded": _on_yielded,
        "StepEnded": _on_step_ended,
        "TaxesCollected": _on_taxes_collected,
        "BiddingOpened": _on_bidding_opened,
        "BidMade": _on_bid_made,
        "BidDropped": _on_bid_dropped,
        "GovernorElected": _on_governor_elected,
        "NoGovernor": _on_no_governor,
        "PeriodEnded": _on_period_ended,
        "GameWon": _on_game_won,
    }
    # in the class body they are still staticmethod objects (mypy sees the functions)
    _EVOLVE = {k: v.__func__ for k, v in _EVOLVE.items()}  # type: ignore[attr-defined]

    # -- the end -----------------------------------------------------------------------------

    #: the search bot plays out this many moves (a turn or two), then judges
    #: the position: a 4-player game is 150 moves and more
    search_horizon = 16

    def estimate(self, state: State) -> tuple[float, ...]:
        """The chances the search bot gives each seat where it stops a play-out:
        each seat's position in the heuristic bot's points (conditions met,
        districts, fortune, popularity, cards), seen from its own view, a lead of
        8 points (more than a condition) making a seat e times likelier to win."""
        from .bot import Me, worth

        return win_shares([worth(Me(self.view(state, seat))) for seat in range(state.players)], 8.0)

    def outcome(self, state: State) -> Outcome | None:
        if state.phase != "over":
            return None
        if state.winner is None:
            raise ValueError("a game over has a winner")
        return Outcome(winners=(state.winner,), reason=state.reason or "")

    # -- what a seat sees -------------------------------------------------------------------------

    def view(self, state: State, seat: Viewer) -> dict[str, Any]:
        s = state
        everything = seat == ALL
        own = seat if _is_seat(seat, s.players) else None
        n = s.players
        b = s.board
        players = []
        for i in range(n):
            sees_money = everything or own == i or not s.hidden or s.phase == "over"  # fortunes are shown at the end
            total, admin, steel, ivory = holdings(s, i)
            raw = met(s, i)
            conds: dict[str, bool | None] = {}
            for k, cert in enumerate(C.CERTIFICATES):
                if s.certs[k] == i:
                    conds[cert] = True
                elif cert == C.DANDY and not sees_money:
                    conds[cert] = None
                else:
                    conds[cert] = raw[k]
            program = s.programs[i]
            shows_program = program is not None and (everything or own == i or s.revealed)
            players.append(
                {
                    "name": s.names[i],
                    "colour": C.COLOURS[i],
                    "cogs": s.cogs[i] if sees_money else None,
                    "popularity": s.popularity[i],
                    "supply": TOKENS - total,
                    "districts": {STEEL: steel, IVORY: ivory, ADMIN: admin},
                    "edgar": s.edgar[i],
                    "lucien": s.lucien[i],
                    "hand": len(s.hands[i]),
                    "cards": sorted(s.hands[i], key=C.hand_order) if (everything or own == i) else None,
                    "used": list(s.used[i]),
                    "certified_this_period": s.certified[i],
                    "acted": {"edgar": s.acted[i][0], "lucien": s.acted[i][1]},
                    "programmed": program is not None,
                    "program": {"edgar": program[0], "lucien": program[1]}
                    if program is not None and shows_program
                    else None,
                    "conditions": conds,
                }
            )
        phase = s.phase
        if phase not in PLAYER_PHASES:
            phase = "place" if phase == "setup" else "act"
        ask = None
        if s.asks:
            kind, who, by, left = s.asks[0]
            ask = {"kind": kind, "seat": who, "by": by, "left": left}
        bidding = None
        if s.bidding is not None:
            tied, bid, bidder, dropped, to_bid = s.bidding
            bidding = {"tied": list(tied), "bid": bid, "bidder": bidder, "dropped": list(dropped), "to_bid": to_bid}
        return {
            "seat": own,
            "side": s.side,
            "phase": phase,
            "period": s.period,
            "turn": max(1, s.turn),
            "order": list(s.order),
            "to_act": s.on_turn,
            "first": s.first,
            "governor": s.governor,
            "heritage": s.heritage,
            "owners": {b.ids[i]: owner for i, owner in enumerate(s.owners) if owner is not None},
            "certificates": {cert: s.certs[k] for k, cert in enumerate(C.CERTIFICATES)},
            "deck": len(s.deck),
            "discard": len(s.discard),
            "bank": s.bank if (everything or not s.hidden or s.phase == "over") else None,
            "needs": {
                "cogs": C.WEALTH,
                "districts": C.districts_needed(n),
                "admin": C.admin_needed(n),
                "popularity": C.MAX_POPULARITY,
            },
            "players": players,
            "ask": ask,
            "supported": s.supported,
            "bidding": bidding,
            "last_moves": [
                {"seat": p, "pawn": pawn, "from": a, "to": z, "move": m} for p, pawn, a, z, m in s.last_moves
            ],
            "winner": s.winner,
            "reason": s.reason,
        }

    def score_sheet(self, view: dict[str, Any]) -> ScoreSheet | None:
        """Each player against the four victory conditions, from ``view`` alone.

        At the end of the game, key ``final``.  After an Electoral Period's
        election, key ``period-N``, while the view is still the next period's
        first programming: nothing a condition counts can change before the
        first action, so the values are those of the period's end.  Later in
        the period the view no longer knows them, and there is no sheet.
        """
        if view.get("phase") == "over":
            title, key = "Final score", "final"
        elif view.get("phase") == "program" and view.get("turn") == 1 and view.get("period", 1) > 1:
            ended = view["period"] - 1
            title, key = f"Electoral Period {ended} over", f"period-{ended}"
        else:
            return None
        needs = view["needs"]
        certificates = view.get("certificates") or {}
        governor = view.get("governor")
        rows, counts = [], []
        hidden = False
        for seat, player in enumerate(view["players"]):
            districts = player.get("districts") or {}
            fortune = player.get("cogs")
            hidden = hidden or fortune is None
            values = {
                C.DANDY: ("?" if fortune is None else f"{fortune // 1000}k"),
                C.COLLECTOR: str(sum(districts.values())),
                C.BUREAUCRAT: str(districts.get(ADMIN, 0)),
                C.ZEALOT: ("★" if governor == seat else "") + str(player["popularity"]),
            }
            meets = {
                C.DANDY: None if fortune is None else fortune >= needs["cogs"],
                C.COLLECTOR: sum(districts.values()) >= needs["districts"],
                C.BUREAUCRAT: districts.get(ADMIN, 0) >= needs["admin"],
                C.ZEALOT: governor == seat and player["popularity"] >= needs["popularity"],
            }
            cells, count, unknown = [], 0, 0
            for cert in C.CERTIFICATES:
                if meets[cert]:
                    mark = "✓met"
                elif certificates.get(cert) == seat:
                    mark = "©cert"
                elif meets[cert] is None:
                    mark = ""
                else:
                    mark = "✗no"
                count += mark in ("✓met", "©cert")
                unknown += not mark
                cells.append(f"{values[cert]} {mark}".strip() if mark else "hidden")
            cells.append(f"{count}–{count + unknown} of 4" if unknown else f"{count} of 4")
            counts.append(count)
            rows.append(tuple(cells))
        columns = (
            f"Dandy≥{needs['cogs'] // 1000}k",
            f"Tax ≥{needs['districts']}",
            f"Bureau ≥{needs['admin']}A",
            f"Zealot★{needs['popularity']}",
            "Met",
        )
        notes = [
            "✓met: met now · ©cert: kept by its certificate · ✗no: not met",
            "Tax: districts held · Bureau: Administration districts · ★ Governor",
        ]
        names = [p["name"] for p in view["players"]]
        if key == "final":
            winner = view.get("winner")
            if winner is not None:
                notes.append(f"{names[winner]} is the Grand Triumphant, with {counts[winner]} conditions of 4.")
        elif governor is not None:
            notes.append(f"Governor for Electoral Period {view['period']}: {names[governor]}.")
        else:
            notes.append(f"No Governor for Electoral Period {view['period']}.")
        if hidden:
            notes.append("Fortunes are hidden: you see only your own Cogs.")
        return ScoreSheet(title, columns, tuple(rows), tuple(notes), key)

    def redact(self, event: Event, seat: Viewer) -> Event:
        if seat == ALL:
            return event
        t = event["t"]
        own = seat if isinstance(seat, int) and not isinstance(seat, bool) else None
        if t == "DeckShuffled":
            return {**event, "cards": None}
        if t == "Programmed" and own != event["seat"]:
            return {"t": "Programmed", "seat": event["seat"], "name": event["name"]}
        if t == "CardsDrawn" and own != event["seat"]:
            return {**event, "cards": None}
        if t == "CardExtorted" and own not in (event["seat"], event["target"]):
            return {**event, "card": None}
        if t == "Robbed" and event["hidden"] and own not in (event["seat"], event["victim"]):
            return {**event, "amount": None}
        return event

    def describe(self, event: Event, seat: Viewer) -> str:
        ev = self.redact(event, seat)
        handler = _DESCRIBE.get(ev["t"])
        return handler(ev) if handler else ev["t"]

    def mark(self, event: Event) -> str | None:
        if event.get("t") == "TurnStarted":
            return "round" if event["turn"] == 1 else "turn"
        return None

    def reveals(self, event: Event, seat: int) -> bool:
        t = event["t"]
        if t in _SILENT:
            return False
        if t in _NEWS:
            return True
        if t == "Robbed" and event["hidden"]:
            return True
        return event.get("seat") != seat

    # -- what a seat knows (the search bot) ----------------------------------------------------

    def observe(self, state: State, seat: int) -> State:
        """The state as ``seat`` knows it, after :meth:`view`: the deck, the
        discard pile (the view gives only its size) and the other hands become
        UNSEEN cards, counts kept, the seat's own hand is sorted; another
        seat's program is UNSEEN until the reveal; with hidden fortunes the
        other seats' Cogs and the Bank are UNSEEN until the game ends."""
        s = state
        hands = tuple(
            tuple(sorted(hand, key=C.hand_order)) if i == seat else (UNSEEN,) * len(hand)
            for i, hand in enumerate(s.hands)
        )
        changes: dict[str, Any] = {
            "deck": (UNSEEN,) * len(s.deck),
            "discard": (UNSEEN,) * len(s.discard),
            "hands": hands,
        }
        if not s.revealed and any(p is not None for i, p in enumerate(s.programs) if i != seat):
            changes["programs"] = tuple(
                UNSEEN if (i != seat and p is not None) else p for i, p in enumerate(s.programs)
            )
        if s.hidden and s.phase != "over":
            changes["cogs"] = tuple(c if i == seat else UNSEEN for i, c in enumerate(s.cogs))
            changes["bank"] = UNSEEN
        return revise(s, **changes)

    def determinize(self, known: State, seat: int, rng: random.Random, redo: bool = False) -> State:
        """A whole state ``seat`` cannot tell from ``known``: the Manigance
        cards it has not seen shuffled into the UNSEEN slots (deck, discard
        pile, other hands); the hidden programs of other seats drawn among
        their legal programs, or withdrawn with ``redo``; the hidden fortunes
        guessed (see :meth:`_guess_fortunes`) and the Bank holding the rest of
        the box."""
        s = known
        changes: dict[str, Any] = {}
        slots = s.deck.count(UNSEEN) + s.discard.count(UNSEEN) + sum(h.count(UNSEEN) for h in s.hands)
        if slots:
            pool = list(_full_deck(s.deck_size))
            for part in (s.deck, s.discard, *s.hands):
                for card in part:
                    if card != UNSEEN:
                        pool.remove(card)
            rng.shuffle(pool)
            deal = iter(pool)
            changes["deck"] = _dealt(s.deck, deal)
            changes["discard"] = _dealt(s.discard, deal)
            changes["hands"] = tuple(_dealt(h, deal) for h in s.hands)
        # an observed state (observe) holds UNSEEN where a program, a fortune, the Bank is hidden
        seen_programs: tuple[object, ...] = s.programs
        if UNSEEN in seen_programs:
            moves = s.board.moves
            programs = list(seen_programs)
            for i, p in enumerate(programs):
                if p == UNSEEN:
                    # a program is a move for Edgar and one for Lucien, each legal from where he stands
                    if redo:
                        programs[i] = None
                    else:
                        programs[i] = (
                            rng.choice(tuple(moves[s.edgar_at(i)])),
                            rng.choice(tuple(moves[s.lucien_at(i)])),
                        )
            changes["programs"] = tuple(programs)
        seen_cogs: tuple[object, ...] = s.cogs
        if UNSEEN in seen_cogs:
            money = self._guess_fortunes(s, rng)
            changes["cogs"] = money
            seen_bank: object = s.bank
            if seen_bank == UNSEEN:
                changes["bank"] = BOX_COGS - sum(money)
        return revise(s, **changes)

    def _guess_fortunes(self, s: State, rng: random.Random) -> tuple[int, ...]:
        """The hidden fortunes, drawn independently, in 10,000s, uniformly from
        0 to GUESS_MAX (the view shows neither them nor the Bank), within what
        the position forces: below the Wealthy Dandy's 150,000 for a player
        whom it would give a third condition (the game would be over), at least
        the bid of the highest bidder, at least 10,000 for a player at 0
        popularity asked to yield to a Discredit Threat; all of them together
        never more than the box holds beside the known fortunes."""
        cogs: tuple[int | str, ...] = s.cogs  # UNSEEN where a fortune is hidden
        n = len(cogs)
        hidden = [i for i, c in enumerate(cogs) if c == UNSEEN]
        lows = [0] * n
        highs = [GUESS_MAX // UNIT] * n
        totals = [0] * n
        admins = [0] * n
        kinds = board(s.side).kinds
        for d, owner in enumerate(s.owners):
            if owner is not None:
                totals[owner] += 1
                if kinds[d] == ADMIN:
                    admins[owner] += 1
        for i in hidden:
            # the three other conditions (C.CERTIFICATES: the Wealthy Dandy's comes first), met or certified
            others = (
                totals[i] >= C.districts_needed(n),
                admins[i] >= C.admin_needed(n),
                s.governor == i and s.popularity[i] >= C.MAX_POPULARITY,
            )
            if s.certs[0] != i and sum(m or s.certs[k] == i for k, m in enumerate(others, 1)) >= 2:
                highs[i] = C.WEALTH // UNIT - 1
        for kind, who, _, _ in s.asks:
            if kind == "yield" and s.popularity[who] == 0:
                lows[who] = max(lows[who], DISCREDIT_COGS // UNIT)
        if s.bidding is not None and s.bidding[2] is not None:
            lows[s.bidding[2]] = max(lows[s.bidding[2]], s.bidding[1] // UNIT)
        room = BOX_COGS - sum(c for c in cogs if isinstance(c, int))
        money = [c if isinstance(c, int) else 0 for c in cogs]  # each hidden one drawn below
        for _ in range(20):
            for i in hidden:
                low = lows[i]
                money[i] = (low + rng.randrange(max(low, highs[i]) - low + 1)) * UNIT
            if sum(money[i] for i in hidden) <= room:
                return tuple(money)
        for i in hidden:
            money[i] = lows[i] * UNIT
        return tuple(money)


#: events that only follow from what every seat already knew
#: (a programme laid face down shows the others only that it was laid: what it is waits for the
#: reveal, which is news)
_SILENT = frozenset(
    {"GameSetUp", "TurnStarted", "Moved", "TaxesCollected", "PeriodEnded", "IntimidationVoid", "Programmed"}
)
#: events that show something new whoever caused them
_NEWS = frozenset({"DeckShuffled", "CardsDrawn", "CardExtorted", "ProgramsRevealed", "GameWon", "BiddingOpened"})


# -- one line per event ------------------------------------------------------------------------


def _pawn(ev: Event) -> str:
    return C.PAWN_NAMES[ev["pawn"]]


def _d_game_set_up(ev: Event) -> str:
    hidden = "hidden from the other players" if ev["fortunes"] == "hidden" else "open on the table"
    text = (
        f"Fosko ({SIDES[ev['side']].players}-player side): each player receives {cogs(ev['cogs'])} and "
        f"{ev['popularity']} popularity; fortunes are {hidden}."
    )
    if ev.get("start") == "outskirts":  # the variant; the rulebook's any neutral district goes unsaid
        text += " Players start on Steel or Ivory districts only."
    return text


def _d_deck_shuffled(ev: Event) -> str:
    if ev["reason"] == "setup":
        return f"The {ev['count']} Manigance cards are shuffled into a deck."
    return f"The Manigance deck is empty: the {ev['count']} discarded cards are shuffled into a new deck."


def _d_placed(ev: Event) -> str:
    return f"{ev['name']} places Edgar, Lucien and an influence token on {place_name(ev['district'])}."


def _d_turn_started(ev: Event) -> str:
    text = f"Electoral Period {ev['period']}, turn {ev['turn']}: {', '.join(ev['names'])}."
    if ev["governor"] is not None:
        text += f" {ev['names'][-1]} is Governor and plays last."
    return text


def _d_programmed(ev: Event) -> str:
    if "edgar" not in ev:
        return f"{ev['name']} lays their movement wheel face down."
    e, lu = move_words(ev["edgar"], LARGE), move_words(ev["lucien"], LARGE)
    return f"{ev['name']} programs Edgar: {e}; Lucien: {lu}."


def _d_programs_revealed(ev: Event) -> str:
    return "All the movement wheels are revealed."


def _d_moved(ev: Event) -> str:
    who = f"{ev['name']}'s {_pawn(ev)}"
    a, z, move = place_name(ev["from"]), place_name(ev["to"]), ev["move"]
    if not ev["valid"]:
        return f"{who} stays on {a}: the {move_words(move, LARGE)} does not leave from there."
    if move == STAY:
        return f"{who} stays on {a}."
    if move in BORDER_COLOURS:
        return f"{who} crosses the {move} border from {a} to {z}."
    line = move.partition(">")[0]
    return f"{who} takes the {line} metro ({LINE_NAMES.get(line, '?')}) from {a} to {z}."


def _d_robbed(ev: Event) -> str:
    who = f"{ev['name']}'s Edgar robs {ev['victim_name']}'s Lucien on {place_name(ev['district'])}"
    if ev["amount"] is None:
        return f"{who}: half of their Cogs, rounded up."
    if ev["amount"] == 0:
        return f"{who}, whose purse is empty."
    return f"{who}: {cogs(ev['amount'])}."


def _d_card_played(ev: Event) -> str:
    card = ev["card"]
    extra = ""
    if card == C.EXTORTION:
        extra = f" on {ev['target_name']}"
    elif card == C.REMOTE:
        extra = f": the {C.admin_name(ev['action'])} from afar ({ev['cost']} popularity)"
    elif card == C.CERTIFICATION:
        extra = f" for the {C.CERTIFICATE_NAMES[ev['certificate']]} certificate"
    return f"{ev['name']}'s Edgar plays {C.title(card)}{extra}."


def _d_lucien_sent(ev: Event) -> str:
    return f"{ev['name']}'s Lucien goes from {place_name(ev['from'])} to {place_name(ev['to'])}."


def _d_district_bought(ev: Event) -> str:
    d = district_name(ev["district"])
    if ev["via"] == "trafficking":
        return f"{ev['name']} buys {d} back from {ev['owner_name']} for {cogs(ev['price'])}."
    if ev["owner"] is None:
        return f"{ev['name']}'s Lucien buys {d} from the city for {cogs(ev['price'])}."
    return f"{ev['name']}'s Lucien buys {d} from {ev['owner_name']} for {cogs(ev['price'])}."


def _d_bank_paid(ev: Event) -> str:
    return f"The Bank pays {ev['name']} {cogs(ev['amount'])}."


def _d_popularity_gained(ev: Event) -> str:
    return f"{ev['name']} gains {ev['amount']} popularity (now {ev['now']})."


def _d_admin_action_taken(ev: Event) -> str:
    action = C.admin(ev["action"])
    text = f"{ev['name']}'s {_pawn(ev)} performs the {action.name} on {place_name(action.district)}"
    if ev["cost"]:
        text += f" (-{ev['cost']} popularity)"
    return text + "."


def _d_supported(ev: Event) -> str:
    action = C.admin(ev["edgar"])
    how = " with a Remote Action card" if ev["remote"] else f" on {place_name(action.district)}"
    return (
        f"{ev['name']}'s Lucien gives Political Support at City Hall (-{ev['cost']} popularity): "
        f"Edgar's {action.name}{how} is doubled: {C.DOUBLED_WORDS[ev['edgar']]}."
    )


def _d_heritage_taken(ev: Event) -> str:
    text = f"{ev['name']} takes the Heritage Protection"
    if ev["from"] is not None:
        text += f" from {ev['from_name']}, whose districts are no longer protected"
    return text + f"; {ev['name']}'s districts are padlocked."


def _d_certificate_taken(ev: Event) -> str:
    text = f"{ev['name']} takes the {C.CERTIFICATE_NAMES[ev['certificate']]} certificate"
    if ev["from"] is not None:
        text += f" from {ev['from_name']}"
    return text + "."


def _d_governor_stolen(ev: Event) -> str:
    return (
        f"Coup d'État: {ev['name']} takes the Governor token from {ev['from_name']}; "
        f"{ev['first_name']} takes the first player token. The turn order changes from the next turn."
    )


def _d_cards_drawn(ev: Event) -> str:
    if ev["count"] == 0:
        return f"{ev['name']} finds no Manigance card left to draw."
    if ev["cards"] is None:
        n = ev["count"]
        return f"{ev['name']} draws {n} Manigance card{'s' if n > 1 else ''}."
    return f"{ev['name']} draws {_and([C.title(c) for c in ev['cards']])}."


def _d_card_extorted(ev: Event) -> str:
    what = "a Manigance card" if ev["card"] is None else C.title(ev["card"])
    return f"{ev['name']} takes {what} at random from {ev['target_name']}'s hand."


def _d_asked(ev: Event) -> str:
    asks = ev["asks"]
    kind, left = asks[0]["kind"], asks[0]["left"]
    names = ev["names"]
    if kind == "requisition":
        if left > 1:
            return f"{ev['name']} chooses {left} districts to requisition, one after the other."
        return f"{ev['name']} chooses a district to requisition."
    if kind == "intimidate":
        return f"{ev['name']} chooses whom to intimidate" + (f" ({left} times)." if left > 1 else ".")
    if kind == "surrender":
        who = [n for a, n in zip(asks, names, strict=True) if a["kind"] == "surrender"]
        text = f"{_and(who)} must each make one of their districts neutral."
        if any(a["kind"] == "intimidate" for a in asks):
            text += f" Then {ev['name']} intimidates again."
        return text
    by = ev["name"]
    return f"{_and(names)} must each lose 20 popularity or give {by} 10,000 Cogs."


def _d_intimidated(ev: Event) -> str:
    if ev["district"] is not None:
        return f"{ev['name']}'s Edgar intimidates {ev['names'][0]}: {district_name(ev['district'])} becomes neutral."
    text = f"{ev['name']}'s Edgar intimidates {_and(ev['names'])}."
    empty = [n for p, n in zip(ev["players"], ev["names"], strict=True) if p in ev["empty"]]
    if empty:
        text += f" {_and(empty)} {'has' if len(empty) == 1 else 'have'} no district to lose."
    return text


def _d_intimidation_void(ev: Event) -> str:
    return f"{ev['victim_name']} has no district: {ev['name']}'s Intimidation takes nothing."


def _d_district_surrendered(ev: Event) -> str:
    return f"{ev['name']} gives up {district_name(ev['district'])}, which becomes neutral."


def _d_requisitioned(ev: Event) -> str:
    d = district_name(ev["district"])
    if ev["owner"] is None:
        return f"{ev['name']}'s Edgar requisitions {d}."
    return f"{ev['name']}'s Edgar requisitions {d} from {ev['owner_name']}."


def _d_yielded(ev: Event) -> str:
    if ev["pay"] == "cogs":
        return f"{ev['name']} gives {ev['by_name']} {cogs(ev['amount'])} rather than lose popularity."
    return f"{ev['name']} loses {ev['amount']} popularity rather than pay {ev['by_name']}."


def _d_step_ended(ev: Event) -> str:
    return {
        "done": f"{ev['name']} ends their action phase.",
        "both": f"{ev['name']}'s Edgar and Lucien have both acted.",
        "nothing": f"{ev['name']} has no action left this turn.",
    }[ev["why"]]


def _d_taxes_collected(ev: Event) -> str:
    return (
        f"Tax Collection: {ev['name']} collects {cogs(ev['cogs'])} ({ev['steel']} Steel) "
        f"and {ev['popularity']} popularity ({ev['ivory']} Ivory)."
    )


def _d_bidding_opened(ev: Event) -> str:
    return f"Governor Election: {_and(ev['names'])} are tied with {ev['popularity']} popularity and bid, in turn order."


def _d_bid_made(ev: Event) -> str:
    return f"{ev['name']} bids {cogs(ev['amount'])}."


def _d_bid_dropped(ev: Event) -> str:
    return f"{ev['name']} drops out of the bidding."


def _d_governor_elected(ev: Event) -> str:
    if ev["bid"] is None:
        return f"Governor Election: {ev['name']} has the most popularity ({ev['popularity']}) and becomes Governor."
    return f"{ev['name']} wins the bidding, pays {cogs(ev['bid'])} to the Bank and becomes Governor."


def _d_no_governor(ev: Event) -> str:
    return "Nobody bids: no Governor is designated."


def _d_period_ended(ev: Event) -> str:
    if ev["passed"]:
        token = f"the first player token passes to {ev['first_name']}"
    else:
        token = f"{ev['first_name']} keeps the first player token"
    return f"End of Electoral Period {ev['period']}: {token}; the administration actions are available again."


def _d_game_won(ev: Event) -> str:
    titles = _and([C.CERTIFICATE_NAMES[c] for c in ev["conditions"]])
    text = f"{ev['name']} is the Grand Triumphant: {titles}"
    if "cogs" in ev:
        text += f" (with {cogs(ev['cogs'])})"
    return text + "!"


_DESCRIBE: dict[str, Callable[[Event], str]] = {
    "GameSetUp": _d_game_set_up,
    "DeckShuffled": _d_deck_shuffled,
    "Placed": _d_placed,
    "TurnStarted": _d_turn_started,
    "Programmed": _d_programmed,
    "ProgramsRevealed": _d_programs_revealed,
    "Moved": _d_moved,
    "Robbed": _d_robbed,
    "CardPlayed": _d_card_played,
    "LucienSent": _d_lucien_sent,
    "DistrictBought": _d_district_bought,
    "BankPaid": _d_bank_paid,
    "PopularityGained": _d_popularity_gained,
    "AdminActionTaken": _d_admin_action_taken,
    "Supported": _d_supported,
    "HeritageTaken": _d_heritage_taken,
    "CertificateTaken": _d_certificate_taken,
    "GovernorStolen": _d_governor_stolen,
    "CardsDrawn": _d_cards_drawn,
    "CardExtorted": _d_card_extorted,
    "Asked": _d_asked,
    "Intimidated": _d_intimidated,
    "IntimidationVoid": _d_intimidation_void,
    "DistrictSurrendered": _d_district_surrendered,
    "Requisitioned": _d_requisitioned,
    "Yielded": _d_yielded,
    "StepEnded": _d_step_ended,
    "TaxesCollected": _d_taxes_collected,
    "BiddingOpened": _d_bidding_opened,
    "BidMade": _d_bid_made,
    "BidDropped": _d_bid_dropped,
    "GovernorElected": _d_governor_elected,
    "NoGovernor": _d_no_governor,
    "PeriodEnded": _d_period_ended,
    "GameWon": _d_game_won,
}
