"""L'Agent Jean!: properties of random legal games (hypothesis).

Each example plays a whole game with random legal commands and checks,
after every event: it is plain data, the cards are all accounted for, what each seat sees
holds nothing it may not see, and every command ``legal`` offers is
accepted by ``decide``.  At the end, the outcome is valid and folding the
log from the initial state gives the live state.
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.engine import ALL, PUBLIC, IllegalCommand, Match, make_header
from core.games.agent_jean import GAME
from core.games.agent_jean import cards as C
from core.games.agent_jean.rules import State, card_strength, trick_winner
from tests.random_games import games, play_random, strings

ACTIONS = Counter(C.ACTION_CARDS)


def check_cards(s: State) -> None:
    actions = Counter(s.set_aside) + Counter(c for _, c in s.table)
    for part in (s.hands, s.reserves, s.won_cards):
        for cards in part:
            actions.update(cards)
    assert actions == ACTIONS
    plans = Counter(s.pile)
    for won in s.won_plans:
        plans.update(won)
    powers = [] if s.young else [C.power_card(a) for a in s.agents]
    assert plans == Counter(list(C.PLAN_IDS) + powers)


def hidden_from(s: State, seat: int | str) -> set[str]:
    """The card ids ``seat`` may not see in this state."""
    hidden = set(s.set_aside) | set(s.pile[1:])
    for i in range(s.players):
        hidden |= set(s.reserves[i])  # nobody sees a reserve, not even its owner
        if i != seat:
            hidden |= set(s.hands[i])
            hidden |= {p for p in s.won_plans[i] if not C.is_power(p)}
    if s.last_turn:  # just won, in front of everyone
        hidden -= set(s.last_turn[2])
    return hidden


def check_views(s: State, event: dict) -> None:
    for seat in [*range(s.players), PUBLIC]:
        view = GAME.view(s, seat)
        leaks = strings(view) & hidden_from(s, seat)
        assert not leaks, (seat, leaks)
        for p in view["players"]:
            assert "hand_cards" not in p and "reserve_cards" not in p
        for i, p in enumerate(view["players"]):
            if i != seat:
                assert p["plans"] is None and p["points"] is None
        seen = GAME.redact(event, seat)
        # a redacted event shows nothing hidden after it, except the cards it hands to the seat
        assert not (strings(seen) & hidden_from(s, seat)), (seat, event["t"])
        assert isinstance(GAME.describe(seen, seat), str)
    full = GAME.view(s, ALL)
    assert all("hand_cards" in p and "reserve_cards" in p for p in full["players"])


def play_game(players: int, seed: int, young: bool, bonus: str, deep: bool) -> Match:
    config = GAME.make_config(players, variants={"young": "on" if young else "off", "bonus": bonus})
    match = Match.new(GAME, make_header(GAME, config, seed))
    return play_random(match, seed, deep, check_event)


def check_event(state: State, event: dict) -> None:
    check_cards(state)
    check_views(state, event)


def check_outcome(match: Match) -> None:
    outcome = match.outcome
    assert outcome is not None, "the game did not end"
    medals = outcome.scores
    assert outcome.winners and all(medals[w] >= 2 for w in outcome.winners)
    assert all(medals[i] < 2 for i in range(len(medals)) if i not in outcome.winners)
    assert match.active() == ()
    with pytest.raises(IllegalCommand):
        match.submit(0, {"t": "PlayCard", "card": "P1"})


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@settings(max_examples=games(12), deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)
@given(seed=st.integers(0, 2**31), young=st.booleans(), bonus=st.sampled_from(["rulebook", "board"]))
def test_random_games_hold_every_invariant(players: int, seed: int, young: bool, bonus: str) -> None:
    check_outcome(play_game(players, seed, young, bonus, deep=True))


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@settings(max_examples=games(200), deadline=None, database=None)
@given(seed=st.integers(0, 2**31), young=st.booleans())
def test_many_random_games_end_with_a_valid_outcome(players: int, seed: int, young: bool) -> None:
    check_outcome(play_game(players, seed, young, "rulebook", deep=False))


colour_cards = st.sampled_from(C.ACTION_CARDS)


@settings(max_examples=300, deadline=None, database=None)
@given(
    cards=st.lists(colour_cards, min_size=2, max_size=5, unique=True),
    accomplice=st.sampled_from([None, "farine", "grumeau", "levure", "miette", "brioche"]),
    bulle=st.integers(-1, 4),
    sabotaged=st.integers(-1, 4),
)
def test_the_winner_is_a_strongest_card_in_contest(
    cards: list[str], accomplice: str | None, bulle: int, sabotaged: int
) -> None:
    entries = [
        (i, c, C.value(c) + (99 if i == bulle else 0) - (99 if i == sabotaged else 0)) for i, c in enumerate(cards)
    ]
    winner = trick_winner(entries, accomplice)
    live = [e for e in entries if e[2] > 0]
    assert winner in [e[0] for e in live]
    first = live[0][1][0]
    strength = {s: card_strength(c, v, first, accomplice) for s, c, v in live}
    assert strength[winner] == max(strength.values())
    # nobody before the winner is as strong (the first played wins equals)
    assert all(strength[s] < strength[winner] for s, _, _ in live if s < winner)
