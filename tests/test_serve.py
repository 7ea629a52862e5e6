"""``cabinet serve`` end to end: the real server, the real OpenSSH client, the real app.

Each test starts ``cabinet serve`` on 127.0.0.1 (port 0) with a data directory and
keys of its own, and its players are ``ssh -tt`` in a pseudo-terminal, read as a
screen (``tests.terminal``): what is checked is what a player sees and what the
operator reads in the server's log.  The leak test runs the same server
(``tui.serve.Server``) in a thread of the test, so that every message its tables
send can be checked as it is sent; the players are still ``ssh`` and each
session's app is still the process ``cabinet serve`` starts.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import threading
import time
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from tests.ssh_helpers import WAIT, client_env, keygen, modes_left_on, run_ssh, ssh_args, until
from tests.terminal import CABINET, Terminal
from tests.test_hall import Audit
from tui.serve import Server

pytestmark = pytest.mark.skipif(
    subprocess.run(["which", "ssh"], capture_output=True).returncode != 0, reason="needs the OpenSSH client"
)

START = 60.0  # seconds for a session's app to come up on a loaded machine


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    directory = tmp_path_factory.mktemp("keys")
    return {name: keygen(directory, name) for name in ("ann", "bob", "eve")}


class Serve:
    """``cabinet serve`` in a process of its own, and the lines it prints."""

    def __init__(self, data: Path, *args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> None:
        self.data = data
        self.args = args
        self.env = env
        self.cwd = cwd  # the operator's working directory (None: the test's)
        self.lines: list[str] = []
        self.proc: subprocess.Popen[str] | None = None
        self.port = 0

    def start(self) -> Serve:
        command = [
            str(CABINET),
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--data",
            str(self.data),
            "--bot-delay",
            "0",
            *self.args,
        ]
        env = None if self.env is None else {**os.environ, **self.env}
        self.proc = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            bufsize=1,
            env=env,
            cwd=self.cwd,
        )
        threading.Thread(target=self._read, daemon=True).start()
        self.port = int(self.wait_line(r"^Cabinet serves on 127\.0\.0\.1:(\d+) ").group(1))
        return self

    def _read(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    def find(self, pattern: str) -> re.Match[str] | None:
        return next((m for m in (re.search(pattern, line) for line in list(self.lines)) if m), None)

    def wait_line(self, pattern: str, timeout: float = START) -> re.Match[str]:
        try:
            return until(lambda: self.find(pattern), timeout, f"cabinet serve printing {pattern!r}")
        except AssertionError:
            raise AssertionError(f"no line {pattern!r}; cabinet serve printed:\n" + "\n".join(self.lines)) from None

    def stop(self, *players: Terminal) -> int:
        """Ctrl-C, as the operator stops it; its exit status. The ``players``' terminals are
        read meanwhile, as a player's are: a terminal nobody reads holds its ssh up, and the
        server's last words to it (its modes put back, the goodbye) were lost when the server
        disconnected it (1 run in 4 under load)."""
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            deadline = time.monotonic() + WAIT * 3
            reading = list(players)
            while self.proc.poll() is None:
                if time.monotonic() > deadline:
                    self.proc.kill()
                    self.proc.wait()
                    raise AssertionError("cabinet serve did not stop on Ctrl-C:\n" + "\n".join(self.lines))
                if reading:
                    reading = [t for t in reading if t.pump(0.02)]
                else:
                    time.sleep(0.02)
        return self.proc.returncode

    def check_clean(self) -> None:
        text = "\n".join(self.lines)
        assert "Traceback" not in text and "Internal error" not in text, text


class InProcess:
    """The same server as ``cabinet serve``, in a thread of the test, with an audit of
    everything its tables send."""

    def __init__(self, data: Path) -> None:
        self.audit = Audit()
        self.lines: list[str] = []
        self.server = Server(data, self.lines.append, bot_delay=0.0, on_send=self.audit)
        self.audit.hall = self.server.hall
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.port = 0

    def start(self) -> InProcess:
        self.thread.start()
        _, self.port = asyncio.run_coroutine_threadsafe(self.server.start("127.0.0.1", 0), self.loop).result(START)
        return self

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self.server.close(), self.loop).result(START)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(WAIT)
        self.loop.close()


def player(
    port: int,
    key: Path,
    name: str,
    home: Path,
    *extra: str,
    rows: int = 24,
    cols: int = 80,
    env: dict[str, str] | None = None,
) -> Terminal:
    """``ssh -tt NAME@127.0.0.1`` at a terminal, once the lobby is on its screen."""
    args = ssh_args(port, key, name, *extra)
    t = Terminal(args[1:], home, rows=rows, cols=cols, program=args[0], env=client_env(home, **(env or {}))).start()
    try:
        t.wait_for(f"Cabinet · {name}", timeout=START)
    except BaseException:
        t.close()
        raise
    return t


SEAT_CHOICES = ["You", "A player", "Bot: random", "Bot: easy", "Bot: normal", "Bot: hard"]


def pick(t: Terminal, wanted: str, current: str) -> None:
    """In the seat's open drop-down, from ``current`` to the option ``wanted``."""
    steps = SEAT_CHOICES.index(wanted) - SEAT_CHOICES.index(current)
    t.press(*(["down"] * steps if steps > 0 else ["up"] * -steps), "enter")


def new_table(t: Terminal, second_seat: str) -> None:
    """L'Agent Jean! for two: this player in seat 1, ``second_seat`` ("A player", "Bot: easy"...) in seat 2."""
    t.press("n")
    t.wait_for("New table")
    t.wait_line("Game", "L'Agent Jean!")
    t.tab_to(lambda row, text: "Bot: normal" in text, "seat 2's choice")
    t.press("enter")
    pick(t, second_seat, "Bot: normal")
    t.wait_line("Seat 2", second_seat)
    t.press("ctrl+s")


def hand(t: Terminal) -> list[str]:
    """The cards in the "Your hand" box, in a row of labels (80x24) or of drawn cards."""
    t.wait_for("Your hand")
    lines = t.lines()
    top = next(i for i, line in enumerate(lines) if "Your hand" in line)
    bottom = next(i for i in range(top + 1, len(lines)) if lines[i].lstrip().startswith("╰"))
    left = lines[top].index("╭")
    right = lines[top].index("╮", left)  # the history panel may stand beside the box: not the hand
    return re.findall(r"\b[PBGY]\d{1,2}\b", "\n".join(line[left:right] for line in lines[top + 1 : bottom]))


def play_first_card(t: Terminal, name: str, cards_before: int) -> None:
    t.wait_for(f"{name}, your move")
    t.press("1")
    t.wait_line(f" {name} ", f"{cards_before - 1}+6")


def the_match(server: InProcess):
    (table,) = server.server.hall.tables.values()
    return table.match


def shown_hand(t: Terminal) -> set[str] | None:
    """The cards of the "Your hand" box, or None while it is not drawn whole."""
    try:
        return set(hand(t)) if t.shows("Your hand") else None
    except (StopIteration, ValueError):
        return None


def settle(server: InProcess, *seats: tuple[Terminal, str], timeout: float = 60.0) -> None:
    """Read every seat's terminal until each shows the hand the server holds for it, and
    says whether it is that seat's move as the server does."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        match = the_match(server)
        state, active = match.state, match.active()
        agreed = True
        for i, (t, name) in enumerate(seats):
            t.pump(0.05)
            asked = t.shows(f"{name}, your move")
            agreed = agreed and shown_hand(t) == set(state.hands[i]) and asked == (i in active)
        if agreed and match.state is state:
            return
    held = "; ".join(f"{name} holds {sorted(state.hands[i])}" for i, (_, name) in enumerate(seats))
    raise AssertionError(
        f"the screens do not show the game as the server has it ({held}; to move: {sorted(active)}):\n"
        + "\n".join(t.report(name) for t, name in seats)
    )


# -- a player --------------------------------------------------------------------------------


def test_a_player_plays_a_bot_leaves_and_finds_the_seat_again_after_a_restart(
    tmp_path: Path, keys: dict[str, Path]
) -> None:
    # started from a folder holding folders named like Cabinet's packages (a player's saves/, say):
    # the bots' workers, forked from a Python started with -c, imported those and died
    here = tmp_path / "operator"
    for name in ("saves", "net", "core", "table"):
        (here / name).mkdir(parents=True)
    serve = Serve(tmp_path / "data", cwd=here).start()
    try:
        serve.wait_line(r"^  host key: SHA256:")
        assert (tmp_path / "data" / "host_key").exists()
        with closing(player(serve.port, keys["ann"], "ann", tmp_path)) as ann:
            ann.wait_for("No tables yet")
            new_table(ann, "Bot: easy")
            ann.wait_for("You: ann")
            assert len(hand(ann)) == 6
            play_first_card(ann, "ann", 6)
            ann.wait_for("ann plays")
            ann.press("q")  # leave the table: back in the lobby, the table waits
            ann.wait_line("L'Agent Jean!", "you, Bot 2 (easy)")
        # the connection dropped (the ssh client killed): the seat waits
        serve.wait_line(r"ann is away")

        with closing(player(serve.port, keys["ann"], "ann", tmp_path)) as again:
            again.wait_line("Your move", "L'Agent Jean!")
            again.press("enter")
            again.wait_for("You: ann")
            again.wait_line(" ann ", "5+6")
            assert serve.stop(again) == 0
            # the player is told, in one sentence, and the session ends
            again.wait_exit(timeout=WAIT)
            assert "The server is stopping; your seats wait for you." in again.raw.decode(errors="replace")
            # and the terminal is given back: the player's own screen, no mouse reports, a cursor
            assert modes_left_on(bytes(again.raw)) == [], again.raw[-400:]
        serve.wait_line(r"^Stopping: every table is saved\.")
        serve.check_clean()
        assert not serve.find("bot worker died|bot workers cannot start"), "\n".join(serve.lines)

        serve = Serve(tmp_path / "data").start()
        serve.wait_line(r"\(1 table resumed; ")
        with closing(player(serve.port, keys["ann"], "ann", tmp_path)) as resumed:
            resumed.wait_line("Your move", "L'Agent Jean!")
            resumed.press("enter")
            resumed.wait_line(" ann ", "5+6")
            resumed.wait_for("ann plays")
            play_first_card(resumed, "ann", 5)
            resumed.press("q")
            resumed.wait_for("Cabinet · ann")
            resumed.press("q")
            assert resumed.wait_exit(timeout=WAIT) == 0
    finally:
        serve.stop()
    serve.check_clean()


def test_a_burst_of_arrows_in_the_history_keeps_the_player_at_the_table(tmp_path: Path, keys: dict[str, Path]) -> None:
    """``h``, then a thousand arrows in one write (a paste, a key held down on a fast
    auto-repeat): the history steps through them, the player stays at the table, Esc
    brings the play back and a move by keys lands."""
    serve = Serve(tmp_path / "data").start()
    try:
        with closing(player(serve.port, keys["ann"], "ann", tmp_path)) as ann:
            new_table(ann, "Bot: easy")
            ann.wait_for("You: ann")
            play_first_card(ann, "ann", 6)
            ann.wait_for("ann, your move")
            ann.press("h")
            # two lines back, then up and down between two past positions: each of the
            # thousand arrows is a step to a position the table was at
            burst = "\x1b[A" * 2 + "\x1b[A\x1b[B" * 499
            assert ann.child is not None
            ann.child.send(burst.encode())
            ann.wait_until(
                lambda: ann.shows("Looking back: ") or ann.shows("No more moves here"),
                "the history to show the past",
            )
            ann.press("escape")  # read after the arrows: back to play once they are all taken
            ann.wait_until(
                lambda: ann.shows("ann, your move") or ann.shows("No more moves here"), "the play to come back"
            )
            assert not ann.shows("No more moves here"), ann.report("The player was thrown off the table")
            play_first_card(ann, "ann", 5)
            ann.press("q")
            ann.wait_for("Cabinet · ann")
            ann.press("q")
            assert ann.wait_exit(timeout=WAIT) == 0
    finally:
        serve.stop()
    assert not any("Too many messages" in line for line in serve.lines), serve.lines
    # an honest burst: never taken for a flood (demoted, the session took its keys and its end
    # at a twentieth of a core, and q did not end it in time on a busy machine)
    assert not any("kept a core busy" in line for line in serve.lines), serve.lines
    serve.check_clean()


def test_two_keys_at_one_table_each_see_only_their_own_hand(tmp_path: Path, keys: dict[str, Path]) -> None:
    server = InProcess(tmp_path / "data").start()
    try:
        with (
            closing(player(server.port, keys["ann"], "ann", tmp_path)) as ann,
            closing(player(server.port, keys["bob"], "bob", tmp_path, rows=40, cols=120)) as bob,
        ):
            new_table(ann, "A player")
            ann.wait_for("Your table is open")
            bob.wait_line("Waiting", "L'Agent Jean!", "ann, — free")
            bob.press("enter")
            ann.wait_for("has started")
            ann.press("enter")  # ann opens her table from the lobby
            bob.wait_for("You: bob")
            ann.wait_for("You: ann")
            for _ in range(4):  # four moves, whoever is to make them
                settle(server, (ann, "ann"), (bob, "bob"))
                # each sees its own hand (the one the server holds), never the other's
                mine, theirs = hand(ann), hand(bob)
                assert not any(re.search(rf"\b{card}\b", bob.screen_text()) for card in mine), bob.screen_text()
                assert not any(re.search(rf"\b{card}\b", ann.screen_text()) for card in theirs), ann.screen_text()
                match = the_match(server)
                (seat,) = match.active()
                before = match.move_count
                (ann, bob)[seat].press("1")  # the first card (or choice) of whoever is to move
                (ann, bob)[seat].wait_until(
                    lambda before=before: the_match(server).move_count > before, "the move to be made"
                )
            # and what the server sent each seat held that seat's view only
            assert server.audit.sent > 4 and not server.audit.failures, server.audit.failures[:3]
    finally:
        server.stop()
    assert not [line for line in server.lines if "Internal error" in line], server.lines


# -- the operator ------------------------------------------------------------------------------


def test_a_session_reaches_nothing_of_the_servers_machine(tmp_path: Path, keys: dict[str, Path]) -> None:
    """The palette of a served session offers no screenshot (which wrote into the
    operator's home, and showed its path to whoever asked); its program has a private
    empty home of its own, and a spectator at a stop is not told of seats it has not."""
    operator = tmp_path / "operator"
    operator.mkdir()
    serve = Serve(tmp_path / "data", env={"HOME": str(operator), "SECRET_TOKEN": "hunter2"}).start()
    try:
        with closing(player(serve.port, keys["eve"], "eve", tmp_path)) as eve:
            eve.press("ctrl+p")
            eve.wait_for("Keys")  # the palette's commands, listed
            assert "Screenshot" not in eve.screen_text()
            eve.type("screenshot")
            eve.press("enter")
            eve.press("escape")
            eve.wait_for("Cabinet · eve")
            pid = int(serve.wait_line(r"eve from 127\.0\.0\.1: session started \(.*pid (\d+)\)").group(1))
            environ = dict(
                item.split("=", 1) for item in Path(f"/proc/{pid}/environ").read_text().split("\0") if "=" in item
            )
            assert "SECRET_TOKEN" not in environ and environ["HOME"] != str(operator)
            assert Path(f"/proc/{pid}/cwd").resolve() == Path(environ["HOME"]).resolve()
            assert serve.stop(eve) == 0
            eve.wait_exit(timeout=WAIT)
            said = eve.raw.decode(errors="replace")
            assert "The server is stopping; every table is saved." in said and "your seats" not in said
            assert modes_left_on(bytes(eve.raw)) == []
    finally:
        serve.stop()
    assert list(operator.rglob("*")) == [], "nothing written in the operator's home"
    serve.check_clean()


def test_what_is_not_a_game_is_refused_in_a_sentence_and_logged(tmp_path: Path, keys: dict[str, Path]) -> None:
    allow = tmp_path / "authorized_keys"
    allow.write_text("".join(Path(f"{keys[n]}.pub").read_text() for n in ("ann", "bob")))
    serve = Serve(tmp_path / "data", "--allow", str(allow)).start()
    try:
        serve.wait_line(rf"admitting only the keys in {re.escape(str(allow))}")
        stranger = run_ssh(serve.port, keys["eve"], "eve", home=tmp_path, batch=False)  # as a player, not a script
        assert "Your key is not on this server's list of players; ask its operator to add it." in stranger.stderr
        assert stranger.returncode == 255
        serve.wait_line(r"^Refused eve from 127\.0\.0\.1: Your key is not on this server's list")

        command = run_ssh(serve.port, keys["ann"], "ann", home=tmp_path, tty=False, command=["sh", "-c", "id"])
        assert f"Cabinet runs no commands: connect without one (ssh -p {serve.port} NAME@host)." in command.stderr
        assert command.returncode == 1 and command.stdout == ""
        serve.wait_line(r"^Refused the command 'sh -c id' to ann from 127\.0\.0\.1: Cabinet runs no commands")

        shell = run_ssh(serve.port, keys["ann"], "ann", "-T", home=tmp_path, tty=False)
        assert "Cabinet needs a terminal: connect with ssh -t." in shell.stderr and shell.returncode == 1

        forward = run_ssh(
            serve.port,
            keys["ann"],
            "ann",
            "-N",
            "-o",
            "ExitOnForwardFailure=yes",
            "-R",
            "0:127.0.0.1:9",
            home=tmp_path,
            tty=False,
        )
        assert forward.returncode == 255 and "remote port forwarding failed" in forward.stderr

        sftp = run_ssh(serve.port, keys["ann"], "ann", "-s", home=tmp_path, tty=False, command=["sftp"])
        assert "Cabinet offers no sftp: connect without -s." in sftp.stderr

        # a name held by another listed key
        taken = run_ssh(serve.port, keys["bob"], "ann", home=tmp_path, batch=False)
        assert "The name ann belongs to another key." in taken.stderr and taken.returncode == 255

        # and after all that, a listed key still plays
        with closing(player(serve.port, keys["bob"], "bob", tmp_path)) as bob:
            bob.press("q")
            assert bob.wait_exit(timeout=WAIT) == 0
    finally:
        serve.stop()
    refused = [line for line in serve.lines if line.startswith("Refused")]
    assert len(refused) >= 5, serve.lines  # the stranger, the command, the shell, the forwarding, sftp, the name
    serve.check_clean()


def colours(t: Terminal) -> set[str]:
    return {c for row in t.screen.buffer.values() for cell in row.values() for c in (cell.fg, cell.bg)}


def grey(colour: str) -> bool:
    """No hue: the terminal's own colours, black, white, or a shade between."""
    return colour in ("default", "black", "white") or (len(colour) == 6 and colour[0:2] == colour[2:4] == colour[4:6])


def session_environment(serve: Serve, name: str) -> dict[str, str]:
    """The environment the server gave the program of ``name``'s latest session."""
    pid = [
        m.group(1)
        for m in (re.search(rf"^{name} from .*: session started \(.*, pid (\d+)\)", line) for line in serve.lines)
        if m
    ][-1]
    entries = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(entry.decode().split("=", 1) for entry in entries if b"=" in entry)


def test_colours_follow_the_players_terminal(tmp_path: Path, keys: dict[str, Path]) -> None:
    serve = Serve(tmp_path / "data", env={"CABINET_SECRET_OF_THE_SERVER": "s3cret"}).start()
    try:
        with closing(player(serve.port, keys["ann"], "ann", tmp_path, env={"COLORTERM": "truecolor"})) as ann:
            # the session's program: the client's terminal and colours, a screen's frame
            # rate for a server, none of the server's own environment
            env = session_environment(serve, "ann")
            assert env["TERM"] == "xterm-256color" and env["COLORTERM"] == "truecolor" and env["TEXTUAL_FPS"] == "30"
            assert "CABINET_SECRET_OF_THE_SERVER" not in env
            ann.press("n")
            ann.wait_for("Start  (ctrl+s)")
            until(lambda: b"38;2;" in ann.raw, what="24-bit colour codes")
            assert not all(grey(c) for c in colours(ann)), colours(ann)
            ann.press("escape")
            ann.wait_gone("Start  (ctrl+s)")
            ann.press("q")
            ann.wait_exit(timeout=WAIT)
        # NO_COLOR: shades of grey only (Textual's monochrome)
        with closing(player(serve.port, keys["ann"], "ann", tmp_path, env={"NO_COLOR": "1"})) as plain:
            plain.press("n")
            plain.wait_for("Start  (ctrl+s)")
            assert all(grey(c) for c in colours(plain)), colours(plain)
            plain.press("escape")
            plain.wait_gone("Start  (ctrl+s)")
            plain.press("q")
            plain.wait_exit(timeout=WAIT)
    finally:
        serve.stop()
    serve.check_clean()


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-n", "0", "-v"]))


def test_two_servers_on_one_database_agree_on_who_holds_a_name(tmp_path: Path, keys: dict[str, Path], pg_url) -> None:
    """Ann's key claims her name on one server; on another server of the same database
    the name is hers too: Bob's key is refused it there, and her key gets in."""
    pytest.importorskip("psycopg", reason="the PostgreSQL driver (the extra 'postgres') is not installed")
    first = Serve(tmp_path / "one", "--store", pg_url).start()
    second = Serve(tmp_path / "two", "--store", pg_url).start()
    try:
        with closing(player(first.port, keys["ann"], "ann", tmp_path)) as ann:
            ann.press("q")
            assert ann.wait_exit(timeout=WAIT) == 0
        taken = run_ssh(second.port, keys["bob"], "Ann", home=tmp_path, batch=False)
        assert "The name ann belongs to another key." in taken.stderr and taken.returncode == 255
        second.wait_line(r"^Refused .*The name ann belongs to another key")
        with closing(player(second.port, keys["ann"], "ann", tmp_path)) as ann:
            ann.press("q")
            assert ann.wait_exit(timeout=WAIT) == 0
    finally:
        first.stop()
        second.stop()
    assert not (tmp_path / "one" / "players.json").exists() and not (tmp_path / "two" / "players.json").exists()
    first.check_clean()
    second.check_clean()


def whose_move(ann: Terminal, bob: Terminal, timeout: float = 60.0) -> tuple[Terminal, str, Terminal]:
    """The seat to move, once both screens agree on it (its own says so, the other's waits
    for it): the mover's terminal, name, and the other's terminal."""
    found: list[tuple[Terminal, str, Terminal]] = []

    def ready() -> bool:
        ann.pump(0.05)  # what each program has written since: a status line may come a frame late
        bob.pump(0.05)
        found[:] = [
            (t, name, other)
            for t, name, other in ((ann, "ann", bob), (bob, "bob", ann))
            if f"{name}, your move" in t.screen_text() and f"Waiting for {name}" in other.screen_text()
        ]
        return bool(found)

    try:
        until(ready, timeout, "both screens agreeing on whose move it is")
    except AssertionError as exc:
        raise AssertionError(f"{exc}\n{ann.report('ann')}\n{bob.report('bob')}") from None
    return found[0]


def cards_in_hand(t: Terminal, name: str) -> int:
    """The cards in ``name``'s hand as the table of players shows them ("4+6": in hand + face
    down), read left of the history."""
    for line in t.lines():
        left = line.split("│")[0]
        found = re.search(rf" {name} .*?(\d+)\+\d+", left)
        if found:
            return int(found.group(1))
    raise AssertionError(f"no row of {name} in the players' table:\n" + t.screen_text())


def moves_seen_by_both(ann: Terminal, bob: Terminal, moves: int) -> None:
    """``moves`` moves, by whoever is to make them, each seen by both."""
    for _ in range(moves):
        t, name, other = whose_move(ann, bob)
        before = cards_in_hand(t, name)
        t.press("1")  # the first card of the hand
        t.wait_line(f" {name} ", f"{before - 1}+")
        other.wait_line(f" {name} ", f"{before - 1}+")


def test_players_on_two_servers_of_one_database_play_at_one_table(
    tmp_path: Path, keys: dict[str, Path], pg_url
) -> None:
    """Ann opens a table on one server; Bob, on another server of the same database, sits
    at it, and they play, each seeing the other's moves (what each server sends each seat is
    audited in tests/test_relay.py). The server that serves the table is killed: the other
    takes it over from the log, Ann's screen joins it again by itself, and Bob, connecting to
    the server left, plays on."""
    pytest.importorskip("psycopg", reason="the PostgreSQL driver (the extra 'postgres') is not installed")
    first = Serve(tmp_path / "one", "--store", pg_url).start()
    second = Serve(tmp_path / "two", "--store", pg_url).start()
    try:
        with closing(player(first.port, keys["ann"], "ann", tmp_path)) as ann:
            with closing(player(second.port, keys["bob"], "bob", tmp_path)) as bob:
                new_table(ann, "A player")
                ann.wait_for("Your table is open")
                bob.wait_line("Waiting", "L'Agent Jean!", "ann, — free")  # listed on the other server
                bob.press("enter")  # Bob takes the free seat: the table starts on his server
                bob.wait_for("You: bob")
                second.wait_line(r"starts: ann, bob\.")
                ann.wait_for("has started")
                ann.press("enter")
                ann.wait_for("You: ann")
                moves_seen_by_both(ann, bob, 3)
            assert second.proc is not None
            second.proc.kill()  # the table's server dies (SIGKILL), Bob's session with it
            second.proc.wait()
            first.wait_line(r"taken over from its log")
            ann.wait_for("Joined again")
            with closing(player(first.port, keys["bob"], "bob", tmp_path)) as bob:
                bob.wait_line("L'Agent Jean!", "ann, you")
                bob.press("enter")
                bob.wait_for("You: bob")
                moves_seen_by_both(ann, bob, 2)
    finally:
        first.stop()
        if second.proc is not None and second.proc.poll() is None:
            second.stop()
    first.check_clean()


# -- the operator's side -------------------------------------------------------------------------


def test_a_log_that_cannot_be_written_never_stops_the_server_nor_its_goodbye(
    tmp_path: Path, keys: dict[str, Path]
) -> None:
    """``cabinet serve | head -1``: the log's reader goes after a line; the server goes on,
    and at Ctrl-C its players are still told goodbye, with no traceback anywhere."""
    command = [str(CABINET), "serve", "--listen", "127.0.0.1:0", "--data", str(tmp_path / "data"), "--bot-delay", "0"]
    proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert proc.stderr is not None and proc.stdout is not None
        while not (
            first := re.match(r"Cabinet serves on 127\.0\.0\.1:(\d+) ", line := proc.stderr.readline().decode())
        ):
            assert line, "cabinet serve ended before saying where it serves"
        port = int(first.group(1))
        proc.stderr.close()  # as head does, once it has its line
        proc.stdout.close()
        with closing(player(port, keys["ann"], "ann", tmp_path)) as ann:
            ann.press("q")  # a session ends: a line for a log nobody reads
            assert ann.wait_exit(timeout=WAIT) == 0
        with closing(player(port, keys["ann"], "ann", tmp_path)) as ann:
            proc.send_signal(signal.SIGINT)
            ann.wait_exit(timeout=WAIT)
            assert "The server is stopping; every table is saved." in ann.raw.decode(errors="replace")
        assert proc.wait(timeout=WAIT * 3) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_the_log_goes_to_a_file_and_the_invitation_names_this_machine(tmp_path: Path, keys: dict[str, Path]) -> None:
    """With --log, the log is the file's (each line with its time), nothing on the terminal;
    a server on every address invites players at this machine's addresses, and with
    --allow it does not warn that anyone may claim a name."""
    allow = tmp_path / "authorized_keys"
    allow.write_text(Path(f"{keys['ann']}.pub").read_text())
    log = tmp_path / "serve.log"
    command = [
        str(CABINET),
        "serve",
        "--listen",
        "0.0.0.0:0",
        "--data",
        str(tmp_path / "data"),
        "--allow",
        str(allow),
        "--log",
        str(log),
    ]
    proc = subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        until(lambda: log.exists() and "Ctrl-C stops the server" in log.read_text(), START, "the log file written")
        text = log.read_text()
        assert re.search(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} Cabinet serves on 0\.0\.0\.0:\d+ ", text, re.M), text
        players = re.search(r"  players: ssh -p (\d+) NAME@(\S+)", text)
        assert players and players.group(2) != "THIS-MACHINE", text
        assert re.search(r"from this machine: ssh -p \d+ NAME@127\.0\.0\.1", text) or players.group(2) == "127.0.0.1", (
            text
        )
        assert "may claim a name" not in text
        with closing(player(int(players.group(1)), keys["ann"], "ann", tmp_path)) as ann:
            ann.press("q")
            assert ann.wait_exit(timeout=WAIT) == 0
        until(lambda: "ann from 127.0.0.1: session ended" in log.read_text(), WAIT, "the session's end logged")
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=WAIT * 3)
        assert proc.returncode == 0 and out == "" and err == "", (out, err)
        assert "Stopping: every table is saved." in log.read_text()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()

    # without --allow, the warning stands
    proc = subprocess.Popen([str(CABINET), "serve", "--listen", "0.0.0.0:0", "--data", str(tmp_path / "open")],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)  # fmt: skip
    try:
        lines = []
        assert proc.stdout is not None
        while not any("Ctrl-C stops the server" in line for line in lines):
            lines.append(proc.stdout.readline())
            assert lines[-1], "".join(lines)
        assert any(
            "anyone who can reach it may claim a name with their key (--allow AUTHORIZED_KEYS" in line for line in lines
        ), lines
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=WAIT * 3)


# -- the database restarts -----------------------------------------------------------------------


def committed(url: str, *tables: str) -> dict[str, list[Any]]:
    """The events of each table's log, as its server committed them."""
    from saves import load, open_store

    store = open_store(url)
    try:
        return {table: load(store.source(table)).match.events for table in tables}
    finally:
        store.close()


def read(terminals: list[Terminal]) -> bool:
    """What each program has written since, on its screen (True, for conditions)."""
    for t in terminals:
        t.pump(0.02)
    return True


def move_on(
    mover: Terminal, name: str, others: list[Terminal], everyone: list[Terminal], timeout: float = 90.0
) -> None:
    """``name`` plays the first card of their hand once their screen offers a move, and
    every screen of ``others`` shows it.  A press that went nowhere (a screen still to find
    that its table moved, a server that could not pass the move on) is made again; each
    screen of ``everyone`` is read meanwhile, so that no app waits on its terminal."""
    deadline = time.monotonic() + timeout

    def ready() -> bool:
        read(everyone)
        return f"{name}, your move" in mover.screen_text() and "joining again" not in mover.screen_text()

    while True:
        until(ready, max(0.1, deadline - time.monotonic()), f"{name}'s screen offering a move")
        before = cards_in_hand(mover, name)
        mover.press("1")
        pressed = time.monotonic()

        def played(before: int = before) -> bool:
            read(everyone)
            return cards_in_hand(mover, name) < before

        try:
            until(played, min(10.0, max(0.1, deadline - pressed)), f"{name}'s move to show")
            break
        except AssertionError:
            if time.monotonic() > deadline:
                raise AssertionError(f"{name} could not move within {timeout} s\n" + mover.report(name)) from None
    for other in others:
        other.wait_line(f" {name} ", f"{before - 1}+", timeout=max(1.0, deadline - time.monotonic()))


def test_servers_on_one_store_play_on_when_its_database_restarts_or_stops_a_while(
    tmp_path: Path, keys: dict[str, Path], pg_cluster
) -> None:
    """The database of two servers restarts (``pg_ctl restart -m fast``) with moves on their way,
    restarts again while nobody plays, then stops a few seconds and starts again. Each time every
    table takes moves again, with every move committed before; the players' screens join their
    tables again by themselves; each server says once that it lost the database and once that
    it has it again, and prints no traceback."""
    url = pg_cluster.url
    first = Serve(tmp_path / "one", "--store", url).start()
    second = Serve(tmp_path / "two", "--store", url).start()
    try:
        with (
            closing(player(first.port, keys["ann"], "ann", tmp_path)) as ann,
            closing(player(second.port, keys["bob"], "bob", tmp_path)) as bob,
            closing(player(first.port, keys["eve"], "eve", tmp_path)) as eve,
        ):
            everyone = [ann, bob, eve]
            # Ann and Bob at one table, each on a server (the second holds it); Eve against a bot on the first
            new_table(ann, "A player")
            ann.wait_for("Your table is open")
            bob.wait_line("Waiting", "L'Agent Jean!", "ann, — free")
            bob.press("enter")
            bob.wait_for("You: bob")
            duel = second.wait_line(r"\[(\w+)\] L'Agent Jean! starts: ann, bob\.").group(1)
            ann.wait_for("has started")
            ann.press("enter")
            ann.wait_for("You: ann")
            new_table(eve, "Bot: easy")
            eve.wait_for("You: eve")
            alone = first.wait_line(r"\[(\w+)\] L'Agent Jean! starts: eve, Bot 2\.").group(1)
            moves_seen_by_both(ann, bob, 2)
            move_on(eve, "eve", [], everyone)

            def every_table_plays_on(before: dict[str, list[Any]]) -> None:
                mover, name, other = whose_move(ann, bob, timeout=90.0)
                move_on(mover, name, [other], everyone)
                move_on(eve, "eve", [], everyone)
                after = committed(url, duel, alone)
                for table, events in before.items():
                    assert after[table][: len(events)] == events, f"table {table} lost a committed move"
                    assert len(after[table]) > len(events)

            # a restart with a move on its way at each table: that move may be lost, no other
            before = committed(url, duel, alone)
            mover, _name, _ = whose_move(ann, bob)
            eve.wait_for("eve, your move")
            mover.press("1")
            eve.press("1")
            pg_cluster.restart()
            every_table_plays_on(before)

            # a restart while nobody plays: the servers find it by themselves
            before = committed(url, duel, alone)
            pg_cluster.restart()
            every_table_plays_on(before)

            # the database away a few seconds: a login meanwhile is refused in a sentence, and the
            # player of the two on the table's own server is sent to join it again, and waits
            before = committed(url, duel, alone)
            mark = [len(first.lines), len(second.lines)]
            pg_cluster.shut_down()
            for server, start in zip((first, second), mark, strict=True):
                until(
                    lambda server=server, start=start: any(
                        line.startswith("Lost the connection to PostgreSQL database ") for line in server.lines[start:]
                    ),
                    30.0,
                    "the server saying it lost the database",
                )
            refused = run_ssh(first.port, keys["bob"], "bob", home=tmp_path, batch=False)  # as a player: told why
            assert "The server cannot check names just now; try again later." in refused.stderr
            until(
                lambda: read(everyone) and (ann.shows("joining again") or bob.shows("joining again")),
                30.0,
                "Ann's or Bob's screen joining their table again",
            )
            pg_cluster.start_again()
            every_table_plays_on(before)
    finally:
        first.stop()
        second.stop()
        for server, called in ((first, "first"), (second, "second")):
            print(f"-- the {called} server printed --", *server.lines, sep="\n")  # shown if the test fails
    for server in (first, second):
        server.check_clean()
        text = "\n".join(server.lines)
        assert "Unhandled exception" not in text and "the connection is closed" not in text, text
        lost = [line for line in server.lines if line.startswith("Lost the connection to PostgreSQL database ")]
        back = [line for line in server.lines if line.startswith("Connected again to PostgreSQL database ")]
        assert len(lost) == len(back) == 3, text
