"""Every game checks the exact shape of a command before its rules read it.

A command is a dict with a known ``t`` and exactly the fields that move
takes, each of its type and within bounds.  Anything else (a float where a
whole number goes, a bool, None, a nested dict, 2**70, a field too many or
too few, not a dict at all) is refused by ``decide`` and ``Match.submit``
with one sentence, and changes nothing.  What is accepted is recorded in one
normal form, and ``legal`` offers commands already in it.
"""

from __future__ import annotations

import random
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.engine import Command, Game, IllegalCommand, Match, digest, make_header
from core.games import all_games, get_game

GAMES = all_games()
TABLES = [(gid, n) for gid, game in sorted(GAMES.items()) for n in range(game.min_players, game.max_players + 1)]

#: values no field of any game takes: refused wherever they replace a field's value
NEVER = [0.5, 1.0, 0.0, 2**70, -(2**70), -1, {"card": "x"}, [[1]], "\u2603 no such thing", b"bytes"]
#: values some field may take (a bool, None for a field that may be left out, an empty list...)
SOMETIMES = [True, False, None, [], [0, 1], "", 0, 1]


def new_match(game_id: str, players: int, seed: int, rng: random.Random) -> Match:
    game = get_game(game_id)
    variants = {v.key: rng.choice(v.choices) for v in game.variants}
    config = game.make_config(players, variants=variants)
    return Match.new(game, make_header(game, config, seed))


def assert_normal(game: Game, command: Command) -> None:
    normal = game.normalize(command)
    assert normal == command and list(normal.items()) == list(command.items()), command


def position(game_id: str, players: int, seed: int) -> tuple[Match, int, Command, random.Random]:
    """A random legal game played to its end, then cut back to a position
    where some seat may make a move of a tag drawn at random among those the
    game offered (so that rare moves get their turn): the match, the seat and
    a legal command of that tag.  On the way, every command legal offers is
    checked to be in normal form already."""
    rng = random.Random(seed)
    match = new_match(game_id, players, seed, rng)
    game = match.game
    offers: list[tuple[int, int, str]] = []  # (moves made, seat, tag offered)
    while match.active() and match.move_count < 3000:
        legal = {seat: game.legal(match.state, seat) for seat in match.active()}
        for seat, commands in legal.items():
            for command in commands:
                assert_normal(game, command)
            offers.extend((match.move_count, seat, t) for t in sorted({c["t"] for c in commands}))
        seat = rng.choice(match.active())
        match.submit(seat, rng.choice(legal[seat]))
    tag = rng.choice(sorted({t for _, _, t in offers}))
    at, seat, _ = rng.choice([o for o in offers if o[2] == tag])
    match.truncate_moves(at + 1)
    command = rng.choice([c for c in game.legal(match.state, seat) if c["t"] == tag])
    return match, seat, command, rng


def refusal(game: Game, state: Any, seat: int, command: Any, match: Match) -> str | None:
    """The sentence ``decide`` refuses ``command`` with (None if accepted); also
    checks that Match.submit refuses it the same way, changing nothing."""
    try:
        game.decide(state, seat, command, match.rng())
    except IllegalCommand as exc:
        sentence = str(exc)
        assert sentence and not sentence[0].islower() and sentence.endswith("."), sentence
        assert len(sentence) < 300, sentence  # a junk value is never echoed back whole
        before = (len(match.events), len(match.moves), match.state)
        with pytest.raises(IllegalCommand):
            match.submit(seat, command)
        assert (len(match.events), len(match.moves), match.state) == before
        return sentence
    return None


def variants_of(command: Command) -> list[tuple[str, Any]]:
    """Commands made from a legal one: each field (or a list's first item)
    replaced, a field added, a field dropped; with whether each must be refused."""
    out: list[tuple[bool, Any]] = []
    for key, value in command.items():
        if key == "t":
            continue
        for junk in NEVER:
            out.append((True, {**command, key: junk}))
        for maybe in SOMETIMES:
            out.append((False, {**command, key: maybe}))
        if isinstance(value, list) and value:
            for junk in [*NEVER, None, True, 7]:
                out.append((True, {**command, key: [junk, *value[1:]]}))
        out.append((False, {k: v for k, v in command.items() if k != key}))
    for extra in ("extra", "T", "", 7, None, "x" * 60_000):
        out.append((True, {**command, extra: 1}))
    out.append((True, {k: v for k, v in command.items() if k != "t"}))
    for tag in ("Nope", "", 3, None, ["PlayCard"], command["t"].lower(), command["t"] + " "):
        out.append((True, {**command, "t": tag}))
    for not_a_dict in (None, 3, command["t"], [command], tuple(command.items()), {command["t"]}):
        out.append((True, not_a_dict))
    return out


@pytest.mark.parametrize(("game_id", "players"), TABLES)
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)
@given(seed=st.integers(0, 10**6))
def test_a_command_of_the_wrong_shape_is_refused_with_a_sentence(game_id: str, players: int, seed: int) -> None:
    match, seat, command, _rng = position(game_id, players, seed)
    game, state = match.game, match.state
    before = digest(game.canonical(state))
    legal = game.legal(state, seat)
    for must_refuse, crafted in variants_of(command):
        sentence = refusal(game, state, seat, crafted, match)
        if must_refuse:
            assert sentence is not None, f"accepted {crafted!r}"
        elif sentence is None:  # accepted: then it is another spelling of a legal command
            assert game.normalize(crafted) in legal, f"accepted {crafted!r}, which legal does not offer"
    # well-typed whole numbers out of range are refused by the rules, never crash them
    for key, value in command.items():
        if type(value) is int:
            for n in range(-5, 1001):
                crafted = {**command, key: n}
                try:
                    game.decide(state, seat, crafted, match.rng())
                except IllegalCommand as exc:
                    assert str(exc)
                else:
                    assert crafted in legal, f"accepted {crafted!r}, which legal does not offer"
    assert digest(game.canonical(state)) == before and match.state is state


def respelled(command: Command) -> dict:
    """The same command with its keys the other way round and its lists as tuples."""
    return {k: tuple(v) if isinstance(v, list) else v for k, v in reversed(list(command.items()))}


@pytest.mark.parametrize(("game_id", "players"), TABLES)
@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)
@given(seed=st.integers(0, 10**6))
def test_a_move_is_saved_in_its_one_normal_form(game_id: str, players: int, seed: int) -> None:
    match, seat, command, _ = position(game_id, players, seed)
    match.submit(seat, respelled(command))
    saved = match.moves[-1].command
    assert saved == command and list(saved.items()) == list(command.items())
    assert msgpack.packb(saved, use_bin_type=True) == msgpack.packb(command, use_bin_type=True)


def test_a_junk_field_never_reaches_the_save() -> None:
    rng = random.Random(5)
    match = new_match("ministeres", 3, 5, rng)
    seat = match.active()[0]
    command = match.game.legal(match.state, seat)[0]
    with pytest.raises(IllegalCommand, match=r"field 'x{27}\.\.\.' the game does not know"):
        match.submit(seat, {**command, "x" * 60_000: "y"})
    assert match.move_count == 0
    match.submit(seat, command)
    assert len(msgpack.packb(match.moves[-1].command, use_bin_type=True)) < 100


def test_every_game_declares_the_shape_of_its_commands() -> None:
    for game_id, game in GAMES.items():
        assert game.command_shapes, game_id
        with pytest.raises(IllegalCommand, match=f"{game.title} has no move called 'Nope'"):
            game.normalize({"t": "Nope"})


# -- 1988: a float where the action goes -------------------------------------------------------


def cm_match_at(solo: bool, phase: str) -> Match:
    """A 1988 game played at random until it waits on ``phase``."""
    game = get_game("chirac-mitterrand")
    for seed in range(200):
        rng = random.Random(seed)
        match = Match.new(game, make_header(game, game.make_config(1 if solo else 2), seed))
        while match.active():
            if match.state.phase == phase:
                return match
            seat = match.active()[0]
            match.submit(seat, rng.choice(game.legal(match.state, seat)))
    raise AssertionError(f"no game reached the {phase} phase")


@pytest.mark.parametrize("solo", [False, True])
def test_1988_refuses_a_decimal_card_action(solo: bool) -> None:
    match = cm_match_at(solo, "play")
    game, state, seat = match.game, match.state, match.active()[0]
    command = game.legal(state, seat)[0]
    for action in (0.0, 1.0, 0.5, True, "0", None):
        with pytest.raises(IllegalCommand, match="first or second action"):
            game.decide(state, seat, {**command, "action": action}, match.rng())
        with pytest.raises(IllegalCommand, match="first or second action"):
            match.submit(seat, {**command, "action": action})
    assert match.state is state
    match.submit(seat, command)


def test_1988_refuses_a_decimal_veto() -> None:
    match = cm_match_at(True, "veto")
    game, state, seat = match.game, match.state, match.active()[0]
    for action in (0.0, 1.0, -0.0, False, [0], 2**70):
        with pytest.raises(IllegalCommand, match="which action of the card you veto"):
            game.decide(state, seat, {"t": "Veto", "action": action}, match.rng())
        with pytest.raises(IllegalCommand, match="which action of the card you veto"):
            match.submit(seat, {"t": "Veto", "action": action})
    assert match.state is state
    match.submit(seat, {"t": "Allow"})


def test_1988_two_players_remove_no_card() -> None:
    match = cm_match_at(False, "play")
    game, state, seat = match.game, match.state, match.active()[0]
    command = game.legal(state, seat)[0]
    with pytest.raises(IllegalCommand, match="Only the solo game removes a card"):
        match.submit(seat, {**command, "remove": command["under"][0]})


# -- the facility itself, on spellings legal never makes -----------------------------------------


def test_optional_fields_are_filled_in_or_left_out_as_declared() -> None:
    edgar = get_game("edgar-lucien")
    support = {"t": "LucienAdmin", "action": "support", "edgar": "heist"}
    assert list(edgar.normalize(support).items()) == [*support.items(), ("remote", False)]
    with pytest.raises(IllegalCommand, match="true or false"):
        edgar.normalize({**support, "remote": 0})
    with pytest.raises(IllegalCommand, match="'certificate' the game does not know"):
        edgar.normalize({**support, "certificate": "dandy"})  # a field of another action
    assert edgar.normalize({"t": "Intimidate", "players": (3, 1)}) == {"t": "Intimidate", "players": [1, 3]}
    with pytest.raises(IllegalCommand, match="needs a field 'district'"):
        edgar.normalize({"t": "PlayCard", "card": "plan-b"})
    cm = get_game("chirac-mitterrand")
    play = {"t": "PlayCard", "card": "ev:01", "action": 0, "under": ["ev:02", "ev:03"]}
    assert cm.normalize({**play, "choices": [], "remove": None}) == play
    campaign = {"t": "Campaign", "apply": "cp:01"}
    assert cm.normalize(campaign) == {**campaign, "remove": None}
