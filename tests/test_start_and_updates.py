"""Issue 35: `cabinet` alone opens its menu by a lighter path, the app starts in its own
theme; at a table a history longer than its panel draws its scrollbar only when it changes, a
part of the board is laid out only when its size changes, and once, and the footer looks at its
keys once for all the changes of a message."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest
from textual.css.stylesheet import Stylesheet
from textual.scrollbar import ScrollBar
from textual.widgets import Static

from cabinet.main import main
from screens.app import CABINET_THEME, CabinetApp
from screens.menu import MainMenu
from screens.play import PlayScreen
from tests.tui_helpers import play_app, run_async, screen_text, settle
from tui.widgets import Board, BoardPart, HistoryPanel, KeysFooter


def opened_by(argv: list[str] | None) -> tuple[Any, Path]:
    """What `cabinet ARGV` hands the app: (what it opens on, the save directory)."""
    got: list[tuple[Any, Path]] = []

    def run_app(start: Any, save_dir: Path) -> int:
        got.append((start, save_dir))
        return 0

    import cabinet.main as program

    real = program.run_app
    program.run_app = run_app
    try:
        assert main(argv) == 0
    finally:
        program.run_app = real
    assert len(got) == 1
    return got[0]


@pytest.mark.parametrize("argv", [[], None])
def test_cabinet_alone_opens_the_menu_on_the_save_directory_it_is_given(tmp_path, monkeypatch, argv) -> None:
    where = tmp_path / "my saves"
    monkeypatch.setenv("CABINET_SAVE_DIR", str(where))
    monkeypatch.setattr("sys.argv", ["cabinet"])
    start, save_dir = opened_by(argv)
    assert start.mode == "menu" and start.match is None and start.writer is None
    assert save_dir == where
    assert stat.S_IMODE(os.stat(where).st_mode) == 0o700  # made for saves that hold every hidden card


def test_cabinet_alone_opens_the_same_as_the_parser_would(tmp_path, monkeypatch) -> None:
    """The menu's path skips the parser: it must open what `--save-dir DIR` opens."""
    monkeypatch.setenv("CABINET_SAVE_DIR", str(tmp_path))
    start, save_dir = opened_by([])
    parsed_start, parsed_dir = opened_by(["--save-dir", str(tmp_path)])
    assert (start.mode, save_dir) == (parsed_start.mode, parsed_dir)


def test_cabinet_alone_refuses_a_save_directory_it_cannot_make_in_one_sentence(tmp_path, monkeypatch, capsys) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("CABINET_SAVE_DIR", str(blocker / "saves"))
    with pytest.raises(SystemExit) as info:
        opened_by([])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: cabinet") and "Traceback" not in err
    assert "cannot use" in err and "as the save directory" in err


@run_async
async def test_the_app_starts_in_its_theme_and_a_player_may_change_it(tmp_path: Path, monkeypatch) -> None:
    """Started in its theme, the app reads its stylesheets once: a change of theme at start
    had every stylesheet parsed again once the menu was up (a tenth of the start-up)."""
    parsed_again: list[int] = []
    reparse = Stylesheet.reparse

    def counted(self: Stylesheet) -> None:
        parsed_again.append(1)
        reparse(self)

    monkeypatch.setattr(Stylesheet, "reparse", counted)
    app = CabinetApp(save_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, MainMenu)
        assert parsed_again == []
        assert app.theme == CABINET_THEME.name and app.current_theme is CABINET_THEME
        assert app.has_class(f"-theme-{CABINET_THEME.name}")
        # the stylesheet took the theme's colours from the start: the menu's own are Cabinet's
        assert app.stylesheet._variables["background"] == CABINET_THEME.background
        assert "New game" in screen_text(app)
        app.theme = "textual-light"  # the command palette's Theme
        await pilot.pause()
        await pilot.pause()
        assert app.stylesheet._variables["background"] != CABINET_THEME.background
        assert not app.current_theme.dark
        assert "New game" in screen_text(app)


@run_async
async def test_a_long_history_draws_its_scrollbar_only_when_it_changes(tmp_path: Path, monkeypatch) -> None:
    drawn: list[str] = []
    refresh = ScrollBar.refresh

    def counted(self: ScrollBar, *args: Any, **kwargs: Any) -> Any:
        if isinstance(self.parent, HistoryPanel):
            drawn.append("history")
        return refresh(self, *args, **kwargs)

    monkeypatch.setattr(ScrollBar, "refresh", counted)
    app = play_app(tmp_path, humans=1, players=3, seed=4)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, PlayScreen)
        history = screen.query_one(HistoryPanel)
        history.append_lines([(1000 + i, f"Line {i}: a long line of history", None) for i in range(40)])
        await pilot.pause()
        await pilot.pause()
        assert history.max_scroll_y > 0 and history.scroll_y == history.max_scroll_y
        # a part of the board beside it grows and shrinks: the screen is laid out again, the
        # history's size and lines are as they were, and its scrollbar is not drawn again
        drawn.clear()
        part = screen.query_one("#aj-table", Static)  # its height is its content's
        part.update("one\ntwo\nthree\nfour\nfive")
        await pilot.pause()
        await pilot.pause()
        part.update("one")
        await pilot.pause()
        await pilot.pause()
        assert drawn == []
        # new lines: the scrollbar changes, and is drawn; the newest line is in view (and a replay
        # opened at a move shows its thumb there: tests/test_tui.py, test_snapshot_replay)
        history.append_lines([(2000, "The newest line", None)])
        await pilot.pause()
        await pilot.pause()
        assert drawn
        assert history.scroll_y == history.max_scroll_y
        assert "The newest line" in screen_text(app)


async def table_part(pilot) -> tuple[PlayScreen, Any]:
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, PlayScreen)
    return screen, screen.query_one(Board)


@run_async
async def test_a_part_of_the_board_is_laid_out_only_when_its_size_changes(tmp_path: Path, monkeypatch) -> None:
    """A new line in the same room is drawn again alone; one that takes more room has the
    screen laid out, once, and no second time after the frame that showed it."""
    app = play_app(tmp_path, humans=1, players=3, seed=4)
    async with app.run_test(size=(80, 24)) as pilot:
        screen, board = await table_part(pilot)
        part = screen.query_one("#aj-table", BoardPart)  # its height is its content's
        asked: list[bool] = []
        refresh = type(part).refresh

        def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
            if self is part:
                asked.append(bool(kwargs.get("layout")))
            return refresh(self, *args, **kwargs)

        monkeypatch.setattr(type(part), "refresh", counted)
        height = part.content_size.height
        board.paint("#aj-table", "\n".join(f"line {i}" for i in range(height)))  # as many lines as it has
        await pilot.pause()
        await pilot.pause()
        assert asked and not any(asked), "the same room: drawn again, not laid out"
        assert part.content_size.height == height and "line 0" in screen_text(app)
        asked.clear()
        board.paint("#aj-table", "\n".join(f"row {i}" for i in range(height + 3)))  # more lines: more room
        assert asked == [False, True]
        asked.clear()
        await pilot.pause()
        await pilot.pause()
        assert part.content_size.height == height + 3 and f"row {height + 2}" in screen_text(app)
        assert asked == [], "laid out once: its new size asks for no layout of its own"


@run_async
async def test_the_footer_looks_at_its_keys_once_for_many_changes(tmp_path: Path, monkeypatch) -> None:
    looked: list[int] = []
    recompose_if_changed = KeysFooter.recompose_if_changed

    async def counted(self: KeysFooter) -> None:
        looked.append(1)
        await recompose_if_changed(self)

    monkeypatch.setattr(KeysFooter, "recompose_if_changed", counted)
    app = play_app(tmp_path, humans=1, players=3, seed=4)
    async with app.run_test(size=(80, 24)) as pilot:
        screen, _ = await table_part(pilot)
        looked.clear()
        for _ in range(3):
            screen.refresh_bindings()
        await pilot.pause()
        await pilot.pause()
        assert looked == [1]
        assert "Menu" in screen_text(app).splitlines()[-1]  # the footer still shows its keys


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
@run_async
async def test_a_screen_updated_move_by_move_shows_what_a_fresh_drawing_shows(tmp_path: Path, size) -> None:
    """Each update repaints only what changed (a part in the same room alone, a part that grew
    laid out once, the footer with it, the scrollbars when they change): after every move the
    screen must read exactly as the whole screen drawn afresh reads."""
    app = play_app(tmp_path, humans=1, players=3, seed=5)
    async with app.run_test(size=size) as pilot:
        screen, _ = await table_part(pilot)
        for _ in range(12):
            log = screen.knows
            if log.outcome is not None:
                break
            if log.my_move() and log.legal:
                screen.feed.command(log.legal[-1])
            await settle(pilot)
            updated = screen_text(app)
            app.screen.refresh(layout=True)  # the whole screen laid out and drawn again
            for widget in app.screen.query("*"):
                widget.refresh()
            await pilot.pause()
            await pilot.pause()
            assert screen_text(app) == updated
        assert len(screen.knows.events) > 12  # moves were made and drawn
