"""Ministères: the final score sheet (``score_sheet``) and the hands the end reveals.

Positions are played through a Match: a 2-player game with a stacked deck
whose hands are known card by card (every auction passed, so the hands at
the end are the hands dealt), and whole games of seeded random play at
every player count.
"""

from __future__ import annotations

import random
import re

import pytest

from core.bots import make_bot
from core.engine import ALL, PUBLIC, Match, make_header
from core.games.ministeres import GAME
from core.games.ministeres import cards as C
from core.games.ministeres.rules import best_letter, final_scores, ministry_totals
from table import Table
from tests.test_ministeres_rules import auction_match, bid

# Ann and Bob's hands: Diplomatie 10 to 12 (Bob), Armée 4 to 4 (Ann's A beats
# Bob's D), Architecture 11 to 11 (Ann's A beats Bob's F), Animaux all Ann's,
# Divertissement 6 for Bob alone, Victuailles nobody's.  The other cards wait
# on the Favours pile, and every auction is passed.
ANN = ["diplomatie-" + x for x in "ABCD"] + ["armee-A", "armee-C"] + ["architecture-" + x for x in "ABCDE"]
ANN += ["animaux-" + x for x in "ABCDEFGHI"] + [f"or3-{i:02d}" for i in range(1, 14)] + ["or2-01", "or2-02", "or2-03"]
BOB = ["diplomatie-" + x for x in "EFGHI"] + ["armee-D"] + ["architecture-" + x for x in "FGHI"]
BOB += ["divertissement-" + x for x in "ABC"] + [f"or2-{i:02d}" for i in range(4, 14)]
BOB += [f"or1-{i:02d}" for i in range(1, 14)]
FAVOURS = [c for c in C.ALL_CARDS if c not in ANN and c not in BOB]


def known_game() -> Match:
    """Ann and Bob's game played to its end."""
    assert len(ANN) == len(BOB) == len(FAVOURS) == 36
    match = auction_match(ANN, BOB, FAVOURS)
    while match.outcome is None:
        bid(match, None)
    return match


def random_game(players: int, seed: int, variants: dict | None = None) -> Match:
    """A whole game of random legal commands (passing often) from a fixed seed."""
    config = GAME.make_config(players, variants=variants)
    match = Match.new(GAME, make_header(GAME, config, seed))
    rng = random.Random(seed)
    while match.outcome is None:
        (seat,) = match.active()
        legal = GAME.legal(match.state, seat)
        passing = legal[-1] == {"t": "Pass"} and rng.random() < 0.4
        match.submit(seat, {"t": "Pass"} if passing else rng.choice(legal))
    return match


def sheet_of(match: Match, seat=0):
    return GAME.score_sheet(GAME.view(match.state, seat))


def test_the_sheet_of_a_known_game() -> None:
    match = known_game()
    assert sorted(match.state.hands[0]) == sorted(ANN) and sorted(match.state.hands[1]) == sorted(BOB)
    sheet = sheet_of(match)
    assert (sheet.title, sheet.key) == ("Final score", "final")
    assert sheet.columns == ("Dip", "Arm", "Arc", "Ani", "Div", "Vic")
    assert sheet.rows == (
        ("10", "4·A P4", "11·A P4", "22 P4", "-", "-"),
        ("12 P4", "4·D", "11·F", "-", "6 P4", "-"),
    )
    assert sheet.notes == (
        "Ann wins with 12 points.",
        "·A: equal sums, ranked by the card whose letter is nearest A.",
        "Ann, 12 points: Dip ABCD, Arm AC, Arc ABCDE, Ani ABCDEFGHI; Or 13×3 3×2",
        "Bob, 8 points: Dip EFGHI, Arm D, Arc FGHI, Div ABC; Or 10×2 13×1",
    )


def test_no_sheet_before_the_end() -> None:
    match = auction_match(ANN, BOB, FAVOURS)
    assert sheet_of(match) is None
    view = GAME.view(match.state, 0)
    assert view["hands_revealed"] is None
    while match.outcome is None:
        bid(match, None)
        if match.outcome is None:
            assert sheet_of(match, 1) is None


def test_the_end_reveals_every_hand_to_everyone() -> None:
    match = known_game()
    for seat in (0, 1, PUBLIC, ALL):
        view = GAME.view(match.state, seat)
        assert view["hands_revealed"] == [sorted(ANN, key=C.hand_order), sorted(BOB, key=C.hand_order)]
        assert GAME.score_sheet(view) == sheet_of(match, 0)


def summary_of(sheet) -> str:
    """The first note, with the lines it was wrapped onto (indented)."""
    lines = [sheet.notes[0]]
    for note in sheet.notes[1:]:
        if not note.startswith("  "):
            break
        lines.append(note.strip())
    return " ".join(lines)


def cell_points(cell: str) -> int:
    """The token value a cell shows (``"9·B P5"`` -> 5), 0 for none."""
    found = re.search(r" [PS](\d+)$", cell)
    return int(found.group(1)) if found else 0


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_sheet_adds_up_and_fits(players: int) -> None:
    """Random games at every player count: the cells are each ministry's sums
    and its tokens, the tokens add up to each seat's points, the notes give
    each seat's points and the winner; it fits the shared dialog's limits."""
    for seed in range(3):
        variants = {"dealer_roi": "kept"} if seed == 2 else None  # a Roi may stay in a hand
        match = random_game(players, 100 * players + seed, variants)
        s = match.state
        sheet = sheet_of(match, PUBLIC)
        scores, _, awards = final_scores(s.hands, s.primaire)
        assert len(sheet.columns) == 6 and len(sheet.rows) == players
        assert all(len(c) <= 10 for c in sheet.columns)
        assert all(len(cell) <= 10 for row in sheet.rows for cell in row)
        assert len(sheet.notes) <= 6 and all(len(note) <= 74 for note in sheet.notes)
        for seat, row in enumerate(sheet.rows):
            assert sum(cell_points(cell) for cell in row) == scores[seat]
            for k, (m, first, second, primaire, sec) in enumerate(awards):
                sums = [ministry_totals(hand)[m] for hand in s.hands]
                total, _, letter = row[k].split(" ")[0].partition("·")
                assert total == (str(sums[seat]) if sums[seat] else "-")
                # the letter shows where equal sums were ranked by it for a token
                takers = [j for j in (first, second) if j is not None]
                by_letter = sums.count(sums[seat]) > 1 and any(sums[j] == sums[seat] for j in takers)
                assert letter == (best_letter(s.hands[seat], m) if sums[seat] and by_letter else "")
                assert row[k].endswith(f" P{primaire}") == (seat == first)
                assert row[k].endswith(f" S{sec}") == (seat == second and sec is not None)
            note = next(n for n in sheet.notes if n.startswith(f"{s.names[seat]}, "))
            assert note.startswith(f"{s.names[seat]}, {scores[seat]} points: ")
        winners = [s.names[i] for i in match.outcome.winners]
        assert all(w in summary_of(sheet) for w in winners)


def test_a_tie_on_points_is_told_with_the_primaire_tokens_under_share() -> None:
    """Under the *share* tie-break, three-player games of the easy bots from fixed seeds, until both kinds
    of tie on points have come up: more Primaire tokens wins, or the victory
    is shared; the first note says which, with the points and the tokens."""
    told = set()
    for seed in range(60):
        match = Match.new(GAME, make_header(GAME, GAME.make_config(3, variants={"tiebreak": "share"}), seed))
        Table(match).play_out(bots={i: make_bot(GAME, "easy", 10 * seed + i) for i in range(3)})
        s = match.state
        scores, tokens, _ = final_scores(s.hands, s.primaire)
        best = max(scores)
        top = [i for i, sc in enumerate(scores) if sc == best]
        summary = summary_of(sheet_of(match))
        if len(top) == 1:
            assert summary.startswith(f"{s.names[top[0]]} wins with {best} points.")
        elif len(match.outcome.winners) == 1:
            (w,) = match.outcome.winners
            behind = [f"{s.names[i]}'s {tokens[i]}" for i in top if i != w]
            assert summary.startswith(
                f"{s.names[w]} wins: tied on {best} points, {tokens[w]} Primaire tokens to {behind[0]}."
            )
            told.add("tokens")
        else:
            assert f"share the victory ({best} points, {tokens[top[0]]} Primaire tokens each)." in summary
            assert all(s.names[i] in summary for i in top)
            told.add("shared")
        if told == {"tokens", "shared"}:
            return
    pytest.fail(f"only {told or 'no'} ties in sixty games")
