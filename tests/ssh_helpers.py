"""Driving ``net.ssh``'s front with the real OpenSSH client, for the tests.

Three parts, one file:

* the stand-in child (``python ssh_helpers.py child DIR``): what the front starts
  for each session instead of the Cabinet app.  It says who it is, its terminal
  and its size, echoes every line typed, says its new size on SIGWINCH, and
  writes its pid to DIR/NAME.pid, so that a test can see it end; its warm parent
  (``python ssh_helpers.py zygote DIR``, ``net.zygote``) forks it, for a front
  started with ``warm=True``;
* the launcher (``python ssh_helpers.py front CONFIG``): a front in a process of
  its own, as ``cabinet serve`` runs it, that prints its log (``LOG ...``), each
  session's Login and end, and ``READY PORT FINGERPRINT``; SIGTERM closes it;
* for the tests: ``Front`` runs a launcher and reads its lines; ``Player`` is an
  ``ssh -tt`` under pexpect; ``run_ssh`` runs ssh to its end.

Everything waits on a condition with a deadline, never on a fixed sleep.
"""

from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
REPO = HERE.parent.parent
WAIT = 10.0  # seconds any one thing may take before a test fails


# -- the stand-in child -----------------------------------------------------------------------

#: what Textual writes of its terminal's modes when it starts, and when it ends well: the
#: other screen, the cursor hidden, the mouse reported, bracketed paste, focus reports, and
#: the kitty keyboard protocol
SCREEN_ON = "\x1b[?1049h\x1b[?25l\x1b[?1000h\x1b[?1003h\x1b[?1015h\x1b[?1006h\x1b[?2004h\x1b[?1004h\x1b[>1u"
SCREEN_OFF = "\x1b[?1000l\x1b[?1003l\x1b[?1015l\x1b[?1006l\x1b[?2004l\x1b[<u\x1b[?1049l\x1b[?25h\x1b[?1004l"


def modes_left_on(output: bytes | str) -> list[str]:
    """Of the modes SCREEN_ON sets, those a terminal that was sent ``output`` is left in:
    each mode's last word, set or reset, is the one that stands."""
    text = output.decode("utf-8", "replace") if isinstance(output, bytes) else output
    left = []
    for mode in ("1049", "1000", "1003", "1015", "1006", "2004", "1004"):
        if text.rfind(f"\x1b[?{mode}h") > text.rfind(f"\x1b[?{mode}l"):
            left.append(f"?{mode}h")
    if text.rfind("\x1b[?25l") > text.rfind("\x1b[?25h"):
        left.append("cursor hidden")
    if text.rfind("\x1b[>1u") > text.rfind("\x1b[<u"):
        left.append("kitty keyboard")
    return left


FORKED = False  # the stand-in was forked by its warm parent, not exec'd


def warm_stand_in() -> None:
    """The stand-in's warm parent: it forks each session's stand-in and runs it in place."""
    global FORKED
    sys.path.insert(0, str(REPO))
    import net.zygote
    from net.zygote import serve_forks

    FORKED = True
    if os.environ.get("STAND_IN_WARM_FAILS"):  # a warm parent that cannot start (a broken install)
        raise RuntimeError("the stand-in's warm parent cannot start")
    slow = float(os.environ.get("STAND_IN_SLOW_FORK", "0"))
    if slow:  # a warm parent that answers late (a machine under load, a bug): it sleeps, then forks
        fork = net.zygote._fork

        def late(*args: Any) -> dict[str, Any]:
            time.sleep(slow)
            return fork(*args)

        net.zygote._fork = late
    sys.exit(serve_forks(run=lambda args: stand_in(args[0]), warm_for=[sys.executable, str(HERE), "child"]))


def stand_in(directory: str) -> None:
    import random

    name = os.environ.get("STAND_IN_NAME", "?")
    Path(directory, f"{name}.pid").write_text(str(os.getpid()))

    def size() -> str:
        cols, rows = os.get_terminal_size(0)
        return f"{cols}x{rows}"

    # before it says who it is: a test may change the size as soon as it has read that. The
    # handler writes to the descriptor itself: print() from a handler that interrupts a print()
    # is "reentrant call inside <_io.BufferedWriter>" (seen once in CI)
    signal.signal(signal.SIGWINCH, lambda *_: os.write(1, f"RESIZED={size()}\n".encode()))
    try:
        foreground = "yes" if os.tcgetpgrp(0) == os.getpgrp() else "no"  # ENOTTY: no controlling terminal
    except OSError:
        foreground = "none"
    print(
        f"NAME={name} TERM={os.environ.get('TERM')} COLORTERM={os.environ.get('COLORTERM', '-')} "
        f"SIZE={size()} PID={os.getpid()} FOREGROUND={foreground}",
        flush=True,
    )
    print("ENV=" + ",".join(sorted(os.environ)), flush=True)
    print(f"FORKED={'yes' if FORKED else 'no'} RANDOM={random.random()!r}", flush=True)
    import resource

    umask = os.umask(0)
    os.umask(umask)
    home = os.environ.get("HOME", "")
    print(
        f"HOME={home} CWD={os.getcwd()} UMASK={umask:03o} PATH={os.environ.get('PATH')} TMPDIR={os.environ.get('TMPDIR')} "
        f"HOMEFILES={len(os.listdir(home)) if os.path.isdir(home) else -1} "
        f"DATA={resource.getrlimit(resource.RLIMIT_DATA)[0]} FSIZE={resource.getrlimit(resource.RLIMIT_FSIZE)[0]}",
        flush=True,
    )
    for line in sys.stdin:
        line = line.rstrip("\r\n")
        if line.startswith("exit "):
            sys.exit(int(line[5:]))
        if line in ("screen", "unscreen"):  # what a full-screen app does to its terminal, and undoes
            sys.stdout.write(SCREEN_ON if line == "screen" else SCREEN_OFF)
            print(f"{line.upper()} DONE", flush=True)
            continue
        if line.startswith("spin "):  # a program kept busy: CPU for N seconds, then its priority
            end = time.process_time() + float(line[5:])
            while time.process_time() < end:
                pass
            try:  # the nice of its session's scheduling group, where Linux has them
                group = Path("/proc/self/autogroup").read_text().split()[-1]
            except OSError:
                group = "-"
            print(f"SPUN NICE={os.getpriority(os.PRIO_PROCESS, 0)} GROUP={group}", flush=True)
            continue
        if line.startswith("flood "):  # lines numbered 0 to N-1, as fast as the terminal takes them
            out = sys.stdout.buffer
            for start in range(0, int(line[6:]), 1000):
                out.write(b"".join(b"%08d\n" % i for i in range(start, min(start + 1000, int(line[6:])))))
            out.flush()
            print("FLOOD DONE", flush=True)
            continue
        print(f"GOT:{line}", flush=True)


# -- the launcher -----------------------------------------------------------------------------


def launch(config_path: str) -> None:
    import asyncio
    from dataclasses import asdict

    sys.path.insert(0, str(REPO))
    from net.ssh import FrontLimits, Login, SSHFront

    config = json.loads(Path(config_path).read_text())

    def say(line: str) -> None:
        print(line, flush=True)

    def child(login: Login) -> tuple[list[str], dict[str, str]]:
        say("LOGIN " + json.dumps(asdict(login)))
        return [sys.executable, str(HERE), "child", config["pids"]], {"STAND_IN_NAME": login.name}

    if config.get("no_subreaper"):  # a system where sessions cannot be forked from a warm parent
        import net.zygote

        net.zygote.adopt_orphans = lambda: False

    async def main() -> None:
        front = SSHFront(
            Path(config["data"]),
            allow=Path(config["allow"]) if config.get("allow") else None,
            child=child,
            on_end=lambda login: say(f"END {login.name}"),
            seated=lambda login: login.name not in config.get("unseated", []),  # the rest only watch
            limits=FrontLimits(**config.get("limits", {})),
            log=lambda line: say("LOG " + line),
            warm=(
                [sys.executable, str(HERE), "zygote", config["pids"]],
                {
                    "STAND_IN_SLOW_FORK": str(config.get("slow_fork") or 0),
                    "STAND_IN_WARM_FAILS": config.get("warm_fails") or "",
                },
            )
            if config.get("warm")
            else None,
        )
        _, port = await front.start("127.0.0.1", 0)
        say(f"READY {port} {front.host_fingerprint}")
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        loop.add_signal_handler(signal.SIGTERM, stop.set)

        def command() -> None:
            line = sys.stdin.readline()
            if not line:
                stop.set()
            elif line.strip() == "sessions":
                say(f"SESSIONS {front.sessions}")

        loop.add_reader(sys.stdin.fileno(), command)
        await stop.wait()
        loop.remove_reader(sys.stdin.fileno())
        await front.close()
        say(f"CLOSED {front.sessions}")

    asyncio.run(main())


# -- for the tests ----------------------------------------------------------------------------


def until(condition: Callable[[], Any], timeout: float = WAIT, what: str = "a condition") -> Any:
    """Poll ``condition`` until it is true (its value returned), or fail at the deadline."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout} s")
        time.sleep(0.02)


def keygen(directory: Path, name: str) -> Path:
    """A new ed25519 key pair, DIRECTORY/NAME and NAME.pub, without a passphrase."""
    path = directory / name
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(path)], check=True)
    return path


def fingerprint(key: Path) -> str:
    out = subprocess.run(
        ["ssh-keygen", "-l", "-E", "sha256", "-f", str(key)], check=True, capture_output=True, text=True
    ).stdout
    return out.split()[1]


def client_env(home: Path, **more: str) -> dict[str, str]:
    """The ssh client's environment: none of the tester's (no agent, no config)."""
    return {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(home),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        **more,
    }


def ssh_args(
    port: int,
    key: Path | list[Path],
    user: str,
    *extra: str,
    tty: bool = True,
    command: list[str] | None = None,
    batch: bool = True,
) -> list[str]:
    """``batch``: as a script runs ssh (BatchMode); else as a player does, which is the
    only way to hear why a login was refused: ssh in BatchMode skips keyboard-interactive,
    where the server says it (see net.ssh's _Door.kbdint_auth_supported)."""
    keys = [key] if isinstance(key, Path) else key
    return [
        "ssh", "-F", "/dev/null", "-p", str(port), *(a for k in keys for a in ("-i", str(k))),
        "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
        "-o", "IdentitiesOnly=yes", *(["-o", "BatchMode=yes"] if batch else []), "-o", "PasswordAuthentication=no",
        "-o", "SendEnv=LANG LC_* COLORTERM NO_COLOR SECRET",
        *(["-tt"] if tty else []), *extra, f"{user}@127.0.0.1", *(command or []),
    ]  # fmt: skip


def run_ssh(
    port: int,
    key: Path | list[Path],
    user: str,
    *extra: str,
    home: Path,
    tty: bool = True,
    command: list[str] | None = None,
    timeout: float = WAIT,
    batch: bool = True,
) -> subprocess.CompletedProcess[str]:
    """ssh to its end, with nothing to read on its stdin; its output and status."""
    return subprocess.run(
        ssh_args(port, key, user, *extra, tty=tty, command=command, batch=batch),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=client_env(home),
        timeout=timeout,
    )


class Front:
    """A front in a process of its own (the launcher), and the lines it prints."""

    def __init__(
        self,
        root: Path,
        allow: Path | None = None,
        unseated: list[str] | None = None,
        warm: bool = False,
        no_subreaper: bool = False,
        slow_fork: float = 0.0,
        warm_fails: bool = False,
        env: dict[str, str] | None = None,
        **limits: Any,
    ) -> None:
        self.root = root
        self.data = root / "data"
        self.pids = root / "pids"
        self.pids.mkdir(parents=True, exist_ok=True)
        self.config = root / "front.json"
        self.config.write_text(
            json.dumps(
                {
                    "data": str(self.data),
                    "pids": str(self.pids),
                    "allow": str(allow) if allow else None,
                    "limits": limits,
                    "unseated": unseated or [],
                    "warm": warm,
                    "no_subreaper": no_subreaper,
                    "slow_fork": slow_fork,
                    "warm_fails": "yes" if warm_fails else "",
                }
            )
        )
        self.lines: list[str] = []
        self.lock = threading.Lock()
        self.proc: subprocess.Popen[str] | None = None
        self.port = 0
        self.fingerprint = ""
        self.env = env

    def start(self) -> Front:
        self.stderr = open(self.root / "front.stderr", "w")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            [sys.executable, str(HERE), "front", str(self.config)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr, text=True, bufsize=1, cwd=REPO,
            env=None if self.env is None else {**os.environ, **self.env},
        )  # fmt: skip
        threading.Thread(target=self._read, daemon=True).start()
        ready = self.wait_line(r"READY (\d+) (\S+)", timeout=20)
        self.port, self.fingerprint = int(ready.group(1)), ready.group(2)
        return self

    def _read(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        for line in self.proc.stdout:
            with self.lock:
                self.lines.append(line.rstrip("\n"))

    def find(self, pattern: str, start: int = 0) -> re.Match[str] | None:
        with self.lock:
            lines = list(self.lines[start:])
        for line in lines:
            found = re.search(pattern, line)
            if found:
                return found
        return None

    def wait_line(self, pattern: str, timeout: float = WAIT, start: int = 0) -> re.Match[str]:
        try:
            return until(lambda: self.find(pattern, start), timeout, f"the front printing {pattern!r}")
        except AssertionError:
            raise AssertionError(
                f"no line {pattern!r} from the front; it printed:\n" + "\n".join(self.lines) + "\n" + self.errors()
            ) from None

    def errors(self) -> str:
        with open(self.root / "front.stderr") as f:
            return f.read()

    def mark(self) -> int:
        """Where its output is now, for ``wait_line(start=...)``."""
        with self.lock:
            return len(self.lines)

    def sessions(self) -> int:
        assert self.proc is not None and self.proc.stdin is not None
        start = self.mark()
        self.proc.stdin.write("sessions\n")
        self.proc.stdin.flush()
        return int(self.wait_line(r"^SESSIONS (\d+)", start=start).group(1))

    def pid_of(self, name: str) -> int:
        path = self.pids / f"{name}.pid"
        until(lambda: path.exists() and path.read_text().strip(), what=f"{path} written")
        return int(path.read_text())

    def check_clean(self) -> None:
        """Nothing got out of the front's callbacks: no traceback, no internal error."""
        errors = self.errors()
        assert "Traceback" not in errors and "Exception" not in errors, errors
        assert not [line for line in self.lines if "Internal error" in line], self.lines

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=WAIT)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.stderr.close()
        self.proc = None


def gone(pid: int) -> bool:
    """Is there no process ``pid`` any more (not even a zombie waiting to be reaped)?"""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


class Player:
    """``ssh -tt`` at a terminal of ``rows`` x ``cols``, under pexpect."""

    def __init__(
        self,
        front: Front,
        key: Path | list[Path],
        user: str,
        *extra: str,
        rows: int = 24,
        cols: int = 80,
        batch: bool = True,
        **env: str,
    ) -> None:
        import pexpect

        self.pexpect = pexpect
        argv = ssh_args(front.port, key, user, *extra, batch=batch)
        self.child = pexpect.spawn(
            argv[0], argv[1:], dimensions=(rows, cols), env=client_env(front.root, **env),
            timeout=WAIT, encoding="utf-8", codec_errors="replace",
        )  # fmt: skip
        self.seen = io.StringIO()  # everything the client's terminal was sent
        self.child.logfile_read = self.seen

    def expect(self, pattern: str, timeout: float = WAIT) -> re.Match[str]:
        try:
            self.child.expect(pattern, timeout=timeout)
        except (self.pexpect.TIMEOUT, self.pexpect.EOF) as exc:
            raise AssertionError(
                f"{pattern!r} not seen ({type(exc).__name__}); the client showed:\n{self.child.before}"
            ) from None
        return self.child.match

    def send_line(self, text: str) -> None:
        self.child.send(text + "\r")

    def ends(self, timeout: float = WAIT) -> int | None:
        """Wait for ssh to exit; its exit status (None if killed by a signal)."""
        self.child.expect(self.pexpect.EOF, timeout=timeout)
        self.child.close()
        return self.child.exitstatus

    def close(self) -> None:
        if self.child.isalive():
            self.child.terminate(force=True)


if __name__ == "__main__":
    if sys.argv[1] == "child":
        stand_in(sys.argv[2])
    elif sys.argv[1] == "front":
        launch(sys.argv[2])
    elif sys.argv[1] == "zygote":
        warm_stand_in()
