"""``cabinet serve``'s first line counts the tables it takes up again: those not finished
(waiting for players, or in play), not the finished ones it only lists."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.test_hall import STEP, lobby_of, open_hall, play_random
from tests.test_serve import Serve

#: what the lobby asks the hall for a table of L'Agent Jean! against a bot, ann at it
AGAINST_A_BOT = {
    "t": "create",
    "game": "agent-jean",
    "players": 2,
    "seats": [{}, {"kind": "bot", "level": "random"}],
    "sit": 0,
}


async def leave_tables(data: Path) -> None:
    """ann plays a table against a bot to its end, plays three moves at another, and opens a
    third that waits for a second player: one finished table, two not."""
    hall = await open_hall(data)
    try:
        ann, task = await lobby_of(hall, "ann")
        finished = await ann.request(AGAINST_A_BOT)
        remote = ann.table(finished["table"])
        await remote.connect(timeout=STEP)
        await asyncio.wait_for(play_random(remote, 1), 120)
        await remote.close()
        assert hall.tables[finished["table"]].state() == "finished"
        playing = await ann.request(AGAINST_A_BOT)
        remote = ann.table(playing["table"])
        await remote.connect(timeout=STEP)
        await asyncio.wait_for(play_random(remote, 2, stop_after=3), 60)
        await remote.close()
        await ann.request({"t": "create", "game": "agent-jean", "players": 2, "seats": [{}, {}], "sit": 0})
        assert sorted(t.state() for t in hall.tables.values()) == ["finished", "playing", "waiting"]
        await ann.close()
        await asyncio.wait_for(task, STEP)
    finally:
        await hall.close()


def test_the_server_says_it_resumed_the_tables_not_finished(tmp_path: Path) -> None:
    data = tmp_path / "data"
    asyncio.run(leave_tables(data))
    serve = Serve(data).start()
    try:
        line = serve.wait_line(r"^Cabinet serves on ").string
        assert f"(2 tables resumed; data in {data})." in line, line
    finally:
        assert serve.stop() == 0
    serve.check_clean()
