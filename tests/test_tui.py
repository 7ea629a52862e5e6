"""The screens, driven by key presses as a player would."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import ClassVar

import pytest
from textual import events as events_module
from textual.widgets import Static

from core.bots import choose_safely
from core.engine import ALL, Bot
from core.games import all_games
from saves import load
from screens.app import CabinetApp
from screens.games.agent_jean.board import AgentJeanBoard, HandRow
from screens.menu import MainMenu
from screens.new_game import NewGameScreen
from screens.play import PlayScreen
from screens.replay import ReplayScreen
from screens.rules import RulesScreen
from table import Table
from table.bots import BotTurn, think
from tests.tui_helpers import NAMES, agent_jean_match, play_app, run_async, screen_text, settle
from tui.session import start_save
from tui.widgets import Curtain, GameOver, ScoreSheetDialog


def play_screen(app: CabinetApp) -> PlayScreen:
    return next(s for s in app.screen_stack if isinstance(s, PlayScreen))


async def human_turn(pilot) -> None:
    """Play the first legal thing the board offers: a choice, else card 1."""
    board = pilot.app.screen.query_one(AgentJeanBoard)
    if board.choices:
        await pilot.press("enter")
    else:
        await pilot.press("1")


# -- whole games ---------------------------------------------------------------


@run_async
async def test_a_whole_game_against_a_bot_through_key_presses(tmp_path: Path) -> None:
    app = play_app(tmp_path, humans=1, players=2, seed=11)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = play_screen(app)
        match = screen.match
        rounds_read = 0
        for _ in range(3000):
            await settle(pilot)
            if match.outcome is not None:
                break
            if isinstance(app.screen, ScoreSheetDialog):
                await pilot.pause()
                text = screen_text(app)
                assert "Round" in text  # the round's score, read before play goes on
                for column in app.screen.sheet.columns:  # whole, not cut to fit a narrow box
                    assert column in text
                rounds_read += 1
                await pilot.press("enter")
                continue
            if 0 in match.active() and isinstance(app.screen, PlayScreen):
                before = len(match.events)
                await human_turn(pilot)
                await settle(pilot)
                assert len(match.events) > before, "a key press of the player did nothing"
        assert match.outcome is not None
        assert rounds_read >= 1
        assert isinstance(app.screen, GameOver)
        assert "Final" in screen_text(app)  # why the game was won: the score sheet
        # What was played is on disk, move by move.
        saved = load(screen.path)
        assert saved.match.events == match.events
        assert saved.match.outcome == match.outcome
        await pilot.press("m")
        assert isinstance(app.screen, MainMenu)


@run_async
async def test_hot_seat_passes_the_terminal_behind_a_curtain(tmp_path: Path) -> None:
    app = play_app(tmp_path, humans=2, players=2, seed=5)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, Curtain)
        screen = play_screen(app)
        match = screen.match
        first = match.active()[0]
        await pilot.press("enter")
        assert isinstance(app.screen, PlayScreen)
        assert screen.viewer == first
        hand = app.screen.query_one(HandRow).hand
        assert hand == match.game.view(match.state, first)["hand"]
        await pilot.press("1")
        await settle(pilot)
        # The other player's turn: the table is hidden until they are ready.
        assert isinstance(app.screen, Curtain)
        assert str(NAMES[1 - first]) in app.screen.player
        await pilot.press("enter")
        assert screen.viewer == 1 - first
        assert app.screen.query_one(HandRow).hand == match.game.view(match.state, 1 - first)["hand"]


@run_async
async def test_a_bad_command_is_explained_and_changes_nothing(tmp_path: Path) -> None:
    app = play_app(tmp_path, humans=1, players=2, seed=11)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = play_screen(app)
        before = list(screen.match.events)
        # Not the player's card: the board would never offer it; the core refuses it.
        foreign = next(c for c in screen.match.game.view(screen.match.state, ALL)["players"][1]["hand_cards"])
        from tui.widgets import Board

        screen.query_one(AgentJeanBoard).post_message(Board.Chosen({"t": "PlayCard", "card": foreign}))
        await pilot.pause()
        assert screen.match.events == before
        assert any("hand" in n.message.lower() or "move" in n.message.lower() for n in app._notifications)


@run_async
async def test_take_back_a_move_before_the_bot_answers(tmp_path: Path) -> None:
    app = play_app(tmp_path, humans=1, players=2, seed=11)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = play_screen(app)
        match = screen.match
        await settle(pilot)
        while 0 not in match.active():
            await settle(pilot)
        hand = list(match.game.view(match.state, 0)["hand"])
        moves = len(match.moves)
        app.bot_delay = 30.0  # the bot waits: there is time to change one's mind
        await pilot.press("1")
        await pilot.pause()
        if len(match.moves) == moves + 1 and 0 not in match.active():
            await pilot.press("u")
            await pilot.pause()
            assert len(match.moves) == moves
            assert match.game.view(match.state, 0)["hand"] == hand
            assert len(load(screen.path).match.moves) == moves  # the save was cut back too
        else:
            pytest.fail("the position did not allow a take-back")


@run_async
async def test_browsing_history_does_not_change_the_game(tmp_path: Path) -> None:
    app = play_app(tmp_path, humans=1, players=2, seed=11)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = play_screen(app)
        match = screen.match
        for _ in range(4):
            await settle(pilot)
            if 0 in match.active():
                await human_turn(pilot)
        await settle(pilot)
        events = list(match.events)
        # h opens the history on the present; the first ↑ is already one line back
        await pilot.press("h")
        assert screen.browsing is None and "Looking back" not in str(screen.query_one("#status").render())
        await pilot.press("up")
        assert screen.browsing is not None and screen.browsing < len(events)
        assert "Looking back" in str(screen.query_one("#status").render())
        await pilot.press("home")
        assert screen.browsing is not None and screen.browsing < len(events)
        first = screen.browsing
        await pilot.press("up")  # the first line is as far back as it goes: no wrapping round to now
        assert screen.browsing == first
        assert "Looking back" in str(screen.query_one("#status").render())
        await pilot.press("escape")
        assert screen.browsing is None
        assert match.events == events
        # h and ↑ read at once (a slow link delivers them in one packet): ↑ is still one step back
        app._driver.send_message(events_module.Key("h", "h"))
        app._driver.send_message(events_module.Key("up", None))
        await pilot.pause()
        await pilot.pause()
        assert screen.browsing is not None and screen.browsing < len(events)
        assert "Looking back" in str(screen.query_one("#status").render())


# -- replay --------------------------------------------------------------------


def finished_save(tmp_path: Path, seed: int = 3):
    match = agent_jean_match(humans=0, players=3, seed=seed)
    writer = start_save(tmp_path, match, durable=False)
    Table(match, writer).play_out()
    return writer


@run_async
async def test_replay_steps_jumps_and_changes_eyes(tmp_path: Path) -> None:
    writer = finished_save(tmp_path)
    loaded = load(writer.path)
    app = CabinetApp(save_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_replay(loaded.match, writer.path, at=0)
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        match = loaded.match
        moves = match.moves
        # A step is a move: what one player did, with all that followed from it.
        assert screen.position == moves[0].end
        await pilot.press("right", "right")
        assert screen.position == moves[2].end
        assert "move 2/" in str(screen.query_one("#status", Static).render())
        await pilot.press("left")
        assert screen.position == moves[1].end
        await pilot.press("end")
        assert screen.position == len(match.events)
        assert f"move {match.move_count}/{match.move_count}" in str(screen.query_one("#status", Static).render())
        await pilot.press("home", "right_square_bracket")
        turn = screen.position
        # the next turn: the move in which a new turn began, shown complete
        assert turn in [m.end for m in moves]
        mover = next(m for m in moves[1:] if m.end == turn)
        assert any(match.game.mark(ev) in ("turn", "round") for ev in match.events[mover.start : mover.end])
        await pilot.press("right_curly_bracket")
        mover = next((m for m in moves[1:] if m.end == screen.position), None)
        assert screen.position == screen.last or any(
            match.game.mark(ev) == "round" for ev in match.events[mover.start : mover.end]
        )
        assert screen.viewer == ALL
        await pilot.press("v")
        assert screen.viewer == 0
        board = screen.query_one(AgentJeanBoard)
        assert board.view["seat"] == 0 and board.view["hand"] is not None


@run_async
async def test_play_on_from_here_forks_a_new_save(tmp_path: Path) -> None:
    writer = finished_save(tmp_path)
    original = writer.path.read_bytes()
    loaded = load(writer.path)
    # every seat is a bot: held back an hour, none plays on before the fork is checked
    # (at the default delay a loaded machine let one move in: 13 moves, not 12)
    app = CabinetApp(save_dir=tmp_path, bot_delay=3600)
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_replay(loaded.match, writer.path, at=12)
        await pilot.pause()
        await pilot.press("p")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, PlayScreen)
        assert screen.path != writer.path
        assert screen.match.events == loaded.match.events[: len(screen.match.events)]
        assert screen.match.move_count == 12
        assert screen.match.outcome is None
        # a game of bots only: the player takes a seat (the first, the replay showing everything)
        assert [screen.match.is_bot(seat) for seat in range(3)] == [False, True, True]
        assert any("you play" in n.message for n in app._notifications)
        # through another seat's eyes, that seat
        app.pop_screen()
        app.open_replay(loaded.match, writer.path, at=12)
        await pilot.pause()
        await pilot.press("v", "v", "p")  # the first seat's eyes, then the second's (1, counted from 0)
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, PlayScreen)
        assert [screen.match.is_bot(seat) for seat in range(3)] == [True, False, True]
        # at the last move of a game over there is nothing to play on: said, no save made
        app.pop_screen()
        app.open_replay(loaded.match, writer.path)
        await pilot.pause()
        await pilot.press("end", "p")
        await pilot.pause()
        assert not isinstance(app.screen, PlayScreen)
        said = "The game is over here: step back (←) to the move to play on from, then p."
        assert said in [n.message for n in app._notifications]
        assert len(list(tmp_path.glob("*.cab"))) == 3  # the game and the two played on from move 12
    assert writer.path.read_bytes() == original


# -- menus -------------------------------------------------------------------------


@run_async
async def test_new_game_dialog_starts_a_game(tmp_path: Path) -> None:
    app = CabinetApp(save_dir=tmp_path, bot_delay=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")  # New game
        await pilot.pause()
        assert isinstance(app.screen, NewGameScreen)
        await pilot.press("ctrl+s")
        await settle(pilot)
        screen = play_screen(app)
        assert screen.match.header["players"] == 2
        assert screen.match.is_bot(1) and not screen.match.is_bot(0)
        assert screen.match.header["seats"][1]["level"] == screen.match.game.default_bot_level
        assert list(tmp_path.glob("*.cab")) == [screen.path]


@run_async
async def test_the_new_game_dialog_offers_a_variant_only_to_games_it_changes(tmp_path: Path) -> None:
    """1988's solo difficulty is offered for a solo game, not for two players."""
    from textual.widgets import Select

    app = CabinetApp(save_dir=tmp_path, bot_delay=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")  # New game
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, NewGameScreen)
        screen.query_one("#game", Select).value = "chirac-mitterrand"
        await settle(pilot)
        assert screen.players == 2
        assert "Electoral Campaign cards" in screen_text(app) and "Solo difficulty" not in screen_text(app)
        screen.query_one("#players", Select).value = 1
        await settle(pilot)
        assert "Solo difficulty" in screen_text(app)
        screen.query_one("#variant-solo", Select).value = "hard"
        assert screen.chosen_variants()["solo"] == "hard"
        screen.query_one("#players", Select).value = 2
        await settle(pilot)
        assert "Solo difficulty" not in screen_text(app)
        assert screen.chosen_variants()["solo"] == "standard"  # a game of two is given the default


def test_the_new_game_dialog_offers_every_bot_level() -> None:
    from screens.new_game import who_choices

    for game in all_games().values():
        assert [value for _, value in who_choices(game)] == [
            "human",
            "bot:random",
            "bot:easy",
            "bot:normal",
            "bot:hard",
        ]


class HeldBot:
    """A bot's thinking that goes on until the test lets it answer (in a thread, as the
    screen's own does)."""

    def __init__(self) -> None:
        self.go = threading.Event()

    async def __call__(self, turn: BotTurn) -> tuple[dict, str | None]:
        def wait_then_think() -> tuple[dict, str | None]:
            assert self.go.wait(10), "the test never let the bot answer"
            return think(turn)

        return await asyncio.to_thread(wait_then_think)


@run_async
async def test_the_screen_says_a_bot_is_thinking_and_stays_usable(tmp_path: Path) -> None:
    """A bot thinks in a worker: while it does, the status line says so and
    the keys still work; its move lands when it is done."""
    app = play_app(tmp_path, humans=1, players=2, seed=11)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = play_screen(app)
        match = screen.match
        await settle(pilot)
        assert 0 in match.active()
        held = screen.runner.think = HeldBot()
        await pilot.press("1")
        await pilot.pause()
        assert screen.runner.thinking == 1
        assert "Bastien is thinking…" in str(screen.query_one("#status", Static).render())
        moves = len(match.moves)
        await pilot.press("question_mark")  # the rules open while the bot thinks
        await pilot.pause()
        assert isinstance(app.screen, RulesScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen and screen.runner.thinking == 1 and len(match.moves) == moves
        held.go.set()
        await settle(pilot)
        assert screen.runner.thinking is None and len(match.moves) > moves and match.moves[moves].seat == 1
        assert "Bastien is thinking" not in str(screen.query_one("#status", Static).render())


class BrokenBot(Bot):
    """A bot with a bug in it."""

    level = "hard"

    def choose(self, game, view, legal, known=None):
        raise ZeroDivisionError("float division by zero")


@run_async
async def test_a_bot_that_fails_is_played_around_and_reported(tmp_path: Path) -> None:
    """A bug in a bot does not end the game: the easy bot moves for it, and
    one sentence says what happened."""
    app = play_app(tmp_path, humans=1, players=2, seed=11)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = play_screen(app)
        match = screen.match
        await settle(pilot)

        async def broken(turn: BotTurn) -> tuple[dict, str | None]:
            return choose_safely(match.game, BrokenBot(), turn.view, turn.legal, turn.known)

        screen.runner.think = broken
        moves = len(match.moves)
        await pilot.press("1")
        await settle(pilot)
        assert len(match.moves) > moves + 1 and match.moves[moves + 1].seat == 1
        said = [n.message for n in app._notifications]
        assert any("Bastien: the hard bot failed (ZeroDivisionError" in m and "easy bot moved" in m for m in said)


@run_async
async def test_continue_reopens_the_latest_unfinished_game(tmp_path: Path) -> None:
    match = agent_jean_match(humans=1, players=2, seed=4)
    writer = start_save(tmp_path, match)
    writer.close()
    app = CabinetApp(save_dir=tmp_path, bot_delay=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("down", "enter")  # Continue
        await settle(pilot)
        screen = play_screen(app)
        assert screen.path == writer.path
        assert screen.match.events[: len(match.events)] == match.events


@run_async
async def test_a_damaged_save_is_one_sentence_in_the_load_list(tmp_path: Path) -> None:
    (tmp_path / "broken.cab").write_bytes(b"this is not a save")
    app = CabinetApp(save_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("down", "down", "enter")  # Load
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert any("broken.cab" in n.message for n in app._notifications)
        assert (tmp_path / "broken.cab").read_bytes() == b"this is not a save"


# -- snapshots -------------------------------------------------------------------


def test_snapshot_main_menu(snap_compare, tmp_path: Path) -> None:
    assert snap_compare(CabinetApp(save_dir=tmp_path), terminal_size=(80, 24))


def test_snapshot_new_game(snap_compare, tmp_path: Path) -> None:
    assert snap_compare(CabinetApp(save_dir=tmp_path), press=["enter", "_"], terminal_size=(80, 24))


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_snapshot_agent_jean_in_play(snap_compare, tmp_path: Path, size) -> None:
    app = play_app(tmp_path, humans=1, players=3, seed=21)
    assert snap_compare(app, terminal_size=size, run_before=settle)


def test_snapshot_curtain(snap_compare, tmp_path: Path) -> None:
    app = play_app(tmp_path, humans=2, players=2, seed=21)
    assert snap_compare(app, terminal_size=(80, 24), run_before=settle)


def test_snapshot_replay(snap_compare, tmp_path: Path) -> None:
    """Opened at move 30, the history shows (and highlights) the lines of move 30, not the end."""
    writer = finished_save(tmp_path, seed=9)
    loaded = load(writer.path)
    app = CabinetApp(save_dir=tmp_path)

    async def open_it(pilot) -> None:
        app.open_replay(loaded.match, writer.path, at=30)
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=open_it)


def test_every_game_carries_its_rules_document() -> None:
    from core.games import game_titles
    from screens.rules import rules_text

    root = Path(__file__).resolve().parent.parent
    for game_id, _title in game_titles().items():
        text = rules_text(game_id)
        assert text == (root / "docs" / "rules" / f"{game_id}.md").read_text(encoding="utf-8")
        assert "## Decisions" in text


@run_async
async def test_the_rules_screen_shows_each_game(tmp_path: Path) -> None:
    from textual.containers import VerticalScroll
    from textual.widgets import Tabs

    app = CabinetApp(save_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_rules("chirac-mitterrand")
        await pilot.pause()
        screen = app.screen
        assert screen.query_one(Tabs).active == "rules-chirac-mitterrand"
        assert "Chirac" in screen_text(app)
        # the keys the footer shows work at once, without Tab first
        text = screen.query_one("#rules-text", VerticalScroll)
        await pilot.press("pagedown")
        await pilot.pause()
        assert text.scroll_y > 0
        await pilot.press("right")
        await pilot.pause()
        assert screen.query_one(Tabs).active != "rules-chirac-mitterrand"
        assert text.scroll_y == 0
        await pilot.press("q")
        assert not isinstance(app.screen, RulesScreen)


@run_async
async def test_the_footer_follows_the_focus_where_its_keys_differ() -> None:
    """Where the focus brings other keys, the footer shows them; where it brings the
    same, it stays as it is."""
    from textual.app import App, ComposeResult
    from textual.binding import Binding, BindingType
    from textual.widgets import Button
    from textual.widgets._footer import FooterKey

    from tui.widgets import KeysFooter

    class Deal(Button):
        BINDINGS: ClassVar[list[BindingType]] = [Binding("d", "press", "Deal")]

    class Fold(Button):
        BINDINGS: ClassVar[list[BindingType]] = [Binding("f", "press", "Fold")]

    class Table(App):
        def compose(self) -> ComposeResult:
            yield Deal("deal", id="a")
            yield Deal("deal again", id="b")
            yield Fold("fold", id="c")
            yield KeysFooter(show_command_palette=False)

    app = Table()
    async with app.run_test(size=(80, 24)) as pilot:
        app.query_one("#a").focus()
        await pilot.pause()
        first = list(app.query(FooterKey))
        assert [k.description for k in first] == ["Deal"]
        app.query_one("#b").focus()  # the same keys
        await pilot.pause()
        assert all(a is b for a, b in zip(app.query(FooterKey), first, strict=True))
        app.query_one("#c").focus()  # others
        await pilot.pause()
        assert [k.description for k in app.query(FooterKey)] == ["Fold"]


@run_async
async def test_a_key_that_comes_and_goes_is_hidden_and_shown_again_not_rebuilt() -> None:
    """As the turn passes, "Choose" comes and goes from the footer: the footer shows and
    hides that key (the text a player reads changes) without building itself again."""
    from textual.app import App, ComposeResult
    from textual.binding import Binding, BindingType
    from textual.widgets import Button
    from textual.widgets._footer import FooterKey

    from tui.widgets import KeysFooter

    class Wait(Button):
        BINDINGS: ClassVar[list[BindingType]] = [Binding("h", "app.bell", "History")]

    class Play(Button):
        BINDINGS: ClassVar[list[BindingType]] = [
            Binding("h", "app.bell", "History"),
            Binding("enter", "press", "Choose"),
        ]

    class Table(App):
        def compose(self) -> ComposeResult:
            yield Play("play", id="mine")
            yield Wait("wait", id="theirs")
            yield KeysFooter(show_command_palette=False)

    def footer(app: App) -> str:
        return "".join(strip.text for strip in app.screen._compositor.render_strips()[-1:])

    app = Table()
    async with app.run_test(size=(80, 24)) as pilot:
        app.query_one("#mine").focus()
        await pilot.pause()
        built = list(app.query(FooterKey))
        assert "Choose" in footer(app) and "History" in footer(app)
        for _turn in range(3):
            app.query_one("#theirs").focus()
            await pilot.pause()
            assert "Choose" not in footer(app) and "History" in footer(app)
            app.query_one("#mine").focus()
            await pilot.pause()
            assert "Choose" in footer(app) and "History" in footer(app)
        assert list(app.query(FooterKey)) == built  # the same widgets throughout
        await pilot.press("enter")  # and the key shown again works


# -- the choices between two of a seat's moves -------------------------------------


@pytest.mark.parametrize("game_id", ["chirac-mitterrand", "edgar-lucien", "ministeres"])
@run_async
async def test_while_a_bot_moves_the_choices_say_whose_move_it_is(tmp_path: Path, game_id: str) -> None:
    """Every game against a bot that takes its time: while the bot thinks, the list of the
    player's choices says, under "Waiting", whose move it is and what they decide; it offers
    nothing (no old choice listed, no "Choose" key in the footer, Enter plays nothing); on the
    player's move it offers the new choices, and Enter plays."""
    import asyncio

    from core.games import get_game
    from tests.tui_helpers import app_for
    from tui.session import new_match
    from tui.widgets import ChoiceList

    game = get_game(game_id)
    players = 2
    controllers = [{"kind": "human"}] + [{"kind": "bot", "level": "easy"}] * (players - 1)
    match = new_match(game, players, [{"name": n} for n in NAMES[:players]], controllers, seed=4, bot_seed=4)
    app = app_for(tmp_path, start_save(tmp_path, match), delay=0.3)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = next(s for s in app.screen_stack if isinstance(s, PlayScreen))
        options = screen.query_one(ChoiceList)
        waited = 0
        for _ in range(600):
            await asyncio.sleep(0.02)
            await pilot.pause()
            if match.outcome is not None or waited == 3:
                break
            if app.screen is not screen:  # a period's score, say: read, then on
                await pilot.press("enter")
                continue
            drawn = len(screen.knows.events) == len(match.events)  # the screen has been told the last move
            # the bot to move, not Ada (in Edgar & Lucien's programming both choose at once)
            bots_move = screen.runner.thinking is not None and 0 not in match.active()
            if bots_move and options.option_count and drawn:
                assert options.display and options.waiting and options.border_title == "Waiting"
                assert options.option_count == 1 and options.highlighted is None
                said = str(options.get_option_at_index(0).prompt)
                assert NAMES[1] in said and said == match.game.waiting_for(match.state), said
                assert "Choose" not in screen_text(app).splitlines()[-1]

                def mine() -> int:  # (the bot's move may land meanwhile: only the player's count)
                    return sum(1 for move in match.moves if move.seat == 0)

                before = mine()
                await pilot.press("enter")
                assert mine() == before, "Enter played while the bot was to move"
                waited += 1
                while screen.runner.thinking is not None:
                    await asyncio.sleep(0.05)
                    await pilot.pause()
            elif (
                0 in match.active() and screen.runner.thinking is None and options.option_count and not options.waiting
            ):
                await pilot.press("enter")  # the first choice (a card, its action, its fate: a step each)
        assert waited == 3
