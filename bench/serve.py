"""Cabinet's benchmarks of `cabinet serve` (net/ssh.py, net/hall.py): the real server
as a subprocess, reached by the real OpenSSH client in pseudo-terminals.

    /work/main/.venv/bin/python bench/serve.py            (from the repo root; 22 to 27 minutes)
    /work/main/.venv/bin/python bench/serve.py --quick    (shorter windows; about 11 minutes)
    /work/main/.venv/bin/python bench/serve.py --figures 1   (only the start-up: about 1 minute)
    /work/main/.venv/bin/python bench/serve.py --figures 4   (only the hostile session: about 10 minutes)
    /work/main/.venv/bin/python bench/serve.py --figures 5   (memory, forked against afresh: about 10 minutes)

1. From `ssh` to the lobby's first frame, against the local `cabinet` to its main
   menu (and, alternated with them, the same `ssh` to a server started with --no-fork,
   whose sessions' apps are exec'd afresh, as before issue 35).  Each side is a fresh process in a pty of 80x24 that this script reads:
   the local side is the `cabinet` console script next to this Python, its saves
   in a temporary directory; the SSH side is `ssh -tt NAME@127.0.0.1` to a
   `cabinet serve` started once for the whole figure.  The time runs from the
   spawn to the read that completes the first frame (Textual's synchronized
   output: this terminal says it has it) in which the menu's text ("Join a hosted
   game"), or the lobby's first line ("Cabinet · NAME ·"), is on the screen.
   Then q ends the program and the next one starts once it has gone.  The two
   sides alternate (A B, B A...); the figure is the ratio of the medians.  Both
   sides have a bytecode cache (see the docs: the session's app gets the small
   environment the SSH front makes, never the server's, so it writes its .pyc
   beside the sources; the local side is given PYTHONPYCACHEPREFIX as in
   bench/run.py).  Where the SSH side's time goes: the server's log lines
   ("logged in", "session started") and the first byte either program writes
   mark the handshake, the spawn and the imports.  Beside it, what starting a session's program costs
   the server's event loop: the warm parent's fork (its answer waited for) against
   subprocess.Popen as the exec path calls it, alternated, each running /bin/true.
2. 50 SSH sessions, 25 tables of Ministères for 2, both seats human, made by keys
   through the lobby and the New table form (a wave of 5 tables at a time).  Each
   table moves every 1 to 2 s (uniform, staggered): the seat whose screen says
   "your move." presses Enter, which takes the first choice of the list (in
   Ministères the player to move always has one: every choice listed is legal).
   The round trip runs from that key press to the read that completes the first
   frame drawn on the other seat's pty after it.  The figure is the 95th
   percentile, an absolute time: goal under 150 ms.  Memory: the sum of the PSS
   (/proc/PID/smaps_rollup) of the server and of its session children, over the
   sessions; the RSS of one child.  Then the tables play on at that pace until
   every one of them is in its auctions (its screens say "Enchères"; 10 minutes at
   most), where a move costs a screen more (a list of bids, a move that always
   passes the turn): the same figure there, at that pace, then at a bidder's pace
   (--auction-pace, 3 to 6 s), in a window twice as long.
3. The same load with 10 more tables of "You" against "Bot: hard" (the server
   runs with --bot-delay 0, and at those tables the player answers at a player's
   pace, --bot-pace, by default the human tables' own): ten hard bots' searches
   (0.2 to 0.4 s each on a free core) keep the hall's bot workers thinking nearly
   all the time: the human tables' p95 with the bots busy, against the same load
   with them idle, in windows that alternate (idle, busy, idle, busy...); the
   human tables move at --fig3-pace meanwhile (by default --pace).  Goal:
   the same p95, under 150 ms.  With --bot-pace 0,0 the players at the bots'
   tables answer at once: their ten screens then redraw as fast as the bots
   move, a load of screens that is not the bots' thinking.
4. One hostile session beside 20 honest ones (issue 31): a server of its own, 10
   tables of Ministères for 2, both seats human, made by keys as in figure 2 (the
   cheapest honest round trips: a table is two sessions that time each other),
   moving at figure 2's pace (--pace) and played on until every table is in its
   auctions (where every move passes the turn; --quick does not wait).  Then
   windows of 45 s without and with the hostile session, alternated (without,
   with, without, with...: 3 of each; --quick 2 of each, 20 s), each after 6 s in
   which the hostile session starts (a pause as long in the windows without it).
   The hostile session is `ssh -tt` in a pty whose size is 65535x65535 (set at the
   spawn, read back from the pty: ssh sends it in its pty request; the server takes
   it as SIZE_MAX, 400x200, as its log line "session started (400x200 ..." and the
   farthest cursor position drawn show).  It reads all it is sent as fast as it
   comes (counting it and throwing it away), answers the question about
   synchronized output (its frames are counted), and then writes keys into ssh
   non-stop, as many as ssh takes: 'h' (a table's history), Up/Down ten times,
   Down twice, Tab and Enter (in the lobby: open the table under the cursor, to
   watch it), round and round.  It is killed (its ssh) at the end of its window,
   and the next window waits for its session's program to be gone.
   The figure: the honest moves' round trip (as figure 2's: the key to the first
   frame of the other seat whose status says "your move."), p95 of all the windows
   with it against all those without; goal 1.2x.  Stated beside it: the hostile
   program's memory (/proc of the session child, found by the pid the log line
   gives: its peak RSS, VmHWM, and the peak of its PSS and VmData, looked at every
   0.5 s from its start), its CPU, the bytes a second it was sent (what its pty
   read), the keys a second the server passed on (what its program read with
   read(2), /proc/PID/io rchar: its terminal, and any file it read meanwhile; the
   hall's socket is read with recv(2), not counted) and those ssh took from its
   terminal, and the server's own RSS over the window (what the channel took and
   did not pass on waits there); and what the honest programs and the server
   waited for a core (the run queue, /proc/PID/task/TID/schedstat).
5. Memory a session (issue 35): 50 SSH sessions (--tables pairs) logged in, waves of 10,
   idle in the lobby for MEM_SETTLE s: the sum of the PSS of the sessions' programs and
   of the warm parent that forked them (it holds the pages they share), over the sessions;
   then (those sessions ended) 50 new ones at 25 tables of Ministères for 2, made by keys
   as in figure 2, played for MEM_PLAY s at figure 2's pace, and read again.  The server's own PSS is
   stated beside it (S2m counts it in).  Four servers one after the other (MEM_ROUNDS;
   --quick: the first two): sessions forked from the warm parent as the server's default
   has them (the kernel asked to merge their pages alike, KSM), the same with --no-ksm, then
   with --no-fork (each session's program exec'd afresh, as before issue 35), then the
   default again.  Where the machine's KSM runs (/sys/kernel/mm/ksm/run: the
   administrator's; the bench changes none of its settings), the memory of a server that
   asked for it is read once KSM's full scans merge no more (two at least: a page is merged
   in its second; the players at their tables, thinking, meanwhile), and ksmd's CPU over the
   wait is given.  Goal: 12 MiB idle in the lobby, 16 at a table.
   Figure 1 is measured with the warm parent (the server's default), once it is ready.

All the ssh clients and their ptys are this process's (one asyncio loop); the
server is its own process tree.  Everything started is ended on the way out, on
an error too.  Benchmarks are run on demand; nothing here is part of the test
run.  See docs/PERFORMANCE.md.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import fcntl
import os
import random
import re
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import ptyprocess
import pyte

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.net import machine as host_machine  # noqa: E402
from bench.net import med, pct, tree  # noqa: E402
from tests.terminal import SYNC_END, draw_whole_frames  # noqa: E402

CABINET = Path(sys.executable).parent / "cabinet"  # the console script, as a player starts it
GOAL_START = 1.0  # figure 1: x the local start (issue 35; it was 1.5 before the warm parent)
GOAL_RT = 0.150  # s: figures 2 and 3, the 95th percentile of a move's round trip
ROWS, COLS = 24, 80
GAME = "Ministères"
WAIT = 30.0  # s: one thing taking this long is a hang, not a measurement
KEY_GAP = 0.06  # s between two keys while setting up (as tests/terminal.py)

SYNC_QUERY = b"\x1b[?2026$p"
SYNC_REPLY = b"\x1b[?2026;2$y"
#: what the status line of a table says (screens/play.py, table/seat.py), found in the bytes as they come:
#: each frame that draws that line draws it whole, in one style
STATUS = {b"your move.": "mine", b"Waiting for ": "wait", b"Game over": "over"}
MARKS = re.compile(b"|".join(re.escape(m) for m in (SYNC_END, *STATUS)))
TAIL = max(len(m) for m in (SYNC_END, *STATUS)) - 1  # bytes kept from a read for a mark cut in two
KEYS = {
    "up": b"\x1b[A", "down": b"\x1b[B", "enter": b"\r", "escape": b"\x1b", "tab": b"\t",
    "ctrl+s": b"\x13", "home": b"\x1b[H",
}  # fmt: skip


# -- helpers (as in bench/run.py and bench/net.py) ------------------------------------------


def ms(seconds: float) -> str:
    if abs(seconds) >= 0.01:
        return f"{seconds * 1000:.0f} ms"
    return f"{seconds * 1000:.1f} ms"


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def machine() -> str:
    from importlib.metadata import version

    ssh = subprocess.run(["ssh", "-V"], capture_output=True, text=True).stderr.strip().split(",")[0]
    return f"{host_machine()}, textual {version('textual')}, asyncssh {version('asyncssh')}, {ssh}"


def load_average() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


# -- processes: who they are, their memory and CPU -------------------------------------------------

TICK = os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2 :].split()  # fields from the state on (field 3)


def start_time(pid: int) -> int | None:
    fields = _stat(pid)
    return int(fields[19]) if fields else None  # field 22


def cpu_seconds(pid: int) -> float:
    fields = _stat(pid)
    return (int(fields[11]) + int(fields[12])) / TICK if fields else 0.0  # utime, stime


def descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _stat(int(entry))
            if fields:
                children.setdefault(int(fields[1]), []).append(int(entry))
    out, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def proc_field(pid: int, file: str, field: str) -> int | None:
    """The number on the line ``field:`` of /proc/PID/``file``; None for a process gone."""
    try:
        for line in Path(f"/proc/{pid}/{file}").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return None


def proc_kib(pid: int, file: str, field: str) -> int:
    """A figure in KiB of /proc/PID/``file`` (its line ``field:``); 0 for a process gone."""
    return proc_field(pid, file, field) or 0


def pss_kib(pid: int) -> int:
    return proc_kib(pid, "smaps_rollup", "Pss")


def rss_kib(pid: int) -> int:
    return proc_kib(pid, "status", "VmRSS")


# -- a terminal: a program in a pty, read by the event loop --------------------------------------

LIVE: set[Pty] = set()  # every pty's program still running: ended on the way out


class Pty:
    """A program in a pty of ROWS x COLS.  Every read is timestamped as it happens;
    the end of each synchronized frame is noted (``frames``, the times of the reads
    that completed them).  The screen (pyte) is fed whole frames, when asked
    (``screen_text``), or at every read while ``watching`` (figure 1, exact times)."""

    def __init__(self, argv: list[str], env: dict[str, str], name: str = "", cwd: Path | None = None) -> None:
        self.argv, self.env, self.name, self.cwd = argv, env, name, cwd
        self.screen = pyte.Screen(COLS, ROWS)
        self.stream = pyte.ByteStream(self.screen)
        self.pending = bytearray()
        self.in_frame = False
        self.tail = b""
        self.answered = False
        self.frames: list[float] = []  # when each frame was complete
        #: the status line as last drawn: "mine" (NAME, your move.), "wait" (Waiting for...), "over"
        self.status: str | None = None
        self.drawing: str | None = None  # the status in the frame being read
        self.status_frames: list[tuple[float, str]] = []  # frames that drew the status: when, which
        self.first_byte: float | None = None
        self.eof = False
        self.changed = asyncio.Event()
        self.watching: tuple[Callable[[], bool], list[float]] | None = None
        self.raw_bytes = 0
        self.proc: ptyprocess.PtyProcess | None = None

    def start(self) -> Pty:
        self.t_spawn = time.perf_counter()
        self.proc = ptyprocess.PtyProcess.spawn(
            self.argv, env=self.env, dimensions=(ROWS, COLS), cwd=str(self.cwd) if self.cwd else None
        )
        LIVE.add(self)
        self.fd = self.proc.fd
        os.set_blocking(self.fd, False)
        asyncio.get_running_loop().add_reader(self.fd, self._readable)
        return self

    def _readable(self) -> None:
        t = time.perf_counter()
        try:
            data = os.read(self.fd, 65536)
        except BlockingIOError:
            return
        except OSError:  # EIO: the program has ended
            data = b""
        if not data:
            self.eof = True
            asyncio.get_running_loop().remove_reader(self.fd)
            self.changed.set()
            return
        if self.first_byte is None:
            self.first_byte = t
        self.raw_bytes += len(data)
        scan = self.tail + data
        if not self.answered and SYNC_QUERY in scan:
            self.answered = True
            os.write(self.fd, SYNC_REPLY)
        for found in MARKS.finditer(scan):
            if found.end() <= len(self.tail):
                continue  # read before, in the tail
            mark = found.group()
            if mark == SYNC_END:
                self.frames.append(t)
                if self.drawing is not None:
                    self.status_frames.append((t, self.drawing))
                    self.drawing = None
            else:
                self.status = self.drawing = STATUS[mark]
        self.tail = scan[-TAIL:]
        self.pending += data
        if self.watching is not None:
            condition, seen = self.watching
            self.feed()
            if not seen and condition():
                seen.append(t)
        self.changed.set()

    def feed(self) -> None:
        """Put on the screen what was written, but a frame not yet finished."""
        self.in_frame = draw_whole_frames(self.pending, self.in_frame, self.stream.feed)

    def lines(self) -> list[str]:
        self.feed()
        return [line.rstrip() for line in self.screen.display]

    def text(self) -> str:
        return "\n".join(self.lines())

    def focused(self) -> tuple[int, str]:
        """The row drawn in reverse video (the focus, the cursor row), and its text there."""
        self.feed()
        for y in range(ROWS):
            row = self.screen.buffer[y]
            text = "".join(row[x].data for x in range(COLS) if row[x].reverse).strip()
            if text:
                return y, text
        return -1, ""

    def cursor_row(self) -> int:
        """The lobby's cursor row (DataTable draws it bold on its own background), -1 if none."""
        self.feed()
        for y in range(2, ROWS - 1):
            cell = self.screen.buffer[y][1]
            if cell.bold and cell.bg != "default":
                return y
        return -1

    async def select_row(self, wanted: Callable[[str], bool], what: str, limit: int = 40) -> None:
        """Move the lobby's cursor with the arrows to the row wanted, watching it as a player would."""
        await self.until(lambda: self.cursor_row() >= 0, "the lobby's cursor")
        for _ in range(limit):
            here = self.cursor_row()
            lines = self.lines()
            if here >= 0 and wanted(lines[here]):
                return
            target = next((y for y in range(2, ROWS - 1) if wanted(lines[y])), ROWS)
            key = "up" if target < here else "down"
            self.send(key)
            with contextlib.suppress(RuntimeError):
                await self.until(lambda here=here: self.cursor_row() != here, f"{key} to move the cursor", timeout=2.0)
        raise RuntimeError(self.report(f"{self.name}: the cursor never reached {what}"))

    async def until(self, condition: Callable[[], Any], what: str, timeout: float = WAIT) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            value = condition()
            if value:
                return value
            if self.eof:
                raise RuntimeError(self.report(f"{self.name}: the program ended while waiting for {what}"))
            left = deadline - time.monotonic()
            if left <= 0:
                raise RuntimeError(self.report(f"{self.name}: waited {timeout:.0f} s for {what}"))
            self.changed.clear()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.changed.wait(), left)

    async def wait_for(self, text: str, timeout: float = WAIT) -> None:
        await self.until(lambda: text in self.text(), repr(text), timeout)

    async def wait_line(self, *parts: str, timeout: float = WAIT) -> str:
        def found() -> str | None:
            return next((line for line in self.lines() if all(p in line for p in parts)), None)

        return await self.until(found, f"a line with {parts!r}", timeout)

    def report(self, what: str) -> str:
        return f"{what}\n-- the screen --\n{self.text()}\n-- end of screen --"

    def send(self, key: str) -> None:
        os.write(self.fd, KEYS.get(key, key.encode()))

    async def press(self, *keys: str) -> None:
        for key in keys:
            self.send(key)
            await asyncio.sleep(KEY_GAP)

    async def focus_to(self, wanted: Callable[[str], bool], what: str, key: str = "tab", limit: int = 40) -> None:
        """Press ``key`` until the focused row is the one wanted (its whole line)."""
        await self.until(lambda: self.focused()[0] >= 0, "the focus to show")
        for _ in range(limit):
            here = self.focused()
            if here[0] >= 0 and wanted(self.lines()[here[0]]):
                return
            self.send(key)
            with contextlib.suppress(RuntimeError):
                await self.until(lambda here=here: self.focused() != here, f"{key} to move the focus", timeout=2.0)
        raise RuntimeError(self.report(f"{self.name}: {limit} presses of {key} never reached {what}"))

    async def ends(self, timeout: float = 10.0) -> bool:
        """Wait for the program to end (its pty to close); False if it did not."""
        with contextlib.suppress(RuntimeError):
            await self.until(lambda: self.eof, "the end", timeout)
        self.close()
        return self.eof

    def alive(self) -> bool:
        return self.proc is not None and self.proc.isalive()

    def close(self) -> None:
        proc = self.proc
        if proc is None:
            return
        if not self.eof:
            with contextlib.suppress(Exception):
                asyncio.get_running_loop().remove_reader(self.fd)
        with contextlib.suppress(Exception):
            if proc.isalive():
                proc.terminate(force=True)
        with contextlib.suppress(Exception):
            proc.close(force=True)
        LIVE.discard(self)
        self.proc = None

    def cpu(self) -> float:
        return cpu_seconds(self.proc.pid) if self.proc is not None else 0.0


def kill_ptys() -> None:
    for p in list(LIVE):
        with contextlib.suppress(Exception):
            if p.proc is not None and p.proc.isalive():
                p.proc.kill(signal.SIGKILL)
        LIVE.discard(p)


# -- the server ------------------------------------------------------------------------------------

SERVERS: list[Server] = []  # every server started: stopped on the way out


class Server:
    """``cabinet serve`` on 127.0.0.1, a port of its own, in a process group of its own; its
    log lines (its stderr, where the server's log goes), each with the time it was read, and
    kept in a file beside its data with whatever else it wrote (``errors``)."""

    def __init__(
        self,
        data: Path,
        env: dict[str, str],
        bot_delay: float = 0.0,
        sessions: int = 200,
        per_key: int = 4,
        fork: bool = True,
        ksm: bool = True,
    ) -> None:
        self.data, self.env = data, env
        self.fork = fork
        self.argv = [
            sys.executable, "-m", "cabinet", "serve", "--listen", "127.0.0.1:0", "--data", str(data),
            "--bot-delay", str(bot_delay), "--max-sessions", str(sessions), "--sessions-per-key", str(per_key),
            *([] if fork else ["--no-fork"]), *([] if ksm else ["--no-ksm"]),
        ]  # fmt: skip
        self.lines: list[tuple[float, str]] = []
        self.port = 0
        self.proc: asyncio.subprocess.Process | None = None
        self.known: dict[int, int | None] = {}  # pids of its tree seen, with their start times

    async def start(self) -> Server:
        self.data.mkdir(parents=True, exist_ok=True)
        self.stderr = open(self.data.parent / f"{self.data.name}.stderr", "w")  # noqa: SIM115 - closed in stop()
        self.proc = await asyncio.create_subprocess_exec(
            *self.argv,
            cwd=ROOT,
            env=self.env,
            stdout=self.stderr,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
        SERVERS.append(self)
        self.reader = asyncio.get_running_loop().create_task(self._read())
        deadline = time.monotonic() + WAIT
        while not self.port:
            if self.proc.returncode is not None or time.monotonic() > deadline:
                raise RuntimeError(
                    "cabinet serve did not start:\n" + "\n".join(text for _, text in self.lines) + self.errors()
                )
            await asyncio.sleep(0.02)
        return self

    async def _read(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        while True:
            line = await self.proc.stderr.readline()
            if not line:
                return
            text = line.decode(errors="replace").rstrip("\n")
            self.lines.append((time.perf_counter(), text))
            self.stderr.write(text + "\n")
            self.stderr.flush()
            found = re.match(r"Cabinet serves on \S+:(\d+) ", text)
            if found:
                self.port = int(found.group(1))

    def errors(self) -> str:
        with contextlib.suppress(OSError):
            return (self.data.parent / f"{self.data.name}.stderr").read_text()
        return ""

    async def warm(self) -> None:
        """Once its sessions are forked from a warm parent (the log says so); at once with --no-fork."""
        deadline = time.monotonic() + WAIT
        while self.fork and self.line_after(0.0, r"Sessions are forked from a warm parent") is None:
            if time.monotonic() > deadline:
                raise RuntimeError("the warm parent was not ready:\n" + "\n".join(text for _, text in self.lines))
            await asyncio.sleep(0.05)

    def line_after(self, t: float, pattern: str) -> float | None:
        """When the first log line matching ``pattern`` read after ``t`` was read."""
        return next((when for when, line in self.lines if when >= t and re.search(pattern, line)), None)

    def tree(self) -> dict[str, list[int]]:
        """The server's processes by kind: the server, its session children (forked or exec'd:
        a forked one shows its argv, ``cabinet lobby``, as an exec'd one), the warm parent
        that forks them, the rest (the bot pool's forkserver and workers, multiprocessing's
        resource tracker)."""
        assert self.proc is not None
        kinds: dict[str, list[int]] = {"server": [self.proc.pid], "sessions": [], "warm": [], "helpers": []}
        for pid in descendants(self.proc.pid):
            self.known.setdefault(pid, start_time(pid))
            line = cmdline(pid)
            kind = "sessions" if " cabinet lobby" in line else "warm" if " cabinet warm-parent" in line else "helpers"
            kinds[kind].append(pid)
        return kinds

    async def stop(self) -> None:
        proc = self.proc
        if proc is None:
            return
        if proc.returncode is None:
            self.tree()
            proc.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(proc.wait(), 15)
            except TimeoutError:
                proc.kill()
                await proc.wait()
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and any(start_time(p) == s for p, s in self.known.items()):
            await asyncio.sleep(0.1)
        self.kill_left()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.reader, 5)
        self.stderr.close()
        self.proc = None
        SERVERS.remove(self)

    def kill_left(self) -> None:
        """Kill what is left of the server's tree (only processes it started: same pid, same start)."""
        if self.proc is not None and self.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.kill()
        for pid, started in self.known.items():
            if started is not None and start_time(pid) == started:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)


def server_env(tmp: Path) -> dict[str, str]:
    """The server's environment, as bench/run.py's children with a bytecode cache.  (The
    session children do not get it: the SSH front gives them PATH, HOME, TERM and LANG
    only, so they write and read their .pyc beside the sources, a bytecode cache too.)"""
    env = {**os.environ, "PYTHONPYCACHEPREFIX": str(tmp / "pycache")}
    for name in ("PYTHONDONTWRITEBYTECODE", "TEXTUAL", "NO_COLOR"):
        env.pop(name, None)
    return env


# -- players ------------------------------------------------------------------------------------------


def keygen(directory: Path, name: str) -> Path:
    path = directory / f"key-{name}"
    if not path.exists():
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(path)], check=True)
    return path


def ssh_argv(port: int, key: Path, name: str, *command: str) -> list[str]:
    return [
        "ssh", "-F", "/dev/null", "-p", str(port), "-i", str(key),
        "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "IdentitiesOnly=yes",
        "-o", "BatchMode=yes", "-o", "LogLevel=ERROR", *([] if command else ["-tt"]), f"{name}@127.0.0.1", *command,
    ]  # fmt: skip


def terminal_env(home: Path, **more: str) -> dict[str, str]:
    """A player's terminal: none of this shell's environment (no agent, no config)."""
    return {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(home),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        **more,
    }


def player(port: int, keys: Path, name: str) -> Pty:
    return Pty(ssh_argv(port, keygen(keys, name), name), terminal_env(keys), name=name)


# -- 1. start-up -----------------------------------------------------------------------------------

MENU_TEXT = "Join a hosted game"  # an option of the main menu (screens/menu.py)


def local_env(tmp: Path) -> dict[str, str]:
    """The local `cabinet`'s terminal: a bytecode cache under ``tmp`` (as bench/run.py), an
    empty save directory; and this tree's Cabinet, should the console script's be another."""
    env = terminal_env(tmp, CABINET_SAVE_DIR=str(tmp / "local-saves"), PYTHONPYCACHEPREFIX=str(tmp / "pycache"))
    found = subprocess.run(
        [sys.executable, "-c", "import tui; print(tui.__file__)"], cwd="/", capture_output=True, text=True, env=env
    )
    if Path(found.stdout.strip()).resolve().parent.parent != ROOT:
        env["PYTHONPATH"] = str(ROOT)
    return env


async def start_local(tmp: Path, env: dict[str, str]) -> dict[str, float]:
    p = Pty([str(CABINET)], env, name="cabinet", cwd=tmp)
    frame = await first_frame(p, lambda: MENU_TEXT in p.text(), "the main menu")
    assert p.first_byte is not None
    return {"frame": frame - p.t_spawn, "first_byte": p.first_byte - p.t_spawn}


async def first_frame(p: Pty, shows: Callable[[], bool], what: str) -> float:
    """Start ``p``; when the read that completed the first frame where ``shows()`` came;
    then q, and ``p`` has ended."""
    seen: list[float] = []
    p.watching = (shows, seen)
    p.start()
    try:
        await p.until(lambda: seen, what)
        p.watching = None
        p.send("q")
        if not await p.ends():
            raise RuntimeError(f"{p.name} did not end on q")
    finally:
        p.close()
    return seen[0]


async def start_ssh(server: Server, keys: Path, name: str) -> dict[str, float]:
    p = player(server.port, keys, name)
    title = f"Cabinet · {name} ·"
    frame = await first_frame(p, lambda: title in p.lines()[0], "the lobby")
    t0 = p.t_spawn
    assert p.first_byte is not None
    deadline = time.monotonic() + 10  # the server has ended the session before the next one starts
    while server.line_after(t0, rf"^{name} from .*session ended") is None and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    login = server.line_after(t0, rf"^{name} logged in")
    started = server.line_after(t0, rf"^{name} from .*session started")
    return {
        "frame": frame - t0,
        "first_byte": p.first_byte - t0,
        "login": (login or float("nan")) - t0,
        "started": (started or float("nan")) - t0,
    }


async def start_probe(server: Server, keys: Path, name: str) -> float:
    """``ssh NAME@host true``: the handshake, the login and a refused command (no child)."""
    p = Pty(ssh_argv(server.port, keygen(keys, name), name, "true"), terminal_env(keys), name=name)
    p.start()
    try:
        if not await p.ends():
            raise RuntimeError("ssh with a command did not end")
        return time.perf_counter() - p.t_spawn
    finally:
        p.close()


async def bench_start(tmp: Path, reps: int) -> dict[str, Any]:
    server = await Server(tmp / "data-start", server_env(tmp)).start()
    afresh_server = await Server(tmp / "data-start-afresh", server_env(tmp), fork=False).start()
    await server.warm()
    keys = tmp / "keys"
    keys.mkdir(exist_ok=True)
    env = local_env(tmp)
    try:
        for _ in range(2):  # warm the caches (page cache, bytecode) of every side
            await start_local(tmp, env)
            await start_ssh(server, keys, "starter")
            await start_ssh(afresh_server, keys, "starter")
        local: list[dict[str, float]] = []
        remote: list[dict[str, float]] = []
        probe: list[float] = []
        afresh: list[dict[str, float]] = []
        for i in range(reps):
            sides = [
                lambda: start_local(tmp, env),
                lambda: start_ssh(server, keys, "starter"),
                lambda: start_probe(server, keys, "starter"),
                lambda: start_ssh(afresh_server, keys, "starter"),
            ]
            for j in range(4) if i % 2 == 0 else range(3, -1, -1):
                got = await sides[j]()
                (local, remote, probe, afresh)[j].append(got)  # type: ignore[attr-defined]
    finally:
        await server.stop()
        await afresh_server.stop()
    lf = [r["frame"] for r in local]
    sf = [r["frame"] for r in remote]
    paired = sorted(s / lo for s, lo in zip(sf, lf, strict=True))
    return {
        "local": lf,
        "ssh": sf,
        "ratio": med(sf) / med(lf),
        "paired": med(paired),
        "local_first_byte": med([r["first_byte"] for r in local]),
        "ssh_login": med([r["login"] for r in remote]),
        "ssh_started": med([r["started"] for r in remote]),
        "ssh_first_byte": med([r["first_byte"] for r in remote]),
        "probe": med(probe),
        "afresh": [r["frame"] for r in afresh],
        "afresh_started": med([r["started"] for r in afresh]),
        "afresh_first_byte": med([r["first_byte"] for r in afresh]),
    }


async def spawn_wait(tmp: Path, reps: int) -> dict[str, list[float]]:
    """What starting a session's program costs the front's event loop: the warm parent's two
    forks (``WarmParent.spawn``, the answer waited for) against ``subprocess.Popen`` as the exec
    path calls it, alternated, both running /bin/true on a new pty (the same work after it)."""
    from net.ssh import SESSION_LIMITS, _become_the_session
    from net.zygote import WarmParent

    home = tempfile.mkdtemp(dir=tmp)
    env = {"PATH": os.defpath, "HOME": home, "LANG": "C.UTF-8"}
    warm = WarmParent([sys.executable, "-m", "cabinet", "warm-parent"], env, home, lambda line: None)
    warm.start()
    out: dict[str, list[float]] = {"fork": [], "popen": []}
    try:
        deadline = time.monotonic() + WAIT
        while not warm.ready:
            if time.monotonic() > deadline:
                raise RuntimeError("the warm parent was not ready")
            await asyncio.sleep(0.02)
        for i in range(reps):
            for side in ("fork", "popen") if i % 2 == 0 else ("popen", "fork"):
                master, slave = os.openpty()
                t0 = time.perf_counter()
                if side == "fork":
                    child = warm.spawn(["/bin/true"], {"PATH": os.defpath}, home, slave, SESSION_LIMITS)
                    out[side].append(time.perf_counter() - t0)
                    assert child is not None
                    pid = child.pid
                else:
                    proc = subprocess.Popen(
                        ["/bin/true"], stdin=slave, stdout=slave, stderr=slave, cwd=home, umask=0o077,
                        start_new_session=True, preexec_fn=_become_the_session, close_fds=True,
                    )  # fmt: skip
                    out[side].append(time.perf_counter() - t0)
                    pid = proc.pid
                os.close(slave)
                os.waitpid(pid, 0)
                os.close(master)
    finally:
        warm.close()
    return out


# -- 2 and 3. tables made by keys, moves paced like humans ------------------------------------------


def game_choices() -> tuple[int, list[str], str]:
    """Where GAME is in the form's list of games; the choices of a seat there; its default."""
    from core.games import all_games

    games = list(all_games().values())
    game = next(g for g in games if g.title == GAME)
    choices = ["You", "A player"] + [f"Bot: {level}" for level in game.bot_levels]
    return games.index(game), choices, f"Bot: {game.default_bot_level}"


async def open_table(p: Pty, seat2: str) -> None:
    """At the lobby: n, the game, seat 2's player ("A player", "Bot: hard"), ctrl+s."""
    index, choices, default = game_choices()
    await p.wait_line(f"Cabinet · {p.name} ·")
    p.send("n")
    await p.wait_for("Start  (ctrl+s)")
    await p.press("enter")  # the list of games
    await p.wait_for(GAME)
    await p.press(*["down"] * index, "enter")
    await p.wait_line("Game", GAME)
    await p.wait_line("Players", "2")
    await p.focus_to(lambda line: line.strip().startswith("Seat 2"), "seat 2's player")
    await p.press("enter")  # its list
    await p.wait_for("Bot: easy")
    step = choices.index(seat2) - choices.index(default)
    await p.press(*(["down"] * step if step > 0 else ["up"] * -step), "enter")
    await p.wait_line("Seat 2", seat2)
    p.send("ctrl+s")
    if seat2.startswith("Bot"):
        await p.wait_line(f"{GAME} · You: {p.name}")  # it starts at once, and opens
    else:
        await p.wait_line("Waiting", GAME, "you, — free")


async def take_seat(p: Pty, host: str) -> None:
    """At the lobby: the arrows to ``host``'s waiting table, Enter: the table starts and opens."""
    row = f"{host}, — free"
    await p.wait_line("Waiting", row)
    await p.select_row(lambda line: row in line, f"{host}'s table")
    p.send("enter")
    await p.wait_line(f"{GAME} · You: {p.name}")


async def open_own(p: Pty, guest: str) -> None:
    """At the lobby, the host of a table that has started: the arrows to it, Enter."""
    row = f"you, {guest}"
    await p.wait_line(row)
    await p.select_row(lambda line: row in line, "the table")
    p.send("enter")
    await p.wait_line(f"{GAME} · You: {p.name}")


@dataclass
class Move:
    table: int
    t0: float  # the key press
    mover: Pty
    other: Pty
    window: str  # which window it was pressed in ("" outside the windows measured)
    until: float = 0.0  # the next key press at that table


@dataclass
class Load:
    """The tables, their moves, and which window is being measured."""

    humans: list[tuple[Pty, Pty]] = field(default_factory=list)
    bots: list[Pty] = field(default_factory=list)  # the human seat of each table against a bot
    moves: list[Move] = field(default_factory=list)
    window: str = ""
    bots_on: bool = False
    stop: bool = False
    bot_presses: dict[str, int] = field(default_factory=dict)
    stuck: int = 0
    stuck_screens: dict[int, str] = field(default_factory=dict)  # table -> its screens, stuck
    over: int = 0


async def make_tables(server: Server, keys: Path, load: Load, tables: int, prefix: str, wave: int = 5) -> list[float]:
    """``tables`` tables of two human seats, by keys, ``wave`` at a time (10 logins at once:
    the front drops past 16 connections not yet logged in from one address); the time each
    wave's sessions took to show their lobbies."""
    logins = []
    for first in range(0, tables, wave):
        pairs = []
        for i in range(first, min(tables, first + wave)):
            pairs.append(
                (player(server.port, keys, f"{prefix}{i:02d}a"), player(server.port, keys, f"{prefix}{i:02d}b"))
            )
        t0 = time.perf_counter()
        for a, b in pairs:
            a.start()
            b.start()
        await asyncio.gather(*(p.wait_line(f"Cabinet · {p.name} ·") for pair in pairs for p in pair))
        logins.append(time.perf_counter() - t0)
        await asyncio.gather(*(open_table(a, "A player") for a, _ in pairs))
        await asyncio.gather(*(take_seat(b, a.name) for a, b in pairs))
        await asyncio.gather(*(open_own(a, b.name) for a, b in pairs))
        load.humans += pairs
    return logins


async def make_bot_tables(server: Server, keys: Path, load: Load, tables: int, prefix: str) -> None:
    ps = [player(server.port, keys, f"{prefix}{i:02d}") for i in range(tables)]
    for p in ps:
        p.start()
    await asyncio.gather(*(p.wait_line(f"Cabinet · {p.name} ·") for p in ps))
    for p in ps:  # one form at a time: under the load, ten forms at once take seconds a key
        await open_table(p, "Bot: hard")
    load.bots += ps


REREADS = [0]  # statuses read again from a screen (whose_move)


def reread(p: Pty) -> bool:
    """The status as the screen's top line says it, where the marks read in the bytes said
    otherwise: True if that changed it."""
    top = p.lines()[0]
    found = next((status for mark, status in STATUS.items() if mark.decode() in top), None)
    if found is None or found == p.status:
        return False
    p.status = found
    return True


async def whose_move(a: Pty, b: Pty, timeout: float = 10.0) -> Pty | None:
    """The seat whose status line says "your move." while the other's says it waits; None
    at the end of the game (or if the two screens never agree: counted as stuck)."""
    deadline = time.monotonic() + timeout
    while True:
        if "over" in (a.status, b.status):
            return None
        if a.status == "mine" and b.status == "wait":
            return a
        if b.status == "mine" and a.status == "wait":
            return b
        if time.monotonic() > deadline:
            # The marks are read in the bytes as they come; a status line drawn in pieces
            # (once in 20-odd tables of a run, a table stayed "mine" on both sides while its
            # screens said otherwise) is read again from the screens themselves, once.
            if not any([reread(a), reread(b)]):
                raise TimeoutError
            REREADS[0] += 1
            deadline = time.monotonic() + timeout
        await asyncio.sleep(0.05)  # rare: a move's update on its way


async def play_humans(load: Load, i: int, rng: random.Random) -> None:
    """Table ``i``: every PACE seconds (1 to 2 s unless --pace says), the seat to move presses
    Enter (the first choice listed)."""
    a, b = load.humans[i]
    await asyncio.sleep(rng.uniform(0.0, 2.0))  # staggered
    last: Move | None = None
    while not load.stop:
        t_next = time.perf_counter() + rng.uniform(*PACE)
        try:
            mover = await whose_move(a, b)
        except TimeoutError:
            load.stuck += 1
            if i not in load.stuck_screens:  # what its two screens showed, the first time
                load.stuck_screens[i] = f"{a.name} ({a.status}):\n{a.text()}\n{b.name} ({b.status}):\n{b.text()}"
            continue
        if mover is None:
            load.over += 1
            return
        other = b if mover is a else a
        t0 = time.perf_counter()
        mover.send("enter")
        if last is not None:
            last.until = t0
        last = Move(i, t0, mover, other, load.window)
        load.moves.append(last)
        await asyncio.sleep(max(0.0, t_next - time.perf_counter()))
    if last is not None:
        last.until = time.perf_counter()


async def play_bot(load: Load, p: Pty, rng: random.Random) -> None:
    """A table against a hard bot: while the bots are on, the human seat moves BOT_PACE seconds
    after its screen says it may (a frame drawn since its last key; 0,0: at once)."""
    pressed = 0.0
    while not load.stop:
        if not load.bots_on:
            await asyncio.sleep(0.1)
            continue
        if p.status == "over":
            load.over += 1
            return
        # a frame since the key (the move shown) and the status saying "your move": a status
        # line that says what it said is not drawn again (the bot answered within the frame)
        ready = bool(p.frames) and p.frames[-1] > pressed and p.status == "mine"
        if not ready:
            p.changed.clear()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(p.changed.wait(), 0.5)
            continue
        think = rng.uniform(*BOT_PACE)
        if think:
            await asyncio.sleep(think)
            if load.stop or not load.bots_on or p.status != "mine":
                continue
        pressed = time.perf_counter()
        p.send("enter")
        load.bot_presses[load.window] = load.bot_presses.get(load.window, 0) + 1


PACE = (1.0, 2.0)  # s between two moves at a human table
#: s between two moves at a human table in the auctions' second window (--auction-pace): a
#: bidder reads the offer and the bid before raising
AUCTION_PACE = (3.0, 6.0)
#: s between two moves at a human table during figure 3 (--fig3-pace; default: --pace)
FIG3_PACE = PACE
AUCTIONS_WAIT = 600.0  # s of play at most for every table to reach its auctions
#: s a player against a bot takes to answer (--bot-pace; default: PACE, a player's pace; 0,0:
#: at once, the bots' tables then redraw as fast as the bots move, a load of screens of its own)
BOT_PACE: tuple[float, float] | None = None


def round_trips(load: Load, window: str) -> dict[str, Any]:
    """The moves pressed in ``window`` that passed the turn: the time from the key to the
    first frame on the other seat's pty whose status line says "your move." (a repaint of the
    old screen cannot say it), and to the mover's own "Waiting for"."""
    rts, own, kept, lost = [], [], 0, 0
    for m in load.moves:
        if m.window != window:
            continue
        end = m.until or m.t0 + 10
        flip = next((t for t, st in m.other.status_frames if m.t0 < t <= end and st == "mine"), None)
        if flip is None:
            # the same seat moves again: its partner's status line does not change, and its own
            # says "your move." again, or is not drawn again (it says what it said)
            drew = [st for t, st in m.mover.status_frames if m.t0 < t <= end]
            if "mine" in drew or (not drew and any(m.t0 < t <= end for t in m.mover.frames)):
                kept += 1
            else:
                lost += 1
            continue
        rts.append(flip - m.t0)
        mine = next((t for t, st in m.mover.status_frames if m.t0 < t <= end and st == "wait"), None)
        if mine is not None:
            own.append(mine - m.t0)
    return {"rt": rts, "own": own, "kept": kept, "lost": lost}


class Usage:
    """CPU seconds of each kind of process, from one moment to another."""

    def __init__(self, server: Server, load: Load) -> None:
        self.server, self.load = server, load
        self.t = time.perf_counter()
        self.start = self.sample()

    def sample(self) -> dict[str, float]:
        kinds = self.server.tree()
        out = {k: sum(cpu_seconds(p) for p in pids) for k, pids in kinds.items()}
        ptys = [p for pair in self.load.humans for p in pair] + self.load.bots
        out["ssh"] = sum(p.cpu() for p in ptys)
        out["driver"] = time.process_time()
        out["bytes"] = sum(p.raw_bytes for p in ptys)
        out["frames"] = sum(len(p.frames) for p in ptys)
        return out

    def since(self) -> dict[str, float]:
        now = self.sample()
        span = time.perf_counter() - self.t
        return {k: (now[k] - self.start[k]) / span for k in now}


def memory(server: Server) -> dict[str, Any]:
    kinds = server.tree()
    return {
        "server_pss": sum(pss_kib(p) for p in kinds["server"]),
        "sessions_pss": sum(pss_kib(p) for p in kinds["sessions"]),
        "helpers_pss": sum(pss_kib(p) for p in kinds["helpers"]),
        "warm_pss": sum(pss_kib(p) for p in kinds["warm"]),
        "child_rss": [rss_kib(p) for p in kinds["sessions"]],
        "sessions": len(kinds["sessions"]),
        "helpers": len(kinds["helpers"]),
    }


async def window(load: Load, server: Server, name: str, seconds: float) -> dict[str, float]:
    load.window = name
    usage = Usage(server, load)
    await asyncio.sleep(seconds)
    load.window = ""
    return usage.since()


async def until_auctions(load: Load, timeout: float) -> int:
    """Play on until every human table is in its auctions (its screens say "Enchères") or
    over; how many tables were not by ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        behind = [pair for pair in load.humans if not any(p.status == "over" or "Enchères" in p.text() for p in pair)]
        if not behind or time.monotonic() > deadline:
            return len(behind)
        await asyncio.sleep(5.0)


async def drain_bots(load: Load, timeout: float = 20.0) -> float:
    """Bots off: wait until every table against a bot waits for its human (no bot thinking)."""
    load.bots_on = False
    t0 = time.perf_counter()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if all(p.status in ("mine", "over") for p in load.bots):
            break
        await asyncio.sleep(0.1)
    return time.perf_counter() - t0


async def bench_load(tmp: Path, quick: bool, figures: set[int]) -> dict[str, Any]:
    server = await Server(
        tmp / "data-load", server_env(tmp), bot_delay=0.0, fork=os.environ.get("BENCH_NO_FORK") is None
    ).start()
    keys = tmp / "keys"
    keys.mkdir(exist_ok=True)
    load = Load()
    rng = random.Random(18)
    out: dict[str, Any] = {}
    tasks: list[asyncio.Task[None]] = []
    try:
        t0 = time.perf_counter()
        out["pace"] = PACE  # figure 2's (figure 3 may set another)
        out["logins"] = await make_tables(server, keys, load, HUMAN_TABLES, "h")
        out["setup"] = time.perf_counter() - t0
        tasks += [asyncio.ensure_future(play_humans(load, i, rng)) for i in range(len(load.humans))]
        await asyncio.sleep(WARM)
        # 2: the 50 sessions alone
        out["usage2"] = await window(load, server, "fig2", FIG2 if not quick else FIG2_QUICK)
        out["memory"] = memory(server)
        out["fig2"] = round_trips(load, "fig2")
        # 2, later: the same tables once all of them are in their auctions, at the same pace,
        # then at a bidder's pace
        t0 = time.perf_counter()
        out["auctions_after"] = await until_auctions(load, AUCTIONS_WAIT)
        out["auctions_reached"] = time.perf_counter() - t0
        length = FIG2 if not quick else FIG2_QUICK
        out["usage_auct"] = await window(load, server, "auct", length)
        out["fig2_auct"] = round_trips(load, "auct")
        fast = PACE
        globals()["PACE"] = AUCTION_PACE
        await asyncio.sleep(max(AUCTION_PACE))  # every table's next move at the new pace
        out["usage_auct_slow"] = await window(load, server, "auct-slow", length * 2)
        out["fig2_auct_slow"] = round_trips(load, "auct-slow")
        globals()["PACE"] = fast
        if 3 in figures:
            try:
                t0 = time.perf_counter()
                await make_bot_tables(server, keys, load, BOT_TABLES, "bot")
                out["bot_setup"] = time.perf_counter() - t0
                tasks += [
                    asyncio.ensure_future(play_bot(load, p, random.Random(f"bot{k}"))) for k, p in enumerate(load.bots)
                ]
                globals()["PACE"] = FIG3_PACE  # the human tables' pace in figure 3's windows
                out["windows"] = []
                pairs = FIG3_PAIRS if not quick else 1
                length = FIG3 if not quick else FIG3_QUICK
                for k in range(pairs):
                    for busy in (False, True) if k % 2 == 0 else (True, False):
                        name = f"{'busy' if busy else 'idle'}{k}"
                        if busy:
                            load.bots_on = True
                            await asyncio.sleep(RAMP)
                            drained = 0.0
                        else:
                            drained = await drain_bots(load)
                        use = await window(load, server, name, length)
                        out["windows"].append((name, busy, use, round_trips(load, name), drained))
                load.bots_on = False
                out["memory3"] = memory(server)
            except RuntimeError as exc:  # figure 3 could not be set up: figure 2 is still reported
                out.pop("windows", None)
                out["fig3_error"] = str(exc).splitlines()[0]
    finally:
        load.stop = True
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for p in [p for pair in load.humans for p in pair] + load.bots:
            p.close()
        await server.stop()
    # sessions the front held to a share of a core (issue 31): an honest one never should be
    out["demoted"] = [line for _, line in server.lines if "kept a core busy" in line]
    print(f"   sessions demoted by the front: {len(out['demoted'])}", *out["demoted"][:5], sep="\n     ")
    out["stuck"], out["over"], out["stuck_screens"] = load.stuck, load.over, load.stuck_screens
    out["bot_presses"] = load.bot_presses
    out["log_errors"] = [line for _, line in server.lines if "rror" in line or "Traceback" in line][:5]
    out["stderr"] = server.errors()[-2000:]
    return out


HUMAN_TABLES = 25  # figure 2: 50 sessions
BOT_TABLES = 10  # figure 3
WARM = 8.0  # s of play before the first window (the toasts of the tables' start have gone)
FIG2, FIG2_QUICK = 60.0, 20.0  # s measured
FIG3, FIG3_QUICK = 30.0, 15.0  # s a window of figure 3
FIG3_PAIRS = 3  # idle and busy windows, alternated
RAMP = 3.0  # s for the bots to get busy before a busy window


# -- 5. memory a session: forked from the warm parent, against started afresh ---------------------

MEM_SETTLE = 5.0  # s idle in the lobby, every screen drawn, before its memory is read
MEM_PLAY = 20.0  # s of play at the tables before their memory is read
KSM = Path("/sys/kernel/mm/ksm")  # the machine's page merging (KSM): its settings and counts
#: KSM's full scans before a memory is read: at least KSM_SCANS (a page is merged in its second),
#: and until one merged hardly more than the one before (KSM_STEADY of the pages shared)
KSM_SCANS = 2
KSM_STEADY = 0.02
KSM_WAIT = 300.0  # s at most for them
#: the rounds of figure 5 (--quick: the first two): how the sessions are started, (name, fork, ksm)
MEM_ROUNDS = [("forked", True, True), ("no KSM", True, False), ("afresh", False, False), ("forked", True, True)]


def ksm_read(name: str) -> int:
    try:
        return int((KSM / name).read_text())
    except (OSError, ValueError):
        return -1


def ksm_running() -> bool:
    return ksm_read("run") == 1


def ksmd_cpu() -> float:
    """CPU seconds of the kernel's KSM thread so far (0 where there is none)."""
    found = subprocess.run(["pgrep", "-x", "ksmd"], capture_output=True, text=True).stdout.split()
    return cpu_seconds(int(found[0])) if found else 0.0


async def ksm_settled(started: float, asked: bool) -> dict[str, float]:
    """Waits, where the server asked for KSM (``asked``) and the machine's KSM runs, until its
    full scans merge no more (KSM_SCANS at least, KSM_WAIT s at most): the pages the sessions
    hold alike merged.  What it took: seconds since ``started``, scans, ksmd's CPU."""
    if not asked or not ksm_running():
        return {"wait": 0.0, "scans": 0, "ksmd": 0.0}
    first, cpu, t0 = ksm_read("full_scans"), ksmd_cpu(), time.monotonic()
    seen, sharing = first, [ksm_read("pages_sharing")]
    while time.monotonic() - t0 < KSM_WAIT:
        await asyncio.sleep(1.0)
        scans = ksm_read("full_scans")
        if scans == seen:
            continue
        seen = scans
        sharing.append(ksm_read("pages_sharing"))
        if seen - first >= KSM_SCANS and abs(sharing[-1] - sharing[-2]) <= KSM_STEADY * sharing[-1]:
            break
    return {"wait": time.monotonic() - started, "scans": seen - first, "ksmd": ksmd_cpu() - cpu}


async def memory_of(tmp: Path, keys: Path, how: tuple[str, bool, bool], tables: int, k: int) -> dict[str, Any]:
    """One server (forked sessions, with or without --no-ksm, or --no-fork): its memory with
    ``2 * tables`` sessions idle in the lobby, then with them at ``tables`` tables after MEM_PLAY s
    of play; where it asked for KSM and the machine's KSM runs, each read once KSM's scans merge
    no more (``ksm_settled``: the sessions idle in the lobby, or at their tables, meanwhile)."""
    name, fork, ksm = how
    server = await Server(tmp / f"data-mem{k}", server_env(tmp), fork=fork, ksm=ksm).start()
    await server.warm()
    load = Load()
    tasks: list[asyncio.Task[None]] = []
    pairs = [
        (player(server.port, keys, f"m{k}{i:02d}a"), player(server.port, keys, f"m{k}{i:02d}b")) for i in range(tables)
    ]
    try:
        for first in range(0, tables, 5):  # 10 logins at once (the front's limit per address is 16)
            wave = [p for pair in pairs[first : first + 5] for p in pair]
            for p in wave:
                p.start()
            await asyncio.gather(*(p.wait_line(f"Cabinet · {p.name} ·") for p in wave))
        drawn = time.monotonic()
        await asyncio.sleep(MEM_SETTLE)
        lobby_ksm = await ksm_settled(drawn, fork and ksm)
        lobby = memory(server)
        # the tables are made by new sessions, as figure 2 makes them (a lobby open meanwhile keeps
        # its rows in their order, and the new tables' rows below the screen's)
        for p in [p for pair in pairs for p in pair]:
            p.close()
        deadline = time.monotonic() + WAIT
        while server.tree()["sessions"] and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
        await make_tables(server, keys, load, tables, f"t{k}")
        pairs = load.humans
        rng = random.Random(35 + k)
        tasks = [asyncio.ensure_future(play_humans(load, i, rng)) for i in range(len(pairs))]
        await asyncio.sleep(MEM_PLAY)
        load.stop = True
        await asyncio.gather(*tasks, return_exceptions=True)
        stopped = time.monotonic()
        await asyncio.sleep(2.0)  # the last moves drawn
        table_ksm = await ksm_settled(stopped, fork and ksm)
        table = memory(server)
        moves = len(load.moves)
    finally:
        load.stop = True
        for task in tasks:
            task.cancel()
        for p in [p for pair in pairs for p in pair]:
            p.close()
        await server.stop()
    started = [line for _, line in server.lines if "session started" in line]
    return {
        "name": name,
        "fork": fork,
        "ksm": ksm,
        "lobby": lobby,
        "table": table,
        "lobby_ksm": lobby_ksm,
        "table_ksm": table_ksm,
        "moves": moves,
        "forked": sum(", forked, " in line for line in started),
        "afresh": sum(", afresh, " in line for line in started),
        "load": load_average(),
    }


async def bench_memory(tmp: Path, quick: bool) -> list[dict[str, Any]]:
    keys = tmp / "keys"
    keys.mkdir(exist_ok=True)
    runs = []
    for k, how in enumerate(MEM_ROUNDS[:2] if quick else MEM_ROUNDS):
        runs.append(await memory_of(tmp, keys, how, HUMAN_TABLES, k))
    return runs


# -- 4. a hostile session beside honest ones --------------------------------------------------------

HOSTILE = "hostile"  # its name (and key)
HOSTILE_SIZE = 65535  # rows and columns its pty claims (the most a winsize holds)
#: one turn of the flood: at a table 'h' (the history) then Up/Down, scrolling it; in the lobby
#: the arrows move the cursor, Tab the focus, Enter opens the table under the cursor (to watch it)
FLOOD_UNIT = b"h" + (KEYS["up"] + KEYS["down"]) * 10 + KEYS["down"] * 2 + KEYS["tab"] + KEYS["enter"]
FLOOD = FLOOD_UNIT * (65536 // len(FLOOD_UNIT))  # written round and round, as much as ssh takes
CUP = re.compile(rb"\x1b\[(\d+);(\d+)H")  # a cursor position in what it is sent: how big its screen is
#: marks of its screens: the lobby's title, a table's status line (it watches a table)
HOSTILE_SEES = {b"(Enter opens)": "the lobby's title", b"Waiting for ": "a table's status line"}


class Hostile(Pty):
    """An ``ssh -tt`` whose pty claims HOSTILE_SIZE x HOSTILE_SIZE, that reads all it is sent
    as fast as it comes (and throws it away, noting only the farthest cursor position and
    the frames), and once ``flood()`` is called writes keys into ssh non-stop, as many as
    ssh takes (ssh reads its terminal while the SSH channel's window is open)."""

    def __init__(self, argv: list[str], env: dict[str, str], name: str) -> None:
        super().__init__(argv, env, name=name)
        self.sent = 0  # bytes of keys ssh took from the pty
        self.offset = 0
        self.flooding = False  # writing keys
        self.writing = False  # waiting for the pty to take what is written
        self.urgent = bytearray()  # a terminal's answer, written before the next key
        self.far = (0, 0)  # the farthest row and column a cursor position reached
        self.sync_ends = 0
        self.seen = dict.fromkeys(HOSTILE_SEES, 0)  # what was drawn on its screen, how often

    def start(self) -> Hostile:
        self.t_spawn = time.perf_counter()
        self.proc = ptyprocess.PtyProcess.spawn(self.argv, env=self.env, dimensions=(HOSTILE_SIZE, HOSTILE_SIZE))
        LIVE.add(self)
        self.fd = self.proc.fd
        os.set_blocking(self.fd, False)
        asyncio.get_running_loop().add_reader(self.fd, self._readable)
        return self

    def size(self) -> tuple[int, int]:
        """The pty's size as ssh reads it: rows, columns."""
        rows, cols, _, _ = struct.unpack("HHHH", fcntl.ioctl(self.fd, termios.TIOCGWINSZ, b"\0" * 8))
        return rows, cols

    def _readable(self) -> None:
        while True:
            try:
                data = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                return
            except OSError:
                data = b""
            if not data:
                self.eof = True
                self.stop_flood()
                asyncio.get_running_loop().remove_reader(self.fd)
                self.changed.set()
                return
            if self.first_byte is None:
                self.first_byte = time.perf_counter()
            self.raw_bytes += len(data)
            scan = self.tail + data
            if not self.answered and SYNC_QUERY in scan:  # a terminal that has synchronized output:
                self.answered = True  # its frames can be counted; the reply goes before the keys
                self.urgent += SYNC_REPLY
                self.flood(keys=self.flooding)
            self.sync_ends += scan.count(SYNC_END) - self.tail.count(SYNC_END)
            for mark in HOSTILE_SEES:  # (a mark cut in two by a read is missed: these are for information)
                self.seen[mark] += data.count(mark)
            for found in CUP.finditer(data):
                row, col = int(found.group(1)), int(found.group(2))
                if row > self.far[0] or col > self.far[1]:
                    self.far = (max(row, self.far[0]), max(col, self.far[1]))
            self.tail = scan[-(max(len(SYNC_END), len(SYNC_QUERY)) - 1) :]
            self.changed.set()

    def flood(self, keys: bool = True) -> None:
        """Write into ssh as it takes it: ``urgent`` (a terminal's answers), then the keys."""
        if self.eof:
            return
        self.flooding = self.flooding or keys
        if not self.writing:
            self.writing = True
            asyncio.get_running_loop().add_writer(self.fd, self._writable)

    def stop_flood(self) -> None:
        self.flooding = False
        self.urgent.clear()
        if self.writing:
            self.writing = False
            with contextlib.suppress(Exception):
                asyncio.get_running_loop().remove_writer(self.fd)

    def _writable(self) -> None:
        while self.urgent or self.flooding:
            try:
                if self.urgent:
                    n = os.write(self.fd, self.urgent)
                    del self.urgent[:n]
                    continue
                n = os.write(self.fd, FLOOD[self.offset :])
            except BlockingIOError:
                return
            except OSError:
                self.stop_flood()
                return
            self.sent += n
            self.offset = (self.offset + n) % len(FLOOD)
        self.stop_flood()  # nothing more to write

    def close(self) -> None:
        self.stop_flood()
        super().close()


def io_field(pid: int, field: str) -> int | None:
    """A count of /proc/PID/io (rchar: bytes its read calls returned, of any file); None if gone."""
    return proc_field(pid, "io", field)


def runq_wait(pid: int) -> float:
    """Seconds the threads of ``pid`` have waited for a core (runnable, not running): the
    second field of /proc/PID/task/TID/schedstat, summed; 0 for a process gone."""
    total = 0
    with contextlib.suppress(OSError):
        for tid in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError, ValueError, IndexError):
                total += int(Path(f"/proc/{pid}/task/{tid}/schedstat").read_text().split()[1])
    return total / 1e9


def waits(pids: list[int]) -> dict[int, float]:
    return {pid: runq_wait(pid) for pid in pids}


@dataclass
class Watch:
    """The hostile session's program, looked at every WATCH_EVERY s: the peak of its memory;
    and the server's own (where what the SSH channel took and did not pass on waits)."""

    pid: int
    server: int
    peak: dict[str, int] = field(default_factory=lambda: {"rss": 0, "pss": 0, "data": 0, "hwm": 0})
    samples: int = 0
    server_rss: list[tuple[float, int]] = field(default_factory=list)  # (when, KiB)

    def look(self) -> None:
        got = {
            "rss": rss_kib(self.pid), "pss": pss_kib(self.pid),
            "data": proc_kib(self.pid, "status", "VmData"), "hwm": proc_kib(self.pid, "status", "VmHWM"),
        }  # fmt: skip
        if got["rss"]:
            self.samples += 1
            for k, v in got.items():
                self.peak[k] = max(self.peak[k], v)
        self.server_rss.append((time.perf_counter(), rss_kib(self.server)))

    async def run(self) -> None:
        while True:
            self.look()
            await asyncio.sleep(WATCH_EVERY)


async def hostile_arrives(server: Server, keys: Path) -> tuple[Hostile, dict[str, Any]]:
    """The hostile session: started, its program found (its pid and the size the server gave
    it, from the log's "session started" line), the flood begun."""
    t0 = time.perf_counter()
    h = Hostile(ssh_argv(server.port, keygen(keys, HOSTILE), HOSTILE), terminal_env(keys), HOSTILE).start()
    claimed = h.size()
    deadline = time.monotonic() + WAIT
    while True:
        line = next(
            (
                text
                for when, text in server.lines
                if when >= t0 and re.match(rf"{HOSTILE} from .*session started", text)
            ),
            None,
        )
        if line is not None:
            break
        if h.eof or time.monotonic() > deadline:
            h.close()
            raise RuntimeError(f"the hostile session did not start (its pty {claimed[1]}x{claimed[0]})")
        await asyncio.sleep(0.02)
    found = re.search(r"\((\d+)x(\d+) .*pid (\d+)\)", line)
    assert found is not None, line
    # It answers the app's question about synchronized output (as the honest terminals do:
    # its frames can be counted) before the flood, whose keys would queue ahead of the answer.
    with contextlib.suppress(RuntimeError):
        await h.until(lambda: h.answered and not h.urgent, "the question about synchronized output", timeout=10.0)
    h.flood()  # ssh has its terminal in raw mode by now: nothing is echoed, every byte is a key
    return h, {
        "claimed": claimed,
        "given": (int(found.group(1)), int(found.group(2))),
        "pid": int(found.group(3)),
        "t0": t0,
    }


async def hostile_leaves(server: Server, h: Hostile, pid: int) -> float:
    """ssh killed; the seconds until the server's session child is gone."""
    started = start_time(pid)
    t0 = time.perf_counter()
    h.close()
    deadline = time.monotonic() + WAIT
    while started is not None and start_time(pid) == started and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    return time.perf_counter() - t0


async def bench_hostile(tmp: Path, quick: bool) -> dict[str, Any]:
    server = await Server(tmp / "data-hostile", server_env(tmp), bot_delay=0.0).start()
    keys = tmp / "keys"
    keys.mkdir(exist_ok=True)
    load = Load()
    rng = random.Random(31)
    out: dict[str, Any] = {"pace": PACE, "windows": []}
    tasks: list[asyncio.Task[None]] = []
    h: Hostile | None = None
    try:
        t0 = time.perf_counter()
        out["logins"] = await make_tables(server, keys, load, HOSTILE_TABLES, "f")
        out["setup"] = time.perf_counter() - t0
        tasks += [asyncio.ensure_future(play_humans(load, i, rng)) for i in range(len(load.humans))]
        await asyncio.sleep(WARM)
        t0 = time.perf_counter()
        if quick:  # a rough look: in the gifts, where fewer moves pass the turn
            out["auctions_after"] = None
        else:
            out["auctions_after"] = await until_auctions(load, AUCTIONS_WAIT)
        out["auctions_reached"] = time.perf_counter() - t0
        length = FIG4 if not quick else FIG4_QUICK
        for k in range(FIG4_PAIRS if not quick else FIG4_PAIRS_QUICK):
            for hostile in (False, True):
                name = f"{'with' if hostile else 'without'}{k}"
                info: dict[str, Any] = {"name": name, "hostile": hostile, "load_before": load_average()}
                watch: Watch | None = None
                watcher: asyncio.Task[None] | None = None
                if hostile:
                    h, got = await hostile_arrives(server, keys)
                    info.update(got)
                    assert server.proc is not None
                    watch = Watch(got["pid"], server.proc.pid)
                    watcher = asyncio.ensure_future(watch.run())
                await asyncio.sleep(SETTLE)  # its start-up done, the SSH window filled; or a pause as long
                if h is not None and hostile:
                    before = {"sent": h.sent, "read": h.raw_bytes, "frames": h.sync_ends,
                              "rchar": io_field(info["pid"], "rchar"), "cpu": cpu_seconds(info["pid"])}  # fmt: skip
                assert server.proc is not None
                honest = [pid for pid in server.tree()["sessions"] if pid != info.get("pid")]
                waited = waits([server.proc.pid, *honest])
                t1 = time.perf_counter()
                info["usage"] = await window(load, server, name, length)
                span = time.perf_counter() - t1
                after = waits(list(waited))
                # what the honest programs and the server waited for a core, a second of the window
                info["runq"] = {
                    "server": (after[server.proc.pid] - waited[server.proc.pid]) / span,
                    "honest": sum(after[p] - waited[p] for p in honest if after[p] >= waited[p]) / span,
                }
                info["memory"] = memory(server)
                info["rt"] = round_trips(load, name)
                info["load_after"] = load_average()
                if h is not None and hostile and watch is not None and watcher is not None:
                    watch.look()
                    watcher.cancel()
                    await asyncio.gather(watcher, return_exceptions=True)
                    rchar = io_field(info["pid"], "rchar")
                    info.update(
                        span=span, peak=watch.peak, samples=watch.samples, far=h.far, answered=h.answered,
                        sent_total=h.sent, sent_rate=(h.sent - before["sent"]) / span,
                        read_rate=(h.raw_bytes - before["read"]) / span,
                        frames_rate=(h.sync_ends - before["frames"]) / span,
                        taken_rate=None if rchar is None or before["rchar"] is None else (rchar - before["rchar"]) / span,
                        cpu=(cpu_seconds(info["pid"]) - before["cpu"]) / span,
                        alive=h.alive() and not h.eof, server_rss=watch.server_rss, seen=dict(h.seen),
                    )  # fmt: skip
                    info["gone"] = await hostile_leaves(server, h, info["pid"])
                    h = None
                out["windows"].append(info)
    finally:
        load.stop = True
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if h is not None:
            h.close()
        for p in [p for pair in load.humans for p in pair]:
            p.close()
        await server.stop()
    out["stuck"], out["over"], out["stuck_screens"] = load.stuck, load.over, load.stuck_screens
    out["log_errors"] = [line for _, line in server.lines if "rror" in line or "Traceback" in line][:5]
    out["stderr"] = server.errors()[-2000:]
    out["hostile_log"] = [line for _, line in server.lines if line.startswith(HOSTILE + " ")]
    return out


HOSTILE_TABLES = 10  # figure 4: 20 honest sessions
FIG4, FIG4_QUICK = 45.0, 20.0  # s a window of figure 4
FIG4_PAIRS, FIG4_PAIRS_QUICK = 3, 2  # windows without and with the hostile session, alternated
SETTLE = 6.0  # s before each window of figure 4: the hostile session's start and the SSH window's fill
WATCH_EVERY = 0.5  # s between two looks at the hostile program's memory
GOAL_HOSTILE = 1.2  # figure 4: the honest p95 with the hostile session, x without it


# -- report -------------------------------------------------------------------------------------------


def report_start(s: dict[str, Any], reps: int) -> None:
    print(
        f"1. From the start to the first frame, fresh process in a pty of {COLS}x{ROWS}, {reps} runs each, alternated (medians)"
    )
    print(
        f"     local cabinet to its menu   {ms(med(s['local']))}   (min {ms(min(s['local']))}, max {ms(max(s['local']))})"
    )
    print(f"     ssh to the lobby            {ms(med(s['ssh']))}   (min {ms(min(s['ssh']))}, max {ms(max(s['ssh']))})")
    print(
        f"     ratio                       {s['ratio']:.2f}x   goal <= {GOAL_START}x   {verdict(s['ratio'] <= GOAL_START)}"
    )
    print(f"     cross-check: median of the side-by-side ratios {s['paired']:.2f}x")
    print(
        f"     where the ssh side's time goes: logged in at {ms(s['ssh_login'])} (ssh true, handshake and a refused "
        f"command, ends at {ms(s['probe'])}), child started {ms(s['ssh_started'])}, its first byte {ms(s['ssh_first_byte'])}, "
        f"lobby {ms(med(s['ssh']))};"
    )
    print(f"       the local cabinet's first byte at {ms(s['local_first_byte'])}, its menu {ms(med(s['local']))}")
    af = s["afresh"]
    print(
        f"     ssh to the lobby, --no-fork (each session's app exec'd afresh, as before issue 35): {ms(med(af))} "
        f"(min {ms(min(af))}, max {ms(max(af))}), {med(af) / med(s['local']):.2f}x the local start; child started "
        f"{ms(s['afresh_started'])}, its first byte {ms(s['afresh_first_byte'])}"
    )


def rt_line(r: dict[str, Any]) -> str:
    rt = r["rt"]
    if not rt:
        return "no round trip timed"
    return (
        f"p95 {ms(pct(rt, 0.95))}, median {ms(med(rt))}, p99 {ms(pct(rt, 0.99))}, max {ms(max(rt))} "
        f"({len(rt)} moves that passed the turn; {r['kept']} kept it, {r['lost']} lost)"
    )


def usage_line(u: dict[str, float], sessions: int) -> str:
    return (
        f"CPU (cores): server {u['server']:.2f}, its {sessions} session children {u['sessions']:.2f}, "
        f"bot workers & co {u['helpers']:.2f}, ssh clients {u['ssh']:.2f}, this driver {u['driver']:.2f}; "
        f"to the terminals {u['bytes'] / 1e6:.2f} MB/s, {u['frames']:.0f} frames/s"
    )


def report_tables_that_stuck(r: dict[str, Any]) -> None:
    """What the driver had to read again, and the tables whose screens stopped agreeing."""
    if REREADS[0]:
        print(f"   statuses read again from a screen's top line (not seen in its bytes): {REREADS[0]}")
    if r["stuck"] or r["over"]:
        print(f"   tables stuck (screens not agreeing for 10 s): {r['stuck']}; games that ended: {r['over']}")
        for table, screens in r["stuck_screens"].items():
            print(f"   table {table} stuck, its screens:\n{screens}")


def report_load(r: dict[str, Any], quick: bool) -> None:
    n = 2 * HUMAN_TABLES
    print(
        f"2. {n} SSH sessions, {HUMAN_TABLES} tables of {GAME} for 2 made by keys (set up in {r['setup']:.0f} s; "
        f"10 logins at once reach their lobbies in {', '.join(f'{x:.1f}' for x in r['logins'])} s)"
    )
    print(
        f"   a move every {r['pace'][0]:g}-{r['pace'][1]:g} s at each table, {FIG2 if not quick else FIG2_QUICK:.0f} s measured:"
    )
    f2 = r["fig2"]
    ok = bool(f2["rt"]) and pct(f2["rt"], 0.95) < GOAL_RT
    print(f"     key press to the other seat's screen   {rt_line(f2)}")
    print(f"     goal p95 < {ms(GOAL_RT)}   {verdict(ok)}")
    if f2["own"]:
        print(f"     (the mover's own screen: p95 {ms(pct(f2['own'], 0.95))}, median {ms(med(f2['own']))})")
    print(f"     {usage_line(r['usage2'], n)}")
    m = r["memory"]
    total = m["server_pss"] + m["sessions_pss"] + m["warm_pss"]
    print(
        f"     memory: (server PSS {m['server_pss'] / 1024:.0f} MiB + warm parent {m['warm_pss'] / 1024:.0f} MiB + "
        f"{m['sessions']} children's PSS {m['sessions_pss'] / 1024:.0f} MiB) / {m['sessions']} sessions = {total / 1024 / max(1, m['sessions']):.1f} MiB a session; "
        f"a child's RSS {med(m['child_rss']) / 1024:.0f} MiB (median); {m['helpers']} helper processes "
        f"{m['helpers_pss'] / 1024:.0f} MiB"
    )
    for key, pace, length in (("auct", r["pace"], 1), ("auct_slow", AUCTION_PACE, 2)):
        res = r[f"fig2_{key}"]
        if key == "auct":
            late = f"{r['auctions_after']} tables not yet" if r["auctions_after"] else "every table"
            print(
                f"   later, {late} in its auctions (after {r['auctions_reached']:.0f} s more of play), a move every {pace[0]:g}-{pace[1]:g} s, {length * (FIG2 if not quick else FIG2_QUICK):.0f} s measured:"
            )
        else:
            print(
                f"   then a move every {pace[0]:g}-{pace[1]:g} s at each table (a bidder's pace), {length * (FIG2 if not quick else FIG2_QUICK):.0f} s measured:"
            )
        ok = bool(res["rt"]) and pct(res["rt"], 0.95) < GOAL_RT
        print(f"     key press to the other seat's screen   {rt_line(res)}")
        print(f"     goal p95 < {ms(GOAL_RT)}   {verdict(ok)}")
        print(f"     {usage_line(r['usage_' + key], n)}")
    report_tables_that_stuck(r)
    if "fig3_error" in r:
        print(f"3. not measured: {r['fig3_error']}")
    if "windows" not in r:
        return
    print()
    print(
        f"3. The same load and {BOT_TABLES} tables of You against Bot: hard (set up in {r['bot_setup']:.0f} s), "
        f"the bots idle and busy in alternate windows of {FIG3 if not quick else FIG3_QUICK:.0f} s; "
        f"their player answers in {BOT_PACE[0]:g}-{BOT_PACE[1]:g} s; a move every {FIG3_PACE[0]:g}-{FIG3_PACE[1]:g} s at the human tables:"
    )
    idle = [x for name, busy, _, res, _ in r["windows"] if not busy for x in res["rt"]]
    busy = [x for name, b, _, res, _ in r["windows"] if b for x in res["rt"]]
    for name, b, use, res, drained in r["windows"]:
        presses = r["bot_presses"].get(name, 0)
        extra = f", {presses} moves against the bots" if b else f" (bots done {drained:.1f} s after)"
        print(f"     {name:<6} {rt_line(res)}{extra}")
        print(f"            {usage_line(use, n + BOT_TABLES)}")
    if idle and busy:
        pi, pb = pct(idle, 0.95), pct(busy, 0.95)
        print(
            f"     all idle windows: p95 {ms(pi)} ({len(idle)} moves); all busy windows: p95 {ms(pb)} ({len(busy)} moves); ratio {pb / pi:.2f}x"
        )
        print(f"     goal: the same p95, under {ms(GOAL_RT)}   {verdict(pb < GOAL_RT)} (busy p95 {ms(pb)})")
    m = r["memory3"]
    print(
        f"     memory with {m['sessions']} sessions: helpers (bot pool) {m['helpers']} processes, {m['helpers_pss'] / 1024:.0f} MiB PSS"
    )
    if r["log_errors"] or "Traceback" in r["stderr"]:
        print("   the server said:", r["log_errors"], r["stderr"][-500:])


def per_session(m: dict[str, Any], server: bool = False) -> float:
    """MiB a session: its program's PSS and its share of the warm parent's (and of the server's)."""
    total = m["sessions_pss"] + m["warm_pss"] + (m["server_pss"] if server else 0)
    return total / 1024 / max(1, m["sessions"])


def report_memory(runs: list[dict[str, Any]]) -> None:
    n = 2 * HUMAN_TABLES
    print(
        f"5. Memory a session, {n} sessions: idle in the lobby, then at {HUMAN_TABLES} tables of {GAME} "
        f"after {MEM_PLAY:.0f} s of play (PSS of the sessions' programs and of the warm parent, over the sessions)"
    )
    merging = ksm_running()
    print(
        f"   the machine's KSM {'runs' if merging else 'is off'} ({KSM}/run {ksm_read('run')}, "
        f"{ksm_read('pages_to_scan')} pages every {ksm_read('sleep_millisecs')} ms)"
        + ("; the memory of a server that asks for it read once its full scans merge no more" if merging else "")
    )
    for r in runs:
        lo, ta = r["lobby"], r["table"]
        how = r["name"]
        print(
            f"     {how:7} lobby {per_session(lo):5.1f} MiB (with the server {per_session(lo, True):5.1f}), "
            f"table {per_session(ta):5.1f} MiB (with the server {per_session(ta, True):5.1f}); "
            f"warm parent {ta['warm_pss'] / 1024:.0f} MiB, server {ta['server_pss'] / 1024:.0f} MiB, "
            f"a program's RSS {med(ta['child_rss']) / 1024 if ta['child_rss'] else 0:.0f} MiB; "
            f"{ta['sessions']} sessions ({r['forked']} forked, {r['afresh']} afresh), {r['moves']} moves; load {r['load']}"
        )
        if merging and r["ksm"] and r["fork"]:
            (a, b) = r["lobby_ksm"], r["table_ksm"]
            print(
                f"             read {a['wait']:.0f} s after the lobbies were drawn ({a['scans']} scans, ksmd {a['ksmd']:.1f} s "
                f"of CPU), {b['wait']:.0f} s after the play stopped ({b['scans']} scans, ksmd {b['ksmd']:.1f} s of CPU)"
            )
    for fork, goal_lobby, goal_table in ((True, 12.0, 16.0),):
        mine = [r for r in runs if r["fork"] is fork and r["ksm"]]  # as cabinet serve runs by default
        if mine:
            lobby = max(per_session(r["lobby"]) for r in mine)
            table = max(per_session(r["table"]) for r in mine)
            print(
                f"     forked (the server's default: KSM {'on' if merging else 'off on this machine'}), the worst round: lobby {lobby:.1f} MiB (goal <= {goal_lobby:g}) {verdict(lobby <= goal_lobby)}, "
                f"table {table:.1f} MiB (goal <= {goal_table:g}) {verdict(table <= goal_table)}"
            )


def kib(n: float) -> str:
    return f"{n / 1024:.1f} KiB" if n < 1024 * 1024 else f"{n / 1024 / 1024:.2f} MiB"


def report_hostile(r: dict[str, Any], quick: bool) -> None:
    n = 2 * HOSTILE_TABLES
    length = FIG4 if not quick else FIG4_QUICK
    if r["auctions_after"] is None:
        where = "in the games' first phase (the gifts: one move in four passes the turn)"
    else:
        late = f"{r['auctions_after']} tables not yet" if r["auctions_after"] else "every table"
        where = f"with {late} in its auctions (after {r['auctions_reached']:.0f} s of play)"
    print(
        f"4. {n} honest SSH sessions, {HOSTILE_TABLES} tables of {GAME} for 2 made by keys (set up in {r['setup']:.0f} s), "
        f"a move every {r['pace'][0]:g}-{r['pace'][1]:g} s at each table, {where};"
    )
    print(
        f"   windows of {length:.0f} s without and with a hostile session (ssh -tt, its pty {HOSTILE_SIZE}x{HOSTILE_SIZE}, "
        f"reading all it is sent, a key flood non-stop), alternated, each after {SETTLE:.0f} s for the hostile one to start:"
    )
    for w in r["windows"]:
        print(f"     {w['name']:<9} {rt_line(w['rt'])}")
        u = w["usage"]
        line = f"               {usage_line(u, n + (1 if w['hostile'] else 0))}; load {w['load_before']} -> {w['load_after']}"
        print(line)
        rq = w["runq"]
        moves = len(w["rt"]["rt"]) or 1
        print(
            f"               waiting for a core (run queue): the honest programs {rq['honest'] * 1000:.0f} ms a second in all "
            f"({rq['honest'] * length / moves * 1000:.1f} ms per move timed), the server {rq['server'] * 1000:.1f} ms a second"
        )
        if w["hostile"]:
            pk = w["peak"]
            rows, cols = w["claimed"]
            print(
                f"               hostile: pty {cols}x{rows}, taken as {w['given'][0]}x{w['given'][1]} (its farthest cursor: "
                f"column {w['far'][1]}, row {w['far'][0]}); its program (pid {w['pid']}) {w['cpu']:.2f} of a core, "
                f"peak RSS {pk['hwm'] / 1024:.0f} MiB (VmHWM), PSS {pk['pss'] / 1024:.0f} MiB, VmData {pk['data'] / 1024:.0f} MiB "
                f"({w['samples']} looks)"
            )
            taken = "?" if w["taken_rate"] is None else f"{w['taken_rate']:.0f} B/s"
            (t_a, r_a), (t_b, r_b) = w["server_rss"][0], w["server_rss"][-1]
            print(
                f"               the server's RSS {r_a / 1024:.0f} MiB at its start, {r_b / 1024:.0f} MiB at its end "
                f"({(r_b - r_a) / 1024 / (t_b - t_a):+.2f} MiB/s over {t_b - t_a:.0f} s)"
            )
            print(
                f"               sent it {kib(w['read_rate'])}/s ({w['frames_rate']:.1f} frames/s); keys the server passed on "
                f"{taken} (what its program read: rchar), ssh took {w['sent_rate']:.0f} B/s of the flood ({kib(w['sent_total'])} "
                f"since its start); gone {w['gone']:.1f} s after its ssh was killed"
                + ("" if w["alive"] else "; ITS SSH HAD ENDED")
            )
            print(
                "               drawn on its screen: "
                + ", ".join(f"{what} {w['seen'][mark]} times" for mark, what in HOSTILE_SEES.items())
            )
    without = [x for w in r["windows"] if not w["hostile"] for x in w["rt"]["rt"]]
    with_ = [x for w in r["windows"] if w["hostile"] for x in w["rt"]["rt"]]
    if without and with_:
        p0, p1 = pct(without, 0.95), pct(with_, 0.95)
        print(
            f"     all windows without: p95 {ms(p0)}, median {ms(med(without))} ({len(without)} moves); "
            f"with: p95 {ms(p1)}, median {ms(med(with_))} ({len(with_)} moves)"
        )
        print(f"     ratio of the p95s {p1 / p0:.2f}x   goal <= {GOAL_HOSTILE}x   {verdict(p1 / p0 <= GOAL_HOSTILE)}")
        a = [w["memory"] for w in r["windows"] if not w["hostile"]]
        b = [w["memory"] for w in r["windows"] if w["hostile"]]
        print(
            f"     the server's PSS: {', '.join(str(round(m['server_pss'] / 1024)) for m in a)} MiB without, "
            f"{', '.join(str(round(m['server_pss'] / 1024)) for m in b)} MiB with; an honest child's RSS "
            f"{med([x for m in a for x in m['child_rss']]) / 1024:.0f} MiB (median)"
        )
    report_tables_that_stuck(r)
    demoted = [line for line in r["hostile_log"] if "kept a core busy" in line]
    print(
        f"   the hostile sessions held to a share of a core (demoted), as the server logged it: {len(demoted)} of {len([w for w in r['windows'] if w.get('hostile')])}"
    )
    ended = [line for line in r["hostile_log"] if "session ended" in line]
    print(f"   the hostile sessions' ends, as the server logged them: {'; '.join(ended) or 'none logged'}")
    if r["log_errors"] or "Traceback" in r["stderr"]:
        print("   the server said:", r["log_errors"], r["stderr"][-500:])


def cleanup() -> None:
    """Whatever is still running of ours, ended (on an error, an interrupt)."""
    kill_ptys()
    for server in list(SERVERS):
        server.kill_left()


async def amain(args: argparse.Namespace) -> int:
    figures = {int(f) for f in args.figures.split(",")}
    quick = args.quick
    t_all = time.perf_counter()
    print("Cabinet serve benchmarks (bench/serve.py)" + (" --quick" if quick else ""))
    print("machine:", machine())
    print("tree:", tree(), "; load average at the start:", load_average())
    print()
    with tempfile.TemporaryDirectory(prefix="cabinet-serve-bench-") as name:
        tmp = Path(name)
        try:
            if 1 in figures:
                reps = 7 if quick else 21
                s = await bench_start(tmp, reps)
                report_start(s, reps)
                w = await spawn_wait(tmp, 10 if quick else 30)
                print(
                    f"     the event loop's wait to start a program ({len(w['fork'])} of each, alternated): "
                    f"the warm parent's fork {ms(med(w['fork']))} (max {ms(max(w['fork']))}), subprocess.Popen "
                    f"{ms(med(w['popen']))} (max {ms(max(w['popen']))}) from this small process: "
                    f"{med(w['fork']) / med(w['popen']):.2f}x"
                )
                print()
            if figures & {2, 3}:
                r = await bench_load(tmp, quick, figures)
                report_load(r, quick)
                print()
            if 4 in figures:
                r4 = await bench_hostile(tmp, quick)
                report_hostile(r4, quick)
                print()
            if 5 in figures:
                r5 = await bench_memory(tmp, quick)
                report_memory(r5)
                print()
        finally:
            kill_ptys()
            for server in list(SERVERS):
                await server.stop()
    print(f"bench run took {time.perf_counter() - t_all:.0f} s; load average at the end: {load_average()}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="shorter windows, fewer runs (a rough look)")
    ap.add_argument(
        "--figures", default="1,2,3,4,5", help="which figures, e.g. 1 or 2,3 (3 runs with 2's load), 4 or 5"
    )
    ap.add_argument(
        "--tables", type=int, default=HUMAN_TABLES, help=f"human tables of figure 2 (default {HUMAN_TABLES})"
    )
    ap.add_argument(
        "--pace",
        default=f"{PACE[0]:g},{PACE[1]:g}",
        help=f"LO,HI: s between two moves at a human table, uniform (default {PACE[0]:g},{PACE[1]:g})",
    )
    ap.add_argument(
        "--bot-pace",
        default=None,
        help="LO,HI: s the player at a bot's table takes to answer in figure 3 (default: --pace; 0,0: at once)",
    )
    ap.add_argument(
        "--auction-pace",
        default=f"{AUCTION_PACE[0]:g},{AUCTION_PACE[1]:g}",
        help=f"LO,HI: s between two moves in figure 2's second window of the auctions (default {AUCTION_PACE[0]:g},{AUCTION_PACE[1]:g})",
    )
    ap.add_argument(
        "--fig3-pace",
        default=None,
        help="LO,HI: s between two moves at the human tables during figure 3 (default: --pace)",
    )
    ap.add_argument(
        "--bot-tables",
        type=int,
        default=BOT_TABLES,
        help=f"tables against a hard bot in figure 3 (default {BOT_TABLES})",
    )
    ap.add_argument(
        "--fig4-tables",
        type=int,
        default=HOSTILE_TABLES,
        help=f"honest tables of figure 4, two sessions each (default {HOSTILE_TABLES})",
    )
    args = ap.parse_args(argv)

    def seconds(option: str, text: str, zero: bool = False) -> tuple[float, float]:
        """LO,HI in seconds, 0 < LO <= HI (0 <= LO where ``zero``), or the parser's error."""
        try:
            lo, hi = (float(x) for x in text.split(","))
            if (lo >= 0 if zero else lo > 0) and lo <= hi:
                return lo, hi
        except ValueError:
            pass
        ap.error(
            f"{option} takes LO,HI in seconds, {'0 <=' if zero else '0 <'} LO <= HI (e.g. {'0,0' if zero else '3,6'})"
        )

    pace = seconds("--pace", args.pace)
    bot_pace = pace if args.bot_pace is None else seconds("--bot-pace", args.bot_pace, zero=True)
    auction_pace = seconds("--auction-pace", args.auction_pace)
    fig3_pace = pace if args.fig3_pace is None else seconds("--fig3-pace", args.fig3_pace)
    globals().update(
        HUMAN_TABLES=args.tables,
        BOT_TABLES=args.bot_tables,
        HOSTILE_TABLES=args.fig4_tables,
        PACE=pace,
        BOT_PACE=bot_pace,
        AUCTION_PACE=auction_pace,
        FIG3_PACE=fig3_pace,
    )
    loop = asyncio.new_event_loop()
    task = loop.create_task(amain(args))
    for sig in (signal.SIGTERM, signal.SIGHUP):
        loop.add_signal_handler(sig, task.cancel)
    try:
        return loop.run_until_complete(task)
    except (KeyboardInterrupt, asyncio.CancelledError):
        print("interrupted", file=sys.stderr)
        return 130
    finally:
        cleanup()
        loop.close()


if __name__ == "__main__":
    raise SystemExit(main())
