"""``cabinet serve``'s front door: an SSH server that puts each player at a terminal.

Players reach the server with nothing but ``ssh -p 2222 ann@host``: no install, no
account.  The SSH protocol is asyncssh's; this module decides who gets in and what
they get.  Authentication is by public key only, and the key is the player's whole
identity: the first key to use a name holds it (``net.identity``); with an
``allow`` file (authorized_keys format) only the keys in it get in at all.

Every SSH session that asks for a terminal and a shell gets one child process of
its own (the program the caller names, normally the Cabinet app), in a real
pseudo-terminal of its own: the child is a session leader with the pty as its
controlling terminal, so it gets SIGWINCH when the player's window changes, and
SIGHUP when the player goes.  Bytes are relayed both ways unchanged (the server
is made with ``encoding=None``, and no line editor), and neither side may flood
the other: the pty is not read while the channel's write buffer is full, and the
player's keys wait (the SSH window closes) while the child does not read them.
When the child ends, its exit status goes to the client and the channel closes;
when the client goes, the child's process group is hung up and, after
``GRACE`` seconds, killed.  Every child is reaped, every descriptor closed.  A
child that crashes ends its own session only.

A session reaches nothing of the machine and cannot starve the others: its child
runs in a private empty directory (its HOME, TMPDIR and working directory,
removed when it ends), with umask 077, none of the server's environment, its
memory and the files it may write capped; its terminal is SIZE_MAX at most, and
what it sends and is sent are token buckets (``Budget``): a flood is slowed,
never cut off.  However a session ends, the modes its child set on the player's
terminal and did not reset (the other screen, the mouse, a hidden cursor...) are
reset by the front (``TerminalModes``), so that no player's shell is left broken.

Everything else is refused, in one sentence the client sees (on the channel's
stderr, or as the authentication banner, or as the reason of a refused channel or
a disconnection) and one line in the log with the name and the address: commands
(``ssh host ls``), sessions without a terminal, subsystems (SFTP), port forwarding
either way, sessions over the limits, logins that take too long, and sessions left
without a key pressed for ``FrontLimits.idle`` seconds.  X11 and agent forwarding
are refused by asyncssh's options, inside asyncssh, which tells us nothing of
them.  A key refused is told only if the login fails (a later key may get in):
as keyboard-interactive's instruction, which a client tries once its keys are
spent.  Connections that have not logged in yet are bounded: past
``PENDING_PER_ADDRESS`` from one address, or ``PENDING_MAX`` in all, one is
dropped, from the address holding the most, the least advanced of those.  Refusals go through a ``Tally``: each is a line in the log, and
past ``REFUSALS_LOGGED`` in an interval a crowd of them is counted instead.
No callback of ours lets an exception out into asyncssh:
one is logged, and costs its own session or connection at most.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import fcntl
import functools
import os
import re
import resource
import shutil
import signal
import struct
import subprocess
import tempfile
import termios
import time
import warnings
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, TypeVar

with warnings.catch_warnings():
    # asyncssh still knows DSA keys, which the cryptography package deprecates: a warning at
    # every start that no operator can act on
    warnings.filterwarnings("ignore", message="DSA is deprecated")
    import asyncssh
    from asyncssh.constants import MSG_CHANNEL_WINDOW_ADJUST
    from asyncssh.packet import UInt32

from net.identity import FileIdentities, Identities, valid_name
from net.offloop import Lane, Offloop
from net.server import Budget, Tally, bind_tcp
from net.zygote import WarmParent

HOST_KEY = "host_key"  # in the data directory: the server's ed25519 key, made on first start
PLAYERS = "players.json"  # in the data directory: who holds which name
PENDING_MAX = 64  # connections not logged in yet; past it the oldest is dropped
PENDING_PER_ADDRESS = 16  # of them, from one address (so one address cannot push out the others)
REFUSALS_LOGGED = 20  # refusals logged line by line in an interval of the log; past it they are counted
GRACE = 2.0  # seconds a hung-up child has to end before it is killed
LOGIN_SLACK = 5.0  # asyncssh's own login timer, behind ours: only if ours somehow did not fire
CLOSE_LINGER = 30.0  # seconds a finished session's last output may wait for a client that does not read
#: seconds a stopping server waits for its clients to read their sessions' last output (up to
#: OUTPUT_HIGH queued, a frame half sent), the terminal's modes put back and the goodbye, before
#: it disconnects them (OpenSSH closes a channel once it has written its output, and drops what it
#: holds at a disconnect): in the 1 s it had, a client slow to read (a slow link, a loaded machine,
#: a terminal not read a moment) lost all of it, its terminal left on the other screen, mouse on
STOP_LINGER = 5.0
READ_SIZE = 64 * 1024  # bytes read from a pty at a time
OUTPUT_HIGH = 256 * 1024  # bytes waiting in a channel before the pty is no longer read
INPUT_MAX = 64 * 1024  # bytes typed that the child has not read, before the client is made to wait
DRAIN_MAX = 1024 * 1024  # bytes of a finished child's last output still relayed
KEEPALIVE = (30.0, 4)  # seconds between keepalives to a silent client, and how many unanswered end it
#: the key exchanges offered: asyncssh's own, curve25519 first and the post-quantum hybrids last.
#: The client's order picks the one used (RFC 4253, 7.1), so a client that prefers a hybrid still
#: gets it; the server's first counts only for a client that sends the packet of its guess with its
#: KEXINIT, as dropbear's dbclient does (curve25519-sha256).  Its guess is right only if it is the
#: server's first too; asyncssh calls it right whenever it is the one agreed on, and with a hybrid
#: first, dbclient's second packet ended every connection ("Key exchange not in progress").
KEX_ALGS = [
    alg.decode()
    for alg in sorted(
        asyncssh.kex.get_default_kex_algs(),
        key=lambda alg: (not alg.startswith(b"curve25519-"), alg.startswith((b"mlkem", b"sntrup"))),
    )
]
#: columns and rows a session's terminal may have: a bigger one is taken to be this big.
#: A screen costs memory and output by its area, and no table uses more than this;
#: a client claiming 65535x65535 would otherwise cost the server a gigabyte.
SIZE_MAX = (400, 200)
#: what a session's program may hold (bytes of data: heap and private mappings). A
#: session holds 60 MiB or so; past this, it fails alone rather than starve the others.
MEMORY_MAX = 512 * 1024 * 1024
#: the largest file a session's program may write, in bytes: it writes none (screenshots and
#: the like are refused), so any attempt is bounded, whatever slips past that
FILE_MAX = 1024 * 1024
#: the limits of a session's program, set between fork and exec (or in the forked session)
SESSION_LIMITS = {"RLIMIT_DATA": MEMORY_MAX, "RLIMIT_FSIZE": FILE_MAX, "RLIMIT_CORE": 0}
#: bytes a second a session's screen may send its player, on average, and at once: many
#: times what play needs (a move redraws a few kilobytes), so that one session streaming
#: a huge screen cannot take the server's cores and bandwidth from the others
OUTPUT_RATE, OUTPUT_BURST = 512 * 1024, 2 * 1024 * 1024
#: bytes a second a player may type, on average, and at once: a paste or a fast key
#: repeat (an arrow key is 3 bytes) goes through whole; a flood is slowed, never cut off
INPUT_RATE, INPUT_BURST = 1024, 16 * 1024
#: bytes a player may have typed that the server holds: the SSH window of a session's
#: channel (asyncssh's default is 2 MiB; keys never need a tenth of it)
INPUT_WINDOW = 256 * 1024
#: a session's program may use this share of a core, on average (CPU_RATE), and this many
#: seconds of it at once (CPU_BURST), before it is given the lowest priority (nice 19)
#: for the rest of its life: honest play uses a few hundredths (0.03 a session with a move every
#: 1-2 s at its table, docs/PERFORMANCE.md S4); a program kept busy by a flood of keys or a huge
#: screen then runs on what the others leave (looked at every CPU_LOOK seconds).  At 0.25 a
#: flooding program on a busy machine got 0.16-0.26 of a core and was never demoted.  A burst
#: of 2 s was within reach of an honest player: a session started afresh (0.6 s, while the warm
#: parent is not ready) and a thousand arrows pasted into the history (1.2 s) came to 1.7 s; once
#: demoted (for good) a session takes its keys and its end at a twentieth of a core (the
#: intermittent test_serve failure).  A flood, which keeps a core busy, is still demoted in 6 s.
CPU_RATE, CPU_BURST, CPU_LOOK = 0.1, 5.0, 1.0
LOWEST_PRIORITY = 19
#: a session so demoted gets at most this share of a core from then on, enforced: its program is
#: stopped (SIGSTOP) while it has used more, and continued once its average is back under it, as
#: cpulimit does where no cgroup is delegated to the server.  The lowest priority alone left it
#: 0.2-0.45 of a core that the others' screens then waited behind (docs/PERFORMANCE.md, S4); a
#: twentieth of a core still draws a few frames a second.  Looked at every CAP_LOOK seconds,
#: with CAP_BURST seconds of its share at once.
DEMOTED_SHARE, CAP_LOOK, CAP_BURST = 0.05, 0.1, 2.0
#: a session so demoted is paced this many times slower too, keys and screen: at the lowest
#: priority it still takes a core the others leave free, and its keys are what keep it busy
#: (a player still types 40 arrows a second, the screen still draws 64 KiB a second)
DEMOTED_PACE = 8
#: seconds between two sizes given a session's pty: a window dragged, or a client sending
#: sizes without end, redraws the screen ten times a second at most, the last size kept
RESIZE_EVERY = 0.1
DEFAULT_SIZE = (80, 24)  # columns, rows, for a client that says 0
DEFAULT_TERM = "xterm-256color"  # for a client that names no terminal, or one that cannot be a name
_TERM = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,63}\Z")
_LOCALE = re.compile(r"[A-Za-z0-9._@-]{1,64}\Z")
_LC = re.compile(r"LC_[A-Z]{1,20}\Z")


@dataclass(frozen=True)
class FrontLimits:
    login_timeout: float = 30.0  # seconds to authenticate (and then to open a terminal session)
    sessions_per_key: int = 4
    sessions: int = 200  # in total
    idle: float = 3600.0  # seconds without a key pressed: the session is closed (told why)
    input_rate: float = INPUT_RATE  # bytes a second a player may type (see INPUT_RATE)...
    input_burst: float = INPUT_BURST  # ...and at once
    cpu_rate: float = CPU_RATE  # share of a core a session's program may use (see CPU_RATE)...
    cpu_burst: float = CPU_BURST  # ...and seconds of it at once
    demoted_share: float = DEMOTED_SHARE  # share of a core a session gets once over that (see DEMOTED_SHARE)


@dataclass(frozen=True)
class Login:
    """What the caller gets for each terminal session."""

    name: str  # the player's name, as first claimed (``ann`` for a later ``Ann``)
    key: str  # the key's SHA256 fingerprint
    term: str  # TERM from the pty request
    env: dict[str, str]  # the client's environment, filtered to COLORTERM, NO_COLOR, LANG, LC_*
    size: tuple[int, int]  # columns, rows


# -- sentences -------------------------------------------------------------------------------


def span(seconds: float) -> str:
    """``seconds`` in words: "an hour", "2 minutes", "1.5 seconds"."""
    for unit, length in (("hour", 3600), ("minute", 60), ("second", 1)):
        if seconds >= length or unit == "second":
            n = seconds / length
            if n == 1:
                return ("an " if unit == "hour" else "a ") + unit
            return f"{n:g} {unit}s"
    raise AssertionError


def shown(text: str, limit: int = 40) -> str:
    """Something a client sent, fit for one line of the log: no control characters
    (an escape sequence in a user name must not reach the operator's terminal)."""
    clean = "".join(c if c.isprintable() else "?" for c in text[:limit])
    return clean + ("..." if len(text) > limit else "")


def no_command(port: int) -> str:
    """The refusal of a command, with the line that connects instead: the player's name before
    the host, as ``cabinet serve`` writes it (``ssh -p PORT NAME@host``)."""
    return f"Cabinet runs no commands: connect without one (ssh{f' -p {port}' if port != 22 else ''} NAME@host)."


NO_TERMINAL = "Cabinet needs a terminal: connect with ssh -t."
NOT_LISTED = "Your key is not on this server's list of players; ask its operator to add it."
FULL = "The server is full; try again later."
STOPPING = "The server is stopping."
SEATS_WAIT = "your seats wait for you."
TABLES_SAVED = "every table is saved."
NO_START = "Cabinet could not start your session; try again later."
NO_FORWARDING = "Cabinet forwards no connections."


def per_key(n: int) -> str:
    return f"Your key has {n} Cabinet session{'s' if n != 1 else ''} open already (under any name); close one first."


def stopping(seated: bool) -> str:
    """The goodbye of a server that stops: a player is told their seats wait, a spectator not."""
    return f"The server is stopping; {SEATS_WAIT if seated else TABLES_SAVED}"


def idle_sentence(seconds: float, seated: bool) -> str:
    return f"Closed after {span(seconds)} without a key pressed" + (f"; {SEATS_WAIT}" if seated else ".")


# -- files -----------------------------------------------------------------------------------


def load_or_make_host_key(path: Path, log: Callable[[str], None]) -> asyncssh.SSHKey:
    """The server's host key at ``path``: read, or made (ed25519, mode 0600) on first start.

    A new key is written to a temporary file and linked into place, which fails if
    another server made one meanwhile: then that one is read, and both use it.
    Raises OSError (its ``strerror`` a sentence's end) for a file that is not a key.
    """
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        return _read_host_key(path, log)
    except FileNotFoundError:
        pass
    key = asyncssh.generate_private_key("ssh-ed25519", comment="cabinet serve")
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix="." + path.name + ".")  # mode 0600
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(key.export_private_key())
            f.flush()
            os.fsync(f.fileno())
        try:
            os.link(temp, path)
        except FileExistsError:
            return _read_host_key(path, log)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temp)
    log(f"Made a new host key in {path}.")
    return key


def _read_host_key(path: Path, log: Callable[[str], None]) -> asyncssh.SSHKey:
    st = path.stat()  # FileNotFoundError: there is none yet
    try:
        key = asyncssh.read_private_key(path)
    except (ValueError, asyncssh.KeyImportError) as exc:
        raise OSError(errno.EINVAL, f"{path} is not a private key Cabinet can read ({exc})") from None
    if st.st_mode & 0o077:
        os.chmod(path, 0o600)
        log(f"{path} could be read by other users: it is 0600 now.")
    return key


class AllowList:
    """The keys in an authorized_keys file, read again when the file changes.

    Only membership counts (and ``from=`` patterns, which asyncssh matches); the
    file's other options (``command=``, ``no-pty``...) mean nothing here."""

    def __init__(self, path: Path, log: Callable[[str], None]) -> None:
        self.path = Path(path)
        self.log = log
        self.keys: asyncssh.SSHAuthorizedKeys | None = None  # None: none
        self._stamp: tuple[int, int, int] | None = None
        self.read(strict=True)

    def read(self, strict: bool) -> None:
        """Again if the file changed.  ``strict``: one that cannot be read raises OSError;
        later, the keys read last stand until it can be read again."""
        try:
            st = self.path.stat()
            stamp = (st.st_ino, st.st_size, st.st_mtime_ns)
            if stamp == self._stamp:
                return
            self._stamp = stamp
            text = self.path.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            if strict:
                raise OSError(exc.errno or errno.EIO, f"{self.path} cannot be read ({exc.strerror or exc})") from None
            self._stamp = None
            return
        lines = [
            (n, line)
            for n, line in enumerate(text.splitlines(), 1)
            if line.strip() and not line.lstrip().startswith("#")
        ]
        if not lines:
            self.keys = None  # emptied: nobody gets in
            self.log(f"{self.path} lists no key: nobody can log in.")
            return
        # asyncssh skips a line it cannot read without a word: the operator who mistyped a
        # friend's key must learn which line, or the friend is refused for no visible reason
        kept = []
        for n, line in lines:
            try:
                asyncssh.import_authorized_keys(line)
            except ValueError:
                self.log(
                    f"{self.path}, line {n}: not a public key Cabinet can read ({shown(line.strip(), 30)}); it is skipped."
                )
            else:
                kept.append(line)
        if kept:
            self.keys = asyncssh.import_authorized_keys("\n".join(kept) + "\n")
        elif strict:
            raise OSError(errno.EINVAL, f"{self.path} has no public key Cabinet can read")
        else:
            self.log(f"{self.path} has no public key Cabinet can read; the keys read before stand.")

    def admits(self, key: asyncssh.SSHKey, address: str) -> bool:
        self.read(strict=False)
        if self.keys is None:
            return False
        with contextlib.suppress(ValueError):  # an address asyncssh cannot parse for from=
            return self.keys.validate(key, address, address) is not None
        return False


# -- guarding callbacks ------------------------------------------------------------------------

F = TypeVar("F", bound=Callable[..., Any])


def guarded(default: Any = None) -> Callable[[F], F]:
    """A callback asyncssh (or the event loop) calls: an exception out of it is logged,
    its object is told (``broken``), and ``default`` is returned, so that a bug of ours
    never takes down more than the one connection or session it happened in.  A
    ChannelOpenError is a refusal, and goes through."""

    def wrap(method: F) -> F:
        @functools.wraps(method)
        def call(self: Any, *args: Any) -> Any:
            try:
                return method(self, *args)
            except asyncssh.ChannelOpenError:
                raise
            except Exception as exc:  # noqa: BLE001 - the point: nothing gets out
                with contextlib.suppress(Exception):
                    self.broken(method.__name__, exc)
                return default

        return call  # type: ignore[return-value]

    return wrap


def guarded_async(default: Any = None) -> Callable[[F], F]:
    """:func:`guarded` for a coroutine asyncssh awaits (one that asks the keeper of names,
    which may wait on a disk or a database)."""

    def wrap(method: F) -> F:
        @functools.wraps(method)
        async def call(self: Any, *args: Any) -> Any:
            try:
                return await method(self, *args)
            except asyncssh.ChannelOpenError:
                raise
            except Exception as exc:  # noqa: BLE001 - the point: nothing gets out
                with contextlib.suppress(Exception):
                    self.broken(method.__name__, exc)
                return default

        return call  # type: ignore[return-value]

    return wrap


# -- the child in its terminal ----------------------------------------------------------------


def _become_the_session() -> None:
    """In the child, between fork and exec (``start_new_session`` has made it a session
    leader already): its stdin, the pty, becomes its controlling terminal, and its
    limits are set (MEMORY_MAX, FILE_MAX, no core file).  subprocess has no option for
    these; each is one system call, and takes no lock a thread could hold."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    for name, value in SESSION_LIMITS.items():
        resource.setrlimit(getattr(resource, name), (value, value))


def _set_size(fd: int, cols: int, rows: int) -> None:
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


def _terminal(size: tuple[int, int], modes: dict[int, int]) -> tuple[int, int]:
    """A new pty, master and slave (both close-on-exec: a child gets the slave as 0, 1, 2
    only), with the client's modes and size."""
    master, slave = os.openpty()
    try:
        with contextlib.suppress(termios.error):
            apply_modes(slave, modes)
            quiet(slave)
        _set_size(master, *size)
    except BaseException:
        os.close(master)
        os.close(slave)
        raise
    return master, slave


def quiet(fd: int) -> None:
    """No echo on the pty: the program on it is Cabinet's full-screen app, which sets its own
    modes once it is up; keys typed before then (a player who types at once) reach it
    without being echoed over its first frame."""
    attrs = termios.tcgetattr(fd)
    attrs[3] &= ~(termios.ECHO | termios.ECHONL)
    termios.tcsetattr(fd, termios.TCSANOW, attrs)


def terminal_size(cols: int, rows: int) -> tuple[int, int]:
    """A size a client sent, as the pty gets it: 0 is unknown (the default), and
    anything over SIZE_MAX is SIZE_MAX."""
    if cols <= 0 or rows <= 0:
        return DEFAULT_SIZE
    return min(cols, SIZE_MAX[0]), min(rows, SIZE_MAX[1])


#: the client's terminal modes (RFC 4254, 8) that a pty has: control characters...
_CHARS = {
    asyncssh.PTY_VINTR: "VINTR",
    asyncssh.PTY_VQUIT: "VQUIT",
    asyncssh.PTY_VERASE: "VERASE",
    asyncssh.PTY_VKILL: "VKILL",
    asyncssh.PTY_VEOF: "VEOF",
    asyncssh.PTY_VEOL: "VEOL",
    asyncssh.PTY_VEOL2: "VEOL2",
    asyncssh.PTY_VSTART: "VSTART",
    asyncssh.PTY_VSTOP: "VSTOP",
    asyncssh.PTY_VSUSP: "VSUSP",
    asyncssh.PTY_VREPRINT: "VREPRINT",
    asyncssh.PTY_WERASE: "VWERASE",
    asyncssh.PTY_VLNEXT: "VLNEXT",
    asyncssh.PTY_VDISCARD: "VDISCARD",
}
#: ...and flags, with the index of their word in termios.tcgetattr's list
_FLAGS = {
    asyncssh.PTY_IGNPAR: (0, "IGNPAR"),
    asyncssh.PTY_PARMRK: (0, "PARMRK"),
    asyncssh.PTY_INPCK: (0, "INPCK"),
    asyncssh.PTY_ISTRIP: (0, "ISTRIP"),
    asyncssh.PTY_INLCR: (0, "INLCR"),
    asyncssh.PTY_IGNCR: (0, "IGNCR"),
    asyncssh.PTY_ICRNL: (0, "ICRNL"),
    asyncssh.PTY_IXON: (0, "IXON"),
    asyncssh.PTY_IXANY: (0, "IXANY"),
    asyncssh.PTY_IXOFF: (0, "IXOFF"),
    asyncssh.PTY_IMAXBEL: (0, "IMAXBEL"),
    asyncssh.PTY_IUTF8: (0, "IUTF8"),
    asyncssh.PTY_OPOST: (1, "OPOST"),
    asyncssh.PTY_ONLCR: (1, "ONLCR"),
    asyncssh.PTY_OCRNL: (1, "OCRNL"),
    asyncssh.PTY_ONOCR: (1, "ONOCR"),
    asyncssh.PTY_ONLRET: (1, "ONLRET"),
    asyncssh.PTY_ISIG: (3, "ISIG"),
    asyncssh.PTY_ICANON: (3, "ICANON"),
    asyncssh.PTY_ECHO: (3, "ECHO"),
    asyncssh.PTY_ECHOE: (3, "ECHOE"),
    asyncssh.PTY_ECHOK: (3, "ECHOK"),
    asyncssh.PTY_ECHONL: (3, "ECHONL"),
    asyncssh.PTY_NOFLSH: (3, "NOFLSH"),
    asyncssh.PTY_TOSTOP: (3, "TOSTOP"),
    asyncssh.PTY_IEXTEN: (3, "IEXTEN"),
    asyncssh.PTY_ECHOCTL: (3, "ECHOCTL"),
    asyncssh.PTY_ECHOKE: (3, "ECHOKE"),
}


def apply_modes(fd: int, modes: dict[int, int]) -> None:
    """Set the client's terminal modes on the pty, as sshd does: its erase key, its
    line discipline, and the rest that this system's termios knows."""
    attrs = termios.tcgetattr(fd)
    for mode, value in modes.items():
        if mode in _CHARS and hasattr(termios, _CHARS[mode]):
            attrs[6][getattr(termios, _CHARS[mode])] = bytes([0 if value == 255 else value & 0xFF])
        elif mode in _FLAGS and hasattr(termios, _FLAGS[mode][1]):
            word, name = _FLAGS[mode]
            bit = getattr(termios, name)
            attrs[word] = attrs[word] | bit if value else attrs[word] & ~bit
    termios.tcsetattr(fd, termios.TCSANOW, attrs)


class PtyChild:
    """One program in a pseudo-terminal of its own, relayed without blocking.

    ``output(data)``: bytes it wrote; ``exited(returncode)``: it ended and was reaped
    (negative: killed by that signal); ``full(waiting)``: True when more than
    INPUT_MAX bytes sent it wait to be read (the sender should stop), False when
    they have gone.  The child's end is learnt from a pidfd where the system has
    them (no thread, no polling), else by polling.

    ``spawn``: the program forked by a warm parent (``WarmParent.spawn``: a process this
    one adopts and reaps as its own), or None if none is ready: then it is exec'd here.
    """

    def __init__(
        self,
        argv: list[str],
        env: dict[str, str],
        size: tuple[int, int],
        modes: dict[int, int],
        output: Callable[[bytes], None],
        exited: Callable[[int], None],
        full: Callable[[bool], None],
        home: str = "/",
        spawn: Callable[..., Any] | None = None,
    ) -> None:
        self.loop = asyncio.get_running_loop()
        self.output, self.exited, self.full = output, exited, full
        self.inbox = bytearray()  # typed, not yet taken by the pty
        self.reading = False
        self.paused = False  # the client's buffer is full
        self.budget = Budget(OUTPUT_RATE, OUTPUT_BURST)
        self.throttle_handle: asyncio.TimerHandle | None = None  # over its budget: read again then
        self.silent = False  # the pty said EIO: nothing has it open for writing any more
        self.waiting = False
        self.returncode: int | None = None
        self.kill_handle: asyncio.TimerHandle | None = None
        self.poll_handle: asyncio.TimerHandle | None = None
        self.pidfd: int | None = None
        self.cap: Budget | None = None  # its CPU seconds, once it is held to a share of a core
        self.cap_seen = 0.0  # its CPU seconds when last looked at
        self.cap_handle: asyncio.TimerHandle | None = None
        self.stopped = False  # by the cap, until its share allows it to go on
        forked = None
        if spawn is not None:
            master, slave = _terminal(size, modes)
            try:
                forked = spawn(argv, env, home, slave, SESSION_LIMITS)
            finally:
                if forked is None:  # (a warm parent that did not answer in time may fork it late: not on this pty)
                    os.close(master)
                    os.close(slave)
        if forked is None:
            master, slave = _terminal(size, modes)
        self.forked = forked is not None
        try:
            self.proc = forked or subprocess.Popen(
                argv,
                stdin=slave,
                stdout=slave,
                stderr=slave,
                env=env,
                cwd=home,
                umask=0o077,
                start_new_session=True,
                preexec_fn=_become_the_session,
                close_fds=True,
            )
        except BaseException:
            os.close(master)
            raise
        finally:
            os.close(slave)
        self.master: int | None = master
        self.pid = self.proc.pid
        os.set_blocking(master, False)
        self._read_on()
        try:
            self.pidfd = os.pidfd_open(self.pid)
            self.loop.add_reader(self.pidfd, self._ended)
        except (AttributeError, OSError):  # no pidfds here: look every so often
            self.pidfd = None
            self.poll_handle = self.loop.call_later(0.2, self._poll)

    # -- output --------------------------------------------------------------------------

    def _read_on(self) -> None:
        if (
            self.master is not None
            and not self.reading
            and not self.paused
            and self.throttle_handle is None
            and not self.silent
        ):
            self.loop.add_reader(self.master, self._readable)
            self.reading = True

    def _read_off(self) -> None:
        if self.reading and self.master is not None:
            self.loop.remove_reader(self.master)
        self.reading = False

    def _readable(self) -> None:
        try:
            data = os.read(self.master, READ_SIZE) if self.master is not None else b""
        except BlockingIOError:
            return
        except OSError:  # EIO: nothing has the terminal open any more
            data = b""
        if not data:
            self.silent = True
            self._read_off()  # the child's end (or its pidfd) will say the rest
            return
        self._relay(data)
        wait = self.budget.spend(len(data))
        if wait > 0 and self.master is not None:  # over its budget: its writes block meanwhile
            self._read_off()
            self.throttle_handle = self.loop.call_later(wait, self._unthrottle)

    def _unthrottle(self) -> None:
        self.throttle_handle = None
        self._read_on()

    def _relay(self, data: bytes) -> None:
        try:
            self.output(data)
        except Exception:  # noqa: BLE001 - nobody to send it to: the session ends
            self.hang_up(keep_output=False)

    def pause(self) -> None:
        """The client's buffer is full: the pty is not read until ``resume``."""
        self.paused = True
        self._read_off()

    def resume(self) -> None:
        self.paused = False
        self._read_on()

    def resize(self, cols: int, rows: int) -> None:
        """The pty's new size: the kernel sends SIGWINCH to the child's foreground group."""
        if self.master is not None:
            with contextlib.suppress(OSError):
                _set_size(self.master, cols, rows)

    # -- input ---------------------------------------------------------------------------

    def write(self, data: bytes) -> None:
        """Bytes typed: to the pty now, or as soon as it takes them."""
        if self.master is None or self.returncode is not None:
            return
        if not self.inbox:
            try:
                n = os.write(self.master, data)
            except BlockingIOError:
                n = 0
            except OSError:
                return  # the child is going: what it did not read is of no use
            data = data[n:]
            if not data:
                return
            self.loop.add_writer(self.master, self._writable)
        self.inbox += data
        if len(self.inbox) > INPUT_MAX and not self.waiting:
            self.waiting = True
            self.full(True)

    def _writable(self) -> None:
        try:
            n = os.write(self.master, self.inbox) if self.master is not None else len(self.inbox)
        except BlockingIOError:
            return
        except OSError:
            n = len(self.inbox)
        del self.inbox[:n]
        if not self.inbox:
            if self.master is not None:
                self.loop.remove_writer(self.master)
            if self.waiting:
                self.waiting = False
                self.full(False)

    # -- its share of the processor ---------------------------------------------------------

    def hold_to(self, share: float) -> None:
        """From now on the child uses at most ``share`` of a core on average (CAP_BURST
        seconds of it at once): looked at every CAP_LOOK seconds, it is stopped while it
        is over, for as long as its debt takes to pay, then continued."""
        used = cpu_seconds(self.pid)
        if self.returncode is not None or used is None or self.cap is not None:
            return
        self.cap, self.cap_seen = Budget(share, share * CAP_BURST), used
        self.cap_handle = self.loop.call_later(CAP_LOOK, self._look_at_cap)

    def _look_at_cap(self) -> None:
        self.cap_handle = None
        used = cpu_seconds(self.pid)
        if self.cap is None or self.returncode is not None or used is None:
            return
        wait = self.cap.spend(used - self.cap_seen)
        self.cap_seen = used
        if wait > 0:
            if not self.stopped:
                self.stopped = True
                self._signal(signal.SIGSTOP)
            self.cap_handle = self.loop.call_later(wait, self._look_at_cap)
            return
        self._go_on()
        self.cap_handle = self.loop.call_later(CAP_LOOK, self._look_at_cap)

    def _go_on(self) -> None:
        if self.stopped:
            self.stopped = False
            self._signal(signal.SIGCONT)

    def _release_cap(self) -> None:
        """The cap ends (the child is ending): a stopped child is continued, so that it
        can take the signal that ends it and put its player's terminal back."""
        self.cap = None
        if self.cap_handle is not None:
            self.cap_handle.cancel()
            self.cap_handle = None
        self._go_on()

    # -- the end -------------------------------------------------------------------------

    def hang_up(self, keep_output: bool) -> None:
        """End the child: SIGHUP to its process group now, SIGKILL after GRACE seconds.
        ``keep_output``: its last words are still relayed (the client is there to read
        them); else the pty is closed at once, which hangs the terminal up as well.
        A child stopped by its cap is continued first: a stopped process would take its
        SIGHUP only when continued, and end by SIGKILL with its terminal as it was."""
        if self.returncode is not None:
            return
        if not keep_output:
            self._close_master()
        self._release_cap()
        self._signal(signal.SIGHUP)
        if self.kill_handle is None:
            self.kill_handle = self.loop.call_later(GRACE, self._signal, signal.SIGKILL)

    def _signal(self, sig: int) -> None:
        """``sig`` to the child's process group (it leads one: ``start_new_session``) and to
        the child itself, in case it left the group.  Only while it is not reaped: until
        then its id cannot be another process's."""
        if self.returncode is not None:
            return
        with contextlib.suppress(OSError):
            os.killpg(self.pid, sig)
        with contextlib.suppress(OSError):
            os.kill(self.pid, sig)

    def _poll(self) -> None:
        self.poll_handle = None
        if self.proc.poll() is None:
            self.poll_handle = self.loop.call_later(0.2, self._poll)
        else:
            self._ended()

    def _ended(self) -> None:
        """The child has ended.  What is left of its group is killed (its id is still
        held: it is not reaped yet, where pidfds tell), it is reaped, its last output
        relayed, and every descriptor closed."""
        if self.returncode is not None:
            return
        if self.proc.returncode is None:
            with contextlib.suppress(OSError):
                os.killpg(self.pid, signal.SIGKILL)
            self.proc.poll()
        if self.pidfd is not None:
            self.loop.remove_reader(self.pidfd)
            os.close(self.pidfd)
            self.pidfd = None
        if self.proc.returncode is None:  # woken, yet not reapable (it should not be): poll instead
            if self.poll_handle is None:
                self.poll_handle = self.loop.call_later(0.2, self._poll)
            return
        self.returncode = self.proc.returncode
        for handle in (self.kill_handle, self.poll_handle, self.throttle_handle, self.cap_handle):
            if handle is not None:
                handle.cancel()
        drained = 0
        while self.master is not None and drained < DRAIN_MAX:  # (relaying may close it)
            try:
                data = os.read(self.master, READ_SIZE)
            except OSError:  # EAGAIN: all read; EIO: the terminal is closed
                break
            if not data:
                break
            drained += len(data)
            self._relay(data)
        self._close_master()
        self.exited(self.returncode)

    def _close_master(self) -> None:
        if self.master is None:
            return
        self._read_off()
        if self.inbox:
            self.loop.remove_writer(self.master)
            self.inbox.clear()
        os.close(self.master)
        self.master = None


def child_environment(login: Login, extra: dict[str, str], home: str) -> dict[str, str]:
    """The child's whole environment: a small one, nothing of the server's (which may
    hold secrets, and whose paths are none of a stranger's business), and never the
    player's key: a system PATH, ``home`` (the session's own empty directory) as HOME
    and TMPDIR, the terminal, the locale the client sent (else C.UTF-8), and what the
    caller adds."""
    env = {
        "PATH": os.defpath,
        "HOME": home,
        "TMPDIR": home,
        "TERM": login.term,
    }
    locale = {k: v for k, v in login.env.items() if k == "LANG" or k.startswith("LC_")}
    env.update(locale or {"LANG": "C.UTF-8"})
    for key in ("COLORTERM", "NO_COLOR"):
        if key in login.env:
            env[key] = login.env[key]
    env.update(extra)
    return env


def client_environment(sent: Any) -> dict[str, str]:
    """Of what the client sent, what a child may have: COLORTERM, NO_COLOR, LANG and
    LC_*, each with a value that looks like one (a locale name; a colour word)."""
    kept: dict[str, str] = {}
    for key, value in dict(sent).items():
        if not isinstance(key, str) or not isinstance(value, str):
            continue
        if key == "LANG" or _LC.match(key):
            if _LOCALE.match(value):
                kept[key] = value
        elif key in ("COLORTERM", "NO_COLOR") and len(value) <= 64 and value.isprintable():
            kept[key] = value
    return kept


def lowest_priority(pid: int) -> None:
    """Process ``pid``, which leads its own session, runs on what the others leave: nice 19
    for every thread of its process group and, where Linux groups the scheduling of each
    session (autogroups, on by default), for its session's group too: there, the nice of
    a task counts only against the tasks of its own session, and each session's group
    competes with the others by its own nice."""
    with contextlib.suppress(OSError):
        os.setpriority(os.PRIO_PGRP, pid, LOWEST_PRIORITY)
    with contextlib.suppress(OSError), open(f"/proc/{pid}/autogroup", "w") as f:
        f.write(str(LOWEST_PRIORITY))


def cpu_seconds(pid: int) -> float | None:
    """The CPU time process ``pid`` has used, all its threads (None: it is gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def terminal_name(term: str | None) -> str:
    return term if term and _TERM.match(term) else DEFAULT_TERM


def peer_address(conn: asyncssh.SSHServerConnection) -> str:
    peer = conn.get_extra_info("peername")
    host = str(peer[0]) if isinstance(peer, tuple) and peer else "?"
    return host.removeprefix("::ffff:") if "." in host else host


class TerminalModes:
    """What a program has changed of its terminal and not put back, read from what it
    writes: the private modes a full-screen app sets (the other screen, the mouse, the
    cursor hidden, bracketed paste, focus reports...) and the kitty keyboard protocol.
    ``restore()`` puts back what is left; for a program that ended well, nothing."""

    #: the private modes watched, and their value at rest (True: set, as the cursor shown)
    AT_REST: ClassVar[Mapping[int, bool]] = {
        25: True, 7: True, 1000: False, 1002: False, 1003: False, 1004: False, 1005: False, 1006: False,
        1015: False, 1016: False, 2004: False, 2048: False, 1047: False, 1049: False, 47: False}  # fmt: skip
    _MODES = re.compile(rb"\x1b\[\?([0-9;]{1,40})([hl])")
    _KITTY = re.compile(rb"\x1b\[([<>])[0-9]{0,5}u")
    TAIL = 48  # bytes of a sequence cut between two reads, kept to be read with the next

    def __init__(self) -> None:
        self.changed: dict[int, bool] = {}  # mode: its value now, where it is not the one at rest
        self.kitty = False  # a keyboard mode pushed and not popped
        self.tail = b""

    def feed(self, data: bytes) -> None:
        text = self.tail + data
        # a sequence begun and not finished: its start read again with what follows (one read
        # twice is harmless: setting a mode is the same once or twice)
        escape = text.rfind(b"\x1b", max(0, len(text) - self.TAIL))
        self.tail = text[escape:] if escape >= 0 else b""
        if b"\x1b[" not in text:
            return
        for found in self._MODES.finditer(text):
            on = found.group(2) == b"h"
            for number in found.group(1).split(b";"):
                mode = int(number) if number.isdigit() else -1
                if mode in self.AT_REST:
                    if on == self.AT_REST[mode]:
                        self.changed.pop(mode, None)
                    else:
                        self.changed[mode] = on
        for found in self._KITTY.finditer(text):
            self.kitty = found.group(1) == b">"

    def restore(self) -> bytes:
        """The sequences that put the terminal back (the other screen left last, so
        that what is reset is the player's own screen's state)."""
        out = [b"\x1b[<u"] if self.kitty else []
        screens = [m for m in (1049, 1047, 47) if m in self.changed]
        for mode, on in sorted(self.changed.items()):
            if mode not in screens:
                out.append(b"\x1b[?%d%s" % (mode, b"h" if not on else b"l"))
        if out or screens:
            out.append(b"\x1b[0m")
        out += [b"\x1b[?%dl" % m for m in screens]
        return b"".join(out)


class _CreditedChannel(asyncssh.SSHServerChannel):  # type: ignore[type-arg]
    """asyncssh's server channel, with the receive window given back for what has been
    delivered only.

    asyncssh opens the window back to its full size whenever it falls below half,
    counting what it has received, not what it still holds while the session has paused
    reading: each packet let through a paused channel (the keys of a flood, one budget's
    worth at a time) allowed the client a whole new window, and what the server held for
    it grew without end (a minute's flood cost the server 40 MB that it never gave back).
    Here the client may have at most the window, held and in flight together, as OpenSSH
    and Apache MINA SSHD (its pull request 292) count it.  The channel is bytes both ways
    (``encoding=None``): nothing to decode."""

    def _deliver_data(self, data: bytes, datatype: Any) -> None:
        held = sum(len(chunk) for chunk, _ in self._recv_buf)
        credit = self._init_recv_window - held - self._recv_window
        if credit >= self._init_recv_window // 2:
            self.send_packet(MSG_CHANNEL_WINDOW_ADJUST, UInt32(credit))
            self._recv_window += credit
        if self._session is not None:
            self._session.data_received(data, datatype)


# -- one connection ----------------------------------------------------------------------------


class _Door(asyncssh.SSHServer):
    """One SSH connection: who it is, and its sessions."""

    def __init__(self, front: SSHFront) -> None:
        self.front = front
        self.conn: asyncssh.SSHServerConnection | None = None
        self.address = "?"
        self.port = 22
        self.name = ""  # the user name asked for
        self.player = ""  # the name as first claimed, once logged in
        self.key: str | None = None  # the fingerprint of the key last found acceptable
        self.logged_in = False
        #: sessions opened while the name was still being claimed: started once it is
        self.after_login: list[Callable[[], None]] = []
        self.gone = False
        self.told: set[str] = set()  # banners sent already
        #: why keys were refused, told only if the login fails (a later key may be accepted)
        self.refusals: dict[str, tuple[str, str]] = {}
        self.refusals_told = False
        self.sessions: set[_Session] = set()  # channels open
        self.live = 0  # of them, with a child
        self.timer: asyncio.TimerHandle | None = None

    def __repr__(self) -> str:
        return f"{shown(self.name) or '(no name yet)'} from {self.address}"

    def progress(self) -> int:
        """How far its login has got: 0 connected, 1 the client said its version, 2 it
        asked to log in (the key exchange done), 3 it offered a key this server takes."""
        if self.key is not None:
            return 3
        if self.name:
            return 2
        if self.conn is not None and self.conn.get_extra_info("client_version"):
            return 1
        return 0

    def broken(self, where: str, exc: Exception) -> None:
        self.front.refused(
            f"Internal error in {where} for {self!r}: {exc!r}; the connection is closed.",
            ("internal error", "internal errors"),
        )
        self.end()

    def end(self, reason: str | None = None) -> None:
        """Close the connection, with ``reason`` for the client to read, or at once."""
        if self.conn is None or self.gone:
            return
        self.gone = True
        if reason is None:
            self.conn.abort()
        else:
            self.conn.disconnect(asyncssh.DISC_BY_APPLICATION, reason)

    # -- the connection comes and goes ------------------------------------------------------

    @guarded()
    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.conn = conn
        self.address = peer_address(conn)
        sock = conn.get_extra_info("sockname")
        if isinstance(sock, tuple) and len(sock) > 1:
            self.port = sock[1]
        self.front.arrived(self)
        self.timer = asyncio.get_running_loop().call_later(self.front.limits.login_timeout, self.login_expired)

    @guarded()
    def connection_lost(self, exc: Exception | None) -> None:
        self.gone = True
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        was_pending = self.front.left(self)
        if not self.logged_in:
            self.log_refusals()  # a client that does not ask keyboard-interactive: never told
        if was_pending and exc is not None:
            self.front.refused(
                f"Lost {self!r} before it logged in: {shown(str(exc), 80)}",
                ("connection lost before login", "connections lost before login"),
            )

    @guarded()
    def login_expired(self) -> None:
        self.timer = None
        if not self.logged_in:
            sentence = f"No login within {span(self.front.limits.login_timeout)}: the connection is closed."
            self.front.refused(f"Closed {self!r}: {sentence}", ("login timed out", "logins timed out"))
            self.end(sentence)

    # -- authentication: public keys, nothing else ------------------------------------------

    @guarded(True)
    def begin_auth(self, username: str) -> bool:
        self.name = username
        why = valid_name(username)
        if why is not None:
            self.refuse_login(why, ("login refused: a name that cannot be", "logins refused: names that cannot be"))
        return True  # authentication is always required

    def public_key_auth_supported(self) -> bool:
        return True

    def password_auth_supported(self) -> bool:
        return False

    def kbdint_auth_supported(self) -> bool:
        """Offered once keys have been refused, and until their refusal is told: a client
        tries keyboard-interactive when none of its keys got it in, and then (only then) it
        is told why, as the challenge's instruction, with nothing to answer."""
        return bool(self.refusals) and not self.refusals_told

    @guarded(False)
    def get_kbdint_challenge(
        self, username: str, lang: str, submethods: str
    ) -> tuple[str, str, str, list[tuple[str, bool]]] | bool:
        if not self.refusals:
            return False
        self.log_refusals()
        return "", "".join(sentence + "\r\n" for sentence in self.refusals), "", []

    def validate_kbdint_response(self, username: str, responses: Any) -> bool:
        return False  # nothing was asked: keyboard-interactive only ever tells why not

    def log_refusals(self) -> None:
        if not self.refusals_told:
            self.refusals_told = True
            for sentence, kind in self.refusals.items():
                self.front.refused(f"Refused {self!r}: {sentence}", kind)

    def host_based_auth_supported(self) -> bool:
        return False

    @guarded_async(False)
    async def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        """May this key log in as ``username``?  Asked once for each key the client
        offers, and once more with the signature: the name is claimed only when the
        login succeeds (``auth_completed``), not for a key merely offered.  The keeper of
        names is asked off the event loop (it may wait on a database)."""
        front = self.front
        if valid_name(username) is not None:
            return False  # told at begin_auth
        if front.allow is not None and not front.allow.admits(key, self.address):
            self.refusals.setdefault(
                NOT_LISTED, ("login refused: a key not on the list", "logins refused: keys not on the list")
            )
            return False
        fingerprint = key.get_fingerprint("sha256")
        why = await front.ask_names(username, fingerprint, False)
        if why is not None:
            self.refusals.setdefault(
                why, ("login refused: a name held by another key", "logins refused: names held by other keys")
            )
            return False
        self.key = fingerprint
        return True

    def refuse_login(self, sentence: str, kind: tuple[str, str]) -> None:
        """A banner the client shows before its "Permission denied", once a connection:
        for a login that cannot succeed whatever the key (a name that cannot be)."""
        if sentence in self.told:
            return
        self.told.add(sentence)
        assert self.conn is not None
        with contextlib.suppress(OSError):
            self.conn.send_auth_banner(sentence + "\r\n")
        self.front.refused(f"Refused {self!r}: {sentence}", kind)

    @guarded_async()
    async def auth_completed(self) -> None:
        """The name claimed (off the event loop: asyncssh opens no session before this returns)."""
        front = self.front
        why = (
            "Cabinet takes public keys only." if self.key is None else await front.ask_names(self.name, self.key, True)
        )
        if self.gone:
            return  # the connection went while the name was claimed
        if why is not None:  # the name was claimed by another key meanwhile
            front.refused(
                f"Refused {self!r}: {why}",
                ("login refused: a name held by another key", "logins refused: names held by other keys"),
            )
            self.end(why)
            return
        self.logged_in = True
        self.refusals.clear()  # another key got in: the ones refused before are nobody's business
        self.player = front.names().spelling(self.name)
        front.logged_in(self)
        self.wait_for_session()
        waiting, self.after_login = self.after_login, []
        for start in waiting:
            start()

    def wait_for_session(self) -> None:
        """A connection with no terminal session running gets ``login_timeout`` seconds to
        open one (``ssh -N`` would hold its place for ever)."""
        if self.timer is not None:
            self.timer.cancel()
        self.timer = asyncio.get_running_loop().call_later(self.front.limits.login_timeout, self.no_session)

    @guarded()
    def no_session(self) -> None:
        self.timer = None
        if self.live == 0:
            self.front.refused(
                f"Closed {self!r}: it opened no terminal session.",
                ("connection closed without a session", "connections closed without a session"),
            )
            self.end(NO_TERMINAL)

    # -- what it asks for -------------------------------------------------------------------

    @guarded(False)
    def session_requested(self) -> tuple[asyncssh.SSHServerChannel, _Session] | bool:  # type: ignore[type-arg]
        limit = self.front.limits.sessions_per_key
        if len(self.sessions) >= limit:  # channels, with a child or not yet
            self.front.refused(
                f"Refused a session to {self!r}: {per_key(limit)}",
                ("session refused by the per-key limit", "sessions refused by the per-key limit"),
            )
            raise asyncssh.ChannelOpenError(asyncssh.OPEN_ADMINISTRATIVELY_PROHIBITED, per_key(limit))
        session = _Session(self)
        self.sessions.add(session)
        assert self.conn is not None
        chan = self.conn.create_server_channel(window=INPUT_WINDOW)
        chan.__class__ = _CreditedChannel  # (asyncssh makes the channel; only its window credit changes)
        return chan, session

    def forwarding(self, what: str) -> None:
        self.front.refused(
            f"Refused {what} to {self!r}: Cabinet forwards nothing.", ("forwarding refused", "forwardings refused")
        )

    @guarded(False)
    def connection_requested(self, dest_host: str, dest_port: int, orig_host: str, orig_port: int) -> bool:
        self.forwarding(f"a connection forwarded to {shown(dest_host)} port {dest_port}")
        raise asyncssh.ChannelOpenError(asyncssh.OPEN_ADMINISTRATIVELY_PROHIBITED, NO_FORWARDING)

    @guarded(False)
    def server_requested(self, listen_host: str, listen_port: int) -> bool:
        self.forwarding(f"a port forwarded from {shown(listen_host)} port {listen_port}")
        return False

    @guarded(False)
    def unix_connection_requested(self, dest_path: str) -> bool:
        self.forwarding(f"a connection forwarded to the socket {shown(dest_path)}")
        raise asyncssh.ChannelOpenError(asyncssh.OPEN_ADMINISTRATIVELY_PROHIBITED, NO_FORWARDING)

    @guarded(False)
    def unix_server_requested(self, listen_path: str) -> bool:
        self.forwarding(f"a socket forwarded from {shown(listen_path)}")
        return False

    @guarded(False)
    def tun_requested(self, unit: int | None) -> bool:
        self.forwarding("a tunnel device")
        raise asyncssh.ChannelOpenError(asyncssh.OPEN_ADMINISTRATIVELY_PROHIBITED, NO_FORWARDING)

    @guarded(False)
    def tap_requested(self, unit: int | None) -> bool:
        self.forwarding("a tap device")
        raise asyncssh.ChannelOpenError(asyncssh.OPEN_ADMINISTRATIVELY_PROHIBITED, NO_FORWARDING)


# -- one session -------------------------------------------------------------------------------


class _Session(asyncssh.SSHServerSession):  # type: ignore[type-arg]
    """One channel: refused in a sentence, or a child in its terminal."""

    def __init__(self, door: _Door) -> None:
        self.door = door
        self.front = door.front
        self.chan: asyncssh.SSHServerChannel | None = None  # type: ignore[type-arg]
        self.term: str | None = None  # None: no pty asked for
        self.size = DEFAULT_SIZE
        self.modes: dict[int, int] = {}
        self.kind = ""  # "shell", "exec" or "subsystem"
        self.what = ""  # the command, or the subsystem
        self.child: PtyChild | None = None
        self.login: Login | None = None
        self.closed = False  # the channel is closed: nobody reads
        self.ending: str | None = None  # why the server ends it, told once the child is gone
        self.finished = False  # its end told the client (``finish``)
        self.last_key = time.monotonic()
        self.idle_handle: asyncio.TimerHandle | None = None
        self.home: str | None = None  # the child's own directory, removed when it has ended
        self.modes_left = TerminalModes()  # what the child has set of the player's terminal
        limits = self.front.limits
        self.typing = Budget(limits.input_rate, limits.input_burst)
        self.holds: set[str] = set()  # why the client's keys wait: "full" (the child does not read), "typing"
        self.given_size: tuple[int, int] | None = None  # the size the pty has
        self.resize_handle: asyncio.TimerHandle | None = None
        self.cpu = Budget(limits.cpu_rate, limits.cpu_burst)  # the child's CPU seconds
        self.cpu_seen = 0.0  # its CPU seconds when last looked at
        self.demoted = False  # at the lowest priority

    def __repr__(self) -> str:
        return repr(self.door)

    def broken(self, where: str, exc: Exception) -> None:
        self.front.refused(
            f"Internal error in {where} for {self!r}: {exc!r}; the session is closed.",
            ("internal error", "internal errors"),
        )
        if self.child is not None:
            self.child.hang_up(keep_output=False)
        elif self.chan is not None:
            with contextlib.suppress(Exception):
                self.chan.abort()

    # -- what the client asks for -----------------------------------------------------------

    @guarded()
    def connection_made(self, chan: asyncssh.SSHServerChannel) -> None:  # type: ignore[type-arg]
        self.chan = chan
        chan.set_write_buffer_limits(high=OUTPUT_HIGH)

    @guarded(False)
    def pty_requested(self, term_type: str, term_size: tuple[int, int, int, int], term_modes: Any) -> bool:
        self.term = terminal_name(term_type)
        self.size = terminal_size(term_size[0], term_size[1])
        self.modes = dict(term_modes)
        return True

    @guarded(False)
    def shell_requested(self) -> bool:
        self.kind = "shell"
        return True  # refused or started in session_started: a sentence needs the session open

    @guarded(False)
    def exec_requested(self, command: str) -> bool:
        self.kind, self.what = "exec", command
        return True

    @guarded(False)
    def subsystem_requested(self, subsystem: str) -> bool:
        self.kind, self.what = "subsystem", subsystem
        return True

    @guarded()
    def session_started(self) -> None:
        if not self.door.logged_in:
            # asyncssh opens sessions once the login succeeded, while the name is still
            # being claimed (``auth_completed``, off the loop): this one starts when it is
            self.door.after_login.append(self.session_started)
            return
        if self.kind == "exec":
            self.refuse(
                no_command(self.door.port), f"the command {shown(self.what)!r}", ("command refused", "commands refused")
            )
        elif self.kind == "subsystem":
            name = shown(self.what, 20)
            self.refuse(
                f"Cabinet offers no {name}: connect without -s.",
                f"the subsystem {name!r}",
                ("subsystem refused", "subsystems refused"),
            )
        elif self.term is None:
            self.refuse(
                NO_TERMINAL,
                "a session without a terminal",
                ("session refused: no terminal", "sessions refused: no terminal"),
            )
        else:
            self.front.open_session(self)

    def refuse(self, sentence: str, what: str, kind: tuple[str, str]) -> None:
        """The sentence on the client's stderr, exit status 1, and a line in the log."""
        self.front.refused(f"Refused {what} to {self!r}: {sentence}", kind)
        self.finish(1, sentence)

    def finish(self, status: int | str, sentence: str | None = None) -> None:
        """Tell the client the session's end (``sentence`` on its stderr, then the exit
        status, or the signal's name) and close the channel; if it does not read, the
        channel is dropped after CLOSE_LINGER seconds."""
        chan = self.chan
        if chan is None or self.closed or self.finished:
            return
        self.finished = True  # (told once: by the child's end, or by a server that stops first)
        try:
            # a child killed, or ended by the server, did not put the terminal back: the
            # player's shell would get mouse reports as keys, on the other screen, no cursor
            chan.write(self.modes_left.restore())
            if sentence:  # on a line of its own, after whatever the child left on the screen
                chan.write_stderr((("\r\n" if self.child is not None else "") + sentence + "\r\n").encode())
            if isinstance(status, str):
                chan.exit_with_signal(status)
            else:
                chan.exit(status)
        except OSError:
            chan.abort()
            return
        asyncio.get_running_loop().call_later(CLOSE_LINGER, self.drop)

    def drop(self) -> None:
        if not self.closed and self.chan is not None:
            with contextlib.suppress(Exception):
                self.chan.abort()

    # -- while the child runs -------------------------------------------------------------

    def output(self, data: bytes) -> None:
        if not self.closed and self.chan is not None:
            self.modes_left.feed(data)
            self.chan.write(data)

    @guarded()
    def data_received(self, data: bytes, datatype: Any) -> None:
        self.last_key = time.monotonic()
        if self.child is not None and datatype is None:
            self.child.write(data)
            wait = self.typing.spend(len(data))
            if wait > 0 and "typing" not in self.holds:  # a flood: slowed, never cut off
                self.hold("typing", True)
                asyncio.get_running_loop().call_later(wait, self.hold, "typing", False)

    def input_full(self, waiting: bool) -> None:
        """The child does not read what is typed: the client waits (the SSH window
        stays shut) until it has."""
        self.hold("full", waiting)

    def hold(self, why: str, on: bool) -> None:
        """The client's keys wait while any reason holds them (its SSH window stays shut)."""
        held = bool(self.holds)
        self.holds.add(why) if on else self.holds.discard(why)
        if self.chan is not None and not self.closed and held != bool(self.holds):
            with contextlib.suppress(Exception):
                self.chan.pause_reading() if self.holds else self.chan.resume_reading()

    @guarded(True)
    def eof_received(self) -> bool:
        return True  # nothing more will be typed; the child's output still goes

    @guarded()
    def terminal_size_changed(self, width: int, height: int, pixwidth: int, pixheight: int) -> None:
        self.size = terminal_size(width, height)
        if self.resize_handle is None:
            self.resize_now()

    def resize_now(self) -> None:
        """The pty takes the size last asked for, then none for RESIZE_EVERY seconds."""
        self.resize_handle = None
        if self.child is None or self.child.returncode is not None or self.size == self.given_size:
            return
        self.given_size = self.size
        self.child.resize(*self.size)
        self.resize_handle = asyncio.get_running_loop().call_later(RESIZE_EVERY, self.resize_now)

    @guarded()
    def pause_writing(self) -> None:
        if self.child is not None:
            self.child.pause()

    @guarded()
    def resume_writing(self) -> None:
        if self.child is not None:
            self.child.resume()

    def watch_idle(self) -> None:
        due = self.last_key + self.front.limits.idle - time.monotonic()
        self.idle_handle = asyncio.get_running_loop().call_later(max(0.0, due), self.idle_check)

    @guarded()
    def idle_check(self) -> None:
        self.idle_handle = None
        if self.child is None or self.child.returncode is not None:
            return
        if time.monotonic() - self.last_key >= self.front.limits.idle:
            self.front.refused(
                f"Closed the session of {self!r}: idle.",
                ("session closed for being idle", "sessions closed for being idle"),
            )
            self.end(idle_sentence(self.front.limits.idle, self.front.is_seated(self)))
        else:
            self.watch_idle()

    def end(self, sentence: str) -> None:
        """The server ends the session: the child is hung up, its last output still
        relayed, then ``sentence`` is told."""
        if self.child is None or self.child.returncode is not None:
            return
        if self.ending is None:
            self.ending = sentence
        self.child.hang_up(keep_output=not self.closed)

    @guarded()
    def child_exited(self, returncode: int) -> None:
        if self.idle_handle is not None:
            self.idle_handle.cancel()
            self.idle_handle = None
        self.front.over(self, returncode)
        if self.ending is not None:
            self.finish(1, self.ending)
        elif returncode >= 0:
            self.finish(returncode)
        else:  # the signal's name as RFC 4254 spells it: HUP, SEGV...
            self.finish(signal_name(-returncode).removeprefix("SIG"))

    @guarded()
    def connection_lost(self, exc: Exception | None) -> None:
        """The channel is closed: the client went, or the session finished."""
        self.closed = True
        self.door.sessions.discard(self)
        if self.child is not None and self.child.returncode is None:
            self.child.hang_up(keep_output=False)


# -- the front ---------------------------------------------------------------------------------


class SSHFront:
    """``cabinet serve``'s SSH server.  ``child(login)`` gives the argv and extra
    environment of each session's program; ``on_end(login)`` is told when a session
    that had one has ended (its child reaped), whatever the reason; ``seated(login)``
    says whether the player has a seat at a table in play (a session ended by the
    server tells them that their seats wait; a spectator is not told so).  All are
    called on the event loop, and must not block it; an exception out of any costs
    that session only (and is logged)."""

    def __init__(
        self,
        data_dir: Path,
        *,
        allow: Path | None,
        child: Callable[[Login], tuple[list[str], dict[str, str]]],
        on_end: Callable[[Login], None] | None = None,
        seated: Callable[[Login], bool] | None = None,
        limits: FrontLimits = FrontLimits(),
        log: Callable[[str], None] = print,
        identities: Identities | None = None,
        offloop: Offloop | None = None,
        warm: tuple[list[str], dict[str, str]] | None = None,
    ) -> None:
        self.data_dir = Path(data_dir)
        #: who holds which name: given (a store's, shared by its servers), else players.json in data_dir
        self.given_identities = identities
        #: the threads the keeper of names is asked in (given: the hall's), one question at a time
        self.offloop = offloop if offloop is not None else Offloop(threads=1)
        self.own_offloop = offloop is None
        self.naming: Lane = self.offloop.lane()
        self.allow_path = None if allow is None else Path(allow)
        self.child = child
        self.on_end = on_end
        self.seated = seated
        self.limits = limits
        self.log = log
        self.host_fingerprint = ""  # SHA256:... of the host key, once started
        self.identities: Identities | None = None
        self.allow: AllowList | None = None
        self.doors: set[_Door] = set()
        self.pending: dict[_Door, None] = {}  # not logged in yet, oldest first
        self.pending_by_address: Counter[str] = Counter()
        self.live: set[_Session] = set()  # sessions with a child running
        self.live_by_key: Counter[str] = Counter()
        self.acceptors: list[asyncssh.SSHAcceptor] = []
        self.tally: Tally | None = None
        self.stopping = False
        self.quiet = asyncio.Event()  # no child running
        self.quiet.set()
        #: where each session's program has a directory of its own (HOME, TMPDIR and the
        #: working directory: nothing of the operator's), made at start, removed at close
        self.homes: str | None = None
        #: the program of a warm parent that forks each session's (net.zygote), with what it
        #: adds to the small environment every session has; None: each is started afresh
        self.warm = warm
        self.warm_parent: WarmParent | None = None
        self.listening: list[tuple[int, str]] = []  # the family and address of each socket listened on
        self.cpu_handle: asyncio.TimerHandle | None = None  # the next look at the sessions' CPU

    @property
    def sessions(self) -> int:
        """Sessions open now: those with a child running."""
        return len(self.live)

    async def start(self, host: str, port: int) -> tuple[str, int]:
        """Listen on ``host`` (every address it names) and ``port`` (0: any free one);
        the host and the port bound.  Raises OSError (its ``strerror`` a sentence's
        end) when it cannot: the port is taken, a file in the data directory is not
        what it should be."""
        self.tally = Tally(self.log, burst=REFUSALS_LOGGED)
        key = load_or_make_host_key(self.data_dir / HOST_KEY, self.log)
        self.homes = tempfile.mkdtemp(prefix="cabinet-sessions-")  # mode 0700
        if self.warm is not None:
            self.start_warm_parent(*self.warm)
        if os.path.exists(f"/proc/{os.getpid()}/stat"):  # (elsewhere no session is watched)
            self.cpu_handle = asyncio.get_running_loop().call_later(CPU_LOOK, self.watch_cpu)
        self.host_fingerprint = key.get_fingerprint("sha256")
        self.identities = self.given_identities or FileIdentities(self.data_dir / PLAYERS)
        if self.allow_path is not None:
            self.allow = AllowList(self.allow_path, self.log)
        options = asyncssh.SSHServerConnectionOptions(
            server_factory=lambda: _Door(self),
            server_host_keys=[key],
            server_version="Cabinet",
            encoding=None,  # bytes both ways: the child's terminal output is not ours to decode
            line_editor=False,
            public_key_auth=True,
            password_auth=False,
            kbdint_auth=True,  # only to say why a login failed: see _Door.kbdint_auth_supported
            host_based_auth=False,
            gss_host=None,  # no GSS key exchange or authentication
            x11_forwarding=False,
            agent_forwarding=False,
            allow_scp=False,
            login_timeout=self.limits.login_timeout + LOGIN_SLACK,
            keepalive_interval=KEEPALIVE[0],
            keepalive_count_max=KEEPALIVE[1],
            kex_algs=KEX_ALGS,
        )
        sockets = await bind_tcp(host, port)
        self.listening = [(sock.family, sock.getsockname()[0]) for sock in sockets]
        try:
            for sock in sockets:
                self.acceptors.append(await asyncssh.listen(sock=sock, options=options))
        except BaseException:
            for acceptor in self.acceptors:
                acceptor.close()
            for sock in sockets:
                sock.close()
            raise
        return host, sockets[0].getsockname()[1]

    def listening_on(self) -> list[tuple[int, str]]:
        """The family and address of each TCP socket listened on."""
        return list(self.listening)

    async def close(self) -> None:
        """Stop listening, end every session (each player told why), kill and reap
        every child, close every connection."""
        self.stopping = True
        if self.cpu_handle is not None:
            self.cpu_handle.cancel()
            self.cpu_handle = None
        for acceptor in self.acceptors:
            acceptor.close()
        for session in list(self.live):
            with contextlib.suppress(Exception):
                session.end(stopping(self.is_seated(session)))
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self.quiet.wait(), GRACE + 2.0)
        # a child not reaped yet (a machine under load): its player is told all the same, before
        # the connection closes (else only the disconnect's short reason reached them)
        for session in list(self.live):
            with contextlib.suppress(Exception):
                session.finish(1, session.ending)
        # the players' last words and exit statuses reach them before the connections close
        channels = [s.chan.wait_closed() for d in self.doors for s in d.sessions if s.chan is not None]
        if channels:
            await asyncio.wait([asyncio.ensure_future(c) for c in channels], timeout=STOP_LINGER)
        doors = list(self.doors)
        for door in doors:
            with contextlib.suppress(Exception):  # one gone meanwhile
                door.end(STOPPING if door.logged_in else None)  # (sessions were told their own)
        waits = [door.conn.wait_closed() for door in doors if door.conn is not None]
        if waits:
            await asyncio.wait([asyncio.ensure_future(w) for w in waits], timeout=2.0)
        for acceptor in self.acceptors:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(acceptor.wait_closed(), 2.0)
        self.acceptors = []
        if self.warm_parent is not None:
            self.warm_parent.close()
            self.warm_parent = None
        if self.homes is not None:
            shutil.rmtree(self.homes, ignore_errors=True)
            self.homes = None
        if self.tally is not None:
            self.tally.close()
        if self.own_offloop:
            await self.offloop.close()

    # -- names ---------------------------------------------------------------------------

    def names(self) -> Identities:
        """Who holds which name (once started)."""
        assert self.identities is not None, "the front is not started"
        return self.identities

    async def ask_names(self, name: str, key: str, claim: bool) -> str | None:
        """The keeper of names' answer (``Identities.check``), asked in a thread, one
        question at a time: a login waiting on a disk or a database holds up no session."""
        return await self.naming.call(functools.partial(self.names().check, name, key, claim=claim))

    # -- connections ----------------------------------------------------------------------

    def arrived(self, door: _Door) -> None:
        """A new connection: room is made for it among those not logged in yet."""
        if self.stopping:
            door.end()
            return
        self.doors.add(door)
        if self.pending_by_address[door.address] >= PENDING_PER_ADDRESS:
            self.drop(
                self.weakest([d for d in self.pending if d.address == door.address]),
                f"{PENDING_PER_ADDRESS} at most from one address",
            )
        if len(self.pending) >= PENDING_MAX:
            self.drop(self.weakest(list(self.pending)), f"{PENDING_MAX} at most")
        self.pending[door] = None
        self.pending_by_address[door.address] += 1

    def weakest(self, doors: list[_Door]) -> _Door:
        """Of connections not logged in yet, the one to drop to make room: one of the
        address that holds the most of them (each address its fair share: many addresses
        holding a few each cannot crowd out one holding one), and of those, the one that
        has got least far (a connection held open and silent never gets past the start,
        while an honest client's handshake is under way within a millisecond), then the
        oldest."""
        order = {door: i for i, door in enumerate(self.pending)}
        return min(doors, key=lambda d: (-self.pending_by_address[d.address], d.progress(), order.get(d, 0)))

    def drop(self, door: _Door, why: str) -> None:
        self.unpend(door)
        self.refused(
            f"Dropped {door!r}, not logged in yet, to make room ({why} wait to log in).",
            ("connection dropped to make room", "connections dropped to make room"),
        )
        door.end()

    def unpend(self, door: _Door) -> bool:
        if door not in self.pending:
            return False
        del self.pending[door]
        self.pending_by_address[door.address] -= 1
        if self.pending_by_address[door.address] <= 0:
            del self.pending_by_address[door.address]
        return True

    def logged_in(self, door: _Door) -> None:
        self.unpend(door)
        self.log(f"{door.player} logged in from {door.address} ({door.key}).")

    def left(self, door: _Door) -> bool:
        """A connection is closed; was it still waiting to log in?"""
        self.doors.discard(door)
        return self.unpend(door)

    def refused(self, line: str, kind: tuple[str, str]) -> None:
        """Something refused: a line in the log, or counted in a crowd (``Tally``)."""
        if self.tally is not None:
            self.tally.note(line, kind)
        else:
            self.log(line)

    # -- sessions -------------------------------------------------------------------------

    def open_session(self, session: _Session) -> None:
        """A terminal session asked for: within the limits, its child is started."""
        door = session.door
        limits = self.limits
        assert door.key is not None and session.term is not None
        if self.stopping:
            session.refuse(STOPPING, "a session", ("session refused: stopping", "sessions refused: stopping"))
            return
        if self.live_by_key[door.key] >= limits.sessions_per_key:
            session.refuse(
                per_key(limits.sessions_per_key),
                "a session",
                ("session refused by the per-key limit", "sessions refused by the per-key limit"),
            )
            return
        if len(self.live) >= limits.sessions:
            session.refuse(
                FULL, "a session", ("session refused: the server was full", "sessions refused: the server was full")
            )
            return
        assert session.chan is not None
        login = Login(
            name=door.player,
            key=door.key,
            term=session.term,
            env=client_environment(session.chan.get_environment()),
            size=session.size,
        )
        try:
            assert self.homes is not None
            session.home = tempfile.mkdtemp(dir=self.homes, prefix="session-")
            argv, extra = self.child(login)
            env = child_environment(login, dict(extra), session.home)
            child = PtyChild(
                argv,
                env,
                session.size,
                session.modes,
                session.output,
                session.child_exited,
                session.input_full,
                home=session.home,
                spawn=self.warm_parent.spawn if self.warm_parent is not None else None,
            )
        except Exception as exc:  # noqa: BLE001 - the caller's function, the system: this session only
            self.log(f"Could not start a session for {session!r}: {exc!r}")
            self.clear_home(session)
            session.finish(1, NO_START)
            return
        session.child, session.login = child, login
        session.given_size = session.size
        self.live.add(session)
        self.live_by_key[door.key] += 1
        self.quiet.clear()
        door.live += 1
        if door.timer is not None:
            door.timer.cancel()
            door.timer = None
        session.watch_idle()
        self.log(
            f"{login.name} from {door.address}: session started ({login.size[0]}x{login.size[1]} {login.term}, "
            f"{'forked' if child.forked else 'afresh'}, pid {child.pid})."
        )

    def start_warm_parent(self, argv: list[str], extra: dict[str, str]) -> None:
        """The warm parent that forks the sessions' programs: a process started as a session's
        would be (a private empty directory, nothing of the server's environment), once."""
        assert self.homes is not None
        home = tempfile.mkdtemp(dir=self.homes, prefix="warm-")
        env = {"PATH": os.defpath, "HOME": home, "TMPDIR": home, "LANG": "C.UTF-8", **extra}
        self.warm_parent = WarmParent(argv, env, home, self.log)
        if not self.warm_parent.start():
            self.warm_parent = None

    def watch_cpu(self) -> None:
        """Every CPU_LOOK seconds: a session's program that has spent its CPU budget runs at
        the lowest priority from then on (a process may lower its children's priority, not
        raise it again), held to DEMOTED_SHARE of a core, so that on a busy machine the
        others' screens go first."""
        self.cpu_handle = asyncio.get_running_loop().call_later(CPU_LOOK, self.watch_cpu)
        for session in list(self.live):
            child = session.child
            if child is None or session.demoted:
                continue
            used = cpu_seconds(child.pid)
            if used is None:
                continue
            if session.cpu.spend(used - session.cpu_seen) > 0:
                session.demoted = True
                lowest_priority(child.pid)
                child.hold_to(self.limits.demoted_share)
                session.typing = Budget(session.typing.rate / DEMOTED_PACE, session.typing.burst / DEMOTED_PACE)
                child.budget = Budget(child.budget.rate / DEMOTED_PACE, child.budget.burst / DEMOTED_PACE)
                self.log(
                    f"{session!r}: its session kept a core busy ({used:.0f} s of CPU); it runs at the lowest priority now, on {self.limits.demoted_share:.0%} of a core at most, its keys and screen paced {DEMOTED_PACE} times slower."
                )
            session.cpu_seen = used

    def is_seated(self, session: _Session) -> bool:
        if self.seated is None or session.login is None:
            return False
        try:
            return self.seated(session.login)
        except Exception as exc:  # noqa: BLE001 - the caller's: the goodbye says less, nothing worse
            self.log(f"seated failed for {session!r}: {exc!r}")
            return False

    def clear_home(self, session: _Session) -> None:
        """The session's directory goes with it, and whatever its program left there."""
        if session.home is not None:
            shutil.rmtree(session.home, ignore_errors=True)
            session.home = None

    def over(self, session: _Session, returncode: int) -> None:
        """A session's child has ended and is reaped."""
        door = session.door
        if session not in self.live:
            return
        self.live.discard(session)
        self.clear_home(session)
        key = door.key or ""
        self.live_by_key[key] -= 1
        if self.live_by_key[key] <= 0:
            del self.live_by_key[key]
        if not self.live:
            self.quiet.set()
        door.live -= 1
        if door.live == 0 and not door.gone:
            door.wait_for_session()
        how = f"exit status {returncode}" if returncode >= 0 else f"killed by {signal_name(-returncode)}"
        if session.ending:  # ended by the server (idle, stopping...): what its player was told
            self.log(f"{door.player} from {door.address}: session ended by the server ({how}); told: {session.ending}")
        elif session.closed and returncode == -signal.SIGHUP:  # the client went: its program hung up, as ever
            self.log(f"{door.player} from {door.address}: session ended: the connection closed (its program hung up).")
        else:
            self.log(f"{door.player} from {door.address}: session ended ({how}).")
        if self.on_end is not None and session.login is not None:
            try:
                self.on_end(session.login)
            except Exception as exc:  # noqa: BLE001 - the caller's: it costs nobody's session
                self.log(f"on_end failed for {session!r}: {exc!r}")
