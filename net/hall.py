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

The hall does the same things whatever it runs on: a log store
(``saves.store.LogStore``: files or the database) and a cluster
(``net.cluster.Cluster``: alone, :class:`~net.cluster.LocalCluster`, which does
nothing and has nothing elsewhere; or the database's servers).  Every call to them
runs in a thread (``net.offloop``), never on the event loop that carries every
session and table; a table's records are written in order, and a move is shown
once it is written.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import dataclasses
import functools
import multiprocessing
import os
import secrets
import signal
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import msgpack

from core.analysis import DEFAULT_EFFORT
from core.engine import PUBLIC, Command, ConfigError, Match, Viewer, outcome_text
from core.games import all_games, get_game
from net.cluster import Cluster, LocalCluster, News, Quiet
from net.offloop import Lane, Offloop, QueuedLog
from net.protocol import CLIENT_MAX, VERSION, ProtocolError, pack, read_frame
from net.relay import Follower
from net.server import CODE_ALPHABET, HELLO_TIMEOUT, GameServer, Limits, bind_unix, file_id, unlink_if_same
from saves import SaveError, SaveLocked, SaveWriter, load
from saves.analyses import AnalysisDamaged, keep_analysis, read_analysis
from saves.format import BadRecord, Log, decode_body
from saves.ratings import Ratings, Result, finished_table, ordinal, ratings_for
from saves.store import FileStore, LogStore
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
#: what a player is told when the ratings cannot be read
NO_RATINGS = "The ratings cannot be read just now; try again in a moment."


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


#: added to the niceness of the worker that analyses finished tables: after the players'
#: screens and after the bots, since nobody waits on a move for it
ANALYSIS_NICENESS = 15
#: finished tables waiting for their analysis, beyond the one being made: more are refused
#: in a sentence (each takes a core for a minute or two)
ANALYSIS_QUEUE = 8
#: the folder of the data directory where the analyses of finished tables are kept
ANALYSES = "analyses"
#: what a player asking for the analysis of a table in play is told
ANALYSIS_IN_PLAY = "That table is still in play: only a finished game is analysed, since analysing a game in play would be a cheating aid."
ANALYSIS_BUSY = "The server is analysing other games just now; ask again in a few minutes."
ANALYSIS_FAILED = "The server could not analyse that table; ask again to try once more."


def _analyse_in_the_background() -> None:
    """In the analysis's worker: at the lowest priority of the server's work."""
    with contextlib.suppress(OSError):
        os.nice(ANALYSIS_NICENESS)


class Analyst:
    """The analysis of the finished tables a server's players ask for (issue 36): made one table
    at a time, one move at a time, in a worker process of its own at the lowest priority of the
    server's work (a session's program may not spend the seconds of a core it takes: net/ssh.py),
    and kept in the data directory, where every later request finds it.  A player's replay asks
    again every second and is told how far it has got."""

    def __init__(self, folder: Path, effort: int, log: Callable[[str], None]) -> None:
        self.folder = folder
        self.effort = effort
        self.log = log
        #: table id -> [moves judged, moves of the game], for the tables waiting or being analysed
        self.progress: dict[str, list[int]] = {}
        self.queue: asyncio.Queue[tuple[str, Match]] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None
        self.pool: ProcessPoolExecutor | None = None
        self.failed: set[str] = set()  # tables whose analysis failed since they were last asked for

    def place(self, table_id: str) -> Path:
        """What the analysis of ``table_id`` is kept beside (``<place>.analysis``)."""
        return self.folder / table_id

    def kept(self, table_id: str, match: Match) -> Any:
        """The analysis kept for ``table_id``, if it is this game's; None (a damaged one is made again)."""
        try:
            return read_analysis(self.place(table_id), match, self.effort)
        except AnalysisDamaged as exc:
            self.log(f"[{table_id}] {exc} It is made again.")
            return None

    def told(self, table_id: str) -> dict[str, Any]:
        """How far the analysis of ``table_id`` (waiting or being made) has got."""
        done, total = self.progress[table_id]
        return {"ok": True, "done": done, "of": total, "ahead": list(self.progress).index(table_id)}

    def ask(self, table_id: str, match: Match) -> dict[str, Any]:
        """The finished ``match`` queued for its analysis (the caller found none kept), and how
        far it has got."""
        if table_id in self.failed:
            self.failed.discard(table_id)  # said once; asked again, it is tried again
            raise Refused(ANALYSIS_FAILED)
        if len(self.progress) > ANALYSIS_QUEUE:
            raise Refused(ANALYSIS_BUSY)
        self.progress[table_id] = [0, match.move_count]
        self.queue.put_nowait((table_id, match))
        if self.task is None:
            self.task = asyncio.get_running_loop().create_task(self.work())
        return self.told(table_id)

    def executor(self) -> ProcessPoolExecutor:
        if self.pool is None:
            self.pool = background_pool(1, ["core.games", "core.bots", "core.analysis"], _analyse_in_the_background)
        return self.pool

    async def work(self) -> None:
        """The tables asked for, one after another, for as long as the hall runs."""
        while True:
            table_id, match = await self.queue.get()
            try:
                await self.analyse(table_id, match)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - one table's analysis: said, and the next goes on
                self.log(f"[{table_id}] Could not analyse the table: {exc!r}")
                self.failed.add(table_id)
                if isinstance(exc, BrokenProcessPool):
                    self.pool = None
            finally:
                self.progress.pop(table_id, None)

    async def analyse(self, table_id: str, match: Match) -> None:
        from core.analysis import assemble, judge, positions_of

        loop = asyncio.get_running_loop()
        positions = await asyncio.to_thread(positions_of, match, self.effort)
        progress = self.progress[table_id]
        progress[0] = sum(1 for p in positions if p is None)
        estimates = {}
        for position in positions:
            if position is not None:
                estimates[position.move] = await loop.run_in_executor(self.executor(), judge, position)
                progress[0] += 1
        analysis = assemble(match, estimates, self.effort)
        await asyncio.to_thread(self.keep, table_id, match, analysis)
        self.log(f"[{table_id}] Analysed ({match.move_count} moves).")

    def keep(self, table_id: str, match: Match, analysis: Any) -> None:
        self.folder.mkdir(mode=0o700, exist_ok=True)
        keep_analysis(self.place(table_id), match, analysis)

    async def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task
            self.task = None
        if self.pool is not None:
            manager = stop_pool(self.pool)  # an analysis half made is not worth the wait: it is asked for again
            self.pool = None
            if manager is not None:
                await asyncio.to_thread(manager.join, 5)


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
            self.pool = background_pool(
                self.workers, ["core.games", "core.bots", "table.bots", "net.hall"], _think_in_the_background
            )
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
            manager = stop_pool(self.pool)  # a search to the end of its budget is not worth the wait
            self.pool = None
            if manager is not None:
                manager.join(timeout=5)


def _deaf_to_interrupts(initializer: Callable[[], None]) -> None:
    """In a new worker: Ctrl-C ignored, then ``initializer``.

    The terminal running ``cabinet serve`` sends its SIGINT to the whole foreground process
    group, the workers too; the forkserver gives each worker Python's own handler back, and a
    worker waiting for work would print a KeyboardInterrupt's traceback and die.  The server
    stops its workers itself (:func:`stop_pool`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    initializer()


def background_pool(workers: int, preload: list[str], initializer: Callable[[], None]) -> ProcessPoolExecutor:
    """Worker processes for the server's background work (bots, analyses), forked from a
    forkserver that has ``preload`` imported: the server has threads (the SSH front's,
    asyncio's), which fork copies badly.  Each worker ignores Ctrl-C (``_deaf_to_interrupts``:
    a module's function, since the initializer is pickled for the forkserver) and then runs
    ``initializer``."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(preload)
    return ProcessPoolExecutor(
        workers, mp_context=context, initializer=functools.partial(_deaf_to_interrupts, initializer)
    )


def stop_pool(pool: ProcessPoolExecutor) -> Any:
    """The workers of ``pool`` killed and the pool shut down; its manager thread, for the caller
    to wait for (bounded): it closes its wake-up pipe as it ends, and Python's exit writes to
    that pipe unless the thread has ended (in 3.11 they race: "Bad file descriptor" printed at
    exit). Killed workers end it at once."""
    for process in list(getattr(pool, "_processes", {}).values()):
        with contextlib.suppress(Exception):
            process.kill()
    manager = getattr(pool, "_executor_manager_thread", None)
    pool.shutdown(wait=False, cancel_futures=True)
    return manager


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
            "id": self.id,
            "game": self.game,
            "players": self.players,
            "seats": self.seats,
            "variants": self.variants,
            "created_by": self.created_by,
            "created": self.created,
        }

    @classmethod
    def from_record(cls, data: dict[str, Any]) -> Table:
        seats = data["seats"]
        if not isinstance(seats, list) or not all(isinstance(s, dict) for s in seats):
            raise ValueError("seats")
        return cls(
            id=str(data["id"]),
            game=str(data["game"]),
            players=int(data["players"]),
            seats=seats,
            variants=dict(data.get("variants") or {}),
            created_by=str(data.get("created_by") or ""),
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
            seats.append(
                {
                    "kind": seat.get("kind", "human"),
                    "user": seat.get("user"),
                    "level": seat.get("level"),
                    "name": seat.get("user") or (bot_name(i) if seat.get("kind") == "bot" else None),
                    "label": ", ".join(labels),
                    "away": i in away,
                }
            )
        return {
            "id": self.id,
            "game": self.game,
            "title": game.title if game else self.game,
            "players": self.players,
            "state": self.state(),
            "seats": seats,
            "active": active,
            "moves": moves,
            "created_by": self.created_by,
            "created": self.created,
            "updated": self.updated,
            "variants": self.variants,
            "outcome": (outcome or {}).get("text"),
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
        store: LogStore | None = None,
        take_over_every: float | None = None,
        cluster: Cluster | None = None,
        offloop: Offloop | None = None,
        ratings: Ratings | None = None,
        analysis_effort: int | None = None,
    ) -> None:
        self.data_dir = Path(data_dir)
        self.folder = self.data_dir / TABLES
        #: where the tables' lobby records and saves are kept
        self.store: LogStore = store if store is not None else FileStore(self.folder, SAVE)
        #: the other servers of the store (none: a LocalCluster)
        self.cluster: Cluster = cluster if cluster is not None else LocalCluster()
        #: the threads the store's and the cluster's calls are made in
        self.offloop = offloop if offloop is not None else Offloop()
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
        #: the players' (and bot levels') ratings, kept beside the tables: each finished table rated once
        self.ratings: Ratings = ratings if ratings is not None else ratings_for(self.store, self.data_dir, self.log)
        #: the analyses of finished tables, made here when a player asks for one (issue 36)
        self.analyst = Analyst(self.data_dir / ANALYSES, analysis_effort or DEFAULT_EFFORT, self.log)
        #: the tables served here whose end this hall has seen (and rates once it is written)
        self.ends_seen: set[str] = set()
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
        # -- the other halls of the cluster (with a LocalCluster, none: all of this stays empty) --
        #: the other halls' news, heard on a connection of its own; its pid names this hall
        self.news: News = Quiet()
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
        #: the hall is stopping: no new chore is started (news heard meanwhile is not followed)
        self.closing = False
        #: one change of seats or reading of the lobby at a time: a store's ``update_lobby`` is one
        #: step for the other servers, not for this one's threads, and a lobby read while seats
        #: change here would bring back the seats as they were
        self.seating = asyncio.Lock()
        #: the ids of tables being created (not in ``tables`` until their record is kept)
        self.creating: set[str] = set()
        #: per table, one look at its relayed commands, and one at who is connected elsewhere, at a time
        self.serial: dict[tuple[str, str], asyncio.Lock] = {}
        #: the seats' coming and going, told to the cluster in the order they happened
        self.presence_lane: Lane = self.offloop.lane()
        #: the tables' listings, published in the order made
        self.publishing: Lane = self.offloop.lane()

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
        self.loop = asyncio.get_running_loop()
        saved = set(await self.offloop.call(self.store.tables))
        for table_id, record in await self.offloop.call(self.store.lobby):
            await self.resume(table_id, record, saved)
        self.news = await self.offloop.call(self.cluster.listen, self.heard)
        self.unpublished.update(t.id for t in self.tables.values() if t.server is not None)
        await self.read_lobby()
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
                await self.check_leases()
                await self.take_over()
                await self.catch_up()  # news missed (a listening connection lost a while) is read again
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
        orphans = [
            t for t in await self.offloop.call(self.store.unheld) if t not in self.tables and t not in self.left_out
        ]
        records = dict(await self.offloop.call(self.store.lobby)) if orphans else {}
        for table_id in orphans:
            if table_id in self.tables:
                continue  # taken meanwhile (a player's table opened here while this one was read)
            if table_id in records and await self.resume(table_id, records[table_id], set(orphans), quiet=True):
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
        logged = set(await self.offloop.call(self.store.tables))
        started = []
        for table_id in due:
            self.unstarted.pop(table_id, None)
            if table_id in logged or table_id not in self.elsewhere:
                continue  # started after all (its listing is on its way), or gone
            table = self.elsewhere[table_id][0]
            try:
                await self.start_table(table)
            except SaveLocked:
                continue  # another hall is starting it
            except (ConfigError, OSError, SaveError) as exc:
                if not self.store.reachable:
                    self.unstarted[table_id] = now - STALLED  # nothing wrong with the table: the next look tries again
                    continue
                self.log(f"[{table_id}] could not start: {exc}")
                self.left_out.add(table_id)
                continue
            self.elsewhere.pop(table_id, None)
            self.tables[table_id] = table
            self.log(f"[{table_id}] started here: the server that seated its last player stopped before starting it.")
            self.changed(table)
            started.append(table_id)
        return started

    async def resume(self, table_id: str, record: bytes, saved: set[str], quiet: bool = False) -> bool:
        """The table of this lobby record, and its match if it has a save (``saved``: the
        tables that do); whether it is served.  ``quiet``: a table another writer holds is
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
                ended, writer = await self.offloop.call(self.open_log, table.id)
                if ended is not None:
                    table.ended, table.moves = ended
                    # rated when it ended, unless this hall (or the one serving it) stopped first
                    self.later(self.rate(table.ended.get("result")))
                else:
                    assert writer is not None
                    self.serve_table(table, writer)
            except SaveLocked as exc:
                if not quiet:
                    self.log(f"Table {table.id} is served by another server: {exc}")
                return False
            except SaveError as exc:
                if not self.store.reachable:
                    return False  # nothing wrong with the table: the next look takes it
                self.log(f"Table {table.id} is left out: {exc}")
                self.left_out.add(table.id)
                return False
        self.tables[table.id] = table
        return True

    def open_log(self, table_id: str) -> tuple[tuple[dict[str, Any], int] | None, SaveWriter | None]:
        """In a thread: the table's log read, and held to be written on (its outcome and number
        of moves instead if it is finished).  Raises SaveError, SaveLocked."""
        loaded = load(self.store.source(table_id))
        if loaded.match.outcome is not None:
            ended = {"text": outcome_text(loaded.match), "result": finished_table(table_id, loaded.match, loaded.times)}
            return (ended, loaded.match.move_count), None
        if loaded.unplayable is not None:
            raise SaveError(loaded.unplayable)
        return None, self.written_off_loop(SaveWriter.resume(loaded))

    def new_log(self, table_id: str, match: Match) -> SaveWriter:
        """In a thread: the table's log held and written from the start.  Raises SaveLocked,
        SaveError, OSError."""
        return self.written_off_loop(SaveWriter(self.store.hold(table_id), match))

    def written_off_loop(self, writer: SaveWriter) -> SaveWriter:
        """``writer``'s records written from now on in a lane of their own (in order), off the loop."""
        lane = self.offloop.lane()

        def queued(log: Log, failed: Callable[[Exception], None]) -> Log:
            return QueuedLog(log, lane, failed)

        try:
            writer.write_with(queued)
        except BaseException:
            writer.close()
            raise
        return writer

    async def close(self) -> None:
        self.closing = True
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
        await asyncio.to_thread(self.news.close)
        handlers = [t for t in [*self.handlers, *self.chores] if t is not asyncio.current_task()]
        for task in handlers:
            task.cancel()
        if handlers:
            await asyncio.wait(handlers, timeout=5)
        await self.analyst.close()
        await self.offloop.close()  # every save written and let go
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

        def told(result: Any, exc: BaseException | None) -> None:
            if isinstance(exc, OSError):
                self.trouble(f"[{table.id}] The other servers cannot be told who is here: {exc.strerror or exc}.")

        def presence(seat: int, here: bool) -> None:
            self.presence_lane.push(
                functools.partial(self.cluster.seat_here, table.id, seat, self.news.pid, here), told
            )

        return {
            "bot_delay": self.bot_delay,
            "log": log,
            "on_send": sent,
            "limits": Limits.derive(table.players),
            "on_presence": presence,
        }

    def serve_table(self, table: Table, writer: SaveWriter) -> None:
        writer.on_error = lambda sentence: self.save_failed(table, sentence)
        table.server = GameServer(
            writer,
            {},
            think=self.bots.think,
            on_change=lambda: self.changed(table),
            **self.options(table),
        )
        table.server.begin()
        self.unpublished.add(table.id)
        self.later(self.seen_seated(table))
        self.later(self.play_relayed(table))  # those left for its last server

    def save_failed(self, table: Table, sentence: str) -> None:
        """A table's save could not be written: said to the log.  A lease lost with it (its
        connection cut, the database restarted) means another hall may serve the table
        now: this one lets it go, its players join it again (a follower's, or the new server's)."""
        self.log(f"[{table.id}] {sentence}")
        server = table.server
        if server is not None and server.save is not None and server.save.lost:
            self.let_go(table)

    async def check_leases(self) -> None:
        """The tables whose lease was lost while nothing was written are let go too: all of
        them when the connection for leases is found lost now, and those of a connection
        lost before, should a new one hold the tables taken since."""
        await self.offloop.call(self.cluster.leases_alive)
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
        if self.closing:
            work.close()  # never started
            return
        task = asyncio.get_running_loop().create_task(work)
        self.chores.add(task)
        task.add_done_callback(self.chores.discard)

    def one_at_a_time(self, what: str, table_id: str) -> asyncio.Lock:
        """The lock that keeps ``what`` (a look at a table's relayed commands, at who is
        connected where) to one at a time for ``table_id``, its results applied in order."""
        return self.serial.setdefault((what, table_id), asyncio.Lock())

    # -- the other halls of a database ---------------------------------------------------------

    def heard(self, message: dict[str, Any]) -> None:
        """Another hall's news (or this one's), from the listening thread."""
        loop = self.loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(self.news_came, message)

    def news_came(self, message: dict[str, Any]) -> None:
        self.later(self.follow_news(message))

    async def follow_news(self, message: dict[str, Any]) -> None:
        kind, table_id = message.get("t"), message.get("table")
        try:
            if kind == "lobby":
                self.lobby_news()
            elif kind in ("log", "rewrite") and isinstance(table_id, str) and table_id in self.followers:
                server = self.followers[table_id].server
                if isinstance(server, Follower):
                    await server.catch_up(rewritten=kind == "rewrite")
            elif kind == "command" and isinstance(table_id, str) and table_id in self.tables:
                await self.play_relayed(self.tables[table_id])
            elif kind == "seated" and isinstance(table_id, str):
                table = self.tables.get(table_id) or self.followers.get(table_id)
                if table is not None:
                    await self.seen_seated(table)
            elif (
                kind == "answer"
                and message.get("hall") == self.news.pid
                and isinstance(table_id, str)
                and table_id in self.followers
            ):
                server = self.followers[table_id].server
                if isinstance(server, Follower):
                    server.answered(
                        int(message.get("number", -1)), str(message.get("kind")), str(message.get("message"))
                    )
            elif kind == "listening":  # heard again after a while: this hall has a new name, and missed news
                for table in [*self.tables.values(), *self.followers.values()]:
                    if table.server is not None and table.server.on_presence is not None:
                        for seat in table.server.players:
                            table.server.on_presence(seat, True)
                # the listening connection may be back before the one the store reads with (a
                # database restarted): that one is being made again, and is asked again shortly
                for wait in (0.1, 0.2, 0.4, 0.8, 1.6, None):
                    try:
                        await self.catch_up()
                        break
                    except (OSError, SaveError):
                        if wait is None or self.closing:
                            raise
                        await asyncio.sleep(wait)
        except (OSError, SaveError) as exc:
            self.trouble(f"Could not follow the other servers' news ({kind}): {exc}")

    async def catch_up(self) -> None:
        """Read again what news tells: the lobby, the followed tables' logs, who is connected where,
        the commands relayed to this hall's tables.  Raises OSError, SaveError."""
        await self.read_lobby()
        for table in list(self.followers.values()):
            if isinstance(table.server, Follower):
                await table.server.catch_up()
                await self.seen_seated(table)
        for table in list(self.tables.values()):
            if table.server is not None:
                await self.seen_seated(table)
                await self.play_relayed(table)

    def lobby_news(self) -> None:
        """The lobby is read again within NEWS_DELAY (news comes in bursts)."""
        if self.news_handle is None and self.loop is not None and not self.closing:
            self.news_handle = self.loop.call_later(NEWS_DELAY, self.read_lobby_now)

    def read_lobby_now(self) -> None:
        self.news_handle = None
        self.later(self.read_lobby_or_say())

    async def read_lobby_or_say(self) -> None:
        try:
            await self.read_lobby()
        except (OSError, SaveError) as exc:
            self.trouble(f"Cannot read the lobby: {exc}")

    def listings(self) -> tuple[list[tuple[str, bytes]], dict[str, bytes]]:
        """In a thread: every table's lobby record, and the listings the cluster's servers published."""
        return self.store.lobby(), self.cluster.summaries()

    async def read_lobby(self) -> None:
        """Every table of the store as this hall's lobby lists it: the waiting ones as their
        records say (any hall may seat players there), those served elsewhere as their server
        last published them.  Raises SaveError."""
        async with self.seating:
            records, summaries = await self.offloop.call(self.listings)
            self.lobby_read(records, summaries)

    def lobby_read(self, records: list[tuple[str, bytes]], summaries: dict[str, bytes]) -> None:
        seen = set()
        for table_id, record in records:
            summary = summaries.get(table_id)
            seen.add(table_id)
            mine = self.tables.get(table_id)
            if mine is not None and (mine.server is not None or mine.ended is not None):
                continue  # served (or finished) here: this hall knows it best
            if table_id in self.left_out:
                continue  # refused here for good (damaged, an unknown game)
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
        if not summaries:
            return

        def published(result: Any, exc: BaseException | None) -> None:
            if isinstance(exc, OSError):
                for table_id in summaries:  # published with the next change, once the store is back
                    if table_id in self.tables:
                        self.unpublished.add(table_id)
                self.trouble(f"Cannot publish the tables' listings: {exc.strerror or exc}")

        self.publishing.push(functools.partial(self.cluster.publish, summaries), published)

    async def follow(self, table_id: str) -> Table | None:
        """The table another hall serves, served here from its log (None: no such table).
        Raises SaveError while the store is out of reach."""
        if table_id in self.followers:
            return self.followers[table_id]
        if table_id not in self.elsewhere:
            await self.read_lobby()
        if table_id not in self.elsewhere:
            return self.tables.get(table_id)
        table = self.elsewhere[table_id][0]
        if table.ended is not None:
            return table
        try:
            server = await Follower.open(
                self.cluster, self.offloop, table_id, lambda: self.news.pid, **self.options(table)
            )
        except SaveError as exc:
            if not self.cluster.reachable:
                raise  # its log cannot be read just now: it is not the table's doing
            self.log(f"[{table_id}] cannot be followed: {exc}")
            return table  # not started yet, as far as its log says
        if table_id in self.followers:  # followed meanwhile, for another of this hall's connections
            self.later(server.close())
            return self.followers[table_id]
        table.server = server
        self.followers[table_id] = table
        self.later(self.seen_seated(table))
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

    async def seen_seated(self, table: Table) -> None:
        """Which seats of ``table`` are connected to the other halls, as the cluster says."""
        async with self.one_at_a_time("seated", table.id):
            if table.server is None:
                return
            try:
                elsewhere = await self.offloop.call(self.cluster.seated, table.id, self.news.pid)
            except SaveError as exc:
                self.trouble(f"[{table.id}] Cannot read who is connected elsewhere: {exc}")
                return
            server = table.server
            if server is None:
                return
            if elsewhere != server.present_elsewhere:
                server.present_elsewhere = elsewhere
                server.presence_changed()
                if table.id in self.tables:
                    self.changed(table)

    async def play_relayed(self, table: Table) -> None:
        """The commands of this table's seats on other halls, played as this hall's own
        connections' are; each answered to the hall it came from once the moves are written."""
        async with self.one_at_a_time("relayed", table.id):
            server = table.server
            if server is None or server.save is None or server.save.lost or self.tables.get(table.id) is not table:
                return  # a table whose lease is lost leaves them to the hall that takes it next
            try:
                relayed = await self.offloop.call(self.cluster.take_commands, table.id)
            except OSError as exc:
                self.trouble(f"[{table.id}] Cannot read the commands passed on: {exc.strerror or exc}")
                return
            if server is not table.server or server.save is None:
                return  # the table stopped meanwhile; the commands are lost with it, as a connection's are
            answers = []
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
                    except BadRecord:  # not a map of plain values: a command of no game
                        command = None
                    refusal = server.submit(seat, command)
                    answer = ("ok", "") if refusal is None else ("error", refusal)
                answers.append((number, hall, answer))
            if answers:
                save = server.save
                save.when_written(lambda: self.answer(table, save, answers))

    def answer(self, table: Table, save: SaveWriter, answers: list[tuple[int, int, tuple[str, str]]]) -> None:
        """The halls whose seats' commands were played here are told (once the moves are written)."""

        def told(result: Any, exc: BaseException | None) -> None:
            if isinstance(exc, OSError):
                self.trouble(f"[{table.id}] Cannot answer a command passed on: {exc.strerror or exc}")

        for number, hall, (kind, message) in answers:
            if kind != "error" and save.lost:
                kind, message = "error", NOT_SAVED  # played, not saved: the table goes on from its log without it
            notice = {
                "t": "answer",
                "hall": hall,
                "table": table.id,
                "number": number,
                "kind": kind,
                "message": message,
            }
            self.publishing.push(functools.partial(self.cluster.notify, notice), told)

    async def start_table(self, table: Table) -> None:
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
        self.serve_table(table, await self.offloop.call(self.new_log, table.id, match))
        self.log(f"[{table.id}] {game.title} starts: {', '.join(str(seat.name) for seat in seats)}.")

    def changed(self, table: Table) -> None:
        table.updated = time.time()
        if table.server is not None:
            self.unpublished.add(table.id)
            self.rate_when_saved(table)
        self.lobby_changed()

    # -- ratings ------------------------------------------------------------------------------------

    def rate_when_saved(self, table: Table) -> None:
        """A table served here that has just ended is rated once its last move is saved (a
        move not saved, its lease lost, is not the table's end: whoever serves it next goes on)."""
        server = table.server
        if (
            server is None
            or server.save is None
            or table.id in self.ends_seen
            or self.tables.get(table.id) is not table
        ):
            return
        match = server.match
        if match.outcome is None:
            return
        self.ends_seen.add(table.id)
        save = server.save

        def saved() -> None:
            if save.lost or save.error is not None:
                self.ends_seen.discard(table.id)
                return
            self.later(self.rate(finished_table(table.id, match, list(save.times))))

        save.when_written(saved)

    async def rate(self, result: Result | None) -> None:
        """The finished table's players (and bot levels) rated, once whatever the number of
        halls that see its end; one that cannot be now is rated when a hall next starts."""
        if result is None:
            return  # nothing to rate: a solo game
        try:
            applied = await self.offloop.call(self.ratings.apply, result)
        except (OSError, SaveError) as exc:
            self.trouble(f"[{result.table}] Cannot rate the table now: {exc}")
            return
        if applied:
            self.log(f"[{result.table}] rated, by place: {by_place(result)}")

    async def leaderboard(self, name: str, message: dict[str, Any]) -> dict[str, Any]:
        """A game's best ratings, and the asker's own row."""
        game_id = message.get("game")
        game = get_game(game_id) if isinstance(game_id, str) else None
        if game is None:
            raise Refused(f"This server has no such game (games: {', '.join(all_games())}).")
        try:
            standings = await self.offloop.call(self.ratings.board, game.id, name)
        except (OSError, SaveError) as exc:
            self.trouble(f"Cannot read the ratings: {exc}")
            return {"ok": False, "message": NO_RATINGS}
        rows = [
            {"rank": s.rank, "name": s.name, "rating": round(s.rating.ordinal), "games": s.rating.games}
            for s in standings
        ]
        return {"ok": True, "game": game.id, "rows": rows}

    async def results_of(self, name: str) -> dict[str, Any]:
        """The finished tables ``name`` sat at, the latest first, with every seat's place."""
        try:
            results = await self.offloop.call(self.ratings.results, name)
        except (OSError, SaveError) as exc:
            self.trouble(f"Cannot read the ratings: {exc}")
            return {"ok": False, "message": NO_RATINGS}
        tables = []
        for result in results:
            game = get_game(result.game)
            tables.append(
                {
                    "id": result.table,
                    "game": result.game,
                    "title": game.title if game is not None else result.game,
                    "ended": result.ended,
                    "seats": [[seat.name, seat.place] for seat in result.seats],
                    "place": result.place_of(name),
                }
            )
        return {"ok": True, "tables": tables}

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
            except (TimeoutError, ProtocolError):
                hello = None
            if hello is None or hello.get("t") != "hello" or hello.get("v") != VERSION:
                writer.write(pack({"t": "bye", "message": "This is a Cabinet hall: say hello with a session's token."}))
                return
            token = hello.get("token")
            name = self.sessions.get(token) if isinstance(token, str) else None
            if name is None or not isinstance(token, str):
                writer.write(pack({"t": "bye", "message": "This session is over: connect again."}))
                return
            self.by_token.setdefault(token, set()).add(writer)
            table_id = hello.get("table")
            if table_id is None:
                await self.lobby(Lobby(name, writer), reader)
                return
            table = self.tables.get(table_id) if isinstance(table_id, str) else None
            if isinstance(table_id, str) and (table is None or table.state() == "waiting"):
                try:
                    table = await self.follow(table_id)  # served by another hall, or started there since this one heard
                except (OSError, SaveError) as exc:
                    self.trouble(f"[{table_id}] cannot be opened: {exc}")
                    writer.write(pack({"t": "bye", "message": UNREACHABLE}))
                    return
            if table is None or table.server is None:
                sentence = (
                    "There is no such table."
                    if table is None
                    else "That table is over: replay it from the lobby."
                    if table.ended is not None
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
            if task is not None:
                self.handlers.discard(task)

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
                reply = await self.request(lobby.name, message)
                reply["t"] = "reply"
                reply["re"] = message.get("id")
                lobby.send(reply)
        finally:
            self.lobbies.pop(lobby, None)

    # -- what a lobby asks -------------------------------------------------------------------------------

    async def request(self, name: str, message: dict[str, Any]) -> dict[str, Any]:
        """The answer to a lobby's request: ``ok`` and what it asked for, or the sentence why not."""
        kind = message["t"]
        try:
            if kind == "create":
                return await self.create(name, message)
            if kind == "sit":
                return await self.sit(name, self.table_or_refuse(message), message.get("seat"))
            if kind == "stand":
                return await self.stand(name, self.table_or_refuse(message))
            if kind == "log":
                return await self.table_log(self.table_or_refuse(message))
            if kind == "analysis":
                return await self.table_analysis(self.table_or_refuse(message))
            if kind == "ratings":
                return await self.leaderboard(name, message)
            if kind == "results":
                return await self.results_of(name)
        except Refused as exc:
            return {"ok": False, "message": str(exc)}
        except (OSError, SaveError) as exc:
            self.trouble(f"Cannot do {name}'s request ({kind}): {exc}")
            return {"ok": False, "message": UNREACHABLE}
        return {"ok": False, "message": f"Unknown request {kind!r}."}

    def table_or_refuse(self, message: dict[str, Any]) -> Table:
        wanted = message.get("table")
        table = self.tables.get(wanted) if isinstance(wanted, str) else None
        if table is None and message.get("table") in self.elsewhere:
            table = self.elsewhere[message["table"]][0]
        if table is None:
            raise Refused("There is no such table (any more).")
        return table

    async def create(self, name: str, message: dict[str, Any]) -> dict[str, Any]:
        game_id = message.get("game")
        game = get_game(game_id) if isinstance(game_id, str) else None
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
            {"kind": BOT, "level": spec.level(game, seat), **seat.options}
            if seat.kind == BOT
            else {"kind": HUMAN, "user": None, **seat.options}
            for seat in spec.seats
        ]
        sit = message.get("sit")
        if not isinstance(sit, int) or not 0 <= sit < players or seats[sit]["kind"] != "human":
            raise Refused("Choose a player's seat for yourself.")
        taken = set(await self.offloop.call(self.store.tables))
        table_id = new_table_id()
        while table_id in self.tables or table_id in taken or table_id in self.elsewhere or table_id in self.creating:
            table_id = new_table_id()
        table = Table(
            table_id, game.id, players, seats, {str(k): str(v) for k, v in variants.items()}, name, time.time()
        )
        self.creating.add(table_id)
        self.log(f"[{table.id}] {name} opens a table of {game.title} for {players}.")
        try:
            reply = await self.sit(name, table, sit, new=True)
        finally:
            self.creating.discard(table_id)
        reply["table"] = table.id
        return reply

    async def change_seats(self, table: Table, change: Callable[[Table], None], new: bool = False) -> None:
        """Change who sits at the waiting ``table`` as one step no other hall's change comes
        between: the table is first brought up to its record as it is now (another hall of
        the cluster may have changed it), then ``change``d (Refused: nothing is), then kept;
        a table nobody sits at any more is forgotten.  ``new``: the table has no record yet.
        The store's step runs in a thread, on a copy of the seats: the table changes on the
        loop, once the record is kept."""
        seen: list[list[dict[str, Any]]] = []  # the seats as the record has them now
        kept: list[list[dict[str, Any]]] = []  # the seats as changed and kept

        def step(record: bytes | None) -> bytes | None:
            if record is not None:
                try:
                    seats = Table.from_record(msgpack.unpackb(record, raw=False, strict_map_key=False)).seats
                except (ValueError, TypeError, KeyError, msgpack.UnpackException):
                    raise Refused("That table's record is damaged.") from None
                seen.append(copy.deepcopy(seats))
            elif not new:
                raise Refused("There is no such table (any more).")
            else:
                seats = copy.deepcopy(table.seats)
            trial = dataclasses.replace(table, seats=seats)
            change(trial)
            kept.append(trial.seats)
            return msgpack.packb(trial.record(), use_bin_type=True) if any(trial.users()) else None

        async with self.seating:
            try:
                await self.offloop.call(self.store.update_lobby, table.id, step)
            except Refused:
                if seen:
                    table.seats = seen[-1]
                raise
            except OSError as exc:
                raise Refused(f"The lobby cannot be changed just now ({exc.strerror or exc}).") from None
            table.seats = kept[-1]

    async def sit(self, name: str, table: Table, seat: Any, new: bool = False) -> dict[str, Any]:
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
            chosen[:] = [wanted]

        await self.change_seats(table, take, new=new)
        if new:
            self.tables[table.id] = table
        started = not table.free_seats()
        if started:
            try:
                await self.start_table(table)
            except SaveLocked:
                # another hall found it full and not started, and started it: it is served there
                self.log(f"[{table.id}] started by another server meanwhile.")
                self.lobby_news()
                return {"ok": True, "table": table.id, "seat": chosen[0], "started": True}
            except (ConfigError, OSError, SaveError) as exc:
                self.log(f"[{table.id}] could not start: {exc}")
                with contextlib.suppress(Refused):
                    await self.change_seats(table, lambda t: t.seats[chosen[0]].update(user=None))
                if not any(table.users()):
                    self.tables.pop(table.id, None)  # nobody left at it: its record is gone
                self.changed(table)
                raise Refused(f"The table could not start: {exc}") from None
            self.tables[table.id] = table
            self.elsewhere.pop(table.id, None)
        self.changed(table)
        return {"ok": True, "table": table.id, "seat": chosen[0], "started": started}

    async def stand(self, name: str, table: Table) -> dict[str, Any]:
        def leave(table: Table) -> None:
            seat = table.seat_of(name)
            if seat is None:
                raise Refused("You have no seat at that table.")
            if table.state() != "waiting" or not table.free_seats():
                raise Refused("That table has started: your seat waits for you there.")
            table.seats[seat]["user"] = None

        await self.change_seats(table, leave)
        closed = not any(table.users())
        if closed:
            self.tables.pop(table.id, None)  # nobody left at it: its record is gone
            self.log(f"[{table.id}] closed: nobody sits at it any more.")
        self.changed(table)
        return {"ok": True, "closed": closed}

    async def table_log(self, table: Table) -> dict[str, Any]:
        """A finished table's whole log (everything is revealed at the end)."""
        if table.state() != "finished":
            raise Refused("That table is still in play: open it and look back with h (your seat's eyes only).")
        match = await self.finished_match(table)
        moves = [[m.seat, m.command, match.events[m.start : m.end]] for m in match.moves]
        return {"ok": True, "header": match.header, "moves": moves}

    async def finished_match(self, table: Table) -> Match:
        """The match of a finished table: the one in play here, else its log read."""
        if table.match is not None:
            return table.match
        try:
            return (await self.offloop.call(load, self.store.source(table.id))).match
        except SaveError as exc:
            raise Refused(str(exc)) from None

    async def table_analysis(self, table: Table) -> dict[str, Any]:
        """A finished table's analysis: the one kept here, else how far its making has got
        (the table queued for it if it was not)."""
        if table.state() != "finished":
            raise Refused(ANALYSIS_IN_PLAY)
        if table.id in self.analyst.progress:
            return self.analyst.told(table.id)
        match = await self.finished_match(table)
        if match.outcome is None:
            raise Refused(ANALYSIS_IN_PLAY)
        kept = await self.offloop.call(self.analyst.kept, table.id, match)
        if kept is not None:
            return {"ok": True, "analysis": kept.to_plain()}
        if table.id in self.analyst.progress:  # (asked for meanwhile, by another player)
            return self.analyst.told(table.id)
        return self.analyst.ask(table.id, match)


class Refused(Exception):
    """A lobby request that cannot be done: the sentence why."""


def by_place(result: Result) -> str:
    """A rated table's seats by place, each with its seat's number (bots share a name):
    "1st ann (seat 1), 2nd Bot: normal (seat 3), 2nd Bot: normal (seat 4)"."""
    ranked = sorted(enumerate(result.seats, start=1), key=lambda item: item[1].place)
    return ", ".join(f"{ordinal(seat.place)} {seat.name} (seat {number})" for number, seat in ranked)
