"""L'Agent Jean!: what a seat knows (``observe``) and the states it cannot tell
apart (``determinize``), for the search bot.

Positions come from seeded random legal games with 2 to 5 players, with and
without the agents' powers, stopped at many moves of every phase where a
player acts, and at the end; with hidden counts (the default: a seat knows
only its own won pile) and, without young players, with open counts too.
"""

from __future__ import annotations

import functools
import random
from collections import Counter

import pytest

from core.engine import UNSEEN, Match, make_header, revise
from core.games.agent_jean import GAME
from core.games.agent_jean import cards as C
from core.games.agent_jean.rules import ROUND_TURNS, State, play_order
from tests.random_games import strings
from tests.test_agent_jean_properties import check_cards

EVERY_CARD = frozenset(C.ACTION_CARDS) | frozenset(C.PLAN_IDS) | {C.power_card(a) for a in C.AGENTS}
RARE = ("leader", "sabotage", "second_plan", "over")


def new_match(players: int, seed: int, young: bool, arranged: dict | None = None, counts: str = "hidden") -> Match:
    agents = random.Random(seed).sample(C.AGENTS, players)  # every power at every table size
    seats = [{"agent": a} for a in agents]
    config = GAME.make_config(players, seats, variants={"young": "on" if young else "off", "counts": counts})
    extra = {"arranged": arranged} if arranged else {}
    return Match.new(GAME, make_header(GAME, config, seed, **extra))


#: seeds whose random games (with powers) have Martha take a second plan
SEEDS = {2: (13, 5), 3: (17, 2), 4: (3, 6), 5: (37, 1)}


@functools.cache
def positions(players: int, young: bool, counts: str = "hidden") -> tuple[State, ...]:
    """States of two random games where a player must act: every 7th move,
    every move of the rarer phases, and the end."""
    out = []
    for seed in SEEDS[players]:
        match = new_match(players, seed, young, counts=counts)
        rng = random.Random(seed)
        moves = 0
        while match.outcome is None:
            state = match.state
            if moves % 7 == 0 or state.phase in RARE:
                out.append(state)
            seat = rng.choice(match.active())
            match.submit(seat, rng.choice(GAME.legal(state, seat)))
            moves += 1
        out.append(match.state)
    return tuple(out)


def all_positions() -> list[State]:
    hidden = [s for players in (2, 3, 4, 5) for young in (False, True) for s in positions(players, young)]
    return hidden + [s for players in (2, 3, 4, 5) for s in positions(players, False, "open")]


def card_strings(value: object) -> set[str]:
    return strings(value) & EVERY_CARD


def unseen_anywhere(s: State) -> bool:
    return any(UNSEEN in x for x in strings(_parts(s)))


def _parts(s: State) -> list:
    return [s.hands, s.reserves, s.set_aside, s.pile, s.won_cards, s.won_plans, s.table]


def others_hidden(s: State, seat: int) -> tuple:
    """Every card the seat does not see where it lies."""
    return (
        tuple(h for i, h in enumerate(s.hands) if i != seat),
        s.reserves,
        s.set_aside,
        s.pile[1:],
        tuple(w for i, w in enumerate(s.won_plans) if i != seat),
        s.won_cards,
    )


# -- 1. a determinized state looks the same to the seat --------------------------------


def test_determinized_states_look_the_same_to_the_seat() -> None:
    phases = Counter()
    for s in all_positions():
        phases[s.phase] += 1
        for seat in range(s.players):
            known = GAME.observe(s, seat)
            view = GAME.view(s, seat)
            legal = GAME.legal(s, seat)
            for d_seed in (1, 2):
                d = GAME.determinize(known, seat, random.Random(d_seed))
                assert GAME.view(d, seat) == view
                assert GAME.observe(d, seat) == known
                assert not unseen_anywhere(d)
                check_cards(d)
                assert GAME.legal(d, seat) == legal
                assert GAME.active(d) == GAME.active(s)
                assert d.arranged_later == ()
    # the positions cover every phase where someone acts, and the end
    assert set(phases) == {"play", "leader", "sabotage", "second_plan", "over"}, phases


# -- 2. determinize samples -----------------------------------------------------------


def test_determinize_samples_and_repeats_with_the_same_seed() -> None:
    varied = 0
    plan_splits = 0
    for s in all_positions():
        if s.phase == "over":
            continue
        for seat in range(s.players):
            known = GAME.observe(s, seat)
            a = GAME.determinize(known, seat, random.Random(7))
            assert GAME.determinize(known, seat, random.Random(7)) == a
            draws = [GAME.determinize(known, seat, random.Random(k)) for k in range(4)]
            others = sum(len(h) for i, h in enumerate(s.hands) if i != seat)
            if others and others + sum(map(len, s.reserves)) + len(s.set_aside) >= 4:
                # other seats hold hidden cards, and enough of them are
                # unaccounted for: the seeds deal them differently
                assert len({others_hidden(d, seat) for d in draws}) > 1
                assert len({d.hands for d in draws}) > 1
                varied += 1
            # how many plans the others hold is not in view: it is drawn too
            counts = {tuple(len(p) for p in d.won_plans) for d in draws}
            plan_splits += len(counts) > 1
    assert varied > 100
    assert plan_splits > 0


# -- 3. observe hides -------------------------------------------------------------------


def test_observe_holds_no_card_the_view_hides() -> None:
    checked = 0
    for s in all_positions():
        for seat in range(s.players):
            known = GAME.observe(s, seat)
            view = GAME.view(s, seat)
            # the Power cards in force are shown by their agents
            shown = card_strings(view) | {C.power_card(a) for a in view["powers"]}
            hidden = card_strings(others_hidden(s, seat)) - shown
            assert not card_strings(_parts(known)) & hidden
            assert card_strings(_parts(known)) <= shown
            assert known.arranged_later == ()
            checked += bool(hidden)
            # the seat's own hand is there, and of the others only the count
            assert sorted(known.hands[seat]) == sorted(s.hands[seat])
            for i in range(s.players):
                assert len(known.hands[i]) == len(s.hands[i])
                if i != seat:
                    assert set(known.hands[i]) <= {UNSEEN}
                assert set(known.reserves[i]) <= {UNSEEN}
            assert len(known.pile) == len(s.pile) and known.pile[:1] == s.pile[:1]
    assert checked > 100


def swap_hidden_action(s: State, seat: int) -> State | None:
    """The same position with a card of another hand swapped for a card set
    aside or in a reserve: the seat's view is unchanged."""
    other = next((i for i in range(s.players) if i != seat and s.hands[i]), None)
    hidden = s.set_aside or next((r for r in s.reserves if r), ())
    if other is None or not hidden:
        return None
    card, old = s.hands[other][0], hidden[0]
    hands = list(s.hands)
    hands[other] = (old,) + s.hands[other][1:]
    swap = lambda cards: tuple(card if c == old else c for c in cards)  # noqa: E731
    return revise(s, hands=tuple(hands), set_aside=swap(s.set_aside), reserves=tuple(map(swap, s.reserves)))


def swap_won_cards(s: State, seat: int) -> State | None:
    """The same position where two seats won each other's card of a colour
    (not in the last turn, which view shows): the seat's view is unchanged,
    since it lists the cards played and each seat's colours, not who won which
    (with hidden counts, of the other seats only: it knows its own pile)."""
    last = set(s.last_turn[1]) if s.last_turn else set()
    for i in range(s.players):
        for j in range(i + 1, s.players):
            if s.counts == "hidden" and seat in (i, j):
                continue
            for a in s.won_cards[i]:
                b = next((c for c in s.won_cards[j] if c not in last and c[0] == a[0]), None)
                if b is None or a in last:
                    continue
                won = list(s.won_cards)
                won[i] = tuple(b if c == a else c for c in won[i])
                won[j] = tuple(a if c == b else c for c in won[j])
                return revise(s, won_cards=tuple(won))
    return None


def move_won_turn(s: State, seat: int) -> State | None:
    """With hidden counts, the same position where a turn one other seat won
    (not the last one, which view shows) was won by another: its cards and a
    plan change piles.  The seat's view is unchanged, though the counts of
    both piles are not: with hidden counts they are not in it (until the game
    is over: then everyone's are)."""
    if s.counts != "hidden" or s.phase == "over":
        return None
    last = s.last_turn
    for j in range(s.players):
        hidden_cards = [c for c in s.won_cards[j] if not (last and last[0] == j and c in last[1])]
        plans = [p for p in s.won_plans[j] if not C.is_power(p) and not (last and last[0] == j and p in last[2])]
        if j == seat or len(hidden_cards) < s.players or not plans:
            continue
        for k in range(s.players):
            if k in (seat, j):
                continue
            moved, plan = hidden_cards[: s.players], plans[0]
            won_cards, won_plans = list(s.won_cards), list(s.won_plans)
            won_cards[j] = tuple(c for c in s.won_cards[j] if c not in moved)
            won_cards[k] = s.won_cards[k] + tuple(moved)
            won_plans[j] = tuple(p for p in s.won_plans[j] if p != plan)
            won_plans[k] = s.won_plans[k] + (plan,)
            return revise(s, won_cards=tuple(won_cards), won_plans=tuple(won_plans))
    return None


def swap_turned_powers(s: State, seat: int) -> State | None:
    """The same position where another seat's Power card was turned earlier
    this round instead of a third seat's: the seat's view is unchanged, but
    how many plans each of the others holds is not."""
    for j in range(s.players):
        for k in range(s.players):
            pj, pk = C.power_card(s.agents[j]), C.power_card(s.agents[k])
            if seat in (j, k) or s.agents[j] in s.powers or pj not in s.won_plans[j] or pk not in s.pile[1:]:
                continue
            won_plans = list(s.won_plans)
            won_plans[j] = tuple(p for p in s.won_plans[j] if p != pj)
            won_plans[k] = s.won_plans[k] + (pk,)
            pile = tuple(pj if p == pk else p for p in s.pile)
            return revise(s, won_plans=tuple(won_plans), pile=pile)
    return None


def test_states_with_the_same_view_give_the_same_observation() -> None:
    kinds = Counter()
    for s in all_positions():
        for seat in range(s.players):
            for kind, twin in (
                ("action", swap_hidden_action(s, seat)),
                ("won", swap_won_cards(s, seat)),
                ("turn", move_won_turn(s, seat)),
                ("power", swap_turned_powers(s, seat)),
                ("shuffled", revise(s, hands=tuple(h[::-1] for h in s.hands), pile=s.pile[:1] + s.pile[:0:-1])),
            ):
                if twin is None or twin == s:
                    continue
                assert GAME.view(twin, seat) == GAME.view(s, seat)
                assert GAME.observe(twin, seat) == GAME.observe(s, seat)
                kinds[kind] += 1
    assert min(kinds["action"], kinds["won"], kinds["turn"], kinds["power"], kinds["shuffled"]) > 5, kinds


def test_who_led_is_not_known_once_jean_plays_last() -> None:
    """Under Jean's power the order shown starts after Jean whether Jean or
    the next seat led: both give the same observation."""
    found = 0
    for s in all_positions():
        if s.phase != "play" or "jean" not in s.powers:
            continue
        jean = s.seat_of("jean")
        for leader in range(s.players):
            reverse = C.accomplice(s.top) == "brioche"
            if leader == s.leader or play_order(s.players, leader, reverse, jean) != s.order:
                continue
            twin = revise(s, leader=leader)
            for seat in range(s.players):
                assert GAME.view(twin, seat) == GAME.view(s, seat)
                assert GAME.observe(twin, seat) == GAME.observe(s, seat)
            found += 1
    assert found > 0


def test_later_rounds_stacked_for_tests_are_forgotten() -> None:
    """``arranged_later`` tells the future: the observation drops it and the
    next round is then dealt from decide's rng."""
    later = [{"actions": list(C.ACTION_CARDS), "plans": []}]
    match = new_match(3, 5, False, arranged={"later": later})
    rng = random.Random(5)
    while match.state.round == 1 and match.outcome is None:
        s = match.state
        seat = rng.choice(match.active())
        if s.turn == ROUND_TURNS and s.phase == "play" and len(s.table) == s.players - 1:
            break
        match.submit(seat, rng.choice(GAME.legal(s, seat)))
    s = match.state
    assert s.arranged_later and s.turn == ROUND_TURNS
    (seat,) = GAME.active(s)
    known = GAME.observe(s, seat)
    assert known.arranged_later == ()
    d = GAME.determinize(known, seat, random.Random(3))
    card = GAME.legal(d, seat)[0]
    true_deal = [e for e in GAME.decide(s, seat, card, random.Random(9)) if e["t"] == "RoundDealt"]
    assert true_deal and true_deal[0]["hands"][0] == list(C.ACTION_CARDS[:6])  # the stacked deck
    deals = [
        next(e for e in GAME.decide(d, seat, card, random.Random(k)) if e["t"] == "RoundDealt")["hands"]
        for k in range(3)
    ]
    assert all(h[0] != list(C.ACTION_CARDS[:6]) for h in deals)
    assert deals[0] != deals[1]


# -- 4. play goes on from a determinized state -------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_random_play_goes_on_to_the_end_from_determinized_states(players: int) -> None:
    starts = [s for young in (False, True) for s in positions(players, young) if s.phase != "over"]
    for k, s in enumerate(starts[:: max(1, len(starts) // 6)]):
        seat = k % players
        state = GAME.determinize(GAME.observe(s, seat), seat, random.Random(k))
        rng = random.Random(k)
        for _ in range(2000):
            if GAME.outcome(state) is not None:
                break
            mover = rng.choice(GAME.active(state))
            for event in GAME.decide(state, mover, rng.choice(GAME.legal(state, mover)), rng):
                state = GAME.evolve(state, event)
                if event["t"] != "GameWon":
                    check_cards(state)
        assert GAME.outcome(state) is not None


# -- 5. redo: nobody chooses in secret here ------------------------------------------------


def test_redo_changes_nothing() -> None:
    for s in all_positions()[::7]:
        for seat in range(s.players):
            known = GAME.observe(s, seat)
            assert GAME.determinize(known, seat, random.Random(4), redo=True) == GAME.determinize(
                known, seat, random.Random(4)
            )
