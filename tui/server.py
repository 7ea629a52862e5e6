"""``cabinet host``: one game, its save, its bots, and the players who join it.

The server is the only authority.  It holds the match and appends every move to
its save; it checks every command with the game's ``decide``; it runs the bots.
Each connection is bound to one seat by that seat's join code (or watches, as
the public), and is sent only that seat's ``view``, its ``legal`` commands, and
the events ``redact``-ed for it: a client never receives what its seat may not
know.  A seat whose player is not connected is *away*; the game simply waits
for it, and the player comes back with the same code.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import os
import secrets
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack

from core.bots import bot_inputs, bots_for, choose_safely
from core.engine import PUBLIC, Bot, IllegalCommand, Match, Viewer
from saves import SaveWriter
from tui.protocol import CLIENT_MAX, VERSION, Address, ProtocolError, pack, read_frame

HELLO_TIMEOUT = 10.0  # seconds to say hello before the server hangs up
RATE = 40.0  # messages a second a client may send, on average...
BURST = 200.0  # ...and at once
SEND_BUFFER = 32 * 1024 * 1024  # bytes waiting for a client that does not read: then it is dropped
LINGER = 2.0  # seconds a client told bye has to read it and close, before the server closes
_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"  # no 0/o, 1/l/i


def new_code() -> str:
    """A join code: twelve random letters and digits in groups of four."""
    raw = "".join(secrets.choice(_ALPHABET) for _ in range(12))
    return "-".join(raw[i : i + 4] for i in range(0, 12, 4))


def codes_path(save: Path) -> Path:
    """Where a hosted save keeps its join codes, so that ``--resume`` keeps them too."""
    return save.with_name(save.name + ".codes")


def load_or_make_codes(save: Path, match: Match) -> dict[int, str]:
    """The join code of every human seat: those kept beside the save, or new ones (then kept)."""
    path = codes_path(save)
    codes: dict[int, str] = {}
    with contextlib.suppress(OSError, ValueError, TypeError, msgpack.UnpackException):
        kept = msgpack.unpackb(path.read_bytes(), raw=False, strict_map_key=False)
        if isinstance(kept, dict):
            codes = {int(k): v for k, v in kept.items() if isinstance(v, str)}
    wanted = match.humans()
    if sorted(codes) != wanted:
        codes = {seat: codes.get(seat) or new_code() for seat in wanted}
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # the codes are secrets
        with os.fdopen(fd, "wb") as f:
            f.write(msgpack.packb(codes, use_bin_type=True))
    return codes


class Connection:
    """One client: its seat (``PUBLIC`` for a spectator) and how far it has been told."""

    def __init__(self, server: GameServer, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.server = server
        self.reader = reader
        self.writer = writer
        self.seat: Viewer | None = None  # None until the handshake
        self.told = 0  # events already sent
        self.tokens = BURST
        self.stamp = time.monotonic()
        self.closed = False

    def send(self, message: dict[str, Any]) -> None:
        if self.closed:
            return
        frame = pack(message)
        self.server.sent(self, message, len(frame))
        self.writer.write(frame)
        transport = self.writer.transport
        if transport is not None and transport.get_write_buffer_size() > SEND_BUFFER:
            self.close()  # it does not read: it can join again

    def close(self, farewell: str | None = None, come_back: bool = False, linger: bool = True) -> None:
        """Hang up, with a last sentence; ``come_back``: the client may join again later.

        With a farewell the socket is only shut for writing (``linger``): closing a
        socket with the client's frames still unread in it resets the connection,
        and a reset throws away what the client has not read yet, the bye first.
        The connection's own task closes it for good (``hang_up``).
        """
        if self.closed:
            return
        if farewell:
            self.send({"t": "bye", "message": farewell, "come_back": come_back})
        self.closed = True
        with contextlib.suppress(Exception):
            if farewell and linger and self.writer.can_write_eof():
                self.writer.write_eof()
            else:
                self.writer.close()

    async def hang_up(self) -> None:
        """Discard what the client still sends until it closes, LINGER seconds at most; close."""
        try:
            if not self.writer.is_closing():
                loop = asyncio.get_running_loop()
                deadline = loop.time() + LINGER
                while deadline > loop.time():
                    if not await asyncio.wait_for(self.reader.read(CLIENT_MAX), deadline - loop.time()):
                        break
        except Exception:  # a reset, the time is up: close all the same
            pass
        finally:
            with contextlib.suppress(Exception):
                self.writer.close()

    def allow(self) -> bool:
        """Token bucket: may this client send one more message now?"""
        now = time.monotonic()
        self.tokens = min(BURST, self.tokens + (now - self.stamp) * RATE)
        self.stamp = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


class GameServer:
    def __init__(
        self,
        writer: SaveWriter,
        codes: dict[int, str],
        bot_delay: float = 0.6,
        log: Callable[[str], None] | None = None,
        on_send: Callable[[Viewer, dict[str, Any]], None] | None = None,
    ) -> None:
        self.save = writer
        self.match: Match = writer.match
        self.game = self.match.game
        self.codes = codes
        self.bot_delay = bot_delay
        self.log = log or (lambda line: None)
        #: every message sent, with the seat it went to (tests scan them for leaks)
        self.on_send = on_send
        self.bots: dict[int, Bot] = {s: b for s, b in bots_for(self.match).items() if self.match.is_bot(s)}
        self.players: dict[int, Connection] = {}
        self.watchers: set[Connection] = set()
        self.servers: list[asyncio.base_events.Server] = []
        self.bot_task: asyncio.Task[None] | None = None
        self.tasks: set[asyncio.Task[Any]] = set()
        self.address: Address | None = None
        self.frames_sent = 0
        self.finished = asyncio.Event()

    # -- listening --------------------------------------------------------------------

    async def start(self, address: Address) -> Address:
        """Listen on ``address``; the address as bound (a TCP port 0 gets its number)."""
        if address.path is not None:
            with contextlib.suppress(FileNotFoundError):
                if address.path.is_socket():
                    address.path.unlink()  # left by a server that was killed
            server = await asyncio.start_unix_server(self.accept, str(address.path), limit=CLIENT_MAX + 8)
            os.chmod(address.path, 0o600)
            self.address = address
        else:
            server = await asyncio.start_server(self.accept, address.host, address.port, limit=CLIENT_MAX + 8)
            port = server.sockets[0].getsockname()[1]
            self.address = Address(host=address.host, port=port)
        self.servers.append(server)
        self.schedule_bots()
        return self.address

    async def close(self) -> None:
        for conn in list(self.players.values()) + list(self.watchers):
            conn.close("The host has stopped the game; it is saved.", come_back=True, linger=False)
        for server in self.servers:
            server.close()
            with contextlib.suppress(Exception):
                await server.wait_closed()
        for task in list(self.tasks) + ([self.bot_task] if self.bot_task else []):
            task.cancel()
        if self.address is not None and self.address.path is not None:
            with contextlib.suppress(OSError):
                self.address.path.unlink()
        self.save.close()  # the save is free for the next host (or a cabinet load)

    # -- one client -----------------------------------------------------------------------

    async def accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self.tasks.add(task)
        conn = Connection(self, reader, writer)
        try:
            await self.serve(conn)
        except ProtocolError as exc:
            conn.close(str(exc))
        except (ConnectionError, asyncio.IncompleteReadError, OSError):
            pass
        except asyncio.CancelledError:
            pass  # the server is stopping: this connection ends here, quietly
        finally:
            self.forget(conn)
            conn.close()
            await conn.hang_up()
            if task is not None:
                self.tasks.discard(task)

    async def serve(self, conn: Connection) -> None:
        try:
            hello = await asyncio.wait_for(read_frame(conn.reader, CLIENT_MAX), HELLO_TIMEOUT)
        except asyncio.TimeoutError:
            conn.close("No hello: the connection is closed.")
            return
        if hello is None:
            return
        if not self.greet(conn, hello):
            return
        while not conn.closed:
            message = await read_frame(conn.reader, CLIENT_MAX)
            if message is None or conn.closed:  # closed meanwhile: replaced by a new join, or stopping
                return
            if not conn.allow():
                conn.close("Too many messages: the connection is closed. Join again.")
                return
            self.handle(conn, message)

    def greet(self, conn: Connection, hello: dict[str, Any]) -> bool:
        if hello.get("t") != "hello":
            conn.close("The first message must be a hello.")
            return False
        if hello.get("v") != VERSION:
            conn.close(f"This server speaks protocol version {VERSION}; update Cabinet on one side.")
            return False
        if hello.get("watch") is True:
            conn.seat = PUBLIC
            self.watchers.add(conn)
            self.log("A spectator joined.")
        else:
            code = hello.get("code")
            seat = self.seat_of(code) if isinstance(code, str) else None
            if seat is None:
                conn.close("That join code is not one of this game's.")
                return False
            old = self.players.get(seat)
            conn.seat = seat
            self.players[seat] = conn
            if old is not None:
                old.close("You joined this game again from another terminal.", linger=False)
            self.log(f"{self.name(seat)} joined.")
        conn.send({"t": "welcome", "v": VERSION, "seat": conn.seat if isinstance(conn.seat, int) else None, "table": self.table()})
        self.broadcast()
        return True

    def seat_of(self, code: str) -> int | None:
        for seat, expected in self.codes.items():
            if hmac.compare_digest(code.encode(), expected.encode()):
                return seat
        return None

    def forget(self, conn: Connection) -> None:
        if conn.seat is None:
            return
        if conn in self.watchers:
            self.watchers.discard(conn)
        elif isinstance(conn.seat, int) and self.players.get(conn.seat) is conn:
            del self.players[conn.seat]
            self.log(f"{self.name(conn.seat)} is away.")
            self.broadcast()

    def handle(self, conn: Connection, message: dict[str, Any]) -> None:
        kind = message["t"]
        if kind == "ping":
            conn.send({"t": "pong"})
        elif kind == "view_at":
            n = message.get("n")
            if not isinstance(n, int) or isinstance(n, bool):
                conn.send({"t": "error", "message": "view_at needs a number of events."})
                return
            n = max(0, min(n, len(self.match.events)))
            conn.send({"t": "view_at", "n": n, "view": self.game.view(self.match.state_at(n), conn.seat)})
        elif kind == "command":
            self.command(conn, message)
        else:
            conn.send({"t": "error", "message": f"Unknown message {kind!r}."})

    def command(self, conn: Connection, message: dict[str, Any]) -> None:
        seat = conn.seat
        if not isinstance(seat, int):
            conn.send({"t": "error", "message": "A spectator cannot play."})
            return
        if "seat" in message and message["seat"] != seat:
            conn.send({"t": "error", "message": f"You play {self.name(seat)}'s seat only."})
            return
        command = message.get("command")
        if not isinstance(command, dict) or not isinstance(command.get("t"), str):
            conn.send({"t": "error", "message": "A command must be a map with a type."})
            return
        try:
            self.match.submit(seat, command)
        except IllegalCommand as exc:
            conn.send({"t": "error", "message": str(exc)})
            return
        except Exception:  # a command the game cannot even read: it changed nothing
            conn.send({"t": "error", "message": "This game has no such command."})
            return
        self.moved()

    # -- the game moves on -------------------------------------------------------------

    def moved(self) -> None:
        self.broadcast()
        if self.match.outcome is not None:
            self.log("The game is over: " + self.outcome_text())
            self.finished.set()
        self.schedule_bots()

    def schedule_bots(self) -> None:
        if self.bot_task is None or self.bot_task.done():
            if any(s in self.bots for s in self.match.active()):
                self.bot_task = asyncio.get_running_loop().create_task(self.play_bots())
        if self.match.outcome is not None:
            self.finished.set()

    async def play_bots(self) -> None:
        """Every bot to move, one after the other, each after a short pause."""
        while self.match.outcome is None:
            seats = [s for s in self.match.active() if s in self.bots]
            if not seats:
                return
            seat = seats[0]
            await asyncio.sleep(self.bot_delay)
            if seat not in self.match.active():
                continue
            state = self.match.state
            view, legal, known = bot_inputs(self.game, state, seat)
            # a search bot thinks for up to seconds: in a thread, so the table stays served
            command, failure = await asyncio.to_thread(choose_safely, self.game, self.bots[seat], view, legal, known)
            if failure:
                self.log(f"{self.name(seat)}: {failure}")
            if self.match.state is not state and command not in self.game.legal(self.match.state, seat):
                continue  # the position moved on while it thought: think again
            try:
                self.match.submit(seat, command)
            except IllegalCommand as exc:
                self.log(f"{self.name(seat)} (bot) tried an illegal move: {exc}")
                return
            self.broadcast()
            if self.match.outcome is not None:
                self.log("The game is over: " + self.outcome_text())
                self.finished.set()

    # -- what each client is told ----------------------------------------------------

    def broadcast(self) -> None:
        for conn in list(self.players.values()) + list(self.watchers):
            if conn.seat is not None and not conn.closed:
                conn.send(self.update_for(conn))

    def update_for(self, conn: Connection) -> dict[str, Any]:
        match, game, seat = self.match, self.game, conn.seat
        events = [[i, game.redact(match.events[i], seat)] for i in range(conn.told, len(match.events))]
        conn.told = len(match.events)
        active = list(match.active())
        outcome = match.outcome
        return {
            "t": "update",
            "n": len(match.events),
            "events": events,
            "view": game.view(match.state, seat),
            "legal": game.legal(match.state, seat) if isinstance(seat, int) and seat in active else None,
            "active": active,
            "away": [s for s in match.humans() if s not in self.players],
            "outcome": None if outcome is None else {"winners": list(outcome.winners), "reason": outcome.reason},
        }

    def table(self) -> dict[str, Any]:
        """What everybody may know of the table: no seed (it decides the shuffles)."""
        h = self.match.header
        return {
            "game": h["game"],
            "rules_version": h.get("rules_version"),
            "players": h["players"],
            "seats": [{"name": s["name"], "kind": s.get("kind", "human"), "level": s.get("level")} for s in h["seats"]],
            "variants": dict(h.get("variants") or {}),
        }

    def sent(self, conn: Connection, message: dict[str, Any], size: int) -> None:
        self.frames_sent += 1
        if self.on_send is not None:
            self.on_send(conn.seat, message)

    def name(self, seat: int) -> str:
        return self.match.header["seats"][seat]["name"]

    def outcome_text(self) -> str:
        outcome = self.match.outcome
        if outcome is None:
            return ""
        names = " and ".join(self.name(s) for s in outcome.winners) or "Nobody"
        return f"{names} {'share the victory' if len(outcome.winners) > 1 else 'wins'}. {outcome.reason}"
