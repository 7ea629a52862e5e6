"""``cabinet host`` against crowds: many connections, many spectators, no descriptor left.

* limits: spectators over the limit are told so in one sentence, connections that
  never say hello cannot crowd out a player, one address cannot take them all, and
  a seat's player with a valid code always gets in; refusals are logged once, then
  counted;
* a watch code, when the host asks for one: required, and accepted;
* no descriptor left: ``accept`` fails, the host says so in one line, waits, and
  takes the waiting connections once descriptors are free again (a real EMFILE, in
  a process of its own with a low limit);
* a join costs the same whatever the crowd: counted in messages sent and updates
  built, never timed.

Every test starts a real server on loopback and uses small limits, so that it
needs few descriptors.
"""

from __future__ import annotations

import asyncio
import os
import signal
import stat
import sys
from pathlib import Path
from typing import Any

from net import server as server_module
from net.client import JoinError, RemoteTable
from net.protocol import SERVER_MAX, Address
from net.server import GameServer, Limits, codes_path, load_or_make_codes, load_or_make_watch_code
from tests.test_remote import hosted, until
from tests.test_remote_robustness import LOCAL, STEP, Raw, join
from tests.tui_helpers import run_async

ROOT = Path(__file__).resolve().parent.parent


async def start(tmp_path: Path, limits: Limits | None = None, server_cls: type = GameServer, **options: Any):
    """A 2-seat game of 1988 hosted on loopback; the server and every line it logged."""
    writer, codes = hosted(tmp_path, "chirac-mitterrand", 2, 2, seed=3)
    lines: list[str] = []
    server = server_cls(writer, codes, bot_delay=0, log=lines.append, limits=limits, **options)
    await server.start(LOCAL)
    return server, lines


async def open_from(address: Address, local: str) -> Raw:
    """A raw client connecting from the loopback address ``local`` (127.0.0.2: another address)."""
    reader, writer = await asyncio.wait_for(
        asyncio.open_connection(address.host, address.port, local_addr=(local, 0), limit=SERVER_MAX + 4), STEP
    )
    return Raw(reader, writer)


async def close_all(*clients: Raw) -> None:
    for client in clients:
        await client.close()


# -- 11. limits ---------------------------------------------------------------------------------


@run_async
async def test_a_spectator_over_the_limit_is_told_so_and_the_seats_still_join(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(server_module, "LOG_INTERVAL", 3600.0)  # after the first line, every refusal is counted
    server, lines = await start(tmp_path, Limits(connections=8, spectators=3, per_address=8))
    address = server.address
    try:
        watchers = [(await join(address, watch=True))[0] for _ in range(3)]
        for _ in range(5):
            client = await Raw.open(address)
            client.hello(watch=True)
            bye = await client.expect_bye()
            assert bye["message"] == "This game has as many spectators as it takes (3); try again later."
            assert bye["come_back"] is True
            await client.close()
        assert len(server.watchers) == 3
        # the players are not spectators: both get in
        ada, welcome, update = await join(address, server.codes[0])
        bastien, _, _ = await join(address, server.codes[1])
        assert welcome["seat"] == 0 and update["legal"]
        assert sorted(server.players) == [0, 1]
        # a client that cannot watch is told the sentence
        try:
            await RemoteTable(address, None).connect(timeout=STEP)
        except JoinError as exc:
            assert "as many spectators as it takes (3)" in str(exc)
        else:
            raise AssertionError("a fourth spectator was let in")
        # six refusals, one line; the rest is counted, and said in one line an interval
        refusals = [line for line in lines if line.startswith("Refused")]
        assert refusals == [
            "Refused a spectator from 127.0.0.1: This game has as many spectators as it takes (3); try again later."
        ]
        server.refusals.flush()
        assert lines[-1] == "In the last 3600 s: 5 spectators refused by the spectator limit."
        # a spectator who leaves makes room for another
        await watchers[0].close()
        await until(lambda: len(server.watchers) == 2, tries=250)
        again, welcome, _ = await join(address, watch=True)
        assert welcome["seat"] is None and len(server.watchers) == 3
        await close_all(*watchers[1:], again, ada, bastien)
    finally:
        await server.close()


@run_async
async def test_connections_that_never_say_hello_cannot_crowd_out_a_player(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(server_module, "LOG_INTERVAL", 3600.0)
    server, lines = await start(tmp_path, Limits(connections=4, spectators=2, per_address=100))
    address = server.address
    try:
        silent = [await Raw.open(address) for _ in range(12)]
        # the server holds 4 at most: to take each new one it drops the one waiting longest, without a word
        for client in silent[:8]:
            await client.expect_closed()
        await until(lambda: len(server.pending) == 4, tries=250)
        assert len(server.pending) == 4 and server.shared() == 4
        # a player with a code still gets in (one more silent connection makes room for her)
        ada, welcome, update = await join(address, server.codes[0])
        assert welcome["seat"] == 0 and update["legal"]
        await silent[8].expect_closed()
        assert len(server.pending) == 3  # a seat's connection is not counted
        await ada.expect_open()
        assert [line for line in lines if "make room" in line] == [
            (
                "Closed a connection that had not said hello, to make room: "
                "the host holds 4 connections at most besides the seats'."
            )
        ]
        server.refusals.flush()
        assert lines[-1] == "In the last 3600 s: 8 connections closed to make room."
        await close_all(*silent, ada)
    finally:
        await server.close()


@run_async
async def test_one_address_cannot_take_every_spectator_place(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(server_module, "HELLO_GRACE", 3600.0)  # no connection is old enough to drop
    server, lines = await start(tmp_path, Limits(connections=20, spectators=20, per_address=2))
    address = server.address
    try:
        mine = [(await join(address, watch=True))[0] for _ in range(2)]  # from 127.0.0.1
        # a burst of spectators from the full address: each is told the limit in a sentence
        burst = [await Raw.open(address) for _ in range(6)]
        for client in burst:
            client.hello(watch=True)
        for client in burst:
            bye = await client.expect_bye()
            assert bye["message"] == "Too many spectators from your address (2 at most); try again later."
        await close_all(*burst)
        await until(lambda: not server.ending, tries=250)
        monkeypatch.setattr(server_module, "HELLO_GRACE", 0.0)  # now any silent connection may be dropped
        # from another address there is room
        other = await open_from(address, "127.0.0.2")
        other.hello(watch=True)
        assert (await other.recv_kind("welcome"))["seat"] is None
        # silent connections from a full address push out each other, not the others'
        quiet = await open_from(address, "127.0.0.2")
        silent = [await Raw.open(address) for _ in range(3)]
        for dropped in silent[:2]:
            await dropped.expect_closed()
        await until(lambda: len(server.pending) == 2, tries=250)
        assert len(server.pending) == 2  # the last silent one from 127.0.0.1, and the one from 127.0.0.2
        assert len(server.by_key["127.0.0.2"]) == 2  # its spectator and its silent connection
        # a seat's player from the full address gets in
        ada, welcome, _ = await join(address, server.codes[0])
        assert welcome["seat"] == 0
        assert any(line.startswith("Refused a spectator from 127.0.0.1: Too many spectators") for line in lines)
        await close_all(*mine, other, quiet, *silent, ada)
    finally:
        await server.close()


def test_the_limits_keep_room_for_the_process_and_every_seat() -> None:
    for files in (256, 1024, 20000):
        for seats in (1, 5):
            limits = Limits.derive(seats, files=files)
            assert limits.connections + server_module.FILES_PER_SEAT * seats + server_module.RESERVED_FILES <= files
            assert 0 < limits.spectators < limits.connections and 0 < limits.per_address < limits.connections
    assert Limits.derive(2, files=1024, spectators=10).spectators == 10
    assert Limits.derive(2, files=1024, spectators=0).spectators == 0
    assert Limits.derive(2, files=1024, spectators=10**9).spectators == Limits.derive(2, files=1024).spectators


# -- 11. the watch code -------------------------------------------------------------------------


@run_async
async def test_spectators_need_the_watch_code_when_the_host_asks_for_one(tmp_path: Path) -> None:
    server, _ = await start(tmp_path, watch_code="wwww-xxxx-yyyy")
    address = server.address
    try:
        client = await Raw.open(address)
        client.hello(watch=True)
        bye = await client.expect_bye()
        assert bye["message"] == "This game's spectators need the watch code the host printed."
        assert bye["come_back"] is False
        await client.close()
        for wrong in ("wwww-xxxx-yyyz", server.codes[0]):  # a seat's code is not the watch code
            client = await Raw.open(address)
            client.send({"t": "hello", "v": 1, "watch": True, "code": wrong})
            bye = await client.expect_bye()
            assert bye["message"] == "That watch code is not this game's."
            await client.close()
        assert not server.watchers
        # the right code, with --watch (cabinet join ADDR --watch CODE)...
        table = RemoteTable(address, "wwww-xxxx-yyyy", watch=True)
        await table.connect(timeout=STEP)
        assert table.seat == "public"
        # ...or typed where a seat's code goes (the menu's join form)
        typed = RemoteTable(address, "wwww-xxxx-yyyy")
        await typed.connect(timeout=STEP)
        assert typed.seat == "public" and len(server.watchers) == 2
        # the seats' codes still seat their players
        ada = RemoteTable(address, server.codes[0])
        await ada.connect(timeout=STEP)
        assert ada.seat == 0
        for remote in (table, typed, ada):
            await remote.close()
    finally:
        await server.close()


@run_async
async def test_without_a_watch_code_spectators_need_none(tmp_path: Path) -> None:
    server, lines = await start(tmp_path)
    try:
        table = RemoteTable(server.address, None)
        await table.connect(timeout=STEP)
        assert table.seat == "public"
        await table.close()
        # the host's log says a spectator came and went, as it says a seat's player did
        await until(lambda: "A spectator left." in lines)
        assert "A spectator left." in lines, lines
        assert lines.index("A spectator joined.") < lines.index("A spectator left.")
    finally:
        await server.close()


def test_the_watch_code_is_kept_beside_the_save_readable_by_its_user_only(tmp_path: Path) -> None:
    writer, codes = hosted(tmp_path, "agent-jean", 3, 2, seed=4)
    save = writer.path
    assert load_or_make_watch_code(save, wanted=False) is None  # not asked for: none
    watch = load_or_make_watch_code(save, wanted=True)
    assert watch is not None and watch not in codes.values()
    path = codes_path(save)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    # hosted again (--resume): the same seat codes and the same watch code, asked for or not
    assert load_or_make_codes(save, writer.match) == codes
    assert load_or_make_watch_code(save, wanted=True) == watch
    assert load_or_make_watch_code(save, wanted=False) == watch
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]  # no temporary file left
    writer.close()


def test_cabinet_host_with_watch_code_prints_it_and_resume_keeps_it(tmp_path: Path) -> None:
    async def host(*args: str) -> list[str]:
        env = {**os.environ, "CABINET_SAVE_DIR": str(tmp_path)}
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "cabinet",
            "host",
            *args,
            "--listen",
            "127.0.0.1:0",
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=env,
            cwd=ROOT,
        )
        lines: list[str] = []
        try:
            while not any(line.startswith("Ctrl-C") for line in lines):
                raw = await asyncio.wait_for(process.stdout.readline(), 20)
                assert raw, (await process.stderr.read()).decode()
                lines.append(raw.decode().rstrip("\n"))
        finally:
            process.send_signal(signal.SIGINT)
            await asyncio.wait_for(process.communicate(), 20)
        return lines

    first = asyncio.run(host("chirac-mitterrand", "--watch-code"))
    (spectators,) = [line.split() for line in first if line.startswith("  spectators:")]
    assert spectators[1:4] == ["cabinet", "join", spectators[3]] and spectators[4] == "--watch"
    watch = spectators[5]
    (save,) = tmp_path.glob("*.cab")
    again = asyncio.run(host("--resume", str(save)))
    assert [line.split()[5] for line in again if line.startswith("  spectators:")] == [watch]


# -- 11. no descriptor left -------------------------------------------------------------------------

EXHAUSTED = r"""
import asyncio, os, resource, signal, sys
from pathlib import Path
from core.games import get_game
from net.protocol import Address
from net.server import GameServer, load_or_make_codes
from tui.session import new_match, start_save

async def main():
    match = new_match(get_game("chirac-mitterrand"), 2, [], [{"kind": "human"}] * 2, seed=1, bot_seed=1)
    writer = start_save(Path(sys.argv[1]), match, durable=False)
    codes = load_or_make_codes(writer.path, match)
    server = GameServer(writer, codes, bot_delay=0, log=lambda line: print("LOG", line, flush=True))
    address = await server.start(Address(host="127.0.0.1", port=0))
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (64, hard))
    hog = []
    try:
        while True:  # every descriptor left, as a crowd would hold them
            hog.append(os.open(os.devnull, os.O_RDONLY))
    except OSError:
        pass
    print("READY", address.port, codes[0], flush=True)
    while server.accept_failures < int(sys.argv[2]):  # the test's connection waits, accept() fails
        await asyncio.sleep(0.01)
    for fd in hog:
        os.close(fd)
    print("FREED", server.accept_failures, flush=True)
    await stop.wait()
    await server.close()

asyncio.run(main())
"""


@run_async
async def test_out_of_descriptors_the_host_says_so_once_and_takes_the_waiting_player_after(tmp_path: Path) -> None:
    failures = 4
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        EXHAUSTED,
        str(tmp_path),
        str(failures),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=ROOT,
    )
    out: list[str] = []

    async def line(prefix: str) -> list[str]:
        while True:
            raw = await asyncio.wait_for(process.stdout.readline(), STEP * 4)
            assert raw, (await process.stderr.read()).decode()
            out.append(raw.decode().rstrip("\n"))
            if out[-1].startswith(prefix):
                return out[-1].split()

    try:
        _, port, code = await line("READY")
        client = await Raw.open(Address(host="127.0.0.1", port=int(port)))  # queued by the system
        client.hello(code)
        _, seen = await line("FREED")
        assert int(seen) >= failures
        welcome = await client.recv_kind("welcome")  # taken once descriptors were free again
        assert welcome["seat"] == 0
        await client.close()
    finally:
        process.send_signal(signal.SIGTERM)
        rest, err = await asyncio.wait_for(process.communicate(), STEP * 4)
    out += rest.decode().splitlines()
    assert process.returncode == 0 and err == b"", err.decode()[-2000:]
    trouble = [line for line in out if "file descriptors" in line]
    assert len(trouble) == 1, out
    assert trouble[0].startswith("LOG New connections wait: the host is out of file descriptors (Too many open files")


# -- 12. a join costs the same whatever the crowd ------------------------------------------------------


class Counting(GameServer):
    """A server that counts the updates it builds (each: the seat's view, legal commands, events)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.built = 0

    def update_for(self, seat: Any, told: int) -> dict[str, Any]:
        self.built += 1
        return super().update_for(seat, told)


async def crowd(server: GameServer, size: int) -> list[Raw]:
    spectators = []
    for _ in range(size):
        client, _, _ = await join(server.address, watch=True)
        spectators.append(client)
    return spectators


async def one_spectator_joins(tmp_path: Path, size: int) -> tuple[int, int]:
    """Messages sent and updates built for one spectator's join, with ``size`` watching."""
    server, _ = await start(tmp_path / str(size), server_cls=Counting, presence_delay=3600.0)
    try:
        seats = [(await join(server.address, server.codes[s]))[0] for s in range(2)]
        spectators = await crowd(server, size)
        server.broadcast()  # everybody is told everything: nothing is left to tell
        sent, built = server.frames_sent, server.built
        late, welcome, update = await join(server.address, watch=True)
        assert welcome["seat"] is None and update["away"] == []
        server.broadcast()  # whatever the join left to tell anybody is told now
        result = server.frames_sent - sent, server.built - built
        await close_all(*seats, *spectators, late)
        return result
    finally:
        await server.close()


@run_async
async def test_a_spectator_s_join_sends_the_same_messages_whatever_the_crowd(tmp_path: Path) -> None:
    small = await one_spectator_joins(tmp_path, 2)
    large = await one_spectator_joins(tmp_path, 30)
    # its welcome and its update, and nothing to anybody else; the update (the whole history as
    # the public sees it) is the one built for the first of the crowd: no update is built at all
    assert small == large == (2, 0)


@run_async
async def test_seats_coming_and_going_are_told_to_the_crowd_in_one_update(tmp_path: Path) -> None:
    server, _ = await start(tmp_path, presence_delay=3600.0)  # told when the test says, never by a timer
    address = server.address
    try:
        spectators = await crowd(server, 10)
        sent = server.frames_sent
        ada, _, update = await join(address, server.codes[0])
        bastien, _, _ = await join(address, server.codes[1])
        assert server.frames_sent - sent == 4  # two welcomes, two updates: nothing to the crowd yet
        server.tell_presence()
        assert server.frames_sent - sent == 4 + 10 + 1  # one update each, and Ada learns Bastien came
        for client in spectators:
            message = await client.recv_kind("update")
            assert message["away"] == []
        assert (await ada.recv_kind("update"))["away"] == []
        # a move is not held back: it goes at once, and says who is away meanwhile
        await bastien.close()
        await until(lambda: 1 not in server.players, tries=250)
        assert server.presence_handle is not None  # the departure waits to be told...
        assert update["legal"]  # Chirac (seat 0) opens
        sent = server.frames_sent
        ada.send({"t": "command", "command": update["legal"][0]})
        moved = await ada.update_after(update["n"])
        assert moved["away"] == [1]
        for client in spectators:
            assert (await client.update_after(update["n"]))["away"] == [1]
        assert server.presence_handle is None  # ...and was told with the move
        assert server.frames_sent - sent == 1 + 10
        await close_all(*spectators, ada)
    finally:
        await server.close()


@run_async
async def test_a_move_builds_one_update_a_seat_whatever_the_crowd(tmp_path: Path) -> None:
    async def move_with(size: int) -> tuple[int, int]:
        server, _ = await start(tmp_path / str(size), server_cls=Counting, presence_delay=3600.0)
        try:
            ada, _, update = await join(server.address, server.codes[0])
            bastien, _, _ = await join(server.address, server.codes[1])
            spectators = await crowd(server, size)
            server.broadcast()
            sent, built = server.frames_sent, server.built
            ada.send({"t": "command", "command": update["legal"][0]})
            for client in [ada, bastien, *spectators]:
                await client.update_after(update["n"])
            result = server.frames_sent - sent, server.built - built
            await close_all(ada, bastien, *spectators)
            return result
        finally:
            await server.close()

    small_sent, small_built = await move_with(2)
    large_sent, large_built = await move_with(30)
    assert (small_sent, large_sent) == (2 + 2, 2 + 30)  # everybody is told the move...
    assert small_built == large_built == 3  # ...built once for each seat and once for all the spectators


@run_async
async def test_a_crowd_told_a_few_at_a_time_misses_nothing_when_moves_come_meanwhile(
    tmp_path: Path, monkeypatch
) -> None:
    """Spectators are told FAN_OUT a turn of the event loop: two moves in one turn reach the
    players at once, and every spectator gets every event once, in order, whenever its turn comes."""
    monkeypatch.setattr(server_module, "FAN_OUT", 2)
    server, _ = await start(tmp_path, presence_delay=3600.0)
    try:
        ada, _, _ = await join(server.address, server.codes[0])
        bastien, _, _ = await join(server.address, server.codes[1])
        spectators = await crowd(server, 7)
        server.broadcast()
        n = len(server.match.events)
        sent = server.frames_sent
        match = server.match
        for _ in range(2):  # two moves in the same turn of the loop, each saved and told as a seat's would be
            seat = match.active()[0]
            assert server.submit(seat, server.game.legal(match.state, seat)[0]) is None
        assert server.frames_sent - sent == 2 * (2 + 2)  # the players twice, and the first two spectators twice
        final = len(match.events)
        for client in spectators:
            events: dict[int, Any] = {}
            while len(events) < final - n:
                message = await client.recv_kind("update")
                for i, event in message["events"]:
                    assert i not in events and i >= n
                    events[i] = event
            assert sorted(events) == list(range(n, final))
        assert server.frames_sent - sent == 2 * (2 + 2) + 5  # the five others told once, both moves in one update
        await close_all(ada, bastien, *spectators)
    finally:
        await server.close()
