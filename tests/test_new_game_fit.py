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
        await pilot.press("enter")  # New game
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, NewGameScreen)
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
