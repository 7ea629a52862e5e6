"""Ctrl-C does not quit (Textual binds it to a notice saying which key does): the notice names
that key in plain words, never as the markup Textual writes it in ("Press [b]q[/b] ...")."""

from __future__ import annotations

from pathlib import Path

from screens.app import CabinetApp
from screens.menu import MainMenu
from screens.play import PlayScreen
from tests.tui_helpers import play_app, run_async, screen_text, settle, toasts_text


async def ctrl_c(app: CabinetApp) -> tuple[list[str], str]:
    """What the notices say once Ctrl-C is pressed on ``app``'s first screen, and the screen's
    text with the toasts' own (their lines joined)."""
    async with app.run_test(size=(80, 24), notifications=True) as pilot:  # the toasts drawn
        await settle(pilot)
        await pilot.press("ctrl+c")
        await pilot.pause()
        said = [f"{n.title}: {n.message}" for n in app._notifications]
        text = "\n".join([screen_text(app), *toasts_text(app)])
        assert isinstance(app.screen, MainMenu | PlayScreen)  # still running, the same screen
        return said, text


@run_async
async def test_ctrl_c_at_the_main_menu_says_q_quits_without_markup(tmp_path: Path) -> None:
    said, text = await ctrl_c(CabinetApp(save_dir=tmp_path, bot_delay=0.0))
    assert said == ["Do you want to quit?: Press q to quit the app."]
    assert "Press q to quit the app." in text
    assert "[b]" not in text and "[/b]" not in text


@run_async
async def test_ctrl_c_at_a_table_where_q_leaves_for_the_menu_says_ctrl_q_quits(tmp_path: Path) -> None:
    said, text = await ctrl_c(play_app(tmp_path))
    assert said == ["Do you want to quit?: Press ctrl+q to quit the app."]
    assert "Press ctrl+q to quit the app." in text
    assert "[b]" not in text and "[/b]" not in text
