"""Several players at one terminal: each sees what their own move showed them before the
terminal passes on, the curtain comes whenever the move comes back after others moved (a key
meant for a curtain never plays), and a round's score sheet hides the table behind it."""

from __future__ import annotations

import itertools
from pathlib import Path

from core.games import get_game
from screens.play import PlayScreen
from tests.tui_helpers import NAMES, app_for, run_async, screen_text, settle
from tui.session import new_match, start_save
from tui.widgets import Curtain, GameOver, ScoreSheetDialog


def hot_seat(tmp_path: Path, game_id: str, kinds: list[str], seed: int):
    game = get_game(game_id)
    controllers = [{"kind": kind} if kind == "human" else {"kind": "bot", "level": "easy"} for kind in kinds]
    players = len(kinds)
    match = new_match(game, players, [{"name": n} for n in NAMES[:players]], controllers, seed=seed, bot_seed=seed)
    return app_for(tmp_path, start_save(tmp_path, match), delay=0), match


@run_async
async def test_a_player_sees_what_their_move_showed_them_before_the_terminal_passes(tmp_path: Path) -> None:
    """L'Agent Jean!, Ada and Bastien at one terminal: when a card ends a turn (who won it,
    the next cards), its player's table stays up, the status line says to pass the terminal,
    the footer offers it, and Enter brings the curtain for the other."""
    app, match = hot_seat(tmp_path, "agent-jean", ["human", "human"], seed=5)
    passed = 0
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = next(s for s in app.screen_stack if isinstance(s, PlayScreen))
        for _ in range(80):
            if match.outcome is not None or passed >= 2:
                break
            if isinstance(app.screen, (Curtain, ScoreSheetDialog)):
                await pilot.press("enter")
                await settle(pilot)
                continue
            if table.passing is not None:
                mover = match.moves[-1].seat
                assert table.viewer == mover and table.passing != mover
                lines = screen_text(app).splitlines()
                assert "pass the terminal to " + NAMES[table.passing] in lines[0], lines[0]
                assert "Pass the terminal" in lines[-1], lines[-1]
                events = len(match.events)
                await pilot.press("enter")
                await settle(pilot)
                assert isinstance(app.screen, Curtain), "Enter did not pass the terminal"
                assert len(match.events) == events, "Enter played a move instead of passing the terminal"
                passed += 1
                continue
            await pilot.press("enter")  # the highlighted card
            await settle(pilot)
        assert passed >= 2


@run_async
async def test_the_curtain_comes_again_when_the_move_comes_back_after_others_moved_or_a_new_turn(
    tmp_path: Path,
) -> None:
    """L'Agent Jean!, Ada and Bastien at one terminal with a bot: whenever a human's move comes
    after another seat moved, or begins a new turn (a player who won the turn leads the next),
    the curtain is up first, so that Enter pressed for a curtain plays nothing."""
    app, match = hot_seat(tmp_path, "agent-jean", ["human", "human", "bot"], seed=3)
    game = match.game
    curtains: list[int] = []
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = next(s for s in app.screen_stack if isinstance(s, PlayScreen))
        seen: dict[int, int] = {}  # seat -> events when it last had the terminal
        for _ in range(90):
            if match.outcome is not None or isinstance(app.screen, GameOver):
                break
            if isinstance(app.screen, Curtain):
                await pilot.press("enter")
                await settle(pilot)
                curtains.append(table.viewer)
                seen[table.viewer] = len(match.events)
                continue
            if isinstance(app.screen, ScoreSheetDialog) or table.passing is not None:
                await pilot.press("enter")
                await settle(pilot)
                continue
            seat = table.viewer
            assert seat in match.active()
            since = seen.get(seat, 0)
            others = [m for m in match.moves if m.end > since and m.seat not in (seat, None)]
            turns = [e for e in match.events[since:] if game.mark(e)]
            assert not others and not turns, f"{NAMES[seat]}'s move came back with no curtain"
            await pilot.press("enter")
            await settle(pilot)
            seen[seat] = len(match.events)
    assert len(curtains) >= 6
    assert any(a == b for a, b in itertools.pairwise(curtains)), "no curtain for the same player twice running"


@run_async
async def test_at_a_hot_seat_table_the_score_sheet_hides_the_table(tmp_path: Path) -> None:
    app, match = hot_seat(tmp_path, "agent-jean", ["human", "human"], seed=5)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for _ in range(400):
            if isinstance(app.screen, ScoreSheetDialog) or match.outcome is not None:
                break
            await pilot.press("enter")
            await settle(pilot)
        assert isinstance(app.screen, ScoreSheetDialog)
        assert app.screen.has_class("-opaque")
        text = screen_text(app)
        assert "Your hand" not in text and "You:" not in text, text


@run_async
async def test_at_a_hot_seat_table_each_player_reads_the_rounds_score_sheet(tmp_path: Path) -> None:
    """A round scored: the player at the terminal reads its sheet; the other reads it too, once,
    as soon as the curtain is lowered for them, before their next move."""
    app, match = hot_seat(tmp_path, "agent-jean", ["human", "human"], seed=5)
    readers: list[int] = []
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = next(s for s in app.screen_stack if isinstance(s, PlayScreen))
        for _ in range(400):
            if len(readers) >= 2 or match.outcome is not None:
                break
            if isinstance(app.screen, ScoreSheetDialog):
                readers.append(table.viewer)
            elif readers and not isinstance(app.screen, Curtain) and table.passing is None:
                assert table.viewer in readers, f"{NAMES[table.viewer]} moves on without the round's sheet"
            await pilot.press("enter")
            await settle(pilot)
    assert sorted(readers) == [0, 1], readers
