"""A seat's name is text on every screen, never markup nor a terminal's escape sequence;
and a name is bounded where it is given (issue 32, defects 1 and 8).

The names here are what a player may type or a crafted save may hold: a closing tag
alone (``[/]``, which Rich and Textual refuse to read), a link, an action that quits
the app when clicked, and an escape sequence that would turn the terminal red.  The
first three may be typed; the last is refused where a name is given, so the tables
that hold it are made as an older Cabinet or a crafted save would have them, past
that check (:func:`crafted`).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

from cabinet.main import main
from core.engine import NAME_MAX, ConfigError, Match, make_header, name_refusal, printable
from core.games import get_game
from saves import SaveWriter, load
from screens.app import CabinetApp
from screens.lobby import LobbyScreen
from screens.new_game import NewGameScreen
from screens.play import PlayScreen
from screens.replay import ReplayScreen
from screens.save_list import SaveListScreen
from table import Table
from tests.terminal import CABINET, Terminal
from tests.tui_helpers import app_for, run_async, screen_text, settle, toasts_text
from tui.session import new_match, start_save
from tui.start import Start
from tui.widgets import Curtain, GameOver

#: what a name may hold, and how each is shown: as it is, but for the escape sequence's
#: ESC, shown as the control picture ␛
ODD = ["[/]", "[link=x]y", "[@click=app.quit]q[/]", "\x1b[31mred"]
SHOWN = ["[/]", "[link=x]y", "[@click=app.quit]q[/]", "␛[31mred"]
#: the names a save may hold: the reader refuses a name that is not text (the escape
#: sequence), and so does the writer; one reaches a screen only from a host or a server
SAVED = [*ODD[:3], "Dee"]
SAVED_SHOWN = [*SHOWN[:3], "Dee"]
CLICK = "[@click=app.quit]q[/]"


def crafted(game_id: str, names: list[str], humans: int = 0, seed: int = 7) -> Match:
    """A new match seated with ``names`` as they are (none refused): the table a save
    written before names were checked, or crafted, holds."""
    game = get_game(game_id)
    assert game is not None
    config = game.make_config(len(names), [{"name": n} for n in names])
    controllers = [{"kind": "human"}] * humans + [{"kind": "bot", "level": "random"}] * (len(names) - humans)
    return Match.new(game, make_header(game, config, seed, controllers, bot_seed=seed))


def finished(tmp_path: Path, game_id: str, names: list[str], seed: int = 7) -> Path:
    """The save of a whole game played by random bots at a table of ``names``."""
    match = crafted(game_id, names, seed=seed)
    with start_save(tmp_path, match, durable=False) as writer:
        Table(match, writer).play_out()
    return writer.path


def shows_every_name(text: str, shown: list[str]) -> None:
    for name in shown:
        assert name in text, f"{name!r} is not on the screen"
    assert "\x1b" not in text


def where(app: CabinetApp, words: str, last: bool = False) -> tuple[int, int]:
    """The cell where ``words`` start on the screen (the lowest line of them, if ``last``)."""
    found = [(line.index(words), y) for y, line in enumerate(screen_text(app).splitlines()) if words in line]
    if not found:
        raise AssertionError(f"{words!r} is not on the screen")
    return found[-1] if last else found[0]


# -- the bound, and where a name is given ----------------------------------------


def test_a_name_is_printable_text_of_NAME_MAX_characters_at_most() -> None:
    assert 24 <= NAME_MAX <= 32
    for name in ("Ada", "Chloé", "x" * NAME_MAX, *ODD[:3], "李小龍", "Ann Marie"):
        assert name_refusal(name, 0) is None, name
    for name in ("x" * (NAME_MAX + 1), "x" * 2**20, "\x1b[31mred", "a\nb", "bell\a", "\x9b31m", "\u202eevil", "\x7f"):
        refusal = name_refusal(name, 1)
        assert refusal is not None and refusal.startswith("The name of seat 2 ") and refusal.endswith(".")
        assert refusal.count(". ") == 0 and name not in refusal  # one sentence, the name never quoted
    assert printable("\x1b[31mred\x07\x9b\u202e") == "␛[31mred␇\ufffd\ufffd"
    assert printable("Ann Marie") == "Ann Marie" and printable("a\nb", lines=True) == "a\nb"


@pytest.mark.parametrize("name", ["x" * 2**20, "\x1b[31mred", "a\tb"], ids=["MiB", "escape", "tab"])
def test_a_new_table_refuses_a_name_too_long_or_not_text(name: str) -> None:
    game = get_game("agent-jean")
    with pytest.raises(ConfigError) as refused:
        new_match(game, 2, [{"name": "Ada"}, {"name": name}], [{"kind": "human"}, {"kind": "human"}])
    assert str(refused.value).startswith("The name of seat 2 ")


@pytest.mark.parametrize("command", ["play", "host"])
# (an argument of a command line has 128 KiB at most on Linux: no MiB there)
@pytest.mark.parametrize("name", ["x" * 100_000, "\x1b[31mred"], ids=["long", "escape"])
def test_the_command_line_refuses_such_a_name_in_one_sentence(command: str, name: str, tmp_path: Path, capsys) -> None:
    with pytest.raises(SystemExit) as info:
        main(
            [
                "--save-dir",
                str(tmp_path),
                command,
                "agent-jean",
                "--players",
                "2",
                "--bots",
                "2",
                "--names",
                f"Ann,{name}",
            ]
        )
    assert info.value.code == 2
    err = capsys.readouterr().err
    last = err.strip().splitlines()[-1]
    assert err.startswith("usage: cabinet") and last.startswith(f"cabinet {command}: The name of seat 2 ")
    assert len(err) < 1000 and "\x1b" not in err
    assert not list(tmp_path.glob("*.cab"))


@pytest.mark.parametrize("name", ["x" * 2**20, "\x1b[31mred"], ids=["MiB", "escape"])
@run_async
async def test_new_game_refuses_such_a_name_in_one_sentence(name: str, tmp_path: Path) -> None:
    app = CabinetApp(save_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(NewGameScreen())
        await pilot.pause()
        app.screen.query_one("#name-1").value = name
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, NewGameScreen)
        said = [n.message for n in app._notifications]
        assert len(said) == 1 and said[0].startswith("The name of seat 2 ") and len(said[0]) < 200
        assert not list(tmp_path.glob("*.cab"))


# -- the screens --------------------------------------------------------------------


@run_async
async def test_play_shows_the_names_as_they_are(tmp_path: Path) -> None:
    """cabinet play agent-jean --players 2 --bots 2 --names '[/],Bob', and more such names:
    no MarkupError, every name as it is in the players' grid and the status line."""
    match = crafted("agent-jean", SAVED, humans=1)
    app = app_for(tmp_path, start_save(tmp_path, match))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, PlayScreen)
        shows_every_name(screen_text(app), SAVED_SHOWN)
        assert f"You: {SHOWN[0]} · {SHOWN[0]}, your move." in screen_text(app)


@run_async
async def test_the_end_of_a_game_shows_the_names_as_they_are(tmp_path: Path) -> None:
    """Such a game, finished: the Game over dialog (who won, the score sheet), the history."""
    path = finished(tmp_path, "agent-jean", SAVED)
    loaded = load(path)
    app = app_for(tmp_path, SaveWriter.resume(loaded))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, GameOver)
        text = screen_text(app)
        winners = [SAVED_SHOWN[s] for s in loaded.match.outcome.winners]
        assert "Game over" in text and all(name in text for name in winners) and "\x1b" not in text
        assert all(name[:13] in text for name in SAVED_SHOWN)  # the score sheet's first column: 14 cells
        await pilot.press("enter")  # look at the table
        await pilot.pause()
        history = [line for line, _ in app.screen.query_one("#history").texts]
        shows_every_name(screen_text(app) + "\n".join(history), SAVED_SHOWN)


@run_async
async def test_an_action_in_a_name_is_never_run(tmp_path: Path) -> None:
    """A name that is Textual's markup for 'click me to quit' is those characters, and a
    click on them, or on the notification that quotes them, does nothing."""
    match = crafted("agent-jean", [CLICK, "Bob"], humans=1)
    app = app_for(tmp_path, start_save(tmp_path, match))
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot)
        x, y = where(app, f"You: {CLICK}")
        await pilot.click(offset=(x + len("You: ") + 1, y))  # on the q, were the name a link
        await pilot.pause()
        app.screen.notify(f"{CLICK} has played since.")
        await pilot.pause()
        assert toasts_text(app) == [f"{CLICK} has played since."]
        x, y = where(app, CLICK, last=True)  # (in the toast: the status line quotes it too)
        await pilot.click(offset=(x + 18, y))
        await pilot.pause()
        assert app.is_running and app.return_code is None
        assert isinstance(app.screen, PlayScreen)


@run_async
async def test_hot_seat_curtain_names_the_next_player_as_they_are(tmp_path: Path) -> None:
    match = crafted("agent-jean", SAVED[2:], humans=2)
    app = app_for(tmp_path, start_save(tmp_path, match))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, Curtain)
        text = screen_text(app)
        assert "Pass the terminal to " in text and any(f"{name}: press Enter" in text for name in SAVED_SHOWN[2:])
        assert "\x1b" not in text


@pytest.mark.parametrize(
    "game_id, players", [("agent-jean", 4), ("chirac-mitterrand", 2), ("ministeres", 4), ("edgar-lucien", 4)]
)
@run_async
async def test_replays_of_such_a_save_show_the_names_through_every_pair_of_eyes(
    tmp_path: Path, game_id: str, players: int
) -> None:
    """A save whose seats bear those names: its listing, and its replay everything revealed
    and as each seat saw it, in every game."""
    path = finished(tmp_path, game_id, SAVED[:players])
    loaded = load(path)
    app = CabinetApp(save_dir=tmp_path, start=Start(mode="menu"))
    async with app.run_test(size=(120, 40)) as pilot:
        app.push_screen(SaveListScreen("replay"))
        await pilot.pause()
        listed = screen_text(app)
        assert "\x1b" not in listed and SHOWN[0] in listed  # the seats, cut at the column's width
        app.open_replay(loaded.match, path)
        await pilot.pause()
        assert isinstance(app.screen, ReplayScreen)
        replay = app.screen
        history = [text for text, _ in replay.query_one("#history").texts]
        shows_every_name(screen_text(app) + "\n".join(history), SAVED_SHOWN[:players])
        for _ in range(players):
            await pilot.press("v")  # each seat's eyes in turn
            await pilot.pause()
            assert "\x1b" not in screen_text(app) and " saw it" in screen_text(app)
        await pilot.press("home")
        for _ in range(5):
            await pilot.press("right")
        await pilot.pause()
        assert "\x1b" not in screen_text(app)


@run_async
async def test_a_joiner_of_a_host_with_such_names_sees_them_as_they_are(tmp_path: Path) -> None:
    from net.client import RemoteTable
    from net.protocol import Address
    from net.server import GameServer, load_or_make_codes

    match = crafted("agent-jean", SAVED, humans=2)
    writer = start_save(tmp_path, match, durable=False)
    codes = load_or_make_codes(writer.path, match)
    server = GameServer(writer, codes, bot_delay=0)
    await server.start(Address(host="127.0.0.1", port=0))
    try:
        app = CabinetApp(save_dir=tmp_path / "client", bot_delay=0)
        async with app.run_test(size=(120, 40), notifications=True) as pilot:
            assert await app.join(RemoteTable(server.address, codes[0]))
            screen = app.screen
            assert isinstance(screen, PlayScreen)
            for _ in range(100):
                await asyncio.sleep(0.02)
                await pilot.pause()
                if screen.remote.view is not None:
                    break
            shows_every_name(screen_text(app), SAVED_SHOWN)
            assert f"You: {SHOWN[0]}" in screen_text(app)
            # the host refuses a move in a sentence that quotes a name: a notification, as text
            screen.received({"t": "error", "message": f"{ODD[1]} and {ODD[3]} have played since."})
            await pilot.pause()
            said = f"{SHOWN[1]} and {SHOWN[3]} have played since."
            assert any(said in toast for toast in toasts_text(app)), toasts_text(app)
            assert "\x1b" not in screen_text(app)
    finally:
        await server.close()
        writer.close()


class ListedHall:
    """A served session's hall, as far as the lobby looks at it: the tables it lists.
    Names from the hall are players' logins, checked there; but a table's record
    comes from the store, which another server, or another version, may have written."""

    user = "ann"

    def __init__(self, tables: list[dict[str, Any]]) -> None:
        self.tables = tables

    async def connect(self) -> None:
        return None

    async def listen(self, listed, gone) -> None:
        listed()
        await asyncio.Event().wait()

    async def close(self) -> None:
        return None


@run_async
async def test_the_lobby_lists_such_names_as_they_are(tmp_path: Path) -> None:
    def seat(name: str, kind: str = "human") -> dict[str, Any]:
        return {
            "kind": kind,
            "user": None if kind == "bot" else name,
            "level": "easy" if kind == "bot" else None,
            "name": name,
            "label": "",
            "away": False,
        }

    seats = [seat(ODD[0]), seat(ODD[1]), seat(ODD[2], "bot"), seat(ODD[3])]
    tables = [
        {
            "id": "t1",
            "game": "agent-jean",
            "title": "L'Agent Jean!",
            "state": "playing",
            "seats": seats,
            "active": [0],
            "moves": 3,
            "updated": 2.0,
        },
        {
            "id": "t2",
            "game": "agent-jean",
            "title": "L'Agent Jean!",
            "state": "finished",
            "seats": seats,
            "outcome": f"{ODD[0]} and {ODD[3]} share the victory.",
            "moves": 90,
            "updated": 1.0,
        },
    ]
    app = CabinetApp(Path(os.devnull), Start(mode="lobby", remote=ListedHall(tables)), bot_delay=0)
    async with app.run_test(size=(160, 24)) as pilot:
        for _ in range(50):
            await pilot.pause(0.02)
            if isinstance(app.screen, LobbyScreen) and app.screen.shown:
                break
        assert isinstance(app.screen, LobbyScreen)
        text = screen_text(app)
        shows_every_name(text, SHOWN[:2])
        assert f"{SHOWN[0]} and {SHOWN[3]} share the victory." in text
        await pilot.press("down")  # the finished table: its seats in the line under the list
        await pilot.pause()
        shows_every_name(screen_text(app), SHOWN)


# -- verify and export ----------------------------------------------------------------


def test_verify_and_export_print_no_escape_sequence_of_a_name(tmp_path: Path, capsys) -> None:
    """A save from elsewhere whose seat is named with an escape sequence, a bell and a C1
    control: refused by every command in one sentence, and none of them printed raw."""
    from tests.test_crafted_saves import long_named

    path = tmp_path / "odd.cab"
    path.write_bytes(long_named("\x1b[31mred\a\x9b1m"))
    for command in (["verify"], ["export"], ["export", "--format", "json"]):
        assert main([*command, str(path)]) == 1
        said = capsys.readouterr()
        text = said.out + said.err
        assert "odd.cab is damaged" in text and "a seat name with a control character in it" in text, said
        assert not any(ch in text for ch in "\x1b\a\x9b")

    path = finished(tmp_path, "agent-jean", [*SAVED[:3], "Ann"])  # text, markup and all: written, read, printed
    assert main(["verify", str(path)]) == 0
    assert main(["export", str(path)]) == 0
    assert SAVED[2] in capsys.readouterr().out
    assert main(["export", str(path), "--format", "json"]) == 0
    header = json.loads(capsys.readouterr().out)["records"][0]["body"]
    assert [seat["name"] for seat in header["seats"]] == [*SAVED[:3], "Ann"]  # the names, read back whole


# -- the command lines of the issue, at a real terminal -------------------------------

at_a_terminal = pytest.mark.skipif(not CABINET.exists(), reason=f"no console script at {CABINET}")


def quit_from_the_menu(term: Terminal) -> int:
    term.wait_for("Join a hosted game")
    term.press("home", *["down"] * 6, "enter")  # Quit, the menu's last line
    return term.wait_exit()


@at_a_terminal
@pytest.mark.parametrize(
    "names", ["[/],Bob", "[link=x]Ann[/link],[@click=app.quit]Bob[/]"], ids=["closing-tag", "link-and-action"]
)
def test_cabinet_play_with_such_names_plays_and_ends_with_status_0(names: str, tmp_path: Path) -> None:
    first = names.split(",")[0]
    args = [
        "play",
        "agent-jean",
        "--players",
        "2",
        "--bots",
        "2",
        "--bot-level",
        "random",
        "--seed",
        "4",
        "--names",
        names,
    ]
    with Terminal(args, tmp_path) as term:
        term.wait_line("L'Agent Jean!", f"You: {first}", f"{first}, your move.")
        term.wait_for("Your hand")
        term.press("enter")
        term.wait_for("Turn 2/12")  # played, and the bot after
        term.press("q")
        assert quit_from_the_menu(term) == 0


@at_a_terminal
def test_a_joiner_of_cabinet_host_with_such_names_plays_and_ends_with_status_0(tmp_path: Path) -> None:
    host = subprocess.Popen(
        [
            str(CABINET),
            "host",
            "agent-jean",
            "--players",
            "2",
            "--bots",
            "2",
            "--bot-level",
            "random",
            "--names",
            "[/],Bob",
            "--listen",
            "127.0.0.1:0",
            "--seed",
            "4",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "CABINET_SAVE_DIR": str(tmp_path)},
    )
    try:
        lines: list[str] = []
        while not any(line.startswith("  spectators:") for line in lines):
            line = host.stdout.readline()
            assert line, host.stderr.read()
            lines.append(line.rstrip("\n"))
        name, _, _, address, code = next(
            line.split() for line in lines if "cabinet join" in line and "--watch" not in line
        )
        assert name == "[/]:"
        with Terminal(["join", address, code], tmp_path / "joiner") as term:
            term.wait_line("L'Agent Jean!", "You: [/]", "[/], your move.")
            term.press("enter")
            term.wait_for("Turn 2/12")  # played, and the host's bot after
            term.press("q")  # leave: the game waits on the host
            assert quit_from_the_menu(term) == 0
    finally:
        host.send_signal(signal.SIGINT)
        _out, err = host.communicate(timeout=20)
    assert host.returncode == 0 and "Traceback" not in err
