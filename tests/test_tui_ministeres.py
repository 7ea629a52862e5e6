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
        status = str(screen.query_one("#mi-status").content)
        assert status.startswith("Game over") and "Final:" in status and "Deal" not in status


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_snapshot_ministeres_in_play(snap_compare, tmp_path: Path, size) -> None:
    assert snap_compare(mi_app(tmp_path, seed=21), terminal_size=size, run_before=settle)


@run_async
async def test_cards_alike_are_one_choice_when_paying(tmp_path: Path) -> None:
    """Three Or 1 in hand: the pay menu offers "Or 1" once, says there are
    three, and choosing it pays one of them."""
    from core.engine import Match, make_header
    from tests.test_ministeres_rules import bid, finish_gifts, two_player_gifts

    deck = two_player_gifts(["or1-01", "or1-02", "or1-03", "or2-01"], [], ["armee-D"])
    config = GAME.make_config(2, [{"name": "Ada"}, {"name": "Bastien"}], None)
    favours = [deck[3 * k + 2] for k in range(36)]
    header = make_header(GAME, config, 1, [{"kind": "human"}, {"kind": "bot", "level": "easy"}],
                         bot_seed=1, arranged={"deck": deck, "dealer": 0, "favours": favours})
    match = Match.new(GAME, header)
    finish_gifts(match)
    bid(match, 4)
    bid(match, None)
    assert match.active() == (0,) and match.state.phase == "pay"
    app = app_for(tmp_path, start_save(tmp_path, match))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        board = app.screen.query_one(MinisteresBoard)
        labels = [str(o.prompt) for o in board.query_one("#mi-choices").options]
        ones = [label for label in labels if "Or 1" in label or "¤1" in label]
        assert len(ones) == 1 and "3 in your hand" in ones[0]
        assert len(labels) == len(board.choices) == len({str(c["card"])[:3] for c in board.choices})
        await pilot.press("enter")  # the first choice: one Or 1
        await settle(pilot)
        paid = [e for e in match.events if e["t"] == "CardPaid"]
        assert len(paid) == 1 and paid[0]["card"].startswith("or1")
        assert sum(c.startswith("or1") for c in match.state.hands[0]) == 2
