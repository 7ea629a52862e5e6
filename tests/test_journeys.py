"""The journeys players make, at 80x24, with saves of all four games present.

Every main-menu entry opened and used; on each game's board every key its
footer shows pressed in turn (history in and out, then a move by keyboard;
take-back, rules, menu and Continue); each game played to its end through
key presses, and its replay opened from the game-over dialog.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from core.games import all_games, get_game
from saves import list_saves, load
from screens.app import CabinetApp
from screens.join import JoinScreen
from screens.menu import MainMenu
from screens.new_game import NewGameScreen
from screens.play import PlayScreen
from screens.replay import ReplayScreen
from screens.rules import RulesScreen
from screens.save_list import SaveListScreen
from table import Table
from table.bots import bot_for
from tests.tui_helpers import run_async, screen_text, settle
from tui.session import new_match, start_save
from tui.widgets import Curtain, GameOver, ScoreSheetDialog

GAMES = sorted(all_games())
SIZE = (80, 24)


def table(game_id: str, seed: int, bots: str = "random", humans: int = 1):
    game = get_game(game_id)
    players = max(2, game.min_players)
    controllers = [{"kind": "human"}] * humans + [{"kind": "bot", "level": bots}] * (players - humans)
    return new_match(
        game, players, [{"name": n} for n in ("Ada", "Bastien")[:players]], controllers, seed=seed, bot_seed=seed
    )


def fill_saves(directory: Path) -> dict[str, Path]:
    """A finished game and an unfinished one of every game; the unfinished paths by game."""
    unfinished = {}
    for i, game_id in enumerate(GAMES):
        done = table(game_id, seed=100 + i, humans=0)
        with start_save(directory, done, durable=False) as writer:
            Table(done, writer).play_out()
        going = table(game_id, seed=200 + i)
        with start_save(directory, going, durable=False) as writer:
            at = Table(going, writer)
            # a few moves in, the human to play
            for _ in range(6):
                if going.outcome is not None or 0 in going.active():
                    break
                seat = going.active()[0]
                view = going.game.view(going.state, seat)
                command = bot_for(going, seat).choose(going.game, view, going.game.legal(going.state, seat))
                assert at.submit(seat, command) is None
            unfinished[game_id] = writer.path
    return unfinished


def footer_keys(app: CabinetApp) -> list[str]:
    """The keys the footer shows on the current screen."""
    return [b.binding.key.split(",")[0] for b in app.screen.active_bindings.values() if b.binding.show and b.enabled]


async def through_dialogs(pilot) -> None:
    """Read what the game puts in front of the table (a curtain, a round's score) and go on."""
    app = pilot.app
    for _ in range(20):
        await settle(pilot)
        if isinstance(app.screen, (Curtain, ScoreSheetDialog)):
            await pilot.press("enter")
        else:
            return


async def make_a_move(pilot, screen: PlayScreen) -> None:
    """Play by keyboard as a player would: Enter on what the board offers (a choice
    in steps takes a few), else the first card."""
    match = screen.match
    before = match.move_count
    for key in ("enter", "enter", "enter", "1", "enter"):
        await pilot.press(key)
        await through_dialogs(pilot)
        if match.move_count > before or match.outcome is not None:
            return
    raise AssertionError(f"No key press made a move:\n{screen_text(pilot.app)}")


@pytest.fixture(scope="module")
def saves(tmp_path_factory) -> tuple[Path, dict[str, Path]]:
    directory = tmp_path_factory.mktemp("saves")
    return directory, fill_saves(directory)


@run_async
async def test_every_menu_entry_with_saves_of_every_game(saves) -> None:
    directory, _unfinished = saves
    app = CabinetApp(save_dir=directory, bot_delay=0.0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, MainMenu)
        menu = ["New game", "Continue", "Load a game", "Replay a game", "Join a hosted game", "Rules", "Quit"]
        text = screen_text(app)
        for entry in menu:
            assert entry in text

        async def choose(entry: str) -> None:
            await pilot.press("home", *["down"] * menu.index(entry), "enter")
            await pilot.pause()

        await choose("New game")
        assert isinstance(app.screen, NewGameScreen)
        await pilot.press("escape")
        assert isinstance(app.screen, MainMenu)

        await choose("Continue")
        await through_dialogs(pilot)
        assert isinstance(app.screen, PlayScreen)
        assert app.screen.match.outcome is None
        await pilot.press("q")
        assert isinstance(app.screen, MainMenu)
        assert [n.message for n in app._notifications][-1].startswith("Saved: ")  # the game left, said

        for entry, mode in (("Load a game", "load"), ("Replay a game", "replay")):
            await choose(entry)
            assert isinstance(app.screen, SaveListScreen)
            # no toast of before over the list's lines (the game left is listed, newest first)
            assert not list(app._notifications)
            await pilot.press("q")  # q leaves the list as it leaves a game or a replay
            assert isinstance(app.screen, MainMenu)
            await choose(entry)
            assert isinstance(app.screen, SaveListScreen)
            await settle(pilot)  # the games in play replayed for whose move it is
            text = screen_text(app)
            for title in ("L'Agent Jean!", "1988", "Edgar & Lucien", "Ministères"):
                assert title in text
            # where each game stands: who won a finished game, whose move it is in one in play
            assert "won by" in text and " to play" in text
            # the first finished game of the list (newest first): down to its row, then Enter
            row = next(i for i, info in enumerate(list_saves(directory)) if info.finished)
            await pilot.press(*["down"] * row, "enter")
            await through_dialogs(pilot)
            if mode == "load":
                assert isinstance(app.screen, (PlayScreen, GameOver))
                if isinstance(app.screen, GameOver):
                    await pilot.press("enter")
                await pilot.press("q")
                assert isinstance(app.screen, MainMenu)
            else:
                assert isinstance(app.screen, ReplayScreen)
                replay = app.screen
                await pilot.press("home")
                start = replay.position
                await pilot.press("right")
                assert replay.position > start
                await pilot.press("left")
                assert replay.position == start
                await pilot.press("q")
                assert isinstance(app.screen, SaveListScreen)
                await pilot.press("escape")
                assert isinstance(app.screen, MainMenu)

        await choose("Join a hosted game")
        assert isinstance(app.screen, JoinScreen)
        assert "Esc: back" in screen_text(app)  # its keys said (it has no footer)
        await pilot.press("escape")
        assert isinstance(app.screen, MainMenu)

        await choose("Rules")
        assert isinstance(app.screen, RulesScreen)
        await pilot.press("right", "pagedown")
        await pilot.press("q")
        assert isinstance(app.screen, MainMenu)

        await choose("Quit")
        await pilot.pause()
    assert app.return_code == 0


@pytest.mark.parametrize("game_id", GAMES)
@run_async
async def test_every_footer_key_of_each_board(saves, game_id: str) -> None:
    directory, unfinished = saves
    loaded = load(unfinished[game_id])
    from saves import SaveWriter
    from tui.start import Start

    writer = SaveWriter.resume(loaded)
    app = CabinetApp(
        save_dir=directory, start=Start(mode="play", match=writer.match, path=writer.path, writer=writer), bot_delay=0.0
    )
    async with app.run_test(size=SIZE) as pilot:
        await through_dialogs(pilot)
        screen = app.screen
        assert isinstance(screen, PlayScreen)
        match = screen.match

        # History in and back out: the next key is a move again, not a history line.
        await pilot.press("h")
        assert app.focused is not None and app.focused.id == "history"
        await pilot.press("up", "up")
        assert screen.browsing is not None
        await pilot.press("escape")
        assert screen.browsing is None
        assert app.focused is None or app.focused.id != "history"
        await make_a_move(pilot, screen)

        # The history follows the game after a browse: its last line is in view.
        history = screen.query_one("#history")
        assert history.scroll_y == history.max_scroll_y

        seen = []
        for key in footer_keys(app):
            if not isinstance(app.screen, PlayScreen):
                break
            seen.append(key)
            before = match.move_count
            await pilot.press(key)
            await through_dialogs(pilot)
            if key == "h":
                assert app.focused is not None and app.focused.id == "history"
                await pilot.press("escape")
            elif key == "u":
                # back to before our move, or a sentence saying why not
                assert match.move_count < before or app._notifications
            elif key == "question_mark":
                assert isinstance(app.screen, RulesScreen)
                await pilot.press("q")
            elif key == "q":
                assert isinstance(app.screen, MainMenu)
                await pilot.press("home", "down", "enter")  # Continue
                await through_dialogs(pilot)
                assert isinstance(app.screen, PlayScreen)
                assert app.screen.path == screen.path
                break
            assert "Traceback" not in screen_text(app)
        assert {"h", "question_mark", "q"} <= set(seen)


#: moves the bots make, every seat, before the keyboard takes seat 0 and plays to the end: a
#: whole game of these by keys is test_tui_ministeres's and test_tui_edgar_lucien's (Ministères
#: for two runs to some 330 moves); here the end of a game and what follows it
AHEAD = {"ministeres": 260, "edgar-lucien": 130}


@pytest.mark.parametrize("game_id", GAMES)
@run_async
async def test_each_game_played_to_its_end_by_keyboard_then_replayed(tmp_path: Path, game_id: str) -> None:
    match = table(game_id, seed=7)
    writer = start_save(tmp_path, match, durable=False)
    ahead = Table(match, writer)
    while game_id in AHEAD and (len(match.moves) < AHEAD[game_id] or 0 not in match.active()):
        seat = match.active()[0]
        bot = bot_for(match, seat, "random")
        legal = match.game.legal(match.state, seat)
        assert ahead.submit(seat, bot.choose(match.game, match.game.view(match.state, seat), legal)) is None
    assert match.outcome is None
    from tui.start import Start

    app = CabinetApp(
        save_dir=tmp_path, start=Start(mode="play", match=match, path=writer.path, writer=writer), bot_delay=0.0
    )
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        for _ in range(5000):
            await through_dialogs(pilot)
            if match.outcome is not None:
                break
            if not isinstance(app.screen, PlayScreen):
                # a game's own dialog (1988's campaign draw): chosen by keyboard too
                before = match.move_count
                for _ in range(3):  # a choice in steps: the card, then what it removes
                    await pilot.press("enter")
                    await through_dialogs(pilot)
                    if match.move_count > before:
                        break
                assert match.move_count > before or isinstance(app.screen, PlayScreen), screen_text(app)
            elif 0 in match.active():
                await make_a_move(pilot, screen)
        assert match.outcome is not None
        await settle(pilot)
        assert isinstance(app.screen, GameOver)
        text = screen_text(app)
        assert "Game over" in text and "Final" in text  # who won, and the score that says why
        await pilot.press("enter")  # look at the table
        assert isinstance(app.screen, PlayScreen)
        keys = footer_keys(app)
        assert "u" not in keys  # nothing to take back in a finished game
        assert "r" in keys
        await pilot.press("r")
        assert isinstance(app.screen, ReplayScreen)
        replay = app.screen
        assert replay.position == replay.last
        await pilot.press("left")
        assert replay.position < replay.last
        await pilot.press("q")
        assert isinstance(app.screen, PlayScreen)
        await pilot.press("q")
        assert isinstance(app.screen, MainMenu)
    assert load(writer.path).match.outcome == match.outcome


@run_async
async def test_the_menus_replay_of_a_game_in_play_shows_no_hand(saves) -> None:
    """Replay a game, a game still in play: as the public sees it, and v takes no
    other eyes (the terminal's user may not be the player whose hand it is), as
    ``cabinet replay`` does; a finished game is shown with everything revealed."""
    from core.engine import ALL, PUBLIC

    directory, _unfinished = saves
    infos = list_saves(directory)
    app = CabinetApp(save_dir=directory, bot_delay=0.0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for finished in (False, True):
            await pilot.press("home", "down", "down", "down", "enter")  # Replay a game
            await pilot.pause()
            assert isinstance(app.screen, SaveListScreen)
            row = next(i for i, info in enumerate(infos) if info.finished == finished)
            await pilot.press(*["down"] * row, "enter")
            await pilot.pause()
            replay = app.screen
            assert isinstance(replay, ReplayScreen)
            assert replay.viewer == (ALL if finished else PUBLIC)
            await pilot.press("v")
            assert (replay.viewer == PUBLIC) != finished  # in play: still the public's eyes
            await pilot.press("q")
            await pilot.pause()
            # back in the list, on the save just replayed
            assert isinstance(app.screen, SaveListScreen)
            from textual.widgets import DataTable

            assert app.screen.query_one(DataTable).cursor_row == row
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, MainMenu)


@pytest.mark.parametrize("game_id", GAMES)
@run_async
async def test_escape_leaves_the_replay_of_each_game(saves, game_id: str) -> None:
    directory, _unfinished = saves
    info = next(i for i in list_saves(directory) if i.finished and i.game == game_id)
    app = CabinetApp(save_dir=directory)
    async with app.run_test(size=SIZE) as pilot:
        app.open_replay(load(info.path).match, info.path)
        await pilot.pause()
        assert isinstance(app.screen, ReplayScreen)
        await pilot.press("home", "right", "end")
        await pilot.press("escape")
        assert isinstance(app.screen, MainMenu)
