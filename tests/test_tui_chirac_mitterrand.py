"""1988 on screen: played through key presses, solo and against a bot."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.games import get_game
from saves import load
from screens.chirac_mitterrand import CampaignDialog, ChiracMitterrandBoard
from screens.play import PlayScreen
from tests.tui_helpers import app_for, run_async, settle
from tui.session import new_match, start_save
from tui.widgets import GameOver

GAME = get_game("chirac-mitterrand")


def cm_app(save_dir: Path, players: int = 2, humans: int = 1, seed: int = 3, candidate: str = "chirac"):
    other = "mitterrand" if candidate == "chirac" else "chirac"
    seats = [{"name": "Jacques" if candidate == "chirac" else "François", "candidate": candidate}]
    if players == 2:
        seats.append({"name": "François" if candidate == "chirac" else "Jacques", "candidate": other})
    controllers = [{"kind": "human"}] * humans + [{"kind": "bot", "level": "easy"}] * (players - humans)
    match = new_match(GAME, players, seats, controllers, seed=seed, bot_seed=seed)
    return app_for(save_dir, start_save(save_dir, match))


async def play_through(pilot, seat: int = 0, limit: int = 600) -> PlayScreen:
    """Answer every question the game asks seat 0 with the first thing offered."""
    app = pilot.app
    screen = next(s for s in app.screen_stack if isinstance(s, PlayScreen))
    match = screen.match
    for _ in range(limit):
        await settle(pilot)
        if match.outcome is not None:
            break
        if isinstance(app.screen, CampaignDialog):
            await pilot.press("enter")
        elif seat in match.active() and isinstance(app.screen, PlayScreen):
            before = len(match.events)
            await pilot.press("enter")  # a card, then its first action and order
            await settle(pilot)
            if len(match.events) == before and not isinstance(app.screen, CampaignDialog):
                await pilot.press("enter")
                await settle(pilot)
    return screen


@run_async
async def test_a_whole_game_against_the_bot_through_key_presses(tmp_path: Path) -> None:
    app = cm_app(tmp_path, players=2, humans=1, seed=5)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await play_through(pilot)
        match = screen.match
        assert match.outcome is not None
        assert isinstance(app.screen, GameOver)
        assert load(screen.path).match.events == match.events


@run_async
async def test_a_whole_solo_game_through_key_presses(tmp_path: Path) -> None:
    app = cm_app(tmp_path, players=1, humans=1, seed=8, candidate="mitterrand")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await play_through(pilot)
        assert screen.match.outcome is not None
        assert screen.match.game.view(screen.match.state, 0)["solo"]


@run_async
async def test_number_keys_pick_a_card_and_escape_goes_back(tmp_path: Path) -> None:
    app = cm_app(tmp_path, players=2, humans=1, seed=5)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        board = app.screen.query_one(ChiracMitterrandBoard)
        hand = board.view["hand"]
        await pilot.press("2")
        assert board.card == hand[1]
        assert all(kind == "command" and what["card"] == hand[1] for kind, what in board.listed)
        await pilot.press("escape")
        assert board.card is None


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_snapshot_chirac_mitterrand_in_play(snap_compare, tmp_path: Path, size) -> None:
    assert snap_compare(cm_app(tmp_path, seed=21), terminal_size=size, run_before=settle)


def test_snapshot_chirac_mitterrand_solo(snap_compare, tmp_path: Path) -> None:
    assert snap_compare(cm_app(tmp_path, players=1, seed=21), terminal_size=(80, 24), run_before=settle)
