"""``cabinet serve`` through the SSH clients players have: OpenSSH's ``ssh``, PuTTY's
``plink``, dropbear's ``dbclient``, and the paramiko library.

Each test starts ``cabinet serve`` on 127.0.0.1 (port 0) with a data directory and a key
of its own, and one client at a terminal of 80x24: the three programs in a pseudo-terminal
under pexpect, paramiko as an interactive channel with a pty of that size.  Everything
the server sends is read as a screen (``tests.terminal``), and the player goes, by keys,
from the lobby to a new table against a bot, plays a card, sees it land, and leaves.  A
client that is not on the machine is skipped, naming the Debian package that has it
(``.ci/run`` installs them).
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pexpect
import pytest

from tests.ssh_helpers import client_env, keygen, modes_left_on, ssh_args
from tests.terminal import Terminal
from tests.test_serve import START, Serve, hand, new_table, play_first_card

pytestmark = pytest.mark.skipif(
    shutil.which("ssh-keygen") is None, reason="needs ssh-keygen: the Debian package openssh-client"
)


def needs(package: str, *programs: str) -> None:
    missing = [p for p in programs if shutil.which(p) is None]
    if missing:
        pytest.skip(f"needs {' and '.join(missing)}: the Debian package {package}")


def serving(data: Path) -> tuple[Serve, str]:
    """``cabinet serve`` started, and the fingerprint of its host key as it printed it."""
    serve = Serve(data).start()
    return serve, serve.wait_line(r"^  host key: (SHA256:\S+)").group(1)


def plays_a_move(serve: Serve, start: Callable[[], Terminal], name: str) -> None:
    """The client ``start`` gives reaches the lobby, opens a table against a bot, plays the
    first card of its hand and sees the move land (the players' table counts a card less,
    the history tells it), goes back to the lobby and quits: the client ends with status 0.
    Then it comes back, and the server stops (Ctrl-C) while it is in the lobby: it is told
    so, and its terminal is left as it was before the app (not on the other screen, no
    mouse reports, a cursor).  What the server printed is part of a failure's report."""
    try:
        with closing(start()) as t:
            t.wait_for(f"Cabinet · {name}", timeout=START)
            t.wait_for("No tables yet")
            new_table(t, "Bot: easy")
            t.wait_for(f"You: {name}")
            assert len(hand(t)) == 6, t.report("six cards dealt")
            play_first_card(t, name, 6)
            t.wait_for(f"{name} plays")
            t.press("q")  # back in the lobby: the table waits there for its next move
            t.wait_line("L'Agent Jean!", "you, Bot 2 (easy)")
            t.press("q")
            assert t.wait_exit(timeout=START) == 0, t.report("the client's exit status")
        # again, and the server is stopped under the player: told why, their terminal given back
        with closing(start()) as t:
            t.wait_line("Your move", "L'Agent Jean!", timeout=START)
            assert serve.stop(t) == 0
            t.wait_exit(timeout=START)
            said = t.raw.decode("utf-8", "replace")
            assert "The server is stopping; your seats wait for you." in said, t.report("the goodbye")
            assert modes_left_on(bytes(t.raw)) == [], t.report(f"the terminal given back: {said[-300:]!r}")
    except AssertionError as exc:
        raise AssertionError(f"{exc}\n-- cabinet serve printed --\n" + "\n".join(serve.lines)) from None
    finally:
        serve.stop()
    serve.check_clean()


def program(home: Path, argv: list[str]) -> Callable[[], Terminal]:
    """A client program at a terminal of 80x24, at home in ``home`` (none of the tester's
    configuration or known hosts) and with no agent to offer other keys."""
    return lambda: Terminal(argv[1:], home, program=argv[0], env=client_env(home, SSH_AUTH_SOCK="")).start()


# -- the clients ------------------------------------------------------------------------------


def test_openssh_plays_a_move(tmp_path: Path) -> None:
    needs("openssh-client", "ssh")
    serve, _ = serving(tmp_path / "data")
    key = keygen(tmp_path, "ann")
    plays_a_move(serve, program(tmp_path, ssh_args(serve.port, key, "ann")), "ann")


def test_plink_plays_a_move(tmp_path: Path) -> None:
    needs("putty-tools", "plink", "puttygen")
    serve, host_key = serving(tmp_path / "data")
    key = keygen(tmp_path, "pat")
    subprocess.run(["puttygen", str(key), "-O", "private", "-o", f"{key}.ppk"], check=True, capture_output=True)
    # -batch: a question (an unknown host key) is a failure, not a prompt; the host key is
    # the one the server printed
    argv = [
        "plink",
        "-ssh",
        "-batch",
        "-noagent",
        "-t",
        "-P",
        str(serve.port),
        "-i",
        f"{key}.ppk",
        "-hostkey",
        host_key,
        "-l",
        "pat",
        "127.0.0.1",
    ]
    plays_a_move(serve, program(tmp_path, argv), "pat")


def test_dbclient_plays_a_move(tmp_path: Path) -> None:
    """dbclient sends the packet of the key exchange it guesses (its first, curve25519-sha256)
    right after its KEXINIT. Its guess is right only if that is the server's first too
    (RFC 4253, 7.1); asyncssh takes it for right whenever it is the algorithm agreed on. With
    a post-quantum exchange first on the server, dbclient sent its packet again, and asyncssh,
    its key exchange over, dropped the connection: "Key exchange not in progress"."""
    needs("dropbear-bin", "dbclient", "dropbearconvert")
    serve, _ = serving(tmp_path / "data")
    key = keygen(tmp_path, "dee")
    subprocess.run(["dropbearconvert", "openssh", "dropbear", str(key), f"{key}.db"], check=True, capture_output=True)
    # -y -y: no host key check (dbclient has no option to name the key it expects)
    argv = ["dbclient", "-t", "-y", "-y", "-p", str(serve.port), "-i", f"{key}.db", "dee@127.0.0.1"]
    plays_a_move(serve, program(tmp_path, argv), "dee")
    assert not serve.find("Key exchange not in progress"), serve.lines


class Channel:
    """A paramiko channel as the pexpect child ``Terminal`` reads and types into."""

    def __init__(self, client, chan) -> None:
        self.client, self.chan = client, chan
        self.exitstatus: int | None = None
        self.signalstatus: int | None = None

    def read_nonblocking(self, size: int, timeout: float) -> bytes:
        self.chan.settimeout(timeout)
        try:
            data = self.chan.recv(size)
        except TimeoutError:
            raise pexpect.TIMEOUT("nothing from the channel") from None
        if not data:
            raise pexpect.EOF("the channel is closed")
        return data

    def send(self, text: str | bytes) -> None:
        self.chan.sendall(text.encode() if isinstance(text, str) else text)

    def isalive(self) -> bool:
        return not self.chan.exit_status_ready()

    def terminate(self, force: bool = False) -> None:
        self.client.close()

    def close(self) -> None:
        if self.chan.exit_status_ready():
            self.exitstatus = self.chan.recv_exit_status()
        self.client.close()


def test_paramiko_plays_a_move(tmp_path: Path) -> None:
    paramiko = pytest.importorskip("paramiko", reason="needs paramiko (in the extra 'test')")
    serve, host_key = serving(tmp_path / "data")
    key = keygen(tmp_path, "pam")

    class TheServersKey(paramiko.MissingHostKeyPolicy):
        """The host key is the one the server printed, or no connection."""

        def missing_host_key(self, client, hostname, offered) -> None:
            if offered.fingerprint != host_key:
                raise paramiko.SSHException(f"host key {offered.fingerprint}, not the server's {host_key}")

    class AtAChannel(Terminal):
        def start(self) -> Terminal:
            client = paramiko.SSHClient()
            client.set_missing_host_key_policy(TheServersKey())
            client.connect(
                "127.0.0.1", serve.port, username="pam", key_filename=str(key), look_for_keys=False, allow_agent=False,
                timeout=START, banner_timeout=START, auth_timeout=START,
            )  # fmt: skip
            chan = client.invoke_shell(term="xterm-256color", width=self.cols, height=self.rows)
            chan.set_combine_stderr(True)  # a sentence of the server's is on the screen too
            self.child = Channel(client, chan)  # type: ignore[assignment]
            return self

    plays_a_move(serve, lambda: AtAChannel([], tmp_path).start(), "pam")
