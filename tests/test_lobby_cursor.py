"""The lobby's cursor and the tables it is on: it follows its table (by the table's id, not its
row) when tables are listed, or taken away, above it; where its own table is gone it stays on
its row; and a table the player opens from the lobby takes it, so that the line under the list
and the footer's keys are that table's (x gives up its seat at once, with no Up to press).

The first tests list what they give a stand-in hall (``tests/test_lobby_80``); the tables
opened from the lobby are opened at a real hall (``tests/test_hall``)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from textual.widgets import Select

from net.client import HallClient
from net.protocol import Address
from screens.app import CabinetApp
from screens.lobby import LobbyScreen, NewTableScreen
from screens.play import PlayScreen
from tests.test_hall import STEP, footer_keys, listed, lobby_of, open_hall, settle
from tests.test_lobby_80 import Hall, crowded, human, in_lobby, lobby_app, table, under_cursor
from tests.tui_helpers import run_async, screen_text
from tui.start import Start


@run_async
async def test_a_watchers_cursor_stays_on_its_table_as_tables_come_and_go_above_it() -> None:
    """ann is on a table of others in play (w watches it): a table listed above it, or one
    taken away above it, leaves the cursor on that table; that table gone, the cursor is on
    the table listed after it, not back at the top."""
    theirs = table("theirs", "playing", [human("bob"), human("cy")], 1.5, active=[0], moves=7)
    hall = Hall([*crowded(), theirs])
    app = lobby_app(hall)
    async with app.run_test(size=(80, 24)) as pilot:
        lobby = await in_lobby(pilot, app)
        assert [t["id"] for t in lobby.shown] == ["wait", "five", "cm", "theirs", "done"]
        await pilot.press("down", "down", "down")
        await pilot.pause()
        assert under_cursor(lobby) == "theirs" and "w" in footer_keys(lobby)
        # dan opens a table: it is listed above
        new = table("new", "waiting", [human("dan"), human(None)], 20.0)
        hall.list_again([new, *crowded(), theirs])
        await pilot.pause()
        assert [t["id"] for t in lobby.shown] == ["wait", "new", "five", "cm", "theirs", "done"]
        assert under_cursor(lobby) == "theirs" and "w" in footer_keys(lobby)
        assert "Seat 1: bob   Seat 2: cy" in screen_text(app)  # the line under the list is its
        # a table above is no longer listed
        hall.list_again([new, *[t for t in crowded() if t["id"] != "five"], theirs])
        await pilot.pause()
        assert [t["id"] for t in lobby.shown] == ["wait", "new", "cm", "theirs", "done"]
        assert under_cursor(lobby) == "theirs" and "w" in footer_keys(lobby)
        # the table itself is no longer listed: the cursor is on the one after it
        hall.list_again([new, *[t for t in crowded() if t["id"] != "five"]])
        await pilot.pause()
        assert [t["id"] for t in lobby.shown] == ["wait", "new", "cm", "done"]
        assert under_cursor(lobby) == "done"
        # and the last table gone, on the last row
        hall.list_again([new, *[t for t in crowded() if t["id"] not in ("five", "done")]])
        await pilot.pause()
        assert under_cursor(lobby) == "cm"


def test_a_table_opened_from_the_lobby_takes_the_cursor(tmp_path: Path) -> None:
    """ann's cursor is on bob's waiting table; she opens a table with a seat for a player: it
    is listed first, and the cursor is on it (its seats under the list, x to give up hers).
    Then a table against a bot, which starts at once: back in the lobby, the cursor is on it."""

    async def run() -> None:
        hall = await open_hall(tmp_path, bot_delay=0.0)
        try:
            bob, bob_task = await lobby_of(hall, "bob")
            bobs = await bob.request({"t": "create", "game": "agent-jean", "players": 2, "seats": [{}, {}], "sit": 0})
            client = HallClient(Address(path=hall.socket_path), hall.open_session("ann"))
            app = CabinetApp(Path(os.devnull), Start(mode="lobby", remote=client), bot_delay=0)
            async with app.run_test(size=(80, 24)) as pilot:
                await settle(
                    pilot, lambda: isinstance(app.screen, LobbyScreen) and len(app.screen.shown) == 1, "the lobby"
                )
                lobby = app.screen
                assert isinstance(lobby, LobbyScreen)
                assert under_cursor(lobby) == bobs["table"] and "x" not in footer_keys(lobby)
                # a table with a seat for a player: it waits
                await pilot.press("n")
                await settle(pilot, lambda: isinstance(app.screen, NewTableScreen), "the new table's screen")
                await pilot.pause()
                app.screen.query_one("#who-1", Select).value = "human"
                await pilot.pause()
                await pilot.press("ctrl+s")
                await settle(pilot, lambda: app.screen is lobby and len(lobby.shown) == 2, "the new table listed")
                await pilot.pause()
                mine = lobby.shown[0]["id"]
                assert mine != bobs["table"]
                assert under_cursor(lobby) == mine
                assert "x" in footer_keys(lobby)
                text = screen_text(app)  # the line under the list is the new table's
                assert "Seat 1: ann" in text and "Seat 2: free" in text and "Seat 1: bob" not in text, text
                # a table against a bot: it starts, and is opened at once
                await pilot.press("n")
                await settle(pilot, lambda: isinstance(app.screen, NewTableScreen), "the new table's screen")
                await pilot.pause()
                await pilot.press("ctrl+s")
                await settle(
                    pilot, lambda: isinstance(app.screen, PlayScreen) and "You: ann" in screen_text(app), "the table"
                )
                play = app.screen
                assert isinstance(play, PlayScreen)
                against_bot = play.remote.table_id
                await settle(pilot, lambda: listed(client, against_bot) is not None, "the table listed")
                await pilot.press("q")
                await settle(pilot, lambda: app.screen is lobby and len(lobby.shown) == 3, "the lobby again")
                await pilot.pause()
                assert under_cursor(lobby) == against_bot
                text = screen_text(app)
                assert "Seat 1: ann" in text and "Seat 2: Bot 2 (bot, " in text, text
                assert "x" not in footer_keys(lobby)  # a table in play: no seat to give up
            await bob.close()
            await asyncio.wait_for(bob_task, STEP)
        finally:
            await hall.close()

    asyncio.run(run())
