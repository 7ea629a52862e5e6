"""The main menu on a short terminal (40x12): its choices alone, every one in sight, the
highlight never below the screen; grown again, the title and the games' line come back."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import OptionList

from screens.app import CabinetApp
from screens.menu import MainMenu
from tests.tui_helpers import run_async, screen_text

ENTRIES = ("New game", "Continue", "Load a game", "Replay a game", "Join a hosted game", "Rules", "Quit")


@run_async
async def test_at_40x12_every_entry_is_in_sight_and_quit_is_reached_by_keys(tmp_path: Path) -> None:
    app = CabinetApp(save_dir=tmp_path)
    async with app.run_test(size=(40, 12)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, MainMenu)
        text = screen_text(app)
        assert all(entry in text for entry in ENTRIES), text
        await pilot.press(*["down"] * 6)
        options = app.screen.query_one("#menu-options", OptionList)
        assert options.highlighted == len(ENTRIES) - 1 and "Quit" in screen_text(app)
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert "C A B I N E T" in screen_text(app)
        await pilot.resize_terminal(40, 12)
        await pilot.pause()
        assert "C A B I N E T" not in screen_text(app) and "Quit" in screen_text(app)
        await pilot.press("enter")  # Quit, highlighted
        await pilot.pause()
    assert app.return_code == 0


@run_async
async def test_every_key_the_menus_footer_shows_works(tmp_path: Path) -> None:
    """? opens the rules, as at a table, in a replay and in the lobby (it did nothing here:
    a play-test); q quits."""
    from screens.rules import RulesScreen

    app = CabinetApp(save_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        footer = screen_text(app).splitlines()[-1]
        assert "? Rules" in footer and "q Quit" in footer, footer
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, RulesScreen)
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, MainMenu)
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0
