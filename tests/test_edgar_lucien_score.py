"""Edgar & Lucien's score sheet: each player against the four victory conditions, at the end
of every Electoral Period (once its Governor is chosen) and at the end of the game.

Positions are built as in test_edgar_lucien_rules.py: commands played from a fixed seed.
"""

from __future__ import annotations

import random

import pytest

from core.engine import ALL, PUBLIC, Match, make_header
from core.games.edgar_lucien import GAME
from tests.test_edgar_lucien_rules import act, end_actions, move, pass_turns, random_until, start

COLUMNS_2 = ("Dandy≥150k", "Tax ≥7", "Bureau ≥3A", "Zealot★100", "Met")


def sheet(match: Match, seat=0):
    return GAME.score_sheet(GAME.view(match.state, seat))


def row(match: Match, player: int, seat=0) -> dict[str, str]:
    """One player's row, by column."""
    s = sheet(match, seat)
    return dict(zip(s.columns, s.rows[player], strict=True))


def a_speech_then_a_period() -> Match:
    """Ann (Lilacs, Ivory) speaks on Drunken Pig Square up to 100 popularity; Bob sits on the
    Docks (Steel). Four turns later the taxes are paid and Ann is elected."""
    match = start("lilacs", "docks")
    move(match, {0: (None, "pig")})
    act(match, {"t": "LucienAdmin", "action": "speech"}, 0)
    pass_turns(match, 3)
    end_actions(match)
    return match


def test_no_sheet_before_the_first_period_is_over() -> None:
    match = start("lilacs", "docks")
    assert sheet(match) is None
    move(match, {0: (None, "pig")})
    act(match, {"t": "LucienAdmin", "action": "speech"}, 0)
    assert sheet(match) is None
    pass_turns(match, 3)
    assert GAME.view(match.state, 0)["period"] == 1 and sheet(match) is None


def test_the_end_of_a_period_each_condition_against_its_threshold() -> None:
    match = a_speech_then_a_period()
    view = GAME.view(match.state, 0)
    assert (view["period"], view["turn"], view["phase"], view["governor"]) == (2, 1, "program", 0)
    s = sheet(match)
    assert (s.title, s.key, s.columns) == ("Electoral Period 1 over", "period-1", COLUMNS_2)
    # Ann: her 50,000 Cogs, her one district, the Governor with 100 popularity
    assert s.rows[0] == ("50k ✗no", "1 ✗no", "0 ✗no", "★100 ✓met", "1 of 4")
    # Bob's fortune (70,000 after the Docks' tax) is hidden from Ann: his Dandy may be either
    assert s.rows[1] == ("hidden", "1 ✗no", "0 ✗no", "50 ✗no", "0–1 of 4")
    assert "Governor for Electoral Period 2: Ann." in s.notes
    assert "Fortunes are hidden: you see only your own Cogs." in s.notes
    assert any("✓met" in n and "©cert" in n and "✗no" in n for n in s.notes)  # the marks in words
    # Bob sees his own fortune, not Ann's; the public sees neither
    assert sheet(match, 1).rows == (
        ("hidden", "1 ✗no", "0 ✗no", "★100 ✓met", "1–2 of 4"),
        ("70k ✗no", "1 ✗no", "0 ✗no", "50 ✗no", "0 of 4"),
    )
    assert sheet(match, PUBLIC).rows[1][0] == "hidden"
    assert sheet(match, ALL).rows[1][0] == "70k ✗no"


def test_the_period_sheet_lasts_until_the_wheels_are_revealed() -> None:
    match = a_speech_then_a_period()
    match.submit(0, {"t": "Program", "edgar": "stay", "lucien": "stay"})
    assert sheet(match, 1).key == "period-1"  # Bob has still to program: nothing has changed
    match.submit(1, {"t": "Program", "edgar": "stay", "lucien": "stay"})
    assert GAME.view(match.state, 0)["phase"] == "act"
    assert sheet(match) is None  # the actions may change everything: no stale breakdown
    end_actions(match)
    assert GAME.view(match.state, 0)["turn"] == 2 and sheet(match) is None


def test_a_period_with_no_governor_and_no_sheet_during_the_bidding() -> None:
    match = start("forges", "docks")
    pass_turns(match, 4)
    assert GAME.view(match.state, 0)["phase"] == "bid" and sheet(match) is None
    act(match, {"t": "Drop"}, 0)
    act(match, {"t": "Drop"}, 1)
    s = sheet(match)
    assert s.key == "period-1" and "No Governor for Electoral Period 2." in s.notes
    assert s.rows[0][3] == "50 ✗no"  # nobody wears the star


def test_open_fortunes_show_every_dandy() -> None:
    match = start("lilacs", "docks", fortunes="open")
    pass_turns(match, 4)
    if GAME.view(match.state, 0)["phase"] == "bid":
        act(match, {"t": "Drop"}, 0)
        act(match, {"t": "Drop"}, 1)
    s = sheet(match)
    assert s.rows[1][0] == "70k ✗no" and not any("hidden" in n for n in s.notes)


def test_the_final_sheet_counts_a_certificate_and_names_the_winner() -> None:
    def won_thanks_to_a_certificate(match: Match) -> bool:
        view = GAME.view(match.state, ALL)
        w = view["winner"]
        return w is not None and view["certificates"]["dandy"] == w and view["players"][w]["cogs"] < 150_000

    match = random_until(2, range(60), won_thanks_to_a_certificate)
    view = GAME.view(match.state, 0)
    w = view["winner"]
    s = sheet(match)
    assert (s.title, s.key) == ("Final score", "final")
    winner = dict(zip(s.columns, s.rows[w], strict=True))
    fortune = view["players"][w]["cogs"]
    assert winner["Dandy≥150k"] == f"{fortune // 1000}k ©cert"  # short of 150,000, kept by the certificate
    assert winner["Met"] in ("3 of 4", "4 of 4")
    assert sum(("✓met" in c or "©cert" in c) for c in s.rows[w][:4]) == int(winner["Met"][0])
    assert f"{view['players'][w]['name']} is the Grand Triumphant, with {winner['Met'][0]} conditions of 4." in s.notes
    loser = s.rows[1 - w]
    assert int(loser[4][0]) < 3
    # the game is over: every fortune is on the table
    assert not any(cell == "hidden" for r in s.rows for cell in r)
    assert not any("hidden" in n for n in s.notes)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_sheet_of_a_game_fits_the_dialog_and_agrees_with_the_view(players: int) -> None:
    match = Match.new(GAME, make_header(GAME, GAME.make_config(players), 11))
    chooser = random.Random(players)
    keys = []
    while match.outcome is None:
        seat = chooser.choice(match.active())
        match.submit(seat, chooser.choice(GAME.legal(match.state, seat)))
        view = GAME.view(match.state, 0)
        s = GAME.score_sheet(view)
        if s is None:
            continue
        if not keys or keys[-1] != s.key:
            keys.append(s.key)
        assert len(s.columns) <= 6 and all(len(c) <= 10 for c in s.columns)
        assert len(s.rows) == players and all(len(r) == len(s.columns) and all(len(c) <= 10 for c in r) for r in s.rows)
        assert len(s.notes) <= 6 and all(len(n) <= 74 for n in s.notes)
        needs = view["needs"]
        assert s.columns[1] == f"Tax ≥{needs['districts']}" and s.columns[2] == f"Bureau ≥{needs['admin']}A"
        for seat_, (r, player) in enumerate(zip(s.rows, view["players"], strict=True)):
            total = sum(player["districts"].values())
            assert r[1].split()[0] == str(total)
            assert r[2].split()[0] == str(player["districts"]["admin"])
            assert r[3].split()[0] == ("★" if view["governor"] == seat_ else "") + str(player["popularity"])
            # a condition the view says is met (or certified) is never marked ✗no
            for k, condition in enumerate(("dandy", "collector", "bureaucrat", "zealot")):
                if player["conditions"][condition]:
                    assert "✓met" in r[k] or "©cert" in r[k]
                elif player["conditions"][condition] is False:
                    assert r[k].endswith("✗no")
    assert keys[-1] == "final"
    periods = [k for k in keys if k != "final"]
    assert periods == [f"period-{n}" for n in range(1, len(periods) + 1)]


def test_the_sheets_marks_line_up_under_each_other() -> None:
    """Set to the right, "90k ✗no" stood a column right of "7 ✓met": each column's mark words
    are padded to one width, so the values line up (other games' cells, "+8 (1)", are as they were)."""
    from rich.console import Console

    from core.engine import ScoreSheet
    from tui.widgets import aligned_rows, score_table

    sheet = ScoreSheet(
        title="Period 1",
        columns=("Dandy≥150k", "Tax ≥7", "Greens"),
        rows=(("90k ✗no", "7 ✓met", "+8 (1)"), ("160k ✓met", "3 ©cert", "0 (3)"), ("hidden", "2 ✗no", "0")),
    )
    rows, marked = aligned_rows(sheet)
    assert marked == {0, 1} and rows[0][:2] == (" 90k ✗no", "7 ✓met") and rows[1][:2] == ("160k ✓met", "3 ©cert")
    assert rows[2][:2] == ("hidden", "2 ✗no") and [row[2] for row in rows] == ["+8 (1)", "0 (3)", "0"]
    console = Console(width=80, record=True, color_system=None)
    console.print(score_table(sheet, ["Ada", "Bastien", "Chloé"]))
    lines = console.export_text().splitlines()
    ada, bastien = next(line for line in lines if "Ada" in line), next(line for line in lines if "Bastien" in line)
    # the values end in one column and the marks begin in one: "90k" over "160k", "✗no" over "✓met"
    assert ada.index("90k") + 3 == bastien.index("160k") + 4 and ada.index("✗no") == bastien.index("✓met")
    assert ada.index("7 ✓met") == bastien.index("3 ©cert")
