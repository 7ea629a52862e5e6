"""``cabinet serve``'s hall: many tables in one server, and the lobby that lists them.

A table is a lobby record (the game, its seats, who sits where, its variants)
and, once every human seat is taken, a match saved as it is played and served
by a :class:`GameServer` of its own: the same authority as ``cabinet host`` (it
checks every move, appends the save, runs the bots, sends each seat only its
view), without a listener.  Both are kept in the hall's store
(``saves.store``): by default files, ``DATA/tables/ID.table`` and
``DATA/tables/ID.cabinet``; with ``cabinet serve --store URL``, a database.

The hall listens on one Unix socket in the data directory, reachable by the
server's own user only.  The SSH front starts one Cabinet app a session, and
gives it a token (never the key) that the hall knows as that player: a
connection says hello with it, then either stays as the session's *lobby*
(the tables, pushed on every change; create, sit, stand up, a finished
table's log) or opens a *table* (the player's seat there, or a spectator's
public view), which the table's GameServer serves from then on.

Bots think in worker processes (:class:`BotPool`): a search for one table never
holds up the event loop, nor, through the interpreter lock, the other tables.
Starting the hall again resumes every table from its save.

Several halls may share one database (``--store postgresql://...``): each lists
every table of it, and a player on any of them may sit at any table and play.
A table in play is served by the one hall holding its lease (its *owner*),
which publishes the table's listing for the others' lobbies; a hall whose
player opens a table held elsewhere serves it from a follower
(``net.relay``), which passes the seat's commands on to the owner.  A waiting
table's seats are changed in one transaction whichever hall asks, and the hall
that seats its last player starts it.  A hall listens to the others' news
(``saves.postgres.Listener``): new records, lobby changes, relayed commands and
their answers, and which seats are connected where.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import secrets
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import msgpack

from core.engine import PUBLIC, Command, ConfigError, Match, Viewer, outcome_text
from core.games import all_games, get_game
from net.protocol import CLIENT_MAX, VERSION, ProtocolError, pack, read_frame
from net.relay import Follower
from net.server import CODE_ALPHABET, HELLO_TIMEOUT, GameServer, Limits, bind_unix, file_id, unlink_if_same
from saves import SaveError, SaveLocked, SaveWriter, load
from saves.format import decode_body
from saves.store import FileStore, Store
from table.bots import BotTurn, think, think_in_thread
from table.spec import BOT, HUMAN, SeatSpec, TableSpec

TABLES = "tables"  # the folder of the tables, in the data directory
SOCKET = "hall.sock"
SAVE = ".cabinet"
LOBBY_DELAY = 0.5  # seconds: the lobby is told of changes at most this often (each lobby draws its list again)
NEWS_DELAY = 0.2  # seconds: lobby news from the other halls of a database, gathered before the lobby is read again
#: what the players of a table are told when it moves from one hall to another, to join it again there
MOVED = "This table's server changed; you are back at it in a moment."
#: what a player is told of a table or a request while the hall's store is out of reach (a database restarting)
UNREACHABLE = "This server cannot reach its tables just now; try again in a moment."
#: what a player on another hall is told of a move the table's hall could not save, its lease lost meanwhile
NOT_SAVED = "This table's server changed before your move was saved; make it again."
#: seconds a table may stay full with no log before another hall starts it: the hall that seated
#: its last player died between the two (it starts a table within milliseconds of the last seat)
STALLED = 10.0
OPEN_TABLES = 20  # tables not yet finished a player may have created
REQUEST_TIMEOUT = 10.0


def new_table_id() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(6))


def bot_name(seat: int) -> str:
    """A bot's name at a served table: never a player's (names have no spaces)."""
    return f"Bot {seat + 1}"


# -- bots, in worker processes ------------------------------------------------------------------


BOT_NICENESS = 10  # added to a bot worker's niceness: the players' screens come before the bots' thinking


def _think_in_the_background() -> None:
    """In a new worker: think at a lower priority than the server and the players' sessions.

    A bot's budget is counted in moves simulated, not in seconds, so a bot that waits
    for the processor plays as well, only later; a player's key press never waits
    behind a search."""
    with contextlib.suppress(OSError):
        os.nice(BOT_NICENESS)


class BotPool:
    """Worker processes that think of the bots' moves, one position at a time, at a lower
    priority than the players' sessions (``BOT_NICENESS``).

    A worker gets a ``table.BotTurn`` (what the seat knows, its bot's level and seed) and
    makes its bot afresh (``table.think``): no state of a table stays in a worker, so any
    worker serves any table, and one that dies is replaced (the move is thought of again
    in a thread meanwhile).
    """

    def __init__(self, workers: int | None = None, log: Callable[[str], None] | None = None) -> None:
        self.workers = workers or max(1, os.cpu_count() or 1)
        self.log = log or (lambda line: None)
        self.pool: ProcessPoolExecutor | None = None
        self.unusable = False  # the workers could not be started here: the bots think in threads

    def executor(self) -> ProcessPoolExecutor:
        if self.pool is None:
            # forkserver: the server has threads (the SSH front's, asyncio's), which fork copies badly
            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload(["core.games", "core.bots", "table.bots", "net.hall"])
            self.pool = ProcessPoolExecutor(self.workers, mp_context=context, initializer=_think_in_the_background)
        return self.pool

    async def think(self, turn: BotTurn) -> tuple[Command, str | None]:
        loop = asyncio.get_running_loop()
        if self.unusable:
            return await think_in_thread(turn)
        try:
            return await loop.run_in_executor(self.executor(), think, turn)
        except BrokenProcessPool:
            self.log("A bot worker died; the pool starts again, and this move is thought of in a thread.")
            self.pool = None
        except (OSError, ValueError, RuntimeError) as exc:  # no worker can be started in this process
            self.log(f"The bot workers cannot start here ({type(exc).__name__}: {exc}); the bots think in threads.")
            self.close()
            self.unusable = True
        return await think_in_thread(turn)

    def close(self) -> None:
        if self.pool is not None:
            for process in list(getattr(self.pool, "_processes", {}).values()):
                with contextlib.suppress(Exception):
                    process.kill()  # a search to the end of its budget is not worth the wait
            manager = getattr(self.pool, "_executor_manager_thread", None)
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = None
            # Its manager thread closes its wake-up pipe as it ends; Python's exit writes to that
            # pipe unless the thread has ended (in 3.11 they race: "Bad file descriptor" printed
            # at exit). Killed workers end it at once; a bounded wait all the same.
            if manager is not None:
                manager.join(timeout=5)


# -- a table ---------------------------------------------------------------------------------------


@dataclass
class Table:
    """One table of the hall: its lobby record, and its GameServer once it has started."""

    id: str
    game: str
    players: int
    #: per seat: {"kind": "human", "user": NAME|None} or {"kind": "bot", "level": L}, and its seat options
    seats: list[dict[str, Any]]
    variants: dict[str, str]
    created_by: str
    created: float
    server: GameServer | None = None
    #: a finished table after a restart: its outcome, as the listing shows it (no server is kept)
    ended: dict[str, Any] | None = None
    moves: int = 0
    updated: float = field(default_factory=time.time)

    def record(self) -> dict[str, Any]:
        return {
            "id": self.id, "game": self.game, "players": self.players, "seats": self.seats,
            "variants": self.variants, "created_by": self.created_by, "created": self.created,
        }

    @classmethod
    def from_record(cls, data: dict[str, Any]) -> Table:
        seats = data["seats"]
        if not isinstance(seats, list) or not all(isinstance(s, dict) for s in seats):
            raise ValueError("seats")
        return cls(
            id=str(data["id"]), game=str(data["game"]), players=int(data["players"]), seats=seats,
            variants=dict(data.get("variants") or {}), created_by=str(data.get("created_by") or ""),
            created=float(data.get("created") or 0.0),
        )

    def users(self) -> list[str | None]:
        return [s.get("user") if s.get("kind") == "human" else None for s in self.seats]

    def seat_of(self, name: str) -> int | None:
        return next((i for i, user in enumerate(self.users()) if user == name), None)

    def free_seats(self) -> list[int]:
        return [i for i, s in enumerate(self.seats) if s.get("kind") == "human" and not s.get("user")]

    @property
    def match(self) -> Match | None:
        return self.server.match if self.server is not None else None

    def state(self) -> str:
        if self.ended is not None:
            return "finished"
        match = self.match
        if match is None:
            return "waiting"
        return "finished" if match.outcome is not None else "playing"

    def listing(self) -> dict[str, Any]:
        """What the lobby shows of the table (the same for everybody: no hidden information)."""
        game = get_game(self.game)
        match = self.match
        away: list[int] = []
        active: list[int] = []
        outcome = self.ended
        moves = self.moves
        if match is not None:
            assert self.server is not None
            active = list(match.active())
            away = self.server.away()
            moves = match.move_count
            if match.outcome is not None:
                outcome = {"text": self.server.outcome_text()}
        seats = []
        for i, seat in enumerate(self.seats):
            labels = []
            if game is not None:
                labels = [opt.label_of(seat[opt.key]) for opt in game.seat_options if opt.key in seat]
            seats.append({
                "kind": seat.get("kind", "human"),
                "user": seat.get("user"),
                "level": seat.get("level"),
                "name": seat.get("user") or (bot_name(i) if seat.get("kind") == "bot" else None),
                "label": ", ".join(labels),
                "away": i in away,
            })
        return {
            "id": self.id, "game": self.game, "title": game.title if game else self.game,
            "players": self.players, "state": self.state(), "seats": seats, "active": active,
            "moves": moves, "created_by": self.created_by, "created": self.created, "updated": self.updated,
            "variants": self.variants, "outcome": (outcome or {}).get("text"),
        }


# -- the hall ---------------------------------------------------------------------------------------


class Lobby:
    """A session's lobby connection."""

    def __init__(self, name: str, writer: asyncio.StreamWriter) -> None:
        self.name = name
        self.writer = writer

    def send(self, message: dict[str, Any], frame: bytes | None = None) -> None:
        if not self.writer.is_closing():
            self.writer.write(frame if frame is not None else pack(message))


class Hall:
    def __init__(
        self,
        data_dir: Path,
        log: Callable[[str], None] | None = None,
        bot_delay: float = 0.6,
        bots: BotPool | None = None,
        on_send: Callable[[str, Viewer, dict[str, Any]], None] | None = None,
        open_tables: int = OPEN_TABLES,
        store: Store | None = None,
        take_over_every: float | None = None,
    ) -> None:
        self.data_dir = Path(data_dir)
        self.folder = self.data_dir / TABLES
        #: where the tables' lobby records and saves are kept
        self.store = store if store is not None else FileStore(self.folder, SAVE)
        #: seconds between looks for tables in play that no server holds (another server
        #: sharing the store died): None, never (a store of this server alone)
        self.take_over_every = take_over_every
        self.watcher: asyncio.Task[None] | None = None
        #: tables refused for good (damaged, an unknown game): not looked at again
        self.left_out: set[str] = set()
        self.socket_path = self.data_dir / SOCKET
        self.socket_id: tuple[int, int] | None = None  # the socket this hall bound there
        self.log = log or (lambda line: None)
        self.store.log_to(self.log)  # a database that goes away and comes back says so, once each time
        self.bot_delay = bot_delay
        self.bots = bots if bots is not None else BotPool(log=self.log)
        #: every message a table sends, with the table and the seat it went to (leak tests)
        self.on_send = on_send
        self.open_tables = open_tables
        self.tables: dict[str, Table] = {}
        self.sessions: dict[str, str] = {}  # token -> player name
        self.by_token: dict[str, set[asyncio.StreamWriter]] = {}
        self.lobbies: dict[Lobby, None] = {}
        self.listener: asyncio.AbstractServer | None = None
        self.lobby_handle: asyncio.TimerHandle | None = None
        self.lobby_version = 0
        self.handlers: set[asyncio.Task[Any]] = set()  # one a connection
        # -- with a database other halls share (``store.shared``) --
        #: the other halls' news, heard on a connection of its own; its pid names this hall
        self.news: Any = None
        #: tables another hall serves, as this hall's lobby lists them: the table and its listing
        self.elsewhere: dict[str, tuple[Table, dict[str, Any]]] = {}
        #: tables of the database seen full but not yet published by a server: since when
        self.unstarted: dict[str, float] = {}
        #: tables another hall serves, served here from their logs to this hall's connections
        self.followers: dict[str, Table] = {}
        #: tables served here whose listing changed since it was last published
        self.unpublished: set[str] = set()
        self.news_handle: asyncio.TimerHandle | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.chores: set[asyncio.Task[Any]] = set()

    # -- sessions (the SSH front's side) -------------------------------------------------------

    def open_session(self, name: str) -> str:
        """A token for a new session of ``name``: the one thing its app shows the hall."""
        token = secrets.token_urlsafe(24)
        self.sessions[token] = name
        return token

    def seated(self, name: str) -> bool:
        """Has ``name`` a seat at a table not finished, here or at another server's?"""
        tables = [*self.tables.values(), *(table for table, _ in self.elsewhere.values())]
        return any(table.seat_of(name) is not None and table.state() != "finished" for table in tables)

    def close_session(self, token: str) -> None:
        """The session is over: its token is no good any more, its connections are closed."""
        self.sessions.pop(token, None)
        for writer in self.by_token.pop(token, set()):
            with contextlib.suppress(Exception):
                writer.close()

    # -- starting and stopping ---------------------------------------------------------------------

    async def start(self) -> Path:
        """Resume every table from its record and save; listen; the socket's path.

        Raises OSError when it cannot listen."""
        self.folder.mkdir(parents=True, exist_ok=True)
        os.chmod(self.data_dir, 0o700)
        saved = set(self.store.tables())
        for table_id, record in self.store.lobby():
            self.resume(table_id, record, saved)
        if self.store.shared:
            self.loop = asyncio.get_running_loop()
            self.news = self.store.listen(self.heard)  # type: ignore[attr-defined]
            self.unpublished.update(t.id for t in self.tables.values() if t.server is not None)
            self.read_lobby()
        sock = await bind_unix(self.socket_path)
        self.socket_id = file_id(self.socket_path)
        self.listener = await asyncio.start_unix_server(self.connected, sock=sock, limit=CLIENT_MAX + 8)
        if self.take_over_every is not None:
            self.watcher = asyncio.get_running_loop().create_task(self.watch(self.take_over_every))
        return self.socket_path

    async def watch(self, every: float) -> None:
        while True:
            await asyncio.sleep(every)
            try:
                if self.news is not None:
                    self.check_leases()
                await self.take_over()
                if self.news is not None:
                    self.catch_up()  # news missed (a listening connection lost a while) is read again
            except (OSError, SaveError) as exc:  # the store out of reach for a while: look again later
                self.trouble(f"Cannot look for tables to take over: {exc}")

    def trouble(self, line: str) -> None:
        """What the store could not do, said to the log; not while the store is out of reach:
        it said so once, and says when it is back (the same failure every second says nothing more)."""
        if self.store.reachable:
            self.log(line)

    async def take_over(self) -> list[str]:
        """Serve here, from their logs, the tables in play that no server holds and this
        hall does not know (their server died: its leases went with its connections), and
        start those left full and not started (``start_stalled``); the tables taken.  A table
        another hall takes first is left to it."""
        taken = await self.start_stalled()
        orphans = [t for t in await asyncio.to_thread(self.store.unheld) if t not in self.tables and t not in self.left_out]
        records = dict(await asyncio.to_thread(self.store.lobby)) if orphans else {}
        for table_id in orphans:
            if table_id in records and self.resume(table_id, records[table_id], set(orphans), quiet=True):
                if self.tables[table_id].state() == "playing":
                    self.log(f"[{table_id}] taken over from its log.")
                taken.append(table_id)
                self.elsewhere.pop(table_id, None)
                followed = self.followers.pop(table_id, None)
                if followed is not None and followed.server is not None:
                    # its connections here join it again, at its new server: this hall
                    self.later(followed.server.close(MOVED))
        if taken:
            self.lobby_changed()
        return taken

    async def start_stalled(self) -> list[str]:
        """Start here the tables full for STALLED seconds with no log: the hall that seated
        their last player stopped before it could start them (the lease decides, should two
        halls try at once: the second finds it held and leaves it)."""
        now = time.monotonic()
        due = [t for t, since in self.unstarted.items() if now - since >= STALLED and t in self.elsewhere]
        if not due:
            return []
        logged = set(await asyncio.to_thread(self.store.tables))
        started = []
        for table_id in due:
            del self.unstarted[table_id]
            if table_id in logged or table_id not in self.elsewhere:
                continue  # started after all (its listing is on its way), or gone
            table = self.elsewhere[table_id][0]
            try:
                self.start_table(table)
            except SaveLocked:
                continue  # another hall is starting it
            except (ConfigError, OSError, SaveError) as exc:
                if not self.store.reachable:
                    self.unstarted[table_id] = now - STALLED  # nothing wrong with the table: the next look tries again
                    continue
                self.log(f"[{table_id}] could not start: {exc}")
                self.left_out.add(table_id)
                continue
            del self.elsewhere[table_id]
            self.tables[table_id] = table
            self.log(f"[{table_id}] started here: the server that seated its last player stopped before starting it.")
            self.changed(table)
            started.append(table_id)
        return started

    def resume(self, table_id: str, record: bytes, saved: set[str], quiet: bool = False) -> bool:
        """The table of this lobby record, and its match if it has a save (``saved``: the
        tables that do); whether it is served.  ``quiet``: a table another server holds is
        left out without a word."""
        try:
            table = Table.from_record(msgpack.unpackb(record, raw=False, strict_map_key=False))
        except (ValueError, TypeError, KeyError, msgpack.UnpackException) as exc:
            self.log(f"Skipped table {table_id}: its lobby record is not one ({type(exc).__name__}).")
            self.left_out.add(table_id)
            return False
        if get_game(table.game) is None:
            self.log(f"Skipped table {table.id}: this Cabinet has no game {table.game!r}.")
            self.left_out.add(table_id)
            return False
        if table.id in saved:
            try:
                loaded = load(self.store.source(table.id))
                if loaded.match.outcome is not None:
                    table.ended = {"text": outcome_text(loaded.match)}
                    table.moves = loaded.match.move_count
                elif loaded.unplayable is not None:
                    raise SaveError(loaded.unplayable)
                else:
                    self.serve_table(table, SaveWriter.resume(loaded))
            except SaveLocked as exc:
                if not quiet and self.store.shared:
                    self.log(f"Table {table.id} is served by another server: {exc}")
                elif not quiet:
                    self.log(f"Table {table.id} is left out: {exc}")
                return False
            except SaveError as exc:
                if not self.store.reachable:
                    return False  # nothing wrong with the table: the next look takes it
                self.log(f"Table {table.id} is left out: {exc}")
                self.left_out.add(table.id)
                return False
        self.tables[table.id] = table
        return True

    async def close(self) -> None:
        if self.watcher is not None:
            self.watcher.cancel()
        if self.news_handle is not None:
            self.news_handle.cancel()
        if self.listener is not None:
            self.listener.close()
        if self.lobby_handle is not None:
            self.lobby_handle.cancel()
        for lobby in list(self.lobbies):
            lobby.send({"t": "bye", "message": "The server is stopping; every table is saved."})
            with contextlib.suppress(Exception):
                lobby.writer.close()
        for table in [*self.tables.values(), *self.followers.values()]:
            if table.server is not None:
                await table.server.close("The server is stopping; the game is saved.")  # (not a host's)
        if self.news is not None:
            await asyncio.to_thread(self.news.close)
        handlers = [t for t in [*self.handlers, *self.chores] if t is not asyncio.current_task()]
        for task in handlers:
            task.cancel()
        if handlers:
            await asyncio.wait(handlers, timeout=5)
        self.bots.close()
        unlink_if_same(self.socket_path, self.socket_id)

    # -- tables ------------------------------------------------------------------------------------

    def options(self, table: Table) -> dict[str, Any]:
        """What a table's server (its own or a follower) is made with here."""

        def log(line: str) -> None:
            self.log(f"[{table.id}] {line}")

        def sent(seat: Viewer, message: dict[str, Any]) -> None:
            if self.on_send is not None:
                self.on_send(table.id, seat, message)

        def presence(seat: int, here: bool) -> None:
            if self.news is not None:
                try:
                    self.store.seat_here(table.id, seat, self.news.pid, here)  # type: ignore[attr-defined]
                except OSError as exc:
                    self.trouble(f"[{table.id}] The other servers cannot be told who is here: {exc.strerror or exc}.")

        return {
            "bot_delay": self.bot_delay, "log": log, "on_send": sent, "limits": Limits.derive(table.players),
            "on_presence": presence,
        }

    def serve_table(self, table: Table, writer: SaveWriter) -> None:
        writer.on_error = lambda sentence: self.save_failed(table, sentence)
        table.server = GameServer(
            writer, {}, think=self.bots.think, on_change=lambda: self.changed(table), **self.options(table),
        )
        table.server.begin()
        if self.news is not None:
            self.unpublished.add(table.id)
            self.seen_seated(table)
            self.loop.call_soon(self.play_relayed, table)  # type: ignore[union-attr]  # those left for its last server

    def save_failed(self, table: Table, sentence: str) -> None:
        """A table's save could not be written: said to the log.  A lease lost with it (its
        connection cut, the database restarted) means another hall may serve the table
        now: this one lets it go, its players join it again (a follower's, or the new server's)."""
        self.log(f"[{table.id}] {sentence}")
        server = table.server
        if self.news is not None and server is not None and server.save is not None and server.save.lost:
            self.let_go(table)

    def check_leases(self) -> None:
        """The tables whose lease was lost while nothing was written are let go too: all of
        them when the connection for leases is found lost now, and those of a connection
        lost before, should a new one hold the tables taken since."""
        self.store.leases_alive()  # type: ignore[attr-defined]
        for table in list(self.tables.values()):
            if table.server is not None and table.server.save is not None and table.server.save.lost:
                self.let_go(table)

    def let_go(self, table: Table) -> None:
        """This hall serves ``table`` no more (its lease is lost): its connections are told to
        join again, and find it where it is served now (through a follower, if elsewhere)."""
        if self.tables.get(table.id) is not table or table.server is None:
            return
        del self.tables[table.id]
        self.unpublished.discard(table.id)
        self.log(f"[{table.id}] Its lease is lost: this server serves it no more.")
        self.later(table.server.close(MOVED))
        self.lobby_news()

    def later(self, work: Any) -> None:
        """Run the coroutine ``work`` in a task of the hall's (ended when it closes)."""
        task = asyncio.get_running_loop().create_task(work)
        self.chores.add(task)
        task.add_done_callback(self.chores.discard)

    # -- the other halls of a database ---------------------------------------------------------

    def heard(self, message: dict[str, Any]) -> None:
        """Another hall's news (or this one's), from the listening thread."""
        loop = self.loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(self.news_came, message)

    def news_came(self, message: dict[str, Any]) -> None:
        kind, table_id = message.get("t"), message.get("table")
        try:
            if kind == "lobby":
                self.lobby_news()
            elif kind in ("log", "rewrite") and table_id in self.followers:
                server = self.followers[table_id].server
                if isinstance(server, Follower):
                    server.catch_up(rewritten=kind == "rewrite")
            elif kind == "command" and table_id in self.tables:
                self.play_relayed(self.tables[table_id])
            elif kind == "seated":
                table = self.tables.get(table_id) or self.followers.get(table_id)  # type: ignore[arg-type]
                if table is not None:
                    self.seen_seated(table)
            elif kind == "answer" and message.get("hall") == self.news.pid and table_id in self.followers:
                server = self.followers[table_id].server
                if isinstance(server, Follower):
                    server.answered(int(message.get("number", -1)), str(message.get("kind")), str(message.get("message")))
            elif kind == "listening":  # heard again after a while: this hall has a new name, and missed news
                for table in [*self.tables.values(), *self.followers.values()]:
                    if table.server is not None and table.server.on_presence is not None:
                        for seat in table.server.players:
                            table.server.on_presence(seat, True)
                self.catch_up()
        except (OSError, SaveError) as exc:
            self.trouble(f"Could not follow the other servers' news ({kind}): {exc}")

    def catch_up(self) -> None:
        """Read again what news tells: the lobby, the followed tables' logs, who is connected where,
        the commands relayed to this hall's tables.  Raises OSError, SaveError."""
        self.read_lobby()
        for table in list(self.followers.values()):
            if isinstance(table.server, Follower):
                table.server.catch_up()
                self.seen_seated(table)
        for table in list(self.tables.values()):
            if table.server is not None:
                self.seen_seated(table)
                self.play_relayed(table)

    def lobby_news(self) -> None:
        """The lobby is read again within NEWS_DELAY (news comes in bursts)."""
        if self.news_handle is None and self.loop is not None:
            self.news_handle = self.loop.call_later(NEWS_DELAY, self.read_lobby_now)

    def read_lobby_now(self) -> None:
        self.news_handle = None
        try:
            self.read_lobby()
        except (OSError, SaveError) as exc:
            self.trouble(f"Cannot read the lobby: {exc}")

    def read_lobby(self) -> None:
        """Every table of the database as this hall's lobby lists it: the waiting ones as their
        records say (any hall may seat players there), those served elsewhere as their server
        last published them.  Raises SaveError."""
        seen = set()
        for table_id, record, summary in self.store.listings():  # type: ignore[attr-defined]
            seen.add(table_id)
            mine = self.tables.get(table_id)
            if mine is not None and (mine.server is not None or mine.ended is not None):
                continue  # served (or finished) here: this hall knows it best
            try:
                fresh = Table.from_record(msgpack.unpackb(record, raw=False, strict_map_key=False))
                listing = msgpack.unpackb(summary, raw=False, strict_map_key=False) if summary is not None else None
            except (ValueError, TypeError, KeyError, msgpack.UnpackException):
                continue
            if get_game(fresh.game) is None:
                continue
            if fresh.free_seats():  # waiting for players
                if mine is not None:
                    mine.seats = fresh.seats
                else:
                    self.tables[table_id] = fresh
                self.elsewhere.pop(table_id, None)
                continue
            if mine is not None:
                del self.tables[table_id]  # it started on another hall
            if not isinstance(listing, dict):
                listing = {**fresh.listing(), "state": "playing"}  # its server has not published it yet
                self.unstarted.setdefault(table_id, time.monotonic())
            else:
                self.unstarted.pop(table_id, None)
            if listing.get("state") == "finished":
                fresh.ended = {"text": listing.get("outcome") or ""}
            self.elsewhere[table_id] = (fresh, listing)
        for table_id, table in list(self.tables.items()):
            if table.server is None and table.ended is None and table_id not in seen:
                del self.tables[table_id]  # nobody sits there any more
        for table_id in list(self.elsewhere):
            if table_id not in seen or table_id in self.tables:
                del self.elsewhere[table_id]
        for table_id in list(self.unstarted):
            if table_id not in self.elsewhere:
                del self.unstarted[table_id]
        self.lobby_changed()

    def publish(self) -> None:
        """The listings of the tables served here, for the other halls' lobbies."""
        summaries = {}
        for table_id in self.unpublished:
            table = self.tables.get(table_id)
            if table is not None and table.server is not None:
                summaries[table_id] = msgpack.packb(table.listing(), use_bin_type=True)
        self.unpublished.clear()
        try:
            self.store.publish(summaries)  # type: ignore[attr-defined]
        except OSError as exc:
            self.unpublished.update(summaries)  # published with the next change, once the store is back
            self.trouble(f"Cannot publish the tables' listings: {exc.strerror or exc}")

    def follow(self, table_id: str) -> Table | None:
        """The table another hall serves, served here from its log (None: no such table).
        Raises SaveError while the store is out of reach."""
        if table_id in self.followers:
            return self.followers[table_id]
        if table_id not in self.elsewhere:
            self.read_lobby()
        if table_id not in self.elsewhere:
            return self.tables.get(table_id)
        table = self.elsewhere[table_id][0]
        if table.ended is not None:
            return table
        try:
            server = Follower(self.store, table_id, lambda: self.news.pid, **self.options(table))
        except SaveError as exc:
            if not self.store.reachable:
                raise  # its log cannot be read just now: it is not the table's doing
            self.log(f"[{table_id}] cannot be followed: {exc}")
            return table  # not started yet, as far as its log says
        table.server = server
        self.followers[table_id] = table
        self.seen_seated(table)
        server.begin()
        return table

    def unfollow_if_idle(self, table: Table) -> None:
        """A followed table nobody here is connected to any more is followed no more."""
        server = table.server
        if self.followers.get(table.id) is not table or server is None:
            return
        if server.players or server.watchers or server.pending or server.ending:
            return
        del self.followers[table.id]
        table.server = None
        self.later(server.close())

    def seen_seated(self, table: Table) -> None:
        """Which seats of ``table`` are connected to the other halls, as the database says."""
        server = table.server
        if server is None:
            return
        try:
            elsewhere = self.store.seated(table.id, self.news.pid)  # type: ignore[attr-defined]
        except SaveError as exc:
            self.trouble(f"[{table.id}] Cannot read who is connected elsewhere: {exc}")
            return
        if elsewhere != server.present_elsewhere:
            server.present_elsewhere = elsewhere
            server.presence_changed()
            if table.id in self.tables:
                self.changed(table)

    def play_relayed(self, table: Table) -> None:
        """The commands of this table's seats on other halls, played as this hall's own
        connections' are; each answered to the hall it came from."""
        server = table.server
        if server is None or server.save is None or server.save.lost or self.tables.get(table.id) is not table:
            return  # a table whose lease is lost leaves them to the hall that takes it next
        try:
            relayed = self.store.take_commands(table.id)  # type: ignore[attr-defined]
        except OSError as exc:
            self.trouble(f"[{table.id}] Cannot read the commands passed on: {exc.strerror or exc}")
            return
        for number, seat, kind, body, hall in relayed:
            if server.save.lost:  # with a move before (its save failed): nothing more is played here
                answer = ("error", NOT_SAVED)
            elif seat not in server.match.humans():
                answer = ("error", "That seat is not a player's.")
            elif kind == "takeback":
                answer = server.take_back(seat)
            else:
                try:
                    command: Any = decode_body(body)
                except Exception:  # not a map of plain values: a command of no game
                    command = None
                refusal = server.submit(seat, command)
                answer = ("ok", "") if refusal is None else ("error", refusal)
            if answer[0] != "error" and server.save.lost:
                answer = ("error", NOT_SAVED)  # played, not saved: the table goes on from its log without it
            try:
                self.store.notify({"t": "answer", "hall": hall, "table": table.id, "number": number,  # type: ignore[attr-defined]
                                   "kind": answer[0], "message": answer[1]})
            except OSError as exc:
                self.trouble(f"[{table.id}] Cannot answer a command passed on: {exc.strerror or exc}")

    def start_table(self, table: Table) -> None:
        """Every human seat is taken: the match is made and saved, and the table served."""
        game = get_game(table.game)
        assert game is not None
        seats = []
        for i, seat in enumerate(table.seats):
            options = {opt.key: seat[opt.key] for opt in game.seat_options if opt.key in seat}
            if seat.get("kind") == BOT:
                seats.append(SeatSpec(BOT, seat.get("level"), bot_name(i), options))
            else:
                seats.append(SeatSpec(HUMAN, None, seat["user"], options))
        match = TableSpec(game.id, table.players, seats, table.variants).build(table=table.id)
        self.serve_table(table, SaveWriter(self.store.hold(table.id), match))
        self.log(f"[{table.id}] {game.title} starts: {', '.join(str(seat.name) for seat in seats)}.")

    def changed(self, table: Table) -> None:
        table.updated = time.time()
        if self.news is not None and table.server is not None:
            self.unpublished.add(table.id)
        self.lobby_changed()

    # -- the lobby ------------------------------------------------------------------------------------

    def lobby_changed(self) -> None:
        """Every lobby is told the tables within LOBBY_DELAY (one listing for all)."""
        self.lobby_version += 1
        if self.lobby_handle is None:
            self.lobby_handle = asyncio.get_running_loop().call_later(LOBBY_DELAY, self.tell_lobbies)

    def listing(self) -> dict[str, Any]:
        tables = [t.listing() for t in self.tables.values()]
        if self.elsewhere:
            tables += [listing for _, listing in self.elsewhere.values()]
            tables.sort(key=lambda t: t["created"])
        return {"t": "lobby", "tables": tables}

    def tell_lobbies(self) -> None:
        self.lobby_handle = None
        if self.unpublished:
            self.publish()
        if not self.lobbies:
            return
        frame = pack(self.listing())
        for lobby in list(self.lobbies):
            lobby.send({}, frame)

    async def connected(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        token = None
        task = asyncio.current_task()
        if task is not None:
            self.handlers.add(task)
        try:
            try:
                hello = await asyncio.wait_for(read_frame(reader, CLIENT_MAX), HELLO_TIMEOUT)
            except (asyncio.TimeoutError, ProtocolError):
                hello = None
            if hello is None or hello.get("t") != "hello" or hello.get("v") != VERSION:
                writer.write(pack({"t": "bye", "message": "This is a Cabinet hall: say hello with a session's token."}))
                return
            token = hello.get("token")
            name = self.sessions.get(token) if isinstance(token, str) else None
            if name is None:
                writer.write(pack({"t": "bye", "message": "This session is over: connect again."}))
                return
            self.by_token.setdefault(token, set()).add(writer)
            table_id = hello.get("table")
            if table_id is None:
                await self.lobby(Lobby(name, writer), reader)
                return
            table = self.tables.get(table_id) if isinstance(table_id, str) else None
            if self.news is not None and isinstance(table_id, str) and (table is None or table.state() == "waiting"):
                try:
                    table = self.follow(table_id)  # served by another hall, or started there since this one heard
                except (OSError, SaveError) as exc:
                    self.trouble(f"[{table_id}] cannot be opened: {exc}")
                    writer.write(pack({"t": "bye", "message": UNREACHABLE}))
                    return
            if table is None or table.server is None:
                sentence = (
                    "There is no such table." if table is None
                    else "That table is over: replay it from the lobby." if table.ended is not None
                    else "That table has not started: it waits for players."
                )
                writer.write(pack({"t": "bye", "message": sentence}))
                return
            seat = table.seat_of(name)
            admitted: Viewer = PUBLIC if seat is None or hello.get("watch") is True else seat
            await table.server.adopt(reader, writer, admitted, key=name)
            self.unfollow_if_idle(table)
        except (ConnectionError, OSError, asyncio.IncompleteReadError):
            pass
        except asyncio.CancelledError:
            pass  # the hall is stopping
        finally:
            if token is not None and token in self.by_token:
                self.by_token[token].discard(writer)
            with contextlib.suppress(Exception):
                writer.close()
            self.handlers.discard(task)  # type: ignore[arg-type]

    async def lobby(self, lobby: Lobby, reader: asyncio.StreamReader) -> None:
        lobby.send({"t": "welcome", "v": VERSION, "user": lobby.name})
        lobby.send(self.listing())
        self.lobbies[lobby] = None
        try:
            while True:
                try:
                    message = await read_frame(reader, CLIENT_MAX)
                except ProtocolError as exc:
                    lobby.send({"t": "bye", "message": str(exc)})
                    return
                if message is None:
                    return
                reply = self.request(lobby.name, message)
                reply["t"] = "reply"
                reply["re"] = message.get("id")
                lobby.send(reply)
        finally:
            self.lobbies.pop(lobby, None)

    # -- what a lobby asks -------------------------------------------------------------------------------

    def request(self, name: str, message: dict[str, Any]) -> dict[str, Any]:
        """The answer to a lobby's request: ``ok`` and what it asked for, or the sentence why not."""
        kind = message["t"]
        try:
            if kind == "create":
                return self.create(name, message)
            if kind == "sit":
                return self.sit(name, self.table_or_refuse(message), message.get("seat"))
            if kind == "stand":
                return self.stand(name, self.table_or_refuse(message))
            if kind == "log":
                return self.table_log(self.table_or_refuse(message))
        except Refused as exc:
            return {"ok": False, "message": str(exc)}
        except (OSError, SaveError) as exc:
            self.trouble(f"Cannot do {name}'s request ({kind}): {exc}")
            return {"ok": False, "message": UNREACHABLE}
        return {"ok": False, "message": f"Unknown request {kind!r}."}

    def table_or_refuse(self, message: dict[str, Any]) -> Table:
        table = self.tables.get(message.get("table")) if isinstance(message.get("table"), str) else None
        if table is None and message.get("table") in self.elsewhere:
            table = self.elsewhere[message["table"]][0]
        if table is None:
            raise Refused("There is no such table (any more).")
        return table

    def create(self, name: str, message: dict[str, Any]) -> dict[str, Any]:
        game = get_game(message.get("game")) if isinstance(message.get("game"), str) else None
        if game is None:
            raise Refused(f"This server has no such game (games: {', '.join(all_games())}).")
        open_ones = [t.listing() for t in self.tables.values() if t.created_by == name]
        open_ones += [listing for _, listing in self.elsewhere.values() if listing["created_by"] == name]
        open_ones = [t for t in open_ones if t["state"] in ("waiting", "playing")]
        if len(open_ones) >= self.open_tables:
            raise Refused(f"You have {len(open_ones)} tables not finished; finish one before you open another.")
        try:  # the names are the players' own, the seeds the hall's: neither is asked
            asked = TableSpec.from_plain(message)
            spec = replace(asked, seats=[replace(seat, name=None) for seat in asked.seats])
            spec.check()
        except ConfigError as exc:
            raise Refused(str(exc)) from None
        players, variants = spec.players, spec.variants
        seats: list[dict[str, Any]] = [
            {"kind": BOT, "level": spec.level(game, seat), **seat.options} if seat.kind == BOT
            else {"kind": HUMAN, "user": None, **seat.options}
            for seat in spec.seats
        ]
        sit = message.get("sit")
        if not isinstance(sit, int) or not 0 <= sit < players or seats[sit]["kind"] != "human":
            raise Refused("Choose a player's seat for yourself.")
        table_id = new_table_id()
        taken = set(self.store.tables())
        while table_id in self.tables or table_id in taken or table_id in self.elsewhere:
            table_id = new_table_id()
        table = Table(table_id, game.id, players, seats, {str(k): str(v) for k, v in variants.items()}, name, time.time())
        self.tables[table.id] = table
        self.log(f"[{table.id}] {name} opens a table of {game.title} for {players}.")
        reply = self.sit(name, table, sit, new=True)
        reply["table"] = table.id
        return reply

    def change_seats(self, table: Table, change: Callable[[Table], None], new: bool = False) -> None:
        """Change who sits at the waiting ``table`` as one step no other hall's change comes
        between: the table is first brought up to its record as it is now (another hall of
        the database may have changed it), then ``change``d (Refused: nothing is), then kept;
        a table nobody sits at any more is forgotten."""
        before = [dict(seat) for seat in table.seats]

        def step(record: bytes | None) -> bytes | None:
            if record is not None and self.store.shared:
                try:
                    table.seats = Table.from_record(msgpack.unpackb(record, raw=False, strict_map_key=False)).seats
                except (ValueError, TypeError, KeyError, msgpack.UnpackException):
                    raise Refused("That table's record is damaged.") from None
            elif record is None and self.store.shared and not new:
                raise Refused("There is no such table (any more).")
            change(table)
            return msgpack.packb(table.record(), use_bin_type=True) if any(table.users()) else None

        try:
            self.store.update_lobby(table.id, step)
        except Refused:
            if not self.store.shared:
                table.seats = before
            raise
        except OSError as exc:
            table.seats = before
            raise Refused(f"The lobby cannot be changed just now ({exc.strerror or exc}).") from None

    def sit(self, name: str, table: Table, seat: Any, new: bool = False) -> dict[str, Any]:
        chosen: list[int] = []

        def take(table: Table) -> None:
            if table.state() != "waiting" or not table.free_seats():
                raise Refused("That table has started: watch it instead.")
            if table.seat_of(name) is not None:
                raise Refused("You have a seat at that table already.")
            free = table.free_seats()
            wanted = free[0] if seat is None and free else seat
            if wanted not in free:
                raise Refused("That seat is not free.")
            table.seats[wanted]["user"] = name
            chosen.append(wanted)

        self.change_seats(table, take, new=new)
        started = not table.free_seats()
        if started:
            try:
                self.start_table(table)
            except SaveLocked:
                # another hall found it full and not started, and started it: it is served there
                self.log(f"[{table.id}] started by another server meanwhile.")
                self.lobby_news()
                return {"ok": True, "table": table.id, "seat": chosen[0], "started": True}
            except (ConfigError, OSError, SaveError) as exc:
                self.log(f"[{table.id}] could not start: {exc}")
                with contextlib.suppress(Refused):
                    self.change_seats(table, lambda t: t.seats[chosen[0]].update(user=None))
                self.changed(table)
                raise Refused(f"The table could not start: {exc}") from None
            self.tables[table.id] = table
            self.elsewhere.pop(table.id, None)
        self.changed(table)
        return {"ok": True, "table": table.id, "seat": chosen[0], "started": started}

    def stand(self, name: str, table: Table) -> dict[str, Any]:
        def leave(table: Table) -> None:
            seat = table.seat_of(name)
            if seat is None:
                raise Refused("You have no seat at that table.")
            if table.state() != "waiting" or not table.free_seats():
                raise Refused("That table has started: your seat waits for you there.")
            table.seats[seat]["user"] = None

        self.change_seats(table, leave)
        if not any(table.users()):
            self.tables.pop(table.id, None)  # nobody left at it: its record is gone
            self.log(f"[{table.id}] closed: nobody sits at it any more.")
        self.changed(table)
        return {"ok": True}

    def table_log(self, table: Table) -> dict[str, Any]:
        """A finished table's whole log (everything is revealed at the end)."""
        if table.state() != "finished":
            raise Refused("That table is still in play: open it and look back with h (your seat's eyes only).")
        match = table.match
        if match is None:
            try:
                match = load(self.store.source(table.id)).match
            except SaveError as exc:
                raise Refused(str(exc)) from None
        moves = [[m.seat, m.command, match.events[m.start : m.end]] for m in match.moves]
        return {"ok": True, "header": match.header, "moves": moves}


class Refused(Exception):
    """A lobby request that cannot be done: the sentence why."""
