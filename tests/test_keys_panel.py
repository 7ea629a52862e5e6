"""The Keys panel (the command palette's "Keys") closes with Esc, as a player expects of a panel
they opened; with no panel open, Esc is the screen's own as before (the palette closes with it)."""

from __future__ import annotations

import re
from pathlib import Path

from textual.command import CommandPalette
from textual.pilot import Pilot

from screens.app import CabinetApp
from screens.menu import MainMenu
from screens.new_game import NewGameScreen
from screens.play import PlayScreen
from tests.tui_helpers import play_app, run_async, screen_text, settle


def panels(app: CabinetApp) -> int:
    return len(app.screen.query("HelpPanel"))


async def open_keys(pilot: Pilot) -> None:
    """Ctrl-P, "keys", Enter: the Keys panel as a player opens it."""
    await pilot.press("ctrl+p")
    await pilot.pause()
    assert isinstance(pilot.app.screen, CommandPalette)
    await pilot.press(*"keys")
    await pilot.pause(0.3)  # the palette's search runs in a worker
    await pilot.press("enter")
    await settle(pilot)


@run_async
async def test_esc_closes_the_keys_panel_at_a_table_and_leaves_the_table_where_it_was(tmp_path: Path) -> None:
    app = play_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.screen
        assert isinstance(table, PlayScreen)
        await open_keys(pilot)
        assert app.screen is table and panels(app) == 1
        # the digits that pick a choice are not listed one by one, bare (no words to them)
        assert not any(re.search(r"▏\s+[0-9]\s*$", line) for line in screen_text(app).splitlines())
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is table and panels(app) == 0


@run_async
async def test_esc_with_no_keys_panel_is_the_screens_own(tmp_path: Path) -> None:
    app = CabinetApp(save_dir=tmp_path, bot_delay=0.0)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, MainMenu)
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        await pilot.press("escape")  # the palette's Esc: it closes
        await settle(pilot)
        assert isinstance(app.screen, MainMenu)
        await open_keys(pilot)
        assert panels(app) == 1
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, MainMenu) and panels(app) == 0


@run_async
async def test_the_footers_esc_stays_the_screens_and_works_after_the_panel_closes(tmp_path: Path) -> None:
    """New game's footer offers "esc Back" with the panel closed, before and after it was open;
    the first Esc closes the panel, the second goes back to the menu."""
    app = CabinetApp(save_dir=tmp_path, bot_delay=0.0)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("enter")  # New game
        await settle(pilot)
        form = app.screen
        assert isinstance(form, NewGameScreen)
        assert "esc Back" in screen_text(app).splitlines()[-1]
        await open_keys(pilot)
        assert panels(app) == 1
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is form and panels(app) == 0
        footer = screen_text(app).splitlines()[-1]
        assert "esc Back" in footer and "^p palette" in footer, footer
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, MainMenu)
