"""Edgar & Lucien: what a seat knows (``observe``) and the states it cannot
tell apart (``determinize``), for the search bot.

Positions come from seeded random games (2 to 4 players, hidden and open
fortunes, both decks), stopped at every phase: placement, programming with
some seats programmed and others not, action, asks (requisition,
intimidation, surrender, yield), the Governor bidding and the end.  For every
position and every seat the determinized states must show the seat the same
view and give the same observation as the true state, with every card of the
game dealt once, money conserved, and play able to go on to the end.
"""

from __future__ import annotations

import random
from collections import Counter
from functools import cache

import pytest

from core.engine import UNSEEN, Match, make_header, revise, to_plain
from core.games.edgar_lucien import GAME
from core.games.edgar_lucien import cards as C
from core.games.edgar_lucien.rules import BOX_COGS, DISCREDIT_COGS, GUESS_MAX, UNIT, State, conditions
from tests.random_games import strings

CARD_IDS = set(C.CARD_IDS)
SEEDS = (1, 2, 3)

#: (players, variants, game seed)
GAMES = [
    (2, {"fortunes": "hidden", "deck": "15"}, 11),
    (2, {"fortunes": "open", "deck": "20"}, 12),
    (3, {"fortunes": "hidden", "deck": "20", "start": "anywhere"}, 13),
    (3, {"fortunes": "open", "deck": "15"}, 14),
    (4, {"fortunes": "hidden", "deck": "15"}, 15),
    (4, {"fortunes": "hidden", "deck": "20", "start": "anywhere"}, 16),
]


def _kind(s: State) -> str:
    """What a position is, for picking a spread of them."""
    if s.phase == "program":
        made = sum(p is not None for p in s.programs)
        return f"program-{min(made, 2)}"
    if s.phase == "ask":
        return f"ask-{s.asks[0][0]}"
    return s.phase


@cache
def positions() -> tuple[State, ...]:
    """States of real games: every 7th move, the first few of each kind, the end."""
    found: list[State] = []
    for players, variants, seed in GAMES:
        match = Match.new(GAME, make_header(GAME, GAME.make_config(players, variants=variants), seed))
        rng = random.Random(seed)
        seen: Counter[str] = Counter()
        moves = 0
        while match.outcome is None:
            s = match.state
            kind = _kind(s)
            if moves % 7 == 0 or seen[kind] < 3:
                found.append(s)
                seen[kind] += 1
            seat = rng.choice(match.active())
            match.submit(seat, rng.choice(GAME.legal(s, seat)))
            moves += 1
        found.append(match.state)
    return tuple(found)


def all_cards(s: State) -> Counter[str]:
    cards = Counter(s.deck) + Counter(s.discard)
    for hand in s.hands:
        cards.update(hand)
    return cards


def seen_cards(known: State) -> Counter[str]:
    return Counter(c for c in all_cards(known).elements() if c != UNSEEN)


def check_valid(d: State) -> None:
    """A whole state: nothing unseen, cards and money all there."""
    assert UNSEEN not in strings(to_plain(d))
    assert all_cards(d) == Counter(C.deck(d.deck_size))
    assert sum(d.cogs) + d.bank == BOX_COGS
    assert all(isinstance(c, int) and c >= 0 and c % UNIT == 0 for c in d.cogs)
    assert d.bank >= 0
    if d.phase != "over":
        assert all(sum(conditions(d, i)) < 3 for i in range(d.players))
    if d.bidding is not None and d.bidding[2] is not None:
        assert d.cogs[d.bidding[2]] >= d.bidding[1]
    for kind, who, _, _ in d.asks:
        if kind == "yield":
            assert d.popularity[who] > 0 or d.cogs[who] >= DISCREDIT_COGS


def play_on(s: State, seed: int, limit: int = 4000) -> State:
    """Random legal play with decide and evolve until the game ends."""
    rng = random.Random(seed)
    for _ in range(limit):
        if GAME.outcome(s) is not None:
            return s
        seat = rng.choice(GAME.active(s))
        legal = GAME.legal(s, seat)
        assert legal, (s.phase, seat)
        for event in GAME.decide(s, seat, rng.choice(legal), rng):
            s = GAME.evolve(s, event)
    raise AssertionError("the game did not end")


def without_program(s: State, seat: int) -> State:
    return revise(s, programs=tuple(None if i == seat else p for i, p in enumerate(s.programs)))


# -- the positions cover the game --------------------------------------------------------------


def test_the_positions_cover_every_phase() -> None:
    kinds = Counter(_kind(s) for s in positions())
    for kind in (
        "place",
        "program-0",
        "program-1",
        "program-2",
        "act",
        "ask-requisition",
        "ask-intimidate",
        "ask-surrender",
        "ask-yield",
        "bid",
        "over",
    ):
        assert kinds[kind] > 0, kind
    assert {s.players for s in positions()} == {2, 3, 4}
    assert len(positions()) < 800


# -- 1. a determinized state looks the same to the seat -------------------------------------------


def test_determinized_states_look_the_same_to_the_seat() -> None:
    for s in positions():
        for seat in range(s.players):
            known = GAME.observe(s, seat)
            view = GAME.view(s, seat)
            legal = GAME.legal(s, seat)
            for k in SEEDS:
                d = GAME.determinize(known, seat, random.Random(k))
                check_valid(d)
                assert GAME.view(d, seat) == view
                assert GAME.observe(d, seat) == known
                assert GAME.active(d) == GAME.active(s)
                assert GAME.legal(d, seat) == legal
                # the cards the seat saw are where they were
                assert sorted(d.hands[seat]) == sorted(s.hands[seat])
                # a program drawn for another seat is one of its legal programs
                if s.phase == "program":
                    for i, p in enumerate(d.programs):
                        if p is not None and i != seat:
                            program = {"t": "Program", "edgar": p[0], "lucien": p[1]}
                            assert program in GAME.legal(without_program(d, i), i)


# -- 2. determinize samples, and the same rng gives the same state ------------------------------------


def test_determinize_samples_the_hidden_cards_and_fortunes() -> None:
    sampled = 0
    for s in positions():
        for seat in range(s.players):
            known = GAME.observe(s, seat)
            pool = Counter(C.deck(s.deck_size)) - seen_cards(known)
            slots = sum(pool.values())
            if slots < 3 or len(pool) < 2:
                continue
            deals = set()
            for k in range(8):
                d = GAME.determinize(known, seat, random.Random(k))
                deals.add((d.deck, d.discard, d.hands, d.cogs))
            assert len(deals) > 1, (s.phase, seat)
            assert GAME.determinize(known, seat, random.Random(5)) == GAME.determinize(known, seat, random.Random(5))
            sampled += 1
    assert sampled > 100


def test_hidden_fortunes_are_guessed_and_the_bank_holds_the_rest() -> None:
    guesses: Counter[int] = Counter()
    for s in positions():
        if not s.hidden or s.phase == "over":
            continue
        for seat in range(s.players):
            known = GAME.observe(s, seat)
            for k in SEEDS:
                d = GAME.determinize(known, seat, random.Random(k))
                assert d.cogs[seat] == s.cogs[seat]
                assert d.bank == BOX_COGS - sum(d.cogs)
                for i in range(s.players):
                    if i != seat:
                        guesses[d.cogs[i]] += 1
    assert min(guesses) == 0 and max(guesses) <= GUESS_MAX
    assert len(guesses) > 15  # spread over the range, not one guess


def test_open_fortunes_are_kept() -> None:
    for s in positions():
        if s.hidden and s.phase != "over":
            continue
        for seat in range(s.players):
            d = GAME.determinize(GAME.observe(s, seat), seat, random.Random(0))
            assert d.cogs == s.cogs and d.bank == s.bank


# -- 3. observe hides what the view hides ---------------------------------------------------------------


def test_observe_hides_what_the_seat_cannot_see() -> None:
    for s in positions():
        for seat in range(s.players):
            known = GAME.observe(s, seat)
            # only the seat's own cards, in a canonical order; counts kept
            assert seen_cards(known) == Counter(s.hands[seat])
            assert list(known.hands[seat]) == sorted(s.hands[seat], key=C.hand_order)
            assert strings(to_plain(known)) & CARD_IDS <= set(s.hands[seat])
            assert len(known.deck) == len(s.deck) and len(known.discard) == len(s.discard)
            assert [len(h) for h in known.hands] == [len(h) for h in s.hands]
            for i in range(s.players):
                if i == seat:
                    assert known.programs[i] == s.programs[i]
                    assert known.cogs[i] == s.cogs[i]
                    continue
                if s.programs[i] is None:
                    assert known.programs[i] is None
                elif not s.revealed:
                    assert known.programs[i] == UNSEEN
                else:
                    assert known.programs[i] == s.programs[i]
                if s.hidden and s.phase != "over":
                    assert known.cogs[i] == UNSEEN
                else:
                    assert known.cogs[i] == s.cogs[i]
            assert (known.bank == UNSEEN) == (s.hidden and s.phase != "over")
            # what the view shows is kept: the public board and the seat's own things
            for name in ("owners", "certs", "popularity", "edgar", "lucien", "used", "acted", "asks", "bidding"):
                assert getattr(known, name) == getattr(s, name), name


def test_states_with_the_same_view_give_the_same_observation() -> None:
    """Another deal of the hidden cards, other hidden fortunes, another
    hidden program: the seat sees the same and observes the same."""
    checked = 0
    for s in positions():
        for seat in range(s.players):
            others = [i for i in range(s.players) if i != seat]
            rng = random.Random(seat)
            hidden = list(s.deck) + list(s.discard) + [c for i in others for c in s.hands[i]]
            rng.shuffle(hidden)
            deal = iter(hidden)
            hands = tuple(h if i == seat else tuple(next(deal) for _ in h) for i, h in enumerate(s.hands))
            deck = tuple(next(deal) for _ in s.deck)
            discard = tuple(next(deal) for _ in s.discard)
            # and the seat's own hand in another order
            hands = tuple(tuple(reversed(h)) if i == seat else h for i, h in enumerate(hands))
            changes = {"deck": deck, "discard": discard, "hands": hands}
            if s.hidden and s.phase != "over" and s.bidding is None and not s.asks:
                money = list(s.cogs)
                moved = min(UNIT, money[others[0]])
                money[others[0]] -= moved
                changes["cogs"] = tuple(money)
                changes["bank"] = s.bank + moved
            if not s.revealed:
                changes["programs"] = tuple(
                    ("stay", "stay") if (p is not None and i != seat) else p for i, p in enumerate(s.programs)
                )
            other = revise(s, **changes)
            assert GAME.view(other, seat) == GAME.view(s, seat)
            assert GAME.observe(other, seat) == GAME.observe(s, seat)
            checked += 1
    assert checked > 500


# -- 4. play goes on from a determinized state ------------------------------------------------------------


def test_random_play_goes_on_to_the_end_from_determinized_states() -> None:
    picked = positions()[5::19] + tuple(s for s in positions() if s.phase == "place")[::4]
    assert len(picked) >= 15 and {s.phase for s in picked} >= {"place", "program", "act", "ask"}
    for n, s in enumerate(picked):
        seat = n % s.players
        for redo in (False, True):
            d = GAME.determinize(GAME.observe(s, seat), seat, random.Random(n), redo=redo)
            end = play_on(d, n)
            assert GAME.outcome(end) is not None
            check_valid(end)


# -- 5. redo: hidden programs withdrawn ----------------------------------------------------------------------


def hidden_programs():
    """(position, seat, the other seats that have programmed, what the seat knows),
    for every seat that does not see a program already made."""
    for s in positions():
        if s.phase != "program":
            continue
        for seat in range(s.players):
            made = [i for i, p in enumerate(s.programs) if p is not None and i != seat]
            if made:
                yield s, seat, made, GAME.observe(s, seat)


def test_redo_withdraws_the_other_seats_programs_and_keeps_ours() -> None:
    cases = Counter()
    for s, seat, made, known in hidden_programs():
        d = GAME.determinize(known, seat, random.Random(3), redo=True)
        check_valid(d)
        assert d.programs[seat] == s.programs[seat]
        assert all(d.programs[i] is None for i in range(s.players) if i != seat)
        expected = tuple(i for i in range(s.players) if i != seat or s.programs[seat] is None)
        assert GAME.active(d) == expected
        for i in made:
            legal = GAME.legal(d, i)
            assert legal and legal == GAME.legal(without_program(s, i), i)
            assert all(c["t"] == "Program" for c in legal)
        # the rest of what the seat sees is unchanged
        view, seen = GAME.view(d, seat), GAME.view(s, seat)
        for p in view["players"] + seen["players"]:
            p.pop("programmed")
        assert view == seen
        assert GAME.legal(d, seat) == GAME.legal(s, seat)
        # everyone programs again and the programs are revealed, ours as it was
        rng = random.Random(seat)
        revealed = None
        while revealed is None:
            i = GAME.active(d)[0]
            command = rng.choice(GAME.legal(d, i))
            for event in GAME.decide(d, i, command, rng):
                d = GAME.evolve(d, event)
                if event["t"] == "ProgramsRevealed":
                    revealed = event["programs"][seat]
        if s.programs[seat] is not None:
            assert (revealed["edgar"], revealed["lucien"]) == s.programs[seat]
        cases["ours kept" if s.programs[seat] is not None else "ours not made"] += 1
    assert cases["ours kept"] > 0 and cases["ours not made"] > 0


def test_without_redo_the_hidden_programs_are_drawn() -> None:
    drawn = 0
    for _, seat, made, known in hidden_programs():
        programs = {GAME.determinize(known, seat, random.Random(k)).programs[made[0]] for k in range(10)}
        assert None not in programs and len(programs) > 1
        drawn += 1
    assert drawn > 5


def test_redo_changes_nothing_where_no_program_is_hidden() -> None:
    for s in positions():
        if s.phase == "program" and not s.revealed and any(p is not None for p in s.programs):
            continue
        for seat in range(s.players):
            known = GAME.observe(s, seat)
            assert GAME.determinize(known, seat, random.Random(9), redo=True) == GAME.determinize(
                known, seat, random.Random(9)
            )


# -- what the position forces on the hidden fortunes -----------------------------------------------------


def hidden_act_state(players: int) -> State:
    for s in positions():
        if (
            s.players == players
            and s.hidden
            and s.phase == "act"
            and not s.asks
            and s.governor is None
            and all(sum(conditions(s, i)) == 0 for i in range(players))
        ):
            return s
    raise AssertionError("no such position")


def with_money(s: State, **cogs: int) -> State:
    money = list(s.cogs)
    for seat, amount in cogs.items():
        money[int(seat[1:])] = amount
    return revise(s, cogs=tuple(money), bank=BOX_COGS - sum(money))


@pytest.mark.parametrize("players", [3, 4])
def test_a_player_two_conditions_up_is_not_guessed_wealthy(players: int) -> None:
    s = hidden_act_state(players)
    s = with_money(revise(s, certs=(None, 1, 1, None)), s1=140_000)  # collector and bureaucrat
    assert sum(conditions(s, 1)) == 2
    known = GAME.observe(s, 0)
    guesses = [GAME.determinize(known, 0, random.Random(k)).cogs[1] for k in range(60)]
    assert max(guesses) < C.WEALTH
    # a player one condition up may well be
    s = with_money(revise(s, certs=(None, 1, None, None)), s1=140_000)
    known = GAME.observe(s, 0)
    assert max(GAME.determinize(known, 0, random.Random(k)).cogs[1] for k in range(60)) >= C.WEALTH


def test_a_player_at_no_popularity_asked_to_yield_has_the_cogs_to_pay() -> None:
    s = hidden_act_state(3)
    pop = (s.popularity[0], 0, 0)
    asks = (("yield", 1, 0, 1), ("yield", 2, 0, 1))
    s = with_money(revise(s, phase="ask", asks=asks, popularity=pop), s1=10_000, s2=30_000)
    for seat in (0, 2):
        known = GAME.observe(s, seat)
        for k in range(40):
            d = GAME.determinize(known, seat, random.Random(k))
            check_valid(d)
            assert d.cogs[1] >= DISCREDIT_COGS and GAME.legal(d, 1) == [{"t": "Yield", "pay": "cogs"}]
            if k < 3:
                play_on(d, k)


def test_the_highest_bidder_has_the_bid() -> None:
    s = hidden_act_state(2)
    s = with_money(revise(s, phase="bid", bidding=((0, 1), 180_000, 1, (), 0)), s0=60_000, s1=190_000)
    known = GAME.observe(s, 0)
    for k in range(40):
        d = GAME.determinize(known, 0, random.Random(k))
        check_valid(d)
        assert d.cogs[1] >= 180_000
        end = d
        for event in GAME.decide(d, 0, {"t": "Drop"}, random.Random(k)):
            end = GAME.evolve(end, event)
        assert end.governor == 1 and end.cogs[1] == d.cogs[1] - 180_000 >= 0
