"""1988, two players: the order of the two cards slid under the opponent's pile is asked
only when it can matter.

Cards only ever go under a pile and every draw takes the top three, so where a card slid
now comes up is known from the piles' sizes: both in one of the opponent's hands (the order
within a hand is nothing), never (the final round), or in two different hands. Only the
last is a choice.
"""

from __future__ import annotations

import random
from itertools import groupby

import pytest

from core.games import get_game
from core.games.chirac_mitterrand.rules import slid_draws
from tui.session import new_match

GAME = get_game("chirac-mitterrand")
SEATS = [{"name": "Jacques", "candidate": "chirac"}, {"name": "François", "candidate": "mitterrand"}]


def two_players(seed: int):
    return new_match(GAME, 2, SEATS, [{"kind": "human"}] * 2, seed=seed, bot_seed=seed)


def turn_key(command: dict) -> tuple:
    return command["card"], command["action"], tuple(command.get("choices") or ())


@pytest.mark.parametrize("seed", range(6))
def test_the_order_is_asked_exactly_when_the_two_cards_come_up_in_different_hands(seed: int) -> None:
    match = two_players(seed)
    rng = random.Random(seed)
    #: each slide: (who slid, its two cards, the predicted draws of each)
    slides: list[tuple[str, list[str], list[int | None]]] = []
    asked_turns = []
    while match.outcome is None:
        (seat,) = match.active()
        view = GAME.view(match.state, seat)
        legal = GAME.legal(match.state, seat)
        if view["phase"] == "play":
            predicted = view["slid_draws"]
            orders = {key: {tuple(c["under"]) for c in group} for key, group in groupby(legal, turn_key)}
            asked = predicted[0] != predicted[1]
            # every card, action and quality offers both orders, or one
            assert {len(o) for o in orders.values()} == {2 if asked else 1}
            if asked:
                asked_turns.append(view["turn"])
            command = rng.choice(legal)
            slides.append((view["you"], list(command["under"]), predicted))
        else:
            command = rng.choice(legal)
        match.submit(seat, command)
    # what happened: in which of the opponent's draws after the slide each card came up
    draws: dict[str, list[tuple[int, list[str]]]] = {"chirac": [], "mitterrand": []}
    slid_at: list[int] = []
    for index, event in enumerate(match.events):
        if event["t"] == "CardsDrawn":
            draws[event["by"]].append((index, event["cards"]))
        elif event["t"] == "CardsSlid":
            slid_at.append(index)
    if len(slid_at) == len(slides) - 1:  # a sixth Power Erosion stopped the game before the last slide
        assert match.state.ended_by == "erosion"
        slides.pop()
    for at, (by, cards, predicted) in zip(slid_at, slides, strict=True):
        later = [hand for index, hand in draws["mitterrand" if by == "chirac" else "chirac"] if index > at]
        came = [next((n + 1 for n, hand in enumerate(later) if card in hand), None) for card in cards]
        if match.state.ended_by == "election":  # a game cut short by erosion draws fewer hands
            assert came == predicted, (by, cards)
        else:
            assert all(c is None or c == p for c, p in zip(came, predicted, strict=True))
    if match.state.ended_by == "election":
        # a whole game: rounds 3 and 6 ask it, the others do not
        assert asked_turns == [5, 6, 11, 12]


def position_at_the_final_round(seed: int = 0):
    match = two_players(seed)
    rng = random.Random(seed)
    while not match.state.final:
        (seat,) = match.active()
        match.submit(seat, rng.choice(GAME.legal(match.state, seat)))
    assert match.outcome is None
    return match


def test_at_the_final_turn_the_two_other_cards_are_never_drawn_and_their_order_not_asked() -> None:
    match = position_at_the_final_round()
    for _ in range(2):  # Chirac's final turn, then Mitterrand's
        (seat,) = match.active()
        view = GAME.view(match.state, seat)
        assert view["final_turn"] and view["slid_draws"] == [None, None]
        legal = GAME.legal(match.state, seat)
        keys = [turn_key(c) for c in legal]
        assert len(keys) == len(set(keys)), "an order asked at the final turn"
        hand = view["hand"]
        for command in legal:
            assert command["under"] == [c for c in hand if c != command["card"]]  # the hand's order
        played = legal[0]
        match.submit(seat, played)
    assert match.outcome is not None and match.state.ended_by == "election"
    # neither card slid in the final round was drawn: both still lie under a pile
    last_two = [e for e in match.events if e["t"] == "CardsSlid"][-2:]
    for event in last_two:
        pile = match.state.piles[0 if event["onto"] == "chirac" else 1]
        assert pile[-2:] == tuple(event["cards"])


def test_an_order_given_where_none_is_asked_is_still_accepted_as_saves_made_before_have_it() -> None:
    match = position_at_the_final_round()
    (seat,) = match.active()
    offered = GAME.legal(match.state, seat)[0]
    reversed_order = {**offered, "under": list(reversed(offered["under"]))}
    assert reversed_order not in GAME.legal(match.state, seat)
    events = match.submit(seat, reversed_order)
    slid = next(e for e in events if e["t"] == "CardsSlid")
    assert slid["cards"] == reversed_order["under"]


def test_where_a_slid_card_comes_up_from_the_sizes_of_the_piles() -> None:
    # round 1, Chirac: his pile 7 after drawing, Mitterrand's 10; the two come 11th and 12th
    # from the top of Mitterrand's 12: both in his fourth hand
    assert slid_draws((7, 10), 0, False) == (4, 4)
    # round 3, Chirac: Mitterrand's pile 8, the cards 9th and 10th: his third and fourth hands
    assert slid_draws((5, 8), 0, False) == (3, 4)
    # the final round: Mitterrand draws three of five, then the election; Chirac draws no more
    assert slid_draws((0, 3), 0, True) == (None, None)
    assert slid_draws((2, 0), 1, True) == (None, None)
    # round 7, Mitterrand: Chirac's pile 1, the cards 2nd and 3rd, his final hand
    assert slid_draws((1, 3), 1, False) == (1, 1)
