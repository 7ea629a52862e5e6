"""The rules of L'Agent Jean! as a decider (see core/engine.py).

A round is 12 turns.  Each turn: the Power cards on top of the plan pile are
carried out, every player plays one Action card, the best card takes the
cards played and the top plan.  After turn 6 everyone takes up the six
face-down cards; after turn 12 the round is scored, a medal goes to the best
score, and (unless someone now has two medals) a new round is dealt.

The state only moves through events.  ``decide`` returns the event caused by
the command and then every automatic event that follows (powers, the turn's
winner, scoring, the next deal...) until a player must choose again; the
phases ``lead``, ``start``, ``powers``, ``resolve``, ``end`` and ``scored``
mark those automatic steps and are never where a command is awaited.
"""

from __future__ import annotations

import functools
import itertools
import random
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
    SeatOption,
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

ROUND_TURNS = 12
HAND_SIZE = 6
MEDALS_TO_WIN = 2
#: the phases where a player must act
PLAYER_PHASES = ("leader", "play", "sabotage", "second_plan")
#: the phases where the top plan card is the one at stake this turn
TURN_PHASES = ("play", "sabotage", "resolve")


@dataclass(frozen=True)
class State:
    names: tuple[str, ...]
    agents: tuple[str, ...]
    young: bool
    bonus: str
    #: "hidden": a seat sees only its own won pile's counts (the rulebook);
    #: "open": everyone's (the table before the variant, and older saves)
    counts: str = "open"
    #: "penalty": when nobody won a yellow, everyone is tied for the most and
    #: loses the points (the rulebook's tie rule); "none": nobody does (older saves)
    no_yellows: str = "none"
    #: for tests: (actions, plan order) for rounds 2, 3...
    arranged_later: tuple[Any, ...] = ()
    round: int = 0
    turn: int = 0
    phase: str = "setup"
    #: who leads this turn (before Jean's power moves him last)
    leader: int = 0
    #: the play order of this turn, fixed when play begins
    order: tuple[int, ...] = ()
    hands: tuple[tuple[str, ...], ...] = ()
    reserves: tuple[tuple[str, ...], ...] = ()
    #: action cards not dealt (fewer than 5 players); nobody sees them
    set_aside: tuple[str, ...] = ()
    #: plan pile, top first (plans and Power cards)
    pile: tuple[str, ...] = ()
    won_cards: tuple[tuple[str, ...], ...] = ()
    won_plans: tuple[tuple[str, ...], ...] = ()
    #: agents whose power is in force this turn, in the order they were revealed
    powers: tuple[str, ...] = ()
    #: (seat, card) in play order
    table: tuple[tuple[int, str], ...] = ()
    #: the seat whose card WXT took 99 off this turn
    sabotaged: int | None = None
    medals: tuple[int, ...] = ()
    #: (winner, action cards, plan cards) of the last turn won
    last_turn: tuple[int, tuple[str, ...], tuple[str, ...]] | None = None
    #: (round, scores, medal seats)
    last_round: tuple[int, tuple[int, ...], tuple[int, ...]] | None = None
    winners: tuple[int, ...] = ()
    #: how the last round scored, seat by seat: (plan points, greens,
    #: yellows, bonus, penalty); public once the round is scored
    last_scoring: tuple[tuple[int, ...], ...] | None = None
    #: the cards each seat has played this round (this turn's too): a seat
    #: knows its own, whoever won them
    played: tuple[tuple[str, ...], ...] = ()

    @property
    def players(self) -> int:
        return len(self.names)

    @property
    def top(self) -> str | None:
        return self.pile[0] if self.pile else None

    def seat_of(self, agent: str) -> int | None:
        return self.agents.index(agent) if agent in self.agents else None

    def seat_with(self, agent: str) -> int:
        """The seat playing ``agent``, one at the table (whose power is in force)."""
        seat = self.seat_of(agent)
        if seat is None:
            raise ValueError(f"nobody plays {agent} at this table")
        return seat

    @property
    def top_plan(self) -> str:
        """The plan card on top of the pile, while there is one."""
        if not self.pile:
            raise ValueError("the plan pile is empty")
        return self.pile[0]

    @property
    def round_scored(self) -> tuple[int, tuple[int, ...], tuple[int, ...]]:
        """(round, scores, medal seats) of the last round scored, once one is."""
        if self.last_round is None:
            raise ValueError("no round has been scored yet")
        return self.last_round


#: the fields checkpoint digests are taken of, in the order core.engine.digest
#: packs a record (by name): every field but those that came after saves were
#: made with these digests (see AgentJean.canonical): ``last_scoring``, which
#: only repeats the last RoundScored event, ``played``, which only repeats the
#: round's CardPlayed events, and the variants ``counts`` and ``no_yellows``,
#: which the header already holds
LATER_FIELDS = ("last_scoring", "counts", "no_yellows", "played")
DIGESTED_FIELDS = tuple(sorted(f.name for f in fields(State) if f.name not in LATER_FIELDS))


# -- pure rule helpers (also used by the bot) -----------------------------------


def play_order(players: int, leader: int, reverse: bool = False, last: int | None = None) -> tuple[int, ...]:
    """Seats in play order: clockwise (rising seat numbers) from the leader,
    the other way round under Brioche, and Jean's seat moved last when his
    power is in force."""
    step = -1 if reverse else 1
    order = [(leader + step * i) % players for i in range(players)]
    if last is not None:
        order.remove(last)
        order.append(last)
    return tuple(order)


def card_strength(card: str, eff: int, first: str, accomplice: str | None = None) -> tuple[int, int]:
    """How strong a card in contest is this turn; the strongest wins.

    ``first`` is the colour letter of the first card in contest.  Cards
    that cannot win rank (0, 0).
    """
    letter = card[0]
    low = accomplice == "miette"
    if accomplice == "farine" and letter == "B":
        return (3, eff)
    if letter == "P" and accomplice != "grumeau":
        return (2, -eff if low else eff)
    if accomplice == "levure":
        return (1, eff)
    if letter == first:
        return (1, -eff if low else eff)
    return (0, 0)


def trick_winner(entries: list[tuple[int, str, int]], accomplice: str | None = None) -> int:
    """The seat that wins a turn.

    ``entries`` are (seat, card, effective value) in play order.  A card
    brought to 0 or below (WXT) is out of the contest: it cannot win and
    does not count as purple or as the first colour.  On equal strength
    (possible only under Levure) the card played first wins.
    """
    live = [e for e in entries if e[2] > 0] or list(entries)
    first = live[0][1][0]
    best_seat, best = live[0][0], card_strength(live[0][1], live[0][2], first, accomplice)
    for seat, card, eff in live[1:]:
        strength = card_strength(card, eff, first, accomplice)
        if strength > best:
            best_seat, best = seat, strength
    return best_seat


def bonus_amount(bonus: str, players: int) -> int:
    """Points of the green bonus and the yellow penalty."""
    if bonus == "board":
        return 10
    return 8 if players <= 3 else 5


def score_round(
    plan_points: list[int], greens: list[int], yellows: list[int], amount: int, penalise_none: bool = False
) -> tuple[list[int], list[int], list[int], list[int]]:
    """(bonus, penalty, scores, medal seats) of a round.

    Everyone tied for the fewest greens gets the bonus, everyone tied for
    the most yellows the penalty.  When nobody won a yellow, everyone is tied
    for the most with none: with ``penalise_none`` (the rulebook's tie rule)
    everyone pays, otherwise (the ``no_yellows=none`` variant) nobody does.
    Everyone tied for the best score takes a medal.
    """
    fewest = min(greens)
    most = max(yellows)
    bonus = [amount if g == fewest else 0 for g in greens]
    penalty = [amount if y == most and (most > 0 or penalise_none) else 0 for y in yellows]
    scores = [p + b - q for p, b, q in zip(plan_points, bonus, penalty, strict=True)]
    best = max(scores)
    return bonus, penalty, scores, [i for i, s in enumerate(scores) if s == best]


def next_round_leader(medal_seats: list[int], last_turn_winner: int, players: int) -> int:
    """The round's winner leads the next round; among several, the first one
    clockwise from the player who won the last turn (that player included)."""
    for k in range(players):
        seat = (last_turn_winner + k) % players
        if seat in medal_seats:
            return seat
    return last_turn_winner


def effective_value(state: State, seat: int, card: str) -> int:
    v = C.value(card)
    if "bulle" in state.powers and state.seat_of("bulle") == seat:
        v += 99
    if state.sabotaged == seat:
        v -= 99
    return v


def accomplice_in_force(state: State) -> str | None:
    """The accomplice whose rule holds this turn (Henry may still be choosing)."""
    if state.phase not in ("leader",) + TURN_PHASES:
        return None
    return C.accomplice(state.top)


def _entries(state: State) -> list[tuple[int, str, int]]:
    return [(s, c, effective_value(state, s, c)) for s, c in state.table]


def _plan_points(plans: tuple[str, ...]) -> int:
    return sum(C.plan_value(p) for p in plans)


def _count(cards: tuple[str, ...], letter: str) -> int:
    return sum(1 for c in cards if c[0] == letter)


# -- the game ----------------------------------------------------------------------


class AgentJean(Game):
    id = "agent-jean"
    title = "L'Agent Jean!"
    min_players = 2
    max_players = 5
    rules_version = 1
    variants = (
        Variant(
            "young",
            "Young players (no powers)",
            ("off", "on"),
            "off",
            "On: the agents' Power cards stay in the box.",
        ),
        Variant(
            "bonus",
            "Green bonus and yellow penalty",
            ("rulebook", "board"),
            "rulebook",
            "rulebook: 8 points with 2-3 players, 5 with 4-5; board: 10 points, as printed on the player boards.",
        ),
        Variant(
            "counts",
            "Counts of the others' won cards",
            ("hidden", "open"),
            "hidden",
            "hidden: you see how many cards, greens and yellows you have won, not the others' (the rulebook); "
            "open: everyone's counts are on the table.",
        ),
        Variant(
            "no_yellows",
            "When nobody won a yellow",
            ("penalty", "none"),
            "penalty",
            "penalty: everyone is tied for the most yellows and loses the points (the rulebook's tie rule); "
            "none: nobody loses them.",
        ),
    )
    seat_options = (
        SeatOption("agent", "Agent", C.AGENTS, unique=True, labels=tuple(C.AGENT_NAMES[a] for a in C.AGENTS)),
    )
    bot_classes: ClassVar[dict[str, str]] = {"easy": "core.games.agent_jean.bot:HeuristicBot"}
    #: moves the search bot simulates a decision (bench/search.py, docs/BOTS.md)
    search_budget: ClassVar[dict[str, int]] = {"normal": 2_500, "hard": 5_000}

    def search_cutoff(self, known: State, state: State, played: int) -> bool:
        """The search plays out to the end of the round it is in: the medal
        is what a round decides, and later rounds would only add noise."""
        return state.round != known.round or state.phase == "over"

    def estimate(self, state: State) -> tuple[float, ...]:
        """Each seat's chance of winning the game once a round is scored: the
        round's scores as chances of its medal (a lead of 3 points makes a
        seat e times likelier to have it: a play-out's margin says more than
        who came first), then each seat's chance of being first to two
        medals, as if each later round's medal went to any seat alike."""
        _, scores, medals = state.round_scored
        before = tuple(m - (i in medals) for i, m in enumerate(state.medals))
        total = [0.0] * state.players
        for seat, share in enumerate(win_shares(scores, 3.0)):
            needs = tuple(MEDALS_TO_WIN - m - (i == seat) for i, m in enumerate(before))
            total = [t + share * p for t, p in zip(total, _medal_chances(needs), strict=True)]
        return tuple(total)

    def canonical(self, state: State) -> list[Any]:
        """The state as digests see it: the record's fields in the order a
        record is packed, without ``last_scoring``, so that the digests are
        the bytes they were before the field existed and older saves still
        verify; it is folded from the RoundScored event, which the digest
        of the other fields already answers for."""
        return [getattr(state, name) for name in DIGESTED_FIELDS]

    # -- table ---------------------------------------------------------------

    def initial(self, config: dict[str, Any]) -> State:
        seats = config["seats"]
        n = config["players"]
        variants = config.get("variants", {})
        arranged = config.get("arranged") or {}
        later = tuple((tuple(r.get("actions") or ()), tuple(r.get("plans") or ())) for r in arranged.get("later", ()))
        # a later round's deck is dealt as it is arranged, long after the setup checked the first
        if any(actions and sorted(actions) != sorted(C.ACTION_CARDS) for actions, _ in later):
            raise ConfigError("The arranged Action cards of a later round must be the 60 cards, each once.")
        return State(
            names=tuple(s.get("name", f"Player {i + 1}") for i, s in enumerate(seats)),
            agents=tuple(s["agent"] for s in seats),
            young=variants.get("young", "off") == "on",
            bonus=variants.get("bonus", "rulebook"),
            # a header written before these variants lacks them: its game is
            # replayed as it was played, with open counts and no penalty
            counts=variants.get("counts", "open"),
            no_yellows=variants.get("no_yellows", "none"),
            arranged_later=later,
            hands=((),) * n,
            reserves=((),) * n,
            won_cards=((),) * n,
            won_plans=((),) * n,
            played=((),) * n,
            medals=(0,) * n,
        )

    def setup(self, config: dict[str, Any], rng: random.Random) -> list[Event]:
        state = self.initial(config)
        powers = () if state.young else tuple(C.power_card(a) for a in state.agents)
        pile_cards = list(C.PLAN_IDS) + list(powers)
        arranged = config.get("arranged") or {}
        actions = list(arranged.get("actions") or ())
        if actions:
            if sorted(actions) != sorted(C.ACTION_CARDS):
                raise ConfigError("The arranged Action cards must be the 60 cards, each once.")
        else:
            actions = list(C.ACTION_CARDS)
            rng.shuffle(actions)
        pile = list(arranged.get("plans") or ())
        if pile:
            if sorted(pile) != sorted(pile_cards):
                raise ConfigError("The arranged plan pile must hold every plan and Power card in play, each once.")
        else:
            pile = pile_cards
            rng.shuffle(pile)
        leader = arranged.get("leader")
        if leader is None:
            leader = rng.randrange(state.players)
        events = [self._deal_event(state, 1, actions, pile)]
        state = self.evolve(state, events[0])
        chosen = self._leader_event(state, int(leader), "draw")
        events.append(chosen)
        return events + self._auto(self.evolve(state, chosen), rng)

    # -- events out of commands -------------------------------------------------

    def _deal_event(self, state: State, rnd: int, actions: list[str], plans: list[str]) -> Event:
        n = state.players
        hands = [actions[12 * i : 12 * i + HAND_SIZE] for i in range(n)]
        reserves = [actions[12 * i + HAND_SIZE : 12 * i + 12] for i in range(n)]
        pile_after = list(state.pile) + plans
        return {
            "t": "RoundDealt",
            "round": rnd,
            "hands": hands,
            "reserves": reserves,
            "set_aside": actions[12 * n :],
            "plans": plans,
            "top": pile_after[0] if pile_after else None,
            "names": list(state.names),
        }

    def _leader_event(self, state: State, seat: int, reason: str, by: int | None = None) -> Event:
        ev = {"t": "LeaderChosen", "seat": seat, "name": state.names[seat], "reason": reason}
        if by is not None:
            ev["by"] = by
            ev["by_name"] = state.names[by]
        return ev

    def _auto(self, state: State, rng: random.Random) -> list[Event]:
        """Every automatic event from here until a player must choose."""
        out: list[Event] = []
        while True:
            ev = self._next_auto(state, rng)
            if ev is None:
                return out
            out.append(ev)
            state = self.evolve(state, ev)

    def _next_auto(self, s: State, rng: random.Random) -> Event | None:
        phase = s.phase
        if phase == "lead":
            # s.leader is still the winner of the last turn of the round
            seat = next_round_leader(list(s.round_scored[2]), s.leader, s.players)
            return self._leader_event(s, seat, "round")
        if phase == "start":
            return _next_turn(s)
        if phase == "powers":
            card = s.top_plan
            agent = C.power_agent(card)
            seat = s.seat_with(agent)
            return {
                "t": "PowerUsed",
                "seat": seat,
                "name": s.names[seat],
                "agent": agent,
                "card": card,
                "revealed": s.pile[1] if len(s.pile) > 1 else None,
            }
        if phase == "resolve":
            winner = trick_winner(_entries(s), C.accomplice(s.top))
            return _pile_event(
                s,
                {
                    "t": "TurnWon",
                    "seat": winner,
                    "name": s.names[winner],
                    "cards": [c for _, c in s.table],
                    "plan": s.top,
                    "revealed": s.pile[1] if len(s.pile) > 1 else None,
                    "turn": s.turn,
                },
            )
        if phase == "end":
            if s.turn == HAND_SIZE and any(s.reserves):
                return {"t": "ReserveTakenUp", "reserves": [list(r) for r in s.reserves], "names": list(s.names)}
            if s.turn >= ROUND_TURNS:
                return self._score_event(s)
            return _next_turn(s)
        if phase == "scored":
            if max(s.medals) >= MEDALS_TO_WIN:
                seats = [i for i, m in enumerate(s.medals) if m >= MEDALS_TO_WIN]
                return {"t": "GameWon", "seats": seats, "names": [s.names[i] for i in seats], "medals": list(s.medals)}
            return self._new_round_event(s, rng)
        return None

    def _score_event(self, s: State) -> Event:
        points = [_plan_points(p) for p in s.won_plans]
        greens = [_count(w, "G") for w in s.won_cards]
        yellows = [_count(w, "Y") for w in s.won_cards]
        amount = bonus_amount(s.bonus, s.players)
        bonus, penalty, scores, medals = score_round(points, greens, yellows, amount, s.no_yellows == "penalty")
        return {
            "t": "RoundScored",
            "round": s.round,
            "plan_points": points,
            "greens": greens,
            "yellows": yellows,
            "bonus": bonus,
            "penalty": penalty,
            "scores": scores,
            "medals": medals,
            "names": list(s.names),
        }

    def _new_round_event(self, s: State, rng: random.Random) -> Event:
        returned = [c for pile in s.won_plans for c in pile]
        actions = list(C.ACTION_CARDS)
        later = s.arranged_later[s.round - 1] if s.round - 1 < len(s.arranged_later) else None
        if later and later[0]:
            actions = list(later[0])
        else:
            rng.shuffle(actions)
        if later and later[1]:
            rank = {c: i for i, c in enumerate(later[1])}
            returned.sort(key=lambda c: (rank.get(c, len(rank)), c))
        else:
            rng.shuffle(returned)
        return self._deal_event(s, s.round + 1, actions, returned)

    # -- commands ------------------------------------------------------------------

    _A_PLAYER = "Choose one of the players at this table."

    command_shapes = shapes(
        shape("PlayCard", card=text(C.ACTION_CARDS, what="Action card")),
        shape("ChooseLeader", seat=whole(0, 4, say=_A_PLAYER)),
        shape("Sabotage", seat=whole(0, 4, say=_A_PLAYER)),
        shape("TakeSecondPlan"),
        shape("DeclineSecondPlan"),
    )

    def decide(self, state: State, seat: int, command: Command, rng: random.Random) -> list[Event]:
        command = self.refuse_out_of_turn(state, seat, command)
        handler = {
            "play": self._decide_play,
            "leader": self._decide_leader,
            "sabotage": self._decide_sabotage,
            "second_plan": self._decide_second_plan,
        }[state.phase]
        first = handler(state, seat, command)
        return [first] + self._auto(self.evolve(state, first), rng)

    def waiting_for(self, s: State) -> str:
        who = [s.names[i] for i in self.active(s)]
        if not who:
            return "Nobody can move now."
        name = who[0]
        return {
            "play": f"It is {name}'s turn to play a card.",
            "leader": f"{name} is choosing who leads this turn.",
            "sabotage": f"{name} is choosing which card WXT's power hits.",
            "second_plan": f"{name} is deciding whether to take a second plan card.",
        }[s.phase]

    _EXPECTED: ClassVar[dict[str, str]] = {
        "play": "Play a card from your hand.",
        "leader": "Choose who leads this turn.",
        "sabotage": "Choose the player whose card loses 99.",
        "second_plan": "Take the next plan card or leave it.",
    }

    def _expect(self, s: State, command: Command, *kinds: str) -> None:
        if command["t"] not in kinds:
            raise IllegalCommand(f"Not now: {self._EXPECTED[s.phase]}")

    def _decide_play(self, s: State, seat: int, command: Command) -> Event:
        self._expect(s, command, "PlayCard")
        card = command["card"]
        if card not in s.hands[seat]:
            raise IllegalCommand(f"You do not have {card} in your hand.")
        return _pile_event(s, {"t": "CardPlayed", "seat": seat, "name": s.names[seat], "card": card})

    def _seat_arg(self, s: State, command: Command) -> int:
        target = command["seat"]
        if not 0 <= target < s.players:
            raise IllegalCommand(self._A_PLAYER)
        return target

    def _decide_leader(self, s: State, seat: int, command: Command) -> Event:
        self._expect(s, command, "ChooseLeader")
        target = self._seat_arg(s, command)
        return self._leader_event(s, target, "henry", by=seat)

    def _decide_sabotage(self, s: State, seat: int, command: Command) -> Event:
        self._expect(s, command, "Sabotage")
        target = self._seat_arg(s, command)
        if target == seat:
            raise IllegalCommand("WXT's power must hit a card played by another player.")
        card = dict(s.table).get(target)
        if card is None:
            raise IllegalCommand(f"{s.names[target]} has played no card this turn.")
        return _pile_event(
            s,
            {
                "t": "CardSabotaged",
                "seat": seat,
                "name": s.names[seat],
                "target": target,
                "target_name": s.names[target],
                "card": card,
            },
        )

    def _decide_second_plan(self, s: State, seat: int, command: Command) -> Event:
        self._expect(s, command, "TakeSecondPlan", "DeclineSecondPlan")
        if command["t"] == "DeclineSecondPlan":
            return {"t": "SecondPlanDeclined", "seat": seat, "name": s.names[seat]}
        return _pile_event(
            s,
            {
                "t": "SecondPlanTaken",
                "seat": seat,
                "name": s.names[seat],
                "plan": s.top,
                "revealed": s.pile[1] if len(s.pile) > 1 else None,
            },
        )

    # -- evolve ---------------------------------------------------------------------

    def evolve(self, state: State, event: Event) -> State:
        return getattr(self, "_on_" + event["t"])(state, event)

    def _after_powers(self, s: State) -> State:
        """Resolve the next Power card, or start the play with this turn's order."""
        if s.top is not None and C.is_power(s.top):
            return revise(s, phase="powers")
        jean = s.seat_of("jean") if "jean" in s.powers else None
        order = play_order(s.players, s.leader, C.accomplice(s.top) == "brioche", jean)
        return revise(s, phase="play", order=order)

    def _on_RoundDealt(self, s: State, ev: Event) -> State:
        n = s.players
        return revise(
            s,
            round=ev["round"],
            turn=0,
            phase="lead",
            hands=tuple(tuple(h) for h in ev["hands"]),
            reserves=tuple(tuple(r) for r in ev["reserves"]),
            set_aside=tuple(ev["set_aside"]),
            pile=s.pile + tuple(ev["plans"]),
            won_cards=((),) * n,
            won_plans=((),) * n,
            played=((),) * n,
            powers=(),
            table=(),
            order=(),
            sabotaged=None,
            last_turn=None,
        )

    def _on_LeaderChosen(self, s: State, ev: Event) -> State:
        s = revise(s, leader=ev["seat"])
        if ev["reason"] == "henry":
            return self._after_powers(s)
        return revise(s, phase="start")

    def _on_TurnStarted(self, s: State, ev: Event) -> State:
        s = revise(s, turn=ev["turn"], leader=ev["leader"], powers=(), table=(), order=(), sabotaged=None)
        return self._after_powers(s)

    def _on_PowerUsed(self, s: State, ev: Event) -> State:
        seat = ev["seat"]
        won = list(s.won_plans)
        won[seat] = won[seat] + (s.top_plan,)
        s = revise(s, pile=s.pile[1:], won_plans=tuple(won), powers=s.powers + (ev["agent"],))
        if ev["agent"] == "henry":
            return revise(s, phase="leader")
        return self._after_powers(s)

    def _on_CardPlayed(self, s: State, ev: Event) -> State:
        seat, card = ev["seat"], ev["card"]
        hands = list(s.hands)
        hand = list(hands[seat])
        hand.remove(card)
        hands[seat] = tuple(hand)
        table = s.table + ((seat, card),)
        played = list(s.played)
        played[seat] = played[seat] + (card,)
        phase = "play"
        if len(table) == s.players:
            phase = "sabotage" if "wxt" in s.powers else "resolve"
        return revise(s, hands=tuple(hands), table=table, played=tuple(played), phase=phase)

    def _on_CardSabotaged(self, s: State, ev: Event) -> State:
        return revise(s, sabotaged=ev["target"], phase="resolve")

    def _on_TurnWon(self, s: State, ev: Event) -> State:
        seat = ev["seat"]
        cards = tuple(c for _, c in s.table)
        won_cards = list(s.won_cards)
        won_cards[seat] = won_cards[seat] + cards
        won_plans = list(s.won_plans)
        won_plans[seat] = won_plans[seat] + (s.top_plan,)
        s = revise(
            s,
            won_cards=tuple(won_cards),
            won_plans=tuple(won_plans),
            last_turn=(seat, cards, (s.top_plan,)),
            table=(),
            pile=s.pile[1:],
            leader=seat,
        )
        martha = "martha" in s.powers and s.seat_of("martha") == seat
        if martha and s.top is not None and not C.is_power(s.top):
            return revise(s, phase="second_plan")
        return revise(s, phase="end")

    def _on_SecondPlanTaken(self, s: State, ev: Event) -> State:
        seat = ev["seat"]
        won_plans = list(s.won_plans)
        won_plans[seat] = won_plans[seat] + (s.top_plan,)
        last = s.last_turn
        if last is None:
            raise ValueError("a second plan card is taken after a turn won")
        return revise(
            s,
            won_plans=tuple(won_plans),
            pile=s.pile[1:],
            last_turn=(last[0], last[1], last[2] + (s.top_plan,)),
            phase="end",
        )

    def _on_SecondPlanDeclined(self, s: State, ev: Event) -> State:
        return revise(s, phase="end")

    def _on_ReserveTakenUp(self, s: State, ev: Event) -> State:
        hands = tuple(h + r for h, r in zip(s.hands, s.reserves, strict=True))
        return revise(s, hands=hands, reserves=((),) * s.players)

    def _on_RoundScored(self, s: State, ev: Event) -> State:
        medals = tuple(m + (1 if i in ev["medals"] else 0) for i, m in enumerate(s.medals))
        return revise(
            s,
            medals=medals,
            last_round=(ev["round"], tuple(ev["scores"]), tuple(ev["medals"])),
            last_scoring=tuple(tuple(ev[k]) for k in ("plan_points", "greens", "yellows", "bonus", "penalty")),
            phase="scored",
            table=(),
            order=(),
        )

    def _on_GameWon(self, s: State, ev: Event) -> State:
        return revise(s, winners=tuple(ev["seats"]), phase="over")

    # -- who acts, what is legal -------------------------------------------------------

    def active(self, state: State) -> tuple[int, ...]:
        phase = state.phase
        if phase == "play":
            return (state.order[len(state.table)],)
        if phase == "leader":
            return (state.seat_with("henry"),)
        if phase == "sabotage":
            return (state.seat_with("wxt"),)
        if phase == "second_plan":
            return (state.seat_with("martha"),)
        return ()

    def legal(self, state: State, seat: int) -> list[Command]:
        if seat not in self.active(state):
            return []
        phase = state.phase
        if phase == "play":
            return [{"t": "PlayCard", "card": c} for c in sorted(set(state.hands[seat]), key=C.hand_order)]
        if phase == "leader":
            return [{"t": "ChooseLeader", "seat": i} for i in range(state.players)]
        if phase == "sabotage":
            return [{"t": "Sabotage", "seat": s} for s, _ in state.table if s != seat]
        if phase == "second_plan":
            return [{"t": "TakeSecondPlan"}, {"t": "DeclineSecondPlan"}]
        return []

    def outcome(self, state: State) -> Outcome | None:
        if state.phase != "over":
            return None
        names = [state.names[i] for i in state.winners]
        if len(names) == 1:
            reason = f"{names[0]} won a second medal: the best agent of the Agency."
        else:
            reason = f"{_join(names)} won their second medals in the same round and share the victory."
        return Outcome(tuple(state.winners), reason, tuple(state.medals))

    # -- what a seat sees ------------------------------------------------------------

    def effects(self, s: State) -> list[str]:
        """One sentence per power and accomplice in force this turn."""
        out = []
        for agent in s.powers:
            name = s.names[s.seat_with(agent)]
            out.append(
                {
                    "jean": f"Jean: {name} plays last this turn.",
                    "bulle": f"Bulle: {name}'s card is worth 99 more this turn.",
                    "wxt": f"WXT: once all cards are down, {name} takes 99 off another player's card.",
                    "henry": f"Henry B. Belton: {name} chooses who leads this turn.",
                    "martha": f"Martha: if {name} wins this turn, {name} may take the next plan card too.",
                }[agent]
            )
        acc = accomplice_in_force(s)
        if acc:
            out.append(C.ACCOMPLICE_EFFECT[acc])
        return out

    def view(self, state: State, seat: Viewer) -> dict[str, Any]:
        s = state
        everything = seat == ALL
        own = seat if isinstance(seat, int) and not isinstance(seat, bool) else None
        order = s.order or play_order(s.players, s.leader)
        hidden = _piles_private(s)
        players = []
        for i in range(s.players):
            sees = everything or own == i
            # with hidden counts a seat knows only its own won pile (it may
            # look at it): the others' counts are not in its view at all
            # (until the game is over: ``_piles_private``)
            counted = sees or not hidden
            entry = {
                "name": s.names[i],
                "agent": s.agents[i],
                "hand": len(s.hands[i]),
                "reserve": len(s.reserves[i]),
                "won": len(s.won_cards[i]) if counted else None,
                "greens": _count(s.won_cards[i], "G") if counted else None,
                "yellows": _count(s.won_cards[i], "Y") if counted else None,
                "plans": list(s.won_plans[i]) if sees else None,
                "points": _plan_points(s.won_plans[i]) if sees else None,
                "medals": s.medals[i],
            }
            if hidden and sees:
                entry["won_cards"] = sorted(s.won_cards[i], key=C.hand_order)
                # what it played itself this round, wherever it went (its
                # history tells its own cards in full)
                entry["played_cards"] = sorted(s.played[i], key=C.hand_order)
            if everything:
                entry["hand_cards"] = sorted(s.hands[i], key=C.hand_order)
                entry["reserve_cards"] = list(s.reserves[i])
            players.append(entry)
        phase = s.phase if s.phase in PLAYER_PHASES or s.phase == "over" else "play"
        last = None
        if s.last_turn:
            last = {"seat": s.last_turn[0], "cards": list(s.last_turn[1]), "plans": list(s.last_turn[2])}
        return {
            "seat": seat,
            "round": s.round,
            "turn": max(1, s.turn),
            "phase": phase,
            "active": list(self.active(s)),
            "leader": order[0],
            "order": list(order),
            "plan_top": s.top,
            "plan_count": len(s.pile),
            # a turn won, the next not started (a history looked back at between the two): "next",
            # the plan on top, turned as the turn was won, is the next turn's; "round", it was the
            # round's last turn (the round is scored next, and no plan is played for it)
            "turn_over": None if s.phase != "end" else "next" if s.turn < ROUND_TURNS else "round",
            "effects": self.effects(s),
            "table": [{"seat": p, "card": c, "value": effective_value(s, p, c)} for p, c in s.table],
            "hand": sorted(s.hands[own], key=C.hand_order) if own is not None else None,
            "players": players,
            "last_round": (
                {"round": s.last_round[0], "scores": list(s.last_round[1]), "medals": list(s.last_round[2])}
                if s.last_round
                else None
            ),
            # how the last round scored: public from the moment it is scored
            "scoring": _scoring_view(s),
            "winners": list(s.winners),
            # beyond the screen's shape: what the bot and the history need
            "powers": list(s.powers),
            "last_turn": last,
            # every card played in the earlier turns of this round: each was
            # played face up, and with open counts the history shows it; with
            # hidden counts the history does not, and the cards are in won
            # piles only their owners may look at (the seat's own is above)
            "played": (
                sorted((c for w in s.won_cards for c in w), key=C.hand_order) if everything or not hidden else None
            ),
            "counts": s.counts,
        }

    def score_sheet(self, view: dict[str, Any]) -> ScoreSheet | None:
        """The last round's scoring as the rules add it up, seat by seat:
        plans, the green bonus and the yellow penalty (each with the cards
        counted), the round's total and the medals so far; at the end of the
        game, the same for the last round and who holds two medals."""
        scoring = view.get("scoring")
        if not scoring:
            return None
        players = view["players"]
        names = [p["name"] for p in players]
        rnd = scoring["round"]
        medal_seats = scoring["medals"]
        rows = []
        for i, p in enumerate(players):
            rows.append(
                (
                    str(scoring["plan_points"][i]),
                    f"{_signed(scoring['bonus'][i])} ({scoring['greens'][i]})",
                    f"{_signed(-scoring['penalty'][i])} ({scoring['yellows'][i]})",
                    str(scoring["scores"][i]),
                    f"{p['medals']} (+1)" if i in medal_seats else str(p["medals"]),
                )
            )
        greens, yellows = scoring["greens"], scoring["yellows"]
        bonus = max(scoring["bonus"])
        fewest = min(greens)
        notes = [
            f"Fewest green cards ({fewest}): +{bonus} to "
            + _join([names[i] for i, b in enumerate(scoring["bonus"]) if b])
            + "."
        ]
        if max(yellows) == 0 and not any(scoring["penalty"]):
            notes.append("Nobody won a yellow card: no penalty.")
        elif max(yellows) == 0:
            notes.append(
                f"Nobody won a yellow card, so all are tied for the most: -{max(scoring['penalty'])} to "
                + _join([names[i] for i, q in enumerate(scoring["penalty"]) if q])
                + "."
            )
        else:
            notes.append(
                f"Most yellow cards ({max(yellows)}): -{max(scoring['penalty'])} to "
                + _join([names[i] for i, q in enumerate(scoring["penalty"]) if q])
                + "."
            )
        best = scoring["scores"][medal_seats[0]]
        if len(medal_seats) == 1:
            notes.append(f"Medal of round {rnd}: {names[medal_seats[0]]}, with {best} points.")
        else:
            notes.append(f"Medals of round {rnd}: {_join([names[i] for i in medal_seats])}, tied on {best} points.")
        columns = ("Plans", "Greens", "Yellows", "Round", "Medals")
        if view.get("phase") != "over":
            return ScoreSheet(f"Round {rnd} scored", columns, tuple(rows), tuple(map(_clip, notes)), f"round-{rnd}")
        winners = [names[i] for i in view.get("winners", [])]
        if len(winners) == 1:
            notes.append(f"Two medals: {winners[0]}.")
        elif winners:
            notes.append(f"Two medals each: {_join(winners)}, who share the victory.")
        return ScoreSheet(f"Final score (round {rnd})", columns, tuple(rows), tuple(map(_clip, notes)), "final")

    def redact(self, event: Event, seat: Viewer) -> Event:
        if seat == ALL:
            return event
        t = event["t"]
        own = seat if isinstance(seat, int) and not isinstance(seat, bool) else None
        if t == "RoundDealt":
            ev = dict(event)
            ev["hands"] = [list(h) if i == own else None for i, h in enumerate(event["hands"])]
            ev["hand_counts"] = [len(h) for h in event["hands"]]
            ev["reserves"] = [None for _ in event["reserves"]]
            ev["reserve_counts"] = [len(r) for r in event["reserves"]]
            ev["set_aside"] = None
            ev["set_aside_count"] = len(event["set_aside"])
            ev["plans"] = None
            ev["plans_count"] = len(event["plans"])
            return ev
        if t == "ReserveTakenUp":
            ev = dict(event)
            ev["reserves"] = [list(r) if i == own else None for i, r in enumerate(event["reserves"])]
            ev["counts"] = [len(r) for r in event["reserves"]]
            return ev
        if event.get("hidden"):
            return _redact_pile_event(event, own)
        return event

    # -- what a seat knows (the search bot) -----------------------------------------
    #
    # ``view`` is the authority.  It shows the seat its own hand, the table, the
    # top of the plan pile and its count, its own won plans, the last turn won
    # (winner, cards, plans), the powers in force, and of every player only
    # counts: hand, reserve, cards won and how many of them are green and
    # yellow.  So in the observation:
    #
    # - the other hands, every reserve (even the seat's own) and the set-aside
    #   cards are UNSEEN, one per card;
    # - the plan pile is its top then UNSEEN, one per card;
    # - the cards won are known, since view lists every card played this
    #   round, but not who won which but for the last turn: each seat gets
    #   the last turn's cards if it won it, then as many of the other played
    #   greens, yellows and other cards as it won, dealt in a fixed order (the
    #   rules count won cards only by colour, so any such deal plays the same);
    # - another seat's won plans are what view shows of them (the last turn's
    #   plans, the Power cards in force this turn) then UNSEEN for each other
    #   turn it won; its other extra cards (Power cards turned earlier this
    #   round, a Martha second plan) are left out, as view gives not even
    #   their number: ``determinize`` deduces how many there are from the
    #   cards unaccounted for and draws which;
    # - with hidden counts (the default; once the game is over the piles are
    #   observed as with open counts, ``_piles_private``) the seat knows only its own won pile
    #   and the last turn's take: the others' won cards are not in the
    #   observation at all, nor their plans but those view shows, nor how many
    #   turns each won; ``determinize`` works out how many turns the others
    #   won between them (the turns played less those it can account for),
    #   shares them out at random and deals their cards: in each, one of the
    #   seat's own cards played (``played``: it knows its own, the others'
    #   are left out) and the rest from the unseen ones;
    # - ``arranged_later`` (tests stacking later rounds) is cleared;
    # - the rest is public (or the table's config) and stays as it is.

    def observe(self, state: State, seat: int) -> State:
        s = state
        last = s.last_turn
        winner = last[0] if last else None
        hands = tuple(
            tuple(sorted(h, key=C.hand_order)) if i == seat else (UNSEEN,) * len(h) for i, h in enumerate(s.hands)
        )
        if _piles_private(s):
            # the seat's own pile, and of the others' only the last turn's
            # take: how many turns each of the others won is not known either
            shown_cards = tuple(sorted(last[1], key=C.hand_order)) if last else ()
            won_cards = tuple(
                tuple(sorted(w, key=C.hand_order)) if i == seat else shown_cards if i == winner else ()
                for i, w in enumerate(s.won_cards)
            )
            won_plans = tuple(p if i == seat else tuple(sorted(_plans_shown(s, i))) for i, p in enumerate(s.won_plans))
            played = tuple(tuple(sorted(p, key=C.hand_order)) if i == seat else () for i, p in enumerate(s.played))
        else:
            played = ((),) * len(s.played)
            won_cards = _won_cards_known(s.won_cards, last[1] if last else (), winner)
            won_plans = tuple(
                p if i == seat else tuple(sorted(_plans_shown(s, i))) + (UNSEEN,) * _trick_slots(s, i)
                for i, p in enumerate(s.won_plans)
            )
        # once this turn's order is fixed, view shows its first seat as the
        # leader, which is not always who led (Jean's power moves him last);
        # who led no longer matters, so the first seat stands for it
        leader = s.order[0] if s.order and s.phase in TURN_PHASES else s.leader
        return revise(
            s,
            arranged_later=(),
            leader=leader,
            hands=hands,
            reserves=tuple((UNSEEN,) * len(r) for r in s.reserves),
            set_aside=(UNSEEN,) * len(s.set_aside),
            pile=s.pile[:1] + (UNSEEN,) * (len(s.pile) - 1),
            won_cards=won_cards,
            won_plans=won_plans,
            played=played,
        )

    def determinize(self, known: State, seat: int, rng: random.Random, redo: bool = False) -> State:
        # nobody here makes a hidden choice, so ``redo`` changes nothing
        # a search draws thousands of times from one observation: the slots
        # and the cards left over are worked out once, for the last one seen
        last = self._last_deal
        if last is None or last[0] is not known or last[1].seat != seat:
            last = self._last_deal = (known, _Deal(known, seat))
        return last[1].draw(known, rng)

    _last_deal: tuple[State, _Deal] | None = None

    def describe(self, event: Event, seat: Viewer) -> str:
        t = event["t"]
        name = event.get("name", "")
        if t == "RoundDealt":
            return f"Round {event['round']}: 12 cards dealt to each player, 6 in hand and 6 face down."
        if t == "LeaderChosen":
            if event["reason"] == "draw":
                return f"{name} is drawn to lead the first turn."
            if event["reason"] == "round":
                return f"{name} won the last round and leads."
            if event.get("by") == event["seat"]:
                return f"{name} (Henry B. Belton) chooses to lead this turn."
            return f"{event.get('by_name', '?')} (Henry B. Belton) chooses {name} to lead this turn."
        if t == "TurnStarted":
            return f"Turn {event['turn']} of round {event['round']}: {name} leads."
        if t == "PowerUsed":
            return f"{name} carries out {C.AGENT_NAMES[event['agent']]}'s power." + _now_on_pile(event)
        # a card or plan left out (None) went to a won pile this seat may not look at
        if t == "CardPlayed":
            card = event["card"]
            return f"{name} plays {C.card_label(card) if card else 'a card'}."
        if t == "CardSabotaged":
            card = event["card"]
            hit = C.card_label(card) if card else "card"
            return f"{name} (WXT) takes 99 off {event['target_name']}'s {hit}."
        if t == "TurnWon":
            cards = event["cards"]
            if event["plan"] is None:
                return f"{name} wins the turn and takes the cards and the plan." + _now_on_pile(event)
            return f"{name} wins the turn: {len(cards)} cards and plan {C.plan_label(event['plan'])}." + _now_on_pile(
                event
            )
        if t == "SecondPlanTaken":
            if event["plan"] is None:
                return f"{name} (Martha) also takes the next plan card." + _now_on_pile(event)
            return f"{name} (Martha) also takes plan {C.plan_label(event['plan'])}." + _now_on_pile(event)
        if t == "SecondPlanDeclined":
            return f"{name} (Martha) leaves the next plan card on the pile."
        if t == "ReserveTakenUp":
            text = "Everyone takes up their 6 face-down cards."
            own = seat if isinstance(seat, int) and not isinstance(seat, bool) else None
            if own is not None and event["reserves"][own]:
                mine = sorted(event["reserves"][own], key=C.hand_order)
                text += f" You take up {' '.join(mine)}."
            return text
        if t == "RoundScored":
            names = event["names"]
            parts = ", ".join(f"{n} {sc}" for n, sc in zip(names, event["scores"], strict=True))
            medal = _join([names[i] for i in event["medals"]])
            return f"Round {event['round']} scored: {parts}. Medal to {medal}."
        if t == "GameWon":
            if len(event["names"]) == 1:
                return f"{event['names'][0]} wins a second medal and the game!"
            return f"{_join(event['names'])} win their second medals together and share the victory!"
        return t

    def scores_of(self, event: Event) -> tuple[int, ...] | None:
        """The points each seat scored in a round."""
        return tuple(event["scores"]) if event.get("t") == "RoundScored" else None

    def mark(self, event: Event) -> str | None:
        t = event.get("t")
        if t == "RoundDealt":
            return "round"
        if t == "TurnStarted":
            return "turn"
        return None

    def reveals(self, event: Event, seat: int) -> bool:
        t = event["t"]
        if t in ("TurnStarted", "GameWon"):
            return False
        if t in ("CardPlayed", "SecondPlanDeclined"):
            return event["seat"] != seat
        if t == "CardSabotaged":
            return event["seat"] != seat
        if t == "LeaderChosen":
            return event["reason"] == "draw" or event.get("by") != seat
        # deals, plan cards turned, reserves, scores
        return True


def _next_turn(s: State) -> Event:
    """The next turn of the round starts, led by the seat that leads now."""
    return {"t": "TurnStarted", "round": s.round, "turn": s.turn + 1, "leader": s.leader, "name": s.names[s.leader]}


# -- what a seat knows: helpers of observe and determinize ----------------------------


def _won_cards_known(
    won: tuple[tuple[str, ...], ...], last: tuple[str, ...], winner: int | None
) -> tuple[tuple[str, ...], ...]:
    """The won piles as view tells them: the last turn's cards to its winner,
    then the other cards played this round dealt out in a fixed order, to
    each seat as many greens, yellows and other cards as it won."""
    shown = set(last)
    rest = sorted((c for w in won for c in w if c not in shown), key=C.hand_order)
    by_colour = {k: [c for c in rest if _colour(c) == k] for k in "GYO"}
    out = []
    for i, w in enumerate(won):
        mine = tuple(sorted(last, key=C.hand_order)) if i == winner else ()
        for k in "GYO":
            count = sum(1 for c in w if c not in shown and _colour(c) == k)
            mine += tuple(by_colour[k][:count])
            del by_colour[k][:count]
        out.append(mine)
    return tuple(out)


def _colour(card: str) -> str:
    """G and Y for the colours the scoring counts, O for the others."""
    return card[0] if card[0] in "GY" else "O"


def _plans_shown(s: State, seat: int) -> tuple[str, ...]:
    """What view shows of another seat's won plans: the last turn's plans
    when it won it, its Power card when in force this turn."""
    shown = tuple(s.last_turn[2]) if s.last_turn and s.last_turn[0] == seat else ()
    if s.agents[seat] in s.powers:
        shown += (C.power_card(s.agents[seat]),)
    return shown


def _trick_slots(s: State, seat: int) -> int:
    """The turns ``seat`` won whose plan view does not show (each turn won
    brings as many cards as there are players, and one plan)."""
    turns = len(s.won_cards[seat]) // s.players
    return turns - (1 if s.last_turn and s.last_turn[0] == seat else 0)


class _Deal:
    """How to fill an observation's unseen slots: computed once per
    observation, then :meth:`draw` is a few shuffles."""

    def __init__(self, known: State, seat: int) -> None:
        n = known.players
        self.seat = seat
        # -- Action cards: with open counts every card won is known (view
        # lists the cards played), and the others are dealt among the hidden
        # hands and reserves; with hidden counts the turns the others won but
        # for the last one (``hidden_turns``) are dealt from them too
        seen = set(known.hands[seat]) | {c for _, c in known.table} | {c for w in known.won_cards for c in w}
        self.pool = [c for c in C.ACTION_CARDS if c not in seen]
        self.hand_sizes = [0 if i == seat else len(h) for i, h in enumerate(known.hands)]
        self.reserve_sizes = [len(r) for r in known.reserves]
        self.hidden = _piles_private(known)
        self.hidden_turns = 0
        #: the seat's own cards in the turns the others won, but for the last
        self.mine_elsewhere: list[str] = []
        if self.hidden:
            self.mine_elsewhere = [c for c in known.played[seat] if c not in seen]
            self.pool = [c for c in self.pool if c not in set(self.mine_elsewhere)]
            self.hidden_turns = len(self.mine_elsewhere)
        # the seats that may have won the hidden turns
        self.takers = [i for i in range(n) if i != seat]
        if UNSEEN in seen or len(self.pool) != sum(self.hand_sizes) + sum(self.reserve_sizes) + len(
            known.set_aside
        ) + self.hidden_turns * (n - 1):
            raise ValueError("These Action cards cannot be dealt: not an observation of L'Agent Jean!")
        # -- plan pile and won plans
        all_plans = list(C.PLAN_IDS) + ([] if known.young else [C.power_card(a) for a in known.agents])
        seen_plans = set(known.pile[:1])
        #: per seat: (shown, trick slots), or None for the seat itself
        self.plan_layout: list[tuple[tuple[str, ...], int] | None] = []
        for i, p in enumerate(known.won_plans):
            if i == seat:
                seen_plans.update(p)
                self.plan_layout.append(None)
                continue
            shown = tuple(c for c in p if c != UNSEEN)
            seen_plans.update(shown)
            self.plan_layout.append((shown, len(p) - len(shown)))
        unknown = [c for c in all_plans if c not in seen_plans]
        self.pile_slots = max(0, len(known.pile) - 1)
        tricks = sum(x[1] for x in self.plan_layout if x is not None) + self.hidden_turns
        extras = len(unknown) - self.pile_slots - tricks
        # Power cards of other seats not in view: turned earlier this round
        # (in their owner's won plans) or still in the pile
        owner = {C.power_card(a): i for i, a in enumerate(known.agents)}
        optional = [c for c in unknown if C.is_power(c) and owner[c] != seat]
        forced: list[str] = []
        martha = known.seat_of("martha")
        second_known = False
        if martha is not None and martha != seat and not known.young:
            last = known.last_turn
            second_known = bool(last and last[0] == martha and len(last[2]) == 2)
            if second_known and "power:martha" in optional:
                optional.remove("power:martha")
                forced.append("power:martha")
        n_plans = sum(1 for c in unknown if not C.is_power(c))
        # every way to place the extra cards: which Power cards were turned,
        # and whether Martha took a second plan earlier this round
        self.options = []
        for size in range(len(optional) + 1):
            for turned in itertools.combinations(optional, size):
                for second in (0, 1):
                    if len(forced) + size + second != extras or n_plans < tricks + second:
                        continue
                    if second and not (
                        martha is not None
                        and martha != seat
                        and not second_known
                        and "martha" not in known.powers
                        and ("power:martha" in turned or "power:martha" in forced)
                        and (self.hidden_turns if self.hidden else self._slots(martha)) >= 1
                    ):
                        continue
                    to_owner: list[list[str]] = [[] for _ in range(n)]
                    for c in forced + list(turned):
                        to_owner[owner[c]].append(c)
                    gone = set(forced) | set(turned)
                    plans = [c for c in unknown if not C.is_power(c)]
                    powers = [c for c in unknown if C.is_power(c) and c not in gone]
                    self.options.append((tuple(map(tuple, to_owner)), second, plans, powers))
        if not self.options:
            raise ValueError("These plan cards cannot be placed: not an observation of L'Agent Jean!")
        self.tricks = tricks
        self.martha = martha

    def _slots(self, i: int) -> int:
        """The trick slots in seat ``i``'s won plans (none for the seat itself: it sees its own)."""
        layout = self.plan_layout[i]
        return 0 if layout is None else layout[1]

    def draw(self, known: State, rng: random.Random) -> State:
        seat = self.seat
        rand = rng.random
        free = self.pool[:]
        _shuffle(free, rand)
        at = 0
        hands = []
        for i, size in enumerate(self.hand_sizes):
            if i == seat:
                hands.append(known.hands[i])
            else:
                hands.append(tuple(free[at : at + size]))
                at += size
        reserves = []
        for size in self.reserve_sizes:
            reserves.append(tuple(free[at : at + size]))
            at += size
        # plans
        option = self.options[rng.randrange(len(self.options))] if len(self.options) > 1 else self.options[0]
        to_owner, second, plans, powers = option
        won_cards = known.won_cards
        turns_won = [0] * known.players
        if self.hidden:
            # who won the turns the seat cannot account for: each a seat
            # other than itself, drawn evenly (Martha one at least if she
            # took a second plan, which she can only do on a turn she won)
            hidden = self.hidden_turns
            if second:
                assert self.martha is not None  # a second plan card is Martha's power
                turns_won[self.martha] += 1
                hidden -= 1
            for _ in range(hidden):
                turns_won[self.takers[int(rand() * len(self.takers))]] += 1
            n = known.players
            mine = self.mine_elsewhere[:]
            _shuffle(mine, rand)
            won = []
            for i, w in enumerate(known.won_cards):
                k = turns_won[i]
                won.append(w + tuple(mine[:k]) + tuple(free[at : at + k * (n - 1)]))
                del mine[:k]
                at += k * (n - 1)
            won_cards = tuple(won)
        set_aside = tuple(free[at:])
        plans = _pick(plans, self.tricks + second, rand)
        at = 0
        won_plans = []
        for i, layout in enumerate(self.plan_layout):
            if layout is None:
                won_plans.append(known.won_plans[i])
                continue
            shown, slots = layout
            extra = slots + turns_won[i] + (second if i == self.martha else 0)
            won_plans.append(shown + to_owner[i] + tuple(plans[at : at + extra]))
            at += extra
        tail = plans[at:] + powers
        _shuffle(tail, rand)
        return revise(
            known,
            hands=tuple(hands),
            reserves=tuple(reserves),
            set_aside=set_aside,
            pile=known.pile[:1] + tuple(tail),
            won_cards=won_cards,
            won_plans=tuple(won_plans),
        )


def _pick(cards: list[str], k: int, rand: Any) -> list[str]:
    """A copy of ``cards`` whose first ``k`` are drawn at random (the rest in
    no particular order): a partial Fisher-Yates on ``random()``, which is
    much cheaper than ``Random.shuffle`` for the few dozen cards here."""
    cards = cards[:]
    n = len(cards)
    for i in range(k):
        j = i + int(rand() * (n - i))
        cards[i], cards[j] = cards[j], cards[i]
    return cards


def _shuffle(cards: list[str], rand: Any) -> None:
    """Fisher-Yates in place on ``random()`` (for a few dozen cards its bias is nil)."""
    for i in range(len(cards) - 1, 0, -1):
        j = int(rand() * (i + 1))
        cards[i], cards[j] = cards[j], cards[i]


def _piles_private(s: State) -> bool:
    """Whether the others' won piles are private (hidden counts): while the game is played.
    Once it is over, its last round scored, how many cards, greens and yellows each won is
    public, as the scoring of a round makes it (each turn won brings one card a player, and who
    won each turn is no secret): ``view`` and ``observe`` then give everyone's, as with open
    counts."""
    return s.counts == "hidden" and s.phase != "over"


def _pile_event(s: State, event: Event) -> Event:
    """An event whose cards end in a won pile: with hidden counts it says so,
    and :func:`_redact_pile_event` then leaves those cards out for the others
    (an older save, open counts, has no such mark and replays as it was)."""
    if s.counts == "hidden":
        event["hidden"] = True
    return event


def _redact_pile_event(event: Event, own: int | None) -> Event:
    """A card played, a card hit by WXT, a turn won or Martha's second plan as
    a seat sees it in its history when the won piles are hidden: who did it,
    but not the cards and plans that went to another seat's pile, which
    nobody but its owner may look at, nor the plan card their taking turned
    up (the next line would tell which plan was taken).  The board shows the
    cards of this turn, the top of the pile and the last turn's take while
    they are on the table; the history keeps no record of them, or it would
    keep the others' counts and plans for the seat."""
    t = event["t"]
    ev = dict(event)
    if t == "CardPlayed":
        # the seat sees what it played itself; its own cards do not show
        # what it won, and a card it played to another's pile it knows anyway
        if event["seat"] != own:
            ev["card"] = None
    elif t == "CardSabotaged":
        if own not in (event["seat"], event["target"]):
            ev["card"] = None
    elif t == "TurnWon":
        if event["seat"] != own:
            ev["cards"] = None
            ev["plan"] = None
            # the card it turned up is on the table for all to see, but
            # named here it would tell, a line later, which plan was taken
            ev["revealed"] = None
    elif t == "SecondPlanTaken" and event["seat"] != own:
        ev["plan"] = None
        ev["revealed"] = None
    return ev


def _now_on_pile(event: Event) -> str:
    """The card a taken card uncovered, for the history line."""
    revealed = event.get("revealed")
    return f" Now on the pile: {C.plan_label(revealed)}." if revealed else ""


@functools.cache
def _medal_chances(needs: tuple[int, ...]) -> tuple[float, ...]:
    """Each seat's chance of winning its missing medals first, when every
    round's medal goes to one seat drawn evenly (shared medals left out)."""
    n = len(needs)
    done = [i for i, k in enumerate(needs) if k <= 0]
    if done:
        return tuple(1 / len(done) if i in done else 0.0 for i in range(n))
    total = [0.0] * n
    for w in range(n):
        after = _medal_chances(tuple(k - (i == w) for i, k in enumerate(needs)))
        total = [t + p / n for t, p in zip(total, after, strict=True)]
    return tuple(total)


def _scoring_view(s: State) -> dict[str, Any] | None:
    if s.last_scoring is None or s.last_round is None:
        return None
    plan_points, greens, yellows, bonus, penalty = s.last_scoring
    return {
        "round": s.last_round[0],
        "plan_points": list(plan_points),
        "greens": list(greens),
        "yellows": list(yellows),
        "bonus": list(bonus),
        "penalty": list(penalty),
        "scores": list(s.last_round[1]),
        "medals": list(s.last_round[2]),
    }


def _signed(points: int) -> str:
    return f"{points:+d}" if points else "0"


def _clip(note: str, width: int = 74) -> str:
    """A score sheet's note fits its line (long names at a table of five)."""
    return note if len(note) <= width else note[: width - 1] + "…"


def _join(names: list[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]
