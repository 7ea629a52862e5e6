"""The replay's own keys (issue 34, item 14): q leaves to where the replay was opened
from (the shell for ``cabinet replay SAVE``, the menu otherwise), and g answers a move
number that is not one of the game's in a sentence."""

from __future__ import annotations

from pathlib import Path

from saves import load
from screens.app import CabinetApp
from screens.menu import MainMenu
from screens.replay import GoTo, ReplayScreen, moves_sentence
from table import Table
from tests.tui_helpers import agent_jean_match, run_async, screen_text
from tui.session import start_save
from tui.start import Start


def saved_game(tmp_path: Path, moves: int = 8) -> Path:
    match = agent_jean_match(humans=2, players=2, seed=5)
    with start_save(tmp_path, match, durable=False) as writer:
        table = Table(match, writer)
        for _ in range(moves):
            seat = match.active()[0]
            assert table.submit(seat, table.bot_move(seat)) is None
    return writer.path


async def replay_from_menu(pilot, path: Path) -> None:
    """The replay of the save at ``path`` opened from the app's menu (as Replay a game does)."""
    await pilot.pause()
    pilot.app.open_replay(load(path).match, path)
    await pilot.pause()


def command_line_replay(tmp_path: Path) -> CabinetApp:
    """The app as ``cabinet replay SAVE`` opens it (tui.cli.cmd_replay)."""
    path = saved_game(tmp_path)
    start = Start(mode="replay", match=load(path).match, path=path, locked=True)
    return CabinetApp(save_dir=tmp_path, start=start)


@run_async
async def test_q_in_a_replay_the_command_line_opened_ends_the_program(tmp_path: Path) -> None:
    app = command_line_replay(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, ReplayScreen)
        await pilot.press("q")
        await pilot.pause()
        assert app.return_code == 0
        assert not isinstance(app.screen, MainMenu)  # never shown: the program ended at once


@run_async
async def test_q_in_a_replay_opened_from_the_menu_goes_back_to_it(tmp_path: Path) -> None:
    path = saved_game(tmp_path)
    app = CabinetApp(save_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await replay_from_menu(pilot, path)
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, MainMenu) and app.return_code is None


def test_the_sentence_says_how_many_moves_there_are() -> None:
    assert moves_sentence(57) == "There are 57 moves: type a number from 0 to 57."
    assert moves_sentence(1) == "There is 1 move: type 0 (the start) or 1."
    assert moves_sentence(0) == "No move has been made yet: type 0, the start."


@run_async
async def test_go_to_a_move_that_is_not_there_says_which_are(tmp_path: Path) -> None:
    app = command_line_replay(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        replay = app.screen
        assert isinstance(replay, ReplayScreen)
        last = replay.match.move_count
        end = replay.position
        sentence = f"There are {last} moves: type a number from 0 to {last}."
        # (a fullwidth 3 is a digit to Python, not a move number)
        for typed in ("999", "abc", "-1", "", "\uff13"):
            await pilot.press("g")
            await pilot.pause()
            assert isinstance(app.screen, GoTo)
            await pilot.press(*typed, "enter")
            await pilot.pause()
            # the dialog stays, with the sentence; the replay has not moved
            assert isinstance(app.screen, GoTo), typed
            assert sentence in screen_text(app), typed
            assert replay.position == end
            await pilot.press("escape")
            await pilot.pause()
            assert app.screen is replay and replay.position == end
        # a number of the game's goes there, and the sentence is gone with the dialog
        await pilot.press("g", "3", "enter")
        await pilot.pause()
        assert app.screen is replay
        assert replay.position == replay.match.events_after_moves(3)
        assert f"move 3/{last}" in screen_text(app) and sentence not in screen_text(app)
        # once corrected, the number typed is taken
        await pilot.press("g", "9", "9", "enter")
        await pilot.pause()
        assert isinstance(app.screen, GoTo)
        await pilot.press("backspace", "backspace", "0", "enter")
        await pilot.pause()
        assert app.screen is replay and replay.position == replay.first


@run_async
async def test_the_footer_starts_a_space_in_and_lists_home_and_end(tmp_path: Path) -> None:
    """The replay's footer begins a space in, as every other footer does, and lists Home and End
    (drawn ⇱ ⇲, beside the arrows they go with); they go to the start and to the end."""
    app = command_line_replay(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        replay = app.screen
        assert isinstance(replay, ReplayScreen)
        footer = screen_text(app).splitlines()[-1]
        assert footer.startswith(" ←→⇱⇲ Move "), footer
        assert footer.rstrip().endswith("q Leave"), footer
        last = replay.match.move_count
        await pilot.press("home")
        await pilot.pause()
        assert replay.position == replay.first and f"move 0/{last}" in screen_text(app)
        await pilot.press("end")
        await pilot.pause()
        assert replay.position == replay.last and f"move {last}/{last}" in screen_text(app)


@run_async
async def test_play_on_from_the_last_position_of_a_game_in_play_plays_its_own_save(tmp_path: Path) -> None:
    """p at the last position of a game in play opens that game, as Continue does: no twin of it
    in the list (a play-test's Load list showed two alike); from an earlier position it is a new
    game, played on from there, that says where it came from."""
    from saves import list_saves
    from screens.play import PlayScreen

    path = saved_game(tmp_path)
    app = CabinetApp(save_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await replay_from_menu(pilot, path)
        await pilot.press("p")
        await pilot.pause()

        def playing() -> Path:
            (play,) = [s for s in app.screen_stack if isinstance(s, PlayScreen)]  # (under its curtain)
            return play.feed.path

        assert playing() == path and not any(isinstance(s, ReplayScreen) for s in app.screen_stack)
        assert [info.path for info in list_saves(tmp_path)] == [path]
        await pilot.press("q")  # the curtain's q: to the menu, the game saved
        await pilot.pause()
        assert isinstance(app.screen, MainMenu)
        await replay_from_menu(pilot, path)
        await pilot.press("left", "p")  # a move back: a new game from there
        await pilot.pause()
        assert playing() != path and len(list_saves(tmp_path)) == 2
