"""The game server against clients that misbehave, and what it tells each seat.

Four groups of tests, each on a real server over loopback TCP:

* malformed input, each case on its own connection (random bytes, truncated
  and oversized frames, wrong versions and codes, messages that are not maps,
  commands for another seat or out of turn): the server answers with an error
  or a bye as the protocol says, never crashes, and afterwards still serves a
  well-behaved client (hello, welcome, update, a legal move accepted);
* a flood far over the message rate: slowed, never dropped, every message
  answered in order, the other player served meanwhile;
* leaks: whole games of the four games, bots inside the server and in-test
  clients playing random legal moves, with every message checked as the server
  sends it (``on_send``) and as the clients receive it: the views and events
  are exactly the seat's, nothing of ``view(ALL)`` the seat may not see is
  ever sent, the seeds never are, and a spectator sees what ``PUBLIC`` sees;
* Edgar & Lucien with three remote humans programming at the same moment.

Every wait is bounded by ``STEP`` seconds and every loop by a message count.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack
import pytest

from core.engine import ALL, PUBLIC
from core.games import get_game
from net import server as server_module
from net.client import RemoteTable
from net.protocol import SERVER_MAX, VERSION, Address, open_connection, pack, read_frame
from net.server import GameServer, load_or_make_codes
from tests.random_games import strings
from tui.session import new_match, start_save

STEP = 5.0  # seconds any one wait may take
GAME_TIME = 30.0  # seconds a whole networked game may take
MAX_MESSAGES = 20_000  # messages any one client reads
LOCAL = Address(host="127.0.0.1", port=0)


def norm(value: Any) -> Any:
    """A value as it comes out of the wire (tuples become lists)."""
    return msgpack.unpackb(msgpack.packb(value, use_bin_type=True), raw=False)


def big_seed(rng: random.Random) -> int:
    """A 48-bit seed, far from any number a game shows (Cogs, counts, indexes)."""
    return rng.getrandbits(47) | (1 << 47)


# -- a raw client ------------------------------------------------------------------------------


class Raw:
    """A client that says exactly what a test makes it say."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    @classmethod
    async def open(cls, address: Address) -> Raw:
        reader, writer = await asyncio.wait_for(open_connection(address), STEP)
        return cls(reader, writer)

    def send(self, message: Any) -> None:
        self.writer.write(pack(message))

    def send_bytes(self, data: bytes) -> None:
        self.writer.write(data)

    def hello(self, code: str | None = None, watch: bool = False) -> None:
        message: dict[str, Any] = {"t": "hello", "v": VERSION}
        if watch:
            message["watch"] = True
        else:
            message["code"] = code
        self.send(message)

    async def recv(self) -> dict[str, Any] | None:
        """The next message; None once the server has closed.  A hang fails the test."""
        try:
            return await asyncio.wait_for(read_frame(self.reader, SERVER_MAX), STEP)
        except (ConnectionResetError, BrokenPipeError):
            return None

    async def recv_kind(self, *kinds: str, limit: int = 50) -> dict[str, Any]:
        """Skip messages (updates from others' moves) up to one of ``kinds``."""
        for _ in range(limit):
            message = await self.recv()
            assert message is not None, f"closed while waiting for {kinds}"
            if message["t"] in kinds:
                return message
        raise AssertionError(f"no {kinds} in {limit} messages")

    async def update_after(self, n: int, limit: int = 50) -> dict[str, Any]:
        """The first update past ``n`` events (others' comings and goings send updates too)."""
        for _ in range(limit):
            message = await self.recv_kind("update", limit=limit)
            if message["n"] > n:
                return message
        raise AssertionError(f"no update past {n} events in {limit} messages")

    async def expect_bye(self, limit: int = 50) -> dict[str, Any]:
        """A bye (after any updates), then the end of the stream."""
        message = await self.recv_kind("bye", limit=limit)
        assert isinstance(message["message"], str) and message["message"]
        await self.expect_closed()
        return message

    async def expect_closed(self) -> None:
        try:
            rest = await asyncio.wait_for(self.reader.read(), STEP)
        except (ConnectionResetError, BrokenPipeError):
            return
        assert rest == b"", f"data after the end: {rest[:40]!r}"

    async def expect_open(self) -> None:
        """The connection still answers: a ping gets its pong."""
        self.send({"t": "ping"})
        await self.recv_kind("pong")

    async def close(self) -> None:
        self.writer.close()
        with contextlib.suppress(ConnectionError, OSError):
            await asyncio.wait_for(self.writer.wait_closed(), STEP)


async def join(address: Address, code: str | None = None, watch: bool = False) -> tuple[Raw, dict, dict]:
    """A well-behaved client's handshake: its connection, welcome and first update."""
    client = await Raw.open(address)
    client.hello(code, watch)
    welcome = await client.recv()
    assert welcome is not None and welcome["t"] == "welcome", welcome
    update = await client.recv_kind("update")
    return client, welcome, update


# -- a hosted game -----------------------------------------------------------------------------


class Hosted:
    """A match, its save, its server and every message the server sent (by seat)."""

    def __init__(
        self,
        tmp_path: Path,
        game_id: str,
        players: int,
        humans: list[int],
        seed: int,
        variants: dict[str, str] | None = None,
        levels: tuple[str, ...] = ("random",),
    ) -> None:
        self.game = get_game(game_id)
        rng = random.Random(seed)
        self.seed, self.bot_seed = big_seed(rng), big_seed(rng)
        controllers = [
            {"kind": "human"} if s in humans else {"kind": "bot", "level": levels[s % len(levels)]}
            for s in range(players)
        ]
        seats = [{"name": f"Player {s + 1}"} for s in range(players)]
        self.match = new_match(
            self.game, players, seats, controllers, seed=self.seed, bot_seed=self.bot_seed, variants=variants
        )
        self.writer = start_save(tmp_path, self.match, durable=False)
        self.codes = load_or_make_codes(self.writer.path, self.match)
        self.sent: dict[Any, list[dict[str, Any]]] = {}
        self.failures: list[str] = []
        self.extra_check: Callable[[Any, dict[str, Any], Any], None] | None = None
        self.server = GameServer(self.writer, self.codes, bot_delay=0, on_send=self.on_send)
        self.address: Address | None = None

    async def start(self) -> Address:
        self.address = await self.server.start(LOCAL)
        return self.address

    # -- checked as the server sends, when match.state is the state the message shows ---------

    def on_send(self, seat: Any, message: dict[str, Any]) -> None:
        try:
            self.check_sent(seat, norm(message))
        except Exception as exc:  # noqa: BLE001 - the server must not see the test's assertions
            self.failures.append(f"to {seat!r}: {type(exc).__name__}: {exc}")

    def check_sent(self, seat: Any, message: dict[str, Any]) -> None:
        self.sent.setdefault(seat, []).append(message)
        secret = {self.seed, self.bot_seed}
        for value in leaves(message):
            assert value not in secret, f"a seed in {message['t']}"
            if isinstance(value, str):
                assert not any(str(s) in value for s in secret), f"a seed in {message['t']}"
        if seat is None:  # before the handshake: only a bye
            assert message["t"] == "bye", message
            return
        game, match = self.game, self.match
        kind = message["t"]
        assert kind in ("welcome", "update", "view_at", "error", "pong", "bye"), kind
        state = match.state_at(message["n"]) if kind == "view_at" else match.state
        # (b) nothing that view(ALL) shows and the seat's own view does not, outside the events
        legal = game.legal(state, seat) if isinstance(seat, int) and seat in match.active() else None
        allowed = strings(norm(game.view(state, seat))) | strings(norm(legal or []))
        forbidden = strings(norm(game.view(state, ALL))) - allowed
        outside = strings({k: v for k, v in message.items() if k != "events"})
        assert not outside & forbidden, f"{kind} shows {sorted(outside & forbidden)[:5]}"
        if kind == "update":
            # (a) exactly the seat's view, legal commands and redacted events
            assert message["n"] == len(match.events)
            assert message["view"] == norm(game.view(state, seat))
            assert message["legal"] == (None if legal is None else norm(legal))
            for i, event in message["events"]:
                assert event == norm(game.redact(match.events[i], seat)), (i, event)
        elif kind == "view_at":
            assert message["view"] == norm(game.view(state, seat))
        elif kind == "welcome":
            assert message["seat"] == (seat if isinstance(seat, int) else None)
        if self.extra_check is not None:
            self.extra_check(seat, message, state)

    async def close(self) -> None:
        await asyncio.wait_for(self.server.close(), STEP)


def leaves(value: Any):
    """Every scalar inside a plain value (keys too)."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from leaves(k)
            yield from leaves(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from leaves(v)
    else:
        yield value


class LoopErrors:
    """Exceptions nobody caught inside the event loop (a crashed connection handler, say)."""

    def __init__(self) -> None:
        self.contexts: list[dict[str, Any]] = []

    def install(self) -> None:
        asyncio.get_running_loop().set_exception_handler(lambda loop, context: self.contexts.append(context))

    def check(self) -> None:
        assert not self.contexts, [c.get("message") or repr(c.get("exception")) for c in self.contexts]


# -- 1. malformed input ------------------------------------------------------------------------


async def still_serves(hosted: Hosted, rng: random.Random) -> None:
    """A well-behaved client joins as the seat to move and has a legal move accepted."""
    address = hosted.address
    for seat, code in sorted(hosted.codes.items()):
        client, welcome, update = await join(address, code)
        try:
            assert welcome["seat"] == seat and welcome["v"] == VERSION
            assert update["n"] == len(hosted.match.events)
            if not update["legal"]:
                continue
            client.send({"t": "command", "command": rng.choice(update["legal"])})
            after = await client.recv()
            assert after is not None and after["t"] == "update", after  # no error first
            assert after["n"] > update["n"]
            return
        finally:
            await client.close()
    raise AssertionError("no seat had a move to play")


async def send_then_bye(address: Address, *frames: bytes, hello: str | None = None) -> dict[str, Any]:
    """Open, (say hello,) send the bytes; the server must say bye and close."""
    client = await Raw.open(address)
    try:
        if hello is not None:
            client.hello(hello)
            assert (await client.recv_kind("welcome"))["t"] == "welcome"
        for frame in frames:
            client.send_bytes(frame)
        return await client.expect_bye()
    finally:
        await client.close()


def frame_of(body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + body


async def case_random_bytes(h: Hosted, rng: random.Random) -> None:
    for size in (1, 7, 100, 4096, 70_000):
        data = rng.randbytes(size)
        client = await Raw.open(h.address)
        client.send_bytes(data)
        if size >= 4:
            # a random length is all but surely over CLIENT_MAX: refused before its body is read
            await client.expect_bye()
        else:
            client.writer.write_eof()  # a piece of a length, then the end
            await client.expect_bye()
        await client.close()
    # random bodies in well-formed frames, before and after the hello
    for size in (1, 33, 2000):
        await send_then_bye(h.address, frame_of(b"\xc1" + rng.randbytes(size)))  # 0xc1: never valid msgpack
        await send_then_bye(h.address, frame_of(b"\xc1" + rng.randbytes(size)), hello=h.codes[0])
        await send_then_bye(h.address, frame_of(rng.randbytes(size)) * 3)


async def case_truncated_frame(h: Hosted, rng: random.Random) -> None:
    # the length says 100, 10 bytes come, then the connection closes
    client = await Raw.open(h.address)
    client.send_bytes(struct.pack(">I", 100) + rng.randbytes(10))
    await client.close()
    # the same, half-closed so that the bye can be read; before and after the hello
    for code in (None, h.codes[0]):
        client = await Raw.open(h.address)
        if code is not None:
            client.hello(code)
            await client.recv_kind("update")
        client.send_bytes(struct.pack(">I", 100) + rng.randbytes(10))
        client.writer.write_eof()
        bye = await client.expect_bye()
        assert "middle of a frame" in bye["message"]
        await client.close()


async def case_huge_length(h: Hosted, rng: random.Random) -> None:
    for code in (None, h.codes[0]):
        client = await Raw.open(h.address)
        if code is not None:
            client.hello(code)
            await client.recv_kind("update")
        # only the length and a few bytes: the answer must come without the body
        client.send_bytes(b"\xff\xff\xff\xff" + b"\x00" * 16)
        bye = await client.expect_bye()
        assert "over the limit" in bye["message"]
        await client.close()
    # the length and a good part of its body, sent before the answer is read: the bye must
    # still arrive (a socket closed with unread input is reset, and a reset loses the bye)
    client = await Raw.open(h.address)
    client.send_bytes(b"\xff\xff\xff\xff" + rng.randbytes(300_000))
    bye = await client.expect_bye()
    assert "over the limit" in bye["message"]
    await client.close()
    # just over CLIENT_MAX
    bye = await send_then_bye(h.address, struct.pack(">I", server_module.CLIENT_MAX + 1))
    assert "over the limit" in bye["message"]


async def case_wrong_version(h: Hosted, rng: random.Random) -> None:
    for version in (VERSION + 1, 0, None, "1", [1]):
        hello = {"t": "hello", "code": h.codes[0]}
        if version is not None:
            hello["v"] = version
        bye = await send_then_bye(h.address, pack(hello))
        assert "version" in bye["message"] and bye["come_back"] is False
    assert 0 not in h.server.players


async def case_wrong_code(h: Hosted, rng: random.Random) -> None:
    good = h.codes[0]
    for code in ("aaaa-bbbb-cccc", good.upper(), good + "x", good[:-1], "", 7, None, [good], {"code": good}):
        bye = await send_then_bye(h.address, pack({"t": "hello", "v": VERSION, "code": code}))
        assert "code" in bye["message"] and bye["come_back"] is False
    assert not h.server.players


async def case_no_hello(h: Hosted, rng: random.Random) -> None:
    for first in ({"t": "command", "command": {"t": "Done"}}, {"t": "ping"}, {"t": "welcome", "v": VERSION}):
        bye = await send_then_bye(h.address, pack(first))
        assert "hello" in bye["message"]


async def case_not_a_map(h: Hosted, rng: random.Random) -> None:
    bodies = [[1, 2, 3], "hello", 5, None, True, b"\x00", {}, {"x": 1}, {"t": 5}, {"t": None}, {b"t": "hello"}]
    for body in bodies:
        raw = msgpack.packb(body, use_bin_type=True)
        await send_then_bye(h.address, frame_of(raw))
        await send_then_bye(h.address, frame_of(raw), hello=h.codes[0])
    # a map with a key that is not a string (strict_map_key), and trailing bytes after a map
    await send_then_bye(h.address, frame_of(b"\x81\x01\x02"))
    await send_then_bye(h.address, frame_of(msgpack.packb({"t": "ping"}) + b"\x00"), hello=h.codes[0])
    # too deep to unpack
    await send_then_bye(h.address, frame_of(b"\x91" * 5000 + b"\x00"), hello=h.codes[0])


async def seats_to_move(h: Hosted) -> tuple[int, int]:
    """A human seat to move and one that is not (both humans in these tests)."""
    active = h.match.active()
    mover = next(s for s in sorted(h.codes) if s in active)
    waiter = next(s for s in sorted(h.codes) if s not in active)
    return mover, waiter


async def case_other_seat(h: Hosted, rng: random.Random) -> None:
    mover, waiter = await seats_to_move(h)
    client, _, update = await join(h.address, h.codes[mover])
    n = update["n"]
    for other in (waiter, -1, 99, "all", None, [mover]):
        client.send({"t": "command", "seat": other, "command": update["legal"][0]})
        error = await client.recv_kind("error")
        assert "seat" in error["message"]
    await client.expect_open()
    assert len(h.match.events) == n  # nothing was played
    await client.close()


async def case_not_your_move(h: Hosted, rng: random.Random) -> None:
    mover, waiter = await seats_to_move(h)
    client, _, update = await join(h.address, h.codes[waiter])
    assert update["legal"] is None
    n = update["n"]
    legal = h.game.legal(h.match.state, mover)
    for command in legal[:5]:
        client.send({"t": "command", "command": command})
        client.send({"t": "command", "seat": waiter, "command": command})
        for _ in range(2):
            error = await client.recv_kind("error")
            assert "not your move" in error["message"]
    await client.expect_open()
    assert len(h.match.events) == n
    await client.close()


async def case_bad_commands(h: Hosted, rng: random.Random) -> None:
    mover, _ = await seats_to_move(h)
    client, _, update = await join(h.address, h.codes[mover])
    n = update["n"]
    bad = [
        {"t": "command"},
        {"t": "command", "command": None},
        {"t": "command", "command": "Done"},
        {"t": "command", "command": ["Done"]},
        {"t": "command", "command": 3},
        {"t": "command", "command": {}},
        {"t": "command", "command": {"t": 5}},
        {"t": "command", "command": {"t": "NoSuchCommand"}},
        {"t": "command", "command": {"t": "Done", "x": [1, {"y": None}]}},
        {"t": "command", "command": {**update["legal"][0], "t": "Nope"}},
        {
            "t": "command",
            "command": {k: [v] for k, v in update["legal"][0].items() if k != "t"} | {"t": update["legal"][0]["t"]},
        },
        {"t": "dance"},
        {"t": "hello", "v": VERSION, "code": h.codes[mover]},
        {"t": "view_at"},
        {"t": "view_at", "n": "3"},
        {"t": "view_at", "n": True},
        {"t": "view_at", "n": 1.5},
    ]
    for message in bad:
        client.send(message)
        reply = await client.recv()
        assert reply is not None and reply["t"] == "error", (message, reply)
        assert isinstance(reply["message"], str) and reply["message"]
    for far in (-(2**63), -1, 0, 2**64 - 1):
        client.send({"t": "view_at", "n": far})
        reply = await client.recv_kind("view_at")
        assert reply["n"] == max(0, min(far, n))
    await client.expect_open()
    assert len(h.match.events) == n
    await client.close()


async def case_spectator(h: Hosted, rng: random.Random) -> None:
    mover, _ = await seats_to_move(h)
    client, welcome, update = await join(h.address, watch=True)
    assert welcome["seat"] is None and update["legal"] is None
    n = update["n"]
    for seat in (None, mover):
        message: dict[str, Any] = {"t": "command", "command": h.game.legal(h.match.state, mover)[0]}
        if seat is not None:
            message["seat"] = seat
        client.send(message)
        error = await client.recv_kind("error")
        assert "spectator" in error["message"].lower()
    await client.expect_open()
    assert len(h.match.events) == n
    await client.close()


async def case_no_hello_in_time(h: Hosted, rng: random.Random) -> None:
    client = await Raw.open(h.address)  # says nothing: HELLO_TIMEOUT is short in this test
    bye = await client.expect_bye()
    assert "hello" in bye["message"]
    await client.close()
    client = await Raw.open(h.address)  # half a hello, then nothing
    client.send_bytes(pack({"t": "hello", "v": VERSION, "code": h.codes[0]})[:9])
    await client.expect_bye()
    await client.close()


async def case_deaf_after_bye(h: Hosted, rng: random.Random) -> None:
    """Told bye, a client that neither reads nor closes but keeps sending: the server hangs up."""
    client = await Raw.open(h.address)
    client.send_bytes(b"\xff\xff\xff\xff")
    loop = asyncio.get_running_loop()
    start = loop.time()
    junk = rng.randbytes(16_384)
    ended = False
    while loop.time() - start < STEP:
        try:
            client.send_bytes(junk)
            await asyncio.wait_for(client.writer.drain(), STEP)
        except (ConnectionError, OSError):
            ended = True
            break
        if client.reader.at_eof() or client.writer.is_closing():
            ended = True
            break
        await asyncio.sleep(0.01)
    assert ended, "the server kept a connection it had said bye to"
    assert loop.time() - start < server_module.LINGER + 2
    await client.close()
    for _ in range(100):  # the connection's task ends with it
        if not h.server.tasks:
            break
        await asyncio.sleep(0.02)
    assert not h.server.tasks


async def case_joined_twice(h: Hosted, rng: random.Random) -> None:
    first, _, _ = await join(h.address, h.codes[0])
    second, _, update = await join(h.address, h.codes[0])
    bye = await first.expect_bye()
    assert bye["come_back"] is False and "again" in bye["message"]
    await first.close()
    await second.expect_open()
    assert h.server.players[0] is not None and 0 not in update["away"]
    await second.close()


async def case_gone_without_a_word(h: Hosted, rng: random.Random) -> None:
    """Connections dropped at every point of the handshake, and a seat reported away."""
    client = await Raw.open(h.address)
    await client.close()
    client = await Raw.open(h.address)
    client.hello(h.codes[0])
    await client.close()  # before reading the welcome
    watcher, _, _ = await join(h.address, watch=True)
    client, _, update = await join(h.address, h.codes[1])
    assert 1 not in update["away"]
    client.writer.transport.abort()  # a reset, not a clean close
    for _ in range(20):
        message = await watcher.recv_kind("update")
        if 1 in message["away"]:
            break
    else:
        raise AssertionError("seat 2 was never reported away")
    await watcher.close()


CASES = {
    "random bytes": case_random_bytes,
    "truncated frame": case_truncated_frame,
    "huge length": case_huge_length,
    "wrong version": case_wrong_version,
    "wrong code": case_wrong_code,
    "no hello": case_no_hello,
    "not a map": case_not_a_map,
    "command for another seat": case_other_seat,
    "command out of turn": case_not_your_move,
    "bad commands": case_bad_commands,
    "spectator command": case_spectator,
    "no hello in time": case_no_hello_in_time,
    "deaf after bye": case_deaf_after_bye,
    "joined twice": case_joined_twice,
    "gone without a word": case_gone_without_a_word,
}


@pytest.mark.parametrize("game_id", ["agent-jean", "edgar-lucien"])
@pytest.mark.parametrize("case", list(CASES))
def test_malformed_input_leaves_the_server_serving(tmp_path: Path, monkeypatch, case: str, game_id: str) -> None:
    monkeypatch.setattr(server_module, "HELLO_TIMEOUT", 0.5)
    monkeypatch.setattr(server_module, "LINGER", 0.5)
    seed = sorted(CASES).index(case) + 31 * len(game_id)

    async def run() -> None:
        errors = LoopErrors()
        errors.install()
        rng = random.Random(seed)
        hosted = Hosted(tmp_path, game_id, 2, humans=[0, 1], seed=seed)
        await hosted.start()
        try:
            await still_serves(hosted, rng)
            await asyncio.wait_for(CASES[case](hosted, rng), 6 * STEP)
            await still_serves(hosted, rng)
            await still_serves(hosted, rng)
        finally:
            await hosted.close()
        await asyncio.sleep(0)
        assert not hosted.failures, hosted.failures[:5]
        errors.check()
        assert hosted.server.players == {} and not hosted.server.watchers

    asyncio.run(run())


# -- 2. a flood --------------------------------------------------------------------------------


def test_a_client_over_its_rate_is_slowed_and_every_message_answered_in_order(tmp_path: Path, monkeypatch) -> None:
    """A seat sends thirty bursts' worth of messages in one write: the server reads them at
    its rate (it says so in its log), answers every one in order and keeps the connection;
    the other player moves meanwhile.  A spectator sending more than the server would read
    in minutes finds its messages left in the socket: the server stops reading it."""
    monkeypatch.setattr(server_module, "RATE", 50.0)
    monkeypatch.setattr(server_module, "BURST", 5.0)
    count = 150

    async def run() -> None:
        errors = LoopErrors()
        errors.install()
        rng = random.Random(5)
        hosted = Hosted(tmp_path, "agent-jean", 2, humans=[0, 1], seed=5)
        lines: list[str] = []
        hosted.server.log = lines.append
        await hosted.start()
        try:
            mover, waiter = await seats_to_move(hosted)
            good, _, update = await join(hosted.address, hosted.codes[mover])
            flooder, _, first = await join(hosted.address, hosted.codes[waiter])
            n = first["n"]
            asked = [{"t": "ping"} if i % 10 == 9 else {"t": "view_at", "n": i % (n + 1)} for i in range(count)]
            flooder.send_bytes(b"".join(pack(m) for m in asked))  # as fast as it goes: one write
            # the other player is served while the flood is read
            good.send({"t": "command", "command": rng.choice(update["legal"])})
            await good.update_after(n)
            for sent in asked:
                reply = await flooder.recv_kind("pong" if sent["t"] == "ping" else "view_at")  # updates skipped
                assert reply["t"] != "view_at" or reply["n"] == sent["n"], (sent, reply)
            await flooder.expect_open()
            assert any(line == f"Slowed Player {waiter + 1} down to 50 messages a second." for line in lines), lines

            spectator, _, _ = await join(hosted.address, watch=True)
            (held,) = hosted.server.watchers
            spectator.send_bytes(pack({"t": "ping"}) * 50_000)  # 600 kB: over 16 minutes of answers
            for _ in range(250):
                if not held.writer.transport.is_reading():
                    break
                await asyncio.sleep(0.02)
            assert not held.writer.transport.is_reading(), "the server read the flood into its memory"
            assert not held.closed
            await spectator.close()
            await flooder.close()
            await good.close()
            await still_serves(hosted, rng)
        finally:
            await hosted.close()
        await asyncio.sleep(0)
        assert not hosted.failures, hosted.failures[:5]
        errors.check()

    asyncio.run(run())


# -- 3. what each seat is told ------------------------------------------------------------------


def edgar_lucien_check(seat: Any, message: dict[str, Any], state: Any) -> None:
    """No other seat's program before the reveal; no other seat's Cogs under hidden fortunes."""
    own = seat if isinstance(seat, int) else None
    view = message.get("view")
    if view is not None:
        for i, player in enumerate(view["players"]):
            if i == own:
                continue
            if not state.revealed:
                assert player["program"] is None, f"seat {i}'s program shown to {seat!r}"
            if state.hidden and state.phase != "over":
                assert player["cogs"] is None, f"seat {i}'s Cogs shown to {seat!r}"
                assert view["bank"] is None
            assert player["cards"] is None
    for _, event in message.get("events") or []:
        if event["t"] == "Programmed" and event["seat"] != own:
            assert set(event) <= {"t", "seat", "name"}, f"a program in {event}"
    # the programs of others as they stand, before their reveal, nowhere outside the events
    # (the events may hold earlier rounds' programs, revealed then, which may be the same pair)
    if not state.revealed:
        hidden = [{"edgar": p[0], "lucien": p[1]} for i, p in enumerate(state.programs) if p is not None and i != own]
        outside = {k: v for k, v in message.items() if k != "events"}
        if hidden and not own_program_equal(state, own, hidden):
            assert not any(contains(outside, p) for p in hidden), "another seat's program"


def contains(value: Any, part: Any) -> bool:
    if value == part:
        return True
    if isinstance(value, dict):
        return any(contains(v, part) for v in value.values())
    if isinstance(value, list):
        return any(contains(v, part) for v in value)
    return False


def own_program_equal(state: Any, own: int | None, programs: list[dict]) -> bool:
    """The seat's own program (which it may see) happens to be the same pair."""
    if own is None or state.programs[own] is None:
        return False
    mine = {"edgar": state.programs[own][0], "lucien": state.programs[own][1]}
    return mine in programs


class Player:
    """An in-test client playing random legal moves; it reads until the game is over."""

    def __init__(self, hosted: Hosted, seat: Any, rng: random.Random, rejoin_after: int | None = None) -> None:
        self.hosted = hosted
        self.seat = seat
        self.rng = rng
        self.rejoin_after = rejoin_after
        self.connections: list[list[dict[str, Any]]] = []  # what each connection received
        self.errors = 0
        self.commands = 0

    async def run(self) -> None:
        address, code = self.hosted.address, self.hosted.codes.get(self.seat)
        watch = self.seat == PUBLIC
        client = await Raw.open(address)
        client.hello(code, watch)
        received: list[dict[str, Any]] = []
        self.connections.append(received)
        latest: dict[str, Any] | None = None
        acted: int | None = None
        updates = 0
        for _ in range(MAX_MESSAGES):
            message = await client.recv()
            assert message is not None, f"{self.seat!r}: the server closed the connection"
            received.append(message)
            kind = message["t"]
            assert kind in ("welcome", "update", "view_at", "error"), message
            if kind == "error":
                # A stale move (a bot moved first).  Nothing to redo: a move refused because the
                # state had moved on comes after the update that says so (which had its turn).
                self.errors += 1
            if kind == "update":
                latest = message
                updates += 1
                if message["outcome"] is not None:
                    break
                if self.rejoin_after is not None and updates == self.rejoin_after:
                    self.rejoin_after = None
                    await client.close()
                    client = await Raw.open(address)
                    client.hello(code, watch)
                    received = []
                    self.connections.append(received)
                    latest, acted = None, None
                    continue
                if self.rng.random() < 0.03:
                    client.send({"t": "view_at", "n": self.rng.randrange(message["n"] + 1)})
            if latest is not None and latest["legal"] and acted != latest["n"]:
                acted = latest["n"]
                client.send({"t": "command", "command": self.rng.choice(latest["legal"])})
                self.commands += 1
        else:
            raise AssertionError(f"{self.seat!r}: no outcome in {MAX_MESSAGES} messages")
        await client.close()

    def check(self) -> None:
        """What the connections received is what the server sent, and the whole redacted log."""
        hosted = self.hosted
        log = hosted.sent.get(self.seat, [])
        welcomes = [i for i, m in enumerate(log) if m["t"] == "welcome"]
        assert len(welcomes) == len(self.connections)
        for start, received in zip(welcomes, self.connections, strict=True):
            assert received == log[start : start + len(received)]
        events: list[Any] = []
        for message in self.connections[-1]:
            if message["t"] == "update":
                for i, event in message["events"]:
                    assert i == len(events)
                    events.append(event)
        match, game = hosted.match, hosted.game
        assert events == [norm(game.redact(e, self.seat)) for e in match.events]
        # (a) again, against the log as it ended
        for message in log:
            if message["t"] == "update":
                assert message["view"] == norm(game.view(match.state_at(message["n"]), self.seat))
        last = self.connections[-1][-1]
        assert last["t"] == "update" and last["outcome"] is not None
        if isinstance(self.seat, int):
            # every command was taken or refused with an error (at most once each)
            played = sum(1 for m in match.moves if m.seat == self.seat)
            refused = sum(1 for m in log if m["t"] == "error")
            assert played >= 1 and played + refused <= self.commands


#: game, players, human seats, variants: several tables per game
TABLES = {
    "agent-jean": [
        (2, [0], {}),
        (3, [1, 2], {"young": "on"}),
        (4, [0, 3], {"bonus": "board"}),
        (5, [2], {}),
    ],
    "chirac-mitterrand": [
        (1, [0], {}),
        (2, [1], {}),
        (2, [0, 1], {}),
        (2, [0], {}),
    ],
    "ministeres": [
        (2, [0], {}),
        (3, [0, 2], {"bids": "covered"}),
        (4, [1], {"unsold": "opener", "dealer_roi": "kept"}),
        (5, [3, 4], {}),
    ],
    "edgar-lucien": [
        (2, [0], {"fortunes": "hidden"}),
        (3, [1, 2], {"fortunes": "hidden", "deck": "20"}),
        (4, [0, 2], {"fortunes": "open", "start": "anywhere"}),
        (3, [0], {"fortunes": "hidden", "start": "anywhere"}),
    ],
}


async def play_hosted(hosted: Hosted, seed: int, rejoin: bool) -> list[Player]:
    rng = random.Random(seed)
    humans = sorted(hosted.codes)
    players = [
        Player(hosted, seat, random.Random(rng.random()), rejoin_after=5 if rejoin and k == 0 else None)
        for k, seat in enumerate(humans)
    ]
    spectator = Player(hosted, PUBLIC, random.Random(rng.random()))
    await hosted.start()
    try:
        await asyncio.wait_for(asyncio.gather(*(p.run() for p in [spectator, *players])), GAME_TIME)
    finally:
        await hosted.close()
    return [spectator, *players]


@pytest.mark.parametrize("game_id", list(TABLES))
def test_nobody_is_told_what_their_seat_may_not_know(tmp_path: Path, monkeypatch, game_id: str) -> None:
    # the in-test humans move as fast as the bots: no rate limit here (the flood test has it)
    monkeypatch.setattr(server_module, "RATE", 1e9)
    for k, (players, humans, variants) in enumerate(TABLES[game_id]):
        seed = 1000 * k + len(game_id)

        async def run(
            k: int, players: int, humans: list[int], variants: dict[str, str], seed: int
        ) -> tuple[Hosted, list[Player]]:
            errors = LoopErrors()
            errors.install()
            hosted = Hosted(tmp_path, game_id, players, humans, seed, variants=variants, levels=("random", "easy"))
            if game_id == "edgar-lucien":
                hosted.extra_check = edgar_lucien_check
            clients = await play_hosted(hosted, seed, rejoin=k == 1)
            await asyncio.sleep(0)
            errors.check()
            return hosted, clients

        hosted, clients = asyncio.run(run(k, players, humans, variants, seed))
        assert not hosted.failures, (k, hosted.failures[:5])
        assert hosted.match.outcome is not None
        for client in clients:
            client.check()
        # the spectator's messages are exactly what PUBLIC sees (checked as sent, and received as sent)
        public = hosted.sent[PUBLIC]
        assert all(m["legal"] is None for m in public if m["t"] == "update")
        assert any(m["t"] == "update" for m in public)
        # the header's secrets never left the server (also checked message by message)
        assert str(hosted.seed) not in repr(hosted.sent) and str(hosted.bot_seed) not in repr(hosted.sent)
        if game_id == "edgar-lucien":
            revealed = [i for i, e in enumerate(hosted.match.events) if e["t"] == "ProgramsRevealed"]
            assert revealed, "no program was ever revealed"


# -- 4. three remote humans programming at once ----------------------------------------------


def programs(table: RemoteTable) -> bool:
    """The seat is asked for its program."""
    return bool(table.legal) and table.legal[0]["t"] == "Program"


def test_three_remote_players_program_at_the_same_moment(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(server_module, "RATE", 1e9)
    seed = 4242

    async def run() -> tuple[Hosted, list[RemoteTable], int]:
        errors = LoopErrors()
        errors.install()
        hosted = Hosted(tmp_path, "edgar-lucien", 3, [0, 1, 2], seed, variants={"fortunes": "hidden"})
        hosted.extra_check = edgar_lucien_check
        address = await hosted.start()
        rng = random.Random(seed)
        tables = [RemoteTable(address, hosted.codes[s]) for s in range(3)]
        inbox: asyncio.Queue[tuple[int, dict[str, Any] | None]] = asyncio.Queue()

        async def pump(k: int) -> None:
            table = tables[k]
            while True:
                message = await table.receive()
                await inbox.put((k, message))
                if message is None:
                    return

        together = 0
        tasks: list[asyncio.Task] = []
        try:
            for table in tables:
                await table.connect(timeout=STEP)
            assert [t.seat for t in tables] == [0, 1, 2]
            tasks = [asyncio.create_task(pump(k)) for k in range(3)]
            latest: list[int] = [-1, -1, -1]
            acted: list[int | None] = [None, None, None]
            programmed = [False, False, False]  # sent its Program this round
            for _ in range(MAX_MESSAGES):
                k, message = await asyncio.wait_for(inbox.get(), STEP)
                assert message is not None, f"seat {k} was disconnected"
                table = tables[k]
                if message["t"] == "error":
                    acted[k] = None  # two seats moved at once outside programming: choose again
                elif message["t"] == "update":
                    new = table.apply(message)
                    latest[k] = message["n"]
                    if any(event["t"] == "ProgramsRevealed" for _, event in new):
                        programmed[k] = False  # the round is over (the next may follow at once)
                else:
                    raise AssertionError(message)
                if all(t.outcome is not None for t in tables):
                    break
                if len(set(latest)) != 1 or not inbox.empty():
                    continue  # not everyone is caught up yet
                todo = [j for j in range(3) if programs(tables[j]) and not programmed[j]]
                if todo:
                    # the first look at a programming round: it is everyone's at once, and
                    # the three commands are all in flight before the server reads any
                    assert todo == [0, 1, 2], todo
                    for j in todo:
                        programmed[j] = True
                        tables[j].command(rng.choice(tables[j].legal))
                    together += 1
                    await asyncio.wait_for(asyncio.gather(*(tables[j].writer.drain() for j in todo)), STEP)
                    continue
                for j in range(3):
                    if tables[j].legal and not programs(tables[j]) and acted[j] != latest[j]:
                        acted[j] = latest[j]
                        tables[j].command(rng.choice(tables[j].legal))
            else:
                raise AssertionError("the game did not end")
        finally:
            for table in tables:
                await table.close()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await hosted.close()
        await asyncio.sleep(0)
        errors.check()
        return hosted, tables, together

    hosted, tables, together = asyncio.run(run())
    assert not hosted.failures, hosted.failures[:5]
    match = hosted.match
    assert match.outcome is not None
    # every programming round was sent by the three at once, and each was taken: three
    # Program moves by three different seats, then the reveal, and the game went on
    rounds = 0
    moves = match.moves
    for i, move in enumerate(moves):
        events = match.events[move.start : move.end]
        if any(e["t"] == "ProgramsRevealed" for e in events):
            rounds += 1
            last_three = moves[i - 2 : i + 1]
            assert [m.command["t"] for m in last_three] == ["Program"] * 3
            assert sorted(m.seat for m in last_three) == [0, 1, 2]
            assert move.end < len(match.events)  # the game continued after the reveal
    assert rounds >= 2 and rounds == together
    for seat, table in enumerate(tables):
        assert table.events == [norm(match.game.redact(e, seat)) for e in match.events]
        assert table.outcome is not None
