"""How the search bot judges and narrows a position in the games that help it:
where a play-out stops (``search_cutoff``), what the position is then worth
(``estimate``), and which moves it weighs (``search_moves``)."""

from __future__ import annotations

import random

from core.bots import make_bot
from core.bots.search import Node, _clearly_better
from core.engine import Match, make_header, revise
from core.games import get_game
from core.games.ministeres import cards as MC

AJ = get_game("agent-jean")
MIN = get_game("ministeres")


def easy_game(game, players: int, seed: int) -> list:
    """Every state of a game of easy bots, the last one over."""
    match = Match.new(game, make_header(game, game.make_config(players), seed))
    bots = [make_bot(game, "easy", seat) for seat in range(players)]
    states = [match.state]
    while match.outcome is None:
        seat = match.active()[0]
        state = match.state
        match.submit(seat, bots[seat].choose(game, game.view(state, seat), game.legal(state, seat)))
        states.append(match.state)
    return states


# -- L'Agent Jean!: a play-out ends with its round -----------------------------------------


def test_agent_jean_play_outs_stop_when_the_round_is_scored() -> None:
    states = easy_game(AJ, 2, 4)
    start = states[5]
    same_round = [s for s in states if s.round == start.round and s.phase != "over"]
    assert not any(AJ.search_cutoff(start, s, 100) for s in same_round)
    later = next(s for s in states if s.round == start.round + 1 or s.phase == "over")
    assert AJ.search_cutoff(start, later, 0)


def test_agent_jean_estimate_favours_the_medal_and_the_margin() -> None:
    states = easy_game(AJ, 2, 4)
    scored = next(s for s in states if s.round == 2)
    (medal,) = scored.last_round[2]
    chances = AJ.estimate(scored)
    assert abs(sum(chances) - 1) < 1e-9
    assert chances[medal] > 0.5
    # a round won by more points says more: the same medal with a wider margin
    scores = list(scored.last_round[1])
    scores[medal] += 20
    wider = AJ.estimate(revise(scored, last_round=(scored.last_round[0], tuple(scores), (medal,))))
    assert wider[medal] > chances[medal]
    # the round that ends the game is judged the same way: its winner is favoured
    over = states[-1]
    assert AJ.estimate(over)[over.winners[0]] > 0.5 or len(over.winners) > 1


def test_agent_jean_four_players_share_the_chances() -> None:
    scored = next(s for s in easy_game(AJ, 4, 9) if s.round == 2)
    chances = AJ.estimate(scored)
    assert abs(sum(chances) - 1) < 1e-9
    assert max(chances) == max(chances[i] for i in scored.last_round[2])


# -- Ministères: majorities, gold, and the moves worth weighing -----------------------------


def given(state, card: str):
    """The state with ``card`` taken from the deck into the first hand."""
    deck = tuple(c for c in state.deck if c != card)
    return revise(state, hands=(state.hands[0] + (card,), *state.hands[1:]), deck=deck)


def test_ministeres_estimate_rewards_cards_and_gold_and_names_the_winner() -> None:
    states = easy_game(MIN, 2, 6)
    middle = next(s for s in states if s.phase == "gifts" and len(s.deck) < 60)
    base = MIN.estimate(middle)
    assert abs(sum(base) - 1) < 1e-9
    # a Gouvernement card more in a hand is a better chance of a majority
    extra = next(c for c in middle.deck if MC.is_gouvernement(c) and MC.value(c) >= 3)
    assert MIN.estimate(given(middle, extra))[0] > base[0]
    # gold buys Favours: an Or card more is worth something while Favours remain
    gold = next(c for c in middle.deck if MC.is_or(c) and MC.value(c) == 3)
    assert MIN.estimate(given(middle, gold))[0] > base[0]
    # with no card left to come, the estimate names the scoring's winner
    over = states[-1]
    if len(over.winners) == 1:
        chances = MIN.estimate(over)
        assert max(range(2), key=chances.__getitem__) == over.winners[0]


def test_ministeres_search_weighs_pass_or_the_least_raise_and_one_or_card_a_value() -> None:
    states = easy_game(MIN, 3, 2)
    auction = next(s for s in states if s.phase == "auction" and len(MIN.legal(s, s.to_bid)) > 3)
    seat = auction.to_bid
    legal = MIN.legal(auction, seat)
    assert MIN.search_moves(auction, seat, legal) == [legal[0], {"t": "Pass"}]
    assert legal[0] == {"t": "Bid", "amount": auction.bid + 1}

    def values(commands: list) -> list[int]:
        return sorted(MC.value(c["card"]) for c in commands)

    paying = [s for s in states if s.phase == "pay" and s.pay_kind == "gold"]
    paying = next(s for s in paying if len(set(values(MIN.legal(s, s.payer)))) < len(MIN.legal(s, s.payer)))
    legal = MIN.legal(paying, paying.payer)
    assert values(MIN.search_moves(paying, paying.payer, legal)) == sorted(set(values(legal)))


# -- the search's guard at the root: noise is measured, not assumed -------------------------


def node(rewards: list[float]) -> Node:
    n = Node()
    n.visits = n.available = len(rewards)
    n.reward = sum(rewards)
    n.square = sum(r * r for r in rewards)
    return n


def test_a_steady_small_gain_is_clearly_better_and_a_lucky_one_is_not() -> None:
    rng = random.Random(1)
    steady = node([0.62 + rng.uniform(-0.02, 0.02) for _ in range(40)])
    default = node([0.55 + rng.uniform(-0.02, 0.02) for _ in range(40)])
    assert _clearly_better(steady, default)
    # the same means from wins and losses cannot be told apart in 40 play-outs
    lucky = node([1.0] * 25 + [0.0] * 15)
    plain = node([1.0] * 22 + [0.0] * 18)
    assert not _clearly_better(lucky, plain)


def test_ministeres_moves_are_compared_on_the_same_deals() -> None:
    """Ministères' search plays every move it weighs on the same deals, and
    with no more than a deal or two to go on it keeps the heuristic's move."""
    from core.bots import bot_inputs
    from core.bots.search import SearchBot

    states = easy_game(MIN, 2, 8)
    checked = 0
    for state in states[40:200:20]:
        (seat,) = MIN.active(state)
        view, legal, known = bot_inputs(MIN, state, seat)
        if len(MIN.search_moves(known, seat, legal)) < 2:
            continue
        thorough = SearchBot(3, 3000)
        thorough.choose(MIN, view, legal, known)
        assert len({visits for _, visits, _ in thorough.last["moves"]}) == 1
        assert thorough.last["moves"][0][1] == thorough.last["deals"]
        # the budget is shared among the moves: paying for an Or card with twenty cards to choose from gets fewer deals
        assert thorough.last["deals"] > (5 if len(thorough.last["moves"]) <= 10 else 2)
        hasty = SearchBot(3, 1)
        assert hasty.choose(MIN, view, legal, known) == make_bot(MIN, "easy", 0).choose(MIN, view, legal)
        checked += 1
    assert checked >= 3


def test_ministeres_estimate_of_a_runaway_lead_at_four() -> None:
    """One seat holding every card of a ministry, the others none: the
    others' chances of the Secondaire are too small to compute apart, and
    the estimate still shares out the chances (it once divided by zero)."""
    state = next(s for s in easy_game(MIN, 4, 3) if s.phase == "auction")
    everything = tuple(c for c in MC.ALL_CARDS if MC.is_gouvernement(c))
    lopsided = revise(state, hands=(everything, (), (), ()), deck=(), centre=(), favours=())
    chances = MIN.estimate(lopsided)
    assert abs(sum(chances) - 1) < 1e-9
    assert chances[0] > 0.99
