"""The rules of Ministères as a decider (see core/engine.py).

Phase 1, the gifts: in turn, each dealer draws the deck one card at a time
and places each card before drawing the next: one into his own hand, one
face up in the centre for each opponent, one face down onto the Favours
pile.  Then, from his left, each opponent takes one centre card.  The deal
passes to the left until the deck is empty.

Phase 2, the auctions: the Favours pile is shuffled; one card at a time is
revealed and auctioned, the opener moving one seat to the left each time.

End: in each ministry the highest total of Gouvernement values takes the
Fonction Primaire token, the second the Fonction Secondaire; points are the
tokens' values.

``decide`` returns the event caused by the command and then every automatic
event that follows (draws, Roi effects, the next deal, the shuffle, the next
auction, scoring) until a player must choose again.  The phases ``deal``,
``draw``, ``roi``, ``dealt``, ``open``, ``resolve``, ``default``, ``settle``
and ``score`` mark those automatic steps and never await a command.
"""

from __future__ import annotations

import math
import random
import textwrap
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from typing import Any, ClassVar

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
    Variant,
    Viewer,
    revise,
    shape,
    shapes,
    text,
    whole,
    win_shares,
)

from . import cards as C

#: every Fonction Primaire token starts here
START_PRIMAIRE = 4
#: and never goes below this (the rulebook's floor)
MIN_PRIMAIRE = 1
#: the phases where a player must act
PLAYER_PHASES = ("gifts", "take", "auction", "pay")
PILES = ("hand", "centre", "favours")
#: the phases before the Favours pile is shuffled (its order is still the order of the deals)
BEFORE_SHUFFLE = ("setup", "deal", "draw", "gifts", "take", "dealt")


@dataclass(frozen=True)
class State:
    names: tuple[str, ...]
    unsold: str = "discard"
    bids: str = "bluff"
    dealer_roi: str = "applied"
    #: how a tie on points is broken: "letters" (default) or "share" (saves made before the key)
    tiebreak: str = "share"
    #: the bluff cap on an Or card: "bluff" (default, 3 a card) or "cards" (saves made before the key)
    or_bids: str = "cards"
    #: for tests: the order the Favours pile is "shuffled" into (top first)
    arranged_favours: tuple[str, ...] = ()
    phase: str = "setup"
    #: the deck, top first (its order is nobody's to see)
    deck: tuple[str, ...] = ()
    dealer: int = 0
    deal: int = 0
    #: the card the dealer has drawn and must place
    drawn: str | None = None
    #: places left this deal: (hand, centre, favours)
    limits: tuple[int, int, int] = (0, 0, 0)
    centre: tuple[str, ...] = ()
    #: seats still to take a centre card, in order
    takers: tuple[int, ...] = ()
    hands: tuple[tuple[str, ...], ...] = ()
    #: the Favours pile, top first once shuffled
    favours: tuple[str, ...] = ()
    #: per seat, the cards it put on the Favours pile that are still there
    placed: tuple[tuple[str, ...], ...] = ()
    primaire: tuple[int, ...] = (START_PRIMAIRE,) * 6
    #: the card in transit: a Roi being applied, or the card auctioned
    lot: str | None = None
    #: who applies the Roi in ``lot``, and what comes after it
    lot_seat: int | None = None
    roi_then: str = ""
    #: face-up discard pile (Roi applied, Or paid, unsold cards)
    discard: tuple[str, ...] = ()
    #: cards paid face down for an Or card: only their number is public
    face_down: tuple[str, ...] = ()
    #: the auction
    opener: int = 0
    auction_no: int = 0
    bid: int = 0
    bidder: int | None = None
    passed: tuple[int, ...] = ()
    to_bid: int | None = None
    #: the payment
    payer: int | None = None
    owed: int = 0
    paid: int = 0
    pay_kind: str = "gold"
    #: the end
    scores: tuple[int, ...] | None = None
    winners: tuple[int, ...] = ()
    awards: tuple[Any, ...] = ()

    @property
    def players(self) -> int:
        return len(self.names)

    @property
    def auctioned(self) -> str:
        """The card put up, from the auction until it is settled."""
        if self.lot is None:
            raise ValueError("no card is up for auction")
        return self.lot

    @property
    def bidding(self) -> int:
        """The seat to bid, in the auction."""
        if self.to_bid is None:
            raise ValueError("nobody is to bid")
        return self.to_bid

    @property
    def paying(self) -> int:
        """The seat paying for the card it won, until it is settled."""
        if self.payer is None:
            raise ValueError("nobody is paying")
        return self.payer


#: what checkpoint digests pack (see Ministeres.canonical): every field but the
#: rules chosen in the header that came after saves were made with these digests
DIGESTED_FIELDS = tuple(sorted(f.name for f in fields(State) if f.name not in ("tiebreak", "or_bids")))


# -- pure rule helpers (also used by the bot and the tests) ------------------------


def secondaire(primaire: int, players: int) -> int | None:
    """The Fonction Secondaire token: half the Primaire, rounded down; none at 2 players."""
    return None if players == 2 else primaire // 2


def apply_roi(primaire: tuple[int, ...], card: str) -> tuple[int, ...]:
    """The Primaire tokens after a Roi card: each moved by its effect, never below 1."""
    values = list(primaire)
    for m, delta in C.ROI_EFFECTS[card]:
        i = C.MINISTRIES.index(m)
        values[i] = max(MIN_PRIMAIRE, values[i] + delta)
    return tuple(values)


def lot_kind(card: str) -> str:
    """How a card won at auction is paid: ``"gold"`` (Or cards by value) or ``"cards"``."""
    return "cards" if C.is_or(card) else "gold"


def means(hand: tuple[str, ...], kind: str) -> int:
    """What a hand can pay: its gold, or its number of cards."""
    return C.gold(hand) if kind == "gold" else len(hand)


def bid_cap(hand: tuple[str, ...], kind: str, rule: str, or_rule: str = "bluff") -> int:
    """The highest bid a player may make.

    ``covered``: what the hand can really pay.  ``bluff``: three for every
    card in the hand, what a hand of that size could pay at best in gold, on
    every lot; so a player may bid beyond his means, an Or card included,
    and risk failing to pay.  ``or_rule`` ``cards`` (saves made before it
    was a choice) caps a bid on an Or card at the number of cards in hand,
    which can always be paid.
    """
    if rule == "covered":
        return means(hand, kind)
    if kind == "cards" and or_rule == "cards":
        return len(hand)
    return 3 * len(hand)


def ministry_totals(hand: tuple[str, ...]) -> dict[str, int]:
    totals = dict.fromkeys(C.MINISTRIES, 0)
    for c in hand:
        if C.is_gouvernement(c):
            totals[C.ministry_of(c)] += C.value(c)
    return totals


def best_letter(hand: tuple[str, ...], ministry: str) -> str:
    """The letter nearest A among a hand's cards of a ministry ("J" when none)."""
    letters = [C.letter_of(c) for c in hand if C.is_gouvernement(c) and C.ministry(c) == ministry]
    return min(letters) if letters else "J"


def award(hands: tuple[tuple[str, ...], ...], ministry: str) -> tuple[int | None, int | None]:
    """(Primaire seat, Secondaire seat) of a ministry.

    Players rank by their total of Gouvernement values there, ties broken by
    the letter nearest A; a player with no card there takes nothing.  The
    second in that ranking takes the Secondaire (ignored at 2 players).
    """
    ranked = []
    for seat, hand in enumerate(hands):
        total = ministry_totals(hand)[ministry]
        if total > 0:
            ranked.append((-total, best_letter(hand, ministry), seat))
    ranked.sort()
    first = ranked[0][2] if ranked else None
    second = ranked[1][2] if len(ranked) > 1 else None
    return first, second


def final_scores(
    hands: tuple[tuple[str, ...], ...], primaire: tuple[int, ...]
) -> tuple[list[int], list[int], list[list[Any]]]:
    """(scores, Primaire tokens won per seat, awards per ministry)."""
    n = len(hands)
    scores = [0] * n
    tokens = [0] * n
    awards = []
    for i, m in enumerate(C.MINISTRIES):
        first, second = award(hands, m)
        sec_value = secondaire(primaire[i], n)
        if sec_value is None:
            second = None
        if first is not None:
            scores[first] += primaire[i]
            tokens[first] += 1
        if second is not None and sec_value is not None:
            scores[second] += sec_value
        awards.append([m, first, second, primaire[i], sec_value])
    return scores, tokens, awards


#: the steps of the final ranking, in order (``share`` stops after the second)
TIE_STEPS = ("points", "tokens", "government", "letters")


def gouvernement_total(hand: Iterable[str]) -> int:
    """The values of a hand's Gouvernement cards, every ministry together."""
    return sum(C.value(c) for c in hand if C.is_gouvernement(c))


def letters_of(hand: Iterable[str]) -> str:
    """A hand's Gouvernement letters, nearest A first: ``"AACDF"``."""
    return "".join(sorted(C.letter_of(c) for c in hand if C.is_gouvernement(c)))


def standing(hand: Iterable[str], score: int, tokens: int, rule: str = "letters") -> tuple[Any, ...]:
    """What the final ranking compares, higher first: the points, the
    Primaire tokens, then (``letters``) the Gouvernement total and how many
    A letters, then B letters ... I letters the hand holds."""
    if rule == "share":
        return (score, tokens)
    letters = letters_of(hand)
    return (score, tokens, gouvernement_total(hand), tuple(letters.count(x) for x in C.LETTERS))


def game_winners(
    scores: list[int], tokens: list[int], hands: Sequence[Iterable[str]] | None = None, rule: str = "share"
) -> list[int]:
    """Most points; then most Primaire tokens; then (``letters``) the higher
    Gouvernement total, then the letters nearest A; still tied, they share."""
    hands = hands if hands is not None else [()] * len(scores)
    keys = [standing(h, sc, t, rule) for h, sc, t in zip(hands, scores, tokens, strict=True)]
    best = max(keys)
    return [i for i, k in enumerate(keys) if k == best]


def decided_by(
    scores: list[int], tokens: list[int], hands: Sequence[Iterable[str]], winners: list[int], rule: str = "letters"
) -> str:
    """The step of :data:`TIE_STEPS` that left the winner alone, or ``"shared"``."""
    if len(winners) > 1:
        return "shared"
    (w,) = winners
    keys = [standing(h, sc, t, rule) for h, sc, t in zip(hands, scores, tokens, strict=True)]
    for depth in range(len(keys[w])):
        if not any(k[: depth + 1] == keys[w][: depth + 1] for i, k in enumerate(keys) if i != w):
            return TIE_STEPS[depth]
    return "shared"  # never: the winner would not be alone


def letters_apart(mine: str, theirs: str) -> tuple[str, str]:
    """Two letter strings up to where they part (the letter that decided):
    ``("AAB", "AAC")``; a string that runs out first shows as it is."""
    k = 0
    while k < len(mine) and k < len(theirs) and mine[k] == theirs[k]:
        k += 1
    return mine[: k + 1], theirs[: k + 1]


def _second_share(weights: list[float], seat: int, first: int, whole: float) -> float:
    """``seat``'s chance of coming second when ``first`` comes first: its
    weight among the others' (shared evenly when theirs are all too small to
    tell apart)."""
    rest = whole - weights[first]
    return weights[seat] / rest if rest > 1e-12 else 1 / (len(weights) - 1)


def left_of(seat: int, players: int) -> int:
    return (seat + 1) % players


def card_name(card: str) -> str:
    """A card as the history and the screen name it: ``"Armée 3·B"``, ``"Or 2"``,
    ``"Roi -1 Armée"``; a Roi moving two tokens joins its ministries with a
    slash, ``"Roi +1 Diplomatie/Armée"``, so that in a list of cards it reads
    as the one card it is."""
    if C.is_roi(card) and len(C.ROI_EFFECTS[card]) > 1:
        effects = C.ROI_EFFECTS[card]
        return f"Roi {effects[0][1]:+d} " + "/".join(C.MINISTRY_NAMES[m] for m, _ in effects)
    return C.label(card)


#: the ministries in three letters, for the score sheet (columns of ten characters at most)
MINISTRY_SHORT = {
    "diplomatie": "Dip",
    "armee": "Arm",
    "architecture": "Arc",
    "animaux": "Ani",
    "divertissement": "Div",
    "victuailles": "Vic",
}


# -- the game ----------------------------------------------------------------------


class Ministeres(Game):
    id = "ministeres"
    title = "Ministères"
    min_players = 2
    max_players = 5
    rules_version = 1
    variants = (
        Variant(
            "bids",
            "Bids beyond your gold",
            ("bluff", "covered"),
            "bluff",
            "bluff: bid up to what your hand could hold at best (3 a card; for an Or card, your number "
            "of cards), and lose a random card if you win and cannot pay; covered: never bid more than "
            "you can pay.",
        ),
        Variant(
            "or_bids",
            "Bids on an Or card",
            ("bluff", "cards"),
            "bluff",
            "bluff: with bids beyond your gold, an Or card takes bids as high as any card (3 for each "
            "card in hand), and a winner with too few cards to pay loses a random card; cards: never "
            "bid more cards than you hold.",
        ),
        Variant(
            "tiebreak",
            "A tie on points",
            ("letters", "share"),
            "letters",
            "letters: the most Primaire tokens, then the higher total of Gouvernement cards, then the "
            "most cards lettered A, then B, and so on; share: the most Primaire tokens, and if that is "
            "tied too the players share the victory.",
        ),
        Variant(
            "unsold",
            "A card nobody bids on",
            ("discard", "opener"),
            "discard",
            "discard: it is discarded face up; opener: the player who revealed it takes it for nothing.",
        ),
        Variant(
            "dealer_roi",
            "A Roi the dealer keeps",
            ("applied", "kept"),
            "applied",
            "applied: revealed, applied and discarded at once, like a Roi taken from the centre; "
            "kept: it stays in hand as a card with no effect (it can pay for an Or card).",
        ),
    )
    bot_classes: ClassVar[dict[str, str]] = {"easy": "core.games.ministeres.bot:HeuristicBot"}
    #: moves the search bot simulates a decision (bench/search.py, docs/BOTS.md)
    search_budget: ClassVar[dict[str, int]] = {"normal": 2_500, "hard": 5_000}

    # -- table ---------------------------------------------------------------

    def canonical(self, state: State) -> list[Any]:
        """The state as digests see it: the record's fields in the order a
        record is packed, without ``tiebreak`` and ``or_bids``, so that the
        digests are the bytes they were before those fields existed and older
        saves still verify; both come from the header's variants, which a
        save stores already."""
        return [getattr(state, name) for name in DIGESTED_FIELDS]

    def initial(self, config: dict[str, Any]) -> State:
        seats = config["seats"]
        n = config["players"]
        variants = config.get("variants", {})
        return State(
            names=tuple(s.get("name", f"Player {i + 1}") for i, s in enumerate(seats)),
            unsold=variants.get("unsold", "discard"),
            bids=variants.get("bids", "bluff"),
            dealer_roi=variants.get("dealer_roi", "applied"),
            # a save made before these keys plays on under the rules it was made with
            tiebreak=variants.get("tiebreak", "share"),
            or_bids=variants.get("or_bids", "cards"),
            arranged_favours=tuple((config.get("arranged") or {}).get("favours") or ()),
            hands=((),) * n,
            placed=((),) * n,
        )

    def setup(self, config: dict[str, Any], rng: random.Random) -> list[Event]:
        state = self.initial(config)
        arranged = config.get("arranged") or {}
        deck = list(arranged.get("deck") or ())
        if deck:
            if sorted(deck) != sorted(C.ALL_CARDS):
                raise ConfigError("The arranged deck must hold the 108 cards, each once.")
        else:
            deck = list(C.ALL_CARDS)
            rng.shuffle(deck)
        dealer = arranged.get("dealer")
        if dealer is None:
            dealer = rng.randrange(state.players)
        first = {"t": "DeckShuffled", "deck": deck, "dealer": int(dealer), "name": state.names[int(dealer)]}
        return [first] + self._auto(self.evolve(state, first), rng)

    # -- automatic events ----------------------------------------------------------

    def _auto(self, state: State, rng: random.Random) -> list[Event]:
        """Every automatic event from here until a player must choose."""
        out: list[Event] = []
        while True:
            ev = self._next_auto(state, rng)
            if ev is None:
                return out
            out.append(ev)
            state = self.evolve(state, ev)

    def _deal_event(self, s: State, dealer: int) -> Event:
        n = s.players
        return {
            "t": "DealStarted",
            "deal": s.deal + 1,
            "dealer": dealer,
            "name": s.names[dealer],
            "limits": [1, n - 1, 1],
            "deck": len(s.deck),
        }

    def _next_auto(self, s: State, rng: random.Random) -> Event | None:
        phase = s.phase
        if phase == "deal":
            return self._deal_event(s, s.dealer)
        if phase == "draw":
            return {
                "t": "CardDrawn",
                "seat": s.dealer,
                "name": s.names[s.dealer],
                "card": s.deck[0],
                "left": len(s.deck) - 1,
            }
        if phase == "roi":
            return self._roi_event(s)
        if phase == "dealt":
            if s.deck:
                return self._deal_event(s, left_of(s.dealer, s.players))
            order = list(s.favours)
            if s.arranged_favours:
                rank = {c: i for i, c in enumerate(s.arranged_favours)}
                order.sort(key=lambda c: (rank.get(c, len(rank)), c))
            else:
                rng.shuffle(order)
            return {"t": "FavoursShuffled", "order": order, "count": len(order)}
        if phase == "open":
            card = s.favours[0]
            return {
                "t": "AuctionOpened",
                "number": s.auction_no + 1,
                "seat": s.opener,
                "name": s.names[s.opener],
                "card": card,
                "left": len(s.favours) - 1,
            }
        if phase == "resolve":
            if s.bidder is not None:
                return self._won_event(s, s.bidder, s.bid)
            if s.unsold == "opener":
                return self._won_event(s, s.opener, 0)
            return {"t": "AuctionUnsold", "card": s.lot}
        if phase == "default":
            seat = s.paying
            taker = left_of(seat, s.players)
            hand = sorted(s.hands[seat])
            taken: str | None = rng.choice(hand) if hand else None
            return {
                "t": "PaymentDefaulted",
                "seat": seat,
                "name": s.names[seat],
                "taker": taker,
                "taker_name": s.names[taker],
                "card": taken,
                "lot": s.lot,
                "owed": s.owed,
            }
        if phase == "settle":
            if C.is_roi(s.auctioned):
                return self._roi_event(s)
            return {"t": "CardWon", "seat": s.payer, "name": s.names[s.paying], "card": s.lot}
        if phase == "score":
            scores, tokens, awards = final_scores(s.hands, s.primaire)
            winners = game_winners(scores, tokens, s.hands, s.tiebreak)
            return {
                "t": "GameScored",
                "scores": scores,
                "tokens": tokens,
                "awards": awards,
                "hands": [sorted(h, key=C.hand_order) for h in s.hands],
                "winners": winners,
                "names": list(s.names),
            }
        return None

    def _roi_event(self, s: State) -> Event:
        before = s.primaire
        after = apply_roi(before, s.auctioned)
        changes = [
            [m, before[C.MINISTRIES.index(m)], after[C.MINISTRIES.index(m)]] for m, _ in C.ROI_EFFECTS[s.auctioned]
        ]
        seat = s.payer if s.phase == "settle" else s.lot_seat
        if seat is None:
            raise ValueError("a Roi card is applied for the seat that holds it")
        return {"t": "RoiApplied", "seat": seat, "name": s.names[seat], "card": s.lot, "changes": changes}

    def _won_event(self, s: State, seat: int, amount: int) -> Event:
        return {
            "t": "AuctionWon",
            "seat": seat,
            "name": s.names[seat],
            "card": s.lot,
            "amount": amount,
            "kind": lot_kind(s.auctioned),
        }

    # -- commands ------------------------------------------------------------------

    _EXPECTED: ClassVar[dict[str, str]] = {
        "gifts": "Place the card you drew: in your hand, in the centre or on the Favours pile.",
        "take": "Take one of the cards in the centre.",
        "auction": "Bid more than the current bid, or pass.",
        "pay": "Pay with a card from your hand.",
    }

    command_shapes = shapes(
        shape("Place", where=text(PILES, say="Place the card in your hand, in the centre or on the Favours pile.")),
        shape("Take", card=text(C.ALL_CARDS, what="card")),
        # no hand can pay more than three gold for every card of the game
        shape("Bid", amount=whole(0, 3 * len(C.ALL_CARDS))),
        shape("Pass"),
        shape("Pay", card=text(C.ALL_CARDS, what="card")),
    )

    def decide(self, state: State, seat: int, command: Command, rng: random.Random) -> list[Event]:
        command = self.refuse_out_of_turn(state, seat, command)
        handler = {
            "gifts": self._decide_place,
            "take": self._decide_take,
            "auction": self._decide_bid,
            "pay": self._decide_pay,
        }[state.phase]
        first = handler(state, seat, command)
        return [first] + self._auto(self.evolve(state, first), rng)

    def waiting_for(self, s: State) -> str:
        who = [s.names[i] for i in self.active(s)]
        if not who:
            return "Nobody can move now."
        name = who[0]
        return {
            "gifts": f"It is {name}'s turn to place the card they drew.",
            "take": f"It is {name}'s turn to take a card from the centre.",
            "auction": f"It is {name}'s turn to bid or pass.",
            "pay": f"{name} is paying for the card they won.",
        }[s.phase]

    def _expect(self, s: State, command: Command, *kinds: str) -> None:
        if command["t"] not in kinds:
            raise IllegalCommand(f"Not now: {self._EXPECTED[s.phase]}")

    def _decide_place(self, s: State, seat: int, command: Command) -> Event:
        self._expect(s, command, "Place")
        where = command["where"]
        left = s.limits[PILES.index(where)]
        if left <= 0:
            raise IllegalCommand(
                {
                    "hand": "You have already kept a card in your hand this deal.",
                    "centre": "The centre already holds a card for each opponent.",
                    "favours": "You have already put a card on the Favours pile this deal.",
                }[where]
            )
        return {"t": "CardPlaced", "seat": seat, "name": s.names[seat], "card": s.drawn, "where": where}

    def _decide_take(self, s: State, seat: int, command: Command) -> Event:
        self._expect(s, command, "Take")
        card = command["card"]
        if card not in s.centre:
            raise IllegalCommand(f"There is no card {card!r} in the centre.")
        return {"t": "CardTaken", "seat": seat, "name": s.names[seat], "card": card}

    def _decide_bid(self, s: State, seat: int, command: Command) -> Event:
        self._expect(s, command, "Bid", "Pass")
        if command["t"] == "Pass":
            return {"t": "Passed", "seat": seat, "name": s.names[seat]}
        amount = command["amount"]
        if amount <= s.bid:
            raise IllegalCommand(f"You must bid more than {s.bid}." if s.bid else "A bid is at least 1.")
        cap = bid_cap(s.hands[seat], lot_kind(s.auctioned), s.bids, s.or_bids)
        if amount > cap:
            if s.bids == "covered":
                raise IllegalCommand(f"You cannot bid more than you can pay ({cap}).")
            if lot_kind(s.auctioned) == "cards" and s.or_bids == "cards":
                raise IllegalCommand(f"You cannot bid more cards than the {cap} in your hand.")
            raise IllegalCommand(f"You cannot bid more than {cap} with {len(s.hands[seat])} cards in hand.")
        return {"t": "BidMade", "seat": seat, "name": s.names[seat], "amount": amount}

    def _decide_pay(self, s: State, seat: int, command: Command) -> Event:
        self._expect(s, command, "Pay")
        card = command["card"]
        if card not in s.hands[seat]:
            raise IllegalCommand(f"You do not have {card!r} in your hand.")
        if s.pay_kind == "gold" and not C.is_or(card):
            raise IllegalCommand("Pay for this card with Or cards.")
        return {
            "t": "CardPaid",
            "seat": seat,
            "name": s.names[seat],
            "card": card,
            "face": "up" if s.pay_kind == "gold" else "down",
        }

    # -- evolve ---------------------------------------------------------------------

    def evolve(self, state: State, event: Event) -> State:
        return getattr(self, "_on_" + event["t"])(state, event)

    def _after_placement(self, s: State) -> State:
        if any(s.limits) and s.deck:
            return revise(s, phase="draw")
        n = s.players
        takers = tuple((s.dealer + k) % n for k in range(1, n))[: len(s.centre)]
        return revise(s, takers=takers, phase="take" if takers else "dealt")

    def _after_take(self, s: State) -> State:
        takers = s.takers[1:]
        if takers and s.centre:
            return revise(s, takers=takers, phase="take")
        return revise(s, takers=(), phase="dealt")

    def _after_lot(self, s: State) -> State:
        s = revise(
            s,
            lot=None,
            lot_seat=None,
            bid=0,
            bidder=None,
            passed=(),
            to_bid=None,
            payer=None,
            owed=0,
            paid=0,
            opener=left_of(s.opener, s.players),
        )
        return revise(s, phase="open" if s.favours else "score")

    def _with_hand(self, s: State, seat: int, hand: tuple[str, ...]) -> State:
        hands = list(s.hands)
        hands[seat] = hand
        return revise(s, hands=tuple(hands))

    def _on_DeckShuffled(self, s: State, ev: Event) -> State:
        return revise(s, deck=tuple(ev["deck"]), dealer=ev["dealer"], phase="deal")

    def _on_DealStarted(self, s: State, ev: Event) -> State:
        return revise(s, deal=ev["deal"], dealer=ev["dealer"], limits=tuple(ev["limits"]), centre=(), phase="draw")

    def _on_CardDrawn(self, s: State, ev: Event) -> State:
        return revise(s, drawn=s.deck[0], deck=s.deck[1:], phase="gifts")

    def _on_CardPlaced(self, s: State, ev: Event) -> State:
        seat, card, where = ev["seat"], ev["card"], ev["where"]
        limits = list(s.limits)
        limits[PILES.index(where)] -= 1
        s = revise(s, drawn=None, limits=tuple(limits))
        if where == "centre":
            return self._after_placement(revise(s, centre=s.centre + (card,)))
        if where == "favours":
            placed = list(s.placed)
            placed[seat] = placed[seat] + (card,)
            return self._after_placement(revise(s, favours=s.favours + (card,), placed=tuple(placed)))
        if C.is_roi(card) and s.dealer_roi == "applied":
            return revise(s, lot=card, lot_seat=seat, roi_then="placement", phase="roi")
        return self._after_placement(self._with_hand(s, seat, s.hands[seat] + (card,)))

    def _on_CardTaken(self, s: State, ev: Event) -> State:
        seat, card = ev["seat"], ev["card"]
        centre = list(s.centre)
        centre.remove(card)
        s = revise(s, centre=tuple(centre))
        if C.is_roi(card):
            return revise(s, lot=card, lot_seat=seat, roi_then="take", phase="roi")
        return self._after_take(self._with_hand(s, seat, s.hands[seat] + (card,)))

    def _on_RoiApplied(self, s: State, ev: Event) -> State:
        primaire = list(s.primaire)
        for m, _, after in ev["changes"]:
            primaire[C.MINISTRIES.index(m)] = after
        then = s.roi_then
        s = revise(s, primaire=tuple(primaire), discard=s.discard + (ev["card"],), lot=None, lot_seat=None, roi_then="")
        if then == "placement":
            return self._after_placement(s)
        if then == "take":
            return self._after_take(s)
        return self._after_lot(s)

    def _on_FavoursShuffled(self, s: State, ev: Event) -> State:
        return revise(
            s, favours=tuple(ev["order"]), opener=left_of(s.dealer, s.players), phase="open" if ev["order"] else "score"
        )

    def _on_AuctionOpened(self, s: State, ev: Event) -> State:
        card = ev["card"]
        placed = tuple(tuple(c for c in p if c != card) for p in s.placed)
        return revise(
            s,
            favours=s.favours[1:],
            placed=placed,
            lot=card,
            auction_no=ev["number"],
            bid=0,
            bidder=None,
            passed=(),
            to_bid=ev["seat"],
            phase="auction",
        )

    def _next_bidder(self, s: State, after: int) -> State:
        n = s.players
        for k in range(1, n + 1):
            seat = (after + k) % n
            if seat not in s.passed and seat != s.bidder:
                return revise(s, to_bid=seat, phase="auction")
        return revise(s, to_bid=None, phase="resolve")

    def _on_BidMade(self, s: State, ev: Event) -> State:
        return self._next_bidder(revise(s, bid=ev["amount"], bidder=ev["seat"]), ev["seat"])

    def _on_Passed(self, s: State, ev: Event) -> State:
        return self._next_bidder(revise(s, passed=s.passed + (ev["seat"],)), ev["seat"])

    def _on_AuctionUnsold(self, s: State, ev: Event) -> State:
        return self._after_lot(revise(s, discard=s.discard + (s.lot,)))

    def _on_AuctionWon(self, s: State, ev: Event) -> State:
        seat, amount = ev["seat"], ev["amount"]
        s = revise(s, payer=seat, owed=amount, paid=0, pay_kind=ev["kind"], to_bid=None)
        if amount == 0:
            return revise(s, phase="settle")
        if means(s.hands[seat], ev["kind"]) >= amount:
            return revise(s, phase="pay")
        return revise(s, phase="default")

    def _on_PaymentDefaulted(self, s: State, ev: Event) -> State:
        card = ev["card"]
        if card is not None:
            hand = list(s.hands[ev["seat"]])
            hand.remove(card)
            s = self._with_hand(s, ev["seat"], tuple(hand))
            s = self._with_hand(s, ev["taker"], s.hands[ev["taker"]] + (card,))
        return self._after_lot(revise(s, discard=s.discard + (s.lot,)))

    def _on_CardPaid(self, s: State, ev: Event) -> State:
        seat, card = ev["seat"], ev["card"]
        hand = list(s.hands[seat])
        hand.remove(card)
        s = self._with_hand(s, seat, tuple(hand))
        if ev["face"] == "up":
            s = revise(s, discard=s.discard + (card,), paid=s.paid + C.value(card))
        else:
            s = revise(s, face_down=s.face_down + (card,), paid=s.paid + 1)
        return revise(s, phase="settle" if s.paid >= s.owed else "pay")

    def _on_CardWon(self, s: State, ev: Event) -> State:
        seat = ev["seat"]
        return self._after_lot(self._with_hand(s, seat, s.hands[seat] + (s.auctioned,)))

    def _on_GameScored(self, s: State, ev: Event) -> State:
        return revise(
            s,
            scores=tuple(ev["scores"]),
            winners=tuple(ev["winners"]),
            awards=tuple(tuple(a) for a in ev["awards"]),
            phase="over",
        )

    # -- who acts, what is legal -------------------------------------------------------

    def active(self, state: State) -> tuple[int, ...]:
        phase = state.phase
        if phase == "gifts":
            return (state.dealer,)
        if phase == "take":
            return (state.takers[0],)
        if phase == "auction":
            return (state.bidding,)
        if phase == "pay":
            return (state.paying,)
        return ()

    def legal(self, state: State, seat: int) -> list[Command]:
        if seat not in self.active(state):
            return []
        s = state
        if s.phase == "gifts":
            return [{"t": "Place", "where": w} for w, left in zip(PILES, s.limits, strict=True) if left > 0]
        if s.phase == "take":
            return [{"t": "Take", "card": c} for c in sorted(set(s.centre), key=C.hand_order)]
        if s.phase == "auction":
            cap = bid_cap(s.hands[seat], lot_kind(s.auctioned), s.bids, s.or_bids)
            return [{"t": "Bid", "amount": a} for a in range(s.bid + 1, cap + 1)] + [{"t": "Pass"}]
        if s.phase == "pay":
            hand = s.hands[seat]
            if s.pay_kind == "gold":
                hand = tuple(c for c in hand if C.is_or(c))
            return [{"t": "Pay", "card": c} for c in sorted(set(hand), key=C.hand_order)]
        return []

    #: a hundred small decisions a seat, each worth less than the luck of the
    #: deal: the search compares its moves on the same deals
    search_paired = True

    def search_moves(self, state: State, seat: int, legal: list[Command]) -> list[Command]:
        """In an auction the search weighs passing against raising by the
        least: the bidding comes back to it, and a jump bid only tells the
        others how much it wants the card.  Paying, one Or card of each value
        stands for them all: two of a value pay the same."""
        if state.phase == "auction":
            bids = [c for c in legal if c["t"] == "Bid"]
            return bids[:1] + [c for c in legal if c["t"] == "Pass"]
        if state.phase == "pay":
            seen: set[object] = set()
            out = []
            for c in legal:
                key = C.value(c["card"]) if C.is_or(c["card"]) else c["card"]
                if key not in seen:
                    seen.add(key)
                    out.append(c)
            return out
        return legal

    #: the search bot plays out this many moves (about a dozen deals, or
    #: ten auctions), then judges the position: a whole game is 300 moves or more
    search_horizon = 40

    def estimate(self, state: State) -> tuple[float, ...]:
        """The chances the search bot gives each seat where it stops a play-out.

        The game is won on majorities, so each ministry is judged as a race:
        what each seat holds there, plus its share of the cards still to come
        (an even share of the deck and the centre, a share of the Favours in
        proportion to its gold), with an uncertainty that shrinks as fewer
        cards remain.  Each seat's chance of first and second place there
        (a softmax of the totals) weighs the tokens, and the expected scores
        become chances of winning.  A soft race, not the hands scored as if
        the game ended now: with hard majorities, a card more or less where
        nobody's lead changes would count for nothing, and the search would
        pay its Gouvernement cards away.
        """
        n = state.players
        totals = [ministry_totals(h) for h in state.hands]
        gold = [C.gold(h) for h in state.hands]
        deck = state.deck + ((state.drawn,) if state.drawn else ())
        auctioned = (state.lot,) if state.lot and state.phase in ("auction", "pay") else ()
        # Each deal sends one card of the deck to every player and one to the Favours pile
        dealt = 1 / (n + 1)
        gold_each = C.gold(deck) * dealt  # the deck's gold each player will be dealt
        gold_to_come = sum(gold) + gold_each * n + 1e-9
        favour_share = [(g + gold_each) / gold_to_come for g in gold]
        to_hands = dict.fromkeys(C.MINISTRIES, 0.0)
        to_favours = dict.fromkeys(C.MINISTRIES, 0.0)
        spread = dict.fromkeys(C.MINISTRIES, 0.0)
        # (cards, the share each hand gets, the share that goes to the Favours)
        coming = ((deck, dealt, dealt), (state.centre, 1 / n, 0.0), (state.favours + auctioned, 0.0, 1.0))
        for cards, hands, favours in coming:
            for c in cards:
                if C.is_gouvernement(c):
                    m, v = C.ministry_of(c), C.value(c)
                    to_hands[m] += v * hands
                    to_favours[m] += v * favours
                    spread[m] += v * v
        expected = [0.0] * n
        for k, m in enumerate(C.MINISTRIES):
            scale = 0.5 + 0.55 * math.sqrt(spread[m])
            race = [totals[i][m] + to_hands[m] + to_favours[m] * favour_share[i] for i in range(n)]
            top = max(race)
            weights = [math.exp((r - top) / scale) for r in race]
            whole = sum(weights)
            first = [w / whole for w in weights]
            primaire = state.primaire[k]
            second_value = secondaire(primaire, n) or 0
            for i in range(n):
                expected[i] += primaire * first[i]
                if second_value:
                    expected[i] += second_value * sum(
                        first[j] * _second_share(weights, i, j, whole) for j in range(n) if j != i
                    )
        return win_shares(expected, 1.5)

    def outcome(self, state: State) -> Outcome | None:
        if state.phase != "over":
            return None
        s = state
        names = [s.names[i] for i in s.winners]
        if s.scores is None:
            raise ValueError("a game over has its scores")
        scores = s.scores
        best = scores[s.winners[0]]
        tied = [i for i, sc in enumerate(scores) if sc == best]
        if len(tied) == 1 or (s.tiebreak == "share" and len(names) == 1):
            # (under *share*, as saves made before the tie-break was a choice recorded it)
            reason = f"{names[0]} holds the most valuable posts in the government: {best} points."
        elif s.tiebreak == "share":
            reason = f"{_join(names)} tie on {best} points and Primaire tokens, and share the victory."
        elif len(names) > 1:
            reason = f"{_join(names)} tie on {best} points, Primaire tokens, Gouvernement cards and letters."
        else:
            tokens = [sum(1 for a in s.awards if a[1] == i) for i in range(s.players)]
            step = decided_by(list(scores), tokens, s.hands, list(s.winners), s.tiebreak)
            (w,) = s.winners
            how = {
                "tokens": "with more Primaire tokens",
                "government": f"with the stronger government (Gouvernement cards worth {gouvernement_total(s.hands[w])})",
                "letters": "on the letters nearest A",
            }[step]
            reason = f"{_join([s.names[i] for i in tied])} tie on {best} points; {names[0]} wins {how}."
        return Outcome(tuple(s.winners), reason, tuple(scores))

    def score_sheet(self, view: dict[str, Any]) -> ScoreSheet | None:
        """The final score, from the view at the end (every hand is shown then).

        One row a seat, one column a ministry (``Dip``, ``Arm``...); a cell is
        the seat's sum there, then the token it took with the token's value
        (``15 P5``, ``9 S2``), with ``·A`` (its letter nearest A) where equal
        sums were ranked by the letter for a token; ``-`` for no card there.
        The notes: who wins and how a tie on points was broken, then each
        seat's points and hand (Gouvernement cards as letters by ministry,
        then the Or and kept Roi cards, which score nothing).
        """
        hands = view.get("hands_revealed")
        if view.get("phase") != "over" or hands is None or not view.get("awards"):
            return None
        names = [p["name"] for p in view["players"]]
        n = len(names)
        places = 1 if n == 2 else 2  # the tokens a ministry gives
        columns: list[str] = []
        rows: list[list[str]] = [[] for _ in range(n)]
        by_letter = False
        for m, first, second, primaire, sec in view["awards"]:
            columns.append(MINISTRY_SHORT[m])
            sums = [ministry_totals(h)[m] for h in hands]
            ranked = sorted(-x for x in sums if x)  # the sums there, highest first
            # a sum shared within the token places was ranked by the letter
            lettered = {
                i for i in range(n) if sums[i] and ranked.count(-sums[i]) > 1 and ranked.index(-sums[i]) < places
            }
            by_letter = by_letter or bool(lettered)
            for i in range(n):
                cell = str(sums[i]) if sums[i] else "-"
                if i in lettered:
                    cell += "·" + best_letter(hands[i], m)
                if i == first:
                    cell += f" P{primaire}"
                elif i == second:
                    cell += f" S{sec}"
                rows[i].append(cell)
        scores, winners = view["scores"], view["winners"]
        firsts = [sum(1 for a in view["awards"] if a[1] == i) for i in range(n)]
        rule = (view.get("variants") or {}).get("tiebreak", "share")
        summary = _tie_summary(names, scores, firsts, hands, winners, rule)
        seats = [f"{names[i]}, {scores[i]} points: {_hand_in_brief(hands[i])}" for i in range(n)]
        return ScoreSheet(
            title="Final score",
            columns=tuple(columns),
            rows=tuple(tuple(r) for r in rows),
            notes=_score_notes(summary, seats, by_letter),
            key="final",
        )

    # -- what a seat sees ------------------------------------------------------------

    def view(self, state: State, seat: Viewer) -> dict[str, Any]:
        s = state
        everything = seat == ALL
        own = seat if isinstance(seat, int) and not isinstance(seat, bool) else None
        n = s.players
        players = []
        for i in range(n):
            entry = {
                "name": s.names[i],
                "hand": len(s.hands[i]),
                "gold": C.gold(s.hands[i]) if (everything or own == i) else None,
            }
            if everything:
                entry["hand_cards"] = sorted(s.hands[i], key=C.hand_order)
            players.append(entry)
        phase = s.phase if s.phase in PLAYER_PHASES or s.phase == "over" else "gifts"
        in_gifts = s.phase in ("gifts", "take")
        auction = None
        if s.phase in ("auction", "pay"):
            max_bid = None
            if s.to_bid is not None and (everything or own == s.to_bid):
                max_bid = bid_cap(s.hands[s.to_bid], lot_kind(s.auctioned), s.bids, s.or_bids)
            auction = {
                "card": s.lot,
                "opener": s.opener,
                "bid": s.bid,
                "bidder": s.bidder,
                "passed": list(s.passed),
                "to_bid": s.to_bid,
                "min_bid": s.bid + 1,
                "max_bid": max_bid,
                "kind": lot_kind(s.auctioned),
            }
        payment = None
        if s.phase == "pay":
            payment = {"payer": s.payer, "owed": s.owed, "paid": s.paid, "kind": s.pay_kind}
        if everything:
            favours_known = list(s.favours)
        elif own is not None:
            favours_known = list(s.placed[own])
        else:
            favours_known = []
        view = {
            "seat": seat,
            "phase": phase,
            "active": list(self.active(s)),
            "dealer": s.dealer if in_gifts else None,
            "deal": max(1, s.deal),
            "ministries": [
                {
                    "id": m,
                    "name": C.MINISTRY_NAMES[m],
                    "primaire": s.primaire[i],
                    "secondaire": secondaire(s.primaire[i], n),
                }
                for i, m in enumerate(C.MINISTRIES)
            ],
            "deck": len(s.deck),
            "favours": len(s.favours),
            "favours_known": favours_known,
            "drawn": s.drawn if (everything or (own is not None and own == s.dealer)) else None,
            "limits": dict(zip(PILES, s.limits, strict=True)) if in_gifts else dict.fromkeys(PILES, 0),
            "centre": list(s.centre),
            "hand": sorted(s.hands[own], key=C.hand_order) if own is not None else None,
            "players": players,
            "auction": auction,
            "payment": payment,
            "discard": list(s.discard),
            "face_down": len(s.face_down),
            "scores": list(s.scores) if s.scores is not None else None,
            "winners": list(s.winners),
            # beyond the screen's shape: the variants the bot and the help need, the final awards
            "variants": {
                "bids": s.bids,
                "or_bids": s.or_bids,
                "tiebreak": s.tiebreak,
                "unsold": s.unsold,
                "dealer_roi": s.dealer_roi,
            },
            "awards": [list(a) for a in s.awards],
            # the scoring lays every hand on the table: from then on they are public
            "hands_revealed": [sorted(h, key=C.hand_order) for h in s.hands] if s.phase == "over" else None,
        }
        if everything:
            view["face_down_cards"] = list(s.face_down)
            view["deck_cards"] = list(s.deck)
        return view

    def redact(self, event: Event, seat: Viewer) -> Event:
        if seat == ALL:
            return event
        t = event["t"]
        own = seat if isinstance(seat, int) and not isinstance(seat, bool) else None
        if t == "DeckShuffled":
            return {**event, "deck": None, "count": len(event["deck"])}
        if t == "CardDrawn" and own != event["seat"]:
            return {**event, "card": None}
        if t == "CardPlaced" and event["where"] != "centre" and own != event["seat"]:
            return {**event, "card": None}
        if t == "FavoursShuffled":
            return {**event, "order": None}
        if t == "CardPaid" and event["face"] == "down" and own != event["seat"]:
            return {**event, "card": None}
        if t == "PaymentDefaulted" and own not in (event["seat"], event["taker"]) and event["card"] is not None:
            return {**event, "card": None, "hidden": True}  # a card was taken: which is the two players'
        return event

    def describe(self, event: Event, seat: Viewer) -> str:
        t = event["t"]
        name = event.get("name", "")
        card = event.get("card")
        shown = card_name(card) if card else None
        if t == "DeckShuffled":
            return f"The 108 cards are shuffled; {name} deals first."
        if t == "DealStarted":
            return f"Deal {event['deal']}: {name} deals ({_cards(event['deck'])} left in the deck)."
        if t == "CardDrawn":
            return f"{name} draws {shown}." if shown else f"{name} draws a card."
        if t == "CardPlaced":
            where = {"hand": "in their hand", "centre": "in the centre", "favours": "on the Favours pile"}[
                event["where"]
            ]
            return f"{name} places {shown} {where}." if shown else f"{name} places a card {where}."
        if t == "CardTaken":
            return f"{name} takes {shown} from the centre."
        if t == "RoiApplied":
            moves = ", ".join(f"{C.MINISTRY_NAMES[m]} {a} → {b}" for m, a, b in event["changes"])
            return f"{name} reveals {shown}: Fonction Primaire {moves}."
        if t == "FavoursShuffled":
            return f"The auctions begin: the Favours pile ({_cards(event['count'])}) is shuffled."
        if t == "AuctionOpened":
            return f"Auction {event['number']}: {name} reveals {shown} ({event['left']} left on the Favours pile)."
        if t == "BidMade":
            return f"{name} bids {event['amount']}."
        if t == "Passed":
            return f"{name} passes."
        if t == "AuctionUnsold":
            return f"Nobody bids: {shown} is discarded."
        if t == "AuctionWon":
            if event["amount"] == 0:
                return f"Nobody bids: {name} opened the auction and takes {shown} for nothing."
            price = f"{event['amount']} gold" if event["kind"] == "gold" else f"{_cards(event['amount'])} face down"
            return f"{name} wins {shown} for {price}."
        if t == "CardPaid":
            if event["face"] == "up":
                return f"{name} pays {shown}."
            return f"{name} pays {shown} face down." if shown else f"{name} pays a card face down."
        if t == "PaymentDefaulted":
            taken = f"takes {shown}" if shown else "takes a card at random"
            if event["card"] is None and not event.get("hidden"):  # (the hand was empty)
                taken = "has nothing to take"
            return (
                f"{name} cannot pay {event['owed']}: {card_name(event['lot'])} is discarded and "
                f"{event['taker_name']} {taken} from {name}'s hand."  # (not "their": the taker's, it read)
            )
        if t == "CardWon":
            return f"{name} takes {shown} into their hand."
        if t == "GameScored":
            parts = ", ".join(f"{n} {sc}" for n, sc in zip(event["names"], event["scores"], strict=True))
            winners = _join([event["names"][i] for i in event["winners"]])
            return f"Final scores: {parts}. {winners} {'wins' if len(event['winners']) == 1 else 'share the win'}!"
        return t

    def scores_of(self, event: Event) -> tuple[int, ...] | None:
        """The points each seat scored in the game."""
        return tuple(event["scores"]) if event.get("t") == "GameScored" else None

    def mark(self, event: Event) -> str | None:
        t = event.get("t")
        if t in ("DealStarted", "FavoursShuffled"):
            return "round"
        if t in ("CardPlaced", "AuctionOpened"):
            return "turn"
        return None

    def reveals(self, event: Event, seat: int) -> bool:
        t = event["t"]
        if t in ("DealStarted", "AuctionUnsold", "AuctionWon", "CardWon", "FavoursShuffled"):
            return False
        if t == "CardDrawn":
            return event["seat"] == seat
        if t == "CardPlaced":
            return event["where"] == "centre" and event["seat"] != seat
        if t == "CardPaid":  # an Or card shown; a card paid face down (for an Or card) shows nothing
            return event["face"] != "down" and event["seat"] != seat
        if t in ("CardTaken", "RoiApplied", "BidMade", "Passed"):
            return event["seat"] != seat
        # the deck, an auctioned card turned, a card taken at random, the scores
        return True

    # -- what a seat knows (the search bot) --------------------------------------------

    def observe(self, state: State, seat: int) -> State:
        """The state as ``seat`` knows it (see :meth:`Game.observe`).

        Hidden, as :meth:`view` hides them: the deck (a count), the other
        hands (counts, until the scoring shows them), the card the dealer
        has drawn (to the others), the Favours pile but for the seat's own
        cards (a count; the seat's cards first, sorted, since the pile will
        be or was shuffled), who else put what there (a count per seat
        before the shuffle, which the deal order tells; nothing after, which
        nobody else can tell), and the cards paid face down (a count).  The
        stacked Favours order of the tests is dropped: it tells the future.
        """
        s = state
        mine = s.placed[seat]
        shuffled = _favours_shuffled(s)
        over = s.phase == "over"  # the scoring showed every hand
        hands = tuple(
            tuple(sorted(hand, key=C.hand_order)) if i == seat or over else (UNSEEN,) * len(hand)
            for i, hand in enumerate(s.hands)
        )
        placed = tuple(p if i == seat else (() if shuffled else (UNSEEN,) * len(p)) for i, p in enumerate(s.placed))
        drawn = s.drawn
        if drawn is not None and seat != s.dealer:
            drawn = UNSEEN
        return revise(
            s,
            arranged_favours=(),
            deck=(UNSEEN,) * len(s.deck),
            drawn=drawn,
            hands=hands,
            favours=tuple(sorted(mine, key=C.hand_order)) + (UNSEEN,) * (len(s.favours) - len(mine)),
            placed=placed,
            face_down=(UNSEEN,) * len(s.face_down),
        )

    def determinize(self, known: State, seat: int, rng: random.Random, redo: bool = False) -> State:
        """A whole state ``seat`` cannot tell from ``known`` (see :meth:`Game.determinize`).

        The cards not in sight are dealt at random into the unseen places,
        under the two rules every real state obeys: with the Roi *applied*,
        no hand (and so no card paid face down) holds a Roi; and a player
        paying in gold holds enough of it to finish paying.  No choice is
        ever hidden here, so ``redo`` changes nothing.
        """
        s = known
        visible = set(s.centre)
        visible.update(s.discard)
        visible.update(c for c in s.favours if c != UNSEEN)
        for hand in s.hands:
            visible.update(c for c in hand if c != UNSEEN)
        visible.update(c for c in s.deck if c != UNSEEN)
        visible.update(c for c in s.face_down if c != UNSEEN)
        if s.drawn is not None and s.drawn != UNSEEN:
            visible.add(s.drawn)
        if s.lot is not None:
            visible.add(s.lot)
        rois = [c for c in C.ROI_CARDS if c not in visible]
        rest = [c for c in _NOT_ROI if c not in visible]
        # the unseen places, those that may hold a Roi first
        n_deck = s.deck.count(UNSEEN)
        n_drawn = 1 if s.drawn == UNSEEN else 0
        n_fav = s.favours.count(UNSEEN)
        open_slots = n_deck + n_drawn + n_fav
        held = [hand.count(UNSEEN) for hand in s.hands]
        n_down = s.face_down.count(UNSEEN)
        if len(rois) + len(rest) != open_slots + sum(held) + n_down:
            raise ValueError("determinize needs what observe gave: the unseen places do not match the unseen cards.")
        need = None  # the gold an unseen payer must still hold
        payer, unseen = s.payer, 0  # the payer's unseen cards, where that gold is looked for
        if s.phase == "pay" and s.pay_kind == "gold" and payer is not None and held[payer] and payer != seat:
            need = s.owed - s.paid - C.gold(c for c in s.hands[payer] if c != UNSEEN)
            unseen = held[payer]
        # the first offset of the payer's unseen cards in ``cards``
        start = open_slots + sum(held[:payer]) if need is not None else 0
        cards: list[str] = []
        for _ in range(8):
            cards = self._deal_unseen(rois, rest, open_slots, s.dealer_roi == "kept", rng)
            if need is None or C.gold(cards[start : start + unseen]) >= need:
                break
        else:
            if need is not None:
                _give_gold(cards, start, unseen, need)
        k = n_deck
        deck = tuple(cards[:k]) if n_deck == len(s.deck) else _fill(s.deck, cards[:k])
        drawn = s.drawn
        if n_drawn:
            drawn = cards[k]
            k += 1
        fresh = cards[k : k + n_fav]
        k += n_fav
        favours = [c for c in s.favours if c != UNSEEN] + fresh
        rng.shuffle(favours)
        # who put the fresh Favours cards there: the counts before the shuffle, anyone's after
        placed = list(s.placed)
        j = 0
        for i, p in enumerate(placed):
            blanks = p.count(UNSEEN)
            if blanks:
                placed[i] = tuple(c for c in p if c != UNSEEN) + tuple(fresh[j : j + blanks])
                j += blanks
        others = [i for i in range(s.players) if i != seat]
        if j < len(fresh) and others:
            extra: list[list[str]] = [[] for _ in range(s.players)]
            for x, c in enumerate(fresh[j:]):
                extra[others[x % len(others)]].append(c)
            placed = [p + tuple(extra[i]) for i, p in enumerate(placed)]
        hands = list(s.hands)
        for i, hand in enumerate(hands):
            if held[i]:
                hands[i] = _fill(hand, cards[k : k + held[i]])
                k += held[i]
        face_down = _fill(s.face_down, cards[k:]) if n_down else s.face_down
        return revise(
            s,
            deck=deck,
            drawn=drawn,
            favours=tuple(favours),
            placed=tuple(placed),
            hands=tuple(hands),
            face_down=face_down,
        )

    @staticmethod
    def _deal_unseen(
        rois: list[str], rest: list[str], open_slots: int, roi_anywhere: bool, rng: random.Random
    ) -> list[str]:
        """The unseen cards in a random order: the first ``open_slots`` go to
        the deck, the drawn card and the Favours pile, the rest to the hands
        and the face-down payments, which hold no Roi unless they are kept."""
        if roi_anywhere:
            cards = rest + rois
            rng.shuffle(cards)
            return cards
        if len(rois) > open_slots:
            raise ValueError("more unseen Roi cards than places a Roi can be.")
        rest = list(rest)
        rng.shuffle(rest)
        # the places of the Roi cards among the open ones, in random order: a uniform deal
        at = dict(zip(rng.sample(range(open_slots), len(rois)), rois, strict=True))
        take = iter(rest)
        cards = [at[i] if i in at else next(take) for i in range(open_slots)]
        cards.extend(take)
        return cards


#: the cards a hand may hold when the Roi is applied (unseen cards are split in two)
_NOT_ROI: tuple[str, ...] = C.GOUVERNEMENT_CARDS + C.OR_CARDS


def _favours_shuffled(s: State) -> bool:
    if s.phase == "roi":
        return s.roi_then not in ("placement", "take")
    return s.phase not in BEFORE_SHUFFLE


def _fill(slots: tuple[str, ...], cards: list[str]) -> tuple[str, ...]:
    """``slots`` with its UNSEEN places filled by ``cards`` in turn."""
    it = iter(cards)
    return tuple(next(it) if c == UNSEEN else c for c in slots)


def _give_gold(cards: list[str], start: int, count: int, need: int) -> None:
    """Swap the best unseen Or cards into ``cards[start:start + count]`` (an
    unseen payer's hand) until it holds ``need`` gold; a real state allows it."""
    hand = range(start, start + count)
    outside = sorted(
        (i for i in range(len(cards)) if i not in hand and C.is_or(cards[i])),
        key=lambda i: (-C.value(cards[i]), i),
    )
    for i in outside:
        have = C.gold(cards[h] for h in hand)
        if have >= need:
            return
        worst = min(hand, key=lambda h: (C.value(cards[h]) if C.is_or(cards[h]) else 0, h))
        if (C.value(cards[worst]) if C.is_or(cards[worst]) else 0) >= C.value(cards[i]):
            return
        cards[worst], cards[i] = cards[i], cards[worst]


def _cards(count: int) -> str:
    return f"{count} card" if count == 1 else f"{count} cards"


def _join(names: list[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


#: what a score sheet's notes may hold: lines, and characters a line
NOTE_LINES = 6
NOTE_WIDTH = 74
#: the explanation of ``·A`` in a cell
LETTER_NOTE = "·A: equal sums, ranked by the card whose letter is nearest A."
LETTER_SHORT = " (·A: letter tie-break)"
#: a space the notes never break at (textwrap breaks at ASCII spaces only)
KEEP = "\u00a0"


def _wrap(text: str, lines: int) -> list[str]:
    """``text`` in lines of NOTE_WIDTH at most (continued lines indented), at
    most ``lines`` of them, the last ending in "…" if that cut it short.
    A line never breaks at a :data:`KEEP` (a space, once wrapped)."""
    wrapped = textwrap.wrap(text, NOTE_WIDTH, subsequent_indent="  ", break_on_hyphens=False)
    wrapped = [w.replace(KEEP, " ") for w in wrapped]
    if len(wrapped) > lines:
        wrapped = wrapped[:lines]
        wrapped[-1] = wrapped[-1][: NOTE_WIDTH - 1] + "…"
    return wrapped


def _score_notes(summary: str, seats: list[str], by_letter: bool) -> tuple[str, ...]:
    """The notes within their limits: the summary, then a line or more a
    seat, then (if there is room) what ``·A`` means."""
    head = _wrap(summary, NOTE_LINES - len(seats))
    spare = NOTE_LINES - len(head) - len(seats)
    body = []
    for line in seats:
        wrapped = _wrap(line, 1 + spare)
        spare -= len(wrapped) - 1
        body += wrapped
    if by_letter:
        if spare > 0:
            head.append(LETTER_NOTE)
        elif len(head[-1]) + len(LETTER_SHORT) <= NOTE_WIDTH:
            head[-1] += LETTER_SHORT
    return tuple(head + body)


def _tie_summary(
    names: list[str],
    scores: list[int],
    firsts: list[int],
    hands: Sequence[Iterable[str]],
    winners: list[int],
    rule: str,
) -> str:
    """The score sheet's first note: who won, and what broke a tie on points.

    Each step names what the tied players had in common and, for the step
    that separated them, the winner's figure against each rival still level:
    ``Ann wins: tied on 12 points and 2 Primaire tokens, Gouvernement cards
    worth 30 to Bob's 27.``"""
    best = max(scores)
    top = [i for i in range(len(names)) if scores[i] == best]
    if len(top) == 1:
        return f"{names[top[0]]} wins with {best} points."
    if rule == "share":
        if len(winners) == len(top):
            who = _join([names[i] for i in top])
            return f"{who} share the victory ({best} points, {firsts[top[0]]} Primaire tokens each)."
        behind = _join([f"{names[i]}'s {firsts[i]}" for i in top if i not in winners])
        who = _join([names[i] for i in winners])
        verb = "wins" if len(winners) == 1 else "share the victory"
        return f"{who} {verb}: tied on {best} points, {firsts[winners[0]]} Primaire tokens to {behind}."
    step = decided_by(scores, firsts, hands, winners, rule)
    w = winners[0]
    tokens = firsts[w]
    gov = [gouvernement_total(h) for h in hands]
    if step == "shared":
        who = _join([names[i] for i in winners])
        return (
            f"{who} share the victory: {best} points, {tokens} Primaire tokens, Gouvernement cards worth "
            f"{gov[w]} and the same letters each."
        )
    if step == "tokens":
        behind = _join([f"{names[i]}'s {firsts[i]}" for i in top if i != w])
        return f"{names[w]} wins: tied on {best} points, {tokens} Primaire tokens to {behind}."
    level = [i for i in top if i != w and firsts[i] == tokens]
    if step == "government":
        behind = _join([f"{names[i]}'s {gov[i]}" for i in level])
        return f"{names[w]} wins: tied on {best} points and {tokens} Primaire tokens, Gouvernement cards worth {gov[w]} to {behind}."
    level = [i for i in level if gov[i] == gov[w]]
    mine = letters_of(hands[w])
    parts = [letters_apart(mine, letters_of(hands[i])) for i in level]
    shown = max((p[0] for p in parts), key=len)
    behind = _join([f"{names[i]}'s {p[1] or '(none)'}" for i, p in zip(level, parts, strict=True)])
    return (
        f"{names[w]} wins: tied on {best} points, {tokens} Primaire tokens and Gouvernement cards worth "
        f"{gov[w]}; letters nearest A {shown} to {behind}."
    )


def _hand_in_brief(hand: list[str]) -> str:
    """A revealed hand in a few characters: ``Dip AD, Arm B; Or 2×3 1×1; Roi +Vic``.

    Gouvernement cards are their letters (the letter gives the value: A to I
    are 1 2 3 4 1 2 3 4 2) grouped by ministry; Or cards how many of each
    value (``2×3``: two Or 3); Roi cards (kept) their effects.  A group
    (``Dip AD``) is never split over two lines."""
    parts = []
    for m in C.MINISTRIES:
        letters = "".join(C.letter_of(c) for c in hand if C.is_gouvernement(c) and C.ministry(c) == m)
        if letters:
            parts.append(f"{MINISTRY_SHORT[m]}{KEEP}{letters}")
    text = ", ".join(parts) or "no Gouvernement card"
    golds = [C.value(c) for c in hand if C.is_or(c)]
    if golds:
        text += "; Or " + " ".join(f"{golds.count(v)}×{v}" for v in (3, 2, 1) if v in golds)
    rois = ["/".join(f"{d:+d}"[0] + MINISTRY_SHORT[m] for m, d in C.ROI_EFFECTS[c]) for c in hand if C.is_roi(c)]
    if rois:
        text += "; Roi " + " ".join(rois)
    return text
