"""A player at a real terminal: runs ``cabinet`` in a pseudo-terminal and reads
its screen as a player sees it.

The program runs under pexpect in a pty of the given size; everything it writes
is fed to a pyte screen of the same size, and the tests read that screen.
Waits are conditions with a deadline (the screen shows this text), never a
fixed sleep standing for "it must be done by now".
"""

from __future__ import annotations

import os
import sys
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path

import pexpect
import pyte

#: the console script installed next to the interpreter running the tests
CABINET = Path(sys.executable).parent / "cabinet"

#: what an xterm sends for each key
KEYS = {
    "up": "\x1b[A",
    "down": "\x1b[B",
    "right": "\x1b[C",
    "left": "\x1b[D",
    "home": "\x1b[H",
    "end": "\x1b[F",
    "ctrl+home": "\x1b[1;5H",
    "ctrl+end": "\x1b[1;5F",
    "pageup": "\x1b[5~",
    "pagedown": "\x1b[6~",
    "enter": "\r",
    "escape": "\x1b",
    "esc": "\x1b",
    "tab": "\t",
    "shift+tab": "\x1b[Z",
    "backspace": "\x7f",
    "space": " ",
    "ctrl+s": "\x13",
    "ctrl+p": "\x10",
    "ctrl+c": "\x03",
    "ctrl+q": "\x11",
}

#: synchronized output (DEC mode 2026): the program asks whether the terminal
#: has it; this one says yes, and then draws a whole frame at a time, as a
#: player's terminal does, so a test never reads a half-drawn screen
SYNC_QUERY = b"\x1b[?2026$p"
SYNC_REPLY = "\x1b[?2026;2$y"
SYNC_START = b"\x1b[?2026h"
SYNC_END = b"\x1b[?2026l"


def draw_whole_frames(pending: bytearray, in_frame: bool, draw: Callable[[bytes], None]) -> bool:
    """Give ``draw`` what ``pending`` holds of the output, except a synchronized frame not
    yet finished (and what may be the beginning of one's start), which stays in ``pending``;
    whether the output is inside a frame when it stops."""
    while pending:
        if in_frame:
            end = pending.find(SYNC_END)
            if end < 0:
                return in_frame
            cut = end + len(SYNC_END)
            in_frame = False
        else:
            start = pending.find(SYNC_START)
            if start >= 0:
                cut = start + len(SYNC_START)
                in_frame = True
            else:
                cut = len(pending)
                for keep in range(min(len(SYNC_START) - 1, len(pending)), 0, -1):
                    if SYNC_START.startswith(bytes(pending[-keep:])):
                        cut = len(pending) - keep
                        break
                if cut == 0:
                    return in_frame
        draw(bytes(pending[:cut]))
        del pending[:cut]
    return in_frame


#: a pause between two keys, as a quick typist leaves; it also keeps a lone
#: Esc from being read as the start of the next key's escape sequence
KEY_GAP = 0.06


class Terminal:
    """``cabinet ARGS`` in a pty of ``rows`` x ``cols``, with its screen."""

    def __init__(
        self,
        args: list[str],
        save_dir: Path,
        rows: int = 24,
        cols: int = 80,
        program: str | Path = CABINET,
        env: dict[str, str] | None = None,
    ) -> None:
        self.program = str(program)  # ``cabinet``, or ``ssh`` to a ``cabinet serve``
        self.extra_env = dict(env or {})
        self.args = [str(a) for a in args]
        self.save_dir = Path(save_dir)
        self.rows, self.cols = rows, cols
        self.screen = pyte.Screen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.raw = bytearray()  # everything the program wrote
        self.pending = bytearray()  # written, not yet on the screen: a frame still being drawn
        self.in_frame = False
        #: the screen at the end of each frame drawn since the last key (a few at most): a
        #: frame shown and drawn over within one read is still seen (``showed``)
        self.frames: deque[str] = deque(maxlen=64)
        self.answered_sync = False
        self.child: pexpect.spawn | None = None
        self.exit_status: int | None = None

    # -- life -------------------------------------------------------------

    def start(self) -> Terminal:
        env = dict(os.environ)
        env.update(
            TERM="xterm-256color", CABINET_SAVE_DIR=str(self.save_dir), COLUMNS=str(self.cols), LINES=str(self.rows)
        )
        for name in ("NO_COLOR", "TEXTUAL", "TEXTUAL_DRIVER"):
            env.pop(name, None)
        env.update(self.extra_env)
        self.child = pexpect.spawn(
            self.program, self.args, dimensions=(self.rows, self.cols), env=env, encoding=None, timeout=None
        )
        return self

    def __enter__(self) -> Terminal:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        child = self.child
        if child is not None and child.isalive():
            child.terminate(force=True)

    def alive(self) -> bool:
        return self.child is not None and self.child.isalive()

    def resize(self, rows: int, cols: int) -> None:
        """The window resized, as a terminal does it: the pty's size changes (the program gets
        SIGWINCH) and the screen is drawn anew at that size."""
        assert self.child is not None, "the terminal was not started"
        self.rows, self.cols = rows, cols
        self.screen.resize(rows, cols)
        self.child.setwinsize(rows, cols)

    # -- reading ------------------------------------------------------------

    def pump(self, timeout: float = 0.05) -> bool:
        """Read what the program wrote within ``timeout`` into the screen; False at its end."""
        assert self.child is not None, "the terminal was not started"
        try:
            data = self.child.read_nonblocking(65536, timeout=timeout)
        except pexpect.TIMEOUT:
            return True
        except pexpect.EOF:
            if self.pending:  # what was written on the way out
                self.stream.feed(bytes(self.pending))
                self.pending.clear()
            return False
        self.raw += data
        if not self.answered_sync and SYNC_QUERY in self.raw:
            self.answered_sync = True
            self.child.send(SYNC_REPLY)
        self.pending += data
        self._draw()
        return True

    def _draw(self) -> None:
        """Put on the screen what was written, except a frame not yet finished."""

        def feed(chunk: bytes) -> None:
            self.stream.feed(chunk)
            if chunk.endswith(SYNC_END):
                self.frames.append(self.screen_text())

        self.in_frame = draw_whole_frames(self.pending, self.in_frame, feed)

    def screen_text(self) -> str:
        return "\n".join(line.rstrip() for line in self.screen.display)

    def lines(self) -> list[str]:
        return [line.rstrip() for line in self.screen.display]

    def line_with(self, text: str) -> str | None:
        """The first screen line that contains ``text``."""
        return next((line for line in self.lines() if text in line), None)

    def focused(self) -> tuple[int, str]:
        """Where the focus is drawn: (row, the text in reverse video there); (-1, "") if nowhere."""
        for y in range(self.rows):
            row = self.screen.buffer[y]
            text = "".join(row[x].data for x in range(self.cols) if row[x].reverse).strip()
            if text:
                return y, text
        return -1, ""

    def shows(self, text: str) -> bool:
        return text in self.screen_text()

    def showed(self, text: str) -> bool:
        """Whether ``text`` is on the screen, or was at the end of a frame drawn since the last
        key: a loaded machine may read a frame and the next one, drawn over it, at once."""
        return self.shows(text) or any(text in frame for frame in self.frames)

    def report(self, what: str) -> str:
        """``what`` went wrong, with the screen as the player sees it."""
        state = "running" if self.alive() else f"ended (status {self.child.exitstatus if self.child else None})"
        return f"{what}\n-- the program is {state}; the screen ({self.cols}x{self.rows}) --\n{self.screen_text()}\n-- end of screen --"

    def healthy(self) -> None:
        """The program runs and no traceback was ever written."""
        assert b"Traceback" not in self.raw and "Traceback" not in self.screen_text(), self.report(
            "A traceback appeared"
        )
        assert self.alive(), self.report("The program is no longer running")

    def wait_until(self, condition: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
        """Read the output until ``condition()`` holds of the screen; fail after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            if condition():
                self.healthy()
                return
            if b"Traceback" in self.raw:
                self.pump(0.3)  # the rest of the traceback, for the report
                self.healthy()
            if not self.pump(0.05):
                if condition():
                    return
                raise AssertionError(self.report(f"The program ended while waiting for {what}"))
            if time.monotonic() > deadline:
                raise AssertionError(self.report(f"Waited {timeout:.0f} s for {what}"))

    def wait_for(self, text: str, timeout: float = 60.0) -> None:
        """Wait until the screen shows ``text``."""
        self.wait_until(lambda: self.shows(text), f"the screen to show {text!r}", timeout)

    def wait_gone(self, text: str, timeout: float = 60.0) -> None:
        """Wait until the screen no longer shows ``text``."""
        self.wait_until(lambda: not self.shows(text), f"{text!r} to leave the screen", timeout)

    def wait_line(self, *parts: str, timeout: float = 30.0) -> str:
        """Wait until one screen line holds all ``parts``; that line."""

        def found() -> bool:
            return any(all(p in line for p in parts) for line in self.lines())

        self.wait_until(found, f"a line with {' … '.join(map(repr, parts))}", timeout)
        return next(line for line in self.lines() if all(p in line for p in parts))

    # -- typing -------------------------------------------------------------

    def press(self, *keys: str) -> None:
        """Press keys in order: names from KEYS ("down", "enter", "escape"...) or plain text ("1", "q")."""
        assert self.child is not None, "the terminal was not started"
        for key in keys:
            self.healthy()
            self.frames.clear()
            self.child.send(KEYS.get(key.lower(), key) if len(key) > 1 else key)
            end = time.monotonic() + KEY_GAP
            while time.monotonic() < end:
                self.pump(max(0.0, end - time.monotonic()))

    def tab_to(self, wanted: Callable[[str, str], bool], what: str, key: str = "tab", limit: int = 30) -> None:
        """Press Tab (or ``key``, e.g. shift+tab) until the focus is on the field a
        player is after, as they would, watching the highlight: ``wanted(line,
        focused text)``.  The focus must first show somewhere (a screen is drawn
        before its focus is), so that each change seen is the key's."""
        self.wait_until(lambda: self.focused()[0] >= 0, "the focus to show on the screen")
        for _ in range(limit):
            here = self.focused()
            if here[0] >= 0 and wanted(self.lines()[here[0]], here[1]):
                return
            self.press(key)
            self.wait_until(lambda here=here: self.focused() != here, f"{key} to move the focus on the way to {what}")
        raise AssertionError(self.report(f"{limit} presses of {key} never reached {what}"))

    def type(self, text: str) -> None:
        """Type ``text`` character by character."""
        self.press(*text)

    # -- the end --------------------------------------------------------------

    def wait_exit(self, timeout: float = 30.0) -> int:
        """Wait for the program to end; its exit status."""
        assert self.child is not None, "the terminal was not started"
        deadline = time.monotonic() + timeout
        while self.pump(0.1):
            if time.monotonic() > deadline:
                raise AssertionError(self.report(f"The program did not end within {timeout:.0f} s"))
        # its terminal closed is not yet its end: a loaded machine may take a moment more, and
        # ``close`` hangs up a program still there (dbclient read -1, SIGHUP, so, once in CI)
        while self.child.isalive() and time.monotonic() <= deadline:
            time.sleep(0.02)
        self.child.close()
        assert b"Traceback" not in self.raw, self.report(
            "A traceback appeared on the way out:\n" + self.raw.decode("utf-8", "replace")[-3000:]
        )
        self.exit_status = (
            self.child.exitstatus if self.child.exitstatus is not None else -(self.child.signalstatus or 0)
        )
        return self.exit_status
