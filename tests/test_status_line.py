"""The status line at 80 columns: what it says last is read whole, and what comes before is
shortened before it is left out (a replay's title keeps its start)."""

from __future__ import annotations

from rich.cells import cell_len

from tui.widgets import StatusLine


def test_the_parts_before_the_last_are_shortened_before_they_go() -> None:
    parts = (
        "Replay · 1988: Chirac contre Mitterrand",
        "move 57/57",
        "as Ada saw it",
        "Game over: Ada wins.",
    )
    line = StatusLine.fitted(parts, 78)
    assert cell_len(line) <= 78
    assert line.startswith("Replay · 1988"), line
    assert line.endswith(" · as Ada saw it · Game over: Ada wins."), line
    assert "move 57/57" in line, line


def test_a_line_that_fits_is_as_it_was_said() -> None:
    parts = ("L'Agent Jean!", "You: Ada", "Ada, your move.")
    assert StatusLine.fitted(parts, 78) == "L'Agent Jean! · You: Ada · Ada, your move."


def test_in_a_very_narrow_room_the_first_parts_go_and_the_last_stays() -> None:
    parts = ("Edgar & Lucien", "You: Ada", "Ada, your move. Also choosing: Bastien, Chloé, Denis.")
    line = StatusLine.fitted(parts, 60)
    assert line.endswith("Ada, your move. Also choosing: Bastien, Chloé, Denis."), line
    assert cell_len(line) <= 60
