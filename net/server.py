"""``cabinet host``: one game, its save, its bots, and the players who join it.

The server is the only authority.  It holds the match and appends every move to
its save; it checks every command with the game's ``decide``; it runs the bots.
Each connection is bound to one seat by that seat's join code (or watches, as
the public), and is sent only that seat's ``view``, its ``legal`` commands, and
the events ``redact``-ed for it: a client never receives what its seat may not
know.  A seat whose player is not connected is *away*; the game simply waits
for it, and the player comes back with the same code.

A crowd cannot crowd the players out.  Connections that have not said hello
yet, those being closed and the spectators share a budget of file descriptors
below the process's limit (``Limits``); a seat's connection is never counted,
and room is kept for every seat.  When the budget is spent, the connection
waiting longest for its hello is dropped to make room for a new one (which may
be a player's); a spectator over a limit is told so in one sentence.  The
server owns its accept loop: when the system has no descriptor left it waits,
says so in one line, and tries again.  Seats' comings and goings are told to
everyone at most every ``PRESENCE_DELAY`` seconds, in one update; a spectator's
arrival is told to nobody but itself; and one update is built and packed once
for all the connections of a seat (the spectators' is one), so a join costs the
same whatever the crowd.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import hmac
import ipaddress
import os
import resource
import secrets
import shutil
import socket
import struct
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgpack

from core.engine import PUBLIC, Command, Match, Viewer, outcome_text
from net.protocol import CLIENT_MAX, VERSION, Address, ProtocolError, pack, read_frame
from saves import SaveWriter
from table import BotRunner, Table
from table.bots import Thinker, think_in_thread

HELLO_TIMEOUT = 10.0  # seconds to say hello before the server hangs up
RATE = 40.0  # messages a second a client is answered, on average...
BURST = 200.0  # ...and at once; past that its messages wait, unread, in the socket
SEND_BUFFER = 32 * 1024 * 1024  # bytes waiting for a client that does not read: then it is dropped
LINGER = 2.0  # seconds a client told bye has to read it and close, before the server closes
PRESENCE_DELAY = 0.1  # seconds: seats' comings and goings are told at most this often
FAN_OUT = 100  # spectators sent an update in one turn of the event loop
HELLO_GRACE = 1.0  # seconds a new connection has to say hello before its address's limit may drop it
LOG_INTERVAL = 10.0  # seconds: lines that may come in crowds are logged, then counted, one summary per interval
QUIET = 10.0  # seconds without an accept failure that end an episode of them
ACCEPT_BACKOFF = (0.05, 1.0)  # seconds: first and longest wait before accepting again after a failure
BACKLOG = 1024  # connections the system queues while the server is busy (or out of descriptors)
RESERVED_FILES = 32  # descriptors kept for the process itself: stdio, the save, its lock, the listeners...
FILES_PER_SEAT = 2  # a seat's connection, and the one that replaces it when its player joins again
NO_LIMIT_FILES = 65536  # descriptors assumed when the process has no limit
#: accept() failures that say the process or the system is out of something: wait, then try again
OUT_OF_RESOURCES = {errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM}
#: the letters of join codes and table ids: no 0/o, 1/l/i to misread
CODE_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
_WATCH = "watch"  # the key of the watch code in a save's .codes file


def new_code() -> str:
    """A join code: twelve random letters and digits in groups of four."""
    raw = "".join(secrets.choice(CODE_ALPHABET) for _ in range(12))
    return "-".join(raw[i : i + 4] for i in range(0, 12, 4))


def codes_path(save: Path) -> Path:
    """Where a hosted save keeps its join codes, so that ``--resume`` keeps them too."""
    return save.with_name(save.name + ".codes")


def _read_codes(path: Path) -> dict[Any, Any]:
    with contextlib.suppress(OSError, ValueError, TypeError, msgpack.UnpackException):
        kept = msgpack.unpackb(path.read_bytes(), raw=False, strict_map_key=False)
        if isinstance(kept, dict):
            return kept
    return {}


def _write_codes(path: Path, kept: dict[Any, Any]) -> None:
    """Write the codes readable by the host's user only, replacing the file at once."""
    fd, name = tempfile.mkstemp(dir=path.parent, prefix="." + path.name + ".")  # mode 0600
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(msgpack.packb(kept, use_bin_type=True))
        os.replace(name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(name)
        raise


def load_or_make_codes(save: Path, match: Match) -> dict[int, str]:
    """The join code of every human seat: those kept beside the save, or new ones (then kept)."""
    path = codes_path(save)
    kept = _read_codes(path)
    codes = {k: v for k, v in kept.items() if isinstance(k, int) and not isinstance(k, bool) and isinstance(v, str)}
    wanted = match.humans()
    if sorted(codes) != wanted:
        codes = {seat: codes.get(seat) or new_code() for seat in wanted}
        watch = kept.get(_WATCH)
        _write_codes(path, {**codes, **({_WATCH: watch} if isinstance(watch, str) else {})})
    return codes


def load_or_make_watch_code(save: Path, wanted: bool) -> str | None:
    """The code spectators must give: the one kept beside the save, else a new one if ``wanted``
    (then kept, so that ``--resume`` keeps it), else None: spectators need no code.

    A game once hosted with a watch code keeps it: resuming it does not open it to anybody.
    """
    path = codes_path(save)
    kept = _read_codes(path)
    code = kept.get(_WATCH)
    if isinstance(code, str) and code:
        return code
    if not wanted:
        return None
    code = new_code()
    _write_codes(path, {**kept, _WATCH: code})
    return code


# -- limits ---------------------------------------------------------------------------------


def open_files_limit() -> int:
    """The process's soft limit on open files (``ulimit -n``)."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return NO_LIMIT_FILES if soft == resource.RLIM_INFINITY else soft


@dataclass(frozen=True)
class Limits:
    """How many connections the server holds that are not a seat's.

    ``connections``: those that have not said hello yet, those being closed and the
    spectators, together; ``spectators``: of them, spectators; ``per_address``: of
    them, from one remote address (for a Unix socket: one local user).  A seat's
    connection is never counted: its player, with a valid code, always gets in.
    """

    connections: int
    spectators: int
    per_address: int

    @classmethod
    def derive(cls, seats: int, files: int | None = None, spectators: int | None = None) -> Limits:
        """From the open-files limit (the process's own, by default): room is kept for the
        process itself and for every seat; three quarters of the rest for spectators; a
        quarter of it from any one address."""
        files = open_files_limit() if files is None else files
        shared = max(2, files - RESERVED_FILES - FILES_PER_SEAT * seats)
        most = shared * 3 // 4
        return cls(
            connections=shared,
            spectators=most if spectators is None else max(0, min(spectators, most)),
            per_address=max(2, shared // 4),
        )


class Tally:
    """Lines that could come by the thousand: the first ``burst`` of an interval are
    logged, the next are counted, and one line per ``LOG_INTERVAL`` says how many came."""

    def __init__(self, log: Callable[[str], None], burst: int = 1) -> None:
        self.log = log
        self.burst = burst
        self.logged = 0  # lines logged in this interval
        self.counts: Counter[tuple[str, str]] = Counter()
        self.handle: asyncio.TimerHandle | None = None

    def note(self, line: str, kind: tuple[str, str]) -> None:
        """``line`` if fewer than ``burst`` were logged in this interval; else one more
        ``kind`` (its words for one, and for more)."""
        if self.handle is None:
            self.handle = asyncio.get_running_loop().call_later(LOG_INTERVAL, self.flush)
        if self.logged < self.burst:
            self.logged += 1
            self.log(line)
        else:
            self.counts[kind] += 1

    def summary(self) -> str:
        return "; ".join(f"{n} {one if n == 1 else many}" for (one, many), n in self.counts.items())

    def flush(self) -> None:
        self.handle = None
        busy = bool(self.counts)
        self.logged = self.burst if busy else 0  # a crowd still coming is counted, not logged
        if busy:
            self.log(f"In the last {LOG_INTERVAL:g} s: {self.summary()}.")
            self.counts.clear()
            self.handle = asyncio.get_running_loop().call_later(LOG_INTERVAL, self.flush)

    def close(self) -> None:
        if self.handle is not None:
            self.handle.cancel()
            self.handle = None
        if self.counts:
            self.log(f"Lately: {self.summary()}.")
            self.counts.clear()


def peer_key(sock: socket.socket, peer: Any) -> str:
    """Who is at the other end, for the per-address limit: an IP address, or a local user."""
    if sock.family == socket.AF_UNIX:
        if hasattr(socket, "SO_PEERCRED"):
            with contextlib.suppress(OSError, struct.error):
                _, uid, _ = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
                return f"uid {uid}"
        return "local"
    host = peer[0] if isinstance(peer, tuple) and peer else str(peer)
    with contextlib.suppress(ValueError):
        ip = ipaddress.ip_address(host)
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ip)
    return host


# -- listening --------------------------------------------------------------------------------


async def bind_tcp(host: str, port: int) -> list[socket.socket]:
    """Listening sockets on every address ``host`` names (all on one port, if ``port`` is 0)."""
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(
        host, port, family=socket.AF_UNSPEC, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )
    seen: set[tuple[int, Any]] = set()
    bound: list[socket.socket] = []
    first: OSError | None = None
    for family, kind, proto, _, address in infos:
        if (family, address) in seen:
            continue
        seen.add((family, address))
        if bound and port == 0:  # the other addresses on the port the first one was given
            address = (address[0], bound[0].getsockname()[1], *address[2:])
        sock = socket.socket(family, kind, proto)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6 and hasattr(socket, "IPPROTO_IPV6"):
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(address)
            sock.listen(BACKLOG)
            sock.setblocking(False)
        except OSError as exc:
            sock.close()
            if exc.errno in (errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT):  # an address family this machine lacks
                first = first or exc
                continue
            for other in bound:
                other.close()
            raise
        bound.append(sock)
    if not bound:
        raise first or OSError(errno.EADDRNOTAVAIL, f"{host} names no address to listen on")
    return bound


async def answers(path: Path, timeout: float = 2.0) -> bool:
    """Does a server accept connections on the Unix socket ``path``?"""
    try:
        _, writer = await asyncio.wait_for(asyncio.open_unix_connection(str(path)), timeout)
    except (TimeoutError, OSError):
        return False
    writer.close()
    with contextlib.suppress(Exception):
        await writer.wait_closed()
    return True


def file_id(path: Path) -> tuple[int, int] | None:
    """Which file is at ``path`` now (device and inode), None if none."""
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def unlink_if_same(path: Path, ident: tuple[int, int] | None) -> None:
    """Remove the socket at ``path`` if it is still the one bound there (``ident``): a
    server that stops late never removes the socket of another that started since."""
    if ident is not None and file_id(path) == ident:
        with contextlib.suppress(OSError):
            path.unlink()


async def bind_unix(path: Path) -> socket.socket:
    """A listening Unix socket at ``path`` that only the host's user can ever reach.

    The socket is bound inside a new directory beside ``path`` that only the user may
    enter (mode 0700), made 0600 there, and only then renamed to ``path``: it is never
    at ``path`` with a wider mode, whatever the umask.  A socket left at ``path`` by a
    host that was killed is replaced; one a server answers on is not (OSError).
    """
    path = Path(path)
    with contextlib.suppress(FileNotFoundError):
        mode = path.lstat().st_mode
        if not (mode & 0o170000 == 0o140000):  # not a socket: a file of somebody's
            raise OSError(errno.EEXIST, "it exists and is not a socket")
        if await answers(path):
            raise OSError(errno.EADDRINUSE, "it is in use by another Cabinet host")
    private = Path(tempfile.mkdtemp(prefix=".cabinet-", dir=path.parent))  # mode 0700
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        inside = private / "s"
        sock.bind(str(inside))
        os.chmod(inside, 0o600)
        sock.listen(BACKLOG)
        sock.setblocking(False)
        os.replace(inside, path)
    except BaseException:
        sock.close()
        raise
    finally:
        shutil.rmtree(private, ignore_errors=True)
    return sock


def is_loopback(host: str) -> bool:
    with contextlib.suppress(ValueError):
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    return host == "localhost"


def outbound_address(family: int) -> str | None:
    """The address this machine would send from, towards the rest of the network: a UDP
    socket connected to a documentation address (nothing is sent) tells it."""
    target = ("192.0.2.1", 9) if family == socket.AF_INET else ("2001:db8::1", 9)
    with contextlib.suppress(OSError), socket.socket(family, socket.SOCK_DGRAM) as probe:
        probe.connect(target)
        host = probe.getsockname()[0]
        ip = ipaddress.ip_address(host)
        if not (ip.is_unspecified or ip.is_loopback or ip.is_link_local):
            return host
    return None


async def machine_addresses(family: int) -> list[str]:
    """This machine's addresses of ``family`` others may reach it by, the likeliest first, the
    loopback one last (for players on this machine)."""
    found: list[str] = []
    outbound = outbound_address(family)
    if outbound:
        found.append(outbound)
    loop = asyncio.get_running_loop()
    with contextlib.suppress(OSError, asyncio.TimeoutError, UnicodeError):
        infos = await asyncio.wait_for(
            loop.getaddrinfo(socket.gethostname(), None, family=family, type=socket.SOCK_STREAM), 2.0
        )
        for *_, address in infos:
            ip = ipaddress.ip_address(address[0].split("%")[0])
            if not (ip.is_unspecified or ip.is_loopback or ip.is_link_local) and str(ip) not in found:
                found.append(str(ip))
    found.append("127.0.0.1" if family == socket.AF_INET else "::1")
    return found


async def join_hosts(bound: Address, sockets: list[tuple[int, str]]) -> tuple[list[str], bool]:
    """What to tell players to join with, and whether the server can be reached from other
    machines.  ``sockets``: the family and address of each listening socket.  A server on
    every address (0.0.0.0, ::) is joined by this machine's own addresses, loopback last."""
    beyond = any(not is_loopback(host) for _, host in sockets)
    hosts: list[str] = []
    for family, host in sockets:
        if ipaddress.ip_address(host.split("%")[0]).is_unspecified:
            for found in await machine_addresses(family):
                if found not in hosts:
                    hosts.append(found)
    if not hosts:
        hosts = [bound.host]
    else:
        hosts.sort(key=is_loopback)  # stable: the likeliest first, loopback last
    return hosts, beyond


class Budget:
    """A token bucket: ``rate`` a second on average, ``burst`` at once (a client's
    messages here; in ``net.ssh``, a session's bytes and CPU seconds)."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = rate, burst
        self.tokens = burst
        self.stamp = time.monotonic()

    def spend(self, n: float) -> float:
        """``n`` go; the seconds to wait before the next may (0: none)."""
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate) - n
        self.stamp = now
        return 0.0 if self.tokens >= 0 else -self.tokens / self.rate


# -- one client -------------------------------------------------------------------------------


class Connection:
    """One client: its seat (``PUBLIC`` for a spectator) and how far it has been told."""

    def __init__(
        self, server: GameServer, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, key: str = ""
    ) -> None:
        self.server = server
        self.reader = reader
        self.writer = writer
        self.key = key  # who is at the other end (peer_key)
        self.seat: Viewer | None = None  # None until the handshake
        self.told = 0  # events already sent
        self.version = -1  # the server's version last told
        self.messages = Budget(RATE, BURST)
        self.opened = time.monotonic()
        self.closed = False

    def send(self, message: dict[str, Any], frame: bytes | None = None) -> None:
        """Send ``message`` (``frame``: it packed already, as for many connections at once)."""
        if self.closed:
            return
        if frame is None:
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
        self.server.closing(self)
        with contextlib.suppress(Exception):
            if farewell and linger and self.writer.can_write_eof():
                self.writer.write_eof()
            else:
                self.writer.close()

    def abort(self) -> None:
        """Drop the connection at once, without a word (it has not said hello)."""
        self.closed = True
        with contextlib.suppress(Exception):
            self.writer.transport.abort()

    async def hang_up(self) -> None:
        """Discard what the client still sends until it closes, LINGER seconds at most; close."""
        try:
            if not self.writer.is_closing():
                loop = asyncio.get_running_loop()
                deadline = loop.time() + LINGER
                while deadline > loop.time():
                    if not await asyncio.wait_for(self.reader.read(CLIENT_MAX), deadline - loop.time()):
                        break
        except OSError:  # a reset, the time is up (a TimeoutError is one): close all the same
            pass
        finally:
            with contextlib.suppress(Exception):
                self.writer.close()

    def pace(self) -> float:
        """The seconds this client's next message waits before it is answered (0: at once).
        Its token is taken now; a message over the rate takes one the bucket has yet to
        earn, and waits until it has."""
        return self.messages.spend(1)


class GameServer:
    def __init__(
        self,
        writer: SaveWriter | None,
        codes: dict[int, str],
        bot_delay: float = 0.6,
        log: Callable[[str], None] | None = None,
        on_send: Callable[[Viewer, dict[str, Any]], None] | None = None,
        watch_code: str | None = None,
        limits: Limits | None = None,
        presence_delay: float = PRESENCE_DELAY,
        think: Thinker | None = None,
        on_change: Callable[[], None] | None = None,
        match: Match | None = None,
        on_presence: Callable[[int, bool], None] | None = None,
    ) -> None:
        #: the save the moves are appended to; None for a table served from another
        #: server's log (``net.relay.Follower``: ``match`` is given)
        self.save = writer
        if writer is not None:
            match = writer.match
        assert match is not None, "a table's save, or the match another server's log holds"
        self.game = match.game
        #: the table: its rules, its take-back rule, what each seat is told
        self.table = Table(match, writer)
        self.table.watchers.append(self.table_changed)
        self.codes = codes
        #: the code spectators must give; None: they need none
        self.watch_code = watch_code
        self.limits = limits or Limits.derive(len(codes))
        self.presence_delay = presence_delay
        self.bot_delay = bot_delay
        #: the bots, thought of in a thread by default; ``cabinet serve`` gives worker
        #: processes, so that no table's bots hold up another's.  None: another server runs them
        self.runner: BotRunner | None = BotRunner(
            self.table, think or think_in_thread, bot_delay, said=lambda line: self.log(line)
        )
        #: told whenever what the table shows changes (a move, a seat's coming or going)
        self.on_change = on_change
        #: told when a seat's player is connected here (True) and no more (False)
        self.on_presence = on_presence
        #: the seats whose players are connected to another server of the same store: not away
        self.present_elsewhere: set[int] = set()
        self.log = log or (lambda line: None)
        #: every message sent, with the seat it went to (tests scan them for leaks)
        self.on_send = on_send
        self.players: dict[int, Connection] = {}
        self.watchers: set[Connection] = set()
        #: the connections that are not a seat's, which share the limits: not yet said
        #: hello, and being closed (oldest first: the first dropped to make room)
        self.pending: dict[Connection, None] = {}
        self.ending: dict[Connection, None] = {}
        self.by_key: dict[str, dict[Connection, None]] = {}  # those three, by who is at the other end
        self.watchers_by_key: Counter[str] = Counter()
        self.listeners: list[socket.socket] = []
        self.accepting: list[asyncio.Task[None]] = []
        self.tasks: set[asyncio.Task[Any]] = set()
        self.address: Address | None = None
        self.frames_sent = 0
        self.accept_failures = 0
        self.finished = asyncio.Event()
        self.version = 0  # goes up whenever what an update says changes: a move, a seat's coming or going
        self.presence_handle: asyncio.TimerHandle | None = None
        self._frames: dict[tuple[Viewer, int], tuple[dict[str, Any], bytes]] = {}
        self._frames_version: tuple[int, int] = (-1, -1)
        #: who was away at version ``[0]`` (a seat's coming or going changes the version)
        self._away_at: tuple[int, list[int]] = (-1, [])
        self._welcome: bytes | None = None
        self._last_failure: float | None = None
        self._unix_id: tuple[int, int] | None = None
        self.arrivals: Tally | None = None  # spectators' arrivals, logged as a count
        self.departures: Tally | None = None  # and their leaving
        self.refusals: Tally | None = None  # connections refused by a limit, likewise
        self.slowed: Tally | None = None  # messages held back by the rate, likewise

    @property
    def match(self) -> Match:
        """The table's match (its Table holds it: a follower's is replaced when the log is rewritten)."""
        return self.table.match

    # -- listening --------------------------------------------------------------------

    async def start(self, address: Address) -> Address:
        """Listen on ``address``; the address as bound (a TCP port 0 gets its number).

        Raises OSError (its ``strerror`` a sentence's end) when it cannot.
        """
        self.begin()
        if address.path is not None:
            sock = await bind_unix(address.path)
            self._unix_id = file_id(address.path)
            self.listeners = [sock]
            self.address = address
        else:
            self.listeners = await bind_tcp(address.host, address.port)
            self.address = Address(host=address.host, port=self.listeners[0].getsockname()[1])
        loop = asyncio.get_running_loop()
        self.accepting = [loop.create_task(self.accept_loop(sock)) for sock in self.listeners]
        return self.address

    def begin(self) -> None:
        """Serve the table: its logs' tallies, and the bots to move start thinking.  ``start``
        calls it; a hall of many tables, which listens for them all, calls it alone."""
        self.arrivals, self.refusals, self.slowed = Tally(self.log), Tally(self.log), Tally(self.log)
        self.departures = Tally(self.log)
        self.schedule_bots()

    def listening_on(self) -> list[tuple[int, str]]:
        """The family and address of each TCP socket listened on."""
        return [(s.family, s.getsockname()[0]) for s in self.listeners if s.family != socket.AF_UNIX]

    async def close(self, farewell: str = "The host has stopped the game; it is saved.") -> None:
        for task in self.accepting:
            task.cancel()
        for sock in self.listeners:
            sock.close()
        if self.presence_handle is not None:
            self.presence_handle.cancel()
        for conn in list(self.players.values()) + list(self.watchers):
            conn.close(farewell, come_back=True, linger=False)
        for conn in list(self.pending) + list(self.ending):
            conn.close(linger=False)
        if self.runner is not None:
            self.runner.stop(closing=True)
        tasks = [t for t in self.tasks if t is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=LINGER + 1)
        if self.address is not None and self.address.path is not None:
            unlink_if_same(self.address.path, self._unix_id)
        for tally in (self.arrivals, self.departures, self.refusals, self.slowed):
            if tally is not None:
                tally.close()
        if self.save is not None:
            self.save.close()  # the save is free for the next host (or a cabinet load)

    async def accept_socket(self, listener: socket.socket) -> tuple[socket.socket, Any]:
        """The next connection (the seam where accept() fails when descriptors run out)."""
        return await asyncio.get_running_loop().sock_accept(listener)

    async def accept_loop(self, listener: socket.socket) -> None:
        wait = 0.0
        while True:
            try:
                sock, peer = await self.accept_socket(listener)
            except (BlockingIOError, InterruptedError, ConnectionAbortedError):
                continue  # a connection gone before it was taken
            except OSError as exc:
                if listener.fileno() < 0:
                    return  # closed: the server is stopping
                self.accept_failed(exc)
                wait = min(ACCEPT_BACKOFF[1], wait * 2 or ACCEPT_BACKOFF[0])
                await asyncio.sleep(wait)
                continue
            wait = 0.0
            await self.take(sock, peer)

    def accept_failed(self, exc: OSError) -> None:
        """One line per episode of failures (a new one after QUIET seconds without any)."""
        self.accept_failures += 1
        now = time.monotonic()
        if self._last_failure is None or now - self._last_failure > QUIET:
            if exc.errno in OUT_OF_RESOURCES:
                self.log(
                    f"New connections wait: the host is out of file descriptors ({exc.strerror or exc}, "
                    f"{open_files_limit()} at most); it takes them as soon as some close."
                )
            else:
                self.log(f"New connections wait: accepting one failed ({exc.strerror or exc}); the host tries again.")
        self._last_failure = now

    async def take(self, sock: socket.socket, peer: Any) -> None:
        """A new connection: room is made for it, then it is served in a task of its own."""
        loop = asyncio.get_running_loop()
        try:
            key = peer_key(sock, peer)
            self.make_room(key)
            reader = asyncio.StreamReader(limit=CLIENT_MAX + 8)
            protocol = asyncio.StreamReaderProtocol(reader)
            transport, _ = await loop.connect_accepted_socket(lambda: protocol, sock)
        except Exception:  # noqa: BLE001 - gone, or refused: whatever it is ends this connection, never the accept loop
            sock.close()
            return
        conn = Connection(self, reader, asyncio.StreamWriter(transport, protocol, reader, loop), key)
        self.pending[conn] = None
        self.by_key.setdefault(key, {})[conn] = None
        task = loop.create_task(self.accept(conn))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    # -- the limits -------------------------------------------------------------------------

    def shared(self) -> int:
        """Connections counted against the limits: not yet said hello, being closed, watching."""
        return len(self.pending) + len(self.ending) + len(self.watchers)

    def make_room(self, key: str) -> None:
        """Before a connection from ``key`` is taken: over a limit, the oldest of those
        being closed or waiting for their hello (from ``key``, for its limit) is dropped."""
        limits = self.limits
        if self.shared() >= limits.connections:
            victim = next(iter(self.ending), None) or next(iter(self.pending), None)
            if victim is not None:
                self.drop(victim, f"the host holds {limits.connections} connections at most besides the seats'")
        group = self.by_key.get(key)
        if group and len(group) >= limits.per_address:
            # one being closed, or one that has had HELLO_GRACE seconds to say hello (a younger
            # one may have said it already, unread: it is told the limit in a sentence instead)
            old = time.monotonic() - HELLO_GRACE
            victim = next((c for c in group if c in self.ending or (c in self.pending and c.opened <= old)), None)
            if victim is not None:
                self.drop(victim, f"{limits.per_address} connections at most from one address")

    def drop(self, conn: Connection, reason: str) -> None:
        conn.abort()
        self.release(conn)
        if conn.seat is None:
            self.refused(
                f"Closed a connection that had not said hello, to make room: {reason}.",
                ("connection closed to make room", "connections closed to make room"),
            )

    def closing(self, conn: Connection) -> None:
        """``conn`` is being closed: if it is not a seat's, it counts as such until it is."""
        if conn in self.pending or conn in self.watchers:
            self.forget(conn)
            self.pending.pop(conn, None)
            self.ending[conn] = None

    def release(self, conn: Connection) -> None:
        """``conn``'s socket is closed (or about to be): it counts no more."""
        self.pending.pop(conn, None)
        self.ending.pop(conn, None)
        if conn in self.watchers:
            self.forget(conn)
        group = self.by_key.get(conn.key)
        if group is not None:
            group.pop(conn, None)
            if not group:
                del self.by_key[conn.key]

    def refused(self, line: str, kind: tuple[str, str]) -> None:
        """A connection refused by a limit: logged once, then counted (``Tally``)."""
        if self.refusals is not None:
            self.refusals.note(line, kind)

    def spectator_refusal(self, conn: Connection) -> tuple[str, tuple[str, str]] | None:
        """Why this new spectator cannot watch (a sentence, and its kind for the log), or None."""
        limits = self.limits
        if len(self.watchers) >= limits.spectators:
            kind = ("spectator refused by the spectator limit", "spectators refused by the spectator limit")
            if limits.spectators == 0:
                return "This game takes no spectators.", kind
            return f"This game has as many spectators as it takes ({limits.spectators}); try again later.", kind
        if self.shared() > limits.connections:
            return "The host is full; try again later.", (
                "spectator refused: the host was full",
                "spectators refused: the host was full",
            )
        if self.watchers_by_key[conn.key] >= limits.per_address:
            return (
                f"Too many spectators from your address ({limits.per_address} at most); try again later.",
                ("spectator refused by the per-address limit", "spectators refused by the per-address limit"),
            )
        return None

    # -- one client -----------------------------------------------------------------------

    async def adopt(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, seat: Viewer, key: str) -> None:
        """Serve a connection another server has taken and greeted (the hall of ``cabinet
        serve``, which knows who is at the other end): as ``seat``'s, or a spectator's
        (``PUBLIC``), until it closes.  ``key``: who it is, for the limits."""
        conn = Connection(self, reader, writer, key)
        self.pending[conn] = None
        self.by_key.setdefault(key, {})[conn] = None
        task = asyncio.current_task()
        if task is not None:
            self.tasks.add(task)  # stopping the table ends it too
        try:
            await self.accept(conn, admitted=seat)
        finally:
            if task is not None:
                self.tasks.discard(task)

    async def accept(self, conn: Connection, admitted: Viewer | None = None) -> None:
        """Serve ``conn`` until it closes.  ``admitted``: the seat (``PUBLIC``: a spectator) of a
        connection whose hello was read and checked elsewhere (``adopt``); else it says hello here."""
        try:
            if admitted is None:
                await self.serve(conn)
            elif self.admit(conn, admitted):
                await self.converse(conn)
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
            self.release(conn)

    async def serve(self, conn: Connection) -> None:
        try:
            hello = await asyncio.wait_for(read_frame(conn.reader, CLIENT_MAX), HELLO_TIMEOUT)
        except TimeoutError:
            conn.close("No hello: the connection is closed.")
            return
        if hello is None or conn.closed:
            return
        if self.greet(conn, hello):
            await self.converse(conn)

    async def converse(self, conn: Connection) -> None:
        """Read and answer ``conn``'s messages, once it has a seat (or watches).

        A client over its rate is slowed, never dropped: its connection is not read
        until the bucket allows the next message (``Connection.pace``).  What it sends
        meanwhile waits in the socket (the reader holds at most twice its limit, then
        stops reading the transport), so a flood holds no more of the server's memory
        than a quiet client, and a player whose client outran the rate loses nothing.
        """
        while not conn.closed:
            message = await read_frame(conn.reader, CLIENT_MAX)
            if message is None or conn.closed:  # closed meanwhile: replaced by a new join, or stopping
                return
            wait = conn.pace()
            if wait > 0:
                if self.slowed is not None:
                    self.slowed.note(
                        f"Slowed {self.who(conn)} down to {RATE:g} messages a second.",
                        ("message held back by the rate", "messages held back by the rate"),
                    )
                await asyncio.sleep(wait)
                if conn.closed:
                    return
            self.handle(conn, message)

    def greet(self, conn: Connection, hello: dict[str, Any]) -> bool:
        if hello.get("t") != "hello":
            conn.close("The first message must be a hello.")
            return False
        if hello.get("v") != VERSION:
            conn.close(f"This server speaks protocol version {VERSION}; update Cabinet on one side.")
            return False
        code = hello.get("code")
        code = code if isinstance(code, str) else None
        watching = self.is_watch_code(code) if code is not None and self.watch_code is not None else False
        if hello.get("watch") is True or watching:
            if self.watch_code is not None and not watching:
                conn.close(
                    "This game's spectators need the watch code the host printed."
                    if code is None
                    else "That watch code is not this game's."
                )
                return False
            return self.admit(conn, PUBLIC)
        seat = self.seat_of(code) if code is not None else None
        if seat is None:
            conn.close("That join code is not one of this game's.")
            return False
        return self.admit(conn, seat)

    def admit(self, conn: Connection, seat: Viewer) -> bool:
        """``conn`` plays ``seat``, or watches (``PUBLIC``) if no limit says otherwise: it is
        welcomed (True), or told why not and closed (False)."""
        if seat == PUBLIC:
            refusal = self.spectator_refusal(conn)
            if refusal is not None:
                sentence, kind = refusal
                conn.close(sentence, come_back=True)
                self.refused(f"Refused a spectator from {conn.key}: {sentence}", kind)
                return False
            conn.seat = PUBLIC
            self.pending.pop(conn, None)
            self.watchers.add(conn)
            self.watchers_by_key[conn.key] += 1
            if self.arrivals is not None:
                self.arrivals.note("A spectator joined.", ("more spectator joined", "more spectators joined"))
            self.welcome(conn)
            return True
        # a seat's connection: out of the limits' count
        self.pending.pop(conn, None)
        group = self.by_key.get(conn.key)
        if group is not None:
            group.pop(conn, None)
            if not group:
                del self.by_key[conn.key]
        old = self.players.get(seat)
        conn.seat = seat
        self.players[seat] = conn
        if old is not None:
            old.close("You joined this game again from another terminal.", linger=False)
        self.log(f"{self.name(seat)} joined.")
        if old is None:
            self.presence_changed()  # first: the update the player gets now says it already
            if self.on_presence is not None:
                self.on_presence(seat, True)
        self.welcome(conn)
        return True

    def welcome(self, conn: Connection) -> None:
        """The welcome and the first update, to ``conn`` alone."""
        if conn.seat == PUBLIC:
            message = {"t": "welcome", "v": VERSION, "seat": None, "table": self.table.description()}
            if self._welcome is None:
                self._welcome = pack(message)
            conn.send(message, self._welcome)
        else:
            conn.send({"t": "welcome", "v": VERSION, "seat": conn.seat, "table": self.table.description()})
        self.tell(conn)

    def is_watch_code(self, code: str) -> bool:
        return self.watch_code is not None and hmac.compare_digest(code.encode(), self.watch_code.encode())

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
            self.watchers_by_key[conn.key] -= 1
            if self.watchers_by_key[conn.key] <= 0:
                del self.watchers_by_key[conn.key]
            if self.departures is not None:  # (counted as their arrivals are, in a crowd)
                self.departures.note("A spectator left.", ("more spectator left", "more spectators left"))
        elif isinstance(conn.seat, int) and self.players.get(conn.seat) is conn:
            del self.players[conn.seat]
            self.log(f"{self.name(conn.seat)} is away.")
            self.presence_changed()
            if self.on_presence is not None:
                self.on_presence(conn.seat, False)

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
        elif kind == "takeback":
            self.takeback(conn)
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
        self.play(conn, seat, command)

    def play(self, conn: Connection, seat: int, command: Command) -> None:
        """``conn``'s seat plays ``command``; it is told why not if it may not."""
        refusal = self.submit(seat, command)
        if refusal is not None:
            conn.send({"t": "error", "message": refusal})

    def submit(self, seat: int, command: Any) -> str | None:
        """``seat`` plays ``command``: None, or the sentence why it may not (nothing changed)."""
        return self.table.submit(seat, command)

    def takeback(self, conn: Connection) -> None:
        """The seat's last move is taken back, at a table where every other seat is a bot (as at
        a local table: with another human, a move once seen stays played)."""
        seat = conn.seat
        if not isinstance(seat, int):
            conn.send({"t": "error", "message": "A spectator has no move to take back."})
            return
        self.ask_takeback(conn, seat)

    def ask_takeback(self, conn: Connection, seat: int) -> None:
        """``conn``'s seat takes its last move back; it is told that it did, or why not."""
        kind, sentence = self.take_back(seat)
        conn.send({"t": kind, "message": sentence})

    def take_back(self, seat: int) -> tuple[str, str]:
        """``seat``'s last move taken back, by the table's one rule: ("info", the sentence
        that says so), or ("error", the sentence why not)."""
        if self.runner is not None:
            self.runner.stop()  # whatever a bot was thinking of is no longer the position
        refusal = self.table.take_back(seat)
        if refusal is not None:
            self.schedule_bots()
            return "error", refusal
        self.log(f"{self.name(seat)} took a move back.")
        return "info", "Move taken back."

    def table_changed(self, cut: bool) -> None:
        """A move was played, or taken back (``cut``): every seat is told, the bots move on."""
        if cut:
            for other in [*self.players.values(), *self.watchers]:
                other.told = min(other.told, len(self.match.events))  # their next update starts where the log now ends
        self.moved()

    # -- the game moves on -------------------------------------------------------------

    def moved(self) -> None:
        if self.save is not None and self.save.lost:
            # not saved, and this server holds the table no more (a lease lost with its
            # connection): nobody is told a move the table's log may never hold; its
            # players join the table again where it is served from that log now
            return
        self.version += 1
        self.broadcast()
        if self.match.outcome is not None:
            self.log("The game is over: " + self.outcome_text())
            self.finished.set()
        self.schedule_bots()

    def schedule_bots(self) -> None:
        if self.runner is not None:
            self.runner.kick()
        if self.match.outcome is not None:
            self.finished.set()

    # -- what each client is told ----------------------------------------------------

    def presence_changed(self) -> None:
        """A seat came or went: everybody is told, in one update, within ``presence_delay``
        (at once if a move comes first: its update says who is away)."""
        self.version += 1
        if self.presence_handle is None:
            self.presence_handle = asyncio.get_running_loop().call_later(self.presence_delay, self.tell_presence)

    def tell_presence(self) -> None:
        self.presence_handle = None
        self.broadcast()

    def broadcast(self) -> None:
        """Everybody not told the latest is sent one update: the players at once, then the
        spectators, FAN_OUT a turn of the event loop (so that a crowd does not hold up the
        players' next commands); one update is built and packed for all the connections
        of a seat."""
        if self.presence_handle is not None:
            self.presence_handle.cancel()
            self.presence_handle = None
        if self.on_change is not None:
            self.on_change()
        for conn in list(self.players.values()):
            if not conn.closed and conn.version != self.version:
                self.tell(conn)
        self.fan_out([c for c in self.watchers if c.version != self.version], 0)

    def fan_out(self, spectators: list[Connection], start: int) -> None:
        """Tell ``spectators[start:]`` the latest, FAN_OUT now and the rest at the next turn
        (each what it has not been told when its turn comes: a move meanwhile is in it)."""
        for conn in spectators[start : start + FAN_OUT]:
            if not conn.closed and conn.version != self.version and conn in self.watchers:
                self.tell(conn)
        if start + FAN_OUT < len(spectators):
            asyncio.get_running_loop().call_soon(self.fan_out, spectators, start + FAN_OUT)

    def tell(self, conn: Connection) -> None:
        """``conn`` is sent what it has not been told yet (the events since it was last).

        A move is shown once its save is written (on disk, committed): while a save
        written off the loop has moves not written yet, everybody is told when it has."""
        assert conn.seat is not None
        save = self.save
        if save is not None and save.pending:
            save.when_written(self.broadcast)
            return
        if save is not None and save.lost:
            return  # nobody is told a move the table's log may never hold: its players join it again elsewhere
        told = len(self.table.match.events)
        now = (self.version, told)
        if self._frames_version != now or len(self._frames) > 64:
            self._frames.clear()
            self._frames_version = now
        key = (conn.seat, conn.told)
        built = self._frames.get(key)
        if built is None:
            message = self.update_for(conn.seat, conn.told)
            built = self._frames[key] = (message, pack(message))
        conn.told = told
        conn.version = self.version
        conn.send(*built)

    def update_for(self, seat: Viewer, told: int) -> dict[str, Any]:
        """The update of a seat told ``told`` events already."""
        if self._away_at[0] != self.version:
            self._away_at = (self.version, self.away())
        return self.table.update_for(seat, told, self._away_at[1])

    def away(self) -> list[int]:
        """The human seats whose players are connected neither here nor to another server."""
        return [s for s in self.match.humans() if s not in self.players and s not in self.present_elsewhere]

    def sent(self, conn: Connection, message: dict[str, Any], size: int) -> None:
        self.frames_sent += 1
        if self.on_send is not None:
            self.on_send(conn.seat, message)

    def name(self, seat: int) -> str:
        return self.match.header["seats"][seat]["name"]

    def who(self, conn: Connection) -> str:
        """Who ``conn`` is, for the log: its seat's player, or a spectator and where from."""
        return self.name(conn.seat) if isinstance(conn.seat, int) else f"a spectator from {conn.key}"

    def outcome_text(self) -> str:
        return outcome_text(self.match)
