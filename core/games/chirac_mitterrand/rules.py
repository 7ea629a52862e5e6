"""The rules of 1988: Chirac contre Mitterrand as a decider (see core/engine.py).

Two candidates take turns, Chirac first.  A turn: draw three cards from your
own pile, play one political action of one of them (its quality icons push
the Public Opinion tokens towards your end), then the card goes to the
discard pile (neutral action) or stays in front of you as Power Erosion
(your own colour), and the two others go under your opponent's pile in the
order you choose.  A second and a fourth Power Erosion give the opponent an
Electoral Campaign draw; a sixth ends the game.  When both piles are down to
three cards, each candidate plays one final turn and the qualities decide.

Solo: one seat plays against an automated opponent that is not a seat.  Its
turn is carried out here, as automatic events, with the match's rng for its
random choices; the human seat is asked only when its once-a-game veto could
cancel one of the automaton's neutral actions.  Against the hard automaton
(variant ``solo=hard``, a house rule) there is no veto, the rows are longer, and
the automaton makes its own Electoral Campaign draws, automatic events too.

Candidates are indexed 0 (Chirac) and 1 (Mitterrand) inside the state;
events and views name them ``"chirac"`` and ``"mitterrand"``.  Rows hold a
position from ``-L`` (Mitterrand's end, on the left) to ``+L`` (Chirac's
end); Chirac pushes towards ``+``, Mitterrand towards ``-``.

``decide`` returns the events of the command and every automatic event that
follows (the next turn's draw, the automaton's whole turn...) until a seat
must choose again.  The phases ``start``, ``draw`` and ``automaton`` mark
those automatic steps; commands are awaited only in ``play``, ``campaign``
and ``veto``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from itertools import permutations, product
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
    items,
    revise,
    shape,
    shapes,
    text,
    whole,
)

from . import cards as C

CHIRAC, MITTERRAND = 0, 1
SIDES = C.CANDIDATES  # ("chirac", "mitterrand")
#: which way each candidate pushes the tokens
DIRECTION = (1, -1)
HAND = 3
PILE = 10
DISCARD_AT_START = 4
#: the erosion counts that give the opponent a campaign draw
CAMPAIGN_AT = (2, 4)
EROSION_LIMIT = 6
#: solo: the automaton's pile, two cards of each kind
SOLO_KINDS = ("NN", "NC", "NM", "CM")
SOLO_PER_KIND = 2
#: solo: the final turn comes when the human has this many cards left, the automaton that many
SOLO_FINAL = (2, 1)
#: solo: how hard the automaton is (the variant ``solo``).  ``hard`` is a house rule: it draws
#: Electoral Campaign cards when you receive your second and fourth Power Erosion, you have no
#: veto, and the Public Opinion rows are longer (``C.HARD_SOLO_ROW_LENGTH``)
SOLO_LEVELS = ("standard", "hard")
#: the phases where a seat must act
PLAYER_PHASES = ("play", "campaign", "veto")
#: each Event card's kind (solo setup), looked up by determinize
_KIND = {card: C.kind(card) for card in C.EVENT_IDS}


#: one step of a resolution: its kind ("icon", "centre", "media"...), the candidate, then what the kind needs
Step = tuple[Any, ...]


def other(c: int) -> int:
    return 1 - c


def side_index(name: str) -> int:
    return SIDES.index(name)


@dataclass(frozen=True)
class State:
    #: the candidates' players' names (the automaton is "Automaton")
    names: tuple[str, str]
    #: the seat playing each candidate, None for the automaton
    seats: tuple[int | None, int | None]
    solo: bool
    #: for tests: the campaign cards of each draw, in order
    arranged_campaign: tuple[tuple[str, ...], ...] = ()
    row_length: int = C.ROW_LENGTH
    phase: str = "setup"
    #: turns started so far
    turn: int = 0
    #: whose turn it is (or was, between turns)
    to_move: int = CHIRAC
    #: this round is the final one
    final: bool = False
    rows: tuple[int, int, int] = (0, 0, 0)
    media: int = MITTERRAND
    #: solo: the Media token is face down, the veto spent
    veto_used: bool = False
    #: solo: the automaton's action index vetoed this turn
    vetoed: int | None = None
    #: each candidate's draw pile, top first
    piles: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    #: how many cards at the bottom of each pile were slid there (and are known to whoever slid them)
    known: tuple[int, int] = (0, 0)
    #: the cards drawn this turn by the candidate to move
    hand: tuple[str, ...] = ()
    #: the card being played, between its announcement and its placement
    played: str | None = None
    #: the discard pile, oldest first
    discard: tuple[str, ...] = ()
    #: Power Erosion in front of each candidate, oldest first
    erosion: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    #: solo: Event cards removed from the game
    removed: tuple[str, ...] = ()
    #: the Electoral Campaign pile (unordered: it is shuffled after every draw)
    camp_pile: tuple[str, ...] = ()
    camp_drawn: tuple[str, ...] = ()
    camp_drawer: int | None = None
    camp_removed: tuple[str, ...] = ()
    camp_applied: tuple[str, ...] = ()
    #: candidates owed a campaign draw, first owed first
    camp_pending: tuple[int, ...] = ()
    camp_draws: int = 0
    #: the erosion counts (2, 4) already reached by each candidate
    thresholds: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())
    #: the last turn played and the last campaign card applied, for the view (plain data, never mutated)
    last: dict[str, Any] | None = None
    last_campaign: dict[str, Any] | None = None
    #: which of the two the token moves being made belong to
    recording: str = "turn"
    winner: int | None = None
    reason: str | None = None
    ended_by: str | None = None
    #: solo, variant ``solo=hard``: the automaton draws Electoral Campaign cards, no veto (its
    #: longer rows are in ``row_length``, from the setup); from the header, so left out of the
    #: digests (see ``canonical``)
    solo_hard: bool = False

    @property
    def automaton(self) -> int | None:
        if not self.solo:
            return None
        return CHIRAC if self.seats[CHIRAC] is None else MITTERRAND

    @property
    def human(self) -> int | None:
        """Solo: the human's candidate."""
        a = self.automaton
        return None if a is None else other(a)

    @property
    def solo_automaton(self) -> int:
        """The automaton's candidate, in a solo game (the rules ask only there)."""
        a = self.automaton
        if a is None:
            raise ValueError("a game of two players has no automated opponent")
        return a

    @property
    def solo_human(self) -> int:
        """The human's candidate, in a solo game (the rules ask only there)."""
        return other(self.solo_automaton)

    @property
    def drawer(self) -> int:
        """The candidate drawing Electoral Campaign cards, in the campaign phase."""
        c = self.camp_drawer
        if c is None:
            raise ValueError("nobody draws Electoral Campaign cards now")
        return c

    def candidate_of(self, seat: int) -> int | None:
        for c in (CHIRAC, MITTERRAND):
            if self.seats[c] == seat:
                return c
        return None

    def label(self, c: int) -> str:
        """``"Chirac (Alice)"``."""
        return f"{C.CANDIDATE_SHORT[SIDES[c]]} ({self.names[c]})"


# -- pure rule helpers (also used by the bot) ------------------------------------------


def push(pos: int, c: int, length: int) -> int | None:
    """Where a token at ``pos`` goes when candidate ``c`` pushes it one
    step, or None when it is already at that candidate's end."""
    to = pos + DIRECTION[c]
    return to if -length <= to <= length else None


def ahead(rows: tuple[int, ...] | list[int]) -> tuple[int, int]:
    """(qualities where Chirac is ahead, where Mitterrand is); a token at the centre counts for nobody."""
    return sum(1 for p in rows if p > 0), sum(1 for p in rows if p < 0)


def election_winner(rows: tuple[int, ...] | list[int], media: int) -> int:
    """The candidate ahead in more qualities; on a tie, the holder of the Media token."""
    chirac, mitterrand = ahead(rows)
    if chirac != mitterrand:
        return CHIRAC if chirac > mitterrand else MITTERRAND
    return media


def action_qualities(action: C.Action, choices: list[str] | tuple[str, ...]) -> list[str]:
    """The qualities an action moves, its choice icons filled in order from ``choices``."""
    picks = iter(choices)
    return [next(picks) if icon == C.CHOICE else icon for icon in action.icons]


def choice_count(action: C.Action) -> int:
    return sum(1 for icon in action.icons if icon == C.CHOICE)


def automaton_actions(card: str, c: int, eroded: int) -> tuple[list[int], bool]:
    """The actions of its card the automaton benefits from, and whether it
    skips its own action because that would be its sixth Power Erosion."""
    own = C.OWN_COLOUR[SIDES[c]]
    used, skipped = [], False
    for i, action in enumerate(C.actions(card)):
        if action.colour == "white":
            used.append(i)
        elif action.colour == own:
            if eroded + 1 >= EROSION_LIMIT:
                skipped = True
            else:
                used.append(i)
    return used, skipped


def last_round_due(lengths: tuple[int, int] | list[int]) -> bool:
    """Two players: a round starting with piles of these sizes is the final one."""
    return all(n <= HAND for n in lengths)


def slid_draws(lengths: tuple[int, int] | list[int], mover: int, final: bool) -> tuple[int | None, int | None]:
    """Two players, in ``mover``'s turn (his hand drawn, his piles at ``lengths``): in which
    of his opponent's draws to come each of the two cards he slides under the opponent's
    pile will be drawn (1: the opponent's next), None for never.

    Cards only ever go under a pile and every draw takes the top three, so where a card
    slid now comes up is known: the order of the two matters only when they come up in
    different draws, or one of them never does."""
    onto = other(mover)
    sizes = list(lengths)
    sizes[onto] += 2
    positions: list[int | None] = [sizes[onto] - 2, sizes[onto] - 1]
    drawn: list[int | None] = [None, None]
    draws = 0
    while any(p is not None for p in positions):
        if mover == MITTERRAND:
            if final:
                break  # the final round is over: the election
            final = last_round_due(sizes)
        mover = other(mover)
        count = min(HAND, sizes[mover])
        if not count:
            break  # an empty pile ends the game (the rules never build one)
        sizes[mover] -= count
        sizes[other(mover)] += count - 1
        if mover == onto:
            draws += 1
            for i, pos in enumerate(positions):
                if pos is not None and pos < count:
                    drawn[i], positions[i] = draws, None
                elif pos is not None:
                    positions[i] = pos - count
    return drawn[0], drawn[1]


def quality_index(q: str) -> int:
    return C.QUALITIES.index(q)


def _nth(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


def _and(words: list[str]) -> str:
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


# -- the game ---------------------------------------------------------------------------


#: the fields a checkpoint digests: every one but ``solo_hard``, so that the
#: saves made before it existed keep their digests (the header stores the level)
DIGESTED_FIELDS = tuple(sorted(f for f in State.__dataclass_fields__ if f != "solo_hard"))


class ChiracMitterrand(Game):
    id = "chirac-mitterrand"
    title = "1988: Chirac contre Mitterrand"
    min_players = 1
    max_players = 2
    rules_version = 1
    variants = (
        Variant(
            "campaign",
            "Electoral Campaign cards",
            ("second", "first"),
            C.DEFAULT_SET,
            "second: six of the nine cards redesigned so that each is a real choice; "
            "first: the nine cards of Cabinet's first design (games saved before the second set use them)",
        ),
        Variant(
            "solo",
            "Solo difficulty",
            SOLO_LEVELS,
            "standard",
            "solo games only. standard: the rulebook's automated opponent, which never draws Electoral "
            "Campaign cards; hard (a house rule): it draws three when you receive your second and fourth "
            "Power Erosion and applies one at random, you have no veto, and the rows are six squares a side",
            players=(1,),
        ),
    )
    seat_options = (
        SeatOption(
            "candidate",
            "Candidate",
            C.CANDIDATES,
            unique=True,
            labels=tuple(C.CANDIDATE_NAMES[c] for c in C.CANDIDATES),
        ),
    )
    bot_classes: ClassVar[dict[str, str]] = {"easy": "core.games.chirac_mitterrand.bot:HeuristicBot"}
    #: moves the search bot simulates a decision (bench/search.py, docs/BOTS.md)
    search_budget: ClassVar[dict[str, int]] = {"normal": 500, "hard": 1_600}

    # -- table ---------------------------------------------------------------------

    def canonical(self, state: State) -> list[Any]:
        """The state as digests see it: the record's fields in the order a record
        is packed, without ``solo_hard``, so that the digests are the bytes
        they were before the field existed and older saves still verify; it comes
        from the header's variants, which a save stores already."""
        return [getattr(state, name) for name in DIGESTED_FIELDS]

    def initial(self, config: dict[str, Any]) -> State:
        seats = config["seats"]
        players = config["players"]
        if not 1 <= players <= 2 or len(seats) != players:
            raise ConfigError(f"{self.title} is played by 1 or 2 players.")
        names: list[str] = ["Automaton", "Automaton"]
        seat_of: list[int | None] = [None, None]
        for i, s in enumerate(seats):
            c = side_index(s.get("candidate", SIDES[i]))
            if seat_of[c] is not None:
                raise ConfigError("Both seats cannot play the same candidate.")
            seat_of[c] = i
            names[c] = s.get("name", f"Player {i + 1}")
        arranged = config.get("arranged") or {}
        draws = tuple(tuple(d) for d in arranged.get("campaign", ()))
        self._campaign_set(config)  # a ConfigError for an unknown set
        level = (config.get("variants") or {}).get("solo", "standard")
        if level not in SOLO_LEVELS:
            raise ConfigError(f"Unknown solo difficulty {level!r}.")
        return State(
            names=(names[0], names[1]),
            seats=(seat_of[0], seat_of[1]),
            solo=players == 1,
            arranged_campaign=draws,
            solo_hard=players == 1 and level == "hard",
        )

    def setup(self, config: dict[str, Any], rng: random.Random) -> list[Event]:
        state = self.initial(config)
        arranged = config.get("arranged") or {}
        if state.solo:
            piles, discard = self._solo_deal(state, arranged, rng)
            cards = C.campaign_set(self._campaign_set(config))
            debate = C.debate_of(cards)
            campaign = [c for c in cards if c != debate]
            out = [debate]
        else:
            piles, discard = self._deal(arranged, rng)
            campaign = list(C.campaign_set(self._campaign_set(config)))
            out = []
        first = {
            "t": "GameSetUp",
            "solo": state.solo,
            "names": {SIDES[c]: state.names[c] for c in (CHIRAC, MITTERRAND)},
            "automaton": None if state.automaton is None else SIDES[state.automaton],
            "piles": {SIDES[c]: piles[c] for c in (CHIRAC, MITTERRAND)},
            "discard": discard,
            "campaign": campaign,
            "campaign_removed": out,
            "media": SIDES[MITTERRAND],
            "row_length": C.HARD_SOLO_ROW_LENGTH if state.solo_hard else C.ROW_LENGTH,
        }
        if state.solo_hard:
            first["hard"] = True  # for the history line only: the header holds the level
        return [first] + self._auto(self.evolve(state, first), rng)

    @staticmethod
    def _campaign_set(config: dict[str, Any]) -> str:
        """The set of Campaign cards the config asks for.  A header without the
        key was written before the second set existed: its game played the first.
        (The state keeps no field for it: a new field would change the positions
        old saves recorded; the cards laid out at setup say which set it is.)"""
        chosen = (config.get("variants") or {}).get("campaign", C.OLD_SET)
        if chosen not in C.CAMPAIGN_SETS:
            raise ConfigError(f"Unknown set of Electoral Campaign cards {chosen!r}.")
        return chosen

    def _deal(self, arranged: dict[str, Any], rng: random.Random) -> tuple[list[list[str]], list[str]]:
        if arranged.get("chirac") is not None:
            piles = [list(arranged["chirac"]), list(arranged["mitterrand"])]
            discard = list(arranged.get("discard") or ())
            if sorted(piles[0] + piles[1] + discard) != sorted(C.EVENT_IDS):
                raise ConfigError("The arranged piles and discard must hold the 24 Event cards, each once.")
            if len(piles[0]) != PILE or len(piles[1]) != PILE:
                raise ConfigError("Each arranged pile must hold 10 cards.")
            return piles, discard
        deck = list(C.EVENT_IDS)
        rng.shuffle(deck)
        discard = deck[:DISCARD_AT_START]
        rest = deck[DISCARD_AT_START:]
        return [rest[:PILE], rest[PILE:]], discard

    def _solo_deal(
        self, state: State, arranged: dict[str, Any], rng: random.Random
    ) -> tuple[list[list[str]], list[str]]:
        a = state.solo_automaton
        piles: list[list[str]]
        if arranged.get("chirac") is not None:
            piles = [list(arranged["chirac"]), list(arranged["mitterrand"])]
            if sorted(piles[0] + piles[1]) != sorted(C.EVENT_IDS) or arranged.get("discard"):
                raise ConfigError("The arranged solo piles must hold the 24 Event cards, each once.")
            kinds = sorted(C.kind(card) for card in piles[a])
            if kinds != sorted(SOLO_KINDS * SOLO_PER_KIND):
                raise ConfigError("The automated opponent's arranged pile must hold two cards of each kind.")
            return piles, []
        theirs: list[str] = []
        for k in SOLO_KINDS:
            group = [card for card in C.EVENT_IDS if C.kind(card) == k]
            theirs += rng.sample(group, SOLO_PER_KIND)
        rng.shuffle(theirs)
        mine = [card for card in C.EVENT_IDS if card not in theirs]
        rng.shuffle(mine)
        piles = [[], []]
        piles[a] = theirs
        piles[other(a)] = mine
        return piles, []

    # -- the automatic steps --------------------------------------------------------

    def _auto(self, state: State, rng: random.Random) -> list[Event]:
        """Every automatic event from here until a seat must choose."""
        out: list[Event] = []
        while True:
            batch = self._next_auto(state, rng)
            if not batch:
                return out
            for ev in batch:
                out.append(ev)
                state = self.evolve(state, ev)

    def _next_auto(self, s: State, rng: random.Random) -> list[Event]:
        phase = s.phase
        if phase == "start":
            if s.camp_pending:
                return [self._campaign_draw(s, rng)]
            if s.final and s.turn > 0 and s.to_move == MITTERRAND:
                return [self._election_end(s)]
            c = CHIRAC if s.turn == 0 or s.to_move == MITTERRAND else MITTERRAND
            final = s.final
            if c == CHIRAC and s.turn > 0:
                final = self._final_round_due(s)
            if not s.piles[c]:
                # cannot happen with the piles the rules build; a safe end if it ever did
                return [self._election_end(s)]
            return [
                {
                    "t": "TurnStarted",
                    "turn": s.turn + 1,
                    "round": s.turn // 2 + 1,
                    "by": SIDES[c],
                    "name": s.names[c],
                    "final": final,
                }
            ]
        if phase == "draw":
            c = s.to_move
            n = self._draw_count(s, c)
            cards = list(s.piles[c][:n])
            return [
                {
                    "t": "CardsDrawn",
                    "by": SIDES[c],
                    "name": s.names[c],
                    "seat": s.seats[c],
                    "public": s.solo and c == s.automaton,
                    "cards": cards,
                    "count": len(cards),
                }
            ]
        if phase == "automaton":
            return self._automaton_turn(s, rng)
        if phase == "campaign" and s.solo and s.camp_drawer == s.automaton:
            return self._automaton_campaign(s, rng)
        return []

    def _final_round_due(self, s: State) -> bool:
        if s.solo:
            h, a = s.solo_human, s.solo_automaton
            return len(s.piles[h]) <= SOLO_FINAL[0] and len(s.piles[a]) <= SOLO_FINAL[1]
        return last_round_due([len(p) for p in s.piles])

    def _draw_count(self, s: State, c: int) -> int:
        if s.solo and c == s.automaton:
            return 1
        if s.solo and s.final:
            return SOLO_FINAL[0]
        return HAND

    def _election_end(self, s: State) -> Event:
        winner = election_winner(s.rows, s.media)
        chirac, mitterrand = ahead(s.rows)
        return {
            "t": "GameEnded",
            "by": "election",
            "winner": SIDES[winner],
            "name": s.names[winner],
            "automaton": s.solo and winner == s.automaton,
            "ahead": {"chirac": chirac, "mitterrand": mitterrand},
            "media": SIDES[s.media],
            "tie": chirac == mitterrand,
        }

    def _erosion_end(self, s: State) -> Event | None:
        for c in (CHIRAC, MITTERRAND):
            if len(s.erosion[c]) >= EROSION_LIMIT:
                winner = other(c)
                return {
                    "t": "GameEnded",
                    "by": "erosion",
                    "winner": SIDES[winner],
                    "name": s.names[winner],
                    "loser": SIDES[c],
                    "loser_name": s.names[c],
                    "automaton": s.solo and winner == s.automaton,
                }
        return None

    # -- resolving steps (tokens, bonuses, erosion) ---------------------------------

    def _resolve(self, s: State, steps: list[Step], rng: random.Random) -> tuple[list[Event], State]:
        """The events of a list of steps, each applied before the next is
        worked out; stops at once when a sixth Power Erosion ends the game."""
        out: list[Event] = []
        for step in steps:
            ev = self._step_event(s, step, rng)
            if ev is None:
                continue
            out.append(ev)
            s = self.evolve(s, ev)
            end = self._erosion_end(s)
            if end is not None:
                out.append(end)
                s = self.evolve(s, end)
                break
        return out, s

    def _step_event(self, s: State, step: Step, rng: random.Random) -> Event | None:
        kind, c = step[0], step[1]
        if kind == "icon":
            q = step[2]
            qi = quality_index(q)
            pos = s.rows[qi]
            to = push(pos, c, s.row_length)
            if to is not None:
                return {"t": "TokenMoved", "by": SIDES[c], "quality": q, "from": pos, "to": to}
            return self._row_end_bonus(s, c, q, rng)
        if kind == "centre":
            q = step[2]
            qi = quality_index(q)
            pos = s.rows[qi]
            return {"t": "TokenMoved", "by": SIDES[c], "quality": q, "from": pos, "to": pos + DIRECTION[c]}
        if kind == "media":
            if s.media == c:
                return None
            return {"t": "MediaTaken", "by": SIDES[c], "name": s.names[c], "quality": None}
        if kind == "media_to_trailer":
            # the debate: the candidate who comes out of it ahead in fewer qualities gets the Media token
            counts = ahead(s.rows)
            if counts[0] == counts[1]:  # noqa: SIM108 - as one expression, two conditions nested
                trailer = c  # level: the token goes to the candidate who drew the debate
            else:
                trailer = CHIRAC if counts[0] < counts[1] else MITTERRAND
            if s.media == trailer:
                return None
            return {"t": "MediaTaken", "by": SIDES[trailer], "name": s.names[trailer], "quality": None}
        if kind == "inflict":
            return self._inflict(s, c, None, rng)
        if kind == "relief":
            card = s.erosion[c][-1]
            count = len(s.erosion[c]) - 1
            return {"t": "ErosionRelieved", "by": SIDES[c], "name": s.names[c], "card": card, "count": count}
        if kind == "place":
            card, own = step[2], step[3]
            if own:
                count = len(s.erosion[c]) + 1
                return {"t": "ErosionTaken", "by": SIDES[c], "name": s.names[c], "card": card, "count": count}
            return {"t": "CardDiscarded", "by": SIDES[c], "name": s.names[c], "card": card}
        if kind == "remove":
            return {"t": "CardRemoved", "by": SIDES[c], "name": s.names[c], "card": step[2]}
        if kind == "slide":
            onto, cards = step[2], list(step[3])
            if not cards:
                return None
            return {
                "t": "CardsSlid",
                "by": SIDES[c],
                "name": s.names[c],
                "onto": SIDES[onto],
                "onto_name": s.names[onto],
                "seat": s.seats[c],
                "cards": cards,
                "count": len(cards),
            }
        raise ValueError(f"unknown step {kind}")

    def _row_end_bonus(self, s: State, c: int, q: str, rng: random.Random) -> Event:
        """A token already at the mover's end: the Media token, or else a Power Erosion for the opponent."""
        if s.media != c:
            return {"t": "MediaTaken", "by": SIDES[c], "name": s.names[c], "quality": q}
        return self._inflict(s, c, q, rng)

    def _inflict(self, s: State, c: int, q: str | None, rng: random.Random) -> Event:
        target = other(c)
        if not s.discard:
            return {"t": "BonusLost", "by": SIDES[c], "name": s.names[c], "quality": q, "on": SIDES[target]}
        card = s.discard[rng.randrange(len(s.discard))]
        return {
            "t": "ErosionInflicted",
            "by": SIDES[c],
            "name": s.names[c],
            "on": SIDES[target],
            "on_name": s.names[target],
            "card": card,
            "quality": q,
            "count": len(s.erosion[target]) + 1,
        }

    # -- the automaton (solo) ----------------------------------------------------------

    def _automaton_turn(self, s: State, rng: random.Random) -> list[Event]:
        a = s.solo_automaton
        (card,) = s.hand
        used, skipped = automaton_actions(card, a, len(s.erosion[a]))
        applied = [i for i in used if i != s.vetoed]
        qualities: list[str] = []
        picks: list[str] = []
        for i in applied:
            for icon in C.actions(card)[i].icons:
                if icon == C.CHOICE:
                    q = C.QUALITIES[rng.randrange(len(C.QUALITIES))]
                    picks.append(q)
                    qualities.append(q)
                else:
                    qualities.append(icon)
        own_used = any(C.actions(card)[i].colour != "white" for i in used)
        first = {
            "t": "AutomatonPlayed",
            "by": SIDES[a],
            "name": s.names[a],
            "card": card,
            "actions": applied,
            "vetoed": s.vetoed,
            "skipped_own": skipped,
            "choices": picks,
        }
        s1 = self.evolve(s, first)
        steps: list[Step] = [("icon", a, q) for q in qualities]
        steps.append(("place", a, card, own_used))
        events, _ = self._resolve(s1, steps, rng)
        return [first] + events

    def _automaton_campaign(self, s: State, rng: random.Random) -> list[Event]:
        """Solo, ``solo=hard``: the automaton applies the first of the cards it drew
        (they came in a random order), a quality drawn at random if the card needs
        one, removes the second and puts the third back."""
        a = s.solo_automaton
        drawn = list(s.camp_drawn)
        apply, remove, returned = drawn[0], (drawn[1] if len(drawn) > 1 else None), drawn[2:]
        quality = C.QUALITIES[rng.randrange(len(C.QUALITIES))] if self.campaign_needs_quality(s, apply) else None
        first = self._campaign_applied(s, None, apply, remove, returned, quality)
        first["public"] = True
        s1 = self.evolve(s, first)
        events, _ = self._resolve(s1, self.campaign_steps(s1, a, apply, quality), rng)
        return [first] + events

    def _campaign_applied(
        self, s: State, seat: int | None, apply: str, remove: str | None, returned: list[str], quality: str | None
    ) -> Event:
        c = s.drawer
        return {
            "t": "CampaignApplied",
            "by": SIDES[c],
            "name": s.names[c],
            "seat": seat,
            "applied": apply,
            "removed": remove,
            "returned": returned,
            "count_returned": len(returned),
            "quality": quality,
            "back": C.campaign(apply).returns,
        }

    def _veto_possible(self, s: State) -> bool:
        a = s.solo_automaton
        if s.veto_used or s.solo_hard or len(s.hand) != 1:
            return False
        used, _ = automaton_actions(s.hand[0], a, len(s.erosion[a]))
        return any(C.actions(s.hand[0])[i].colour == "white" for i in used)

    # -- the campaign --------------------------------------------------------------------

    def _campaign_draw(self, s: State, rng: random.Random) -> Event:
        c = s.camp_pending[0]
        pile = sorted(s.camp_pile)
        n = min(3, len(pile))
        arranged = s.arranged_campaign[s.camp_draws] if s.camp_draws < len(s.arranged_campaign) else ()
        if arranged and len(arranged) == n and all(card in pile for card in arranged) and len(set(arranged)) == n:
            drawn = list(arranged)
        else:
            drawn = rng.sample(pile, n)
        event = {
            "t": "CampaignDrawn",
            "by": SIDES[c],
            "name": s.names[c],
            "seat": s.seats[c],
            "cards": drawn,
            "count": n,
        }
        if s.solo and c == s.automaton:
            event["public"] = True  # the automaton draws face up, as it turns its Event cards
        return event

    @staticmethod
    def campaign_needs_quality(s: State, card: str) -> bool:
        """Does applying this card now take a quality?  *Les sondages* of the
        second set names one only when no token stands on the centre square."""
        c = C.campaign(card)
        if c.effect == "poll_centre":
            return all(abs(pos) > 1 for pos in s.rows)
        return c.choice

    def campaign_steps(self, s: State, c: int, card: str, quality: str | None) -> list[Step]:
        """The steps a Campaign card's effect takes for candidate ``c``."""
        effect = C.campaign(card).effect
        # the second set
        if effect == "media2":
            return [("media", c)] if s.media != c else [("icon", c, "charisma"), ("icon", c, "charisma")]
        if effect == "unite2":
            d = DIRECTION[c]
            steps = []
            for q, pos in zip(C.QUALITIES, s.rows, strict=True):
                if pos * d < 0:
                    steps += [("centre", c, q)] * min(2, abs(pos))
            return steps
        if effect == "relief_step":
            return ([("relief", c)] if s.erosion[c] else []) + [("icon", c, quality)]
        if effect == "lepen":
            mine, theirs = ahead(s.rows)[c], ahead(s.rows)[other(c)]
            return [("inflict", c)] * (2 if theirs > mine else 1)
        if effect == "debate_even":
            return [("icon", c, quality), ("icon", c, quality), ("media_to_trailer", c)]
        if effect == "poll_centre":
            centre = [q for q, pos in zip(C.QUALITIES, s.rows, strict=True) if abs(pos) <= 1]
            return [("icon", c, q) for q in centre] if centre else [("icon", c, quality)]
        # both sets
        if effect == "media":
            return [("media", c)] if s.media != c else [("icon", c, "charisma")]
        if effect == "relief":
            return [("relief", c)] if s.erosion[c] else [("icon", c, "courage")]
        if effect == "charisma2":
            return [("icon", c, "charisma"), ("icon", c, "charisma")]
        if effect == "unite":
            d = DIRECTION[c]
            return [("centre", c, q) for q, pos in zip(C.QUALITIES, s.rows, strict=True) if pos * d < 0]
        if effect == "letter":
            return [("icon", c, "integrity"), ("icon", c, quality)]
        if effect == "first_round":
            return [("icon", c, "courage"), ("icon", c, "charisma")]
        if effect == "erosion":
            return [("inflict", c)]
        if effect == "debate":
            return [("icon", c, quality), ("icon", c, quality), ("media", c)]
        if effect == "poll":
            return [("icon", c, quality)]
        raise ValueError(f"unknown campaign effect {effect}")

    # -- commands ----------------------------------------------------------------------

    command_shapes = shapes(
        shape(
            "PlayCard",
            card=text(C.EVENT_IDS, what="Event card"),
            action=whole(0, 1, say="Choose the card's first or second action (0 or 1)."),
            under=items(
                text(C.EVENT_IDS, what="Event card"),
                0,
                HAND - 1,
                say="Say in which order your other cards go under the pile.",
            ),
            remove=text(C.EVENT_IDS, what="Event card", default=None),
            choices=items(
                text(C.QUALITIES, what="quality"),
                0,
                max(choice_count(a) for e in C.EVENT_IDS for a in C.actions(e)),
                default=[],
            ),
        ),
        shape(
            "Campaign",
            apply=text(C.ALL_CAMPAIGN_IDS, what="Electoral Campaign card"),
            remove=text(C.ALL_CAMPAIGN_IDS, what="Electoral Campaign card", default=None, keep=True),
            quality=text(C.QUALITIES, what="quality", default=None),
        ),
        shape("Veto", action=whole(0, 1, say="Choose which action of the card you veto (0 or 1).")),
        shape("Allow"),
    )

    def decide(self, state: State, seat: int, command: Command, rng: random.Random) -> list[Event]:
        s = state
        command = self.refuse_out_of_turn(s, seat, command)
        handler = {"play": self._decide_play, "campaign": self._decide_campaign, "veto": self._decide_veto}[s.phase]
        events, after = handler(s, seat, command, rng)
        return events + self._auto(after, rng)

    _EXPECTED: ClassVar[dict[str, str]] = {
        "play": "Play one of your cards.",
        "campaign": "Apply one of your Electoral Campaign cards and remove another.",
        "veto": "Veto a neutral action of the automated opponent's card, or let it apply.",
    }

    def waiting_for(self, s: State) -> str:
        if s.phase == "play":
            return f"It is {s.label(s.to_move)}'s turn to play."
        if s.phase == "campaign":
            return f"{s.label(s.drawer)} is choosing an Electoral Campaign card."
        if s.phase == "veto":
            return "The automated opponent's card is waiting for the veto decision."
        return "Nobody can move now."

    def _expect(self, s: State, command: Command, *kinds: str) -> None:
        if command["t"] not in kinds:
            raise IllegalCommand(f"Not now: {self._EXPECTED[s.phase]}")

    def _check_choices(self, action: C.Action, command: Command) -> list[str]:
        need = choice_count(action)
        choices = command.get("choices", [])
        if len(choices) != need:
            if need == 0:
                raise IllegalCommand("This action lets you choose no quality.")
            what = "a quality" if need == 1 else f"{need} qualities"
            raise IllegalCommand(f"Choose {what} for the choice icon of this action.")
        return list(choices)

    def _decide_play(self, s: State, seat: int, command: Command, rng: random.Random) -> tuple[list[Event], State]:
        self._expect(s, command, "PlayCard")
        c = s.to_move
        card = command["card"]
        if card not in s.hand:
            raise IllegalCommand(f"{C.event(card).name} is not in your hand.")
        index = command["action"]
        action = C.actions(card)[index]
        if not C.may_use(SIDES[c], action):
            owner = "Chirac" if action.colour == "blue" else "Mitterrand"
            raise IllegalCommand(f"That action is {owner}'s own: only {owner} may choose it.")
        choices = self._check_choices(action, command)
        rest = [x for x in s.hand if x != card]
        under = command["under"]
        remove = command.get("remove")
        if s.solo:
            if remove not in rest:
                raise IllegalCommand("Choose one of your other cards to remove from the game.")
            left = [x for x in rest if x != remove]
            if sorted(under) != sorted(left):
                raise IllegalCommand("The card you neither play nor remove goes under your own pile.")
        else:
            if remove is not None:
                raise IllegalCommand(
                    "Only the solo game removes a card: both of your other cards go under your opponent's pile."
                )
            if sorted(under) != sorted(rest) or len(set(under)) != len(under):
                raise IllegalCommand("Both of your other cards go under your opponent's pile, in the order you choose.")
        qualities = action_qualities(action, choices)
        first = {
            "t": "CardPlayed",
            "by": SIDES[c],
            "name": s.names[c],
            "seat": seat,
            "card": card,
            "action": index,
            "colour": action.colour,
            "choices": choices,
        }
        s1 = self.evolve(s, first)
        steps: list[Step] = [("icon", c, q) for q in qualities]
        steps.append(("place", c, card, action.colour != "white"))
        if s.solo:
            steps.append(("remove", c, remove))
            steps.append(("slide", c, c, under))
        else:
            steps.append(("slide", c, other(c), under))
        events, after = self._resolve(s1, steps, rng)
        return [first] + events, after

    def _decide_campaign(self, s: State, seat: int, command: Command, rng: random.Random) -> tuple[list[Event], State]:
        self._expect(s, command, "Campaign")
        c = s.drawer
        apply = command["apply"]
        if apply not in s.camp_drawn:
            raise IllegalCommand("Apply one of the Electoral Campaign cards you drew.")
        rest = [x for x in s.camp_drawn if x != apply]
        remove = command["remove"]
        if rest and remove not in rest:
            raise IllegalCommand("Remove one of the other Electoral Campaign cards you drew from the game.")
        if not rest and remove is not None:
            raise IllegalCommand("You drew no other Electoral Campaign card to remove.")
        card = C.campaign(apply)
        quality = command.get("quality")
        if self.campaign_needs_quality(s, apply):
            if quality not in C.QUALITIES:
                raise IllegalCommand(f"{card.name} needs a quality: charisma, courage or integrity.")
        elif quality is not None:
            raise IllegalCommand(f"{card.name} lets you choose no quality.")
        returned = [x for x in rest if x != remove]
        first = self._campaign_applied(s, seat, apply, remove, returned, quality)
        s1 = self.evolve(s, first)
        events, after = self._resolve(s1, self.campaign_steps(s1, c, apply, quality), rng)
        return [first] + events, after

    def _decide_veto(self, s: State, seat: int, command: Command, rng: random.Random) -> tuple[list[Event], State]:
        self._expect(s, command, "Veto", "Allow")
        a = s.solo_automaton
        card = s.hand[0]
        h = s.solo_human
        if command["t"] == "Allow":
            ev = {"t": "VetoDeclined", "by": SIDES[h], "name": s.names[h], "card": card}
            return [ev], self.evolve(s, ev)
        index = command["action"]
        used, _ = automaton_actions(card, a, len(s.erosion[a]))
        if C.actions(card)[index].colour != "white":
            raise IllegalCommand("Only a neutral action of the automated opponent can be vetoed.")
        if index not in used:
            raise IllegalCommand("That action does not apply this turn.")
        ev = {"t": "VetoUsed", "by": SIDES[h], "name": s.names[h], "card": card, "action": index}
        return [ev], self.evolve(s, ev)

    # -- evolve ------------------------------------------------------------------------

    def evolve(self, state: State, event: Event) -> State:
        return getattr(self, "_on_" + event["t"])(state, event)

    def _on_GameSetUp(self, s: State, ev: Event) -> State:
        return revise(
            s,
            phase="start",
            row_length=ev["row_length"],
            piles=(tuple(ev["piles"]["chirac"]), tuple(ev["piles"]["mitterrand"])),
            discard=tuple(ev["discard"]),
            camp_pile=tuple(sorted(ev["campaign"])),
            camp_removed=tuple(ev["campaign_removed"]),
            media=side_index(ev["media"]),
        )

    def _on_TurnStarted(self, s: State, ev: Event) -> State:
        c = side_index(ev["by"])
        return revise(s, phase="draw", turn=ev["turn"], to_move=c, final=ev["final"], vetoed=None, hand=())

    def _on_CardsDrawn(self, s: State, ev: Event) -> State:
        c = side_index(ev["by"])
        n = ev["count"]
        piles = list(s.piles)
        piles[c] = piles[c][n:]
        known = list(s.known)
        known[c] = min(known[c], len(piles[c]))
        s = revise(s, piles=tuple(piles), known=tuple(known), hand=tuple(ev["cards"]))
        if s.solo and c == s.automaton:
            return revise(s, phase="veto" if self._veto_possible(s) else "automaton")
        return revise(s, phase="play")

    def _on_CardPlayed(self, s: State, ev: Event) -> State:
        c = side_index(ev["by"])
        hand = tuple(x for x in s.hand if x != ev["card"])
        last = {
            "by": ev["by"],
            "card": ev["card"],
            "action": ev["action"],
            "actions": [ev["action"]],
            "choices": list(ev["choices"]),
            "moves": [],
            "turn": s.turn,
        }
        return revise(s, hand=hand, played=ev["card"], phase="start", last=last, to_move=c, recording="turn")

    def _on_AutomatonPlayed(self, s: State, ev: Event) -> State:
        last = {
            "by": ev["by"],
            "card": ev["card"],
            "action": None,
            "actions": list(ev["actions"]),
            "choices": list(ev["choices"]),
            "vetoed": ev["vetoed"],
            "skipped_own": ev["skipped_own"],
            "moves": [],
            "turn": s.turn,
            "automaton": True,
        }
        return revise(s, hand=(), played=ev["card"], phase="start", last=last, recording="turn")

    def _moved(self, s: State, move: dict[str, Any]) -> State:
        """Add a move to the record being made: the turn's or the campaign card's."""
        key = "last_campaign" if s.recording == "campaign" else "last"
        record = getattr(s, key)
        if record is None:
            return s
        record = dict(record)
        record["moves"] = list(record["moves"]) + [move]
        return revise(s, **{key: record})

    def _on_TokenMoved(self, s: State, ev: Event) -> State:
        rows = list(s.rows)
        rows[quality_index(ev["quality"])] = ev["to"]
        move = {"quality": ev["quality"], "from": ev["from"], "to": ev["to"], "by": ev["by"]}
        return self._moved(revise(s, rows=tuple(rows)), move)

    def _on_MediaTaken(self, s: State, ev: Event) -> State:
        move = {"quality": ev["quality"], "bonus": "media", "by": ev["by"]}
        return self._moved(revise(s, media=side_index(ev["by"])), move)

    def _erosion_added(self, s: State, target: int, card: str) -> State:
        erosion = list(s.erosion)
        erosion[target] = erosion[target] + (card,)
        count = len(erosion[target])
        s = revise(s, erosion=tuple(erosion))
        if count in CAMPAIGN_AT and count not in s.thresholds[target]:
            thresholds = list(s.thresholds)
            thresholds[target] = thresholds[target] + (count,)
            s = revise(s, thresholds=tuple(thresholds))
            drawer = other(target)
            # the rulebook's automaton never draws campaign cards; the hard one does
            if not (s.solo and drawer == s.automaton) or s.solo_hard:
                s = revise(s, camp_pending=s.camp_pending + (drawer,))
        return s

    def _on_ErosionInflicted(self, s: State, ev: Event) -> State:
        target = side_index(ev["on"])
        discard = list(s.discard)
        discard.remove(ev["card"])
        s = revise(s, discard=tuple(discard))
        move = {"quality": ev["quality"], "bonus": "erosion", "card": ev["card"], "by": ev["by"]}
        return self._erosion_added(self._moved(s, move), target, ev["card"])

    def _on_BonusLost(self, s: State, ev: Event) -> State:
        move = {"quality": ev["quality"], "bonus": "none", "by": ev["by"]}
        return self._moved(s, move)

    def _on_ErosionTaken(self, s: State, ev: Event) -> State:
        return self._erosion_added(revise(s, played=None), side_index(ev["by"]), ev["card"])

    def _on_ErosionRelieved(self, s: State, ev: Event) -> State:
        c = side_index(ev["by"])
        erosion = list(s.erosion)
        mine = list(erosion[c])
        mine.remove(ev["card"])
        erosion[c] = tuple(mine)
        return revise(s, erosion=tuple(erosion), discard=s.discard + (ev["card"],))

    def _on_CardDiscarded(self, s: State, ev: Event) -> State:
        return revise(s, discard=s.discard + (ev["card"],), played=None)

    def _on_CardRemoved(self, s: State, ev: Event) -> State:
        return revise(s, hand=tuple(x for x in s.hand if x != ev["card"]), removed=s.removed + (ev["card"],))

    def _on_CardsSlid(self, s: State, ev: Event) -> State:
        onto = side_index(ev["onto"])
        cards = tuple(ev["cards"])
        piles = list(s.piles)
        piles[onto] = piles[onto] + cards
        known = list(s.known)
        known[onto] += len(cards)
        hand = tuple(x for x in s.hand if x not in cards)
        return revise(s, piles=tuple(piles), known=tuple(known), hand=hand)

    def _on_VetoUsed(self, s: State, ev: Event) -> State:
        return revise(s, veto_used=True, vetoed=ev["action"], phase="automaton")

    def _on_VetoDeclined(self, s: State, ev: Event) -> State:
        return revise(s, phase="automaton")

    def _on_CampaignDrawn(self, s: State, ev: Event) -> State:
        c = side_index(ev["by"])
        drawn = tuple(ev["cards"])
        pile = tuple(x for x in s.camp_pile if x not in drawn)
        pending = s.camp_pending[1:]
        if not drawn:
            return revise(s, camp_pending=pending)
        return revise(
            s,
            camp_pile=pile,
            camp_drawn=drawn,
            camp_drawer=c,
            camp_pending=pending,
            camp_draws=s.camp_draws + 1,
            phase="campaign",
            last_campaign=None,  # a new one is on its way
        )

    def _on_CampaignApplied(self, s: State, ev: Event) -> State:
        applied = ev["applied"]
        back = tuple(ev["returned"]) + ((applied,) if ev["back"] else ())
        removed = s.camp_removed + ((ev["removed"],) if ev["removed"] else ())
        record = {"by": ev["by"], "card": applied, "quality": ev["quality"], "moves": [], "turn": s.turn}
        return revise(
            s,
            camp_pile=tuple(sorted(s.camp_pile + back)),
            camp_drawn=(),
            camp_drawer=None,
            camp_removed=removed,
            camp_applied=s.camp_applied + (() if ev["back"] else (applied,)),
            phase="start",
            last_campaign=record,
            recording="campaign",
        )

    def _on_GameEnded(self, s: State, ev: Event) -> State:
        winner = side_index(ev["winner"])
        return revise(s, phase="over", winner=winner, ended_by=ev["by"], reason=self._reason(s, ev))

    def _reason(self, s: State, ev: Event) -> str:
        w = side_index(ev["winner"])
        who = C.CANDIDATE_NAMES[SIDES[w]]
        if ev["automaton"]:
            who = f"The automated opponent ({C.CANDIDATE_NAMES[SIDES[w]]})"
        if ev["by"] == "erosion":
            loser = C.CANDIDATE_NAMES[ev["loser"]]
            return f"{who} wins: {loser} suffered a sixth Power Erosion."
        score = ev["ahead"]
        mine, theirs = score[SIDES[w]], score[SIDES[other(w)]]
        if ev["tie"]:
            return f"{who} wins the election: level in qualities ({mine} to {theirs}), and holds the Media token."
        return f"{who} wins the election: ahead in {mine} {'quality' if mine == 1 else 'qualities'} to {theirs}."

    # -- who acts, what is legal -------------------------------------------------------

    def active(self, state: State) -> tuple[int, ...]:
        s = state
        if s.phase == "play":
            seat = s.seats[s.to_move]
            return () if seat is None else (seat,)
        if s.phase == "campaign":
            seat = s.seats[s.drawer]
            return () if seat is None else (seat,)
        if s.phase == "veto":
            human = s.seats[s.solo_human]
            return () if human is None else (human,)
        return ()

    def legal(self, state: State, seat: int) -> list[Command]:
        s = state
        if seat not in self.active(s):
            return []
        if s.phase == "play":
            return self._legal_plays(s)
        if s.phase == "campaign":
            return self._legal_campaigns(s)
        if s.phase == "veto":
            a = s.solo_automaton
            used, _ = automaton_actions(s.hand[0], a, len(s.erosion[a]))
            out: list[Command] = [{"t": "Veto", "action": i} for i in used if C.actions(s.hand[0])[i].colour == "white"]
            return out + [{"t": "Allow"}]
        return []

    def _legal_plays(self, s: State) -> list[Command]:
        c = s.to_move
        out: list[Command] = []
        for card in s.hand:
            rest = [x for x in s.hand if x != card]
            arrangements: list[tuple[str | None, list[str]]]
            if s.solo:
                arrangements = [(r, [x for x in rest if x != r]) for r in rest]
            elif self._slide_order_matters(s):
                arrangements = [(None, list(p)) for p in permutations(rest)]
            else:
                # drawn in one hand, or never: the order cannot matter, and is not asked
                arrangements = [(None, rest)]
            for index, action in enumerate(C.actions(card)):
                if not C.may_use(SIDES[c], action):
                    continue
                for choices in product(C.QUALITIES, repeat=choice_count(action)):
                    for remove, under in arrangements:
                        command: Command = {"t": "PlayCard", "card": card, "action": index, "under": under}
                        if s.solo:
                            command["remove"] = remove
                        if choices:
                            command["choices"] = list(choices)
                        out.append(command)
        return out

    def _slide_order_matters(self, s: State) -> bool:
        """Two players, in the mover's turn: can the order of the two cards he slides matter?"""
        draws = self._slid_draws(s)
        return draws is None or draws[0] != draws[1]

    def _slid_draws(self, s: State) -> tuple[int | None, int | None] | None:
        """Two players, in the play phase with a full hand: :func:`slid_draws` of the
        mover's turn; None where there is no such pair of cards."""
        if s.solo or s.phase != "play" or len(s.hand) != HAND:
            return None
        return slid_draws((len(s.piles[0]), len(s.piles[1])), s.to_move, s.final)

    def _legal_campaigns(self, s: State) -> list[Command]:
        out: list[Command] = []
        for apply in s.camp_drawn:
            rest = [x for x in s.camp_drawn if x != apply]
            removes: list[str | None] = list(rest) if rest else [None]
            qualities: list[str | None] = list(C.QUALITIES) if self.campaign_needs_quality(s, apply) else [None]
            for remove in removes:
                for q in qualities:
                    command: Command = {"t": "Campaign", "apply": apply, "remove": remove}
                    if q is not None:
                        command["quality"] = q
                    out.append(command)
        return out

    def outcome(self, state: State) -> Outcome | None:
        s = state
        if s.phase != "over":
            return None
        if s.winner is None:
            raise ValueError("a game over has a winner")
        winner = s.winner
        winner_seat = s.seats[winner]
        winners = () if winner_seat is None else (winner_seat,)
        chirac, mitterrand = ahead(s.rows)
        per_candidate = (chirac, mitterrand)
        players = 1 if s.solo else 2
        scores = [0] * players
        for c in (CHIRAC, MITTERRAND):
            seat_of = s.seats[c]
            if seat_of is not None:
                scores[seat_of] = per_candidate[c]
        # the automated opponent holds no seat: when it wins, it is named
        victor = "" if winner_seat is not None else f"The automated opponent ({C.CANDIDATE_NAMES[SIDES[winner]]})"
        return Outcome(winners, s.reason or "", tuple(scores), victor)

    def score_sheet(self, view: dict[str, Any]) -> ScoreSheet | None:
        """The final count, from a view alone: each quality's token and whom it favours,
        the Media token and whether it broke a tie, each side's Power Erosion, the winner
        and why (a sixth Power Erosion, or more qualities).  One row a seat; in solo the
        automaton is no seat, and its figures are in the notes."""
        if view.get("phase") != "over" or view.get("winner") is None:
            return None
        rows, media, erosion = view["rows"], view["media"], view["erosion"]
        short = C.CANDIDATE_SHORT

        def favours(q: str) -> str | None:
            pos = rows[q]
            return "chirac" if pos > 0 else "mitterrand" if pos < 0 else None

        def quality_cell(q: str, side: str) -> str:
            who = favours(q)
            if who is None:
                return "level"
            return f"{'ahead' if who == side else 'behind'} {abs(rows[q])}"

        seated = sorted((seat, side) for side, seat in view["seats"].items() if seat is not None)
        table = tuple(
            (
                short[side],
                *(quality_cell(q, side) for q in C.QUALITIES),
                "holds" if media == side else "-",
                f"{len(erosion[side])} of {EROSION_LIMIT}",
            )
            for _, side in seated
        )
        winner = view["winner"]
        loser = SIDES[other(side_index(winner))]
        automaton = view.get("automaton")
        who = f"{short[winner]} (the automated opponent)" if winner == automaton else short[winner]
        count = {side: sum(1 for q in C.QUALITIES if favours(q) == side) for side in SIDES}
        by_erosion = any(len(erosion[side]) >= EROSION_LIMIT for side in SIDES)
        if by_erosion:
            why = f"Why: {short[loser]} received a sixth Power Erosion; the game stopped at once."
            media_note = f"Media token: {short[media]} (no election was held)."
        elif count[winner] == count[loser]:
            why = f"Why: level in qualities ({count[winner]} to {count[loser]}); the Media token breaks the tie."
            media_note = f"Media token: {short[media]}."  # (the line above says it broke the tie)
        else:
            n = count[winner]
            why = f"Why: ahead in {n} {'quality' if n == 1 else 'qualities'} to {count[loser]}."
            media_note = f"Media token: {short[media]}; not needed, there was no tie."
        tokens = ", ".join(
            f"{C.QUALITY_NAMES[q]} {short[side]} +{abs(rows[q])}"
            if (side := favours(q))
            else f"{C.QUALITY_NAMES[q]} level"
            for q in C.QUALITIES
        )
        notes = [f"Winner: {who}.", why, tokens, media_note]
        if automaton:
            notes.append(
                f"The automated {short[automaton]}: {len(erosion[automaton])} of {EROSION_LIMIT} Power Erosion, "
                f"ahead in {count[automaton]} {'quality' if count[automaton] == 1 else 'qualities'}."
            )
        return ScoreSheet(
            title="Final score",
            columns=("Candidate", *(C.QUALITY_NAMES[q] for q in C.QUALITIES), "Media", "Erosion"),
            rows=table,
            notes=tuple(notes),
            key="final",
        )

    # -- what a seat sees ----------------------------------------------------------------

    def _viewer(self, s: State, seat: Viewer) -> int | None:
        """The candidate a seat plays, None for ALL and PUBLIC."""
        if isinstance(seat, int) and not isinstance(seat, bool):
            return s.candidate_of(seat)
        return None

    def known_bottom(self, s: State, pile: int) -> list[str]:
        """The cards at the bottom of a pile that were slid there, drawing order."""
        k = s.known[pile]
        return list(s.piles[pile][len(s.piles[pile]) - k :]) if k else []

    def _knows_bottom(self, s: State, viewer: int | None, pile: int, everything: bool) -> bool:
        """Who slid cards under this pile: the opponent (two players) or its owner (solo)."""
        if everything:
            return True
        if viewer is None:
            return False
        return viewer == pile if s.solo else viewer == other(pile)

    def view(self, state: State, seat: Viewer) -> dict[str, Any]:
        s = state
        everything = seat == ALL
        me = self._viewer(s, seat)
        own_seat = isinstance(seat, int) and not isinstance(seat, bool)
        phase = s.phase if s.phase in PLAYER_PHASES or s.phase == "over" else "play"
        automaton_card = None
        if s.solo and s.to_move == s.automaton and s.phase in ("veto", "automaton") and s.hand:
            automaton_card = s.hand[0]
        hand: list[str] | None = None
        if own_seat:
            hand = list(s.hand) if (me is not None and me == s.to_move and s.phase in ("play",)) else []
        drawn_visible = everything or (me is not None and me == s.camp_drawer) or self._automaton_drew(s)
        campaign: dict[str, Any] = {
            "pile": len(s.camp_pile),
            "drawn_count": len(s.camp_drawn),
            "drawer": SIDES[s.camp_drawer] if s.camp_drawer is not None else None,
            "removed": list(s.camp_removed),
            "applied": list(s.camp_applied),
        }
        if drawn_visible:
            campaign["drawn"] = list(s.camp_drawn)
        last = None if s.last is None else dict(s.last)
        last_campaign = None if s.last_campaign is None else dict(s.last_campaign)
        view: dict[str, Any] = {
            "seat": seat,
            "solo": s.solo,
            "turn": max(1, s.turn),
            "round": max(1, (s.turn + 1) // 2),
            "phase": phase,
            "active": list(self.active(s)),
            "to_move": SIDES[s.to_move] if s.turn > 0 and s.phase != "over" else None,
            "you": SIDES[me] if me is not None else None,
            "seats": {SIDES[c]: s.seats[c] for c in (CHIRAC, MITTERRAND)},
            "names": {SIDES[c]: s.names[c] for c in (CHIRAC, MITTERRAND)},
            "automaton": None if s.automaton is None else SIDES[s.automaton],
            "solo_level": "hard" if s.solo_hard else "standard" if s.solo else None,
            "row_length": s.row_length,
            "rows": {q: s.rows[i] for i, q in enumerate(C.QUALITIES)},
            "media": SIDES[s.media],
            "veto_used": s.veto_used,
            "piles": {SIDES[c]: len(s.piles[c]) for c in (CHIRAC, MITTERRAND)},
            "known_bottom": {
                SIDES[c]: self.known_bottom(s, c) if self._knows_bottom(s, me, c, everything) else []
                for c in (CHIRAC, MITTERRAND)
            },
            "discard": list(s.discard),
            "erosion": {SIDES[c]: list(s.erosion[c]) for c in (CHIRAC, MITTERRAND)},
            "removed": list(s.removed),
            "hand": hand,
            "automaton_card": automaton_card,
            # the card announced and not yet placed (seen only while stepping through a replay)
            "played": s.played,
            "campaign": campaign,
            "final_turn": s.final,
            # two players, in a turn: in which of his draws to come the opponent draws each of
            # the two cards slid under his pile (1: his next; None: never)
            "slid_draws": None if (draws := self._slid_draws(s)) is None else list(draws),
            "last_turn": last,
            "last_campaign": last_campaign,
            "winner": SIDES[s.winner] if s.winner is not None else None,
            "reason": s.reason,
            "ahead": dict(zip(SIDES, ahead(s.rows), strict=True)),
            # beyond the screen's shape: what the bot needs
            "erosion_thresholds": {SIDES[c]: list(s.thresholds[c]) for c in (CHIRAC, MITTERRAND)},
        }
        if everything:
            view["hands"] = {
                SIDES[c]: list(s.hand) if c == s.to_move and s.phase in ("play", "veto", "automaton") else []
                for c in (CHIRAC, MITTERRAND)
            }
            view["pile_cards"] = {SIDES[c]: list(s.piles[c]) for c in (CHIRAC, MITTERRAND)}
        return view

    # -- what a seat knows (the search bot) -----------------------------------------------

    @staticmethod
    def _automaton_drew(s: State) -> bool:
        """The Campaign cards being drawn are the automaton's, face up for all."""
        return s.solo and s.camp_drawer is not None and s.camp_drawer == s.automaton

    def _hand_seen(self, s: State, me: int | None) -> bool:
        """Does this candidate see the cards in ``hand``?  As ``view``: the mover
        while it plays, everybody the automaton's face-up card."""
        if s.phase == "play":
            return me is not None and me == s.to_move
        return s.solo and s.to_move == s.automaton and s.phase in ("veto", "automaton")

    def observe(self, state: State, seat: int) -> State:
        """Piles face down but for the bottom cards the seat slid there, the
        other candidate's hand, the campaign cards another candidate drew and
        the contents of the (unordered) campaign pile become UNSEEN, counts kept;
        the test-only stacked campaign draws are dropped."""
        s = state
        me = self._viewer(s, seat)
        piles = []
        for c in (CHIRAC, MITTERRAND):
            pile = s.piles[c]
            k = s.known[c] if s.known[c] and self._knows_bottom(s, me, c, False) else 0
            piles.append((UNSEEN,) * (len(pile) - k) + pile[len(pile) - k :])
        hand = s.hand if not s.hand or self._hand_seen(s, me) else (UNSEEN,) * len(s.hand)
        drawn = s.camp_drawn
        if drawn and (me is None or me != s.camp_drawer) and not self._automaton_drew(s):
            drawn = (UNSEEN,) * len(drawn)
        return revise(
            s,
            arranged_campaign=(),
            piles=(piles[0], piles[1]),
            hand=hand,
            camp_drawn=drawn,
            camp_pile=(UNSEEN,) * len(s.camp_pile),
        )

    def determinize(self, known: State, seat: int, rng: random.Random, redo: bool = False) -> State:
        """Deal the Event cards nobody showed this seat into its UNSEEN slots,
        and the Campaign cards not removed, applied or seen into the campaign
        pile and another candidate's draw.  Solo: the automaton's pile gets
        cards of at most two of each kind, as its pile was built.  Nothing is
        ever chosen in secret here, so ``redo`` changes nothing."""
        s = known
        changes: dict[str, Any] = {}
        piles, hand = s.piles, s.hand
        n0 = piles[0].count(UNSEEN)
        n1 = piles[1].count(UNSEEN)
        nh = hand.count(UNSEEN)
        if n0 or n1 or nh:
            seen = set(s.discard)
            seen.update(s.removed, s.erosion[0], s.erosion[1], piles[0][n0:], piles[1][n1:])
            if not nh:
                seen.update(hand)
            if s.played is not None:
                seen.add(s.played)
            pool = [x for x in C.EVENT_IDS if x not in seen]
            if len(pool) != n0 + n1 + nh:
                raise ValueError("the observation does not account for every Event card")
            rng.shuffle(pool)
            counts = [n0, n1]
            dealt: list[list[str]] = [[], []]
            a = s.automaton
            if a is not None and counts[a]:
                dealt[a], pool = _automaton_share(pool, counts[a])
                counts[a] = 0
            n = 0
            for c in (CHIRAC, MITTERRAND):
                if counts[c]:
                    dealt[c] = pool[n : n + counts[c]]
                    n += counts[c]
            changes["piles"] = (
                tuple(dealt[0]) + piles[0][n0:] if n0 else piles[0],
                tuple(dealt[1]) + piles[1][n1:] if n1 else piles[1],
            )
            if nh:
                changes["hand"] = tuple(pool[n : n + nh])
        nd = s.camp_drawn.count(UNSEEN)
        if s.camp_pile or nd:
            gone = set(s.camp_removed)
            gone.update(s.camp_applied)
            if not nd:
                gone.update(s.camp_drawn)
            cpool = [x for x in C.campaign_set(_set_in_play(s)) if x not in gone]
            if len(cpool) != len(s.camp_pile) + nd:
                raise ValueError("the observation does not account for every Campaign card")
            if nd:
                rng.shuffle(cpool)
                changes["camp_drawn"] = tuple(cpool[:nd])
                cpool = sorted(cpool[nd:])
            changes["camp_pile"] = tuple(sorted(cpool))
        return revise(s, **changes) if changes else s

    def redact(self, event: Event, seat: Viewer) -> Event:
        if seat == ALL:
            return event
        t = event["t"]
        me = seat if isinstance(seat, int) and not isinstance(seat, bool) else None
        if t == "GameSetUp":
            ev = dict(event)
            ev["pile_counts"] = {k: len(v) for k, v in event["piles"].items()}
            ev["piles"] = None
            return ev
        if t in ("CardsDrawn", "CampaignDrawn", "CardsSlid"):
            # the automaton's card is turned face up for everyone
            if event.get("public") or (me is not None and me == event["seat"]):
                return event
            ev = dict(event)
            ev["cards"] = None
            return ev
        if t == "CampaignApplied":
            if event.get("public") or (me is not None and me == event["seat"]):
                return event
            ev = dict(event)
            ev["returned"] = None
            return ev
        return event

    def describe(self, event: Event, seat: Viewer) -> str:
        t = event["t"]
        by: Any = event.get("by")  # a field of the event: plain data
        who = f"{C.CANDIDATE_SHORT.get(by, by)} ({event.get('name', '?')})" if by in SIDES else ""
        if t == "GameSetUp":
            if event["solo"]:
                a = event["automaton"]
                text = (
                    f"Solo game against the automated {C.CANDIDATE_SHORT[a]}: its pile holds 8 Event cards, "
                    f"yours 16; the debate card is out of the game. Mitterrand holds the Media token."
                )
                if event.get("hard"):
                    text += (
                        " Hard: the automaton draws Electoral Campaign cards too, you have no veto, "
                        f"and the rows are {event['row_length']} squares a side."
                    )
                return text
            return (
                "Setup: 4 Event cards to the discard pile, 10 to each candidate's pile; "
                "Mitterrand holds the Media token."
            )
        if t == "TurnStarted":
            text = f"Turn {event['turn']}: {who} to play."
            if event["final"]:
                text += " Final turn."
            return text
        if t == "CardsDrawn":
            if event["cards"] is None:
                return f"{who} draws {event['count']} cards."
            names = _and([C.event(c).name for c in event["cards"]])
            if event["count"] == 1:
                return f"{who} turns over {names}."
            return f"{who} draws {names}."
        if t == "CardPlayed":
            text = f"{who} plays {C.event(event['card']).name}: {C.action_label(event['card'], event['action'])}"
            if event["choices"]:
                text += f", choosing {_and(event['choices'])}"
            return text + "."
        if t == "AutomatonPlayed":
            card = C.event(event["card"])
            texts = [card.actions[i].text for i in event["actions"]]
            text = f"{who} uses {card.name}: {_and(texts) if texts else 'no action'}"
            if event["choices"]:
                text += f" (drawn at random: {_and(event['choices'])})"
            if event["skipped_own"]:
                text += "; it skips its own action, which would be its sixth Power Erosion"
            return text + "."
        if t == "TokenMoved":
            q = C.QUALITY_NAMES[event["quality"]]
            return f"The {q} token moves towards {C.CANDIDATE_SHORT[by]}: {_position(event['to'])}."
        if t == "MediaTaken":
            if event["quality"] is None:
                return f"{who} takes the Media token."
            q = C.QUALITY_NAMES[event["quality"]]
            return f"The {q} token is already at {C.CANDIDATE_SHORT[by]}'s end: {who} takes the Media token."
        if t == "ErosionInflicted":
            victim = f"{C.CANDIDATE_SHORT[event['on']]} ({event['on_name']})"
            card_name = C.event(event["card"]).name
            lead = ""
            if event["quality"] is not None:
                lead = f"The {C.QUALITY_NAMES[event['quality']]} token is already at {C.CANDIDATE_SHORT[by]}'s end: "
            return f"{lead}{victim} receives {card_name} from the discard pile as {_nth(event['count'])} Power Erosion."
        if t == "BonusLost":
            lead = ""
            if event["quality"] is not None:
                q = C.QUALITY_NAMES[event["quality"]]
                lead = f"The {q} token is already at {C.CANDIDATE_SHORT[by]}'s end, but "
            return f"{lead}the discard pile is empty: no Power Erosion for {C.CANDIDATE_SHORT[event['on']]}."
        if t == "ErosionTaken":
            return f"{C.event(event['card']).name} stays in front of {who}: {_nth(event['count'])} Power Erosion."
        if t == "ErosionRelieved":
            return f"{C.event(event['card']).name} leaves {who}'s Power Erosion for the discard pile."
        if t == "CardDiscarded":
            return f"{C.event(event['card']).name} goes to the discard pile."
        if t == "CardRemoved":
            return f"{who} removes {C.event(event['card']).name} from the game."
        if t == "CardsSlid":
            where = "own pile" if event["onto"] == by else f"{C.CANDIDATE_SHORT[event['onto']]}'s pile"
            if event["cards"] is None:
                n = event["count"]
                return f"{who} slides {n} card{'s' if n > 1 else ''} under {where}."
            return f"{who} slides {' then '.join(C.event(c).name for c in event['cards'])} under {where}."
        if t == "VetoUsed":
            text = C.event(event["card"]).actions[event["action"]].text
            return f"{who} vetoes the automaton's neutral action «{text}» and turns the Media token face down."
        if t == "VetoDeclined":
            return f"{who} lets the automaton's card apply."
        if t == "CampaignDrawn":
            if event["count"] == 0:
                return f"{who} should draw Electoral Campaign cards, but none are left."
            if event["cards"] is None:
                return f"{who} draws {event['count']} Electoral Campaign cards."
            return f"{who} draws Electoral Campaign cards: {_and([C.campaign(c).name for c in event['cards']])}."
        if t == "CampaignApplied":
            applied = C.campaign(event["applied"])
            text = f"{who} applies {applied.name}"
            if event["quality"]:
                text += f" ({event['quality']}{', drawn at random' if event.get('public') else ''})"
            if event["removed"]:
                text += f", removes {C.campaign(event['removed']).name} from the game"
            if event["returned"]:
                text += f" and returns {_and([C.campaign(c).name for c in event['returned']])} to the pile"
            elif event["count_returned"]:
                text += " and returns the third card to the pile"
            if applied.returns:
                text += f"; {applied.name} goes back into the pile"
            return text + "."
        if t == "GameEnded":
            w = C.CANDIDATE_NAMES[event["winner"]]
            if event["automaton"]:
                w = f"The automated {C.CANDIDATE_SHORT[event['winner']]}"
            if event["by"] == "erosion":
                return f"Sixth Power Erosion for {C.CANDIDATE_SHORT[event['loser']]}: {w} wins!"
            a = event["ahead"]
            text = f"Election: Chirac ahead in {a['chirac']}, Mitterrand in {a['mitterrand']}"
            if event["tie"]:
                text += f"; the Media token ({C.CANDIDATE_SHORT[event['media']]}) decides"
            return f"{text}. {w} wins!"
        return t

    def mark(self, event: Event) -> str | None:
        if event.get("t") == "TurnStarted":
            return "round" if event["by"] == "chirac" else "turn"
        return None

    def reveals(self, event: Event, seat: int) -> bool:
        t = event["t"]
        if t in ("GameSetUp", "ErosionInflicted", "AutomatonPlayed"):
            return True  # a shuffle, a card drawn at random, the automaton's card and choices
        if t == "CardsDrawn":
            return bool(event.get("public")) or event["seat"] == seat
        if t == "CampaignDrawn":
            return (bool(event.get("public")) or event["seat"] == seat) and event["count"] > 0
        if t in ("CardPlayed", "CampaignApplied"):
            return event["seat"] != seat
        # turn starts, token moves, bonuses and placements follow from what was already known
        return False


def _set_in_play(s: State) -> str:
    """The set of Campaign cards a state plays, from the cards it shows.  A
    seat that has seen none of the cards only one set holds (a two-player game
    before any such card was drawn by it or applied) cannot tell the sets apart
    from the state: the default set is assumed, which changes nothing but what a
    searching bot imagines is left in the pile."""
    seen = {c for c in s.camp_pile + s.camp_drawn + s.camp_removed + s.camp_applied if c != UNSEEN}
    fits = [name for name, ids in C.CAMPAIGN_SETS.items() if seen <= set(ids)]
    return fits[0] if len(fits) == 1 else C.DEFAULT_SET


def _automaton_share(pool: list[str], n: int) -> tuple[list[str], list[str]]:
    """Solo: ``n`` cards for the automaton's pile from a shuffled pool, the first
    ones whose kind it may still hold (two of each, as dealt), and the rest.
    The kinds of the automaton's cards already drawn are not in the view, so
    only the setup's limit is kept."""
    mine: list[str] = []
    rest: list[str] = []
    held: dict[str, int] = {}
    for card in pool:
        k = _KIND[card]
        if len(mine) < n and k in SOLO_KINDS and held.get(k, 0) < SOLO_PER_KIND:
            held[k] = held.get(k, 0) + 1
            mine.append(card)
        else:
            rest.append(card)
    if len(mine) < n:
        raise ValueError("no automaton pile fits the unseen cards")
    return mine, rest


def _position(pos: int) -> str:
    if pos == 0:
        return "back at the centre"
    side = "Chirac" if pos > 0 else "Mitterrand"
    return f"{abs(pos)} on {side}'s side"
