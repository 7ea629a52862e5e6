"""1988: Chirac contre Mitterrand: properties of random legal games (hypothesis).

Each example plays a whole game, one or two players, with random legal
commands and checks after every event: it is plain data, the 24 Event cards
and the 9 Campaign cards are all accounted for, each seat's view holds
nothing it may not know (and the cards it slid under a pile, exactly), and
every command ``legal`` offers is accepted by ``decide``.  At the end, the
outcome is valid and folding the log from the initial state gives the live
state.
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.engine import ALL, PUBLIC, IllegalCommand, Match, make_header
from core.games.chirac_mitterrand import GAME
from core.games.chirac_mitterrand import cards as C
from core.games.chirac_mitterrand.rules import EROSION_LIMIT, SIDES, State, ahead
from tests.random_games import games, play_random, strings

EVENTS = Counter(C.EVENT_IDS)
CAMPAIGNS = Counter(C.CAMPAIGN_IDS)


def check_cards(s: State) -> None:
    events = Counter(s.hand) + Counter(s.discard) + Counter(s.removed) + Counter([s.played] if s.played else [])
    for part in (s.piles, s.erosion):
        for cards in part:
            events.update(cards)
    assert events == EVENTS
    campaigns = Counter(s.camp_pile) + Counter(s.camp_drawn) + Counter(s.camp_removed) + Counter(s.camp_applied)
    assert campaigns == CAMPAIGNS
    assert all(len(e) <= EROSION_LIMIT for e in s.erosion)
    assert all(-s.row_length <= p <= s.row_length for p in s.rows)


def knows_bottom(s: State, seat: int, pile: int) -> bool:
    c = s.candidate_of(seat)
    if c is None:
        return False
    return c == pile if s.solo else c != pile


def hidden_from(s: State, seat: int | str) -> set[str]:
    """The card ids ``seat`` may not see in this state."""
    hidden: set[str] = set()
    me = s.candidate_of(seat) if isinstance(seat, int) else None
    for c in (0, 1):
        pile = s.piles[c]
        known = s.known[c] if isinstance(seat, int) and knows_bottom(s, seat, c) else 0
        hidden |= set(pile[: len(pile) - known])
    public_hand = s.solo and s.to_move == s.automaton
    if s.hand and me != s.to_move and not public_hand:
        hidden |= set(s.hand)
    if s.camp_drawn and me != s.camp_drawer and not automaton_drew(s):
        hidden |= set(s.camp_drawn)
    return hidden


def automaton_drew(s: State) -> bool:
    """The hard automaton's campaign draw (variant solo=hard): face up for all."""
    return s.solo and s.camp_drawer is not None and s.camp_drawer == s.automaton


def check_views(s: State, event: dict) -> None:
    seats = [0] if s.solo else [0, 1]
    for seat in [*seats, PUBLIC]:
        view = GAME.view(s, seat)
        leaks = strings(view) & hidden_from(s, seat)
        assert not leaks, (seat, leaks)
        assert "hands" not in view and "pile_cards" not in view
        for c in (0, 1):
            expected = []
            if isinstance(seat, int) and knows_bottom(s, seat, c) and s.known[c]:
                expected = list(s.piles[c][-s.known[c] :])
            assert view["known_bottom"][SIDES[c]] == expected
        me = s.candidate_of(seat) if isinstance(seat, int) else None
        if s.camp_drawn and me != s.camp_drawer:
            assert ("drawn" in view["campaign"]) == automaton_drew(s)
        seen = GAME.redact(event, seat)
        # a redacted event shows nothing hidden after it, except the cards it hands to the seat
        assert not (strings(seen) & hidden_from(s, seat)), (seat, event["t"])
        if event["t"] == "CampaignApplied" and seat != event["seat"]:
            assert (seen["returned"] is None) == (event["seat"] is not None)
        assert isinstance(GAME.describe(seen, seat), str)
    full = GAME.view(s, ALL)
    assert "hands" in full and "pile_cards" in full


def play_game(players: int, seed: int, candidate: str, deep: bool, level: str = "standard") -> Match:
    seats = [{"candidate": candidate}]  # seat 0 picks; in a two-player game seat 1 gets the other
    config = GAME.make_config(players, seats, {"solo": level})
    match = Match.new(GAME, make_header(GAME, config, seed))
    return play_random(match, seed, deep, check_event, max_moves=500)


def check_event(state, event: dict) -> None:
    check_cards(state)
    check_views(state, event)


def check_outcome(match: Match) -> None:
    outcome = match.outcome
    s = match.state
    assert outcome is not None, "the game did not end"
    assert match.active() == ()
    assert isinstance(outcome.reason, str) and outcome.reason
    winner = SIDES.index(GAME.view(s, ALL)["winner"])
    seat = s.seats[winner]
    assert outcome.winners == (() if seat is None else (seat,))
    if s.ended_by == "erosion":
        assert len(s.erosion[1 - winner]) == EROSION_LIMIT
    else:
        assert all(len(e) < EROSION_LIMIT for e in s.erosion)
        chirac, mitterrand = ahead(s.rows)
        mine, theirs = (chirac, mitterrand) if winner == 0 else (mitterrand, chirac)
        assert mine > theirs or (mine == theirs and s.media == winner)
        turns = sum(1 for e in match.events if e["t"] == "TurnStarted")
        assert turns == 16
    with pytest.raises(IllegalCommand):
        match.submit(0, {"t": "Allow"})
    if s.solo_hard:
        assert not any(e["t"] in ("VetoUsed", "VetoDeclined") for e in match.events)
        assert all(abs(p) <= C.HARD_SOLO_ROW_LENGTH for p in s.rows) and s.row_length == C.HARD_SOLO_ROW_LENGTH


#: the tables: two players, solo against the rulebook's automaton, solo against the hard one
TABLES = [(2, "standard"), (1, "standard"), (1, "hard")]


@pytest.mark.parametrize(("players", "level"), TABLES)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)
@given(seed=st.integers(0, 2**31), candidate=st.sampled_from(C.CANDIDATES))
def test_random_games_hold_every_invariant(players: int, level: str, seed: int, candidate: str) -> None:
    check_outcome(play_game(players, seed, candidate, deep=True, level=level))


@pytest.mark.parametrize(("players", "level"), TABLES)
@settings(max_examples=games(200), deadline=None, database=None)
@given(seed=st.integers(0, 2**31), candidate=st.sampled_from(C.CANDIDATES))
def test_many_random_games_end_with_a_valid_outcome(players: int, level: str, seed: int, candidate: str) -> None:
    check_outcome(play_game(players, seed, candidate, deep=False, level=level))
