"""The search bot (core/bots/search.py) in every game: its levels, that it
plays whole games legally, that it is deterministic, and that it does not
peek at cards its seat has not seen."""

from __future__ import annotations

import random

import pytest

from core.bots import bot_inputs, make_bot
from core.bots.search import SearchBot
from core.engine import Match, make_header
from core.games import all_games
from table import Table

GAMES = all_games()
#: a game of each, and the player counts whose hidden information differs
TABLES = [(gid, p) for gid, g in GAMES.items() for p in sorted({2, g.max_players}) if g.min_players <= p]


def match_of(game_id: str, players: int, seed: int, levels: list[str] | None = None) -> Match:
    game = GAMES[game_id]
    levels = levels or ["easy"] * players
    controllers = [{"kind": "bot", "level": level} for level in levels]
    return Match.new(game, make_header(game, game.make_config(players), seed, controllers, bot_seed=seed))


def positions(game_id: str, players: int, seed: int, every: int = 5) -> list[tuple[object, int]]:
    """(state, seat to move) at every ``every``-th decision with a choice of an easy-bot game."""
    match = match_of(game_id, players, seed)
    found, k = [], 0
    while match.active():
        seat = match.active()[0]
        if len(match.game.legal(match.state, seat)) > 1:
            if k % every == 0:
                found.append((match.state, seat))
            k += 1
        match.submit(seat, Table(match).bot_move(seat))
    return found


@pytest.mark.parametrize("game_id", list(GAMES))
def test_every_game_offers_four_levels_and_new_bots_play_normal(game_id: str) -> None:
    game = GAMES[game_id]
    assert game.bot_levels == ("random", "easy", "normal", "hard")
    # a new bot seat gets the search, measured stronger than the heuristic in every game (docs/BOTS.md)
    assert game.default_bot_level == "normal"
    assert game.search_budget["hard"] > game.search_budget["normal"] > 0
    assert isinstance(make_bot(game, "normal", 1), SearchBot) and isinstance(make_bot(game, "hard", 1), SearchBot)
    # saves made before the levels were named keep their bots
    assert type(make_bot(game, "easy", 1)) is type(make_bot(game, "easy", 1))


@pytest.mark.parametrize(("game_id", "players"), TABLES)
def test_the_search_bot_plays_whole_games_legally(game_id: str, players: int) -> None:
    """A small budget keeps this quick; every move goes through Match.submit,
    which refuses an illegal one."""
    match = match_of(game_id, players, 3)
    bots = {seat: SearchBot(seat + 10, 1) for seat in range(players)}
    Table(match).play_out(bots=bots)
    assert match.outcome is not None


@pytest.mark.parametrize("game_id", list(GAMES))
def test_the_same_seed_and_budget_give_the_same_move(game_id: str) -> None:
    state, seat = positions(game_id, 2, 11)[2]
    game = GAMES[game_id]
    view, legal, known = bot_inputs(game, state, seat)
    first = SearchBot(5, 600)
    chosen = first.choose(game, view, legal, known)
    again = SearchBot(5, 600).choose(game, view, legal, known)
    assert again == chosen
    assert chosen in legal
    # and the search looked at more than one move
    assert len(first.last["moves"]) > 1


def alternatives(game_id: str, state: object, seat: int, count: int) -> list[object]:
    """States ``seat`` cannot tell from ``state``: the others' hidden cards dealt anew."""
    game = GAMES[game_id]
    known = game.observe(state, seat)
    return [game.determinize(known, seat, random.Random(k)) for k in range(count)]


#: the thinking budget of the bots in the peeking test
PEEK_BUDGET = 300


@pytest.mark.parametrize(("game_id", "players"), TABLES)
def test_the_search_bot_does_not_peek(game_id: str, players: int) -> None:
    """Given the same view and seed, the search bot makes the same move
    whatever the hidden cards of the other seats are, and its whole search
    (every move it weighed, how often, how well it did) is the same.

    The counter-check shows the test has teeth: a bot handed the true state
    of those deals (a bot that peeked) searches differently; once it has
    done so, it is not asked again.

    A budget of 300 moves still runs a dozen iterations or more, each on its
    own deal: a leak of a hidden card would change the first play-out's
    result already, so a bigger budget would only repeat the check.
    """
    game = GAMES[game_id]
    differing = peeked_differently = 0
    for state, seat in positions(game_id, players, 21, every=9)[:4]:
        view = game.view(state, seat)
        legal = game.legal(state, seat)
        honest = SearchBot(2, PEEK_BUDGET)
        made = honest.choose(game, *bot_inputs(game, state, seat))
        assert honest.last["iterations"] > 1
        peeked = set()
        for other in alternatives(game_id, state, seat, 3):
            assert game.view(other, seat) == view
            assert game.legal(other, seat) == legal
            differing += other != state
            again = SearchBot(2, PEEK_BUDGET)
            assert again.choose(game, *bot_inputs(game, other, seat)) == made
            assert again.last == honest.last
            if peeked_differently:
                continue  # the counter-check has shown its teeth already
            peeker = SearchBot(2, PEEK_BUDGET)
            peeker.choose(game, view, legal, other)
            peeked.add(repr(peeker.last["moves"]))
        peeked_differently += len(peeked) > 1
    assert differing > 0, "the others' hidden cards were never dealt differently"
    assert peeked_differently > 0, "a bot that sees the true state should have searched differently somewhere"
