"""1988: Chirac contre Mitterrand: what a seat knows (``observe``/``determinize``).

Positions come from seeded random games, two players and solo (either
candidate), at every decision point: a card to play, a campaign card to
choose, a veto to decide, and the end.  For each position and seat, the
observation must hide what the view hides, and the states determinized from
it must be full, valid, indistinguishable from the true one by that seat, and
playable to the end.
"""

from __future__ import annotations

import random
from collections import Counter
from functools import cache

import pytest

from core.engine import UNSEEN, Match, make_header, revise, to_plain
from core.games.chirac_mitterrand import GAME
from core.games.chirac_mitterrand import cards as C
from core.games.chirac_mitterrand.rules import SOLO_KINDS, SOLO_PER_KIND, State
from tests.random_games import strings
from tests.test_chirac_mitterrand_properties import check_cards as check_conserved

#: (players, candidate of seat 0, game seed, solo level)
TABLES = [
    (2, "chirac", 1, "standard"),
    (2, "mitterrand", 2, "standard"),
    (2, "chirac", 3, "standard"),
    (1, "chirac", 4, "standard"),
    (1, "mitterrand", 5, "standard"),
    (1, "chirac", 6, "standard"),
    (1, "chirac", 7, "hard"),
    (1, "mitterrand", 8, "hard"),
]
DEALS = (0, 1, 2)


def new_match(players: int, candidate: str, seed: int, arranged: dict | None = None, level: str = "standard") -> Match:
    config = GAME.make_config(players, [{"candidate": candidate}], {"solo": level})
    extra = {"arranged": arranged} if arranged else {}
    return Match.new(GAME, make_header(GAME, config, seed, **extra))


@cache
def positions(players: int, candidate: str, seed: int, level: str = "standard") -> tuple[State, ...]:
    """Every decision point of one random game, and its end."""
    match = new_match(players, candidate, seed, level=level)
    chooser = random.Random(seed)
    out = [match.state]
    while match.outcome is None:
        seat = chooser.choice(match.active())
        match.submit(seat, chooser.choice(GAME.legal(match.state, seat)))
        out.append(match.state)
    return tuple(out)


def all_positions() -> list[tuple[State, int]]:
    out = []
    for players, candidate, seed, level in TABLES:
        for s in positions(players, candidate, seed, level):
            out += [(s, seat) for seat in range(players)]
    return out


def check_cards(s: State) -> None:
    check_conserved(s)
    assert list(s.camp_pile) == sorted(s.camp_pile)
    assert all(0 <= s.known[c] <= len(s.piles[c]) for c in (0, 1))


def unseen_slots(s: State) -> int:
    return sum(x == UNSEEN for x in (*s.piles[0], *s.piles[1], *s.hand, *s.camp_drawn, *s.camp_pile))


def dealt_slots(s: State) -> int:
    """The UNSEEN slots whose filling is a real choice (the campaign pile is a sorted set)."""
    return sum(x == UNSEEN for x in (*s.piles[0], *s.piles[1], *s.hand, *s.camp_drawn))


def hidden_from(s: State, seat: int) -> set[str]:
    """The cards ``seat`` cannot see in ``s``, written independently of the rules."""
    me = s.candidate_of(seat)
    hidden: set[str] = set()
    for c in (0, 1):
        slid_by_me = (c == me) if s.solo else (c != me)
        k = s.known[c] if slid_by_me else 0
        hidden |= set(s.piles[c][: len(s.piles[c]) - k])
    automaton_face_up = s.solo and s.to_move == s.automaton and s.phase == "veto"
    if not (s.phase == "play" and me == s.to_move) and not automaton_face_up:
        hidden |= set(s.hand)
    if me != s.camp_drawer:
        hidden |= set(s.camp_drawn)
    hidden |= set(s.camp_pile)  # the view gives only its count
    return hidden - strings(GAME.view(s, seat))  # a card shown elsewhere (a returned poll card) is no secret


def play_out(s: State, rng: random.Random) -> State:
    for _ in range(500):
        if GAME.outcome(s) is not None:
            return s
        seat = rng.choice(GAME.active(s))
        for ev in GAME.decide(s, seat, rng.choice(GAME.legal(s, seat)), rng):
            s = GAME.evolve(s, ev)
    raise AssertionError("the game did not end")


def test_the_positions_cover_every_phase_and_table() -> None:
    phases = Counter((s.solo, s.phase) for s, _ in all_positions())
    for solo in (False, True):
        for phase in ("play", "campaign", "over"):
            assert phases[solo, phase], (solo, phase)
    assert phases[True, "veto"]
    # the hard automaton's campaign draws are behind some positions (variant solo=hard)
    assert any(
        s.solo_hard and s.last_campaign and s.last_campaign["by"] == ("chirac", "mitterrand")[s.automaton]
        for s, _ in all_positions()
    )


def test_determinized_states_are_indistinguishable_full_and_valid() -> None:
    for s, seat in all_positions():
        known = GAME.observe(s, seat)
        view = GAME.view(s, seat)
        legal = GAME.legal(s, seat)
        for d in DEALS:
            det = GAME.determinize(known, seat, random.Random(d))
            assert GAME.view(det, seat) == view
            assert GAME.observe(det, seat) == known
            assert UNSEEN not in strings(to_plain(det))
            assert det.arranged_campaign == ()
            check_cards(det)
            assert GAME.legal(det, seat) == legal
            assert GAME.active(det) == GAME.active(s)
            if det.solo:  # the automaton's pile was dealt two cards of each kind
                kinds = Counter(C.kind(x) for x in det.piles[det.automaton])
                assert set(kinds) <= set(SOLO_KINDS) and max(kinds.values(), default=0) <= SOLO_PER_KIND


def test_observe_hides_what_the_view_hides() -> None:
    hidden_somewhere = 0
    for s, seat in all_positions():
        known = GAME.observe(s, seat)
        hidden = hidden_from(s, seat)
        assert not strings(to_plain(known)) & hidden, (s.phase, seat)
        # what stays: the view's cards, the counts
        assert tuple(map(len, known.piles)) == tuple(map(len, s.piles))
        assert len(known.hand) == len(s.hand) and len(known.camp_drawn) == len(s.camp_drawn)
        assert len(known.camp_pile) == len(s.camp_pile)
        assert GAME.view(known, seat) == GAME.view(s, seat)
        if hidden:
            hidden_somewhere += 1
            assert known != s
            assert unseen_slots(known) >= len(hidden)
    assert hidden_somewhere > 50


def test_the_seat_keeps_what_it_slid_under_a_pile_and_its_own_draw() -> None:
    kept = 0
    for s, seat in all_positions():
        known = GAME.observe(s, seat)
        me = s.candidate_of(seat)
        pile = me if s.solo else 1 - me
        k = s.known[pile]
        if k:
            kept += 1
            assert known.piles[pile][-k:] == s.piles[pile][-k:]
            assert UNSEEN not in known.piles[pile][-k:]
        assert set(known.piles[1 - pile]) <= {UNSEEN}  # never a card of the other pile
        if s.phase == "play" and s.to_move == me:
            assert known.hand == s.hand
        if s.phase == "play" and s.to_move != me:  # two players: the opponent's draw
            assert known.hand == (UNSEEN,) * len(s.hand) and len(s.hand) == 3
        if s.phase == "campaign":
            assert (known.camp_drawn == s.camp_drawn) == (s.camp_drawer == me)
        if s.phase == "veto":
            assert known.hand == s.hand  # the automaton's card is face up
    assert kept > 20


def test_states_the_seat_cannot_tell_apart_give_one_observation() -> None:
    # shuffle what the seat does not see in the true state (its own pile, the
    # opponent's undealt cards, the campaign pile), the observation must not move
    for s, seat in all_positions():
        if s.solo:
            continue
        me = s.candidate_of(seat)
        rng = random.Random(len(s.discard) + s.turn)
        own = list(s.piles[me])
        rng.shuffle(own)
        piles = (tuple(own), s.piles[1]) if me == 0 else (s.piles[0], tuple(own))
        other = revise(s, piles=piles, arranged_campaign=(("cp:01", "cp:02", "cp:03"),))
        assert GAME.view(other, seat) == GAME.view(s, seat)
        assert GAME.observe(other, seat) == GAME.observe(s, seat)


def test_determinize_samples_and_repeats_itself() -> None:
    varied = 0
    for s, seat in all_positions():
        known = GAME.observe(s, seat)
        if dealt_slots(known) < 2:
            continue
        deals = [GAME.determinize(known, seat, random.Random(d)) for d in range(6)]
        assert len({(d.piles, d.hand, d.camp_drawn, d.camp_pile) for d in deals}) > 1, (s.phase, seat)
        assert GAME.determinize(known, seat, random.Random(3)) == deals[3]
        varied += 1
    assert varied > 50


def test_the_opponents_cards_are_really_resampled() -> None:
    # two players: over the game, the opponent's hidden draw takes many values
    hands = Counter()
    for s in positions(2, "chirac", 1):
        if s.phase == "play" and s.to_move == 1:
            known = GAME.observe(s, 0)
            for d in range(10):
                hands[GAME.determinize(known, 0, random.Random(d)).hand] += 1
    assert len(hands) > 0.8 * sum(hands.values())


def test_play_goes_on_from_determinized_states() -> None:
    checked = 0
    for players, candidate, seed, level in TABLES:
        states = positions(players, candidate, seed, level)
        for s in states[:: max(1, len(states) // 4)]:
            for seat in range(players):
                det = GAME.determinize(GAME.observe(s, seat), seat, random.Random(seed))
                end = play_out(det, random.Random(seed + seat))
                assert GAME.outcome(end) is not None
                check_cards(end)
                checked += 1
    assert checked >= 20


def test_stacked_campaign_draws_are_dropped_and_a_later_draw_is_random() -> None:
    stacked = [["cp:07", "cp:03", "cp:06"], ["cp:09", "cp:01", "cp:05"]]
    match = new_match(2, "chirac", 11, arranged={"campaign": stacked})
    assert match.state.arranged_campaign
    known = GAME.observe(match.state, 0)
    assert known.arranged_campaign == ()
    assert GAME.observe(revise(match.state, arranged_campaign=()), 0) == known
    draws = set()
    for d in range(8):
        end = play_out(GAME.determinize(known, 0, random.Random(d)), random.Random(d))
        draws.add(end.camp_removed + end.camp_applied)
    assert len(draws) > 1


@pytest.mark.parametrize("players", [1, 2])
def test_redo_changes_nothing(players: int) -> None:
    for s in positions(*next(t for t in TABLES if t[0] == players))[::3]:
        known = GAME.observe(s, 0)
        assert GAME.determinize(known, 0, random.Random(5), redo=True) == GAME.determinize(known, 0, random.Random(5))
