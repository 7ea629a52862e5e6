"""Ministères: properties of random legal games (hypothesis).

Each example plays a whole game with random legal commands and checks,
after every event: it is plain data, the 108 cards are all accounted for,
the Primaire tokens never go below 1, what each seat sees (views and
redacted events) holds no card it may not know, and every command ``legal``
offers is accepted by ``decide``.  At the end, the outcome is valid and
folding the log from the initial state gives the live state.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.engine import ALL, PUBLIC, IllegalCommand, Match, make_header
from core.games.ministeres import GAME
from core.games.ministeres import cards as C
from core.games.ministeres.rules import State, final_scores, game_winners
from tests.random_games import games, play_random, strings

CARDS = Counter(C.ALL_CARDS)

variant_sets = st.fixed_dictionaries(
    {
        "bids": st.sampled_from(["bluff", "covered"]),
        "or_bids": st.sampled_from(["bluff", "cards"]),
        "tiebreak": st.sampled_from(["letters", "share"]),
        "unsold": st.sampled_from(["discard", "opener"]),
        "dealer_roi": st.sampled_from(["applied", "kept"]),
    }
)


def check_cards(s: State) -> None:
    cards = Counter(s.deck) + Counter(s.centre) + Counter(s.favours) + Counter(s.discard) + Counter(s.face_down)
    cards.update([s.drawn] if s.drawn else [])
    cards.update([s.lot] if s.lot else [])
    for hand in s.hands:
        cards.update(hand)
    assert cards == CARDS
    assert all(p >= 1 for p in s.primaire)
    assert sum(s.limits) >= 0 and all(x >= 0 for x in s.limits)
    for _seat, placed in enumerate(s.placed):
        assert set(placed) <= set(s.favours)
    assert sorted(c for p in s.placed for c in p) == sorted(s.favours)


def hidden_from(s: State, seat: int | str) -> set[str]:
    """The card ids ``seat`` may not know in this state."""
    hidden = set(s.deck) | set(s.face_down)
    if s.phase == "over":
        return hidden  # the scoring shows every hand
    if seat != s.dealer and s.drawn:
        hidden.add(s.drawn)
    mine = set(s.placed[seat]) if isinstance(seat, int) else set()
    hidden |= set(s.favours) - mine
    for i in range(s.players):
        if i != seat:
            hidden |= set(s.hands[i])
    return hidden


def shown_to(event: dict, seat: int | str) -> set[str]:
    """Cards an event hands to ``seat`` (its own payment, a card taken from or by it)."""
    if (
        event["t"] in ("CardPaid", "PaymentDefaulted", "CardDrawn", "CardPlaced")
        and event.get("card")
        and seat in (event["seat"], event.get("taker"))
    ):
        return {event["card"]}
    return set()


#: events whose cards are face up for everyone
PUBLIC_EVENTS = ("CardTaken", "RoiApplied", "AuctionOpened", "AuctionWon", "AuctionUnsold", "CardWon")


def check_views(s: State, event: dict) -> None:
    for seat in [*range(s.players), PUBLIC]:
        view = GAME.view(s, seat)
        leaks = strings(view) & hidden_from(s, seat)
        assert not leaks, (seat, leaks)
        for i, p in enumerate(view["players"]):
            assert "hand_cards" not in p
            if i != seat:
                assert p["gold"] is None
        assert "face_down_cards" not in view and "deck_cards" not in view
        if seat != s.dealer or s.phase not in ("gifts",):
            assert view["drawn"] is None
        seen = GAME.redact(event, seat)
        if event["t"] in PUBLIC_EVENTS:
            continue
        assert not (strings(seen) & (hidden_from(s, seat) - shown_to(event, seat))), (seat, event["t"])
        assert isinstance(GAME.describe(seen, seat), str)
    full = GAME.view(s, ALL)
    assert all("hand_cards" in p for p in full["players"])
    assert sorted(full["favours_known"]) == sorted(s.favours)


def play_game(players: int, seed: int, variants: dict, deep: bool) -> Match:
    config = GAME.make_config(players, variants=variants)
    match = Match.new(GAME, make_header(GAME, config, seed))
    return play_random(match, seed, deep, check_event, choose=pass_often)


def pass_often(rng: random.Random, legal: list) -> dict:
    """Bids are many: passing gets a fair chance, so auctions do not all run to the cap."""
    return {"t": "Pass"} if legal[-1] == {"t": "Pass"} and rng.random() < 0.4 else rng.choice(legal)


def check_event(state, event: dict) -> None:
    check_cards(state)
    check_views(state, event)


def check_outcome(match: Match) -> None:
    outcome = match.outcome
    assert outcome is not None, "the game did not end"
    s = match.state
    scores, tokens, _ = final_scores(s.hands, s.primaire)
    assert list(outcome.scores) == scores
    assert list(outcome.winners) == game_winners(scores, tokens, s.hands, s.tiebreak)
    if s.tiebreak == "share":
        assert list(outcome.winners) == game_winners(scores, tokens)
    assert all(scores[w] == max(scores) for w in outcome.winners)
    assert not s.deck and not s.favours and not s.centre and s.lot is None and s.drawn is None
    assert match.active() == ()
    with pytest.raises(IllegalCommand):
        match.submit(0, {"t": "Pass"})


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@settings(max_examples=games(8), deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)
@given(seed=st.integers(0, 2**31), variants=variant_sets)
def test_random_games_hold_every_invariant(players: int, seed: int, variants: dict) -> None:
    check_outcome(play_game(players, seed, variants, deep=True))


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@settings(max_examples=games(100), deadline=None, database=None)
@given(seed=st.integers(0, 2**31), variants=variant_sets)
def test_many_random_games_end_with_a_valid_outcome(players: int, seed: int, variants: dict) -> None:
    check_outcome(play_game(players, seed, variants, deep=False))
