"""New game at 80 columns (issue 34, item 7): every game's title shown whole in its Select."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Select

from core.games import all_games
from screens.app import CabinetApp
from screens.new_game import NewGameScreen
from tests.tui_helpers import run_async, screen_text


async def choose_game(pilot, index: int) -> None:
    """Open the game's Select and pick its ``index``-th game."""
    await pilot.press("enter", "home", *["down"] * index, "enter")
    await pilot.pause()


async def new_game(pilot) -> NewGameScreen:
    """The menu's New game, opened."""
    await pilot.press("enter")
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, NewGameScreen)
    return screen


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
@run_async
async def test_every_title_is_shown_whole(tmp_path: Path, size) -> None:
    app = CabinetApp(save_dir=tmp_path)
    async with app.run_test(size=size) as pilot:
        await pilot.press("enter")  # New game
        await pilot.pause()
        assert isinstance(app.screen, NewGameScreen)
        games = list(all_games().values())
        # the list the Select opens: one line a title, each whole
        await pilot.press("enter")
        await pilot.pause()
        lines = screen_text(app).splitlines()
        for game in games:
            assert any(game.title in line for line in lines), game.title
        await pilot.press("escape")
        for index, game in enumerate(games):
            await choose_game(pilot, index)
            assert app.screen.query_one("#game", Select).value == game.id
            first = next(line for line in screen_text(app).splitlines() if line.lstrip().startswith("Game"))
            assert game.title in first and "▼" in first, first


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_snapshot_new_game_1988(snap_compare, tmp_path: Path, size) -> None:
    async def pick_1988(pilot) -> None:
        await pilot.press("enter")  # New game
        await pilot.pause()
        ids = list(all_games())
        await choose_game(pilot, ids.index("chirac-mitterrand"))

    assert snap_compare(CabinetApp(save_dir=tmp_path), terminal_size=size, run_before=pick_1988)


@run_async
async def test_with_the_most_players_start_is_on_the_screen_at_80x24(tmp_path: Path) -> None:
    """Every game at its most players: the form closes its choices' rows up so that Start is on
    the 80x24 screen (five seats of Ministères put it below); with fewer, they open again."""
    app = CabinetApp(save_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await new_game(pilot)
        for index, game in enumerate(all_games().values()):
            await choose_game(pilot, index)
            players = screen.query_one("#players", Select)
            for count in (game.max_players, game.min_players):
                players.value = count
                for _ in range(5):
                    await pilot.pause()
                text = screen_text(app)
                assert "Start  (ctrl+s)" in text, (game.title, count, text)
                assert f"Seat {count} " in text and f"Seat {count + 1} " not in text
            assert not screen.has_class("-tight") or game.max_players == game.min_players
            players.value = game.min_players
            await pilot.pause()
            screen.query_one("#game", Select).focus()
            await pilot.pause()


@run_async
async def test_at_40_columns_every_choice_is_shown_whole_under_its_label(tmp_path: Path) -> None:
    """At 40x12 each row takes two lines, its label over its choices: no choice runs past the
    right edge (they were cut to "rul" and "hid"), for every game at its most players; the
    form scrolls to the rest. Grown back to 80x24, a row is one line again."""
    app = CabinetApp(save_dir=tmp_path)
    async with app.run_test(size=(40, 12)) as pilot:
        screen = await new_game(pilot)
        for index, game in enumerate(all_games().values()):
            await choose_game(pilot, index)
            screen.query_one("#players", Select).value = game.max_players
            for _ in range(5):
                await pilot.pause()
            form = screen.query_one("#newgame")
            for widget in screen.query("#newgame Select, #newgame Input, #newgame Label"):
                if not widget.display or (widget.parent is not None and not widget.parent.display):
                    continue
                # within the form's width (its scrollbar aside), wherever it is scrolled to
                assert widget.region.right <= form.region.right - 1, (game.title, widget, widget.region)
            for variant in game.variants:
                if variant.listed and variant.offered(game.max_players):
                    row = screen.query_one(f"#variant-row-{variant.key}")
                    form.scroll_to_widget(row, animate=False, top=True)
                    for _ in range(3):
                        await pilot.pause()
                    lines = screen_text(app).splitlines()
                    assert any(line[:36].strip() == variant.label for line in lines), (variant.label, lines)
                    value = str(screen.query_one(f"#variant-{variant.key}", Select).value)
                    assert any(line.strip().startswith(value) and "▼" in line for line in lines), (value, lines)
            screen.query_one("#game", Select).focus()
            await pilot.pause()
        await pilot.resize_terminal(80, 24)
        for _ in range(5):
            await pilot.pause()
        assert not screen.has_class("-narrow")
        assert any(line.lstrip().startswith("Players   ") for line in screen_text(app).splitlines())
