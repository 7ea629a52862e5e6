"""``cabinet join``: a client's side of the wire, and all it knows of the game.

A ``RemoteTable`` holds only what the server sent to its seat: the table's
public description, the events as redacted for the seat, the seat's current
view and legal commands, and the past views it was sent.  The game's code is
used only to put those in words (``describe``); nothing here can see what the
seat may not.

Browsing the history shows the table as the seat saw it after any event.  The
client cannot fold that view from the events it holds: they are redacted (a
card drawn by another is "a card"), and the games' ``evolve`` needs them whole.
So each past view is asked of the server once, and kept: stepping back over
positions seen already costs no message, and a burst of steps (a paste, a key
held down) asks at most for the position it lands on, one question at a time.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable
from typing import Any

from core.engine import PUBLIC, Command, Viewer
from core.games import get_game
from net.protocol import SERVER_MAX, VERSION, Address, ProtocolError, SpeaksSSH, open_connection, pack, read_frame
from table.seat import SeatLog

#: seconds between two attempts to join again
RETRY = 2.0


class JoinError(Exception):
    """Joining failed: the message is the sentence to show."""


class RemoteTable(SeatLog):
    def __init__(
        self,
        address: Address,
        code: str | None = None,
        watch: bool | None = None,
        token: str | None = None,
        table_id: str | None = None,
    ) -> None:
        self.address = address
        self.code = code  # a seat's join code; with ``watch``, the game's watch code if it has one
        #: at a hall (``cabinet serve``): the session's token and the table; the hall knows the
        #: player by the token, and seats them at their seat of the table (or lets them watch)
        self.token = token
        self.table_id = table_id
        self.watch = (code is None and token is None) if watch is None else watch  # no code: watch
        super().__init__()
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        #: the position a view_at was sent for, not answered yet (one at a time)
        self.asking: int | None = None
        #: the position the player looks at in the history (None: the table as it is now)
        self.looking: int | None = None

    # -- the connection -------------------------------------------------------------

    async def connect(self, timeout: float = 10.0) -> None:
        """Open the connection and say hello; raises JoinError with a sentence."""
        try:
            self.reader, self.writer = await asyncio.wait_for(open_connection(self.address), timeout)
        except (TimeoutError, OSError) as exc:
            # the system's words for its error number ("Connection refused"), not asyncio's
            # "Connect call failed ('127.0.0.1', 7788)"
            number = getattr(exc, "errno", None)
            reason = os.strerror(number) if number else getattr(exc, "strerror", None) or "no answer"
            raise JoinError(f"No game is hosted at {self.address} ({reason}).") from None
        hello: dict[str, Any] = {"t": "hello", "v": VERSION}
        if self.watch:
            hello["watch"] = True
        if self.code is not None:
            hello["code"] = self.code
        if self.token is not None:
            hello["token"] = self.token
            hello["table"] = self.table_id
        self.send(hello)
        try:
            welcome = await asyncio.wait_for(self.receive(), timeout)
        except SpeaksSSH:
            await self.close()
            where = self.address
            hint = f"ssh -p {where.port} NAME@{where.host}" if where.path is None else "ssh"
            raise JoinError(
                f"{where} is an SSH server, not a hosted game: if it is a cabinet serve, play there with {hint}."
            ) from None
        except (TimeoutError, ProtocolError, OSError) as exc:
            await self.close()
            why = str(exc).rstrip(".") or "no answer"
            raise JoinError(
                f"The host at {self.address} did not answer as a Cabinet game: {why[:1].lower()}{why[1:]}."
            ) from None
        if welcome is None or welcome["t"] != "welcome":
            await self.close()
            message = (welcome or {}).get("message") or "the host closed the connection"
            raise JoinError(f"Could not join: {message}")
        table = welcome.get("table") or {}
        game = get_game(str(table.get("game")))
        if game is None:
            await self.close()
            raise JoinError(f"The host plays {table.get('game')!r}, a game this Cabinet does not have.")
        self.game, self.table = game, table
        seat = welcome.get("seat")
        self.seat = seat if isinstance(seat, int) else PUBLIC
        self.forget()  # the log may have changed while away (a take-back): told again, past views asked again
        self.asking = None  # a question sent on the old connection is not answered on this one

    async def receive(self) -> dict[str, Any] | None:
        assert self.reader is not None
        return await read_frame(self.reader, SERVER_MAX)

    def send(self, message: dict[str, Any]) -> None:
        if self.writer is not None and not self.writer.is_closing():
            self.writer.write(pack(message))

    def command(self, command: Command) -> None:
        self.send({"t": "command", "command": command})

    def takeback(self) -> None:
        self.send({"t": "takeback"})

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            with contextlib.suppress(Exception):
                await self.writer.wait_closed()
        self.writer = None

    # -- what the seat knows ------------------------------------------------------------

    def look_back(self, n: int | None) -> dict[str, Any] | None:
        """The player looks at the table after ``n`` events (None: as it is now): the view
        there if it was sent already; else None, and it is asked of the server, unless a
        question is on its way (its answer asks for the position looked at by then)."""
        self.looking = n
        if n is None or not 0 <= n < len(self.events):  # now, or past a log taken back meanwhile
            return None
        view = self.past.get(n)
        if view is None and self.asking is None and self.writer is not None and not self.writer.is_closing():
            self.asking = n
            self.send({"t": "view_at", "n": n})
        return view

    def answered(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """The server's view_at answer: kept; the view of the position the player looks at
        now, if it is known at last (else that position is asked for in turn)."""
        self.asking = None
        n, view = message.get("n"), message.get("view")
        if isinstance(n, int) and isinstance(view, dict) and 0 <= n <= len(self.events):
            self.keep(n, view)
        return self.look_back(self.looking)


class RemoteFeed:
    """A table joined over the network, as a table screen is fed (``table.feed``): the server's
    messages as they come; when the connection drops, joined again every ``RETRY`` seconds
    with the same code or token (the table waits on its server meanwhile)."""

    def __init__(self, remote: RemoteTable, hall: HallClient | None = None) -> None:
        self.remote = remote
        self.log: SeatLog = remote
        self.hall = hall
        self.deliver: Callable[[dict[str, Any]], None] = lambda message: None
        self.task: asyncio.Task[None] | None = None
        #: closed for good (joined from another terminal, or left)
        self.over = False

    @property
    def here(self) -> list[int]:
        return [self.remote.seat] if isinstance(self.remote.seat, int) else []

    def open(self, deliver: Callable[[dict[str, Any]], None]) -> None:
        self.deliver = deliver
        self.task = asyncio.get_running_loop().create_task(self.listen())

    async def listen(self) -> None:
        remote = self.remote
        while not self.over:
            try:
                while True:
                    message = await remote.receive()
                    if message is None:
                        break
                    if message.get("t") == "bye" and (not message.get("come_back") or remote.outcome is not None):
                        # (a game over has nothing to come back to: its host stopping ends it here)
                        message = {**message, "come_back": False}
                        self.over = True
                    self.deliver(message)
                    if self.over:
                        await remote.close()  # nothing more goes out on it
                        return
            except (ProtocolError, OSError) as exc:
                self.deliver({"t": "warning", "message": f"The connection broke: {exc}"})
            if self.over:
                return
            if remote.outcome is not None:  # the game was over: nothing to join again for
                self.over = True
                self.deliver({"t": "bye", "message": "The connection to the host closed; the game was over."})
                await remote.close()
                return
            self.deliver({"t": "connection", "up": False})
            await remote.close()
            while not self.over:
                await asyncio.sleep(RETRY)
                try:
                    await remote.connect(timeout=5.0)
                except JoinError:
                    continue
                self.deliver({"t": "connection", "up": True})
                break

    def sit(self, seat: Viewer) -> None:
        pass  # one seat a connection

    def command(self, command: Command) -> None:
        self.remote.command(command)

    def takeback(self) -> None:
        """Asked of the server, whose table alone knows whether the seat may (``table.Table``'s
        rule) and says so in a sentence when it may not."""
        self.remote.takeback()

    def look_back(self, n: int | None) -> dict[str, Any] | None:
        return self.remote.look_back(n)

    def answered(self, message: dict[str, Any]) -> dict[str, Any] | None:
        return self.remote.answered(message)

    def hold(self, held: bool) -> None:
        pass  # a served table does not wait for one player's reading

    def showed_own_move(self, seat: int) -> bool:
        return False  # one player a terminal: no terminal to pass on

    @property
    def thinking(self) -> int | None:
        """The bot whose move the table waits for, alone (its server's bots move as soon as they
        have thought): the status says it is thinking, as at a table played here."""
        log = self.log
        if log.outcome is not None or len(log.active) != 1:
            return None
        seat = log.active[0]
        humans = log.humans()
        return seat if seat != log.seat and seat not in humans and seat < len(log.names()) else None

    def where(self) -> str:
        return "The game is saved on its server, move by move."

    @property
    def can_replay(self) -> bool:
        return self.hall is not None and self.remote.table_id is not None

    def replay(self, app: Any) -> None:
        if self.can_replay:
            app.replay_served(self.hall, self.remote.table_id)
        else:
            app.notify("The save and its replay are on the host's machine.", severity="information")

    def leave(self) -> str | None:
        self.close()
        if isinstance(self.remote.seat, int) and self.remote.outcome is None:
            again = (
                "Open it again from the lobby." if self.remote.token is not None else "Join again with the same code."
            )
            return f"You left; the game waits for you. {again}"
        return None

    def close(self) -> None:
        self.over = True
        self.deliver = lambda message: None
        if self.task is not None and not self.task.done():
            self.task.cancel()
        with contextlib.suppress(RuntimeError):  # no loop: the app is gone, and its sockets with it
            asyncio.get_running_loop().create_task(self.remote.close())


class HallClient:
    """A session's lobby at a hall (``cabinet serve``): the tables, pushed by the hall on every
    change, and the requests a player makes there (open a table, sit, stand up, a finished
    table's log).  The token the SSH front gave the session is all the hall knows it by."""

    def __init__(self, address: Address, token: str) -> None:
        self.address = address
        self.token = token
        self.user = ""
        self.tables: list[dict[str, Any]] = []
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.next_id = 0

    async def connect(self, timeout: float = 10.0) -> None:
        """Open the lobby; raises JoinError with a sentence."""
        try:
            self.reader, self.writer = await asyncio.wait_for(open_connection(self.address), timeout)
        except (TimeoutError, OSError):
            raise JoinError("The game server does not answer; connect again in a moment.") from None
        self.send({"t": "hello", "v": VERSION, "token": self.token})
        try:
            welcome = await asyncio.wait_for(read_frame(self.reader, SERVER_MAX), timeout)
        except (TimeoutError, ProtocolError, OSError):
            welcome = None
        if welcome is None or welcome.get("t") != "welcome":
            await self.close()
            raise JoinError(str((welcome or {}).get("message") or "The game server did not let this session in."))
        self.user = str(welcome.get("user") or "")

    def send(self, message: dict[str, Any]) -> None:
        if self.writer is not None and not self.writer.is_closing():
            self.writer.write(pack(message))

    async def listen(self, on_lobby: Any, on_bye: Any) -> None:
        """Read the hall until it closes: ``on_lobby()`` after each listing, ``on_bye(sentence)`` at the end."""
        assert self.reader is not None
        sentence = "The game server closed the lobby."
        try:
            while True:
                message = await read_frame(self.reader, SERVER_MAX)
                if message is None:
                    break
                kind = message["t"]
                if kind == "lobby":
                    self.tables = [t for t in message.get("tables") or [] if isinstance(t, dict)]
                    on_lobby()
                elif kind == "reply":
                    future = self.waiting.pop(message.get("re"), None)  # type: ignore[arg-type]
                    if future is not None and not future.done():
                        future.set_result(message)
                elif kind == "bye":
                    sentence = str(message.get("message") or sentence)
                    break
        except (ProtocolError, OSError) as exc:
            sentence = f"The connection to the game server broke: {exc}"
        for future in self.waiting.values():
            if not future.done():
                future.set_result({"ok": False, "message": sentence})
        self.waiting.clear()
        on_bye(sentence)

    async def request(self, message: dict[str, Any], timeout: float = 10.0) -> dict[str, Any]:
        """The hall's answer: ``ok`` and what was asked, or ``message``, the sentence why not."""
        self.next_id += 1
        ident = self.next_id
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.waiting[ident] = future
        self.send({**message, "id": ident})
        try:
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            self.waiting.pop(ident, None)
            return {"ok": False, "message": "The game server did not answer in time; try again."}

    def table(self, table_id: str, watch: bool = False) -> RemoteTable:
        """A table of the hall, to open: the player's seat there, or watching it."""
        return RemoteTable(self.address, watch=watch, token=self.token, table_id=table_id)

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            with contextlib.suppress(Exception):
                await self.writer.wait_closed()
        self.writer = None
