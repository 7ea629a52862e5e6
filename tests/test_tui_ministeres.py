"""Ministères on screen: a whole game through key presses."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.games import get_game
from saves import load
from screens.ministeres import MinisteresBoard
from screens.play import PlayScreen
from tests.tui_helpers import NAMES, app_for, run_async, settle
from tui.session import new_match, start_save
from tui.widgets import GameOver

GAME = get_game("ministeres")


def mi_app(save_dir: Path, players: int = 3, humans: int = 1, seed: int = 3):
    controllers = [{"kind": "human"}] * humans + [{"kind": "bot", "level": "easy"}] * (players - humans)
    seats = [{"name": n} for n in NAMES[:players]]
    match = new_match(GAME, players, seats, controllers, seed=seed, bot_seed=seed)
    return app_for(save_dir, start_save(save_dir, match))


@run_async
async def test_a_whole_game_against_bots_through_key_presses(tmp_path: Path) -> None:
    app = mi_app(tmp_path, players=3, seed=5)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = next(s for s in app.screen_stack if isinstance(s, PlayScreen))
        match = screen.match
        for _ in range(3000):
            await settle(pilot)
            if match.outcome is not None:
                break
            if 0 in match.active() and isinstance(app.screen, PlayScreen):
                before = len(match.events)
                board = app.screen.query_one(MinisteresBoard)
                # pass in auctions when offered, else the first choice
                await pilot.press("p" if any(c["t"] == "Pass" for c in board.choices) else "enter")
                await settle(pilot)
                assert len(match.events) > before, "a key press of the player did nothing"
        assert match.outcome is not None
        assert isinstance(app.screen, GameOver)
        assert load(screen.path).match.events == match.events


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_snapshot_ministeres_in_play(snap_compare, tmp_path: Path, size) -> None:
    assert snap_compare(mi_app(tmp_path, seed=21), terminal_size=size, run_before=settle)
