"""A warm parent for ``cabinet serve``'s sessions (issue 35): fork, not exec.

A session's program used to be a fresh ``python -m cabinet lobby``: each imported Python,
Textual and Cabinet afresh (29 MiB of its own idle in the lobby, and the imports before its
first frame).  Here a process of its own, the *warm parent*, imports all of it once, freezes
its heap (``gc.freeze``: the collector never writes to those objects again, so their pages stay
shared) and forks each session's program on request from the SSH front, which then shares
every page the session does not write to; and of those it writes, the kernel shares again
the ones that come back alike, where the machine runs KSM (:func:`merge_pages`).

Two sides, one module (standard library only: the warm parent's memory is every session's):

* :func:`serve_forks`, the warm parent's loop.  It is single-threaded and has no event loop:
  it reads a request (the session's argv, environment, directory, umask and limits, with the
  pty's slave descriptor passed alongside, ``SCM_RIGHTS``), forks twice, answers the
  session's pid, and reads the next.  The grandchild becomes the session: a session of its
  own (``setsid``) with the pty as its controlling terminal and as 0, 1 and 2, the limits,
  the umask, the directory, the environment it was sent and nothing else (every other
  descriptor closed, the request's own environment in place of the warm parent's, shown in
  ``/proc/PID/environ`` and ``cmdline`` as an exec'd program's would be, ``random``
  reseeded); then it runs the program in place if the warm parent is warm for it (its argv
  starts with ``warm_for``), else it execs it.
* :class:`WarmParent`, the front's side: starts the warm parent, asks it for a session
  (:meth:`WarmParent.spawn`), and starts a new one when it ends.  While none is ready
  (starting, or gone) ``spawn`` says so and the front starts the session the old way
  (exec), so that no player is refused for the warm parent's trouble.

Who reaps a session: the front.  The front's process is made a *child subreaper*
(``PR_SET_CHILD_SUBREAPER``) and the warm parent double-forks: the middle process exits at
once, and the session, orphaned, is adopted by the front before the warm parent answers.  The
front is then the parent of every session's program as it was with exec: it reaps it itself
(its exit status comes from the kernel, not from another process's word), signals its group
knowing its id cannot have been reused (it is not reaped yet), and a warm parent that dies
costs no running session anything (none is its child).  The cost: any orphan of the server's
descendants comes to the server too; a session's group is killed when it ends, the bot
workers start nothing, so the sessions are the only ones.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import errno
import fcntl
import gc
import json
import locale
import os
import random
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import termios
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

#: where the warm parent finds its socket's descriptor (the front passes it, and names it here)
ENV_SOCKET = "CABINET_WARM_SOCKET"
#: a variable of the warm parent's own environment, as long as its value: the room each forked
#: session writes its own environment into, for ``/proc/PID/environ`` to show (see _show_as)
ENV_ROOM = "CABINET_WARM_ROOM"
ROOM = 8 * 1024
REQUEST_MAX = 256 * 1024  # bytes of a request; one longer is refused (the session starts the old way)
#: seconds the front waits for an answer (the event loop waits with it: two forks take a few
#: milliseconds); past it the session is started afresh, and a late answer's session ended
ANSWER_WAIT = 2.0
LATE_WAIT = 30.0  # seconds a late answer may take before the warm parent is taken for hung, and replaced
RETRY = 5.0  # seconds between two starts of a warm parent that ended...
RETRY_MAX = 300.0  # ...doubled each time one ends before it was ever ready, up to this
SAID_MAX = 40  # lines a warm parent may write (its errors) that go to the log
SETUP_FAILED = 70  # exit status of a session that could not be set up (EX_SOFTWARE)
PR_SET_CHILD_SUBREAPER = 36
#: set to "1" in the warm parent's environment: it asks the kernel to merge its pages and its
#: sessions' with any identical page (KSM), see merge_pages
ENV_MERGE = "CABINET_WARM_MERGE"
PR_SET_MEMORY_MERGE = 67  # Linux 6.4: KSM over every mapping of a process, kept by its children
KSM_RUN = "/sys/kernel/mm/ksm/run"  # the machine's KSM: 1 while it runs (the administrator's)
#: what the front's log says of the warm parent's pages, after "Sessions are forked from a warm
#: parent (pid N)", by what merge_pages answered ("off": not asked, cabinet serve --no-ksm)
MERGE_SAID = {
    "on": ", and the kernel shares the memory pages they have in common (KSM).",
    "stopped": (
        f". Page merging (KSM) is off on this machine: with it on (1 written to {KSM_RUN}),"
        " sessions take much less memory (docs/SCALING.md)."
    ),
    "unsupported": (
        ". This kernel cannot merge a process's pages (KSM, Linux 6.4 and later):"
        " each session keeps its own copy of every page it writes."
    ),
    "refused": ". The kernel refused to merge the sessions' pages (KSM): each keeps its own copy of every page it writes.",
    "off": "; the kernel is not asked to share the memory pages they have in common (KSM: --no-ksm).",
}


# -- the warm parent -------------------------------------------------------------------------------


def serve_forks(run: Callable[[list[str]], int | None], warm_for: list[str]) -> int:
    """The warm parent's loop, once everything is imported: the heap is frozen, the front
    told that it is ready, and each request forks a session (see the module's text).
    Returns when the front has gone (its end of the socket closed)."""
    fd = int(os.environ.pop(ENV_SOCKET))
    os.environ.pop(ENV_ROOM, None)
    merging = merge_pages() if os.environ.pop(ENV_MERGE, "") == "1" else "off"
    sock = socket.socket(fileno=fd)
    gc.collect()
    gc.freeze()
    sock.sendall(json.dumps({"ready": os.getpid(), "merge": merging}).encode())
    while True:
        try:
            data, fds, flags, _ = socket.recv_fds(sock, REQUEST_MAX, 1)
        except InterruptedError:
            continue
        except OSError:
            return 1
        if not data and not fds:
            return 0  # the front is gone
        answer: dict[str, Any]
        try:
            if flags & (socket.MSG_TRUNC | socket.MSG_CTRUNC) or len(fds) != 1:
                answer = {"error": "a request the warm parent could not read whole"}
            else:
                answer = _fork(sock, json.loads(data), fds[0], run, warm_for)
        except Exception as exc:  # noqa: BLE001 - this request only: the front starts it the old way
            answer = {"error": f"{type(exc).__name__}: {exc}"}
        finally:
            for given in fds:
                os.close(given)
        try:
            sock.sendall(json.dumps(answer).encode())
        except OSError:
            return 1


def merge_pages() -> str:
    """Asks the kernel to merge every page of this process, and of the sessions it forks (a
    process's children keep the setting), with any page of the same content (KSM,
    ``PR_SET_MEMORY_MERGE``).  A forked session writes a reference count into most of the
    pages it reads (CPython 3.11), and so holds a copy of its own of each, which comes back
    the same as the warm parent's or another session's once the count is back where it was:
    the kernel's scanner finds those and shares them again.  What came of it, for the log:
    "on"; "stopped" (the machine's KSM is not running: the administrator's to start);
    "unsupported" (a kernel before Linux 6.4, or built without KSM); "refused"."""
    if not sys.platform.startswith("linux"):
        return "unsupported"
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if int(libc.prctl(PR_SET_MEMORY_MERGE, 1, 0, 0, 0)) != 0:
            return "unsupported" if ctypes.get_errno() == errno.EINVAL else "refused"
    except (OSError, AttributeError):
        return "unsupported"
    try:
        with open(KSM_RUN, encoding="ascii") as f:
            running = f.read().strip() == "1"
    except OSError:
        running = False
    return "on" if running else "stopped"


def _fork(
    sock: socket.socket,
    request: dict[str, Any],
    slave: int,
    run: Callable[[list[str]], int | None],
    warm_for: list[str],
) -> dict[str, Any]:
    """The session forked (through a middle process that exits at once, so that the front
    adopts it); its pid, or why not."""
    if threading.active_count() != 1:  # a thread's locks would be held for ever in the child
        return {"error": "the warm parent has threads"}
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    r, w = os.pipe()
    middle = os.fork()
    if middle == 0:
        try:
            os.close(r)
            pid = os.fork()
            if pid == 0:
                os.close(w)
                _become(sock, request, slave, run, warm_for)  # never returns
            os.write(w, str(pid).encode())
        finally:
            os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as told:
        said = told.read()
    os.waitpid(middle, 0)
    if not said:
        return {"error": "the session's process was not made"}
    return {"pid": int(said)}


def _become(
    sock: socket.socket,
    request: dict[str, Any],
    slave: int,
    run: Callable[[list[str]], int | None],
    warm_for: list[str],
) -> None:
    """In the forked session: what the front sets up for an exec'd program, then the program."""
    try:
        argv: list[str] = [str(a) for a in request["argv"]]
        env: dict[str, str] = {str(k): str(v) for k, v in request["env"].items()}
        sock.detach()  # closed below with the rest: the object must never close a number reused later
        os.setsid()
        for fd in (0, 1, 2):
            os.dup2(slave, fd)
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)
        for name, value in request["limits"].items():
            resource.setrlimit(getattr(resource, name), (value, value))
        os.umask(request["umask"])
        os.chdir(request["cwd"])
        os.closerange(3, os.sysconf("SC_OPEN_MAX") if os.sysconf("SC_OPEN_MAX") > 0 else 65536)
        os.environ.clear()
        os.environ.update(env)
        tempfile.tempdir = None  # found again from TMPDIR, the session's, if ever the warm parent looked
        with contextlib.suppress(locale.Error):  # the session's LANG and LC_*, as Python sets them at a start
            locale.setlocale(locale.LC_CTYPE, "")
        _show_as(argv, env)
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(AttributeError):
                stream.reconfigure(line_buffering=True)  # type: ignore[union-attr]  # a terminal's, as at a start
        random.seed()
    except BaseException as exc:  # noqa: BLE001 - nothing may return into the warm parent's loop
        with contextlib.suppress(OSError):
            os.write(2, f"Cabinet could not set up this session ({type(exc).__name__}: {exc}).\r\n".encode())
        os._exit(SETUP_FAILED)
    code = 0
    try:
        if argv[: len(warm_for)] == warm_for:
            sys.argv = [sys.argv[0], *argv[len(warm_for) :]]
            code = run(argv[len(warm_for) :]) or 0
        else:
            os.execve(argv[0], argv, env)
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            code = exc.code or 0
        else:
            print(exc.code, file=sys.stderr)
            code = 1
    except BaseException:  # noqa: BLE001 - as Python ends on an uncaught exception
        traceback.print_exc()
        code = 1
    finally:
        with contextlib.suppress(BaseException):
            atexit._run_exitfuncs()
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(BaseException):
                stream.flush()
        os._exit(code if 0 <= code <= 255 else 1)


def _show_as(argv: list[str], env: dict[str, str]) -> None:
    """``/proc/PID/cmdline`` and ``environ`` (what ``ps`` and an operator read) say this
    session's argv and environment, as an exec'd program's would, not the warm parent's:
    both are written over the warm parent's own, in place, as far as there is room (its
    environment carries ENV_ROOM's bytes for that).  Through ``/proc/self/mem``: an address
    read wrong fails a write, never the process."""
    try:
        with open("/proc/self/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        arg_start, arg_end, env_start, env_end = (int(fields[i]) for i in (45, 46, 47, 48))  # fields 48 to 51
    except (OSError, IndexError, ValueError):
        return
    areas = (
        (arg_start, arg_end, [a.encode() for a in argv]),
        (env_start, env_end, [f"{k}={v}".encode() for k, v in env.items()]),
    )
    with contextlib.suppress(OSError), open("/proc/self/mem", "r+b", buffering=0) as mem:
        for start, end, items in areas:
            room = end - start
            if not 0 < room <= 1 << 20:
                continue
            out = bytearray()
            for item in items:
                if b"\0" in item or len(out) + len(item) + 1 > room:
                    break
                out += item + b"\0"
            mem.seek(start)
            mem.write(bytes(out) + b"\0" * (room - len(out)))


# -- the front's side ------------------------------------------------------------------------------


def adopt_orphans() -> bool:
    """This process becomes a child subreaper (Linux): the orphans among its descendants are
    its children, the sessions a warm parent forks among them.  False where it cannot."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


class Adopted:
    """A session's program forked by the warm parent and adopted by this process: reaped
    here, as ``subprocess.Popen``'s (``pid``, ``returncode``, ``poll``)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:  # not this process's child after all: it is not known how it ended
                self.returncode = 1
            else:
                if pid:
                    self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode


class WarmParent:
    """The front's handle on the warm parent: ``argv`` and ``env`` start it (its
    environment is the caller's whole: nothing of the server's), in ``cwd``.

    ``start()`` once (False where forking sessions is not possible here: the front then
    execs each, as before); ``spawn(...)`` for each session: its ``Adopted`` process, or None
    when no warm parent is ready (the caller starts the program the old way); a warm parent
    that ends, or fails to answer, is replaced (at most once every RETRY seconds).
    ``close()`` ends it.  Called on the event loop; ``spawn`` waits for the answer (the two
    forks of a process that has nothing else to do: a millisecond or two)."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: str, log: Callable[[str], None]) -> None:
        self.argv, self.env, self.cwd, self.log = list(argv), dict(env), cwd, log
        self.proc: subprocess.Popen[bytes] | None = None
        self.sock: socket.socket | None = None
        self.ready = False
        self.closed = False
        self.started_at = -RETRY
        self.restart_handle: Any = None
        self.owed = 0  # answers not read in time: each may name a session forked too late
        self.failures = 0  # warm parents in a row that ended before they were ready
        self.errors: int | None = None  # what the warm parent writes (its errors), read for the log
        self.said = b""
        self.lines_said = 0
        self.late_handle: Any = None
        self.loop: Any = None
        self.pid: int | None = None  # the ready warm parent's

    def start(self) -> bool:
        import asyncio

        self.loop = asyncio.get_running_loop()
        if not hasattr(socket, "send_fds") or not adopt_orphans():
            self.log("Sessions are started afresh: this system cannot fork them from a warm parent.")
            return False
        self._launch()
        return True

    def _launch(self) -> None:
        self.restart_handle = None
        if self.closed:
            return
        self.started_at = time.monotonic()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        errors, written = os.pipe()
        try:
            env = {**self.env, ENV_SOCKET: str(theirs.fileno()), ENV_ROOM: "." * ROOM}
            self.proc = subprocess.Popen(
                self.argv,
                env=env,
                cwd=self.cwd,
                stdin=subprocess.DEVNULL,
                stdout=written,
                stderr=written,
                pass_fds=(theirs.fileno(),),
                start_new_session=True,  # the operator's Ctrl-C is the server's to handle, not its
                close_fds=True,
            )
        except OSError as exc:
            ours.close()
            os.close(errors)
            self.log(f"The warm parent could not start ({exc.strerror or exc}); sessions are started afresh.")
            self.failures += 1
            self._again()
            return
        finally:
            theirs.close()
            os.close(written)
        ours.setblocking(False)
        self.sock = ours
        self.loop.add_reader(ours.fileno(), self._heard)
        os.set_blocking(errors, False)
        self.errors, self.said, self.lines_said = errors, b"", 0
        self.loop.add_reader(errors, self._read_errors)

    def _read_errors(self) -> bool:
        """What the warm parent writes (nothing, unless something is wrong: a traceback), to the
        log a line at a time, SAID_MAX lines at most, without control characters.  Whether
        there may be more to read now."""
        if self.errors is None:
            return False
        try:
            data = os.read(self.errors, 4096)
        except BlockingIOError:
            return False
        except OSError:
            data = b""
        if not data:
            self.loop.remove_reader(self.errors)
            os.close(self.errors)
            self.errors = None
            data = b"\n" if self.said else b""
        self.said += data
        *lines, self.said = self.said.split(b"\n")
        self.said = self.said[-4096:]
        for line in lines:
            if self.lines_said < SAID_MAX and line.strip():
                self.lines_said += 1
                text = "".join(c if c.isprintable() else "?" for c in line.decode(errors="replace").rstrip())
                self.log(f"The warm parent says: {text[:300]}")
        return self.errors is not None

    def _heard(self) -> None:
        """The socket is readable between requests: the warm parent is ready, or gone."""
        if self.sock is None:
            return
        try:
            data = self.sock.recv(4096)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self._lost("it ended")
            return
        with contextlib.suppress(ValueError, TypeError, AttributeError):
            said = json.loads(data)
            if "ready" in said:
                self.ready, self.pid, self.failures = True, int(said["ready"]), 0
                merging = MERGE_SAID.get(str(said.get("merge")), ".")
                self.log(f"Sessions are forked from a warm parent (pid {self.pid}){merging}")
            elif self.owed:  # an answer that came too late: its session was started afresh meanwhile
                self.owed -= 1
                if not self.owed and self.late_handle is not None:
                    self.late_handle.cancel()
                    self.late_handle = None
                if "pid" in said:
                    self._end_stray(Adopted(int(said["pid"])))

    def _end_stray(self, stray: Adopted) -> None:
        """A session forked after its answer was given up on: killed (it leads its group, and
        is this process's child: its id cannot be another's until it is reaped here) and reaped."""
        if stray.poll() is None:
            with contextlib.suppress(OSError):
                os.killpg(stray.pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                os.kill(stray.pid, signal.SIGKILL)
            self.loop.call_later(0.1, self._reap_stray, stray, 50)
        self.log(f"A session the warm parent forked too late (pid {stray.pid}) was ended.")

    def _reap_stray(self, stray: Adopted, tries: int) -> None:
        if stray.poll() is None and tries > 0:
            self.loop.call_later(0.1, self._reap_stray, stray, tries - 1)

    def _overdue(self) -> None:
        self.late_handle = None
        if self.owed:
            self._lost(f"no answer within {LATE_WAIT:g} s")

    def _lost(self, why: str) -> None:
        """The warm parent is gone, or of no use: ended, and another started."""
        proc = self.proc
        if not self.ready:
            self.failures += 1
        self._end(kill=True)
        if not self.closed:
            status = "" if proc is None or proc.returncode is None else f", exit status {proc.returncode}"
            pid = proc.pid if proc is not None else "?"
            self.log(
                f"The warm parent (pid {pid}) is gone ({why}{status}); sessions are started afresh until another is ready."
            )
            self._again()

    def _again(self) -> None:
        if self.closed or self.restart_handle is not None or self.loop is None:
            return
        retry = min(RETRY * 2 ** max(0, self.failures - 1), RETRY_MAX)
        wait = max(0.0, self.started_at + retry - time.monotonic())
        self.restart_handle = self.loop.call_later(wait, self._launch)

    def _end(self, kill: bool) -> None:
        self.ready, self.pid, self.owed = False, None, 0
        if self.late_handle is not None:
            self.late_handle.cancel()
            self.late_handle = None
        if self.sock is not None:
            with contextlib.suppress(Exception):
                self.loop.remove_reader(self.sock.fileno())
            self.sock.close()  # the warm parent reads the end of its socket, and returns
            self.sock = None
        proc, self.proc = self.proc, None
        if proc is not None:
            if kill:
                with contextlib.suppress(OSError):
                    proc.kill()
            try:
                proc.wait(timeout=2.0)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for _ in range(SAID_MAX):  # what it wrote before it went, to the log (its end is closed now)
            if self.errors is None or not self._read_errors():
                break
        if self.errors is not None:
            self.loop.remove_reader(self.errors)
            os.close(self.errors)
            self.errors = None

    def spawn(
        self, argv: list[str], env: dict[str, str], cwd: str, slave: int, limits: dict[str, int]
    ) -> Adopted | None:
        """The session's program forked, ``slave`` its terminal; None if no warm parent is ready."""
        sock = self.sock
        if not self.ready or sock is None or self.owed:
            if self.proc is not None and self.proc.poll() is not None:
                self._lost(f"exit status {self.proc.returncode}")
            return None
        request = json.dumps({"argv": argv, "env": env, "cwd": cwd, "umask": 0o077, "limits": limits}).encode()
        if len(request) > REQUEST_MAX:
            return None
        try:
            sock.settimeout(ANSWER_WAIT)
            socket.send_fds(sock, [request], [slave])
            data = sock.recv(4096)
        except TimeoutError:
            self.owed += 1
            if self.late_handle is None:
                self.late_handle = self.loop.call_later(LATE_WAIT, self._overdue)
            self.log(f"The warm parent did not answer within {ANSWER_WAIT:g} s; this session is started afresh.")
            return None
        except OSError as exc:
            self._lost(f"it could not be asked: {exc.strerror or exc}")
            return None
        finally:
            if self.sock is sock:
                sock.setblocking(False)
        if not data:
            self._lost("it ended")
            return None
        try:
            answer = json.loads(data)
            pid = int(answer["pid"]) if "pid" in answer else None
        except (ValueError, TypeError, AttributeError):
            self._lost("it answered what cannot be read")
            return None
        if pid is None:
            self.log(f"The warm parent could not fork a session ({answer.get('error')}); it is started afresh.")
            return None
        return Adopted(pid)

    def close(self) -> None:
        self.closed = True
        if self.restart_handle is not None:
            self.restart_handle.cancel()
            self.restart_handle = None
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(OSError):
                self.proc.send_signal(signal.SIGTERM)
        self._end(kill=False)
