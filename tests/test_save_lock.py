"""One writer a save: a second one is refused in a sentence naming the first,
in this process or another; the lock goes with the writer (closed, or its process
killed); and ``verify`` fails a game left with nobody to act."""

from __future__ import annotations

import ctypes
import getpass
import os
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from saves import SaveError, SaveLocked, SaveNotWritable, SaveWriter, load, verify
from saves import format as fmt
from tests.test_saves import new_match, step
from tests.toygame import GAMES, ToyGame

ROOT = Path(__file__).resolve().parent.parent


def started(path: Path, moves: int = 2) -> SaveWriter:
    match = new_match()
    writer = SaveWriter(path, match)
    for _ in range(moves):
        step(match, writer)
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
    step(first.match, first)
    assert load(path, GAMES).match.events == first.match.events
    first.close()
    # closed, the save is free: the next writer takes it and appends
    second = SaveWriter.resume(load(path, GAMES))
    step(second.match, second)
    second.close()
    second.close()  # closing twice is harmless
    assert len(load(path, GAMES).match.moves) - 1 == 4  # 2 + 1 by the first writer, 1 by the second


def test_the_lock_outlives_a_rewrite_of_the_save(tmp_path) -> None:
    """A take-back rewrites the save into a new file: the lock must still hold."""
    path = tmp_path / "r.cab"
    writer = started(path, moves=3)
    inode = path.stat().st_ino
    writer.match.truncate_moves(2)
    writer.cut_back()
    assert writer.error is None
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
        [
            sys.executable,
            "-c",
            textwrap.dedent(f"""
            import sys
            from saves import SaveWriter, load, open_store
            from saves import format as fmt
            from tests.toygame import GAMES
            fmt.WRITER_COMMAND = {command!r}
            writer = SaveWriter.resume(load({source}, GAMES))
            print("holding", flush=True)
            sys.stdin.read()
        """),
        ],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
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
    step(writer.match, writer)  # somebody else plays a move after we read the file...
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


# -- a writer that cannot take the lock does not write (issue 32) -------------------------------------


def without_dac() -> None:
    """In a child process: the file modes hold for it, even as root (which otherwise
    passes over them with CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH)."""
    if os.geteuid() == 0:
        libc = ctypes.CDLL(None, use_errno=True)
        for capability in (1, 2):
            if libc.prctl(24, capability, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
                raise OSError(ctypes.get_errno(), "prctl")


def writer_process(path: Path) -> str:
    """What a writer in another process (for which modes hold) says when it takes the save up
    and plays a move: "wrote", or the sentence it was refused with."""
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            textwrap.dedent(f"""
            from saves import SaveError, SaveWriter, load
            from tests.test_saves import step
            from tests.toygame import GAMES
            try:
                writer = SaveWriter.resume(load({str(path)!r}, GAMES))
            except SaveError as exc:
                print(exc)
            else:
                step(writer.match, writer)
                writer.close()
                print("wrote")
        """),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=without_dac,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_writers_that_cannot_make_the_lock_in_a_read_only_directory_do_not_write(tmp_path) -> None:
    directory = tmp_path / "ro"
    directory.mkdir()
    path = directory / "g.cab"
    started(path).close()  # the save itself stays writable (0600): only its lock cannot be made
    before = path.read_bytes()
    os.chmod(directory, 0o500)
    try:
        said = [writer_process(path), writer_process(path)]  # two of them: neither goes on unguarded
    finally:
        os.chmod(directory, 0o700)
    refusal = "g.cab cannot be written (its lock g.cab.lock cannot be taken: permission denied): it can be replayed, not played on."
    assert said == [refusal, refusal]
    assert path.read_bytes() == before
    assert len(load(path, GAMES).match.moves) == 3


def test_a_lock_that_is_a_directory_or_a_link_is_not_taken_and_nothing_is_written(tmp_path) -> None:
    path = tmp_path / "g.cab"
    started(path).close()
    before = path.read_bytes()
    lock = fmt.lock_path(path)
    lock.mkdir()
    for _ in range(2):
        with pytest.raises(SaveNotWritable) as info:
            SaveWriter.resume(load(path, GAMES))
        assert str(info.value) == (
            "g.cab cannot be written (its lock g.cab.lock cannot be taken: it is a directory): it can be replayed, not played on."
        )
    lock.rmdir()
    # a link: the writer would truncate what it names and write its note there
    precious = tmp_path / "precious.txt"
    precious.write_text("mine\n")
    lock.symlink_to(precious)
    with pytest.raises(
        SaveNotWritable,
        match=r"its lock g\.cab\.lock cannot be taken: it is a symbolic link, which Cabinet does not follow\)",
    ):
        SaveWriter.resume(load(path, GAMES))
    assert precious.read_text() == "mine\n"
    assert path.read_bytes() == before
    # a new save is refused the same way, and not made
    fmt.lock_path(tmp_path / "new.cab").symlink_to(precious)
    with pytest.raises(
        SaveNotWritable,
        match=r"^Cannot save new\.cab in .*: its lock new\.cab\.lock cannot be taken: it is a symbolic link",
    ):
        SaveWriter(tmp_path / "new.cab", new_match())
    assert not (tmp_path / "new.cab").exists() and precious.read_text() == "mine\n"


def test_whether_a_save_is_held_is_asked_of_its_lock_without_following_a_link_or_waiting(tmp_path) -> None:
    path = tmp_path / "g.cab"
    started(path).close()
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    fmt.lock_path(path).symlink_to(fifo)  # opening a pipe to read waits for a writer
    answer: list[bool] = []
    asking = threading.Thread(target=lambda: answer.append(fmt.held(path)), daemon=True)
    asking.start()
    asking.join(10)
    assert answer == [False]
