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
                assert "Enter: pass the terminal to " + NAMES[table.passing] in lines[0], lines[0]
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


def new_turn_since(match, since: int) -> bool:
    """A turn or round began in the events after ``since`` (a mark on a move's first event names
    the move itself: a card placed, say)."""
    starts = {move.start for move in match.moves}
    return any(match.game.mark(e) and i not in starts for i, e in enumerate(match.events) if i >= since)


async def curtains_walked(tmp_path: Path, game_id: str, kinds: list[str], seed: int, steps: int) -> list[int]:
    """Play ``steps`` keys at a hot-seat table; at each human's move, check that the curtain came
    first if others moved or a new turn began since they last had the terminal, and that a
    curtain for the player who had it last came for one of those reasons. The curtains' seats."""
    app, match = hot_seat(tmp_path, game_id, kinds, seed=seed)
    curtains: list[int] = []
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = next(s for s in app.screen_stack if isinstance(s, PlayScreen))
        seen: dict[int, int] = {}  # seat -> events when it last had the terminal
        last: int | None = None  # the seat that last had it
        for _ in range(steps):
            if match.outcome is not None or isinstance(app.screen, GameOver):
                break
            if isinstance(app.screen, Curtain):
                seat = NAMES.index(app.screen.player)
                if seat == last:
                    since = seen.get(seat, 0)
                    others = [m for m in match.moves if m.end > since and m.seat not in (seat, None)]
                    assert others or new_turn_since(match, since), f"a curtain for {NAMES[seat]} for nothing"
                await pilot.press("enter")
                await settle(pilot)
                curtains.append(table.viewer)
                seen[table.viewer] = len(match.events)
                last = table.viewer
                continue
            if isinstance(app.screen, ScoreSheetDialog) or table.passing is not None:
                await pilot.press("enter")
                await settle(pilot)
                continue
            seat = table.viewer
            assert seat in match.active()
            since = seen.get(seat, 0)
            others = [m for m in match.moves if m.end > since and m.seat not in (seat, None)]
            assert not others and not new_turn_since(match, since), f"{NAMES[seat]}'s move came back with no curtain"
            await pilot.press("enter")
            await settle(pilot)
            # what the player saw: the table up to the start of their own move (its own events, a
            # new turn among them, and the bots' moves since are what may bring the curtain back)
            seen[seat] = max([m.start for m in match.moves if m.seat == seat] + [since])
            last = seat
    return curtains


@run_async
async def test_the_curtain_comes_again_when_the_move_comes_back_after_others_moved_or_a_new_turn(
    tmp_path: Path,
) -> None:
    """L'Agent Jean!, Ada and Bastien at one terminal with a bot: whenever a human's move comes
    after another seat moved, or begins a new turn (a player who won the turn leads the next),
    the curtain is up first, so that Enter pressed for a curtain plays nothing."""
    curtains = await curtains_walked(tmp_path, "agent-jean", ["human", "human", "bot"], seed=3, steps=90)
    assert len(curtains) >= 6
    assert any(a == b for a, b in itertools.pairwise(curtains)), "no curtain for the same player twice running"


@run_async
async def test_no_curtain_between_a_dealers_cards(tmp_path: Path) -> None:
    """Ministères: the dealer places card after card with nobody else moving: no curtain between
    them (each card placed is a "turn" of the replay, not a new turn of play)."""
    curtains = await curtains_walked(tmp_path, "ministeres", ["human", "human", "bot"], seed=4, steps=40)
    assert curtains


@run_async
async def test_at_a_hot_seat_table_each_player_reads_the_rounds_score_sheet_and_no_table_behind_it(
    tmp_path: Path,
) -> None:
    """A round scored: the player at the terminal reads its sheet, with nothing of the table
    behind it; the other reads it too, once, as soon as the curtain is lowered for them, before
    their next move."""
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
                # nothing of the table behind it: the sheet is everybody's, the hand one player's
                assert app.screen.has_class("-opaque")
                text = screen_text(app)
                assert "Your hand" not in text and "You:" not in text, text
            elif readers and not isinstance(app.screen, Curtain) and table.passing is None:
                assert table.viewer in readers, f"{NAMES[table.viewer]} moves on without the round's sheet"
            await pilot.press("enter")
            await settle(pilot)
    assert sorted(readers) == [0, 1], readers
