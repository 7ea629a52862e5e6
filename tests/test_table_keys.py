"""The keys of a table and of its dialogs: behind the "too small" notice none but leaving acts,
the curtain and the game's end take the keys their footers and lines show."""

from __future__ import annotations

import random
from pathlib import Path

from core.games import get_game
from screens.menu import MainMenu
from screens.play import PlayScreen
from tests.tui_helpers import NAMES, app_for, run_async, screen_text, settle, toasts_text
from tui.session import new_match, start_save
from tui.widgets import ChoiceList, Curtain, GameOver


def against_a_bot(tmp_path: Path, game_id: str, seed: int):
    """Ada against an easy bot, at a new table."""
    game = get_game(game_id)
    controllers = [{"kind": "human"}, {"kind": "bot", "level": "easy"}]
    match = new_match(game, 2, [{"name": n} for n in NAMES[:2]], controllers, seed=seed, bot_seed=seed)
    return app_for(tmp_path, start_save(tmp_path, match)), match


def finished_writer(tmp_path: Path, game_id: str = "ministeres", seed: int = 5):
    """A save of a game played to its end by random legal moves, Ada's seat human."""
    game = get_game(game_id)
    controllers = [{"kind": "human"}, {"kind": "bot", "level": "easy"}]
    match = new_match(game, 2, [{"name": n} for n in NAMES[:2]], controllers, seed=seed, bot_seed=seed)
    rng = random.Random(seed)
    writer = start_save(tmp_path, match)
    while match.outcome is None:
        seat = match.active()[0]
        match.submit(seat, rng.choice(game.legal(match.state, seat)))
        writer.record(match.moves[-1])
    return writer


@run_async
async def test_behind_the_too_small_notice_arrows_and_enter_choose_nothing(tmp_path: Path) -> None:
    """Edgar & Lucien, Ada's choice open: at 40x12, Down, Enter, digits and Space play nothing
    (the choice is hidden there); back at 80x24 the same choice is offered, and Enter plays."""
    app, match = against_a_bot(tmp_path, "edgar-lucien", seed=3)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, PlayScreen) and 0 in match.active()
        options = screen.query_one(ChoiceList)
        assert options.option_count and options.has_focus
        await pilot.resize_terminal(40, 12)
        await pilot.pause()
        moves = len(match.moves)
        await pilot.press("down", "down", "enter", "space", "1", "2", "d", "escape", "h", "u")
        await settle(pilot)
        assert len(match.moves) == moves, "a key played behind the too-small notice"
        text = screen_text(app)
        assert "needs" in text and "80x24" in text and "Choose" not in text
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert options.option_count and options.has_focus
        await pilot.press("enter")
        await settle(pilot)
        assert len(match.moves) > moves


@run_async
async def test_the_game_over_dialog_behind_the_too_small_notice_takes_only_q(tmp_path: Path) -> None:
    """At 40x12 the game-over dialog is hidden behind the notice: r opens no replay, Enter
    does not close it; q goes back to the menu (as its line says, at 80x24)."""
    app = app_for(tmp_path, finished_writer(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, GameOver)
        assert "q main menu" in screen_text(app)
        await pilot.resize_terminal(40, 12)
        await pilot.pause()
        dialog = app.screen
        text = screen_text(app)
        assert "needs" in text and "80x24" in text and "Game over" not in text
        await pilot.press("r", "enter", "space")
        await pilot.pause()
        assert app.screen is dialog, "a key acted behind the too-small notice"
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, MainMenu)


@run_async
async def test_q_on_the_game_over_dialog_goes_back_to_the_menu(tmp_path: Path) -> None:
    app = app_for(tmp_path, finished_writer(tmp_path, "agent-jean", seed=8))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, GameOver)
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, MainMenu)


def hot_seat_app(tmp_path: Path):
    game = get_game("agent-jean")
    match = new_match(game, 2, [{"name": n} for n in NAMES[:2]], [{"kind": "human"}] * 2, seed=2, bot_seed=2)
    return app_for(tmp_path, start_save(tmp_path, match)), match


@run_async
async def test_the_curtain_shows_its_keys_and_q_or_escape_leave_to_the_menu(tmp_path: Path) -> None:
    for key in ("q", "escape"):
        app, match = hot_seat_app(tmp_path / key)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            assert isinstance(app.screen, Curtain)
            footer = screen_text(app).splitlines()[-1]
            assert "I am ready" in footer and "Menu" in footer
            await pilot.press(key)
            await pilot.pause()
            assert isinstance(app.screen, MainMenu)
            assert not match.moves[1:], "the table was left without a move"


@run_async
async def test_the_curtain_behind_the_too_small_notice_is_not_lowered_by_enter(tmp_path: Path) -> None:
    app, _ = hot_seat_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        curtain = app.screen
        assert isinstance(curtain, Curtain)
        await pilot.resize_terminal(40, 12)
        await pilot.pause()
        await pilot.press("enter", "space")
        await pilot.pause()
        assert app.screen is curtain
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, PlayScreen)


@run_async
async def test_browsing_the_history_the_footer_shows_the_arrows_and_esc(tmp_path: Path) -> None:
    app, _ = against_a_bot(tmp_path, "agent-jean", seed=4)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("h", "up")
        await pilot.pause()
        footer = screen_text(app).splitlines()[-1]
        assert "↑↓ Earlier" in footer and "esc Back to play" in footer, footer
        await pilot.press("escape")
        await pilot.pause()
        footer = screen_text(app).splitlines()[-1]
        assert "Earlier" not in footer and "History" in footer, footer


async def moves_by_enter(pilot, count: int) -> PlayScreen:
    """``count`` moves made by Enter (the first choice) at the table of ``pilot``'s app: its screen."""
    await settle(pilot)
    for _ in range(count):
        await pilot.press("enter")
        await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, PlayScreen)
    return screen


@run_async
async def test_looking_back_inside_a_move_says_so(tmp_path: Path) -> None:
    """The status line names the move looked at; a position inside one (its first events: a
    card played before the trick it ends) is "in move M of N", a move's end "move M of N"."""
    app, _ = against_a_bot(tmp_path, "agent-jean", seed=4)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await moves_by_enter(pilot, 3)
        await pilot.press("h")
        seen = set()
        for _ in range(12):
            await pilot.press("up")
            await pilot.pause()
            n, log = screen.browsing, screen.knows
            if n is None:
                break
            status = str(screen.query_one("#status").render())
            ends = {end for end, _ in log.moves}
            word = "in move" if n not in ends else "move"
            assert f"Looking back: {word} {log.move_at(n)} of {log.move_count} (Esc" in status, (n, status)
            seen.add(n in ends)
        assert seen == {True, False}, "the walk met a move's end and a position inside a move"


@run_async
async def test_a_notification_waits_behind_the_too_small_notice(tmp_path: Path) -> None:
    """A notice raised at a table does not cover the "too small" notice's lines (at 40x12 it
    hid its last ones); it shows again once the terminal is big again."""
    app, _ = against_a_bot(tmp_path, "agent-jean", seed=4)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:  # the toasts drawn
        await settle(pilot)
        app.notify("Something to read later.", timeout=60)
        await settle(pilot)
        assert toasts_text(app) == ["Something to read later."]
        await pilot.resize_terminal(40, 12)
        await settle(pilot)
        text = screen_text(app)
        assert "Something" not in text and "later" not in text
        assert "Nothing is lost meanwhile." in text and "A table needs 80x24." in text, text
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        assert toasts_text(app) == ["Something to read later."]


@run_async
async def test_looking_back_survives_the_terminal_shrunk_too_small_and_grown_again(tmp_path: Path) -> None:
    """The "too small" notice says nothing is lost meanwhile: a player looking back at a move
    finds the same move when the terminal is big again (its history had lost the keys to the
    notice, and losing the keys had ended the look-back)."""
    app, _ = against_a_bot(tmp_path, "ministeres", seed=4)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await moves_by_enter(pilot, 4)
        await pilot.press("h", "up", "up")
        await pilot.pause()
        looked = screen.browsing
        status = str(screen.query_one("#status").render())
        assert looked is not None and "Looking back: " in status, status
        await pilot.resize_terminal(40, 12)
        await pilot.pause()
        assert "needs" in screen_text(app)
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        await pilot.pause()
        assert screen.browsing == looked
        assert str(screen.query_one("#status").render()) == status
        await pilot.press("up")  # and the arrows go on from there
        await pilot.pause()
        assert screen.browsing is not None and screen.browsing < looked
        await pilot.press("escape")
        await pilot.pause()
        assert screen.browsing is None


@run_async
async def test_a_burst_of_arrows_in_the_history_draws_the_board_where_it_lands_not_at_each_step(
    tmp_path: Path,
) -> None:
    """A paste of arrows, or a key held down: a served session drew the board once an arrow,
    and was held to a twentieth of a core for its thousand draws."""
    from textual import events

    from tui.widgets import Board

    app, _ = against_a_bot(tmp_path, "ministeres", seed=4)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for _ in range(6):  # a few moves, for a history to step through
            await pilot.press("enter")
            await settle(pilot)
        await pilot.press("h")
        board = app.screen.query_one(Board)
        drawn: list[object] = []
        show = board.show
        board.show = lambda view, legal: (drawn.append(view), show(view, legal))[1]  # type: ignore[method-assign]
        for _ in range(40):  # read in one go, as a burst is
            app.post_message(events.Key("up", None))
        await pilot.pause()
        await pilot.pause()
        assert app.screen.browsing is not None
        assert 1 <= len(drawn) <= 3, len(drawn)  # (where it landed: not forty times)
        assert drawn[-1] == app.screen.feed.look_back(app.screen.browsing)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen.browsing is None


@run_async
async def test_at_a_served_table_the_game_over_dialog_says_q_goes_to_the_lobby(tmp_path: Path) -> None:
    """A served session's bottom screen is its lobby, not the main menu: the dialog the table
    shows there (screens.play picks it when the app has a hall) says where q goes, in its line
    and in its footer, and q leaves it as the other's does."""
    from screens.app import CabinetApp
    from tui.widgets import ServedGameOver

    app = CabinetApp(save_dir=tmp_path)
    left: list[str | None] = []
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.push_screen(ServedGameOver("Ada wins.", None, ["Ada", "Bastien"]), left.append)
        await pilot.pause()
        text = screen_text(app)
        assert "q lobby" in text and "main menu" not in text.lower()
        assert "Lobby" in text.splitlines()[-1]
        await pilot.press("q")
        await pilot.pause()
        assert left == ["menu"]


@run_async
async def test_at_a_served_table_the_round_score_says_q_goes_to_the_lobby(tmp_path: Path) -> None:
    """The round's score sheet at a served table (screens.play picks it when the app is
    ``served``) says where q goes, in its line and its footer; Enter goes on, q leaves."""
    from core.engine import ScoreSheet
    from screens.app import CabinetApp
    from tui.widgets import ServedScoreSheetDialog

    sheet = ScoreSheet(title="Round 1", columns=("Points",), rows=(("3",), ("5",)), notes=())
    app = CabinetApp(save_dir=tmp_path)
    left: list[str | None] = []
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        for key, want in (("enter", None), ("q", "menu")):
            app.push_screen(ServedScoreSheetDialog(sheet, ["Ada", "Bastien"]), left.append)
            await pilot.pause()
            text = screen_text(app)
            assert "q lobby" in text and "menu" not in text.lower(), text
            assert "Lobby" in text.splitlines()[-1]
            await pilot.press(key)
            await pilot.pause()
            assert left[-1] == want


@run_async
async def test_once_the_game_over_dialog_is_closed_s_brings_back_its_final_sheet(tmp_path: Path) -> None:
    """Every game: Enter on the game-over dialog looks at the table; its footer offers s Scores,
    and s shows the dialog again, the final sheet in it (there was no way back to it)."""
    for game_id in ("ministeres", "agent-jean", "chirac-mitterrand", "edgar-lucien"):
        here = tmp_path / game_id
        app = app_for(here, finished_writer(here, game_id, seed=8))
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            assert isinstance(app.screen, GameOver), game_id
            first = screen_text(app)
            await pilot.press("enter")
            await settle(pilot)
            assert isinstance(app.screen, PlayScreen) and "s Scores" in screen_text(app).splitlines()[-1]
            await pilot.press("s")
            await settle(pilot)
            assert isinstance(app.screen, GameOver), game_id
            assert screen_text(app) == first, game_id
            await pilot.press("escape")  # Esc closes it as Enter does: the table, not the menu
            await settle(pilot)
            assert isinstance(app.screen, PlayScreen), game_id
