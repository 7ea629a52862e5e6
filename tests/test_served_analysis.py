"""A served table's analysis (issue 36): made by the hall, not by the player's session.

A session's program may not spend the seconds of a core an analysis takes (``net/ssh.py``
holds it to a share of a core), so the hall makes it, one table at a time, in a worker of
its own at the lowest priority of the server's work, and keeps it in its data directory;
the replay asks for it every second, shows how far it has got, and then the chart.  A
table in play is refused, as everywhere: analysing a game in play would be a cheating aid.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from net.client import HallClient
from net.hall import ANALYSES, ANALYSIS_IN_PLAY, Hall
from net.protocol import Address
from screens.app import CabinetApp
from screens.replay import ReplayScreen
from tests.test_hall import STEP, lobby_of
from tests.test_lobby_80 import USER, in_lobby
from tests.test_ratings import chores_done, play_a_table
from tests.tui_helpers import screen_text
from tui.start import Start

EFFORT = 4  # worlds a move: enough to exercise every step, quick on a loaded machine


async def analysed(ann: HallClient, table_id: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Ask until the analysis comes: it, and the answers that said how far it had got."""
    said: list[dict[str, Any]] = []
    for _ in range(600):
        reply = await ann.request({"t": "analysis", "table": table_id})
        assert reply["ok"], reply
        if "analysis" in reply:
            return reply["analysis"], said
        said.append(reply)
        await asyncio.sleep(0.1)
    raise AssertionError(f"no analysis of {table_id}; the hall said {said[-3:]}")


def test_the_hall_analyses_a_finished_table_once_and_refuses_one_in_play(tmp_path: Path) -> None:
    async def run() -> None:
        hall = Hall(tmp_path, bot_delay=0.0, analysis_effort=EFFORT)
        await hall.start()
        try:
            table_id = await play_a_table(hall, "chirac-mitterrand")
            match = hall.tables[table_id].match
            assert match is not None and match.outcome is not None
            await chores_done(hall)
            ann, task = await lobby_of(hall, "ann")
            analysis, said = await analysed(ann, table_id)
            assert said and said[0]["of"] == match.move_count and said[0]["done"] <= said[-1]["done"], (
                "the first answer says how far it has got, and it only goes forward"
            )
            winner = match.outcome.winners[0]
            assert analysis["curve"][-1][winner] == 1.0, "the winner ends at 100%"
            assert len(analysis["curve"]) == match.move_count + 1
            assert (tmp_path / ANALYSES / f"{table_id}.analysis").is_file(), "kept in the data directory"
            again = await ann.request({"t": "analysis", "table": table_id})
            assert again["ok"] and again["analysis"] == analysis, "the kept one, at once"

            made = await ann.request(
                {
                    "t": "create",
                    "game": "agent-jean",
                    "players": 2,
                    "seats": [{"kind": "human"}, {"kind": "bot", "level": "random"}],
                    "variants": {},
                    "sit": 0,
                }
            )
            assert made["ok"], made
            refused = await ann.request({"t": "analysis", "table": made["table"]})
            assert refused == {"ok": False, "message": ANALYSIS_IN_PLAY, **{k: refused[k] for k in ("t", "re")}}
            await ann.close()
            await asyncio.wait_for(task, STEP)
        finally:
            await hall.close()

    asyncio.run(run())


def test_a_served_replay_shows_the_analysis_the_hall_made(tmp_path: Path) -> None:
    """In the session's lobby: the finished table's replay, a, the server's progress under the
    board, then the chart; a second a (after leaving) shows the kept analysis at once."""

    async def run() -> None:
        hall = Hall(tmp_path, bot_delay=0.0, analysis_effort=EFFORT)
        await hall.start()
        try:
            table_id = await play_a_table(hall, "chirac-mitterrand")
            await chores_done(hall)
            client = HallClient(Address(path=hall.socket_path), hall.open_session(USER))
            app = CabinetApp(Path(os.devnull), Start(mode="lobby", remote=client), bot_delay=0)
            async with app.run_test(size=(80, 24)) as pilot:
                lobby = await in_lobby(pilot, app)
                assert lobby.current() is not None and lobby.current()["id"] == table_id
                await pilot.press("enter")  # a finished table: its replay
                for _ in range(200):
                    await pilot.pause(0.02)
                    if isinstance(app.screen, ReplayScreen):
                        break
                replay = app.screen
                assert isinstance(replay, ReplayScreen)
                assert "Analyse" in screen_text(app), "a finished table offers its analysis over the server too"
                await pilot.press("a")
                seen_progress = False
                for _ in range(3000):
                    await pilot.pause(0.02)
                    seen_progress = seen_progress or "Esc stops" in screen_text(app)
                    if replay.analysis is not None:
                        break
                assert replay.analysis is not None, screen_text(app)
                for _ in range(50):  # (drawn in the frames after it came)
                    if "Chance to win" in screen_text(app):
                        break
                    await pilot.pause(0.02)
                assert seen_progress, "how far the server has got, under the board"
                assert replay.pane == "chances" and "Chance to win" in screen_text(app), screen_text(app)
                await pilot.press("q")
                await pilot.pause(0.1)
                await pilot.press("enter")
                for _ in range(200):
                    await pilot.pause(0.02)
                    if isinstance(app.screen, ReplayScreen) and app.screen is not replay:
                        break
                again = app.screen
                assert isinstance(again, ReplayScreen)
                await pilot.press("a")
                for _ in range(200):
                    await pilot.pause(0.02)
                    if again.analysis is not None:
                        break
                assert again.analysis == replay.analysis, "the kept analysis, asked for again"
        finally:
            await hall.close()

    asyncio.run(run())
