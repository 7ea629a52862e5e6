"""One writer a save: a second one is refused in a sentence naming the first,
in this process or another; the lock goes with the writer (closed, or its process
killed); and ``verify`` fails a game left with nobody to act."""

from __future__ import annotations

import getpass
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from saves import SaveError, SaveLocked, SaveWriter, load, verify
from saves import format as fmt
from tests.test_saves import new_match, step
from tests.toygame import GAMES, ToyGame

ROOT = Path(__file__).resolve().parent.parent


def started(path: Path, moves: int = 2) -> SaveWriter:
    match = new_match()
    writer = SaveWriter(path, match)
    for _ in range(moves):
        step(match)
    return writer


def test_a_second_writer_is_refused_naming_the_first(tmp_path, monkeypatch) -> None:
    path = tmp_path / "g.cab"
    monkeypatch.setattr(fmt, "WRITER_COMMAND", "cabinet host")
    first = started(path)
    with pytest.raises(SaveLocked) as info:
        SaveWriter.resume(load(path, GAMES))
    sentence = str(info.value)
    assert sentence == f"{getpass.getuser()} is playing this game already (cabinet host, pid {os.getpid()})."
    assert isinstance(info.value, SaveError)  # whoever catches SaveError catches this too
    # a new game written to the same path is refused the same way
    with pytest.raises(SaveLocked):
        SaveWriter(path, new_match())
    # the first writer was not disturbed: it goes on saving every move
    step(first.match)
    assert load(path, GAMES).match.events == first.match.events
    first.close()
    # closed, the save is free: the next writer takes it and appends
    second = SaveWriter.resume(load(path, GAMES))
    step(second.match)
    second.close()
    second.close()  # closing twice is harmless
    assert len(load(path, GAMES).match.moves) - 1 == 4  # 2 + 1 by the first writer, 1 by the second


def test_the_lock_outlives_a_rewrite_of_the_save(tmp_path) -> None:
    """A take-back rewrites the save into a new file: the lock must still hold."""
    path = tmp_path / "r.cab"
    writer = started(path, moves=3)
    inode = path.stat().st_ino
    writer.match.truncate_moves(2)
    writer.rewrite()
    assert path.stat().st_ino != inode
    with pytest.raises(SaveLocked):
        SaveWriter.resume(load(path, GAMES))
    writer.close()
    SaveWriter.resume(load(path, GAMES)).close()


def holding_process(command: str, source: str) -> subprocess.Popen[str]:
    """Another process, calling itself ``command``, writing the save that the Python
    expression ``source`` names (a path, or a table in a store), once it says so;
    it holds it until it is killed."""
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import sys
            from saves import SaveWriter, load, open_store
            from saves import format as fmt
            from tests.toygame import GAMES
            fmt.WRITER_COMMAND = {command!r}
            writer = SaveWriter.resume(load({source}, GAMES))
            print("holding", flush=True)
            sys.stdin.read()
        """)],
        cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
    return holder


def test_a_writer_in_another_process_is_named_and_its_death_frees_the_save(tmp_path) -> None:
    path = tmp_path / "p.cab"
    started(path).close()
    holder = holding_process("cabinet load", repr(str(path)))
    try:
        with pytest.raises(SaveLocked) as info:
            SaveWriter.resume(load(path, GAMES))
        assert str(info.value).endswith(f"is playing this game already (cabinet load, pid {holder.pid}).")
        assert info.value.holder["pid"] == holder.pid
    finally:
        holder.send_signal(signal.SIGKILL)  # no clean close: the kernel lets the lock go
        holder.wait(10)
    writer = SaveWriter.resume(load(path, GAMES))  # the note it left is stale, and overwritten
    assert writer.error is None
    writer.close()


def test_a_save_that_grew_since_it_was_read_is_not_written_over(tmp_path) -> None:
    path = tmp_path / "grown.cab"
    writer = started(path)
    stale = load(path, GAMES)
    step(writer.match)  # somebody else plays a move after we read the file...
    writer.close()  # ...and lets it go
    before = path.read_bytes()
    with pytest.raises(SaveError, match="changed since it was read"):
        SaveWriter.resume(stale)
    assert path.read_bytes() == before
    SaveWriter.resume(load(path, GAMES)).close()  # read again, it is free


class StuckToy(ToyGame):
    """The toy game, but nobody may act after the second move (and the game is not over)."""

    def active(self, state):
        return () if state.played >= 2 else super().active(state)


def test_verify_fails_a_game_that_is_not_over_with_nobody_to_act(tmp_path) -> None:
    path = tmp_path / "stuck.cab"
    started(path, moves=2).close()
    assert "in progress" in verify(path, GAMES)
    with pytest.raises(SaveError) as info:
        verify(path, {"toy": StuckToy()})
    assert str(info.value) == "stuck.cab is stuck after 2 moves: the game is not over, yet nobody has a move to make."
