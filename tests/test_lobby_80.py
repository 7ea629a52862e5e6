"""The lobby of a served session at 80 columns: every column of every row shows (cut, with an
ellipsis, where a row is longer than the screen), the line under the list never cuts a seat in
two, the cursor stays on its table however the list is sorted again, and the news of a table
that started opens that table.

The hall is a stand-in that lists what a test gives it (the lobby only reads its tables and asks
it to open one); ``cabinet serve`` over a real ``ssh`` is at the end of the file."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from net.client import JoinError
from screens.app import CabinetApp
from screens.lobby import LobbyScreen
from tests.tui_helpers import run_async, screen_text
from tui.start import Start

USER = "ann"


def human(name: str | None, label: str = "") -> dict[str, Any]:
    return {"kind": "human", "user": name, "level": None, "name": name or "", "label": label, "away": False}


def bot(name: str, level: str = "normal", label: str = "") -> dict[str, Any]:
    return {"kind": "bot", "user": None, "level": level, "name": name, "label": label, "away": False}


def table(table_id: str, state: str, seats: list[dict[str, Any]], updated: float, **more: Any) -> dict[str, Any]:
    game = more.pop("game", "agent-jean")
    title = {"agent-jean": "L'Agent Jean!", "chirac-mitterrand": "1988: Chirac contre Mitterrand"}[game]
    return {
        "id": table_id,
        "game": game,
        "title": title,
        "state": state,
        "seats": seats,
        "active": [],
        "moves": 0,
        "updated": updated,
        **more,
    }


AGENTS = ["Jean", "Bulle", "WXT", "Henry B. Belton", "Martha"]


def crowded() -> list[dict[str, Any]]:
    """What fills a lobby's rows: five seats, a long game title, a long result."""
    five = [human(USER, AGENTS[0]), human("bob", AGENTS[1])] + [bot(f"Bot {i}", label=AGENTS[i - 1]) for i in (3, 4, 5)]
    waiting = [human(USER, AGENTS[0]), human(None, AGENTS[1])] + [
        bot(f"Bot {i}", label=AGENTS[i - 1]) for i in (3, 4, 5)
    ]
    return [
        table("five", "playing", five, 5.0, active=[1], moves=123),
        table("cm", "playing", [human(USER, "Chirac"), human("bartholomew", "Mitterrand")], 4.0, game="chirac-mitterrand", active=[1], moves=41),
        table("wait", "waiting", waiting, 3.0),
        table("done", "finished", [human(USER, "Jean"), human("bob", "Bulle"), human("cy", "WXT")], 2.0, moves=180,
              outcome="ann and bob share the victory with 31 points each, cy 24."),
    ]  # fmt: skip


class Hall:
    """The hall as the lobby sees it: its tables, listed again when a test says so."""

    user = USER

    def __init__(self, tables: list[dict[str, Any]]) -> None:
        self.tables = tables
        self.opened: list[tuple[str, bool]] = []
        self.listed: Any = None

    async def connect(self) -> None:
        return None

    async def listen(self, listed, gone) -> None:
        self.listed = listed
        listed()
        await asyncio.Event().wait()

    async def close(self) -> None:
        return None

    def table(self, table_id: str, watch: bool = False) -> Any:
        """A table opened from the lobby: noted, and refused (the test stays in the lobby)."""
        self.opened.append((table_id, watch))

        class Refused:
            async def connect(self) -> None:
                raise JoinError("This table is a stand-in.")

        return Refused()

    def list_again(self, tables: list[dict[str, Any]]) -> None:
        self.tables = tables
        self.listed()


def lobby_app(hall: Hall) -> CabinetApp:
    return CabinetApp(Path(os.devnull), Start(mode="lobby", remote=hall), bot_delay=0)


async def in_lobby(pilot, app: CabinetApp) -> LobbyScreen:
    for _ in range(100):
        await pilot.pause(0.01)
        if isinstance(app.screen, LobbyScreen) and app.screen.shown:
            break
    assert isinstance(app.screen, LobbyScreen)
    return app.screen


def under_cursor(lobby: LobbyScreen) -> str:
    t = lobby.current()
    assert t is not None
    return str(t["id"])


@run_async
async def test_every_column_shows_at_80_columns_and_the_rows_fit_the_screen() -> None:
    app = lobby_app(Hall(crowded()))
    async with app.run_test(size=(80, 24)) as pilot:
        lobby = await in_lobby(pilot, app)
        lines = screen_text(app).splitlines()
        header = next(line for line in lines if "Game" in line and "Seats" in line)
        assert header.rstrip().endswith("Progress"), header
        rows = {key: next(line for line in lines if needle in line) for key, needle in
                (("five", "move 123"), ("cm", "move 41"), ("wait", "1 seat free"))}  # fmt: skip
        assert "L'Agent Jean!" in rows["five"] and "you, bob, 3 bots" in rows["five"]
        assert "1988: Chirac contre Mitterrand" in rows["cm"]  # the game's title whole at 80 columns
        assert "you, — free, 3 bots" in rows["wait"]
        done = next(line for line in lines if "Finished" in line)
        assert re.search(r"you, bob, cy +ann and bob …$", done.rstrip()), done  # cut, and said so
        grid = lobby.query_one("#tables")
        assert grid.max_scroll_x == 0  # nothing to the right of the screen
        # the finished table's result whole, in the line under the list
        await pilot.press("down", "down", "down")
        await pilot.pause()
        assert under_cursor(lobby) == "done"
        assert "ann and bob share the victory with 31 points each, cy 24." in screen_text(app)


@run_async
async def test_the_line_under_the_list_never_cuts_a_seat_in_two() -> None:
    app = lobby_app(Hall(crowded()))
    async with app.run_test(size=(80, 24)) as pilot:
        await in_lobby(pilot, app)
        await pilot.press("down")  # the table of five
        await pilot.pause()
        lines = screen_text(app).splitlines()
        entries = [
            "Seat 1: ann · Jean",
            "Seat 2: bob · Bulle",
            "Seat 3: Bot 3 (bot, normal) · WXT",
            "Seat 4: Bot 4 (bot, normal) · Henry B. Belton",
            "Seat 5: Bot 5 (bot, normal) · Martha",
            "Rules as written",
        ]
        for entry in entries:  # each on one line of the screen
            assert any(entry in line for line in lines), (entry, lines)
        assert not any(line.rstrip().endswith("·") for line in lines)  # "Bot 5 (bot, normal) ·" / "Martha" was seen


@run_async
async def test_the_cursor_stays_on_its_table_when_the_list_is_sorted_again() -> None:
    hall = Hall(crowded())
    app = lobby_app(hall)
    async with app.run_test(size=(80, 24)) as pilot:
        lobby = await in_lobby(pilot, app)
        assert [t["id"] for t in lobby.shown] == ["wait", "five", "cm", "done"]
        await pilot.press("down", "down")
        await pilot.pause()
        assert under_cursor(lobby) == "cm"
        # bartholomew plays: the table comes to ann's move and is listed first
        tables = crowded()
        tables[1] = {**tables[1], "active": [0], "moves": 42, "updated": 9.0}
        hall.list_again(tables)
        await pilot.pause()
        assert [t["id"] for t in lobby.shown] == ["cm", "wait", "five", "done"]
        assert under_cursor(lobby) == "cm"
        # behind another screen (the rules), the list is sorted again when the lobby is back
        await pilot.press("question_mark")
        await pilot.pause()
        assert not isinstance(app.screen, LobbyScreen)
        tables = [{**t, "updated": 10.0 - i} for i, t in enumerate(reversed(tables))]
        tables = [t if t["id"] != "cm" else {**t, "active": [1]} for t in tables]  # no longer ann's move
        hall.list_again(tables)
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is lobby
        assert [t["id"] for t in lobby.shown] == ["wait", "cm", "five", "done"]
        assert under_cursor(lobby) == "cm"
        # Enter opens the table under the cursor, the one the line under the list describes
        await pilot.press("enter")
        await pilot.pause()
        assert hall.opened == [("cm", False)]


@run_async
async def test_the_news_of_a_table_that_started_opens_that_table() -> None:
    """The cursor on another table, ann's waiting table starts: the news names it, o opens it
    (Enter still opens the table under the cursor)."""
    hall = Hall(crowded())
    app = lobby_app(hall)
    async with app.run_test(size=(80, 24)) as pilot:
        lobby = await in_lobby(pilot, app)
        await pilot.press("down")
        await pilot.pause()
        assert under_cursor(lobby) == "five"
        assert "Open started table" not in screen_text(app)  # no news yet: no key
        tables = crowded()
        started = [human(USER, AGENTS[0]), human("dan", AGENTS[1])] + tables[2]["seats"][2:]
        tables[2] = {**tables[2], "state": "playing", "seats": started, "active": [1], "updated": 9.0}
        hall.list_again(tables)
        await pilot.pause()
        said = [n.message for n in app._notifications]
        assert "Your table of L'Agent Jean! has started, with dan. o opens it." in said, said
        assert under_cursor(lobby) == "five"  # the cursor did not move
        assert "o Open started table" in screen_text(app)
        await pilot.press("o")
        await pilot.pause()
        assert hall.opened == [("wait", False)]
        await pilot.press("enter")
        await pilot.pause()
        assert hall.opened == [("wait", False), ("five", False)]
        await pilot.pause()
        assert "Open started table" not in screen_text(app)  # opened: no longer news


@run_async
async def test_news_told_at_another_table_says_where_it_opens() -> None:
    hall = Hall(crowded())
    app = lobby_app(hall)
    async with app.run_test(size=(80, 24)) as pilot:
        lobby = await in_lobby(pilot, app)
        await pilot.press("question_mark")  # another screen in front (a table would be the same)
        await pilot.pause()
        tables = crowded()
        tables[2] = {**tables[2], "state": "playing", "seats": [human(USER), human("dan")] + tables[2]["seats"][2:]}
        tables[2]["active"] = [0]
        hall.list_again(tables)
        await pilot.pause()
        said = [n.message for n in app._notifications]
        assert "Your table of L'Agent Jean! has started, with dan. It is your move. o in the lobby opens it." in said
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is lobby and "o Open started table" in screen_text(app)


@run_async
async def test_a_resize_fits_the_rows_again() -> None:
    app = lobby_app(Hall(crowded()))
    async with app.run_test(size=(120, 40)) as pilot:
        await in_lobby(pilot, app)
        wide = screen_text(app).splitlines()
        assert "ann and bob share the victory with 31 points" in wide[5]
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        narrow = screen_text(app).splitlines()
        assert narrow[1].rstrip().endswith("Progress") and narrow[5].rstrip().endswith("…")


@run_async
async def test_at_40_columns_the_lobbys_footer_keeps_its_way_out() -> None:
    """At 40x12 the footer ended "? Rul": q Quit was cut off. The spare keys go first."""
    app = lobby_app(Hall(crowded()))
    async with app.run_test(size=(40, 12)) as pilot:
        await in_lobby(pilot, app)
        for key in ("", "down", "down", "down"):
            if key:
                await pilot.press(key)
            await pilot.pause()
            footer = screen_text(app).splitlines()[-1].rstrip()
            assert footer.endswith("q Quit") and footer.startswith(" n New table"), footer


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_snapshot_lobby(snap_compare, size) -> None:
    async def on_the_finished_table(pilot) -> None:
        await in_lobby(pilot, pilot.app)
        await pilot.press("down", "down", "down")
        await pilot.pause()

    assert snap_compare(lobby_app(Hall(crowded())), terminal_size=size, run_before=on_the_finished_table)


# -- cabinet serve, and a real ssh at 80x24 ------------------------------------------------------


@pytest.mark.skipif(
    subprocess.run(["which", "ssh"], capture_output=True).returncode != 0, reason="needs the OpenSSH client"
)
def test_the_lobby_over_ssh_at_80x24(tmp_path: Path) -> None:
    """ann plays a bot, leaves, and opens a table of five that waits for a player: every column
    and every seat shows at 80 columns.  bob takes the free seat while ann's cursor is on her
    other table: the news of the start opens the table it names."""
    from contextlib import closing

    from tests.ssh_helpers import keygen
    from tests.test_serve import Serve, new_table, player

    keys = {name: keygen(tmp_path, name) for name in ("ann", "bob")}
    serve = Serve(tmp_path / "data").start()
    try:
        with closing(player(serve.port, keys["ann"], "ann", tmp_path / "ann")) as ann:
            ann.wait_for("No tables yet")
            new_table(ann, "Bot: easy")
            ann.wait_for("You: ann")
            ann.press("q")  # back in the lobby: the table waits for ann's move
            ann.wait_line("Your move", "L'Agent Jean!", "you, Bot 2 (easy)", "move ")
            # a table of five: ann, a seat for a player, three bots
            ann.press("n")
            ann.wait_line("Game", "L'Agent Jean!")
            ann.tab_to(lambda row, text: row.lstrip().startswith("Players"), "the number of players")
            ann.press("enter", "down", "down", "down", "enter")
            ann.wait_line("Seat 5", "Bot: normal")
            ann.tab_to(lambda row, text: row.lstrip().startswith("Seat 2") and "Bot: normal" in text, "seat 2's choice")
            ann.press("enter", "up", "up", "up", "enter")
            ann.wait_line("Seat 2", "A player")
            ann.press("ctrl+s")
            ann.wait_line("Waiting", "L'Agent Jean!", "you, — free, 3 bots", "1 seat free")
            header = ann.wait_line("Game", "Seats")
            assert header.endswith("Progress"), ann.report("the Progress column cut")
            # the cursor on the table just opened, with no key pressed: its five seats under the
            # list, none cut in two
            for seat in ("Seat 2: free · Bulle", "Seat 4: Bot 4 (bot, normal) · Henry B. Belton"):
                ann.wait_line(seat)
            ann.wait_line("Seat 5: Bot 5 (bot, normal) · Martha")
            ann.press("up")  # back on the table against the bot
            ann.wait_line("Seat 2: Bot 2 (bot, easy)")

            with closing(player(serve.port, keys["bob"], "bob", tmp_path / "bob")) as bob:
                bob.wait_line("Waiting", "L'Agent Jean!", "ann, — free, 3 bots")
                bob.press("enter")  # bob takes the free seat: the table starts
                ann.wait_for("has started")
                bob.wait_for("You: bob")
                ann.wait_for("o Open started table")
                assert ann.shows("Seat 2: Bot 2 (bot, easy)"), ann.report("the cursor left its table")
                ann.press("o")
                ann.wait_for("You: ann")
                ann.wait_line("bob Bulle", "6+6")  # the table of five, not the one under the cursor
        serve.check_clean()
    finally:
        serve.stop()


@run_async
async def test_no_news_of_a_start_to_a_player_already_at_that_table() -> None:
    """bob opened his table from its row while it waited: when it starts he is at it, and is
    not told to open it from the lobby."""
    from types import SimpleNamespace

    from textual.screen import Screen

    hall = Hall(crowded())
    app = lobby_app(hall)
    async with app.run_test(size=(80, 24)) as pilot:
        await in_lobby(pilot, app)
        tables = crowded()
        at_table = Screen()
        at_table.feed = SimpleNamespace(remote=SimpleNamespace(table_id=str(tables[2]["id"])))  # type: ignore[attr-defined]
        await app.push_screen(at_table)
        await pilot.pause()
        tables[2] = {**tables[2], "state": "playing", "seats": [human(USER), human("dan")] + tables[2]["seats"][2:]}
        tables[2]["active"] = [0]
        hall.list_again(tables)
        await pilot.pause()
        said = [n.message for n in app._notifications]
        assert not any("has started" in line for line in said), said


@run_async
async def test_a_row_drawn_as_soon_as_it_is_listed_is_drawn_whole() -> None:
    """The grid measures its rows only once idle: a row drawn before that (many lists come
    while a player opens a table) was kept as drawn, cut to the columns of the rows before:
    "you, — fre" under every new waiting table, for good."""
    short = [table("cm", "playing", [human("al", "Chirac"), human("bo", "Mitterrand")], 4.0,
                   game="chirac-mitterrand", active=[1], moves=4)]  # fmt: skip
    hall = Hall(short)
    app = lobby_app(hall)
    async with app.run_test(size=(80, 24)) as pilot:
        lobby = await in_lobby(pilot, app)
        grid = lobby.query_one("#tables")
        waiting = table("wait", "waiting", [human(USER, "Jean"), human(None, "Bulle")], 5.0)
        hall.list_again([waiting, *short])
        for y in range(grid.size.height):  # drawn at once, before the grid is idle
            grid.render_line(y)
        await pilot.pause()
        await pilot.pause()
        row = next(line for line in screen_text(app).splitlines() if "Waiting" in line)
        assert "you, — free" in row and "1 seat free" in row, row


@run_async
async def test_a_finished_tables_players_are_never_marked_away() -> None:
    """At a table in play, a player away is marked so; at a finished one "away" means nothing
    (and the mark was gone after a server's restart): its row names the players, no mark."""
    away_bob = {**human("bob"), "away": True}
    tables = [
        table("live", "playing", [human(USER), away_bob], 5.0, active=[1], moves=9),
        table("over", "finished", [{**human("cy"), "away": True}, human(USER), bot("Bot 3")], 2.0, moves=30,
              outcome="ann wins."),
    ]  # fmt: skip
    app = lobby_app(Hall(tables))
    async with app.run_test(size=(80, 24)) as pilot:
        await in_lobby(pilot, app)
        lines = screen_text(app).splitlines()
        live = next(line for line in lines if "In play" in line)
        over = next(line for line in lines if "Finished" in line)
        assert "you, bob (away)" in live, live
        assert "cy, you, Bot 3 (normal)" in over and "away" not in over, over


@run_async
async def test_the_title_says_enter_opens_only_when_there_is_a_table_to_open() -> None:
    for tables, said in (([], False), (crowded(), True)):
        app = lobby_app(Hall(tables))
        async with app.run_test(size=(80, 24)) as pilot:
            for _ in range(100):
                await pilot.pause(0.01)
                if "Cabinet · " in screen_text(app):
                    break
            title = screen_text(app).splitlines()[0]
            assert ("(Enter opens)" in title) == said, title


def starting(first: str) -> list[dict[str, Any]]:
    """The crowded lobby, its waiting table's every seat taken (``first`` and dan) but still
    listed as waiting: the list came as the hall was starting it."""
    tables = crowded()
    full = [human(first, AGENTS[0]), human("dan", AGENTS[1])] + tables[2]["seats"][2:]
    tables[2] = {**tables[2], "seats": full, "updated": 9.0}
    return tables


async def on_the_starting_table(pilot, app: CabinetApp) -> None:
    lobby = await in_lobby(pilot, app)
    ids = [t["id"] for t in lobby.shown]
    lobby.query_one("DataTable").move_cursor(row=ids.index("wait"))
    await pilot.pause()


@run_async
async def test_a_table_listed_as_it_starts_says_so_and_enter_opens_it_once_started() -> None:
    """Every seat of ann's waiting table taken, a list can come before the hall has started it:
    its row says "Starting" (not "0 seat free"), x is not offered, Enter says it opens as soon
    as it has started, and it opens then, without the news of a start ann is waiting for."""
    tables = starting(USER)
    hall = Hall(tables)
    app = lobby_app(hall)
    async with app.run_test(size=(80, 24)) as pilot:
        await on_the_starting_table(pilot, app)
        row = next(line for line in screen_text(app).splitlines() if "Starting" in line)
        assert "every seat taken" in row and "free" not in row, row
        assert "Give up seat" not in screen_text(app)
        await pilot.press("enter")
        await pilot.pause()
        said = [n.message for n in app._notifications]
        assert "Every seat is taken and the table is starting: it opens as soon as it has." in said, said
        assert hall.opened == []
        started = [{**t, "state": "playing", "active": [1]} if t["id"] == "wait" else t for t in tables]
        hall.list_again(started)
        await pilot.pause()
        assert hall.opened == [("wait", False)]
        said = [n.message for n in app._notifications]
        assert not any("has started" in s for s in said), said
        assert "Open started table" not in screen_text(app)
        # started again later (a second table, say): nothing more is opened for that Enter
        hall.list_again(started)
        await pilot.pause()
        assert hall.opened == [("wait", False)]


@run_async
async def test_home_and_end_go_to_the_first_and_the_last_table() -> None:
    app = lobby_app(Hall(crowded()))
    async with app.run_test(size=(80, 24)) as pilot:
        lobby = await in_lobby(pilot, app)
        await pilot.press("down")
        await pilot.pause()
        assert under_cursor(lobby) == lobby.shown[1]["id"]
        await pilot.press("end")
        await pilot.pause()
        assert under_cursor(lobby) == lobby.shown[-1]["id"]
        await pilot.press("home")
        await pilot.pause()
        assert under_cursor(lobby) == lobby.shown[0]["id"]


@run_async
async def test_the_lobbys_palette_offers_no_way_back_to_the_lobby_itself() -> None:
    app = lobby_app(Hall(crowded()))
    async with app.run_test(size=(80, 24)) as pilot:
        lobby = await in_lobby(pilot, app)
        titles = {command.title for command in app.get_system_commands(lobby)}
        assert {"Keys", "Quit", "Rules"} <= titles and not titles & {"Lobby", "Main menu"}, titles


@run_async
async def test_enter_on_a_starting_table_of_others_says_it_can_be_watched_once_started() -> None:
    hall = Hall(starting("eve"))
    app = lobby_app(hall)
    async with app.run_test(size=(80, 24)) as pilot:
        await on_the_starting_table(pilot, app)
        await pilot.press("enter")
        await pilot.pause()
        said = [n.message for n in app._notifications]
        assert "Every seat of that table is taken: w watches it once it has started." in said, said
        assert hall.opened == []
