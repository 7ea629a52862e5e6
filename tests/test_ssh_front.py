"""``cabinet serve``'s SSH front, driven by the real OpenSSH client.

Each front runs in a process of its own (``tests/ssh_helpers.py``'s launcher) on
127.0.0.1, with a stand-in for the Cabinet app as each session's child, and the
client is ``ssh`` itself, at a terminal under pexpect or run to its end.  What a
player sees is what is checked: the child's words, the sentences of refusals, the
exit statuses; and, of the processes, that none is left behind.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import socket
import stat
import subprocess
import threading
import time
from pathlib import Path

import pytest

from net.ssh import FILE_MAX, INPUT_MAX, INPUT_WINDOW, MEMORY_MAX, OUTPUT_BURST, OUTPUT_RATE, SIZE_MAX
from tests.ssh_helpers import (
    WAIT,
    Front,
    Player,
    client_env,
    fingerprint,
    gone,
    keygen,
    modes_left_on,
    run_ssh,
    ssh_args,
    until,
)

pytestmark = pytest.mark.skipif(
    subprocess.run(["which", "ssh"], capture_output=True).returncode != 0, reason="needs the OpenSSH client"
)

PERMISSION_DENIED = "Permission denied (publickey)"


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    directory = tmp_path_factory.mktemp("keys")
    return {name: keygen(directory, name) for name in ("a", "b", "c", "d")}


@pytest.fixture(scope="module")
def front(tmp_path_factory: pytest.TempPathFactory):
    """One front for the tests that need no limits of their own; a login (and then a
    terminal session) must come within 3 s, so that an ``ssh -N`` is closed soon."""
    running = Front(tmp_path_factory.mktemp("front"), login_timeout=3.0).start()
    yield running
    running.stop()
    running.check_clean()


def player(front: Front, key: Path, name: str, **kw) -> tuple[Player, dict[str, str]]:
    """A player at their terminal, once the child has said who it is (its words, as a dict)."""
    p = Player(front, key, name, **kw)
    found = p.expect(r"NAME=(\S+) TERM=(\S+) COLORTERM=(\S+) SIZE=(\d+x\d+) PID=(\d+) FOREGROUND=(\w+)")
    return p, dict(zip(("name", "term", "colorterm", "size", "pid", "foreground"), found.groups(), strict=True))


# -- a session ---------------------------------------------------------------------------------


def test_a_session_reaches_its_child_in_a_terminal_and_back(front: Front, keys: dict[str, Path]) -> None:
    mark = front.mark()
    p, said = player(front, keys["a"], "ann", rows=30, cols=100, COLORTERM="truecolor", SECRET="hunter2")
    assert said["name"] == "ann" and said["term"] == "xterm-256color" and said["colorterm"] == "truecolor"
    assert said["size"] == "100x30"
    assert said["foreground"] == "yes", "the pty is the child's controlling terminal, and it leads its group there"
    env = set(p.expect(r"ENV=(\S+)").group(1).split(","))
    assert env == {"COLORTERM", "HOME", "LANG", "PATH", "STAND_IN_NAME", "TERM", "TMPDIR"}, (
        "a small environment, nothing of the server's"
    )
    place = dict(pair.split("=", 1) for pair in p.expect(r"HOME=.*FSIZE=\S+").group(0).split())
    home = place["HOME"]
    assert home != os.environ.get("HOME") and not home.startswith(str(Path.home())), "not the operator's home"
    assert place["CWD"] == home == place["TMPDIR"] and place["HOMEFILES"] == "0", (
        "a private, empty directory of its own"
    )
    assert stat.S_IMODE(os.stat(Path(home).parent).st_mode) == 0o700, "which no other user may enter"
    assert place["UMASK"] == "077" and place["PATH"] == os.defpath
    assert int(place["DATA"]) == MEMORY_MAX and int(place["FSIZE"]) == FILE_MAX, (
        "its memory and what it may write bounded"
    )

    p.send_line("hello, héllo")  # UTF-8 both ways, bytes untouched
    p.expect("GOT:hello, héllo")
    p.child.setwinsize(40, 120)
    p.expect(r"RESIZED=120x40")
    p.send_line("screen")
    p.expect("SCREEN DONE")
    p.send_line("unscreen")  # as an app that ends well puts its terminal back itself
    p.expect("UNSCREEN DONE")
    p.send_line("exit 3")
    assert p.ends() == 3, "the child's exit status is the client's"
    assert p.seen.getvalue().count("\x1b[?1049l") == 1, "nothing is added to what the child put back itself"

    login = json.loads(front.wait_line(r"^LOGIN (.*)", start=mark).group(1))
    assert login["name"] == "ann" and login["key"] == fingerprint(keys["a"])
    assert login["term"] == "xterm-256color" and login["size"] == [100, 30]
    assert login["env"] == {"LANG": "C.UTF-8", "COLORTERM": "truecolor"}, "SECRET was sent, and filtered out"
    front.wait_line(r"ann from 127\.0\.0\.1: session ended \(exit status 3\)", start=mark)
    front.wait_line(r"^END ann", start=mark)
    assert not Path(home).exists(), "the session's directory goes with it"
    assert not any("hunter2" in line for line in front.lines)


def test_a_name_belongs_to_the_first_key_that_uses_it(front: Front, keys: dict[str, Path]) -> None:
    for _ in range(2):  # the same key gets the same name again
        p, said = player(front, keys["b"], "bob")
        assert said["name"] == "bob"
        p.send_line("exit 0")
        assert p.ends() == 0
    for name in ("bob", "BOB"):  # names are the same whatever their case
        other = run_ssh(front.port, keys["c"], name, home=front.root, batch=False)
        assert "The name bob belongs to another key." in other.stderr
        assert PERMISSION_DENIED in other.stderr and other.returncode == 255
    p, said = player(front, keys["b"], "Bob")
    assert said["name"] == "bob", "the name as first claimed"
    p.send_line("exit 0")
    assert p.ends() == 0

    bad = run_ssh(front.port, keys["c"], "b!b", home=front.root)
    assert (
        "A name has only letters (a to z, without accents), digits, '-', '_' and '.' in it." in bad.stderr
        and bad.returncode == 255
    )
    for accented in ("élodie", "zoé"):  # a name the server cannot take says why: ASCII only
        bad = run_ssh(front.port, keys["c"], accented, home=front.root)
        assert "(a to z, without accents)" in bad.stderr and bad.returncode == 255

    players = front.data / "players.json"
    assert stat.S_IMODE(players.stat().st_mode) == 0o600
    kept = json.loads(players.read_text())["players"]
    assert kept["bob"]["key"] == fingerprint(keys["b"])
    assert "b!b" not in kept and "BOB" not in kept


# -- what it refuses ---------------------------------------------------------------------------


def test_commands_subsystems_and_sessions_without_a_terminal_are_refused(front: Front, keys: dict[str, Path]) -> None:
    command = run_ssh(front.port, keys["a"], "ann", home=front.root, tty=False, command=["ls", "/"])
    assert f"Cabinet runs no commands: connect without one (ssh -p {front.port} NAME@host)." in command.stderr
    assert command.returncode == 1 and command.stdout == ""

    command = run_ssh(front.port, keys["a"], "ann", home=front.root, command=["ls"])  # with a terminal too
    assert "Cabinet runs no commands" in command.stdout + command.stderr and command.returncode == 1

    sftp = run_ssh(front.port, keys["a"], "ann", "-s", home=front.root, tty=False, command=["sftp"])
    assert "Cabinet offers no sftp: connect without -s." in sftp.stderr and sftp.returncode == 1

    plain = run_ssh(front.port, keys["a"], "ann", "-T", home=front.root, tty=False)
    assert "Cabinet needs a terminal: connect with ssh -t." in plain.stderr and plain.returncode == 1


def test_port_forwarding_is_refused_both_ways(front: Front, keys: dict[str, Path]) -> None:
    remote = run_ssh(
        front.port,
        keys["a"],
        "ann",
        "-N",
        "-o",
        "ExitOnForwardFailure=yes",
        "-R",
        "0:127.0.0.1:9",
        home=front.root,
        tty=False,
    )
    assert remote.returncode == 255 and "remote port forwarding failed" in remote.stderr

    with socket.socket() as probe:  # a free port for -L to listen on
        probe.bind(("127.0.0.1", 0))
        local_port = probe.getsockname()[1]
    args = ["-N", "-o", "ExitOnForwardFailure=yes", "-L", f"{local_port}:127.0.0.1:9"]
    client = subprocess.Popen(ssh_args(front.port, keys["a"], "ann", *args, tty=False), stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=client_env(front.root))  # fmt: skip
    try:

        def forwarded() -> bytes | None:
            try:
                with socket.create_connection(("127.0.0.1", local_port), timeout=5) as s:
                    return s.recv(100) or b"closed"  # the client closes it: the server refused the channel
            except ConnectionRefusedError:
                return None  # not listening yet

        assert until(forwarded, what="a connection through -L") == b"closed"
        # and the connection, with no terminal session, is closed within the login timeout
        assert client.wait(timeout=10) == 255
        err = client.stderr.read() if client.stderr else ""
        assert "open failed: administratively prohibited: Cabinet forwards no connections." in err
        assert "Cabinet needs a terminal: connect with ssh -t." in err
    finally:
        if client.poll() is None:
            client.kill()
            client.wait()


def test_an_allow_list_admits_its_keys_only(tmp_path: Path, keys: dict[str, Path]) -> None:
    allow = tmp_path / "authorized_keys"
    allow.write_text(
        "# the operator's friends\n"
        + Path(str(keys["a"]) + ".pub").read_text()
        + "ssh-ed25519 AAAAC3Nza-a-key-cut-short cy\n"
    )
    listed = Front(tmp_path, allow=allow).start()
    try:
        listed.wait_line(
            r"authorized_keys, line 3: not a public key Cabinet can read \(ssh-ed25519 AAAAC3Nza-a-key-cu\.\.\.\); it is skipped\."
        )
        stranger = run_ssh(listed.port, keys["b"], "bob", home=tmp_path, batch=False)
        assert "Your key is not on this server's list of players; ask its operator to add it." in stranger.stderr
        assert PERMISSION_DENIED in stranger.stderr and stranger.returncode == 255
        listed.wait_line(r"Refused bob from 127\.0\.0\.1: Your key is not on this server's list")

        p, said = player(listed, keys["a"], "ann")
        assert said["name"] == "ann"
        p.send_line("exit 0")
        assert p.ends() == 0

        # a key refused before one that is taken: the player gets in, and hears of no refusal
        mark = listed.mark()
        p, said = player(listed, [keys["b"], keys["a"]], "ann", batch=False)
        assert said["name"] == "ann"
        p.send_line("exit 0")
        assert p.ends() == 0
        assert "not on this server's list" not in p.child.before and "Permission denied" not in p.child.before
        listed.wait_line(r"^END ann", start=mark)
        assert listed.find(r"Refused", start=mark) is None, "nor does the log call it a refusal"

        allow.write_text(allow.read_text() + Path(str(keys["b"]) + ".pub").read_text())  # read again when it changes
        p, said = player(listed, keys["b"], "bob")
        p.send_line("exit 0")
        assert p.ends() == 0
    finally:
        listed.stop()
    listed.check_clean()


def test_sessions_per_key_and_in_all_are_limited(tmp_path: Path, keys: dict[str, Path]) -> None:
    limited = Front(tmp_path, sessions_per_key=2, sessions=3).start()
    players: list[Player] = []
    try:
        for key, name in ((keys["a"], "ann"), (keys["a"], "ann")):
            players.append(player(limited, key, name)[0])
        third = run_ssh(limited.port, keys["a"], "ann", home=tmp_path)
        assert (
            "Your key has 2 Cabinet sessions open already (under any name); close one first."
            in third.stdout + third.stderr
        )
        assert third.returncode == 1
        players.append(player(limited, keys["b"], "bob")[0])  # another key: its own two
        assert limited.sessions() == 3
        full = run_ssh(limited.port, keys["c"], "cid", home=tmp_path)
        assert "The server is full; try again later." in full.stdout + full.stderr and full.returncode == 1

        players[0].send_line("exit 0")
        assert players[0].ends() == 0
        until(lambda: limited.sessions() == 2, what="a session over")
        p, _said = player(limited, keys["c"], "cid")  # room again
        players.append(p)
    finally:
        for p in players:
            p.close()
        limited.stop()
    limited.check_clean()


def test_slow_logins_idle_sessions_and_sessionless_connections_are_closed(
    tmp_path: Path, keys: dict[str, Path]
) -> None:
    quick = Front(
        tmp_path, unseated=["sam"], login_timeout=2.0, idle=2.5
    ).start()  # short, yet room for a loaded machine
    try:
        with socket.create_connection(("127.0.0.1", quick.port)) as silent:
            silent.sendall(b"SSH-2.0-Silent\r\n")  # then nothing
            silent.settimeout(8)
            received = b""
            while chunk := silent.recv(4096):
                received += chunk
        assert b"No login within 2 seconds: the connection is closed." in received
        quick.wait_line(r"Closed \(no name yet\) from 127\.0\.0\.1: No login within 2 seconds")

        idle = run_ssh(quick.port, keys["a"], "ann", "-N", home=tmp_path, tty=False)
        assert idle.returncode == 255 and "Cabinet needs a terminal: connect with ssh -t." in idle.stderr

        p, _ = player(quick, keys["a"], "ann")
        p.send_line("screen")  # its terminal in the state a full-screen app puts it in
        p.expect("SCREEN DONE")
        p.send_line("still here")  # a key pressed puts the idle time off
        p.expect("GOT:still here")
        p.expect("Closed after 2.5 seconds without a key pressed; your seats wait for you.", timeout=8)
        assert p.ends() == 1
        assert modes_left_on(p.seen.getvalue()) == [], "the player's terminal is given back as it was"
        until(lambda: gone(quick.pid_of("ann")), what="the idle child gone")

        p, _ = player(quick, keys["b"], "sam")  # who only watches is not told of seats
        p.expect("Closed after 2.5 seconds without a key pressed.", timeout=8)
        assert "your seats" not in p.child.before
        assert p.ends() == 1
    finally:
        quick.stop()
    quick.check_clean()


# -- the end of a session ----------------------------------------------------------------------


def test_a_client_killed_takes_its_child_with_it(front: Front, keys: dict[str, Path]) -> None:
    mark = front.mark()
    p, said = player(front, keys["d"], "dee")
    pid = front.pid_of("dee")
    assert int(said["pid"]) == pid
    os.kill(p.child.pid, signal.SIGKILL)  # the ssh client, not a word to the server
    until(lambda: gone(pid), what="the child killed and reaped")
    front.wait_line(
        r"dee from 127\.0\.0\.1: session ended: the connection closed \(its program hung up\)\.", start=mark
    )
    p.close()


def test_a_crashing_child_ends_its_own_session_only(front: Front, keys: dict[str, Path]) -> None:
    a, _ = player(front, keys["a"], "ann")
    b, said = player(front, keys["b"], "bob")
    os.kill(int(said["pid"]), signal.SIGSEGV)
    assert b.ends() == 255, "ssh's status for a session ended by a signal"
    a.send_line("unharmed")
    a.expect("GOT:unharmed")
    a.send_line("exit 0")
    assert a.ends() == 0


def test_a_flood_of_output_arrives_whole_and_in_order(front: Front, keys: dict[str, Path]) -> None:
    """Four and a half megabytes from the child, to a client that reads nothing for a
    moment (the front stops reading the pty while the channel's buffer is full, then goes
    on), more than a session may send at once (OUTPUT_BURST: the rest is slowed to
    OUTPUT_RATE, and still arrives whole)."""
    lines = 500_000
    assert lines * 9 > OUTPUT_BURST + OUTPUT_RATE
    client = subprocess.Popen(
        ssh_args(front.port, keys["a"], "ann"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=client_env(front.root),
    )
    try:
        assert client.stdin is not None and client.stdout is not None
        # typed once the child has said who it is (its terminal set up): a line typed before
        # could be lost with the terminal's set-up, and the flood never asked for (the suite hung
        # here once, the child waiting for its line and the test for its flood)
        out = bytearray()
        while b"FSIZE=" not in out:
            chunk = client.stdout.read1(1 << 16)
            assert chunk, f"the session ended before it began: {bytes(out)!r}"
            out += chunk
        client.stdin.write(b"flood %d\n" % lines)
        client.stdin.flush()
        time.sleep(0.5)  # pacing, not an assertion: a terminal that does not read yet
        while b"FLOOD DONE" not in out[-64:]:
            chunk = client.stdout.read1(1 << 16)
            assert chunk, "the flood cut short"
            out += chunk
        numbers = [line for line in out.replace(b"\r", b"").split(b"\n") if len(line) == 8 and line.isdigit()]
        assert numbers == [b"%08d" % i for i in range(lines)]
        client.stdin.write(b"exit 0\n")
        client.stdin.flush()
        client.stdout.read()
        assert client.wait(timeout=WAIT) == 0
    finally:
        if client.poll() is None:
            client.kill()
            client.wait()


def test_garbage_and_a_crowd_that_never_logs_in_leave_sessions_working(front: Front, keys: dict[str, Path]) -> None:
    p, _ = player(front, keys["a"], "ann")
    rng = random.Random(7)
    for opening in (b"", b"SSH-2.0-Garbage\r\n", b"GET / HTTP/1.0\r\n\r\n"):
        with socket.create_connection(("127.0.0.1", front.port)) as s:
            s.sendall(opening + rng.randbytes(3000))
    with socket.create_connection(("127.0.0.1", front.port)) as s:  # gone in the middle of the handshake
        s.sendall(b"SSH-2.0-Gone\r\n")
        s.recv(100)
    crowd = [socket.create_connection(("127.0.0.1", front.port)) for _ in range(100)]
    try:
        p.send_line("still working")
        p.expect("GOT:still working")
        q, said = player(front, keys["b"], "bob")  # a newcomer gets in: the oldest of the crowd made room
        assert said["name"] == "bob"

        closed: set[int] = set()

        def dropped() -> int:
            for i, s in enumerate(crowd):
                s.setblocking(False)
                try:
                    while i not in closed:  # the server's version line, then its end
                        if not s.recv(65536):
                            closed.add(i)
                except BlockingIOError:
                    pass
                except OSError:
                    closed.add(i)
            return len(closed)

        assert until(lambda: dropped() >= 100 - 16, what="the crowd cut to 16 from one address")
        for who in (p, q):
            who.send_line("exit 0")
            assert who.ends() == 0
    finally:
        for s in crowd:
            s.close()


def test_the_host_key_is_kept_and_closing_ends_every_session(tmp_path: Path, keys: dict[str, Path]) -> None:
    first = Front(tmp_path, unseated=["sam"]).start()
    try:
        host_key = first.data / "host_key"
        assert stat.S_IMODE(host_key.stat().st_mode) == 0o600
        assert fingerprint(host_key) == first.fingerprint
        p, _said = player(first, keys["a"], "ann")
        pid = first.pid_of("ann")
        p.send_line("screen")
        p.expect("SCREEN DONE")
        watcher, _ = player(first, keys["b"], "sam")
    finally:
        first.stop()  # with ann playing, and sam watching
    p.expect("The server is stopping; your seats wait for you.")
    assert p.ends() == 1
    assert modes_left_on(p.seen.getvalue()) == [], "the player's terminal is given back as it was"
    assert gone(pid)
    watcher.expect("The server is stopping; every table is saved.")
    assert watcher.ends() == 1
    assert first.find(r"^CLOSED 0$")

    again = Front(tmp_path).start()
    try:
        assert again.fingerprint == first.fingerprint, "the same host key after a restart"
        p, _said = player(again, keys["a"], "ann")
        p.send_line("exit 0")
        assert p.ends() == 0
    finally:
        again.stop()
    first.check_clean()
    again.check_clean()


# -- what a stranger cannot do to the others ------------------------------------------------------


def test_a_huge_window_is_taken_to_be_as_big_as_a_screen_can_use(front: Front, keys: dict[str, Path]) -> None:
    """65535x65535 cost a session a gigabyte: the pty is given SIZE_MAX at most, at the
    start and at every change of the window."""
    p, said = player(front, keys["a"], "ann", rows=65535, cols=65535)
    assert said["size"] == f"{SIZE_MAX[0]}x{SIZE_MAX[1]}"
    p.child.setwinsize(30, 100)
    p.expect(r"RESIZED=100x30")
    p.child.setwinsize(65535, 120)
    p.expect(rf"RESIZED=120x{SIZE_MAX[1]}")
    p.send_line("exit 0")
    assert p.ends() == 0


def test_honest_logins_get_in_beside_a_crowd_of_half_open_connections(tmp_path: Path, keys: dict[str, Path]) -> None:
    """A hundred connections held open and silent from fifty addresses (two each, under the
    limit of one address), made again as soon as the server drops one: every honest
    login still gets in, one after another."""
    crowded = Front(tmp_path, login_timeout=20.0).start()
    stop = threading.Event()
    held: list[socket.socket] = []
    made = [0]

    def crowd() -> None:
        while not stop.is_set():
            for s in list(held):  # dropped by the server: made again at once
                try:
                    s.setblocking(False)
                    gone_ = s.recv(65536) == b""
                except BlockingIOError:
                    gone_ = False
                except OSError:
                    gone_ = True
                if gone_:
                    s.close()
                    held.remove(s)
            while len(held) < 100:
                s = socket.socket()
                s.bind((f"127.0.0.{2 + len(held) % 50}", 0))
                try:
                    s.connect(("127.0.0.1", crowded.port))
                except OSError:
                    s.close()
                    break
                if made[0] % 2:
                    s.sendall(b"SSH-2.0-HalfOpen\r\n")  # its version, then nothing
                held.append(s)
                made[0] += 1
            time.sleep(0.01)

    thread = threading.Thread(target=crowd, daemon=True)
    thread.start()
    try:
        until(lambda: made[0] >= 100, what="the crowd connected")
        for i in range(6):
            p, said = player(crowded, keys["a"], "ann")
            assert said["name"] == "ann", f"honest login {i + 1} of 6"
            p.send_line("exit 0")
            assert p.ends() == 0
        assert made[0] > 100, "the server made room by dropping some of the crowd"
    finally:
        stop.set()
        thread.join(WAIT)
        for s in held:
            s.close()
        crowded.stop()
    crowded.check_clean()


def process_state(pid: int) -> str:
    """The state letter of process ``pid`` (``T``: stopped by a signal), or "" when it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return ""


def niceness(pid: int) -> tuple[set[int], str]:
    """The nice of every thread of process ``pid``, and of its session's scheduling group
    ("-" where Linux has none)."""
    tasks = Path(f"/proc/{pid}/task").iterdir()
    threads = {int((task / "stat").read_text().rsplit(")", 1)[1].split()[16]) for task in tasks}
    try:
        group = Path(f"/proc/{pid}/autogroup").read_text().split()[-1]
    except OSError:
        group = "-"
    return threads, group


def test_a_session_that_keeps_a_core_busy_runs_at_the_lowest_priority(tmp_path: Path, keys: dict[str, Path]) -> None:
    """A program kept busy (a flood of keys, a huge screen) spends its CPU budget and then
    runs on what the others leave: nice 19 for the rest of its life.  One that plays as a
    player does is left alone."""
    busy = Front(tmp_path, cpu_rate=0.05, cpu_burst=0.5, demoted_share=1.0).start()  # (held: the next test)
    try:
        calm, calm_said = player(busy, keys["b"], "bob")
        p, said = player(busy, keys["a"], "ann")
        p.send_line("spin 0.2")
        assert p.expect(r"SPUN NICE=(\d+)").group(1) == "0", "within its budget"
        mark = busy.mark()
        p.send_line("spin 600")
        busy.wait_line(
            r"ann from 127\.0\.0\.1: its session kept a core busy \(\d+ s of CPU\); it runs at the lowest priority now, on 100% of a core at most, its keys and screen paced 8 times slower\.",
            start=mark,
        )
        threads, group = niceness(int(said["pid"]))
        assert threads == {19} and group in ("19", "-"), "its threads, and its session's scheduling group"
        threads, group = niceness(int(calm_said["pid"]))
        assert threads == {0} and group in ("0", "-"), "the others are left alone"
        p.close()
        busy.wait_line(r"ann from 127\.0\.0\.1: session ended", start=mark)
        calm.send_line("exit 0")
        assert calm.ends() == 0
    finally:
        busy.stop()
    busy.check_clean()


def test_a_session_that_keeps_a_core_busy_is_held_to_its_share_and_still_ends_well(
    tmp_path: Path, keys: dict[str, Path]
) -> None:
    """At the lowest priority a busy program still took the core the others left free, and its
    screen's frames stood in the way of theirs: once demoted it is held to a share of a core, stopped
    while it is over.  Stopped, it would take no signal but SIGKILL: a session that ends then is
    continued first, and its program ends by the hang-up, as every session does (and so puts its
    player's terminal back), not killed."""
    busy = Front(tmp_path, cpu_rate=0.05, cpu_burst=0.3, demoted_share=0.01, idle=2.0).start()
    try:
        calm, calm_said = player(busy, keys["b"], "bob")
        p, said = player(busy, keys["a"], "ann")
        mark = busy.mark()
        p.send_line("spin 600")

        def stopped() -> bool:  # (a key now and then, so that the session is not idle meanwhile)
            p.send_line("")
            calm.send_line("")
            return process_state(int(said["pid"])) == "T"

        busy.wait_line(r"ann from 127\.0\.0\.1: its session kept a core busy .* on 1% of a core at most", start=mark)
        until(stopped, what="the busy program stopped while over its share")
        assert process_state(int(calm_said["pid"])) not in ("T", ""), "the others are left alone"
        # idle now: the server ends the session with its player there to read the goodbye
        busy.wait_line(r"ann from 127\.0\.0\.1: session ended by the server \(killed by SIGHUP\); told: \S", start=mark)
        assert p.ends() is not None
    finally:
        busy.stop()
    busy.check_clean()


def test_a_client_flooding_keys_gets_no_more_room_on_the_server_than_its_window(
    tmp_path: Path, keys: dict[str, Path]
) -> None:
    """Keys typed faster than a session takes them wait on the client's side: the server
    holds at most the channel's window of them (asyncssh gave a whole new window for each
    packet let through a paused channel, and what it held grew without end)."""
    paramiko = pytest.importorskip("paramiko", reason="needs paramiko (in the extra 'test')")
    fast = Front(tmp_path, input_rate=50_000, input_burst=10_000).start()
    client = paramiko.SSHClient()
    client.set_missing_host_key_policy(paramiko.AutoAddPolicy())
    try:
        client.connect(
            "127.0.0.1",
            fast.port,
            username="ann",
            key_filename=str(keys["a"]),
            look_for_keys=False,
            allow_agent=False,
            timeout=WAIT,
        )
        chan = client.invoke_shell(term="xterm", width=80, height=24)
        line = b"x" * 99 + b"\n"
        sent = 0
        echoed = b""
        chan.settimeout(0.0)
        deadline = time.monotonic() + 60
        while echoed.count(b"GOT:") < 4000:  # 400 kB taken by the program, more than the window
            assert time.monotonic() < deadline, "the program took too little"
            with contextlib.suppress(TimeoutError):
                sent += chan.send(line * 40)  # as much as the server's window lets through
            try:
                echoed += chan.recv(1 << 20)
            except TimeoutError:
                time.sleep(0.005)  # pacing the poll, not an assertion
            taken = echoed.count(b"GOT:") * len(line)
            assert sent - taken <= INPUT_WINDOW + INPUT_MAX + 64 * 1024, (
                f"the server holds {sent - taken} bytes of keys"
            )
        assert sent > INPUT_WINDOW, "the client was let send on as the program took"
        chan.sendall(b"exit 0\n")
    finally:
        client.close()
        fast.stop()
    fast.check_clean()


def test_keys_typed_before_the_app_is_up_are_not_echoed_over_its_screen() -> None:
    """The pty a session gets has the client's modes (its erase key here) but no echo: what a
    player types before the app has set its own modes waits for the app, unechoed."""
    import select
    import termios

    import asyncssh

    from net.ssh import _terminal

    master, slave = _terminal((80, 24), {asyncssh.PTY_ECHO: 1, asyncssh.PTY_VERASE: 8, asyncssh.PTY_ICANON: 1})
    try:
        os.write(master, b"nq\r")  # typed at once, nobody reading yet
        echoed = b""
        while select.select([master], [], [], 0.3)[0]:
            echoed += os.read(master, 1024)
        assert echoed == b"", echoed
        assert os.read(slave, 1024) == b"nq\n", "the keys wait for the program, as typed"
        assert termios.tcgetattr(slave)[6][termios.VERASE] == b"\x08", "the client's modes are kept"
    finally:
        os.close(master)
        os.close(slave)
