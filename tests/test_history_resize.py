"""The history keeps its place across a resize of the terminal: the newest line in view
while it follows the game, the highlighted line in view while the player looks back."""

from __future__ import annotations

from pathlib import Path

import pytest

from screens.play import PlayScreen
from tests.tui_helpers import play_app, run_async, screen_text, settle
from tui.widgets import HistoryPanel

SIZES = [(120, 40), (80, 24), (100, 30), (80, 24), (120, 40)]


def in_view(history: HistoryPanel, index: int) -> bool:
    """Whether the option ``index`` has a line inside the panel's visible region."""
    region = history.scrollable_content_region
    top = history.scroll_offset.y
    lines = [i for i, (option, _) in enumerate(history._lines) if option == index]
    return bool(lines) and any(top <= line < top + region.height for line in lines)


async def with_history(pilot, app) -> HistoryPanel:
    await settle(pilot)
    screen = app.screen
    assert isinstance(screen, PlayScreen)
    history = screen.query_one(HistoryPanel)
    for i in range(60):  # many lines, long ones (each wraps differently at each width)
        history.append_lines([(1000 + i, f"Line {i}: " + "a long line of history that wraps " * 2, None)])
    await pilot.pause()
    return history


@run_async
async def test_the_newest_line_stays_in_view_across_resizes_while_following_the_game(tmp_path: Path) -> None:
    app = play_app(tmp_path, humans=1, players=3, seed=4)
    async with app.run_test(size=(80, 24)) as pilot:
        history = await with_history(pilot, app)
        assert history.scroll_y == history.max_scroll_y
        for size in SIZES:
            await pilot.resize_terminal(*size)
            await pilot.pause()
            await pilot.pause()
            assert history.max_scroll_y > 0
            assert history.scroll_y == history.max_scroll_y, size
            assert "Line 59" in screen_text(app), size


@run_async
async def test_the_highlighted_line_stays_in_view_across_resizes_while_looking_back(tmp_path: Path) -> None:
    app = play_app(tmp_path, humans=1, players=3, seed=4)
    async with app.run_test(size=(80, 24)) as pilot:
        history = await with_history(pilot, app)
        await pilot.press("h")  # into the history, on its newest line
        await pilot.press(*["up"] * 25)  # 25 lines back: far above the newest at every size
        await pilot.pause()
        assert history.has_focus and history.highlighted == history.option_count - 26
        picked = history.highlighted
        for size in SIZES:
            await pilot.resize_terminal(*size)
            await pilot.pause()
            await pilot.pause()
            assert history.highlighted == picked
            assert in_view(history, picked), size
            assert not in_view(history, history.option_count - 1), size  # still looking back, not at the end
        await pilot.press("escape")  # back to play: the panel follows the game again
        await pilot.pause()
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert history.scroll_y == history.max_scroll_y


@pytest.mark.parametrize("start, end", [((120, 40), (80, 24)), ((80, 24), (120, 40))])
def test_snapshot_history_after_a_resize(snap_compare, tmp_path: Path, start, end) -> None:
    """Ada has played six cards against two bots; the terminal is resized: the history
    ends on the newest line at the new size, as it did at the old one."""

    async def play_then_resize(pilot) -> None:
        await settle(pilot)
        for _ in range(6):
            await pilot.press("1")
            await settle(pilot)
        await pilot.resize_terminal(*end)
        await settle(pilot)

    assert snap_compare(
        play_app(tmp_path, humans=1, players=3, seed=4), terminal_size=start, run_before=play_then_resize
    )
