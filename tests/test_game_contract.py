"""The game contract, checked the same way over every registered game.

One module, parametrised over ``core.games.all_games()``: a game is covered
here as soon as it is registered, the way OpenSpiel runs one random-simulation
test over all of its games.  The game's own test files check its rules; this
one checks only what ``core.engine.Game`` promises of every game.

The tables: every player count from ``min_players`` to ``max_players``; at
each, one table per choice of the widest variant (the k-th table takes the
k-th choice of every variant, so each choice of each variant is played at each
player count, the unlisted ones that old saves hold too; a variant offered at
some player counts only is varied at those), then random choices among those
a new game offers, up to ``TABLES_PER_COUNT`` tables; seat options (an agent, a candidate) and the seed
drawn from a seeded RNG.  Every table is one random game, played once and
shared by the five checks.

1. **Random play ends.**  ``table.new_match``, then a random legal move by
   a random active seat until ``outcome`` is set, within ``MAX_MOVES`` moves.
   The outcome names its winners among the seats (each once, in order), else a
   seatless victor, never both; it gives a reason; nobody is then active, ``legal``
   offers nobody anything and ``decide`` refuses with "The game is over.".
2. **Every legal command is accepted.**  At every position of the game (the
   match rebuilt move by move, which also checks that ``decide`` makes again
   the events it made): ``legal`` is empty for a seat not in ``active`` and not
   empty for one that is, every command it offers is already in normal form
   and passes ``decide`` on the same state, and that state is left unchanged.
3. **Every refusal is one sentence.**  At the sampled positions (``SAMPLED`` at
   random, the start and the end among them, and one where each kind of move
   was made), for each active seat and a legal command of each kind it has,
   drawn at random: the command made out of turn (every
   seat not active, and a seat past the table), with an unknown or missing tag,
   each field of the wrong type, out of its declared bounds, missing, or with a
   field the game does not know, and things that are not a command at all, are
   refused with :class:`IllegalCommand` and never another exception; a field
   given every other value its shape allows (every option of a named field, a
   whole number's range) is accepted only when ``legal`` offers the result
   (but for the commands ``ACCEPTED_UNOFFERED`` names, with the rulebook's
   reason).  A refusal is one line, one sentence: it does not start in lower
   case, ends with a full stop, has no second sentence inside (a full stop then
   a capital), and no Python repr (``{'``, ``['``, ``Traceback``...).
4. **Views hold nothing the seat may not know.**  At the sampled positions, for
   each seat ``s`` and ``DRAWS`` seeds, ``d = determinize(observe(state, s), s, rng)``:
   ``view(d, s) == view(state, s)``, ``observe(d, s) == observe(state, s)``,
   ``active``, whether the game is over and ``legal(d, s)`` are the same, and so
   is the spectator's ``view(d, PUBLIC)`` (a spectator knows no more than any
   seat).  Where ``observe`` takes ``PUBLIC`` too (it is tried at the table's
   start), the spectator's own determinized states show it the same view too.

   What this proves: nothing ``determinize`` deals afresh (another seat's hand,
   the order of a face-down pile, a program not yet revealed) shows in the
   seat's view, its legal moves or the spectator's view.  What it does not: that
   ``observe`` hides all it should.  What the observation keeps, ``determinize``
   keeps and this check cannot see; each game's ``test_<game>_knowledge.py``
   checks its observation against the rulebook.  Nor is it vacuous: some
   determinized state of each game differs from the real one.

   The history, event by event, as each seat and the spectator are told it
   (``redact``): a string value of the state (a card, a district, a wheel
   setting) that the redacted event tells one seat but not the spectator, and
   that none of the seat's views so far (this event's included) has shown,
   must be one whose place the seat knows all the same: no ``determinize`` of
   its observation puts it elsewhere.  The spectator is told no such string that
   a seat is not told.  Some event is redacted for every seat and the spectator,
   ``redact(event, ALL)`` is the event, and a redacted event is plain data (it is
   sent as it is).  What this does not judge: what every viewer is told alike
   (a card played face up is public by the game's say-so: each game's tests
   check that), numbers (a hidden amount of Cogs), and dict keys.
5. **Replay equals play.**  The match, written as it is played by a
   ``saves.SaveWriter`` into a temporary directory and loaded back with
   ``saves.load`` (folded, as a sealed save is) and again re-derived (every move
   decided again from the seed), gives the same header, events, moves and
   outcome, and the same ``digest(canonical(state))`` after every move; and
   ``describe(redact(event, viewer), viewer)`` is one line of text for every
   event and every viewer (each seat, ``PUBLIC``, ``ALL``).

The module takes about 20 seconds on one core.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import msgpack
import pytest

from core.engine import (
    _REQUIRED,
    ALL,
    PUBLIC,
    Command,
    Field,
    Game,
    IllegalCommand,
    Match,
    Variant,
    Viewer,
    digest,
    to_plain,
)
from core.games import all_games
from saves import SaveWriter, load
from table import new_match
from tests.random_games import check_legal, play_random, strings

GAMES = all_games()

#: tables at each player count of each game (more when a variant has more choices)
TABLES_PER_COUNT = 3
#: far above the longest random game of any game (Edgar & Lucien: 968 moves in 2,000 games)
MAX_MOVES = 5000
#: positions of a game (the start and the end among them) at which the refusals and the
#: determinizations are checked, besides one where each kind of move was made
SAMPLED = 8
#: determinizations drawn for each seat at a sampled position
DRAWS = 2

#: commands a game accepts though ``legal`` does not offer them, as its rulebook has it:
#: (game, command) -> why.  Everything else a game accepts, ``legal`` must offer.
ACCEPTED_UNOFFERED = {
    ("edgar-lucien", "Program"): (
        "a wheel setting that leads nowhere from the character's district is accepted and the character "
        "stays (rulebook: 'If a movement proves impossible ... that movement is lost'); legal offers only "
        "the settings that lead somewhere"
    ),
}


@dataclass(frozen=True)
class Table:
    game_id: str
    players: int
    variants: tuple[tuple[str, str], ...]
    seats: tuple[tuple[tuple[str, str], ...], ...]
    seed: int

    @property
    def game(self) -> Game:
        return GAMES[self.game_id]

    def __str__(self) -> str:
        chosen = ",".join(f"{k}={v}" for k, v in self.variants)
        return f"{self.game_id}-{self.players}p-{chosen or 'plain'}-seed{self.seed}"


def seat_choices(game: Game, players: int, rng: random.Random) -> tuple[tuple[tuple[str, str], ...], ...]:
    """Each seat's options (an agent, a candidate), drawn at random as a player might pick them."""
    seats: list[dict[str, str]] = [{} for _ in range(players)]
    for option in game.seat_options:
        if option.unique and len(option.choices) >= players:
            picks = rng.sample(option.choices, players)
        elif option.unique:  # fewer choices than seats: the table fills in the rest
            picks = rng.sample(option.choices, len(option.choices))
        else:
            picks = [rng.choice(option.choices) for _ in range(players)]
        # fewer picks than seats when a unique option has too few choices: the seats
        # past them choose nothing
        for seat, pick in zip(seats, picks, strict=False):
            seat[option.key] = pick
    return tuple(tuple(sorted(seat.items())) for seat in seats)


def variant_choice(variant: Variant, k: int, widest: int, rng: random.Random) -> str:
    """The ``k``-th table's choice: the ``k``-th choice while there are choices left to cover
    (an unlisted one too: old saves hold it), then a random one among those a new game offers."""
    if k < widest:
        return variant.choices[k % len(variant.choices)]
    return rng.choice(variant.choices) if variant.listed else variant.default


def tables() -> list[Table]:
    out = []
    for game_id, game in sorted(GAMES.items()):
        for players in range(game.min_players, game.max_players + 1):
            varied = [v for v in game.variants if not v.players or players in v.players]
            widest = max((len(v.choices) for v in varied), default=1)
            for k in range(max(widest, TABLES_PER_COUNT)):
                rng = random.Random(f"{game_id}/{players}/{k}")
                variants = tuple((v.key, variant_choice(v, k, widest, rng)) for v in varied)
                out.append(Table(game_id, players, variants, seat_choices(game, players, rng), rng.randrange(2**32)))
    return out


TABLES = tables()
IDS = [str(t) for t in TABLES]


def start(table: Table, **extra: Any) -> Match:
    return new_match(
        table.game,
        table.players,
        seats=[dict(s) for s in table.seats],
        seed=table.seed,
        variants=dict(table.variants),
        bot_seed=0,
        **extra,
    )


@dataclass
class Played:
    """A table's random game, played once and shared by the checks, with its save."""

    match: Match
    save: Path


@cache
def played(table: Table, directory: Path) -> Played:
    match = start(table)
    path = directory / f"{table}.cab"
    with SaveWriter(path, match, durable=False) as writer:
        play_random(match, table.seed, deep=False, max_moves=MAX_MOVES, writer=writer)
    return Played(match, path)


@pytest.fixture(scope="session")
def saves_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("contract")


def positions(match: Match) -> list[int]:
    """The moves after which the sampled checks look: ``SAMPLED`` spread over the game at
    random, the start and the end among them, and for each kind of move the game saw
    (``PlayCard``, ``Bid``...) one position where it was made, so that every phase is seen."""
    count = match.move_count
    rng = random.Random(match.header["seed"])
    chosen = {0, count, *rng.sample(range(count + 1), min(count + 1, SAMPLED - 2))}
    made: dict[str, list[int]] = {}
    for k, move in enumerate(match.moves[1:]):
        assert move.command is not None
        made.setdefault(move.command["t"], []).append(k)
    chosen |= {rng.choice(ks) for _, ks in sorted(made.items())}
    return sorted(chosen)


def viewers(match: Match) -> list[Viewer]:
    return [*range(match.header["players"]), PUBLIC]


# -- 1. random play ends ------------------------------------------------------------------------


@pytest.mark.parametrize("table", TABLES, ids=IDS)
def test_random_play_ends_with_winners_among_the_seats(table: Table, saves_dir: Path) -> None:
    match = played(table, saves_dir).match
    game, players = match.game, table.players
    outcome = match.outcome
    assert outcome is not None, f"no outcome after {match.move_count} moves"
    assert match.move_count < MAX_MOVES
    assert list(outcome.winners) == sorted(set(outcome.winners)), outcome
    assert all(type(w) is int and 0 <= w < players for w in outcome.winners), outcome
    assert outcome.winners or outcome.victor, "the outcome names no winner"
    assert not (outcome.winners and outcome.victor), "seats and a seatless victor both win"
    assert outcome.scores == () or len(outcome.scores) == players, outcome
    assert isinstance(outcome.reason, str) and outcome.reason.strip(), outcome
    assert match.active() == ()
    for seat in range(players):
        assert game.legal(match.state, seat) == []
        with pytest.raises(IllegalCommand, match=r"^The game is over\.$"):
            match.submit(seat, legal_anywhere(match)[-1])


# -- 2. every legal command is accepted -----------------------------------------------------------


@pytest.mark.parametrize("table", TABLES, ids=IDS)
def test_every_legal_command_is_accepted_and_only_active_seats_have_any(table: Table, saves_dir: Path) -> None:
    recorded = played(table, saves_dir).match
    game = recorded.game
    match = start(table)
    assert match.events == recorded.events[: len(match.events)]
    for move in recorded.moves[1:]:
        state = match.state
        before = digest(game.canonical(state))
        check_legal(match)  # empty for a seat not to move, not empty for one that is, each decided
        for seat in match.active():
            for command in game.legal(state, seat):
                assert game.normalize(command) == command, f"legal offers {command!r}, not in normal form"
        assert digest(game.canonical(state)) == before, "decide changed the state it was given"
        assert move.seat is not None and move.command is not None
        match.submit(move.seat, move.command)
        assert match.events[move.start : move.end] == recorded.events[move.start : move.end], (
            f"move {len(match.moves) - 1} ({move.command!r}) decided again made other events"
        )
    assert match.outcome == recorded.outcome


# -- 3. every refusal is one sentence ---------------------------------------------------------------

#: a second sentence inside a refusal: a full stop, then a capital
_SECOND_SENTENCE = re.compile(r"[.!?]\s+[A-Z]")
#: what a Python repr leaks into a sentence
_REPR = re.compile(r"\{'|\['|Traceback|object at 0x|<[a-z_.]+ |\\x|\\u")


def one_sentence(text: Any) -> bool:
    return (
        isinstance(text, str)
        and bool(text)
        and "\n" not in text
        and not text[0].islower()
        and text.endswith(".")
        and not _SECOND_SENTENCE.search(text[:-1])
        and not _REPR.search(text)
    )


def refusal(game: Game, state: Any, seat: int, command: Any, why: str) -> str | None:
    """The sentence ``decide`` refuses ``command`` with, None if it accepts it; any other exception fails."""
    try:
        game.decide(state, seat, command, random.Random(0))
    except IllegalCommand as exc:
        text = str(exc)
        assert one_sentence(text), f"{why}: {command!r} was refused with {text!r}, not one sentence"
        return text
    except Exception as exc:
        raise AssertionError(f"{why}: {command!r} raised {type(exc).__name__}: {exc}") from exc
    return None


def declared(game: Game, command: Command) -> list[tuple[str, Field]]:
    """The fields of ``command``'s shape, those its switch brings included."""
    shape = (game.command_shapes or {})[command["t"]]
    fields = list(shape.fields)
    if shape.switch is not None:
        fields += list(shape.cases.get(command[shape.switch], ()))
    return fields


def sample_value(f: Field) -> Any:
    """A value ``f`` takes (the first allowed): for lists of the wrong length."""
    if f.kind == "int":
        return f.lo
    if f.kind == "str":
        return f.options[0] if f.options else ""
    if f.kind == "bool":
        return False
    assert f.item is not None
    return [sample_value(f.item)] * f.item.lo if f.item.kind == "list" else sample_value(f.item)


def wrong_values(f: Field, value: Any) -> list[tuple[str, Any]]:
    """Values ``f`` refuses by its shape alone: of another type, or out of its bounds."""
    out: list[tuple[str, Any]] = [("a decimal", 1.5), ("a group of fields", {"t": 1})]
    if f.kind == "int":
        out += [("text", str(f.lo)), ("true", True), ("past the top", f.hi + 1), ("under the bottom", f.lo - 1)]
        out += [("huge", 2**70)]
    elif f.kind == "str":
        out += [("a number", 7), ("a list", [value])]
        out += [("another option", "No such thing")] if f.options else [("too long", "x" * (f.hi + 1))]
    elif f.kind == "bool":
        out += [("a number", 1), ("text", "true")]
    else:
        item = sample_value(f.item)  # type: ignore[arg-type]
        out += [("text", "x"), ("a number", 0), ("too many", [item] * (f.hi + 1))]
        if f.lo > 0:
            out += [("too few", [item] * (f.lo - 1))]
        if isinstance(value, list) and value:
            out += [("an item of the wrong type", [1.5, *value[1:]])]
    if f.default is not None:
        out.append(("nothing", None))
    return out


def every_value(f: Field) -> list[Any]:
    """Every value a field's shape allows, when there are few enough to try them all."""
    if f.kind == "int" and f.hi - f.lo <= 200:
        return list(range(f.lo, f.hi + 1))
    if f.kind == "str" and f.options:
        return list(f.options)
    if f.kind == "bool":
        return [False, True]
    return []


def crafted(game: Game, command: Command) -> list[tuple[str, Any]]:
    """Commands made from a legal one that must be refused, and why each."""
    tag = command["t"]
    out: list[tuple[str, Any]] = []
    for name, f in declared(game, command):
        for why, value in wrong_values(f, command.get(name)):
            out.append((f"'{name}' {why}", {**command, name: value}))
        if name in command and f.default is _REQUIRED:
            out.append((f"no '{name}'", {k: v for k, v in command.items() if k != name}))
    out += [
        ("a field the game does not know", {**command, "zz": 1}),
        ("an unknown tag", {**command, "t": "NoSuchMove"}),
        ("a tag that is not text", {**command, "t": 3}),
        ("no tag", {k: v for k, v in command.items() if k != "t"}),
        ("not a dict: nothing", None),
        ("not a dict: the tag alone", tag),
        ("not a dict: a list", [command]),
        ("not a dict: a number", 3),
    ]
    if tag.lower() != tag:
        out.append(("the tag in lower case", {**command, "t": tag.lower()}))
    return out


@pytest.mark.parametrize("table", TABLES, ids=IDS)
def test_every_refusal_is_one_sentence(table: Table, saves_dir: Path) -> None:
    match = played(table, saves_dir).match
    game, players = match.game, table.players
    for k in positions(match):
        state = match.state_at(match.events_after_moves(k))
        before = digest(game.canonical(state))
        active = game.active(state) if game.outcome(state) is None else ()
        for seat in active:
            legal = game.legal(state, seat)
            pick = random.Random(f"{k}/{seat}")
            kinds = sorted({c["t"] for c in legal})
            for command in (pick.choice([c for c in legal if c["t"] == t]) for t in kinds):
                for other in [*(s for s in range(players) if s not in active), players]:
                    assert refusal(game, state, other, command, f"seat {other} out of turn") is not None
                for why, bad in crafted(game, command):
                    assert refusal(game, state, seat, bad, why) is not None, f"{why}: accepted {bad!r}"
                offered_only = (table.game_id, command["t"]) not in ACCEPTED_UNOFFERED
                for name, f in declared(game, command):
                    for value in every_value(f):
                        other_command = {**command, name: value}
                        accepted = refusal(game, state, seat, other_command, f"'{name}' = {value!r}") is None
                        if accepted and offered_only:
                            assert game.normalize(other_command) in legal, (
                                f"accepted {other_command!r}, which legal does not offer"
                            )
        if game.outcome(state) is not None:
            any_command = next(iter(legal_anywhere(match)))
            assert refusal(game, state, 0, any_command, "after the end") == "The game is over."
        assert digest(game.canonical(state)) == before, "a refusal changed the state"


def legal_anywhere(match: Match) -> list[Command]:
    """Commands that were legal at some point of the match (those it recorded)."""
    return [m.command for m in match.moves[1:] if m.command is not None]


# -- 4. views hold nothing the seat may not know ----------------------------------------------------


def secret_free(game: Game) -> bool:
    """A game of open information: its observation is the state itself."""
    return type(game).observe is Game.observe


@pytest.mark.parametrize("table", TABLES, ids=IDS)
def test_a_seat_sees_the_same_in_every_state_it_cannot_tell_apart(table: Table, saves_dir: Path) -> None:
    match = played(table, saves_dir).match
    game, players = match.game, table.players
    redrawn = 0
    spectators = observes_spectators(game, match.state_at(match.events_after_moves(0)))
    for k in positions(match):
        state = match.state_at(match.events_after_moves(k))
        public, active, over = game.view(state, PUBLIC), game.active(state), game.outcome(state) is not None
        real = digest(game.canonical(state))
        for seat in range(players):
            known = game.observe(state, seat)
            view, legal = game.view(state, seat), game.legal(state, seat)
            for draw in range(DRAWS):
                d = game.determinize(known, seat, random.Random(draw))
                where = f"after move {k}, seat {seat}, draw {draw}"
                assert game.view(d, seat) == view, f"{where}: the seat's view differs"
                assert game.observe(d, seat) == known, f"{where}: the observation differs"
                assert game.active(d) == active, f"{where}: another seat is to move"
                assert (game.outcome(d) is not None) == over, f"{where}: the game is over in one and not the other"
                assert game.legal(d, seat) == legal, f"{where}: the seat's legal moves differ"
                assert game.view(d, PUBLIC) == public, f"{where}: the spectator's view differs"
                redrawn += digest(game.canonical(d)) != real
        if spectators:
            known = game.observe(state, PUBLIC)  # type: ignore[arg-type]
            for draw in range(DRAWS):
                d = game.determinize(known, PUBLIC, random.Random(draw))  # type: ignore[arg-type]
                assert game.view(d, PUBLIC) == public, f"after move {k}, draw {draw}: the spectator's own view differs"
    assert redrawn or secret_free(game), "no determinized state differed from the real one"


def observes_spectators(game: Game, start: Any) -> bool:
    """Does ``observe`` take ``PUBLIC`` as well as a seat?  ``Game.observe`` is for seats;
    a game whose observation of the spectator fails at the start of a table checks its
    spectator's view through its seats' determinizations alone."""
    try:
        game.determinize(game.observe(start, PUBLIC), PUBLIC, random.Random(0))  # type: ignore[arg-type]
    except Exception:  # noqa: BLE001 - any failure: the game observes seats only
        return False
    return True


def places(state: Any) -> dict[str, list[tuple]]:
    """Where each string value of a state stands: the path (field, key, index...) of each of its places."""
    found: dict[str, list[tuple]] = {}

    def walk(value: Any, path: tuple) -> None:
        if isinstance(value, str):
            found.setdefault(value, []).append(path)
        elif isinstance(value, dict):
            for key, item in value.items():
                walk(item, (*path, key))
        elif isinstance(value, list):
            for i, item in enumerate(value):
                walk(item, (*path, i))

    walk(to_plain(state), ())
    return found


def few(names: set[str]) -> str:
    """Some of ``names``, for a message."""
    listed = sorted(names)
    return ", ".join(listed[:6]) + (f" and {len(listed) - 6} more" if len(listed) > 6 else "")


def unknown_to(game: Game, state: Any, seat: int, names: set[str]) -> set[str]:
    """Those of ``names`` whose place ``seat`` cannot know: a state it cannot tell
    from this one (``determinize``) holds them elsewhere, or not at all."""
    real = places(state)
    known = game.observe(state, seat)
    out: set[str] = set()
    for draw in range(DRAWS):
        drawn = places(game.determinize(known, seat, random.Random(draw)))
        out |= {x for x in names if drawn.get(x) != real.get(x)}
    return out


@pytest.mark.parametrize("table", TABLES, ids=IDS)
def test_the_history_tells_a_viewer_nothing_it_may_not_know(table: Table, saves_dir: Path) -> None:
    match = played(table, saves_dir).match
    game, players = match.game, table.players
    state = game.initial(match.config)
    shown: list[set[str]] = [set() for _ in range(players)]
    hides: set[Viewer] = set()  # the viewers some event was redacted for
    for n, event in enumerate(match.events):
        state = game.evolve(state, event)
        held = places(state)
        where = f"event {n} ({event['t']})"
        assert game.redact(event, ALL) == event, f"{where} is not whole for ALL"
        public = game.redact(event, PUBLIC)
        assert msgpack.unpackb(msgpack.packb(public, use_bin_type=True), raw=False) == public, where
        told_all = {x for x in places(public) if x in held}
        hides |= {PUBLIC} if public != event else set()
        for seat in range(players):
            shown[seat] |= strings(game.view(state, seat))
            seen = game.redact(event, seat)
            assert msgpack.unpackb(msgpack.packb(seen, use_bin_type=True), raw=False) == seen, (where, seat)
            told = {x for x in places(seen) if x in held}
            hides |= {seat} if seen != event else set()
            assert told_all <= told, f"{where} shows a spectator {few(told_all - told)}, hidden from seat {seat}"
            # told this seat alone and never shown in its views: a leak, unless the seat
            # knows where it is all the same (a card the rules set out)
            private = told - told_all - shown[seat]
            leaked = unknown_to(game, state, seat, private) if private else set()
            assert not leaked, f"{where} shows seat {seat} {few(leaked)}, which it cannot know"
    everybody = {*range(players), PUBLIC}
    assert secret_free(game) or hides == everybody, f"no event was redacted for {everybody - hides}"


# -- 5. replay equals play --------------------------------------------------------------------------


def checkpoints(match: Match) -> list[str]:
    game = match.game
    return [digest(game.canonical(match.state_at(move.end))) for move in match.moves]


@pytest.mark.parametrize("table", TABLES, ids=IDS)
def test_a_saved_game_replays_as_it_was_played(table: Table, saves_dir: Path) -> None:
    live = played(table, saves_dir)
    match = live.match
    expected = checkpoints(match)
    for rederive in (False, True):
        loaded = load(live.save, GAMES, rederive=rederive)
        again = loaded.match
        how = "re-derived" if rederive else "folded"
        assert loaded.warnings == [], (how, loaded.warnings)
        assert again.header == match.header, how
        assert again.events == match.events, how
        assert [(m.seat, m.command, m.start, m.end) for m in again.moves] == [
            (m.seat, m.command, m.start, m.end) for m in match.moves
        ], how
        assert checkpoints(again) == expected, how
        assert again.outcome == match.outcome, how
    game = match.game
    for viewer in [*viewers(match), ALL]:
        for n, event in enumerate(match.events):
            line = game.describe(game.redact(event, viewer), viewer)
            assert isinstance(line, str) and "\n" not in line, (n, viewer, line)
