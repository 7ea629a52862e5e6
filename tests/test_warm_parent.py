"""Sessions forked from a warm parent (issue 35, ``net.zygote``): as isolated as exec'd ones.

The front runs as in ``tests/test_ssh_front.py`` (the launcher of ``tests/ssh_helpers.py``,
the real OpenSSH client), with ``warm=True``: its stand-in child is forked by a warm parent
(``ssh_helpers.py zygote``) and run in place.  What an exec'd session's program has, a forked one
must have too: the tests of a session imported from ``test_ssh_front`` run here again on this
module's front; the others look at the session's process from outside, in ``/proc``, as an
operator would: its environment, its descriptors, its parent, its session, its limits.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
from pathlib import Path

import pytest

from net.ssh import FILE_MAX, MEMORY_MAX
from tests.ssh_helpers import WAIT, Front, Player, gone, keygen, until
from tests.test_ssh_front import (  # noqa: F401 - collected here again, with this module's (warm) front
    test_a_client_killed_takes_its_child_with_it,
    test_a_crashing_child_ends_its_own_session_only,
    test_a_session_reaches_its_child_in_a_terminal_and_back,
)

pytestmark = pytest.mark.skipif(
    subprocess.run(["which", "ssh"], capture_output=True).returncode != 0 or not os.path.isdir("/proc/self"),
    reason="needs the OpenSSH client and /proc",
)

SECRET = "CABINET_TEST_SERVER_SECRET"  # in the front's environment: never in a session's


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    directory = tmp_path_factory.mktemp("keys")
    return {name: keygen(directory, name) for name in ("a", "b", "c", "d")}


@pytest.fixture(scope="module")
def front(tmp_path_factory: pytest.TempPathFactory):
    """A front whose sessions are forked by a warm parent (its log says when it is ready)."""
    running = Front(tmp_path_factory.mktemp("warm"), warm=True, env={SECRET: "hunter2"}, login_timeout=3.0).start()
    running.wait_line(r"Sessions are forked from a warm parent \(pid \d+\)")
    yield running
    running.stop()
    running.check_clean()


def player(front: Front, key: Path, name: str, **env: str) -> tuple[Player, dict[str, str]]:
    p = Player(front, key, name, **env)
    found = p.expect(r"NAME=(\S+) TERM=(\S+) COLORTERM=(\S+) SIZE=(\d+x\d+) PID=(\d+) FOREGROUND=(\w+)")
    said = dict(zip(("name", "term", "colorterm", "size", "pid", "foreground"), found.groups(), strict=True))
    forked = p.expect(r"FORKED=(\w+) RANDOM=(\S+)")
    said["forked"], said["random"] = forked.group(1), forked.group(2)
    return p, said


def environ_of(pid: int) -> dict[str, str]:
    text = Path(f"/proc/{pid}/environ").read_bytes().decode(errors="replace")
    return dict(item.split("=", 1) for item in text.split("\0") if "=" in item)


def stat_of(pid: int) -> list[str]:
    text = Path(f"/proc/{pid}/stat").read_text()
    return text[text.rindex(")") + 2 :].split()  # from field 3, the state


def warm_pid(front: Front, start: int = 0) -> int:
    return int(front.wait_line(r"Sessions are forked from a warm parent \(pid (\d+)\)", start=start).group(1))


def test_a_forked_sessions_process_has_nothing_of_the_servers(front: Front, keys: dict[str, Path]) -> None:
    """Looked at from outside: its environment is the session's (no variable of the server's),
    its only descriptors are its terminal, it leads a session of its own with that terminal,
    its limits are set, and the server is its parent (the server reaps it)."""
    mark = front.mark()
    p, said = player(front, keys["a"], "ann")
    pid = int(said["pid"])
    assert said["forked"] == "yes" and said["foreground"] == "yes"
    front.wait_line(r"ann from 127\.0\.0\.1: session started \(.*, forked, pid (\d+)\)", start=mark)

    environ = environ_of(pid)
    assert SECRET not in environ and "hunter2" not in Path(f"/proc/{pid}/environ").read_text()
    assert set(environ) == {"HOME", "LANG", "PATH", "STAND_IN_NAME", "TERM", "TMPDIR"}, environ
    home = environ["HOME"]
    assert home != os.environ.get("HOME") and Path(home).name.startswith("session-")
    assert Path(f"/proc/{pid}/cwd").resolve() == Path(home).resolve()
    assert os.listdir(home) == [] or set(os.listdir(home)) <= {"ann.pid"}, "an empty directory of its own"

    fds = {fd: os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")}
    assert set(fds) == {"0", "1", "2"}, f"nothing of the warm parent's or the server's: {fds}"
    assert len(set(fds.values())) == 1 and next(iter(fds.values())).startswith("/dev/pts/")

    status = Path(f"/proc/{pid}/status").read_text()
    assert re.search(r"^Umask:\s+0077$", status, re.M)
    assert re.search(r"^Threads:\s+1$", status, re.M)
    fields = stat_of(pid)
    assert int(fields[1]) == front.proc.pid, "adopted by the server, which reaps it"  # type: ignore[union-attr]
    assert int(fields[3]) == pid, "it leads a session of its own"
    limits = Path(f"/proc/{pid}/limits").read_text()
    assert re.search(rf"^Max data size\s+{MEMORY_MAX}\s+{MEMORY_MAX}\s", limits, re.M)
    assert re.search(rf"^Max file size\s+{FILE_MAX}\s+{FILE_MAX}\s", limits, re.M)
    assert re.search(r"^Max core file size\s+0\s+0\s", limits, re.M)
    cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().rstrip(b"\0").split(b"\0")
    assert cmdline[-2:] == [b"child", str(front.pids).encode()], "ps shows the program it runs"

    zygote = warm_pid(front)
    assert SECRET not in environ_of(zygote), "nor does the warm parent hold the server's environment"
    held = [os.readlink(f"/proc/{zygote}/fd/{fd}") for fd in os.listdir(f"/proc/{zygote}/fd")]
    assert sum(link.startswith("socket:") for link in held) == 1, f"its own socket to the front only: {held}"

    p.send_line("exit 4")
    assert p.ends() == 4, "the forked program's exit status is the client's"
    front.wait_line(r"ann from 127\.0\.0\.1: session ended \(exit status 4\)", start=mark)
    until(lambda: gone(pid), what="the session's process reaped")
    assert not Path(home).exists()


def test_each_forked_session_draws_its_own_random_numbers(front: Front, keys: dict[str, Path]) -> None:
    drawn = set()
    for key, name in ((keys["b"], "bob"), (keys["c"], "cid")):
        p, said = player(front, key, name)
        drawn.add(said["random"])
        p.send_line("exit 0")
        assert p.ends() == 0
    assert len(drawn) == 2, "random is reseeded in each session"


def test_sessions_go_on_when_the_warm_parent_is_killed_and_a_new_one_comes(front: Front, keys: dict[str, Path]) -> None:
    """A session running meanwhile is not the warm parent's child: it plays on; a session
    opened before another warm parent is ready starts afresh; then they are forked again."""
    first = warm_pid(front)
    playing, said = player(front, keys["d"], "dee")
    assert said["forked"] == "yes"
    mark = front.mark()
    os.kill(first, signal.SIGKILL)
    front.wait_line(rf"The warm parent \(pid {first}\) is gone \(it ended", start=mark)
    until(lambda: gone(first), what="the killed warm parent reaped")

    p, said = player(front, keys["a"], "ann")  # the new warm parent waits RETRY seconds: not ready yet
    assert said["forked"] == "no"
    front.wait_line(r"ann from 127\.0\.0\.1: session started \(.*, afresh, pid", start=mark)
    p.send_line("exit 0")
    assert p.ends() == 0

    second = warm_pid(front, start=mark)
    assert second != first
    p, said = player(front, keys["a"], "ann")
    assert said["forked"] == "yes"
    p.send_line("exit 0")
    assert p.ends() == 0

    playing.send_line("still here")
    playing.expect("GOT:still here")
    playing.send_line("exit 0")
    assert playing.ends() == 0


def test_where_sessions_cannot_be_forked_they_start_afresh(tmp_path: Path, keys: dict[str, Path]) -> None:
    front = Front(tmp_path, warm=True, no_subreaper=True).start()
    try:
        front.wait_line(r"Sessions are started afresh: this system cannot fork them from a warm parent\.")
        p, said = player(front, keys["a"], "ann")
        assert said["forked"] == "no"
        front.wait_line(r"ann from 127\.0\.0\.1: session started \(.*, afresh, pid")
        p.send_line("exit 0")
        assert p.ends() == 0
    finally:
        front.stop()
    front.check_clean()
    assert front.find(r"^CLOSED 0$")


def test_closing_the_front_ends_its_forked_sessions_and_its_warm_parent(tmp_path: Path, keys: dict[str, Path]) -> None:
    front = Front(tmp_path, warm=True).start()
    try:
        zygote = warm_pid(front)
        p, said = player(front, keys["a"], "ann")
        assert said["forked"] == "yes"
        p.send_line("screen")
        p.expect("SCREEN DONE")
    finally:
        front.stop()
    p.expect("The server is stopping; your seats wait for you.")
    assert p.ends() == 1
    assert "\x1b[?1049l" in p.seen.getvalue(), "the player's terminal is given back as it was"
    until(lambda: gone(int(said["pid"])) and gone(zygote), timeout=WAIT, what="the session and the warm parent gone")
    front.check_clean()


# -- the real server, the real app -----------------------------------------------------------------


def socket_inodes(*tables: str) -> set[str]:
    """The inodes of the sockets listed in /proc/net/TABLE (tcp, tcp6...): the machine's."""
    found = set()
    for table in tables:
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/net/{table}").read_text().splitlines()[1:]:
                found.add(line.split()[9])
    return found


def test_a_served_sessions_app_is_forked_and_holds_nothing_of_the_server(tmp_path: Path, keys: dict[str, Path]) -> None:
    """``cabinet serve`` itself: the session's app (``cabinet lobby``) is forked from the warm
    parent, and what its process holds is its own: the session's environment and directory,
    umask 077, its limits, and of descriptors its terminal and what the app opened (the hall's
    socket), no TCP socket (the server's are), nothing in the operator's home or the data."""
    from tests.test_serve import Serve
    from tests.test_serve import player as served_player

    operator = tmp_path / "operator"
    operator.mkdir()
    serve = Serve(tmp_path / "data", env={"HOME": str(operator), SECRET: "hunter2"}).start()
    try:
        serve.wait_line(r"Sessions are forked from a warm parent \(pid \d+\)")
        with contextlib.closing(served_player(serve.port, keys["a"], "ann", tmp_path)) as ann:
            pid = int(serve.wait_line(r"ann from 127\.0\.0\.1: session started \(.*, forked, pid (\d+)\)").group(1))
            environ = environ_of(pid)
            assert SECRET not in environ and "hunter2" not in Path(f"/proc/{pid}/environ").read_text()
            assert environ["HOME"] != str(operator) and Path(environ["HOME"]).name.startswith("session-")
            assert Path(f"/proc/{pid}/cwd").resolve() == Path(environ["HOME"]).resolve()
            assert b" cabinet lobby" in Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
            status = Path(f"/proc/{pid}/status").read_text()
            assert re.search(r"^Umask:\s+0077$", status, re.M)
            assert int(stat_of(pid)[1]) == serve.proc.pid  # type: ignore[union-attr]
            limits = Path(f"/proc/{pid}/limits").read_text()
            assert re.search(rf"^Max data size\s+{MEMORY_MAX}\s", limits, re.M)
            assert re.search(r"^Max core file size\s+0\s", limits, re.M)
            links = [os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")]
            tcp = socket_inodes("tcp", "tcp6")
            assert not [link for link in links if link.startswith("socket:") and link[8:-1] in tcp], links
            assert not [link for link in links if link.startswith((str(operator), str(tmp_path / "data")))], links
            terminal = {os.readlink(f"/proc/{pid}/fd/{fd}") for fd in (0, 1, 2)}
            assert len(terminal) == 1 and terminal.pop().startswith("/dev/pts/")
            ann.press("q")
            assert ann.wait_exit(timeout=WAIT) == 0
        serve.wait_line(r"ann from 127\.0\.0\.1: session ended \(exit status 0\)")
    finally:
        serve.stop()
    assert list(operator.rglob("*")) == [], "nothing written in the operator's home"
    serve.check_clean()


def test_a_warm_parent_that_answers_late_costs_a_session_nothing(tmp_path: Path, keys: dict[str, Path]) -> None:
    """The front waits ANSWER_WAIT seconds for a fork, then starts the session afresh on a
    terminal of its own; the session forked late is ended and reaped when its answer comes."""
    from net.zygote import ANSWER_WAIT

    front = Front(tmp_path, warm=True, slow_fork=ANSWER_WAIT + 1.0).start()
    try:
        warm_pid(front)
        p, said = player(front, keys["a"], "ann")
        assert said["forked"] == "no"
        front.wait_line(rf"The warm parent did not answer within {ANSWER_WAIT:g} s; this session is started afresh\.")
        stray = int(
            front.wait_line(r"A session the warm parent forked too late \(pid (\d+)\) was ended\.", timeout=WAIT).group(
                1
            )
        )
        until(lambda: gone(stray), what="the late session killed and reaped")
        p.send_line("still mine")
        p.expect("GOT:still mine")
        p.send_line("exit 0")
        assert p.ends() == 0
    finally:
        front.stop()
    front.check_clean()


def test_a_warm_parent_that_cannot_start_is_told_in_the_log_and_sessions_start_afresh(
    tmp_path: Path, keys: dict[str, Path]
) -> None:
    front = Front(tmp_path, warm=True, warm_fails=True).start()
    try:
        front.wait_line(r"The warm parent says: RuntimeError: the stand-in's warm parent cannot start")
        front.wait_line(r"The warm parent \(pid \d+\) is gone \(it ended, exit status 1\); sessions are started afresh")
        p, said = player(front, keys["a"], "ann")
        assert said["forked"] == "no"
        p.send_line("exit 0")
        assert p.ends() == 0
    finally:
        front.stop()
    front.check_clean()


def test_the_warm_parent_run_by_hand_says_what_it_is_in_one_sentence() -> None:
    from tests.terminal import CABINET

    done = subprocess.run([str(CABINET), "warm-parent"], capture_output=True, text=True, timeout=WAIT * 3)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        "cabinet: warm-parent is what cabinet serve starts to fork its sessions' apps; run cabinet serve.\n"
    )


def what_the_kernel_gives() -> str:
    """What asking for KSM over a whole process comes to here, asked of the kernel as the
    warm parent asks (``PR_GET_MEMORY_MERGE``: Linux 6.4) and of the machine's setting."""
    import ctypes
    import errno

    from net.zygote import KSM_RUN

    libc = ctypes.CDLL(None, use_errno=True)
    if int(libc.prctl(68, 0, 0, 0, 0)) < 0:
        return "unsupported" if ctypes.get_errno() == errno.EINVAL else "refused"
    with contextlib.suppress(OSError):
        if Path(KSM_RUN).read_text().strip() == "1":
            return "on"
    return "stopped"


def merges_pages(pid: int) -> bool:
    """Whether the kernel's KSM may merge the process's pages: its own word where the kernel
    gives it (``/proc/PID/ksm_stat``), else its mappings marked mergeable (``smaps``, Linux 6.4
    to 6.7: the setting marks every mapping it may merge)."""
    with contextlib.suppress(OSError):
        found = re.search(r"^ksm_merge_any: (\w+)$", Path(f"/proc/{pid}/ksm_stat").read_text(), re.M)
        if found:
            return found.group(1) == "yes"
    flags = re.findall(r"^VmFlags:(.*)$", Path(f"/proc/{pid}/smaps").read_text(), re.M)
    return any(" mg" in f" {line} " for line in flags)


@pytest.mark.parametrize("asked", [True, False], ids=["ksm", "no-ksm"])
def test_the_warm_parent_has_the_kernel_merge_its_sessions_pages_unless_told_not_to(
    tmp_path: Path, keys: dict[str, Path], asked: bool
) -> None:
    """A forked session writes a reference count into most pages it reads, and so owns a copy
    of each; the kernel's page merging (KSM) shares those that came back alike.  ``cabinet
    serve`` asks for it for the warm parent and its sessions, and says in its log what came of
    it (this machine's KSM running or not, a kernel without it); ``--no-ksm`` does not ask."""
    from net.zygote import MERGE_SAID
    from tests.test_serve import Serve
    from tests.test_serve import player as served_player

    serve = Serve(tmp_path / "data", *([] if asked else ["--no-ksm"])).start()
    try:
        said = serve.wait_line(r"Sessions are forked from a warm parent \(pid (\d+)\)(.*)$")
        zygote = int(said.group(1))
        expected = what_the_kernel_gives() if asked else "off"
        assert said.group(2) == MERGE_SAID[expected]
        with contextlib.closing(served_player(serve.port, keys["b"], "bea", tmp_path)) as bea:
            pid = int(serve.wait_line(r"bea from 127\.0\.0\.1: session started \(.*, forked, pid (\d+)\)").group(1))
            if expected in ("on", "stopped", "off"):
                assert merges_pages(zygote) is asked, "the warm parent"
                assert merges_pages(pid) is asked, "the session it forked keeps the setting"
            bea.press("q")
            assert bea.wait_exit(timeout=WAIT) == 0
    finally:
        serve.stop()
    serve.check_clean()
