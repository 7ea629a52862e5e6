"""The shared core: the registry, the Match's history and take-backs."""

from __future__ import annotations

import random

import pytest

from core.engine import ConfigError, IllegalCommand, Match, digest, make_header, revise
from core.games import all_games, catalogue, game_titles, get_game
from table import Table
from tests.toygame import GAME as TOY


def toy_match(seed: int = 1, rounds: str = "30") -> Match:
    config = TOY.make_config(2, variants={"rounds": rounds})
    return Match.new(TOY, make_header(TOY, config, seed, [{"kind": "bot", "level": "random"}] * 2))


def test_every_game_package_names_itself_like_its_rules() -> None:
    assert set(catalogue()) == {"agent-jean", "chirac-mitterrand", "edgar-lucien", "ministeres"}
    for game_id, title in game_titles().items():
        game = get_game(game_id)
        assert (game.id, game.title) == (game_id, title)
    assert set(all_games()) == set(catalogue())
    assert get_game("no-such-game") is None


def test_the_state_after_any_event_is_the_fold_of_the_log() -> None:
    match = toy_match()
    Table(match).play_out()
    state = TOY.initial(match.config)
    for n, event in enumerate(match.events, start=1):
        state = TOY.evolve(state, event)
        assert match.state_at(n) == state
    assert match.state_at(0) == TOY.initial(match.config)


def test_the_same_seed_deals_the_same_game() -> None:
    a, b = toy_match(seed=9), toy_match(seed=9)
    Table(a).play_out()
    Table(b).play_out()
    assert a.events == b.events
    assert toy_match(seed=10).events != toy_match(seed=9).events


def test_a_move_out_of_turn_or_after_the_end_is_refused() -> None:
    match = toy_match(rounds="3")
    idle = 1 - match.active()[0]
    with pytest.raises(IllegalCommand, match="not your move"):
        match.submit(idle, {"t": "Gamble"})
    Table(match).play_out()
    with pytest.raises(IllegalCommand, match="over"):
        match.submit(0, {"t": "Gamble"})


def test_take_back_only_while_nothing_was_revealed_since() -> None:
    from tests.tui_helpers import agent_jean_match

    match = agent_jean_match(humans=1, players=2, seed=11)
    while 0 not in match.active():
        seat = match.active()[0]
        match.submit(seat, Table(match).bot_move(seat))
    before = list(match.events)
    card = match.game.view(match.state, 0)["hand"][0]
    match.submit(0, {"t": "PlayCard", "card": card})
    if 1 in match.active():  # the bot has not answered: the move is the player's to take back
        point = Table(match).takeback_point(0)
        assert point is not None
        match.truncate_moves(point)
        assert match.events == before
        assert match.state == match.state_at(len(before))
        match.submit(0, {"t": "PlayCard", "card": card})
        match.submit(1, Table(match).bot_move(1))  # the bot's card is now seen
    assert Table(match).takeback_point(0) is None


def test_bad_tables_are_refused_with_a_sentence() -> None:
    with pytest.raises(ConfigError, match="2 to 2 players"):
        TOY.make_config(3)
    with pytest.raises(ConfigError, match="no variant"):
        TOY.make_config(2, variants={"speed": "fast"})
    with pytest.raises(ConfigError, match="cannot both"):
        TOY.make_config(2, seats=[{"colour": "red"}, {"colour": "red"}])


def test_revise_changes_only_what_it_is_told_and_shares_the_rest() -> None:
    match = toy_match()
    state = match.state
    changed = revise(state, turn=state.turn + 1)
    assert changed.turn == state.turn + 1 and state.turn == match.state.turn
    assert changed.hands is state.hands
    assert changed == type(state)(**{**state.__dict__, "turn": state.turn + 1})


def test_digests_tell_states_apart_and_agree_on_equal_ones() -> None:
    a, b = toy_match(seed=3), toy_match(seed=3)
    assert digest(a.state) == digest(b.state)
    assert digest(a.state) != digest(toy_match(seed=4).state)
    rng = random.Random(0)
    assert digest({"x": [1, 2, rng.random()]}) == digest({"x": [1, 2, random.Random(0).random()]})
