"""The store's calls off the event loop (net.offloop), and a server alone (net.cluster.LocalCluster).

A lane runs its calls one after the other, in the order given, whatever the threads;
a table's log written through a lane keeps its records in order, shows a move only
once it is written, and after a failed write writes nothing that would follow a record
that is not there, until the writer writes the whole log again.  A server alone has a
cluster that does nothing and has nothing elsewhere, and its hall plays over it.
"""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import pytest

from core.games import get_game
from net.cluster import LocalCluster, Quiet
from net.offloop import Offloop, QueuedLog
from saves import SaveError, SaveWriter, load
from saves.format import Log
from saves.store import FileStore
from table import Table, new_match
from tests.test_hall import STEP, lobby_of, open_hall, play_random


def test_a_lane_runs_its_calls_in_order_off_the_loop() -> None:
    async def run() -> None:
        offloop = Offloop(threads=4)
        lane = offloop.lane()
        done: list[int] = []
        threads: set[int] = set()
        loop_thread = threading.get_ident()

        def work(i: int) -> int:
            time.sleep(0.02 if i % 2 == 0 else 0.0)  # the slow ones first: a pool of 4 would reorder them
            threads.add(threading.get_ident())
            done.append(i)
            return i

        seen: list[int] = []
        for i in range(8):
            lane.push(lambda i=i: work(i), lambda result, exc: seen.append(result))
        assert lane.pending
        await lane.idle()
        assert done == list(range(8)) and seen == list(range(8))
        assert loop_thread not in threads
        assert await lane.call(work, 8) == 8
        with pytest.raises(ZeroDivisionError):
            await lane.call(lambda: 1 // 0)
        await offloop.close()

    asyncio.run(run())


class Flaky(Log):
    """A log in memory whose writes fail while ``failing``."""

    name = "flaky"

    def __init__(self) -> None:
        self.data = b""
        self.failing = False
        self.writes = 0

    def key(self) -> bytes | None:
        return None

    def replace(self, data: bytes) -> None:
        self.writes += 1
        if self.failing:
            raise OSError(5, "the disk is gone")
        self.data = data

    def append(self, data: bytes, durable: bool) -> None:
        self.writes += 1
        if self.failing:
            raise OSError(5, "the disk is gone")
        self.data += data

    def resume_at(self, end: int) -> bool:
        return len(self.data) == end

    @property
    def ready(self) -> bool:
        return True

    def release(self) -> None:
        pass


def test_a_queued_log_writes_in_order_and_after_a_failure_writes_the_whole_log_again(tmp_path: Path) -> None:
    async def run() -> None:
        game = get_game("agent-jean")
        assert game is not None
        match = new_match(game, 2, [{"name": "ann"}, {"name": "bob"}], [{"kind": "human"}, {"kind": "human"}])
        flaky = Flaky()
        offloop = Offloop()
        errors: list[str] = []
        writer = SaveWriter(flaky, match, on_error=errors.append)
        writer.write_with(lambda log, failed: QueuedLog(log, offloop.lane(), failed))

        table = Table(match, writer)  # as a served table plays: the move, then its record

        def play() -> None:
            seat = match.active()[0]
            assert table.submit(seat, game.legal(match.state, seat)[0]) is None

        play()
        assert writer.pending  # asked, not written yet: nothing is shown meanwhile
        shown: list[bool] = []
        writer.when_written(lambda: shown.append(True))
        assert not shown
        await offloop.drain()
        assert shown and not writer.pending

        flaky.failing = True
        play()
        play()  # queued after the one that fails: not written (it would follow a record not there)
        await offloop.drain()
        assert errors and "the disk is gone" in errors[0]
        writes = flaky.writes
        assert writes == 3  # the first move, then the failed one; the next was not tried

        flaky.failing = False
        play()  # the writer's error: the whole log is written again, every move in it
        await offloop.drain()
        assert flaky.writes == writes + 1
        (tmp_path / "g.cab").write_bytes(flaky.data)
        assert load(tmp_path / "g.cab").match.events == match.events
        writer.close()
        await offloop.close()

    asyncio.run(run())


def test_a_server_alone_has_nothing_elsewhere() -> None:
    cluster = LocalCluster()
    heard: list[dict] = []
    news = cluster.listen(heard.append)
    assert isinstance(news, Quiet) and news.pid == 0
    cluster.publish({"t1": b"listing"})
    cluster.notify({"t": "lobby"})
    cluster.seat_here("t1", 0, news.pid, True)
    assert cluster.summaries() == {} and cluster.take_commands("t1") == [] and cluster.seated("t1", 0) == set()
    assert cluster.leases_alive() and cluster.reachable and heard == []
    with pytest.raises(SaveError, match="not served by another server"):
        cluster.records_after("t1", -1)
    with pytest.raises(OSError, match="not served by another server"):
        cluster.relay("t1", 0, "command", b"", 0)


def test_a_hall_alone_plays_over_its_local_cluster_and_writes_off_the_loop(tmp_path: Path) -> None:
    async def run() -> None:
        hall = await open_hall(tmp_path)
        try:
            assert isinstance(hall.cluster, LocalCluster) and isinstance(hall.store, FileStore)
            ann, task = await lobby_of(hall, "ann")
            made = await ann.request(
                {
                    "t": "create",
                    "game": "agent-jean",
                    "players": 2,
                    "seats": [{}, {"kind": "bot", "level": "random"}],
                    "sit": 0,
                }
            )
            assert made["ok"] and made["started"]
            remote = ann.table(made["table"])
            await remote.connect(timeout=STEP)
            await asyncio.wait_for(play_random(remote, 3, stop_after=3), 60)
            table = hall.tables[made["table"]]
            assert table.server is not None and table.server.save is not None
            assert isinstance(table.server.save._log, QueuedLog)  # written in its lane
            await hall.offloop.drain()
            saved = load(hall.store.source(made["table"])).match.events
            # every event Ann was shown is saved (a bot may have moved since: its move after them)
            assert len(saved) >= len(remote.events) and table.server.match.events[: len(saved)] == saved
            assert hall.elsewhere == {} and hall.followers == {}  # nothing is served elsewhere
            await remote.close()
            await ann.close()
            await asyncio.wait_for(task, STEP)
        finally:
            await hall.close()

    asyncio.run(run())
