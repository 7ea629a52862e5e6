"""Ministères: what a seat knows (``observe``) and the states it cannot tell
apart (``determinize``), for the search bot.

Positions come from seeded random games at every player count and under
every variant, stopped all along the gifts and the auctions.  For each
position and each seat: a determinized state shows the seat the same view,
observes the same, hides nothing any more, holds the 108 cards, obeys the
rules' invariants and offers the seat the same moves; the observation holds
no card hidden from the seat; different seeds give different deals; and
play goes on to the end from a determinized state.
"""

from __future__ import annotations

import random
from collections import Counter
from functools import cache

import pytest

from core.engine import UNSEEN, Match, make_header, revise, to_plain
from core.games.ministeres import GAME
from core.games.ministeres import cards as C
from core.games.ministeres.rules import State, _give_gold, means
from tests.random_games import strings

CARDS = Counter(C.ALL_CARDS)

#: every variant combination, each at a player count (all of 2 to 5 used)
TABLES = [
    (2, {"bids": "bluff", "unsold": "discard", "dealer_roi": "applied"}),
    (3, {"bids": "covered", "unsold": "discard", "dealer_roi": "applied"}),
    (4, {"bids": "bluff", "unsold": "opener", "dealer_roi": "applied"}),
    (5, {"bids": "covered", "unsold": "opener", "dealer_roi": "applied"}),
    (2, {"bids": "covered", "unsold": "opener", "dealer_roi": "kept"}),
    (3, {"bids": "bluff", "unsold": "opener", "dealer_roi": "kept"}),
    (4, {"bids": "covered", "unsold": "discard", "dealer_roi": "kept"}),
    (5, {"bids": "bluff", "unsold": "discard", "dealer_roi": "kept"}),
]
TABLE_IDS = [f"{n}p-{v['bids']}-{v['unsold']}-{v['dealer_roi']}" for n, v in TABLES]


def pass_often(rng: random.Random, legal: list) -> dict:
    return {"t": "Pass"} if legal[-1] == {"t": "Pass"} and rng.random() < 0.4 else rng.choice(legal)


def play_out(state: State, rng: random.Random, max_moves: int = 3000) -> State:
    """Random legal play straight on the rules (no Match) until the end."""
    for _ in range(max_moves):
        if GAME.outcome(state) is not None:
            return state
        (seat,) = GAME.active(state)
        legal = GAME.legal(state, seat)
        assert legal, (state.phase, seat)
        for event in GAME.decide(state, seat, pass_often(rng, legal), rng):
            state = GAME.evolve(state, event)
    raise AssertionError("the game did not end")


@cache
def positions(players: int, seed: int, variants_key: tuple, every: int = 4, arranged: bool = False) -> tuple:
    """States where a player must choose, one move in ``every`` (at random, so
    that no phase is skipped in step with the deals), and the end."""
    config = GAME.make_config(players, variants=dict(variants_key))
    extra = {}
    if arranged:  # a stacked Favours order, which the observation must drop
        extra["arranged"] = {"deck": list(C.ALL_CARDS), "dealer": 0, "favours": sorted(C.ALL_CARDS, reverse=True)}
    match = Match.new(GAME, make_header(GAME, config, seed, **extra))
    rng = random.Random(seed)
    keep = random.Random(seed + 1)
    out = []
    while match.outcome is None:
        if keep.random() * every < 1:
            out.append(match.state)
        (seat,) = match.active()
        match.submit(seat, pass_often(rng, GAME.legal(match.state, seat)))
    out.append(match.state)
    return tuple(out)


def table_positions(players: int, variants: dict, seed: int = 7) -> tuple:
    return positions(players, seed, tuple(sorted(variants.items())))


def all_cards(s: State) -> Counter:
    cards = Counter(s.deck) + Counter(s.centre) + Counter(s.favours) + Counter(s.discard) + Counter(s.face_down)
    cards.update([s.drawn] if s.drawn else [])
    cards.update([s.lot] if s.lot else [])
    for hand in s.hands:
        cards.update(hand)
    return cards


def hidden_from(s: State, seat: int) -> set[str]:
    """The cards ``view(s, seat)`` does not show the seat."""
    hidden = set(s.deck) | set(s.face_down) | (set(s.favours) - set(s.placed[seat]))
    if seat != s.dealer and s.drawn:
        hidden.add(s.drawn)
    if s.phase == "over":
        return hidden  # the scoring shows every hand
    for i in range(s.players):
        if i != seat:
            hidden |= set(s.hands[i])
    return hidden


def hidden_part(s: State, seat: int) -> tuple:
    """What determinize deals: the hidden places of the state."""
    return (s.deck, s.drawn, s.favours, tuple(h for i, h in enumerate(s.hands) if i != seat), s.face_down)


def check_valid(d: State) -> None:
    """The invariants of every real state of the game."""
    assert all_cards(d) == CARDS
    assert UNSEEN not in strings(to_plain(d))
    assert sorted(c for p in d.placed for c in p) == sorted(d.favours)
    assert d.arranged_favours == ()
    if d.dealer_roi == "applied":  # a Roi never stays in a hand, nor is paid from one
        assert not any(C.is_roi(c) for hand in d.hands for c in hand)
        assert not any(C.is_roi(c) for c in d.face_down)
    if d.phase == "pay":  # the payer can finish paying
        assert means(d.hands[d.payer], d.pay_kind) >= d.owed - d.paid


def check_position(s: State, seeds=range(2)) -> None:
    for seat in range(s.players):
        known = GAME.observe(s, seat)
        view = GAME.view(s, seat)
        legal = GAME.legal(s, seat)
        for seed in seeds:
            d = GAME.determinize(known, seat, random.Random(seed))
            assert GAME.view(d, seat) == view, (s.phase, seat, seed)
            assert GAME.observe(d, seat) == known
            check_valid(d)
            assert GAME.active(d) == GAME.active(s)
            assert GAME.legal(d, seat) == legal


# -- 1. a determinized state is one the seat cannot tell from the real one ---------------


@pytest.mark.parametrize(("players", "variants"), TABLES, ids=TABLE_IDS)
def test_determinized_states_look_the_same_to_the_seat(players: int, variants: dict) -> None:
    states = table_positions(players, variants)
    phases = {s.phase for s in states}
    assert {"gifts", "take", "auction", "over"} <= phases
    for s in states:
        check_position(s)


def test_the_positions_cover_every_phase_and_payment() -> None:
    """The payments and the draws the other checks rely on really occur."""
    seen = Counter()
    for players, variants in TABLES:
        for s in table_positions(players, variants):
            seen[s.phase] += 1
            if s.phase == "pay":
                seen["pay-" + s.pay_kind] += 1
            if s.face_down:
                seen["face_down"] += 1
            if s.dealer_roi == "kept" and any(C.is_roi(c) for h in s.hands for c in h):
                seen["roi-kept"] += 1
    for key in ("gifts", "take", "auction", "pay", "over", "pay-gold", "pay-cards", "face_down", "roi-kept"):
        assert seen[key], key


def test_every_move_of_a_short_game_is_covered() -> None:
    """Every decision point of one game, not a sample of them."""
    for s in positions(3, 11, (("bids", "bluff"),), every=1):
        check_position(s, seeds=(0,))


def test_an_unseen_payer_always_holds_enough_gold() -> None:
    """A payer who must still pay in gold gets enough Or cards, even when
    the real hand holds just the gold owed (rejection would rarely find it)."""
    tried = 0
    for players, variants in TABLES:
        if players < 3:
            continue
        for s in table_positions(players, variants):
            if s.phase != "pay" or s.pay_kind != "gold":
                continue
            payer = s.payer
            seat = next(i for i in range(players) if i != payer)
            # a hand of the best Or cards around, owing every gold of it
            others = [i for i in range(players) if i not in (seat, payer)]
            pool = sorted((c for i in others for c in s.hands[i]), key=lambda c: -C.value(c) if C.is_or(c) else 0)
            hand = list(s.hands[payer])
            hands = [list(h) for h in s.hands]
            for k in range(len(hand)):
                if pool and C.is_or(pool[0]) and (not C.is_or(hand[k]) or C.value(hand[k]) < C.value(pool[0])):
                    best = pool.pop(0)
                    owner = next(i for i in others if best in hands[i])
                    hands[owner][hands[owner].index(best)] = hand[k]
                    hand[k] = best
            hands[payer] = hand
            hard = revise(s, hands=tuple(map(tuple, hands)), owed=s.paid + C.gold(hand))
            assert all_cards(hard) == CARDS
            known = GAME.observe(hard, seat)
            for seed in range(20):
                d = GAME.determinize(known, seat, random.Random(seed))
                assert C.gold(d.hands[payer]) >= d.owed - d.paid
                assert GAME.view(d, seat) == GAME.view(hard, seat)
                assert GAME.observe(d, seat) == known
                assert all_cards(d) == CARDS
            tried += 1
    assert tried


def test_give_gold_swaps_the_best_or_cards_in() -> None:
    cards = ["armee-A", "or1-01", "or3-01", "roi-01", "or3-02", "or2-01"]
    _give_gold(cards, 0, 2, 6)  # the "hand" is the first two places
    assert sorted(cards[:2]) == ["or3-01", "or3-02"]
    assert sorted(cards) == sorted(["armee-A", "or1-01", "or3-01", "roi-01", "or3-02", "or2-01"])


# -- 2. determinize samples --------------------------------------------------------------


@pytest.mark.parametrize(("players", "variants"), TABLES[:4], ids=TABLE_IDS[:4])
def test_determinize_samples_and_is_reproducible(players: int, variants: dict) -> None:
    sampled = 0
    for s in table_positions(players, variants)[::3]:
        for seat in range(players):
            if len(hidden_from(s, seat)) < 4:
                continue
            known = GAME.observe(s, seat)
            deals = {hidden_part(GAME.determinize(known, seat, random.Random(seed)), seat) for seed in range(4)}
            assert len(deals) > 1
            assert GAME.determinize(known, seat, random.Random(5)) == GAME.determinize(known, seat, random.Random(5))
            sampled += 1
    assert sampled > 10


def test_the_unseen_cards_are_dealt_everywhere() -> None:
    """Across seeds, a hidden card lands in the deck, in hands, on the Favours pile."""
    s = next(s for s in table_positions(4, TABLES[2][1]) if s.phase == "gifts" and len(s.favours) > 8)
    seat = s.dealer
    known = GAME.observe(s, seat)
    card = sorted(c for c in hidden_from(s, seat) if not C.is_roi(c))[0]
    where = set()
    for seed in range(200):
        d = GAME.determinize(known, seat, random.Random(seed))
        if card in d.deck:
            where.add("deck")
        if card in d.favours:
            where.add("favours")
        if any(card in h for h in d.hands):
            where.add("hand")
    assert where == {"deck", "favours", "hand"}


def test_the_favours_order_is_drawn_anew_after_the_shuffle() -> None:
    s = next(s for s in table_positions(3, TABLES[1][1]) if s.phase == "auction" and len(s.favours) > 5)
    for seat in range(3):
        known = GAME.observe(s, seat)
        tops = {GAME.determinize(known, seat, random.Random(seed)).favours[0] for seed in range(30)}
        assert len(tops) > 3
        mine = set(s.placed[seat])
        # the seat's own cards are still on the pile, somewhere
        for seed in range(5):
            d = GAME.determinize(known, seat, random.Random(seed))
            assert mine <= set(d.favours) and set(d.placed[seat]) == mine


# -- 3. observe hides --------------------------------------------------------------------


@pytest.mark.parametrize(("players", "variants"), TABLES, ids=TABLE_IDS)
def test_the_observation_holds_no_hidden_card(players: int, variants: dict) -> None:
    for s in table_positions(players, variants):
        for seat in range(players):
            known = GAME.observe(s, seat)
            hidden = hidden_from(s, seat)
            assert not strings(to_plain(known)) & hidden, (s.phase, seat)
            # counts are kept where the view gives them
            assert len(known.deck) == len(s.deck) and len(known.favours) == len(s.favours)
            assert [len(h) for h in known.hands] == [len(h) for h in s.hands]
            assert len(known.face_down) == len(s.face_down)
            assert known.hands[seat] == tuple(sorted(s.hands[seat], key=C.hand_order))
            assert known.placed[seat] == s.placed[seat]


def test_the_dealer_alone_sees_the_card_drawn() -> None:
    s = next(s for s in table_positions(3, TABLES[1][1]) if s.phase == "gifts")
    assert s.drawn
    for seat in range(3):
        expected = s.drawn if seat == s.dealer else UNSEEN
        assert GAME.observe(s, seat).drawn == expected


def test_who_else_put_what_on_the_favours_pile() -> None:
    """Before the shuffle the deals tell how many cards each seat put there;
    after it nobody else can tell, and the observation keeps nothing."""
    states = table_positions(3, TABLES[1][1])
    before = next(s for s in states if s.phase == "take" and len(s.favours) > 3)
    after = next(s for s in states if s.phase == "auction" and s.auction_no > 2)
    for seat in range(3):
        known = GAME.observe(before, seat)
        for i in range(3):
            if i != seat:
                assert known.placed[i] == (UNSEEN,) * len(before.placed[i])
        known = GAME.observe(after, seat)
        assert all(known.placed[i] == () for i in range(3) if i != seat)


def test_states_with_the_same_view_give_the_same_observation() -> None:
    """Hidden cards moved about (hands swapped, deck and Favours reordered)."""
    for s in table_positions(4, TABLES[6][1])[::5]:
        for seat in range(4):
            a, b = [i for i in range(4) if i != seat][:2]
            if not (s.hands[a] and s.hands[b]):
                continue
            hands = list(s.hands)
            hands[a] = (s.hands[b][0],) + s.hands[a][1:]
            hands[b] = (s.hands[a][0],) + s.hands[b][1:]
            hands[seat] = tuple(reversed(s.hands[seat]))
            other = revise(s, hands=tuple(hands), deck=tuple(reversed(s.deck)))
            if s.phase not in ("gifts", "take"):
                other = revise(other, favours=tuple(reversed(s.favours)))
            assert GAME.view(other, seat) == GAME.view(s, seat)
            assert GAME.observe(other, seat) == GAME.observe(s, seat)


def test_the_stacked_favours_order_is_dropped() -> None:
    states = positions(3, 5, (), every=6, arranged=True)
    s = next(s for s in states if s.phase == "gifts")
    assert s.arranged_favours
    known = GAME.observe(s, 1)
    assert known.arranged_favours == ()
    for seed in range(3):
        d = GAME.determinize(known, 1, random.Random(seed))
        check_valid(d)
        # the Favours pile is then shuffled with decide's rng, and play goes on
        assert GAME.outcome(play_out(d, random.Random(seed))) is not None


# -- 4. play goes on ------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "variants"), TABLES, ids=TABLE_IDS)
def test_play_goes_on_from_determinized_states(players: int, variants: dict) -> None:
    states = table_positions(players, variants)
    picks = states[1 : len(states) - 1 : max(1, len(states) // 5)]
    for k, s in enumerate(picks):
        seat = (k + s.dealer) % players
        d = GAME.determinize(GAME.observe(s, seat), seat, random.Random(k))
        end = play_out(d, random.Random(100 + k))
        outcome = GAME.outcome(end)
        assert outcome is not None and len(outcome.scores) == players
        assert all_cards(end) == CARDS


# -- 5. redo --------------------------------------------------------------------------------


def test_redo_changes_nothing_as_no_choice_is_hidden() -> None:
    for s in table_positions(5, TABLES[3][1])[::7]:
        for seat in range(5):
            known = GAME.observe(s, seat)
            assert GAME.determinize(known, seat, random.Random(3), redo=True) == GAME.determinize(
                known, seat, random.Random(3)
            )
