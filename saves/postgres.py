"""PostgreSQL as a store of tables' logs, for several processes on several machines.

The records are the save file's, byte for byte: each is a row of ``events``
(table, sequence number, kind, the CRC32 of the body, the link to the record
before, the seal, the msgpack body), and a table's log is its rows in sequence
order behind the file's preamble.  So a table exported to a file is a save that
``cabinet verify`` accepts, a save imported gives back the same bytes, and a load
checks a table's checksums, chain and seal exactly as it checks a file's.
Checkpoints are records of the same chain (kind ``C``), not rows of a table
apart: the chain and the unique (table, sequence) cover them too.  A table says
which save format its log is of (``tables.format``: 2 for those written before
format 3, whose links and seals are made otherwise), so that its bytes are the
file's whichever it is.

The primary key (table, sequence) is what keeps two writers from ever
interleaving a log, whatever happens: a record numbered where another already
is cannot be written.  Above it, one writer a table at a time: a writer holds a
session-level advisory lock on the table (its *lease*) on its store's connection
for leases (one a process, whatever the number of tables: a database allows
few connections), which the server drops the moment that connection ends,
however the process died; ``writers`` says who holds it, for the sentence that
refuses a second writer.

The store's seal key is kept in the database (``settings``), so that the
tables its writers wrote are folded when loaded rather than decided again.

A database restarts, fails over, ends a session: each of the store's
connections (its own, the one for leases, the listening one) is a :class:`Link`,
made again in a thread of its own when it is found lost, and meanwhile every
call through it fails at once in a sentence.  The store says once that it lost
the database and once that it has it again (``log_to``).  A lease does not come
back with its connection: its writer writes nothing more, and whoever takes the
table next takes it from its log.

Everything lives in the schema ``cabinet``, made on the first connection under
an advisory lock (two processes starting at once make it once) and numbered
(``schema_version``), so that a later Cabinet can change it step by step and an
older one refuses a newer schema in a sentence.
"""

from __future__ import annotations

import errno
import json
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

try:
    import psycopg
    from psycopg.conninfo import conninfo_to_dict
except ImportError:  # the optional extra "postgres" is not installed
    psycopg = None  # type: ignore[assignment]  # None stands for the module not installed

from saves.format import (
    LOG_PREAMBLE,
    RECORD_FRAME,
    InStore,
    Log,
    SaveError,
    SaveLocked,
    Source,
    StoredRecord,
    _holder_sentence,
    _whoami,
    format_of,
    join_records,
    split_records,
)
from saves.store import LogStore

DRIVER_MISSING = "A PostgreSQL store needs the psycopg driver, which is not installed: pip install 'cabinet[postgres]'."

#: the schema this Cabinet makes and reads
SCHEMA_VERSION = 6
#: the channel every server of a database listens on: a table's new records, lobby changes, relayed commands
CHANNEL = "cabinet"
#: seconds before the first attempt to connect again to a database that went away, and at
#: most between two attempts, however long it stays away (the wait doubles from one to the
#: other): a restart takes a fraction of a second, and the tables wait on the connections
RECONNECT = (0.1, 1.0)
#: the first key of every advisory lock Cabinet takes ("CAB!"), so that they never meet another program's
LOCK_SPACE = 0x43414221
#: the second key of the lock under which the schema is made (table ids start at 1)
SCHEMA_LOCK = 0

#: each version's statements, made in order from the one a database has
MIGRATIONS: dict[int, list[str]] = {
    1: [
        """CREATE TABLE cabinet.settings (
               name text PRIMARY KEY,
               value bytea NOT NULL)""",
        """CREATE TABLE cabinet.tables (
               id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
               name text NOT NULL UNIQUE,
               created timestamptz NOT NULL DEFAULT now())""",
        """CREATE TABLE cabinet.events (
               table_id integer NOT NULL REFERENCES cabinet.tables (id) ON DELETE CASCADE,
               seq integer NOT NULL CHECK (seq >= 0),
               kind text NOT NULL CHECK (kind IN ('H', 'M', 'C', 'R')),
               crc bigint NOT NULL CHECK (crc BETWEEN 0 AND 4294967295),
               link bytea NOT NULL CHECK (length(link) = 8),
               seal bytea NOT NULL CHECK (length(seal) = 8),
               body bytea NOT NULL,
               PRIMARY KEY (table_id, seq))""",
        """CREATE TABLE cabinet.writers (
               table_id integer PRIMARY KEY REFERENCES cabinet.tables (id) ON DELETE CASCADE,
               holder jsonb NOT NULL)""",
    ],
    # a server's tables are in its lobby before they have a log: who sits where, as the server keeps it
    2: ["ALTER TABLE cabinet.tables ADD COLUMN lobby bytea"],
    # who is who, for every server on the database: a name (compared without case) and the key holding it
    3: [
        """CREATE TABLE cabinet.players (
               name_folded text PRIMARY KEY,
               name text NOT NULL,
               key text NOT NULL,
               since bigint NOT NULL)""",
    ],
    # every server lists every table, and serves any to its players: what the table's server
    # alone knows for the lobby (its listing), the commands of seats on other servers, and
    # which seats are connected to which server (``hall``: its listening connection's pid)
    4: [
        "ALTER TABLE cabinet.tables ADD COLUMN summary bytea",
        """CREATE TABLE cabinet.commands (
               id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
               table_name text NOT NULL,
               seat integer NOT NULL,
               kind text NOT NULL CHECK (kind IN ('command', 'takeback')),
               body bytea NOT NULL,
               hall integer NOT NULL)""",
        "CREATE INDEX ON cabinet.commands (table_name)",
        """CREATE TABLE cabinet.seated (
               table_name text NOT NULL,
               seat integer NOT NULL,
               hall integer NOT NULL,
               PRIMARY KEY (table_name, seat, hall))""",
    ],
    # ratings (``saves.ratings``): each name's per game, and the tables rated, each once (the
    # unique table name is what two servers rating one table's end race for)
    5: [
        """CREATE TABLE cabinet.ratings (
               game text NOT NULL,
               name text NOT NULL,
               mu double precision NOT NULL,
               sigma double precision NOT NULL CHECK (sigma > 0),
               games integer NOT NULL CHECK (games >= 0),
               PRIMARY KEY (game, name))""",
        "CREATE INDEX ON cabinet.ratings (game, (mu - 3 * sigma) DESC)",
        """CREATE TABLE cabinet.rated (
               table_name text PRIMARY KEY,
               game text NOT NULL,
               ended double precision NOT NULL,
               seats jsonb NOT NULL)""",
        "CREATE INDEX ON cabinet.rated USING gin (seats jsonb_path_ops)",
    ],
    # the save format of each table's log (``saves.format``): the tables there are were written
    # in format 2; a table made from now on, by a writer, is written in format 3 (an import,
    # in its file's)
    6: [
        "ALTER TABLE cabinet.tables ADD COLUMN format smallint NOT NULL DEFAULT 2 CHECK (format IN (2, 3))",
        "ALTER TABLE cabinet.tables ALTER COLUMN format SET DEFAULT 3",
    ],
}


def describe(url: str) -> str:
    """How sentences name the database at ``url``, without its password."""
    try:
        info = conninfo_to_dict(url)
    except Exception:  # noqa: BLE001 - a URL libpq cannot parse (or not even encode) is named generically
        return "the PostgreSQL database given"
    name = info.get("dbname") or info.get("user") or "postgres"
    host = info.get("host")
    return f"PostgreSQL database {name}" + (f" on {host}" if host else "")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0].rstrip(".") if text else type(exc).__name__


def _notice(message: dict[str, Any]) -> str:
    return json.dumps(message, separators=(",", ":"))


def _tell(conn: psycopg.Connection[Any], message: dict[str, Any]) -> None:
    """Every server listening on ``CHANNEL`` is told ``message`` (in a transaction: when it commits)."""
    conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, _notice(message)))


class Reconnecting(Exception):
    """A connection of the store's is being made again (the database went away): nothing
    goes through it meanwhile.  ``str(exc)`` ends a sentence."""


class Link:
    """One of a store's connections, made again when it is found lost.

    A statement that fails on a connection psycopg then finds broken (the database
    restarted, failed over, or ended the session) hands it to :meth:`failed`: a new
    connection is made in a thread of its own, after RECONNECT[0] seconds and then
    twice as long after each failure, up to RECONNECT[1].  Meanwhile :meth:`get`
    raises :class:`Reconnecting` at once, so that no caller (an event loop among
    them) waits on a database that is away.  ``prepare`` readies each new connection
    (``LISTEN``) before it is used, and ``mended`` is told of it once it is in place,
    under the store's lock.  ``probe``: the connection is looked at (``SELECT 1``)
    when another of the store's was made again, since what ended one (a restart)
    most likely ended it too; the listening one finds out by itself, at once."""

    def __init__(
        self,
        store: PostgresStore,
        purpose: str,
        prepare: Callable[[psycopg.Connection[Any]], None] | None = None,
        mended: Callable[[psycopg.Connection[Any]], None] | None = None,
        probe: bool = True,
    ) -> None:
        self.store = store
        #: what the connection is for, in the log's sentences ("", " for leases")
        self.purpose = purpose
        self.prepare = prepare
        self.mended = mended
        self.probe = probe
        self.conn: psycopg.Connection[Any] | None = None
        #: when it was found lost (``time.monotonic()``), while it is being made again
        self.lost_at: float | None = None
        #: set while the connection is there to use
        self.up = threading.Event()
        self.closed = False
        self._stop = threading.Event()  # ends the wait between two attempts

    def open(self) -> psycopg.Connection[Any]:
        """The connection made now (the first one).  Raises SaveError."""
        conn = self.store.connect()
        try:
            if self.prepare is not None:
                self.prepare(conn)
        except psycopg.Error as exc:
            conn.close()
            raise SaveError(f"Cannot use {self.store.where}: {_first_line(exc)}.") from None
        self.conn = conn
        self.up.set()
        return conn

    def get(self) -> psycopg.Connection[Any]:
        """The connection, made now if it was never made (raises SaveError then).
        Raises Reconnecting while it is being made again."""
        if self.closed:
            raise Reconnecting(f"the connection{self.purpose} is closed")
        if self.lost_at is not None:
            raise Reconnecting(f"the connection{self.purpose} was lost, and is being made again")
        conn = self.conn
        if conn is None:
            with self.store.lock:
                return self.conn if self.conn is not None else self.open()
        if conn.closed:  # found broken by a statement that was not ours to watch
            self.lost(conn, "the connection was closed")
            raise Reconnecting(f"the connection{self.purpose} was lost, and is being made again")
        return conn

    def failed(self, conn: psycopg.Connection[Any], exc: psycopg.Error) -> None:
        """``exc`` came of a statement on ``conn``: a connection it left broken is made again."""
        if conn.closed:
            self.lost(conn, _first_line(exc))

    def lost(self, conn: psycopg.Connection[Any], why: str) -> None:
        store = self.store
        with store.lock:
            if conn is not self.conn or self.lost_at is not None or self.closed:
                return  # an older connection, or one being made again already
            self.lost_at = time.monotonic()
            self.up.clear()
            first = store.outage is None
            if first:
                store.outage = self.lost_at
        if first:  # said once for the lot, and before it can be said to be back
            store.log(f"Lost the connection to {store.where}{self.purpose} ({why}); connecting again.")
        threading.Thread(target=self._mend, name="cabinet-reconnect", daemon=True).start()

    def check(self) -> None:
        """Whether the connection still answers (``SELECT 1``); one found lost is made again."""
        conn = self.conn
        if conn is None or self.lost_at is not None or self.closed:
            return
        with self.store.lock:  # never in the middle of another thread's transaction on it
            try:
                conn.execute("SELECT 1")
            except psycopg.Error as exc:
                self.failed(conn, exc)

    def _mend(self) -> None:
        """In a thread: connect again, waiting longer after each failure, until it works."""
        wait = RECONNECT[0]
        while not self._stop.wait(wait):
            try:
                conn = self.store.connect()
            except SaveError:
                wait = min(2 * wait, RECONNECT[1])
                continue
            try:
                if self.prepare is not None:
                    self.prepare(conn)
            except psycopg.Error:
                conn.close()
                wait = min(2 * wait, RECONNECT[1])
                continue
            with self.store.lock:
                if self.closed:
                    conn.close()
                    return
                old, self.conn = self.conn, conn
                self.lost_at = None
                if self.mended is not None:
                    self.mended(conn)
                self.up.set()
            if old is not None:
                old.close()
            self.store.link_mended(self)
            return

    def close(self) -> None:
        self.closed = True
        self._stop.set()
        self.up.set()  # nobody waits for it any more
        if self.conn is not None:
            self.conn.close()


class PostgresStore(LogStore):
    """The tables of a PostgreSQL database (``postgresql://...``), and what the servers
    sharing it tell one another, over the same connections.

    It is a :class:`LogStore`; it is also what ``net.cluster.Cluster`` asks of the
    servers of a database (``listen``, ``summaries``, ``publish``, ``notify``,
    ``records_after``, ``relay``, ``take_commands``, ``seat_here``, ``seated``,
    ``leases_alive``: a protocol, so that this module needs nothing of ``net``), and
    the keeper of names ``net.identity.StoredIdentities`` asks (``name_holder``,
    ``claim_name``).  Every method waits on the database: a server calls them from a
    thread (``net.offloop``), never from its event loop."""

    def __init__(self, url: str) -> None:
        """Connects and makes the schema if it is missing.  Raises :class:`SaveError`
        (the driver not installed, a database out of reach, a newer schema)."""
        if psycopg is None:
            raise SaveError(DRIVER_MISSING)
        self.url = url
        self.where = describe(url)
        self._key: bytes | None = None
        #: one transaction at a time on a connection: the writers of a server's tables may be in several threads
        self.lock = threading.RLock()
        self.log: Callable[[str], None] = lambda line: None
        #: since when one of the connections has been lost (``time.monotonic()``); None while all are well
        self.outage: float | None = None
        #: the store's own connection: lobby, listings, relayed commands, names, reads
        self.main = Link(self, "")
        #: the connection the leases are held on and the writers write through, made with the first
        self.leases = Link(self, " for leases", mended=self._leases_mended)
        #: the tables leased on it (an advisory lock is taken again by the session holding it)
        self.leased: set[int] = set()
        #: every connection of the store, the listening ones (``Listener``) among them
        self.links: list[Link] = [self.main, self.leases]
        self.main.open()
        try:
            self._make_schema()
        except psycopg.Error as exc:
            self.close()
            raise SaveError(f"Cannot use {self.where}: {_first_line(exc)}.") from None
        except SaveError:
            self.close()
            raise

    @property
    def conn(self) -> psycopg.Connection[Any]:
        """The store's own connection as it is now (it is made again when lost)."""
        assert self.main.conn is not None
        return self.main.conn

    def connect(self) -> psycopg.Connection[Any]:
        try:
            return psycopg.connect(self.url, autocommit=True, connect_timeout=10)
        except psycopg.Error as exc:
            raise SaveError(f"Cannot reach {self.where}: {_first_line(exc)}.") from None

    def _make_schema(self) -> None:
        conn = self.conn
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", (LOCK_SPACE, SCHEMA_LOCK))
            conn.execute("CREATE SCHEMA IF NOT EXISTS cabinet")
            conn.execute("CREATE TABLE IF NOT EXISTS cabinet.schema_version (version integer NOT NULL)")
            row = conn.execute("SELECT max(version) FROM cabinet.schema_version").fetchone()
            version = row[0] if row and row[0] is not None else 0
            if version > SCHEMA_VERSION:
                raise SaveError(
                    f"{self.where} was set up by a newer Cabinet (schema {version}; this one knows schema {SCHEMA_VERSION})."
                )
            for step in range(version + 1, SCHEMA_VERSION + 1):
                for statement in MIGRATIONS[step]:
                    conn.execute(statement)
                conn.execute("INSERT INTO cabinet.schema_version (version) VALUES (%s)", (step,))
            conn.execute(
                "INSERT INTO cabinet.settings (name, value) VALUES ('seal key', %s) ON CONFLICT (name) DO NOTHING",
                (secrets.token_bytes(32),),
            )

    def _leases_mended(self, conn: psycopg.Connection[Any]) -> None:
        self.leased = set()  # the leases went with the connection lost

    def close(self) -> None:
        for link in (getattr(self, "main", None), getattr(self, "leases", None)):
            if link is not None:
                link.close()

    # -- the database going away, and coming back ---------------------------------------------

    def log_to(self, log: Callable[[str], None]) -> None:
        self.log = log

    @property
    def reachable(self) -> bool:
        return self.outage is None

    def link_mended(self, link: Link) -> None:
        """``link`` was made again: the others are looked at (what ended it most likely ended
        them too, and they are best made again now, before the servers' next moves), and once
        all are there again, it is said."""
        for other in list(self.links):
            if other is not link and other.probe:
                other.check()
        with self.lock:
            if self.outage is None or any(other.lost_at is not None for other in self.links):
                return
            seconds, self.outage = time.monotonic() - self.outage, None
        self.log(f"Connected again to {self.where}, {seconds:.1f} s after losing it.")

    @contextmanager
    def _using(self, link: Link, fail: Callable[[str], Exception]) -> Iterator[psycopg.Connection[Any]]:
        """``link``'s connection for one step.  A failure of psycopg's, or the connection
        being made again, is raised as ``fail(why)``; a connection found lost is made again."""
        try:
            conn = link.get()
        except Reconnecting as exc:
            raise fail(str(exc)) from None
        try:
            yield conn
        except psycopg.Error as exc:
            link.failed(conn, exc)
            raise fail(_first_line(exc)) from None

    def _reading(self) -> Any:
        return self._using(self.main, lambda why: SaveError(f"Cannot read {self.where}: {why}."))

    def _writing(self, what: str) -> Any:
        """The store's connection for a step that writes: its failure, as the OSError a disk's
        failure is to a writer (``what`` cannot be done)."""
        return self._using(self.main, lambda why: OSError(errno.EIO, f"{what}: {why}"))

    # -- the interface ------------------------------------------------------------------------

    def _query(self, sql: str, params: tuple[Any, ...] = (), binary: bool = False) -> list[tuple[Any, ...]]:
        with self._reading() as conn, conn.cursor(binary=binary) as cur:
            return cur.execute(sql, params).fetchall()

    def name_holder(self, folded: str) -> tuple[str, str, int] | None:
        """(name as first claimed, key fingerprint, since) of the player holding the name
        ``folded`` (lower case), None if nobody does.  Raises SaveError."""
        rows = self._query("SELECT name, key, since FROM cabinet.players WHERE name_folded = %s", (folded,))
        if not rows:
            return None
        name, key, since = rows[0]
        return name, key, since

    def claim_name(self, name: str, key: str, since: int) -> tuple[str, str, int]:
        """Claim ``name`` for ``key`` unless somebody holds it already; who holds it then.
        Two servers claiming one name at once: the database gives it to one.  Raises SaveError."""
        with self._using(self.main, lambda why: SaveError(f"Cannot write to {self.where}: {why}.")) as conn:
            conn.execute(
                "INSERT INTO cabinet.players (name_folded, name, key, since) VALUES (%s, %s, %s, %s) "
                "ON CONFLICT (name_folded) DO NOTHING",
                (name.lower(), name, key, since),
            )
        held = self.name_holder(name.lower())
        if held is None:
            raise SaveError(f"{self.where} lost the name {name} just claimed.")
        return held

    def _table_names(self, condition: str = "", params: tuple[Any, ...] = ()) -> list[str]:
        """The names of the tables that have a log (and meet ``condition``), oldest first."""
        rows = self._query(
            "SELECT name FROM cabinet.tables t WHERE EXISTS (SELECT 1 FROM cabinet.events e WHERE e.table_id = t.id) "
            + condition
            + " ORDER BY created, id",
            params,
        )
        return [name for (name,) in rows]

    def tables(self) -> list[str]:
        return self._table_names()

    def unheld(self) -> list[str]:
        # a lease is an advisory lock (LOCK_SPACE, table id): pg_locks shows it as classid, objid, objsubid 2
        return self._table_names(
            "AND NOT EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted "
            "AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()) "
            "AND l.classid = %s::oid AND l.objid = t.id::oid AND l.objsubid = 2)",
            (LOCK_SPACE,),
        )

    def lobby(self) -> list[tuple[str, bytes]]:
        rows = self._query("SELECT name, lobby FROM cabinet.tables WHERE lobby IS NOT NULL ORDER BY created, id")
        return [(name, bytes(record)) for name, record in rows]

    def keep_lobby(self, table: str, record: bytes) -> None:
        with self.lock, self._writing(f"the lobby of table {table} cannot be written") as conn, conn.transaction():
            _keep_lobby(conn, table, record)

    def forget_lobby(self, table: str) -> None:
        with self.lock, self._writing(f"the lobby of table {table} cannot be written") as conn, conn.transaction():
            _keep_lobby(conn, table, None)

    def update_lobby(self, table: str, change: Callable[[bytes | None], bytes | None]) -> bytes | None:
        # the row locked until the transaction ends: another server changing it waits, then sees this change
        with self.lock, self._writing(f"the lobby of table {table} cannot be written") as conn, conn.transaction():
            row = conn.execute("SELECT lobby FROM cabinet.tables WHERE name = %s FOR UPDATE", (table,)).fetchone()
            new = change(bytes(row[0]) if row is not None and row[0] is not None else None)
            _keep_lobby(conn, table, new)
        return new

    # -- every server lists and serves every table --------------------------------------------

    def summaries(self) -> dict[str, bytes]:
        """The listing each table's server last published, by table (tables with a lobby record only)."""
        rows = self._query("SELECT name, summary FROM cabinet.tables WHERE lobby IS NOT NULL AND summary IS NOT NULL")
        return {name: bytes(summary) for name, summary in rows}

    def publish(self, summaries: dict[str, bytes]) -> None:
        """The listings of the tables this server serves, for the others' lobbies; they are told."""
        if not summaries:
            return
        with self.lock, self._writing("the lobby cannot be written") as conn, conn.transaction():
            for table, summary in summaries.items():
                conn.execute("UPDATE cabinet.tables SET summary = %s WHERE name = %s", (summary, table))
            _tell(conn, {"t": "lobby", "table": None})

    def notify(self, message: dict[str, Any]) -> None:
        """Tell every server listening (``Listener``) ``message``.  Raises OSError."""
        with self.lock, self._writing("the other servers cannot be told") as conn:
            _tell(conn, message)

    def records_after(self, table: str, seq: int) -> list[tuple[int, bytes, bytes]]:
        """The sequence number, kind and body of the table's records after ``seq``, in order.  Raises SaveError."""
        rows = self._query(
            "SELECT e.seq, convert_to(e.kind, 'UTF8'), e.body FROM cabinet.events e JOIN cabinet.tables t ON t.id = e.table_id "
            "WHERE t.name = %s AND e.seq > %s ORDER BY e.seq",
            (table, seq),
            binary=True,
        )
        return [(seq, bytes(kind), bytes(body)) for seq, kind, body in rows]

    def relay(self, table: str, seat: int, kind: str, body: bytes, hall: int) -> int:
        """A command (or take-back) of ``seat``, connected to the server ``hall``, for the
        server that holds ``table``, which is told; its number (the answer names it).  Raises OSError."""
        with self.lock, self._writing("the command cannot be passed on") as conn, conn.transaction():
            row = conn.execute(
                "INSERT INTO cabinet.commands (table_name, seat, kind, body, hall) VALUES (%s, %s, %s, %s, %s) RETURNING id",
                (table, seat, kind, body, hall),
            ).fetchone()
            _tell(conn, {"t": "command", "table": table})
        assert row is not None
        return int(row[0])

    def take_commands(self, table: str) -> list[tuple[int, int, str, bytes, int]]:
        """The commands relayed for ``table`` (number, seat, kind, body, hall), in the order
        they came, taken out of the database.  Raises OSError."""
        with self.lock, self._writing("the commands cannot be read") as conn:
            rows = conn.execute(
                "DELETE FROM cabinet.commands WHERE table_name = %s RETURNING id, seat, kind, body, hall", (table,)
            ).fetchall()
        return sorted((int(i), int(seat), str(kind), bytes(body), int(hall)) for i, seat, kind, body, hall in rows)

    def seat_here(self, table: str, seat: int, hall: int, here: bool) -> None:
        """``seat``'s player is connected to the server ``hall`` (``here``), or no more; every
        server is told.  Raises OSError."""
        with self.lock, self._writing("the seat's presence cannot be written") as conn, conn.transaction():
            if here:
                conn.execute(
                    "INSERT INTO cabinet.seated (table_name, seat, hall) VALUES (%s, %s, %s) ON CONFLICT DO NOTHING",
                    (table, seat, hall),
                )
            else:
                conn.execute(
                    "DELETE FROM cabinet.seated WHERE table_name = %s AND seat = %s AND hall = %s", (table, seat, hall)
                )
            _tell(conn, {"t": "seated", "table": table})

    def seated(self, table: str, besides: int) -> set[int]:
        """The seats of ``table`` whose players are connected to a server other than
        ``besides`` that is still there (its listening connection alive).  Raises SaveError."""
        rows = self._query(
            "SELECT DISTINCT seat FROM cabinet.seated WHERE table_name = %s AND hall <> %s "
            "AND hall IN (SELECT pid FROM pg_stat_activity)",
            (table, besides),
        )
        return {int(seat) for (seat,) in rows}

    def leases_alive(self) -> bool:
        """Whether the connection the leases are held on still answers (a lost one has
        lost them all, and is made again).  True when there is none yet."""
        if self.leases.conn is None:
            return True
        self.leases.check()
        return self.leases.lost_at is None and not self.leases.closed

    def listen(self, deliver: Callable[[dict[str, Any]], None]) -> Listener:
        """A connection listening for the other servers' news, passing each to ``deliver``
        (in a thread of its own).  Raises SaveError."""
        return Listener(self, deliver)

    def source(self, table: str) -> Source:
        return InStore(self, table)

    def table_id(self, table: str) -> int | None:
        rows = self._query("SELECT id FROM cabinet.tables WHERE name = %s", (table,))
        return rows[0][0] if rows else None

    def read(self, table: str) -> bytes:
        # one statement, so that the rows are one snapshot of the log; the kind as bytes, as a frame holds it
        rows = self._query(
            "SELECT t.format, e.seq, convert_to(e.kind, 'UTF8'), e.crc, e.link, e.seal, e.body FROM cabinet.tables t "
            "LEFT JOIN cabinet.events e ON e.table_id = t.id WHERE t.name = %s ORDER BY e.seq",
            (table,),
            binary=True,
        )
        if not rows:
            raise SaveError(f"There is no table {table} in {self.where}.")
        if rows[0][1] is None:
            raise SaveError(f"table {table} is empty, not a Cabinet save.")
        return join_records([row[1:] for row in rows], rows[0][0])

    def key(self) -> bytes | None:
        if self._key is None:
            rows = self._query("SELECT value FROM cabinet.settings WHERE name = 'seal key'")
            self._key = bytes(rows[0][0]) if rows else None
        return self._key

    def hold(self, table: str) -> Log:
        return TableLease(self, table)

    def put(self, table: str, data: bytes) -> None:
        version = format_of(data)
        records = split_records(data, version=version)
        with (
            self._using(
                self.main, lambda why: SaveError(f"Cannot write table {table} to {self.where}: {why}.")
            ) as conn,
            conn.transaction(),
        ):
            row = conn.execute(
                "INSERT INTO cabinet.tables (name, format) VALUES (%s, %s) ON CONFLICT (name) DO NOTHING RETURNING id",
                (table, version),
            ).fetchone()
            if row is None:
                raise SaveError(f"There is a table {table} in {self.where} already.")
            _insert(conn, row[0], records, copy=True)


def _keep_lobby(conn: psycopg.Connection[Any], table: str, record: bytes | None) -> None:
    """In a transaction: the table's lobby record written (None: forgotten), and every server told."""
    if record is None:
        conn.execute("UPDATE cabinet.tables SET lobby = NULL, summary = NULL WHERE name = %s", (table,))
        conn.execute(
            "DELETE FROM cabinet.tables t WHERE name = %s "
            "AND NOT EXISTS (SELECT 1 FROM cabinet.events e WHERE e.table_id = t.id)",
            (table,),
        )
    else:
        conn.execute(
            "INSERT INTO cabinet.tables (name, lobby) VALUES (%s, %s) ON CONFLICT (name) DO UPDATE SET lobby = EXCLUDED.lobby",
            (table, record),
        )
    _tell(conn, {"t": "lobby", "table": table})


def _insert(
    conn: psycopg.Connection[Any],
    table_id: int,
    records: list[StoredRecord],
    copy: bool = False,
    told: str | None = None,
) -> None:
    """The records' rows; ``copy`` for many (an import, a rewrite), else one statement (a move),
    which also tells the listening servers ``told`` if given."""
    rows = [(table_id, r.seq, r.kind.decode(), r.crc, r.link, r.seal, r.body) for r in records]
    if copy:
        with (
            conn.cursor() as cur,
            cur.copy("COPY cabinet.events (table_id, seq, kind, crc, link, seal, body) FROM STDIN") as out,
        ):
            for row in rows:
                out.write_row(row)
        return
    values = ", ".join(["(%s, %s, %s, %s, %s, %s, %s)"] * len(rows))
    insert = f"INSERT INTO cabinet.events (table_id, seq, kind, crc, link, seal, body) VALUES {values}"
    params: list[Any] = [value for row in rows for value in row]
    if told is not None:
        # a data-modifying WITH runs to its end whatever the query reads of it
        insert = f"WITH written AS ({insert}) SELECT pg_notify(%s, %s)"
        params += [CHANNEL, told]
    conn.execute(insert, params)


class TableLease(Log):
    """A table of a PostgreSQL store, held by its one writer.

    The lease is a session-level advisory lock on the table, held on the store's
    connection for leases (one a process, however many tables it holds: a
    database's connections are few) as long as that connection lives: a process
    that dies, however it dies, loses its connections and so its leases, and
    another process may take its tables over from their logs.  The writers'
    records go through that same connection, so a writer whose lease was lost
    can write nothing more: the store makes a new connection for leases (a
    database restarted), never this writer's again."""

    def __init__(self, store: PostgresStore, table: str) -> None:
        """Raises :class:`SaveLocked` when another writer holds the table, and
        :class:`SaveError` when the database is out of reach."""
        self.store = store
        self.table = table
        self.name = f"table {table}"
        self.path = None
        self.broken = False
        self.conn: psycopg.Connection[Any] | None = None
        with store._using(
            store.leases, lambda why: SaveError(f"Cannot take {self.name} in {store.where}: {why}.")
        ) as conn:
            self._take(conn)
        self.conn = conn

    def _take(self, conn: psycopg.Connection[Any]) -> None:
        """The lease of the table on ``conn``; raises SaveLocked, or psycopg's errors."""
        store, table = self.store, self.table
        with store.lock, conn.transaction():
            conn.execute("INSERT INTO cabinet.tables (name) VALUES (%s) ON CONFLICT (name) DO NOTHING", (table,))
            row = conn.execute("SELECT id, format FROM cabinet.tables WHERE name = %s", (table,)).fetchone()
            assert row is not None
            self.id: int = row[0]
            self.version = row[1]  # the format the table's log is written in
            # an advisory lock is taken again by the session that holds it: a second
            # writer in this process is refused here, as one in another is by the lock
            locked = False
            if self.id not in store.leased:
                row = conn.execute("SELECT pg_try_advisory_lock(%s, %s)", (LOCK_SPACE, self.id)).fetchone()
                locked = bool(row and row[0])  # a SELECT of a function: always one row
            if not locked:
                found = conn.execute("SELECT holder FROM cabinet.writers WHERE table_id = %s", (self.id,)).fetchone()
                holder = found[0] if found and isinstance(found[0], dict) else {}
                raise SaveLocked(_holder_sentence(holder, self.name), holder)
            store.leased.add(self.id)
            conn.execute(
                "INSERT INTO cabinet.writers (table_id, holder) VALUES (%s, %s) "
                "ON CONFLICT (table_id) DO UPDATE SET holder = EXCLUDED.holder",
                (self.id, json.dumps(_whoami())),
            )

    def key(self) -> bytes | None:
        return self.store.key()

    @contextmanager
    def _writing(self, what: str) -> Iterator[psycopg.Connection[Any]]:
        """The lease's connection for one step; psycopg's failure as an OSError (``what``
        cannot be done), a connection found lost made again for the next writers."""
        conn = self._conn()
        try:
            yield conn
        except psycopg.Error as exc:
            self.store.leases.failed(conn, exc)
            raise OSError(errno.EIO, f"{what}: {_first_line(exc)}") from None

    def replace(self, data: bytes) -> None:
        records = split_records(data, version=self.version)
        with self.store.lock, self._writing(f"{self.name} cannot be written") as conn, conn.transaction():
            conn.execute("DELETE FROM cabinet.events WHERE table_id = %s", (self.id,))
            _insert(conn, self.id, records, copy=True)
            _tell(conn, {"t": "rewrite", "table": self.table})
        self.broken = False

    def append(self, data: bytes, durable: bool) -> None:
        records = split_records(data, whole=False)
        # the servers following the table are told in the same statement, when it commits
        told = _notice({"t": "log", "table": self.table, "seq": records[-1].seq}) if records else None
        with self.store.lock, self._writing(f"{self.name} cannot be written") as conn:
            if durable:
                _insert(conn, self.id, records, told=told)  # one statement, its own transaction: one round trip
                return
            # committed without waiting for the disk (headless games), this transaction only:
            # the connection is every table's
            with conn.transaction():
                conn.execute("SET LOCAL synchronous_commit = off")
                _insert(conn, self.id, records, told=told)

    def resume_at(self, end: int) -> bool:
        with self._writing(f"{self.name} cannot be read") as conn:
            row = conn.execute(
                "SELECT count(*), coalesce(sum(length(body)), 0) FROM cabinet.events WHERE table_id = %s", (self.id,)
            ).fetchone()
        assert row is not None
        count, bodies = row
        size = LOG_PREAMBLE + count * RECORD_FRAME + bodies if count else 0
        if size > end:
            raise SaveError(f"{self.name} has changed since it was read (another writer wrote to it): open it again.")
        return size == end

    def _conn(self) -> psycopg.Connection[Any]:
        if self.conn is None or self.conn.closed:
            # the lease went with the connection: writing now could follow another writer's moves
            raise OSError(errno.EIO, f"the connection to {self.store.where} was lost, and with it the lease")
        return self.conn

    @property
    def ready(self) -> bool:
        return not self.broken and self.conn is not None and not self.conn.closed

    @property
    def lost(self) -> bool:
        return self.conn is None or self.conn.closed

    def drop(self) -> None:
        self.broken = True

    def release(self) -> None:
        conn, self.conn = self.conn, None
        if conn is None:
            return
        if conn.closed:
            return  # the lease went with the connection (the store's new one holds none of this writer's)
        self.store.leased.discard(self.id)
        try:
            with self.store.lock, conn.transaction():
                conn.execute("DELETE FROM cabinet.writers WHERE table_id = %s", (self.id,))
                # a table whose first write failed is not left behind empty (unless a lobby lists it)
                conn.execute(
                    "DELETE FROM cabinet.tables t WHERE id = %s AND lobby IS NULL "
                    "AND NOT EXISTS (SELECT 1 FROM cabinet.events e WHERE e.table_id = t.id)",
                    (self.id,),
                )
            conn.execute("SELECT pg_advisory_unlock(%s, %s)", (LOCK_SPACE, self.id))
        except psycopg.Error as exc:
            self.store.leases.failed(conn, exc)  # the connection broke: the lease went with it


def _listen(conn: psycopg.Connection[Any]) -> None:
    """A new listening connection: it listens, and the rows of servers gone are cleared (a pid
    is used again in time, by this connection perhaps).  Raises psycopg's errors."""
    conn.execute(f"LISTEN {CHANNEL}")
    conn.execute(
        "DELETE FROM cabinet.seated WHERE hall = pg_backend_pid() OR hall NOT IN (SELECT pid FROM pg_stat_activity)"
    )


class Listener:
    """A connection of its own listening on ``CHANNEL``, in a thread: each notice, a
    map, is passed to ``deliver`` (from that thread).  Its backend's pid names this
    server to the others (``hall`` in ``cabinet.seated`` and ``cabinet.commands``): a
    server whose listening connection ends, however its process died, is seen gone.
    Lost, the connection is made again (a :class:`Link` of the store's: a new pid), and
    ``{"t": "listening"}`` is delivered: what was missed meanwhile is to be read again."""

    def __init__(self, store: PostgresStore, deliver: Callable[[dict[str, Any]], None]) -> None:
        """Raises SaveError."""
        self.store = store
        self.deliver = deliver
        self.stopping = threading.Event()  # set by close(), from another thread
        # it finds its connection lost by itself, at once: nobody else need look at it
        self.link = Link(store, " for news", prepare=_listen, mended=self._listening, probe=False)
        self.pid: int = self.link.open().info.backend_pid
        store.links.append(self.link)
        self.thread = threading.Thread(target=self._run, name="cabinet-listener", daemon=True)
        self.thread.start()

    def _listening(self, conn: psycopg.Connection[Any]) -> None:
        self.pid = conn.info.backend_pid
        self.deliver({"t": "listening"})

    def _run(self) -> None:
        while not self.stopping.is_set():
            try:
                conn = self.link.get()
            except Reconnecting:
                self.link.up.wait(0.5)
                continue
            try:
                for notice in conn.notifies(timeout=0.5):
                    try:
                        message = json.loads(notice.payload)
                    except ValueError:
                        continue
                    if isinstance(message, dict):
                        self.deliver(message)
            except psycopg.Error as exc:
                if self.stopping.is_set():
                    return
                self.link.failed(conn, exc)

    def close(self) -> None:
        self.stopping.set()
        self.thread.join(timeout=5)
        self.link.close()
        if self.link in self.store.links:
            self.store.links.remove(self.link)
