"""Edgar & Lucien: properties of random legal games (hypothesis).

Each example plays a whole game, 2 to 4 players, under random variants, with
random legal commands (several seats program at once: the driver picks which
of them moves next).  After every event it checks that the event is plain
data, that Cogs (players and Bank: the 1,200,000 of the box), influence
tokens (16 a player, supply and board), Manigance cards (deck, discard and
hands) and the four certificates are all accounted for, and that no seat's
view or redacted event shows another seat's program before the reveal,
another seat's hand, or (hidden fortunes) another seat's Cogs.  Before every
move, every command ``legal`` offers is accepted by ``decide``, and random
commands it does not offer are refused with IllegalCommand.  At the end the
log folded from the initial state, and the moves replayed into a new Match,
give the live state.

Random games end: over 2,000 random games per player count (all variants
mixed) the longest took 33 Electoral Periods and 968 moves (4 players); the
median is 8 or 9 periods.  The bound asserted below is far above that.
"""

from __future__ import annotations

import contextlib
import random
from collections import Counter
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.bots import make_bot
from core.engine import ALL, PUBLIC, IllegalCommand, Match, digest, make_header
from core.games.edgar_lucien import GAME
from core.games.edgar_lucien import cards as C
from core.games.edgar_lucien.bot import HeuristicBot
from core.games.edgar_lucien.fosko import is_move
from core.games.edgar_lucien.rules import BOX_COGS, TOKENS, State, conditions
from table import Table
from tests.random_games import check_legal, games, strings

#: far above what 2,000 random games per player count needed (968 moves, 33 periods)
MAX_MOVES = 4000
MAX_PERIODS = 120

CARD_IDS = set(C.CARD_IDS)

variant_sets = st.fixed_dictionaries(
    {
        "fortunes": st.sampled_from(["hidden", "open"]),
        "deck": st.sampled_from(["15", "20"]),
        "start": st.sampled_from(["outskirts", "anywhere"]),
    }
)


# -- conservation ------------------------------------------------------------------------------


def check_conservation(s: State, event: dict) -> None:
    n = s.players
    assert sum(s.cogs) + s.bank == BOX_COGS
    assert all(c >= 0 and c % 10_000 == 0 for c in s.cogs) and s.bank >= 0
    assert all(0 <= p <= 100 for p in s.popularity)
    full = GAME.view(s, ALL)
    for seat in range(n):
        on_board = sum(1 for owner in s.owners if owner == seat)
        assert full["players"][seat]["supply"] + on_board == TOKENS
        assert full["players"][seat]["supply"] >= 0
    assert all(owner is None or 0 <= owner < n for owner in s.owners)
    cards = Counter(s.deck) + Counter(s.discard)
    for hand in s.hands:
        cards.update(hand)
    if event["t"] != "GameSetUp":  # the deck is shuffled by the next event
        assert cards == Counter(C.deck(s.deck_size))
        assert full["deck"] + full["discard"] + sum(p["hand"] for p in full["players"]) == s.deck_size
    assert len(s.certs) == len(C.CERTIFICATES) == 4
    assert all(holder is None or 0 <= holder < n for holder in s.certs)
    assert list(full["certificates"]) == list(C.CERTIFICATES)
    if s.phase == "over":
        assert sum(conditions(s, s.winner)) >= 3


# -- what each seat may see ----------------------------------------------------------------------


def check_views(s: State, event: dict) -> None:
    n = s.players
    for seat in [*range(n), PUBLIC]:
        view = GAME.view(s, seat)
        own = seat if isinstance(seat, int) else None
        assert view["seat"] == own
        mine = set(s.hands[own]) if own is not None else set()
        # no card ids but one's own hand
        assert strings(view) & CARD_IDS <= mine, (seat, strings(view) & CARD_IDS)
        for i, p in enumerate(view["players"]):
            assert p["hand"] == len(s.hands[i])
            if i == own:
                assert sorted(p["cards"]) == sorted(s.hands[i])
                assert p["cogs"] == s.cogs[i]
            else:
                assert p["cards"] is None
                if not s.revealed:
                    assert p["program"] is None  # nobody sees another program before the reveal
                if s.hidden and s.phase != "over":  # the fortunes are shown when the game ends
                    assert p["cogs"] is None
                    dandy_certified = s.certs[C.CERTIFICATES.index(C.DANDY)] == i
                    assert p["conditions"]["dandy"] is (True if dandy_certified else None)
                else:
                    assert p["cogs"] == s.cogs[i]
        if s.hidden and s.phase != "over":
            assert view["bank"] is None
        seen = GAME.redact(event, seat)
        t = event["t"]
        if t == "Programmed" and own != event["seat"]:
            assert set(seen) <= {"t", "seat", "name"}
        if t == "DeckShuffled":
            assert seen["cards"] is None
        if t == "CardsDrawn" and own != event["seat"]:
            assert not strings(seen) & CARD_IDS
        if t == "CardExtorted" and own not in (event["seat"], event["target"]):
            assert not strings(seen) & CARD_IDS
        if t == "Robbed" and s.hidden and own not in (event["seat"], event["victim"]):
            assert seen["amount"] is None
        assert isinstance(GAME.describe(seen, seat), str)
    full = GAME.view(s, ALL)
    assert all(p["cards"] is not None and p["cogs"] is not None for p in full["players"])
    assert full["bank"] == s.bank


def check_event(s: State, event: dict) -> None:
    assert msgpack.unpackb(msgpack.packb(event, use_bin_type=True), raw=False) == event
    check_conservation(s, event)
    check_views(s, event)


# -- commands legal does not offer ---------------------------------------------------------------


def canonical(command: Any) -> Any:
    """The form ``legal`` lists a command in (same meaning, other spelling):
    Political Support from Edgar's own district unless said otherwise, the
    two players intimidated in any order.  A key the command does not take
    is not another spelling: the command is refused."""
    if not isinstance(command, dict):
        return command
    c = dict(command)
    if c.get("t") == "LucienAdmin" and c.get("action") == "support" and "remote" not in c:
        c["remote"] = False
    if c.get("t") == "Intimidate" and isinstance(c.get("players"), list):
        with contextlib.suppress(TypeError):
            c["players"] = sorted(c["players"])
    return c


def random_command(rng: random.Random, s: State) -> Any:
    n = s.players
    ids = list(s.board.ids) + ["moon"]
    seats = list(range(-1, n + 1))
    moves = [
        "stay",
        "green",
        "orange",
        "violet",
        "cyan",
        "pink>forges",
        "brown>hall",
        "grey>docks",
        "purple",
        "",
        3,
        None,
    ]
    card = rng.choice([*C.CARD_IDS, "joker"])
    shapes = [
        lambda: {"t": "Nope"},
        lambda: "Done",
        lambda: None,
        lambda: {"t": "Place", "district": rng.choice(ids)},
        lambda: {"t": "Program", "edgar": rng.choice(moves), "lucien": rng.choice(moves)},
        lambda: {"t": "Rob", "victim": rng.choice(seats)},
        lambda: {"t": "PlayCard", "card": card},
        lambda: {"t": "PlayCard", "card": card, "district": rng.choice(ids)},
        lambda: {"t": "PlayCard", "card": card, "certificate": rng.choice([*C.CERTIFICATES, "saint"])},
        lambda: {"t": "PlayCard", "card": card, "target": rng.choice(seats)},
        lambda: {"t": "PlayCard", "card": card, "action": rng.choice([*C.EDGAR_ACTIONS, "fly"])},
        lambda: {"t": "EdgarAdmin", "action": rng.choice([*C.EDGAR_ACTIONS, "speech", "fly"])},
        lambda: {"t": "Buy"},
        lambda: {"t": "LucienAdmin", "action": rng.choice(["speech", "heritage", "heist", "fly"])},
        lambda: {"t": "LucienAdmin", "action": "certificate", "certificate": rng.choice([*C.CERTIFICATES, None])},
        lambda: {
            "t": "LucienAdmin",
            "action": "support",
            "edgar": rng.choice([*C.EDGAR_ACTIONS, "speech"]),
            "remote": rng.choice([True, False, "yes"]),
        },
        lambda: {"t": "Done"},
        lambda: {"t": "Requisition", "district": rng.choice(ids)},
        lambda: {"t": "Intimidate", "players": [rng.choice(seats), rng.choice(seats)]},
        lambda: {"t": "Intimidate", "players": 1},
        lambda: {"t": "Intimidate", "district": rng.choice(ids)},
        lambda: {"t": "Surrender", "district": rng.choice(ids)},
        lambda: {"t": "Yield", "pay": rng.choice(["popularity", "cogs", "kisses"])},
        lambda: {"t": "Bid", "amount": rng.choice([0, 5_000, 10_000, 20_000, 60_000, 10**7, -10_000, True, "10"])},
        lambda: {"t": "Drop"},
    ]
    return rng.choice(shapes)()


def is_accepted_move(command: Any) -> bool:
    """A wheel setting that leads nowhere is accepted (the pawn stays), as the rulebook says."""
    return (
        isinstance(command, dict)
        and command.get("t") == "Program"
        and is_move(command.get("edgar"))
        and is_move(command.get("lucien"))
    )


def check_illegal(match: Match, rng: random.Random, tries: int = 4) -> None:
    state = match.state
    for _ in range(tries):
        seat = rng.randrange(state.players)
        command = random_command(rng, state)
        legal = GAME.legal(state, seat)
        if seat in GAME.active(state) and (
            canonical(command) in legal or (state.phase == "program" and is_accepted_move(command))
        ):
            GAME.decide(state, seat, command, match.rng())
            continue
        try:
            GAME.decide(state, seat, command, match.rng())
        except IllegalCommand:
            continue
        raise AssertionError(f"accepted though not legal: {command!r} by seat {seat} in phase {state.phase}")


# -- the driver ------------------------------------------------------------------------------------


def play_game(players: int, seed: int, variants: dict, deep: bool, bots: dict | None = None) -> Match:
    config = GAME.make_config(players, variants=variants)
    match = Match.new(GAME, make_header(GAME, config, seed))
    rng = random.Random(seed)
    state = GAME.initial(match.config)
    folded = 0

    def fold() -> None:
        nonlocal state, folded
        for event in match.events[folded:]:
            state = GAME.evolve(state, event)
            if deep:
                check_event(state, event)
        folded = len(match.events)

    fold()
    for _ in range(MAX_MOVES):
        if match.outcome is not None:
            break
        if deep:
            check_legal(match)
            check_illegal(match, rng)
        seat = rng.choice(match.active())
        legal = GAME.legal(match.state, seat)
        if bots and seat in bots:
            command = bots[seat].choose(GAME, GAME.view(match.state, seat), legal)
            assert command in legal
        else:
            command = rng.choice(legal)
        match.submit(seat, command)
        fold()
    assert GAME.canonical(state) == GAME.canonical(match.state)
    return match


def check_outcome(match: Match) -> None:
    outcome = match.outcome
    s = match.state
    assert outcome is not None, "the game did not end"
    assert s.period <= MAX_PERIODS
    assert match.active() == ()
    assert outcome.winners == (s.winner,)
    assert sum(conditions(s, s.winner)) >= 3
    assert isinstance(outcome.reason, str) and outcome.reason
    # nobody before the winner in turn order had three conditions at the same time
    for seat in s.order[: s.order.index(s.winner)]:
        assert sum(conditions(s, seat)) < 3
    with pytest.raises(IllegalCommand):
        match.submit(0, {"t": "Done"})
    # the moves replayed into a new match give the same state
    again = Match(GAME, match.header)
    for move in match.moves:
        again.replay_move(move.seat, move.command, match.events[move.start : move.end])
    assert digest(GAME.canonical(again.state)) == digest(GAME.canonical(match.state))


# -- the tests ------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
@settings(max_examples=games(4), deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)
@given(seed=st.integers(0, 2**31), variants=variant_sets)
def test_random_games_hold_every_invariant(players: int, seed: int, variants: dict) -> None:
    check_outcome(play_game(players, seed, variants, deep=True))


@pytest.mark.parametrize("players", [2, 3, 4])
@settings(max_examples=games(50), deadline=None, database=None)
@given(seed=st.integers(0, 2**31), variants=variant_sets)
def test_many_random_games_end_with_a_valid_outcome(players: int, seed: int, variants: dict) -> None:
    check_outcome(play_game(players, seed, variants, deep=False))


VARIANT_SETS = [
    {"fortunes": f, "deck": d, "start": a}
    for f in ("hidden", "open")
    for d in ("15", "20")
    for a in ("outskirts", "anywhere")
]


@pytest.mark.parametrize("k", range(len(VARIANT_SETS)))
def test_every_variant_holds_every_invariant(k: int) -> None:
    check_outcome(play_game(2 + k % 3, 1000 + k, VARIANT_SETS[k], deep=True))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_heuristic_bot_plays_whole_games_of_legal_moves(players: int) -> None:
    for k, variants in enumerate(
        [{"fortunes": "hidden"}, {"fortunes": "open", "deck": "20", "start": "anywhere"}, {}, {"deck": "20"}]
    ):
        seed = 100 * players + k
        bot_seats = range(players) if k % 2 else [k % players]
        bots = {seat: HeuristicBot(seed + seat) for seat in bot_seats}
        match = play_game(players, seed, variants, deep=k == 0, bots=bots)
        check_outcome(match)


def bot_wins(players: int, games: int) -> int:
    """Games won by one heuristic bot, in every seat in turn, against random bots."""
    wins = 0
    for i in range(games):
        smart = i % players
        match = Match.new(GAME, make_header(GAME, GAME.make_config(players), seed=20_000 + i))
        bots = {s: make_bot(GAME, "easy" if s == smart else "random", 97 * i + s) for s in range(players)}
        while match.outcome is None:
            seat = match.active()[0]
            match.submit(seat, Table(match).bot_move(seat, bots[seat]))
        wins += match.outcome.winners == (smart,)
    return wins


def test_the_heuristic_bot_beats_the_random_bot() -> None:
    assert bot_wins(2, 200) / 200 >= 0.70


def test_the_heuristic_bot_wins_more_than_its_share_against_three_random_bots() -> None:
    assert bot_wins(4, 100) / 100 > 1 / 4
