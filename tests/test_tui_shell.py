"""What every table screen shares: news in the history, refusals that say why,
notifications that stay at the table, a terminal too small, selections without colour."""

from __future__ import annotations

from pathlib import Path

import pytest

from screens.app import CabinetApp
from screens.menu import MainMenu
from screens.new_game import NewGameScreen
from screens.play import PlayScreen
from table import Table
from tests.tui_helpers import play_app, run_async, screen_text, settle
from tui.widgets import HistoryPanel


def messages(app: CabinetApp) -> list[str]:
    return [n.message for n in app._notifications]


@run_async
async def test_the_history_marks_what_happened_since_your_last_move(tmp_path: Path) -> None:
    app = play_app(tmp_path, humans=1, players=3, seed=4)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, PlayScreen)
        match = screen.match
        history = screen.query_one(HistoryPanel)
        for _ in range(6):  # until a bot has played after our card
            await pilot.press("1")
            await settle(pilot)
            own = max(m.end for m in match.moves if m.seat == 0)
            if match.moves[-1].seat != 0:
                break
        news = [str(history.get_option_at_index(i).prompt) for i, n in enumerate(history.event_index) if n > own]
        old = [str(history.get_option_at_index(i).prompt) for i, n in enumerate(history.event_index) if n <= own]
        # the bots have played since our card: their lines carry the mark, ours do not
        assert news and all(line.startswith("• ") for line in news)
        assert not any(line.startswith("• ") for line in old)
        assert any("Bastien" in line for line in news)
        # and the panel shows the newest line
        assert history.scroll_y == history.max_scroll_y
        # once we play again, the old news is no longer marked
        await pilot.press("1")
        await settle(pilot)
        own = max(m.end for m in match.moves if m.seat == 0)
        for i, n in enumerate(history.event_index):
            assert str(history.get_option_at_index(i).prompt).startswith("• ") == (n > own)


@run_async
async def test_new_lines_of_history_are_in_view_in_the_frame_that_first_draws_them(tmp_path: Path) -> None:
    """Not one frame with the new lines below the panel's edge, then another scrolled to them:
    the panel is at its new end before anything is drawn (over SSH every frame costs)."""
    app = play_app(tmp_path, humans=1, players=3, seed=4)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        history = app.screen.query_one(HistoryPanel)
        history.append_lines([(1000 + i, f"Line {i}", None) for i in range(40)])
        assert history.max_scroll_y > 0 and history.scroll_y == history.max_scroll_y
        await settle(pilot)
        assert "Line 39" in screen_text(app)


@run_async
async def test_take_back_says_why_it_cannot_at_a_table_against_a_bot_and_at_a_hot_seat(tmp_path: Path) -> None:
    """One rule everywhere (the table's): the key is offered while the game is played, and says why
    when the move may not be taken back."""
    app = play_app(tmp_path, humans=1, players=2, seed=9)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, PlayScreen)
        if screen.match.move_count == 0 or 0 in screen.match.active():
            assert "Take back" in screen_text(app)
            if not any(m.seat == 0 for m in screen.match.moves):
                await pilot.press("u")
                assert "You have made no move yet to take back." in messages(app)
    hot = play_app(tmp_path, humans=2, players=2, seed=9)
    async with hot.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("enter")  # the curtain
        await settle(pilot)
        assert isinstance(hot.screen, PlayScreen)
        assert "Take back" in screen_text(hot)
        await pilot.press("u")
        assert "You have made no move yet to take back." in messages(hot)


@run_async
async def test_notifications_stay_at_the_table(tmp_path: Path) -> None:
    app = play_app(tmp_path, humans=1, players=2, seed=9)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.screen.notify("Something about this game.")
        assert "Main menu" in {
            command.title for command in app.get_system_commands(app.screen)
        }  # the palette's way back
        await pilot.press("q")
        assert isinstance(app.screen, MainMenu)
        assert "Something about this game." not in messages(app)
        assert any("Continue it from the menu" in m for m in messages(app))
        assert app.NOTIFICATION_TIMEOUT <= 5


@run_async
async def test_the_menus_notice_of_the_game_left_is_not_carried_to_the_next_table(tmp_path: Path) -> None:
    """Left for the menu, a game says where it is saved; the next game opened at once, a new one
    or Continue, does not show that notice over its own table (it was about the game before)."""
    app = play_app(tmp_path, humans=1, players=2, seed=9)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("q")
        await settle(pilot)
        assert isinstance(app.screen, MainMenu) and any("Continue it from the menu" in m for m in messages(app))
        await pilot.press("home", "enter")  # New game
        await settle(pilot)
        assert isinstance(app.screen, NewGameScreen) and messages(app) == []
        await pilot.press("ctrl+s")  # Start
        await settle(pilot)
        assert isinstance(app.screen, PlayScreen) and messages(app) == []
        await pilot.press("q")
        await settle(pilot)
        assert isinstance(app.screen, MainMenu) and any("Continue it from the menu" in m for m in messages(app))
        await pilot.press("home", "down", "enter")  # Continue
        await settle(pilot)
        assert isinstance(app.screen, PlayScreen) and not any("Continue it from the menu" in m for m in messages(app))


@run_async
async def test_the_new_game_form_opens_on_the_game_last_played(tmp_path: Path) -> None:
    """Left for the menu after a game of Ministères, New game offers Ministères (its usual
    players), where a session that has played nothing yet is offered the first game."""
    from textual.widgets import Select

    from core.games import all_games
    from tests.test_tui_ministeres import mi_app

    app = mi_app(tmp_path, players=2)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("q")
        await settle(pilot)
        await pilot.press("home", "enter")  # New game
        await settle(pilot)
        assert isinstance(app.screen, NewGameScreen)
        assert app.screen.query_one("#game", Select).value == "ministeres"
        assert "Ministères" in screen_text(app)
    fresh = CabinetApp(save_dir=tmp_path / "none", bot_delay=0.0)
    async with fresh.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("home", "enter")
        await settle(pilot)
        assert fresh.screen.query_one("#game", Select).value == next(iter(all_games()))


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
@run_async
async def test_a_notice_at_a_table_sits_over_the_historys_foot_not_the_board(tmp_path: Path, size) -> None:
    """A refusal's notice is read where the history is, never over the board: the hand and the
    choices the player acts on stay whole while it shows (it covered their right half)."""
    from textual.widgets._toast import Toast

    from tests.tui_helpers import toasts_text

    app = play_app(tmp_path, humans=1, players=2, seed=9)
    async with app.run_test(size=size, notifications=True) as pilot:  # the toasts drawn
        await settle(pilot)
        await pilot.press("u")
        await settle(pilot)
        assert messages(app) == ["You have made no move yet to take back."], messages(app)
        assert toasts_text(app) == messages(app)
        toast = app.screen.query_one(Toast).region
        history, board = app.screen.query_one("#history").region, app.screen.query_one("#board").region
        assert not toast.overlaps(board), (toast, board)
        assert history.x < toast.x and toast.right < history.right and toast.bottom <= history.bottom


async def left_then_continued(pilot, path: Path) -> None:
    """q at the table of ``path``: the menu's notice says Continue takes it up, and Continue does."""
    app = pilot.app
    await pilot.press("q")
    await settle(pilot)
    assert isinstance(app.screen, MainMenu)
    assert f"Saved: {path.name}. Continue it from the menu." in messages(app)
    await pilot.press("home", "down", "enter")  # Continue
    await settle(pilot)
    assert isinstance(app.screen, PlayScreen) and app.screen.feed.path == path


@run_async
async def test_continue_opens_the_game_just_left_as_its_notice_says(tmp_path: Path) -> None:
    """A game opened and left without a move is not the most recently played one; the menu's
    notice says "Continue it from the menu", and Continue opens that one, not the latest."""
    from screens.save_list import open_save
    from tests.tui_helpers import agent_jean_match
    from tui.session import start_save

    paths = []
    for seed in (3, 5):  # the second is written last: the most recently played (the bots move first in neither)
        with start_save(tmp_path, agent_jean_match(1, 2, seed), durable=False) as writer:
            paths.append(writer.path)
    older, newer = paths
    app = CabinetApp(save_dir=tmp_path, bot_delay=0.0)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert open_save(app, older, replay=False)
        await settle(pilot)
        assert isinstance(app.screen, PlayScreen) and app.screen.feed.path == older
        await left_then_continued(pilot, older)
        # a game played since, and left: Continue opens that one now
        await pilot.press("q")
        await settle(pilot)
        assert open_save(app, newer, replay=False)
        await settle(pilot)
        await pilot.press("q")
        await settle(pilot)
        await pilot.press("home", "down", "enter")
        await settle(pilot)
        assert isinstance(app.screen, PlayScreen) and app.screen.feed.path == newer


@run_async
async def test_continue_opens_a_game_left_in_another_folder_though_one_of_its_name_is_in_the_saves(
    tmp_path: Path,
) -> None:
    """A save opened from elsewhere (``cabinet load PATH``), played and left: the notice says
    "Continue it from the menu", and Continue opens it there, not an older copy of the same
    name in the save directory."""
    import shutil

    from screens.save_list import open_save
    from tests.tui_helpers import agent_jean_match
    from tui.session import start_save

    saves, elsewhere = tmp_path / "saves", tmp_path / "elsewhere"
    with start_save(elsewhere, agent_jean_match(1, 2, 3), durable=False) as writer:
        there = writer.path
    saves.mkdir()
    shutil.copy(there, saves / there.name)  # the same game, as it was when copied
    app = CabinetApp(save_dir=saves, bot_delay=0.0)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert open_save(app, there, replay=False)
        await settle(pilot)
        await pilot.press("enter")  # a move, so that the two files differ
        await settle(pilot)
        assert len(app.screen.feed.match.moves) > 1 and there.read_bytes() != (saves / there.name).read_bytes()
        await left_then_continued(pilot, there)


@run_async
async def test_leaving_a_finished_game_says_where_it_is_kept_and_continue_passes_it_over(tmp_path: Path) -> None:
    """q at a game over: the menu says where the game is kept and how to see it again (it
    said nothing); Continue does not offer it."""
    from screens.save_list import open_save
    from table import Table
    from tests.tui_helpers import agent_jean_match
    from tui.session import start_save

    with start_save(tmp_path, agent_jean_match(1, 2, 3), durable=False) as writer:
        Table(writer.match, writer).play_out()
        path = writer.path
    app = CabinetApp(save_dir=tmp_path, bot_delay=0.0)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert open_save(app, path, replay=False)
        await settle(pilot)
        assert type(app.screen).__name__ == "GameOver"  # its footer: q Menu
        await pilot.press("q")
        await settle(pilot)
        assert isinstance(app.screen, MainMenu)
        assert f"The game is kept in {path.name}: Replay a game, in the menu, shows it again." in messages(app)
        assert app.left_last is None
    # opened from another folder, which the menu's Replay does not list: its path said whole
    app = CabinetApp(save_dir=tmp_path / "elsewhere", bot_delay=0.0)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert open_save(app, path, replay=False)
        await settle(pilot)
        await pilot.press("q")
        await settle(pilot)
        assert f"The game is kept in {path}." in messages(app)


@run_async
async def test_quitting_at_a_table_leaves_the_terminal_with_where_the_game_is_saved(tmp_path: Path) -> None:
    """ctrl+q at a table: the terminal, once the app is gone, says how to take the game up
    again; quitting from the menu, after the game was left, says nothing more."""
    import shlex

    app = play_app(tmp_path, humans=1, players=2, seed=9)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        path = app.screen.feed.path
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert app.goodbye() == (
        f"Your game is saved: cabinet load {shlex.quote(str(path))} takes it up again (or Continue in the menu)."
    )
    app = play_app(tmp_path, humans=1, players=2, seed=9)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("q")
        await settle(pilot)
        assert isinstance(app.screen, MainMenu)
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert app.goodbye() is None


@run_async
async def test_the_menus_notice_of_a_game_left_shows_the_saves_name_whole(tmp_path: Path) -> None:
    from core.games import get_game
    from tests.tui_helpers import app_for
    from tui.session import new_match, start_save

    game = get_game("chirac-mitterrand")  # the longest game's name, the longest save's
    controllers = [{"kind": "human"}, {"kind": "bot", "level": "random"}]
    app = app_for(tmp_path, start_save(tmp_path, new_match(game, 2, [{}, {}], controllers, seed=9, bot_seed=9)))
    async with app.run_test(size=(80, 24), notifications=True) as pilot:  # the toasts drawn
        await settle(pilot)
        name = app.screen.feed.path.name
        await pilot.press("q")
        await settle(pilot)
        assert isinstance(app.screen, MainMenu)
        assert any(name in line for line in screen_text(app).splitlines()), screen_text(app)


@run_async
async def test_a_terminal_too_small_says_so_and_nothing_is_lost(tmp_path: Path) -> None:
    app = play_app(tmp_path, humans=1, players=2, seed=9)
    async with app.run_test(size=(70, 20)) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert "70x20" in text and "80x24" in text and "Enlarge the terminal" in text
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        text = screen_text(app)
        assert "Enlarge" not in text
        assert "Your hand" in text


@run_async
async def test_without_colours_the_selection_still_stands_out(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = CabinetApp(save_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        options = app.screen.query_one("#menu-options")
        style = options.get_visual_style("option-list--option", "option-list--option-highlighted")
        assert style.bold and style.underline
        plain = options.get_visual_style("option-list--option")
        assert not plain.underline


@run_async
async def test_a_replay_step_clears_news_of_another_moment(tmp_path: Path) -> None:
    from saves import load
    from screens.replay import ReplayScreen
    from tests.tui_helpers import agent_jean_match
    from tui.session import start_save

    match = agent_jean_match(humans=0, players=2, seed=3)
    writer = start_save(tmp_path, match, durable=False)
    Table(match, writer).play_out()
    writer.close()
    app = CabinetApp(save_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_replay(load(writer.path).match, writer.path, at=3)
        await pilot.pause()
        assert isinstance(app.screen, ReplayScreen)
        app.notify("End of the round: Round 1")
        await pilot.press("right")
        assert "End of the round: Round 1" not in messages(app)


@run_async
async def test_a_game_in_play_replayed_from_the_command_line_stays_public(tmp_path: Path) -> None:
    from core.engine import PUBLIC
    from screens.replay import ReplayScreen
    from tests.tui_helpers import agent_jean_match
    from tui.session import start_save
    from tui.start import Start

    match = agent_jean_match(humans=1, players=2, seed=3)
    writer = start_save(tmp_path, match, durable=False)
    writer.close()
    start = Start(mode="replay", match=match, path=writer.path, viewer=PUBLIC, locked=True)
    app = CabinetApp(save_dir=tmp_path, start=start)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, ReplayScreen)
        await pilot.press("v")
        assert app.screen.viewer == PUBLIC  # never a seat's hand, never everything revealed
        assert "Eyes" not in screen_text(app)


class _HallNeverAnswers:
    """A served session's hall that is slow to answer: the app stays as it starts."""

    async def connect(self) -> None:
        import asyncio

        await asyncio.Event().wait()


@run_async
async def test_a_served_session_writes_nothing_on_the_servers_machine(tmp_path: Path, monkeypatch) -> None:
    """Textual's screenshot (and its other ways to write a file, open a browser or stop the
    process) belongs to the player's own machine; a served session runs on the operator's."""
    from tui.start import Start

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    app = CabinetApp(tmp_path / "saves", Start(mode="lobby", remote=_HallNeverAnswers()))
    async with app.run_test(size=(80, 24)) as pilot:
        titles = {command.title for command in app.get_system_commands(app.screen)}
        assert "Screenshot" not in titles and {"Keys", "Quit", "Rules"} <= titles and "Main menu" not in titles
        app.action_screenshot()  # as an action named in text would
        app.action_screenshot("x.svg", str(tmp_path))
        assert app.save_screenshot("y.svg", str(tmp_path)) == ""
        app.deliver_screenshot()
        app.deliver_text(__import__("io").StringIO("secret"), save_filename="z.txt", save_directory=str(tmp_path))
        app.open_url("https://example.com/")
        app.action_suspend_process()
        await pilot.pause()
        assert sorted(p.name for p in tmp_path.rglob("*") if p.name != "saves") == [], "no file written anywhere"
        assert messages(app) and all(m == CabinetApp.SERVED_REFUSAL for m in messages(app))

    local = CabinetApp(tmp_path / "saves")  # on the player's own machine, the screenshot is theirs
    async with local.run_test(size=(80, 24)) as pilot:
        titles = {command.title for command in local.get_system_commands(local.screen)}
        assert "Screenshot" in titles and "Main menu" not in titles  # (at the main menu)
        local.action_screenshot("mine.svg", str(tmp_path))
        await pilot.pause()
        assert (tmp_path / "mine.svg").exists()


@run_async
async def test_behind_the_too_small_notice_no_key_acts_but_leaving(tmp_path: Path) -> None:
    """At 40x12 the table is not drawn: h, u, ? and r do nothing there (a move taken back unseen,
    the rules drawn at 40 columns); the footer offers only the menu; q still leaves."""
    app = play_app(tmp_path, humans=1, players=2, seed=9)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, PlayScreen)
        await pilot.resize_terminal(40, 12)
        await pilot.pause()
        moves = len(screen.match.moves)
        for key in ("h", "u", "question_mark", "r"):
            await pilot.press(key)
            await pilot.pause()
            assert app.screen is screen and len(screen.match.moves) == moves
        assert not any("take back" in m.lower() for m in messages(app))
        assert [b.action for (_, b, enabled, _) in screen.active_bindings.values() if b.show and enabled] == ["menu"]
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert "Take back" in screen_text(app)
        await pilot.resize_terminal(40, 12)
        await pilot.pause()
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, MainMenu)
