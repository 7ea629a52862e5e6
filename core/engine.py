"""The game contract shared by every game, and the Match that plays one.

Every game is a *decider* (see docs/ARCHITECTURE.md):

- ``setup(config, rng) -> events``: the opening facts (shuffles, deals).
- ``decide(state, seat, command, rng) -> events``: validate a command and
  return the facts it causes, or raise :class:`IllegalCommand`.
- ``evolve(state, event) -> state``: apply one fact, returning a new state.
- ``active(state) -> seats``: who must act now (several at once is allowed).
- ``legal(state, seat) -> commands``: every legal command, finite and complete.
- ``view(state, seat) -> observation``: what that seat may know.
- ``redact(event, seat) -> event``: the event as that seat may see it.
- ``describe(event, seat) -> str``: one line for the history panel.
- ``outcome(state) -> Outcome | None``.

Commands and events are plain dicts of plain values (ints, strings, lists,
dicts with string keys) tagged by ``"t"``: events in the past tense
(``CardPlayed``), commands in the imperative (``PlayCard``).  msgpack stores
them as they are.

Every command has an exact shape, declared by its game in
:attr:`Game.command_shapes` (:func:`shape`, :func:`whole`, :func:`text`...):
its tag, each field's type and bounds, which fields may be left out.
:meth:`Game.normalize` refuses anything else with one sentence (an unknown
field, a float or a bool where a whole number goes, 2**70, a nested list)
and returns the one normal form of the rest (fields in the declared order,
lists as lists, defaults filled in or left out as declared).  Every
``decide`` starts with it, through :meth:`Game.refuse_out_of_turn`, so a
crafted command never reaches the rules' own checks, which then refuse a
well-typed value that means nothing here (a card not in hand, a seat past
the table) with :class:`IllegalCommand` too.  ``Match.submit`` records the
normal form, so a save holds only what the rules read.  ``legal`` lists
commands already in normal form.

Randomness comes only from the ``rng`` handed to ``setup`` and ``decide``;
the match derives it from the seed and the position in the log, and every
random outcome is written into the events, so replaying never draws.
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import hashlib
import math
import random
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

Event = dict[str, Any]
Command = dict[str, Any]

#: ``view``/``redact``/``describe`` seat for "everything revealed" (replays).
ALL = "all"
#: ``view``/``redact``/``describe`` seat for a spectator: public facts only.
PUBLIC = "public"

Viewer = int | str  # a seat number, ALL or PUBLIC

#: what :meth:`Game.observe` puts where a seat cannot see a card or a choice
UNSEEN = "?"


class IllegalCommand(Exception):
    """A command the rules refuse; ``str(exc)`` is one sentence for a player."""


class ConfigError(ValueError):
    """A table that cannot be set up (bad player count, unknown variant...)."""


# -- seat names ----------------------------------------------------------------------

#: the most characters a seat's name has.  A name is typed by a player (the command
#: line, New game) or is a served player's login (``net.identity``), and every screen,
#: history line and score sheet shows it: a longer one is refused where it is given,
#: and the save reader refuses a header that holds one (a save is untrusted input).
NAME_MAX = 24


def _shows(ch: str) -> bool:
    """Is ``ch`` drawn as itself by a terminal?  Printable characters and spaces are;
    control characters (ESC starts an escape sequence), format characters (a
    right-to-left override), separators of lines and unassigned code points are not."""
    return ch.isprintable() or unicodedata.category(ch) == "Zs"


def name_refusal(name: Any, seat: int) -> str | None:
    """Why ``name`` cannot be seat ``seat``'s name (0-based), in one sentence that
    never quotes it (it may be a megabyte, or an escape sequence); None if it can."""
    whose = f"The name of seat {seat + 1}"
    if not isinstance(name, str):
        return f"{whose} is not text."
    if len(name) > NAME_MAX:
        return f"{whose} has {len(name):,} characters; a name has {NAME_MAX} at most."
    if not all(_shows(ch) for ch in name):
        return (
            f"{whose} has a character that is not text (a control character or an escape "
            "sequence); a name is printable text only."
        )
    return None


#: what a character a terminal would act on is shown as: C0 controls as their Unicode
#: control pictures (ESC is ␛), DEL as ␡, anything else as the replacement character
_STAND_INS = {code: chr(0x2400 + code) for code in range(0x20)} | {0x7F: "\u2421"}


def printable(text: str, lines: bool = False) -> str:
    """``text`` as a terminal can show it: every character it would act on rather than
    draw (the ESC of an escape sequence, a bell, a carriage return, a C1 control, a
    right-to-left override) replaced by a visible stand-in.  A name from a save, a
    host or a server is shown through this, never sent to a terminal as it is.
    ``lines``: newlines are kept (a text of several lines)."""
    if lines:
        return "\n".join(printable(line) for line in text.split("\n"))
    if text.isprintable():
        return text
    return "".join(ch if _shows(ch) else _STAND_INS.get(ord(ch), "\ufffd") for ch in text)


# -- the shape of a command -------------------------------------------------------

_REQUIRED: Any = object()


@dataclass(frozen=True, eq=False)
class Field:
    """One field of a command: its type and bounds, and whether it may be left out.

    Build one with :func:`whole`, :func:`text`, :func:`flag` or :func:`items`.
    A field with a ``default`` may be left out: with ``keep`` the normal form
    fills the default in, without it the normal form leaves the key out (and
    drops it when sent with the default's value).  ``None`` is accepted for a
    field exactly when its default is ``None``.  ``say`` is the sentence a
    refused or missing value gets, when the game has a better one than the generic.
    """

    kind: str  # "int", "str", "bool" or "list"
    #: an int's bounds, a list's length bounds, a free string's longest length (hi)
    lo: int = 0
    hi: int = 0
    #: the strings a "str" field may take, in the order a message lists them (empty: any, up to ``hi`` long)
    options: tuple[str, ...] = ()
    #: what a "str" field with options names, for the refusal ("Action card")
    what: str = ""
    #: a list's items
    item: Field | None = None
    #: a list whose order means nothing: the normal form sorts it
    sort: bool = False
    default: Any = _REQUIRED
    keep: bool = False
    #: the game's own sentence for any value this field refuses (else a generic one)
    say: str = ""
    #: ``options`` as a set, for the check
    choices: frozenset[str] = dataclasses.field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "choices", frozenset(self.options))


def whole(lo: int, hi: int, *, default: Any = _REQUIRED, keep: bool = False, say: str = "") -> Field:
    """A whole number from ``lo`` to ``hi`` (a bool or a float is not one)."""
    return Field("int", lo, hi, default=default, keep=keep, say=say)


def text(
    options: Iterable[str] = (),
    *,
    longest: int = 64,
    what: str = "",
    default: Any = _REQUIRED,
    keep: bool = False,
    say: str = "",
) -> Field:
    """A string among ``options``, or any string up to ``longest`` characters without them."""
    return Field("str", 0, longest, options=tuple(options), what=what, default=default, keep=keep, say=say)


def flag(*, default: Any = _REQUIRED, keep: bool = False, say: str = "") -> Field:
    """True or false."""
    return Field("bool", default=default, keep=keep, say=say)


def items(
    item: Field,
    lo: int,
    hi: int,
    *,
    sort: bool = False,
    default: Any = _REQUIRED,
    keep: bool = False,
    say: str = "",
) -> Field:
    """A list (a tuple is taken for one) of ``lo`` to ``hi`` items, each checked as ``item``."""
    return Field("list", lo, hi, item=item, sort=sort, default=default, keep=keep, say=say)


@dataclass(frozen=True, eq=False)
class Shape:
    """The exact form of one command: its tag ``t`` and its fields, in order.

    With :meth:`by`, the value of one required field (the card played, the
    action taken) brings fields of its own, listed after the others.
    """

    tag: str
    fields: tuple[tuple[str, Field], ...]
    switch: str | None = None
    cases: dict[Any, tuple[tuple[str, Field], ...]] = dataclasses.field(default_factory=dict)

    def by(self, name: str, cases: dict[Any, dict[str, Field]]) -> Shape:
        """This shape, where the value of field ``name`` adds the fields ``cases`` gives it."""
        declared = dict(self.fields)
        if name not in declared or declared[name].default is not _REQUIRED:
            raise ValueError(f"{self.tag}: the field {name!r} that picks the others must be required")
        return Shape(self.tag, self.fields, name, {value: tuple(extra.items()) for value, extra in cases.items()})


def shape(tag: str, /, **fields: Field) -> Shape:
    """The shape of the command ``tag`` with these fields (keyword order is the normal order)."""
    return Shape(tag, tuple(fields.items()))


def shapes(*declared: Shape) -> dict[str, Shape]:
    """A game's :attr:`Game.command_shapes`: every command it knows, by tag."""
    table = {s.tag: s for s in declared}
    if len(table) != len(declared):
        raise ValueError("two shapes for the same command")
    return table


def _shown(value: Any) -> str:
    """A value as a refusal quotes it: never more than a few dozen characters."""
    if isinstance(value, str) and len(value) > 30:
        return repr(value[:27] + "...")
    text_ = repr(value)
    return text_ if len(text_) <= 32 else text_[:29] + "..."


def _sort_of(value: Any) -> str:
    """What a wrong value is, in words a player knows."""
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, int):
        return "a whole number"
    if isinstance(value, float):
        return "a decimal number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return "a group of fields"
    return f"a {type(value).__name__}"


def _value(f: Field, name: str, v: Any, inner: bool = False) -> Any:
    """``v`` checked against ``f`` (the field ``name``, or an item of it) and in normal form."""
    kind = f.kind
    if kind == "int":
        if type(v) is int and f.lo <= v <= f.hi:
            return v
    elif kind == "str":
        if type(v) is str and (v in f.choices if f.options else len(v) <= f.hi):
            return v
    elif kind == "bool":
        if type(v) is bool:
            return v
    elif (type(v) is list or type(v) is tuple) and f.lo <= len(v) <= f.hi:
        item = f.item
        assert item is not None  # items() gives every list field the Field of its items
        try:
            out = [_value(item, name, x, True) for x in v]
        except IllegalCommand:
            if f.say:
                raise IllegalCommand(f.say) from None
            raise
        if f.sort:
            out.sort()
        return out
    raise IllegalCommand(f.say or _why(f, f"Every item of the field '{name}'" if inner else f"The field '{name}'", v))


def _why(f: Field, label: str, v: Any) -> str:
    """Why ``v`` is refused for ``f``, in a sentence that starts with ``label``."""
    kind = f.kind
    if kind == "int":
        if type(v) is not int:
            return f"{label} must be a whole number, not {_sort_of(v)}."
        return f"{label} must be a whole number from {f.lo} to {f.hi}, not {_shown(v)}."
    if kind == "str":
        if type(v) is not str:
            return f"{label} must be text, not {_sort_of(v)}."
        if not f.options:
            return f"{label} is too long: at most {f.hi} characters."
        if f.what:
            return f"There is no {f.what} called {_shown(v)}."
        if len(f.options) <= 8:
            return f"{label} must be one of {', '.join(f.options)}, not {_shown(v)}."
        return f"{label} cannot be {_shown(v)}."
    if kind == "bool":
        return f"{label} must be true or false, not {_sort_of(v)}."
    if type(v) is not list and type(v) is not tuple:
        return f"{label} must be a list, not {_sort_of(v)}."
    count = f"{f.lo}" if f.lo == f.hi else f"{f.lo} to {f.hi}"
    return f"{label} must hold {count} items, not {len(v)}."


def _fill(out: Command, tag: str, fields: tuple[tuple[str, Field], ...], command: Command) -> int:
    """Put ``fields`` of ``command`` into ``out`` in normal form; how many were sent."""
    sent = 0
    for name, f in fields:
        v = command.get(name, _REQUIRED)
        if v is not _REQUIRED:
            sent += 1
            if v is None and f.default is None:
                if f.keep:
                    out[name] = None
                continue
            v = _value(f, name, v)
            if not f.keep and f.default is not _REQUIRED and v == f.default:
                continue
            out[name] = v
        elif f.default is _REQUIRED:
            raise IllegalCommand(f.say or f"A {tag} move needs a field '{name}'.")
        elif f.keep:
            out[name] = list(f.default) if isinstance(f.default, list) else f.default
    return sent


def normalize_command(table: dict[str, Shape], command: Any, title: str) -> Command:
    """``command`` checked against its shape in ``table`` and in its one normal
    form (a new dict: ``t`` first, then the declared fields in their order,
    lists as lists); raises :class:`IllegalCommand` with one sentence."""
    if not isinstance(command, dict):
        raise IllegalCommand(f"That is not a move of {title}.")
    tag = command.get("t")
    if type(tag) is not str:
        raise IllegalCommand(f"That is not a move of {title}.")
    found = table.get(tag)
    if found is None:
        raise IllegalCommand(f"{title} has no move called {_shown(tag)}.")
    out: Command = {"t": tag}
    sent = 1 + _fill(out, tag, found.fields, command)
    extra: tuple[tuple[str, Field], ...] = ()
    if found.switch is not None:
        extra = found.cases.get(out[found.switch], ())
        if extra:
            sent += _fill(out, tag, extra, command)
    if sent != len(command):
        known = {"t", *(name for name, _ in found.fields), *(name for name, _ in extra)}
        unknown = next(key for key in command if key not in known)
        raise IllegalCommand(f"This command has a field {_shown(unknown)} the game does not know.")
    return out


@dataclass(frozen=True)
class Variant:
    """A rule option chosen at game creation."""

    key: str
    label: str
    choices: tuple[str, ...]
    default: str
    help: str = ""
    #: offered on the new-game screen; an unlisted variant only keeps, for the
    #: saves made before, a rule (or a map) that a later Cabinet changed
    listed: bool = True
    #: the numbers of players whose games it changes (empty: all); the new-game
    #: screen offers it for those only
    players: tuple[int, ...] = ()

    def offered(self, players: int) -> bool:
        """Whether a game of ``players`` is offered this choice."""
        return self.listed and (not self.players or players in self.players)


@dataclass(frozen=True)
class SeatOption:
    """A per-seat choice at game creation (the agent in L'Agent Jean!)."""

    key: str
    label: str
    choices: tuple[str, ...]
    #: may two seats pick the same choice?
    unique: bool = True
    #: how each choice is written for players (defaults to the choice itself)
    labels: tuple[str, ...] = ()

    def label_of(self, choice: str) -> str:
        return self.labels[self.choices.index(choice)] if self.labels and choice in self.choices else choice


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended."""

    winners: tuple[int, ...]
    reason: str
    scores: tuple[int, ...] = ()
    #: a winner who holds no seat (the automated opponent of a solo game): named in
    #: place of the seats, with no winners among them
    victor: str = ""

    def to_plain(self) -> dict[str, Any]:
        plain = {"winners": list(self.winners), "reason": self.reason, "scores": list(self.scores)}
        if self.victor:
            plain["victor"] = self.victor
        return plain

    @classmethod
    def from_plain(cls, data: dict[str, Any]) -> Outcome:
        return cls(
            tuple(data["winners"]), str(data["reason"]), tuple(data.get("scores", ())), str(data.get("victor") or "")
        )


def outcome_text(match: Match, why: bool = True) -> str:
    """Who won the finished ``match`` and (``why``) why, in a sentence ("" while it is on)."""
    outcome = match.outcome
    if outcome is None:
        return ""
    names = [match.header["seats"][s]["name"] for s in outcome.winners]
    return outcome_sentence(names, outcome.reason, outcome.victor, why)


def outcome_sentence(names: list[str], reason: str, victor: str = "", why: bool = True) -> str:
    """Who won (the winners' ``names``, else the seatless ``victor``, else nobody), and
    (``why``) the rules' reason: "Ada wins. ...", "Ada and Bruno share the victory. ..."."""
    who = " and ".join(names) or victor or "Nobody"
    verb = "share the victory" if len(names) > 1 else "wins"
    return f"{who} {verb}. {reason}" if why else f"{who} {verb}."


@dataclass(frozen=True)
class ScoreSheet:
    """The score as the rules count it, at a game's end or a round's: why a seat won or lost.

    One row a seat, in seat order, one short cell a column (the screen puts
    the seat's name before it); ``notes`` are the lines under the table (who
    took which token, the hands revealed).  ``key`` names the scoring
    (``"round-2"``, ``"final"``): a screen shows each new key once.
    """

    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    notes: tuple[str, ...] = ()
    key: str = ""


class Game:
    """Base class of a game's rules.  Subclasses fill in the contract."""

    id: str = ""
    title: str = ""
    min_players: int = 2
    max_players: int = 2
    rules_version: int = 1
    variants: tuple[Variant, ...] = ()
    seat_options: tuple[SeatOption, ...] = ()
    #: the game's own bots: level -> "module:Class" (the class takes a seed);
    #: ``easy`` is the game's heuristic bot, which the search bot also plays out with
    bot_classes: ClassVar[dict[str, str]] = {}
    #: the search bot's thinking budget at each level, in moves simulated
    #: (``normal`` must decide within a second a move: see bench/search.py and docs/BOTS.md)
    search_budget: ClassVar[dict[str, int]] = {"normal": 5_000, "hard": 20_000}

    @property
    def bot_levels(self) -> tuple[str, ...]:
        """Every level a seat can be played at, weakest first."""
        return ("random", *self.bot_classes, *self.search_budget)

    @property
    def default_bot_level(self) -> str:
        """The level a new bot seat gets unless told otherwise: the search at
        its normal budget, measured stronger than the heuristic in every game
        (docs/BOTS.md); a game without a search budget, its strongest bot."""
        return "normal" if "normal" in self.bot_levels else self.bot_levels[-1]

    @property
    def rollout_level(self) -> str | None:
        """The bot the search plays out with: the heuristic one where there is one."""
        return "easy" if "easy" in self.bot_classes else None

    # -- table -------------------------------------------------------------

    def make_config(
        self,
        players: int,
        seats: Sequence[dict[str, Any]] = (),
        variants: dict[str, str] | None = None,
    ) -> dict[str, Any]:
        """A checked config: ``{"players", "seats", "variants"}``.

        Raises :class:`ConfigError` with a sentence for a bad table.
        """
        if not self.min_players <= players <= self.max_players:
            raise ConfigError(
                f"{self.title} is played by {self.min_players} to {self.max_players} players, not {players}."
            )
        chosen = dict(variants or {})
        known = {v.key: v for v in self.variants}
        for key, value in chosen.items():
            if key not in known:
                names = ", ".join(known) or "none"
                raise ConfigError(f"{self.title} has no variant {key!r} (variants: {names}).")
            if value not in known[key].choices:
                raise ConfigError(f"Variant {key} takes {', '.join(known[key].choices)}, not {value!r}.")
        full = {v.key: chosen.get(v.key, v.default) for v in self.variants}
        seat_list = [dict(s) for s in seats] + [{} for _ in range(players - len(seats))]
        if len(seat_list) != players:
            raise ConfigError(f"{players} players but {len(seat_list)} seats were described.")
        for opt in self.seat_options:
            taken: set[str] = set()
            for s in seat_list:
                picked = s.get(opt.key)
                if picked is None:
                    continue
                if picked not in opt.choices:
                    raise ConfigError(f"{opt.label} must be one of {', '.join(opt.choices)}, not {picked!r}.")
                if opt.unique and picked in taken:
                    raise ConfigError(f"Two seats cannot both take {opt.label.lower()} {opt.label_of(picked)}.")
                taken.add(picked)
            free = [c for c in opt.choices if c not in taken]
            for s in seat_list:
                if s.get(opt.key) is None:
                    s[opt.key] = free.pop(0) if opt.unique else opt.choices[0]
        for i, s in enumerate(seat_list):
            s.setdefault("name", f"Player {i + 1}")
        return {"players": players, "seats": seat_list, "variants": full}

    # -- the decider -------------------------------------------------------

    def initial(self, config: dict[str, Any]) -> Any:
        """The state before the setup events (an empty table)."""
        raise NotImplementedError

    def setup(self, config: dict[str, Any], rng: random.Random) -> list[Event]:
        raise NotImplementedError

    def decide(self, state: Any, seat: int, command: Command, rng: random.Random) -> list[Event]:
        raise NotImplementedError

    def evolve(self, state: Any, event: Event) -> Any:
        raise NotImplementedError

    #: every command the game knows, by tag, with its exact fields (:func:`shapes`);
    #: None only for a game that checks its commands' form itself
    command_shapes: dict[str, Shape] | None = None

    def normalize(self, command: Any) -> Command:
        """``command`` in its one normal form, or :class:`IllegalCommand` when it
        does not have the exact shape of one of the game's commands (see
        :attr:`command_shapes`): a known ``t``, every field it needs, none it
        does not know, each of its type and within its bounds.  Every command
        ``legal`` lists is already normal: ``normalize(c) == c``."""
        if self.command_shapes is None:
            if not isinstance(command, dict) or not isinstance(command.get("t"), str):
                raise IllegalCommand(f"That is not a move of {self.title}.")
            return command
        return normalize_command(self.command_shapes, command, self.title)

    def refuse_out_of_turn(self, state: Any, seat: int, command: Any) -> Command:
        """What every ``decide`` checks first: the game goes on, the command has
        the shape of one of the game's commands, and it is this seat's move
        (:meth:`waiting_for` says whose).  Returns the command in normal form,
        which is what ``decide`` goes on with."""
        if self.outcome(state) is not None:
            raise IllegalCommand("The game is over.")
        command = self.normalize(command)
        if seat not in self.active(state):
            raise IllegalCommand(self.waiting_for(state))
        return command

    def waiting_for(self, state: Any) -> str:
        """Whose move it is, in a sentence (for a seat that tried to move)."""
        return "It is not your move."

    def active(self, state: Any) -> tuple[int, ...]:
        raise NotImplementedError

    def legal(self, state: Any, seat: int) -> list[Command]:
        raise NotImplementedError

    def view(self, state: Any, seat: Viewer) -> dict[str, Any]:
        raise NotImplementedError

    def redact(self, event: Event, seat: Viewer) -> Event:
        return event

    def describe(self, event: Event, seat: Viewer) -> str:
        return event.get("t", "?")

    def outcome(self, state: Any) -> Outcome | None:
        raise NotImplementedError

    def score_sheet(self, view: dict[str, Any]) -> ScoreSheet | None:
        """The breakdown of the last scoring the seat of ``view`` has seen (a
        round's, or the final one), computed from that view alone so that a
        remote player and a replay get the same; None before any scoring."""
        return None

    # -- what a seat knows (the search bot) ------------------------------------

    def observe(self, state: Any, seat: int) -> Any:
        """The state as ``seat`` knows it, for a search bot to sample from.

        Every card or choice the seat cannot see is replaced by :data:`UNSEEN`
        (or left out), and whatever it cannot know the order of is put in a
        canonical order, so that two states with the same ``view(state, seat)``
        give *equal* observations: a bot given the observation cannot peek.
        A game without hidden information returns the state itself.
        """
        return state

    #: how many moves the search bot plays out before it judges the position
    #: by :meth:`estimate` instead of playing to the end (None: to the end)
    search_horizon: int | None = None

    #: the search bot compares its moves on the same deals (a flat, paired Monte
    #: Carlo) instead of growing a tree: for a game of many small decisions,
    #: where the cards dealt decide more than any one move (core/bots/search.py)
    search_paired: bool = False

    def search_moves(self, state: Any, seat: int, legal: list[Command]) -> list[Command]:
        """The moves among ``legal`` that the search bot weighs (``state`` may
        be one the seat cannot see all of: use only what the seat knows).  By
        default all of them; a game leaves out moves that do just what another
        does, or that no player would make, so that the budget goes to the
        choices that differ."""
        return legal

    def search_cutoff(self, known: Any, state: Any, played: int) -> bool:
        """Does the search bot stop a play-out at ``state`` and judge it by
        :meth:`estimate`?  ``known`` is what the search started from and
        ``played`` the moves played out so far; by default, after
        :attr:`search_horizon` moves (never, without one)."""
        return self.search_horizon is not None and played >= self.search_horizon

    def estimate(self, state: Any) -> tuple[float, ...]:
        """Each seat's chance of winning, judged from the position alone
        (shares of 1).  The search bot asks it where it cuts a play-out short
        (:meth:`search_cutoff`); only games that cut need it."""
        raise NotImplementedError

    def determinize(self, known: Any, seat: int, rng: random.Random, redo: bool = False) -> Any:
        """A whole state drawn at random among those ``seat`` cannot tell from
        ``known`` (what :meth:`observe` gave): every unseen card dealt from the
        cards unaccounted for, so that ``view(result, seat)`` equals the view
        ``known`` was observed from.

        With ``redo``, choices other seats have made but not yet revealed (a
        program in Edgar & Lucien) are withdrawn instead, so that a simulation
        has those seats choose again, as they would, without seeing ours.
        """
        return known

    # -- helpers the shell uses -------------------------------------------

    def mark(self, event: Event) -> str | None:
        """``"round"`` or ``"turn"`` when this event starts one (replay jumps)."""
        return None

    def scores_of(self, event: Event) -> tuple[int, ...] | None:
        """Each seat's score, when ``event`` scores a round (or the game, in a game of
        one scoring); None for any other event, and in a game that keeps no scores
        (the analysis of a finished game charts them)."""
        return None

    def reveals(self, event: Event, seat: int) -> bool:
        """Does this event show ``seat`` something it did not know?

        A move may be taken back only while nothing was revealed to a human
        player since (``table.Table.takeback_refusal``).
        """
        return True

    def canonical(self, state: Any) -> Any:
        """What checkpoint digests are taken of: the state itself by default
        (frozen dataclasses, tuples, plain values; see :func:`digest`)."""
        return state

    def state_records(self) -> dict[str, type]:
        """The records (dataclasses) a state of this game may hold, by the name
        :func:`freeze` writes them under: those of the packages its rules come from
        (the game's class and the classes it derives from), among the modules
        loaded already.  A checkpoint's state is made again only of these
        (:func:`thaw`): never of a class a file names."""
        cached = self.__dict__.get("_state_records")
        if cached is None:
            cached = _records_of(type(self))
            self.__dict__["_state_records"] = cached
        return cached


#: bot levels saved under another name by earlier versions
LEVEL_ALIASES = {"heuristic": "easy"}


class Bot:
    """A player that chooses among ``legal`` commands from what its seat sees:
    its ``view``, and for a bot that simulates, ``known``, the state as its
    seat knows it (:meth:`Game.observe`), never the state itself."""

    level = "?"

    def choose(self, game: Game, view: dict[str, Any], legal: list[Command], known: Any = None) -> Command:
        raise NotImplementedError


# -- immutable states -----------------------------------------------------------


def revise(record: Any, **changes: Any) -> Any:
    """A copy of a frozen dataclass with some fields changed: ``dataclasses.replace``
    without the trip through ``__init__``, which dominates ``evolve`` (measured in
    bench/).  The record must not rely on ``__post_init__`` or ``__slots__``.
    Unchanged fields are shared, not copied."""
    new = object.__new__(type(record))
    fields = new.__dict__
    fields.update(record.__dict__)
    fields.update(changes)
    return new


# -- plain data and digests ---------------------------------------------------


@functools.cache
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(sorted(f.name for f in dataclasses.fields(cls)))


def to_plain(value: Any) -> Any:
    """Frozen dataclasses, tuples and sets as msgpack-ready plain data, in a canonical order."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {name: to_plain(getattr(value, name)) for name in _field_names(type(value))}
    if isinstance(value, dict):
        return {str(k): to_plain(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((to_plain(v) for v in value), key=repr)
    return value


def _packable(value: Any) -> Any:
    """What msgpack cannot pack by itself: records by sorted field, sets sorted."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [getattr(value, name) for name in _field_names(type(value))]
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    raise TypeError(f"cannot digest a {type(value).__name__}")


def digest(value: Any) -> str:
    """A short stable digest of a state or plain data (checkpoints).

    msgpack walks the value in C; only records and sets come back to Python.
    The same log folded by the same rules always gives the same bytes.
    """
    import msgpack  # here, not at the top: listing the games need not load it

    return hashlib.sha256(msgpack.packb(value, use_bin_type=True, default=_packable)).hexdigest()[:32]


# -- states as plain data, and back (checkpoints that carry the state) ------------------


def _records_of(game_class: type) -> dict[str, type]:
    import sys

    packages = set()
    for cls in game_class.__mro__:
        if cls is Game or cls is object:
            break
        where = cls.__module__
        packages.add(where.rpartition(".")[0] or where)
    found: dict[str, type] = {}
    for name, module in list(sys.modules.items()):
        if not any(name == p or name.startswith(p + ".") for p in packages):
            continue
        for value in list(vars(module).values()):
            if isinstance(value, type) and dataclasses.is_dataclass(value) and value.__module__ == name:
                found[f"{name}.{value.__qualname__}"] = value
    return found


def freeze(value: Any) -> Any:
    """A state as plain data that :func:`thaw` makes back into an equal state, of the
    same types all through: a tuple as a list; a list, a map, a set, a frozen set and a
    record (a dataclass, its fields in declared order) each as a map of one key
    (``L``, ``D`` with its pairs, ``S``, ``F``, ``R`` with the record's name first).
    Raises TypeError for what a state should not hold (a float, bytes, an object)."""
    kind = type(value)
    if value is None or kind is str or kind is int or kind is bool:
        return value
    if kind is tuple:
        return [freeze(v) for v in value]
    if kind is list:
        return {"L": [freeze(v) for v in value]}
    if kind is dict:
        return {"D": [[freeze(k), freeze(v)] for k, v in value.items()]}
    if kind is frozenset:
        return {"F": [freeze(v) for v in value]}
    if kind is set:
        return {"S": [freeze(v) for v in value]}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        record: Any = kind
        name = f"{record.__module__}.{record.__qualname__}"
        return {"R": [name] + [freeze(getattr(value, f)) for f in _declared_fields(record)]}
    raise TypeError(f"a state cannot hold a {kind.__name__}")


#: what :func:`thaw` takes as it is
_SCALARS = frozenset((str, int, bool, type(None)))
#: how deep :func:`thaw` goes (the games' states nest four or five deep)
THAW_DEPTH = 16


def thaw(plain: Any, records: dict[str, type], depth: int = THAW_DEPTH) -> Any:
    """The state :func:`freeze` made ``plain`` of, records taken only from ``records``
    (:meth:`Game.state_records`).  Raises ValueError for anything :func:`freeze` does
    not make: an unknown record, a record with the wrong number of fields, a tag
    unknown, a map key that cannot be one, nesting past ``depth``."""
    kind = type(plain)
    if plain is None or kind is str or kind is int or kind is bool:
        return plain
    if depth <= 0:
        raise ValueError("a state nested too deep")
    if kind is list:
        if _SCALARS.issuperset(map(type, plain)):  # cards, names, numbers: nothing inside to make again
            return tuple(plain)
        return tuple([thaw(v, records, depth - 1) for v in plain])
    if kind is not dict or len(plain) != 1:
        raise ValueError("not a frozen state")
    ((tag, inner),) = plain.items()
    if type(inner) is not list:
        raise ValueError("not a frozen state")
    if tag == "R":
        if not inner or type(inner[0]) is not str:
            raise ValueError("a record without a name")
        cls = records.get(inner[0])
        if cls is None:
            raise ValueError("a record this game does not have")
        names = _declared_fields(cls)
        if len(names) != len(inner) - 1:
            raise ValueError("a record with other fields")
        record: Any = object.__new__(cls)
        record.__dict__.update(zip(names, [thaw(v, records, depth - 1) for v in inner[1:]], strict=True))
        return record
    items = [thaw(v, records, depth - 1) for v in inner]
    try:
        if tag == "L":
            return items
        if tag == "F":
            return frozenset(items)
        if tag == "S":
            return set(items)
        if tag == "D":
            if not all(type(pair) is tuple and len(pair) == 2 for pair in items):
                raise ValueError("a map that is not pairs")
            return dict(items)
    except TypeError:  # an unhashable key or member
        raise ValueError("a key that cannot be one") from None
    raise ValueError("not a frozen state")


@functools.cache
def _declared_fields(cls: Any) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


def win_shares(scores: Sequence[float], spread: float) -> tuple[float, ...]:
    """Scores as chances of winning: a softmax whose ``spread`` is the lead,
    in the game's points, that makes a seat e (2.7) times likelier to win."""
    best = max(scores)
    weights = [math.exp((x - best) / spread) for x in scores]
    total = sum(weights)
    return tuple(w / total for w in weights)


def derive_rng(seed: int, *path: object) -> random.Random:
    """An RNG derived from a seed and a path: the same on every machine."""
    text = "/".join([str(seed), *map(str, path)])
    return random.Random(int.from_bytes(hashlib.sha256(text.encode()).digest()[:16], "big"))


# -- the match ---------------------------------------------------------------


@dataclass
class Move:
    """One command and the events it caused: ``events[start:end]``."""

    seat: int | None  # None for the setup
    command: Command | None
    start: int
    end: int


def make_header(
    game: Game,
    config: dict[str, Any],
    seed: int,
    controllers: Sequence[dict[str, Any]] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """The match header: everything needed to replay the log."""
    import datetime

    from core import __version__

    seats = []
    for i, s in enumerate(config["seats"]):
        ctl = dict(controllers[i]) if controllers and i < len(controllers) else {"kind": "human"}
        seats.append({**s, "kind": ctl.get("kind", "human"), "level": ctl.get("level")})
    header = {
        "game": game.id,
        "rules_version": game.rules_version,
        "players": config["players"],
        "seats": seats,
        "variants": dict(config["variants"]),
        "seed": int(seed),
        "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "app_version": __version__,
    }
    header.update({key: value for key, value in extra.items() if value is not None})  # (not given: left out)
    return header


def config_of(header: dict[str, Any]) -> dict[str, Any]:
    seats = [{k: v for k, v in s.items() if k not in ("kind", "level")} for s in header["seats"]]
    config = {"players": header["players"], "seats": seats, "variants": dict(header["variants"])}
    if "arranged" in header:  # a stacked deck, for tests and the rulebook's example
        config["arranged"] = header["arranged"]
    return config


class Match:
    """Header, event log, current state and history snapshots of one game.

    The state after any event ``n`` is a snapshot plus at most
    ``snapshot_every`` folds, so stepping through history stays instant.

    A match rebuilt from a save need not fold every event: the moves before a
    checkpoint that carries the state are taken in as they are
    (:meth:`take_unfolded`), and :meth:`settle` gives the state there.  The
    snapshots before it are then made when first asked for (:meth:`state_at`), a
    chunk at a time: from the nearest state known before them, a snapshot or a
    checkpoint's state (``anchors``, made on demand).
    """

    def __init__(self, game: Game, header: dict[str, Any], snapshot_every: int = 32) -> None:
        self.game = game
        self.header = header
        self.config = config_of(header)
        self.snapshot_every = snapshot_every
        self.events: list[Event] = []
        self.moves: list[Move] = []
        #: the state after k*K events, or None where it is not made yet (see the class docstring)
        self._snapshots: list[Any] = [game.initial(self.config)]
        #: states known at some events (a save's checkpoints), made when asked for; None: not usable
        self._anchors: dict[int, Callable[[], Any]] = {}
        #: ``state`` is behind the events taken in unfolded, until :meth:`settle`
        self._unsettled = False
        self.state = self._snapshots[0]

    # -- building -----------------------------------------------------------

    @classmethod
    def new(cls, game: Game, header: dict[str, Any]) -> Match:
        match = cls(game, header)
        events = game.setup(match.config, match.rng())
        match._append(None, None, events)
        return match

    def rng(self) -> random.Random:
        """The match's RNG at this point of the log."""
        return derive_rng(self.header["seed"], "match", len(self.events))

    def submit(self, seat: int, command: Command) -> list[Event]:
        """Play a command: put in normal form by :meth:`Game.normalize` and
        validated by ``decide``; raises IllegalCommand.  The move records the
        normal form, which is what a save writes."""
        if self.outcome is not None:
            raise IllegalCommand("The game is over.")
        command = self.game.normalize(command)
        if seat not in self.game.active(self.state):
            raise IllegalCommand("It is not your move.")
        events = self.game.decide(self.state, seat, command, self.rng())
        self._append(seat, command, events)
        return events

    def replay_move(self, seat: int | None, command: Command | None, events: Iterable[Event]) -> None:
        """Fold a recorded move (loading a save): no decide, no RNG."""
        self._append(seat, command, list(events))

    def take_unfolded(self, moves: Iterable[tuple[int | None, Command | None, list[Event]]]) -> None:
        """Take in recorded moves (seat, command, events) without folding them (a save's moves
        before a checkpoint that carries the state): :meth:`settle` must follow, with the
        state after them, before the match is read or played on."""
        events, append = self.events, self.moves.append
        for seat, command, evs in moves:
            start = len(events)
            events += evs
            append(Move(seat, command, start, len(events)))
        missing = len(events) // self.snapshot_every + 1 - len(self._snapshots)
        if missing > 0:
            self._snapshots += [None] * missing
        self._unsettled = True

    def settle(self, state: Any, anchors: dict[int, Callable[[], Any]] | None = None) -> None:
        """The state after every event taken in so far (a checkpoint's, verified by its
        caller); ``anchors``: the states known at earlier events, each made when first
        needed (a function that gives it, or None when it cannot be used)."""
        n = len(self.events)
        self.state = state
        self._unsettled = False
        if n % self.snapshot_every == 0:
            self._snapshots[n // self.snapshot_every] = state
        self._anchors.update(anchors or {})
        self._anchors[n] = lambda: state

    def _append(self, seat: int | None, command: Command | None, events: list[Event]) -> None:
        assert not self._unsettled, "a match taken in unfolded is settled before it is played on"
        start = len(self.events)
        state = self.state
        every = self.snapshot_every
        for ev in events:
            state = self.game.evolve(state, ev)
            self.events.append(ev)
            if len(self.events) % every == 0:
                self._snapshots.append(state)
        self.state = state
        self.moves.append(Move(seat, command, start, len(self.events)))

    # -- reading ------------------------------------------------------------

    @property
    def outcome(self) -> Outcome | None:
        return self.game.outcome(self.state)

    def active(self) -> tuple[int, ...]:
        return () if self.outcome is not None else tuple(self.game.active(self.state))

    def state_at(self, n: int) -> Any:
        """The state after the first ``n`` events."""
        n = max(0, min(n, len(self.events)))
        if n == len(self.events):
            return self.state
        k = n // self.snapshot_every
        state = self._snapshot(k)
        evolve = self.game.evolve
        for ev in self.events[k * self.snapshot_every : n]:
            state = evolve(state, ev)
        return state

    def _snapshot(self, k: int) -> Any:
        """The state after k*K events, made (with the snapshots before it that are
        missing, back to the nearest known state) if it is not yet."""
        snapshots = self._snapshots
        state = snapshots[k]
        if state is not None:
            return state
        every = self.snapshot_every
        target = k * every
        below = k - 1
        while snapshots[below] is None:  # snapshot 0, the initial state, is always there
            below -= 1
        start, state = below * every, snapshots[below]
        anchors = self._anchors  # (read as a copy: a state may be asked for from two threads at once)
        for at in sorted([a for a in list(anchors) if start < a <= target], reverse=True):
            make = anchors.get(at)
            made = make() if make is not None else None
            if made is not None:
                start, state = at, made
                break
            anchors.pop(at, None)  # a state that cannot be used: folded from further back
        evolve, events = self.game.evolve, self.events
        n = start
        while n < target:
            state = evolve(state, events[n])
            n += 1
            if n % every == 0:
                snapshots[n // every] = state
        return state

    def is_bot(self, seat: int) -> bool:
        return self.header["seats"][seat].get("kind") == "bot"

    def humans(self) -> list[int]:
        return [i for i in range(self.header["players"]) if not self.is_bot(i)]

    # -- moves, as players count them ------------------------------------------

    @property
    def move_count(self) -> int:
        """How many moves the players (and bots) have made: the setup is not one."""
        return len(self.moves) - 1

    def moves_within(self, n: int) -> int:
        """How many moves are complete within the first ``n`` events."""
        ends = [move.end for move in self.moves[1:]]
        return bisect.bisect_right(ends, n)

    def events_after_moves(self, k: int) -> int:
        """The number of events once ``k`` moves are made (0: right after the setup)."""
        k = max(0, min(k, self.move_count))
        return self.moves[k].end if self.moves else 0

    def truncate_moves(self, keep: int) -> None:
        """Keep the first ``keep`` moves, dropping the rest."""
        keep = max(1, keep)
        cut = self.moves[keep].start if keep < len(self.moves) else len(self.events)
        state = self.state_at(cut)
        del self.moves[keep:]
        del self.events[cut:]
        del self._snapshots[cut // self.snapshot_every + 1 :]
        for at in [a for a in self._anchors if a > cut]:
            del self._anchors[at]
        self.state = state
