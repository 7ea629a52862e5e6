"""The real ``cabinet`` command, run as a player runs it (a process of its own, a save
directory of its own): what it prints, its exit status, and never a traceback.

Each process is bounded by a generous timeout (a guard against a hang, not a measure).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
INSTALLED = Path(sys.executable).with_name("cabinet")
COMMAND = [str(INSTALLED)] if INSTALLED.exists() else [sys.executable, "-m", "cabinet"]
GUARD = 120  # seconds: far more than any of these takes


def cabinet(save_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CABINET_SAVE_DIR": str(save_dir)}
    result = subprocess.run([*COMMAND, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=GUARD)
    assert "Traceback" not in result.stdout + result.stderr, result.stderr
    return result


def refusal(result: subprocess.CompletedProcess[str], command: str) -> str:
    """A bad argument: status 2, the usage line of ``command``, then one sentence (returned)."""
    assert result.returncode == 2, result
    lines = result.stderr.strip().splitlines()
    assert lines[0].startswith(f"usage: cabinet {command}")
    assert lines[-1].startswith(f"cabinet {command}: ")
    assert all(line.startswith(" ") for line in lines[1:-1])  # the usage, wrapped; nothing else
    return lines[-1].removeprefix(f"cabinet {command}: ")


@pytest.mark.parametrize("game_id", ["agent-jean", "chirac-mitterrand", "edgar-lucien", "ministeres"])
def test_simulate_verify_export(tmp_path: Path, game_id: str) -> None:
    played = cabinet(
        tmp_path, "simulate", game_id, "--players", "2", "--games", "1", "--seed", "4", "--bot-level", "random"
    )
    assert played.returncode == 0, played.stderr
    first = played.stdout.splitlines()[0]
    moves = int(
        re.fullmatch(r"game 1: P[12]-random (?:wins|and P[12]-random share the win) in (\d+) moves \(.*\)", first)[1]
    )
    (save,) = tmp_path.glob("*.cab")
    # no lock left behind; the directory's key seals the saves written there
    assert sorted(p.name for p in tmp_path.iterdir()) == [".cabinet-key", save.name]

    checked = cabinet(tmp_path, "verify", str(save))
    assert checked.returncode == 0
    assert checked.stdout.strip().startswith(f"{save}: ")
    assert f"; {moves} moves; finished, won by P" in checked.stdout  # the same count of moves as simulate's

    text = cabinet(tmp_path, "export", str(save))
    assert text.returncode == 0
    assert f"Finished after {moves} moves" in text.stdout
    assert f"\nMove {moves}: P" in text.stdout and f"\nMove {moves + 1}:" not in text.stdout
    records = json.loads(cabinet(tmp_path, "export", str(save), "--format", "json").stdout)
    assert [r["kind"] for r in records["records"]].count("move") == moves + 1  # and the setup

    assert refusal(cabinet(tmp_path, "replay", str(save), "--at", str(moves + 1)), "replay") == (
        f"--at takes a number of moves from 0 (the start) to {moves}, not {moves + 1}"
    )


def test_a_missing_save_is_a_bad_argument(tmp_path: Path) -> None:
    for command in ("load", "replay", "export", "verify"):
        assert (
            refusal(cabinet(tmp_path, command, str(tmp_path / "gone.cab")), command)
            == f"there is no save {tmp_path / 'gone.cab'}"
        )
    assert refusal(cabinet(tmp_path, "play", "agent-jean", "--bot-level", "genius"), "play").startswith(
        "L'Agent Jean! has no bot level 'genius'"
    )
    assert not list(tmp_path.iterdir())


def test_a_hosted_game_is_one_writer_and_shows_no_hand_in_replay(tmp_path: Path) -> None:
    env = {**os.environ, "CABINET_SAVE_DIR": str(tmp_path)}
    host = subprocess.Popen(
        [*COMMAND, "host", "chirac-mitterrand", "--names", "Ann,Bob", "--seed", "3", "--listen", "127.0.0.1:0"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        lines = []
        while not any(line.startswith("  spectators:") for line in lines):
            line = host.stdout.readline()
            assert line, host.stderr.read()
            lines.append(line.rstrip("\n"))
        (save,) = tmp_path.glob("*.cab")
        assert f"the game is saved in {save}" in lines[0]
        assert sum("cabinet join 127.0.0.1:" in line for line in lines) == 3  # Ann, Bob, spectators: two players

        # while the host plays it, nobody else may write it: one sentence naming the host
        holder = f"is playing this game already (cabinet host, pid {host.pid})."
        for args in (["load", str(save)], ["host", "--resume", str(save), "--listen", "127.0.0.1:0"]):
            second = cabinet(tmp_path, *args)
            assert second.returncode == 1
            assert second.stderr.strip().endswith(holder) and len(second.stderr.strip().splitlines()) == 1
            assert "usage" not in second.stderr

        # a game in play is replayed from the command line as the public sees it: no seat's eyes
        for viewer in ("1", "all"):
            assert refusal(cabinet(tmp_path, "replay", str(save), "--as", viewer), "replay") == (
                "--as is for a finished game: this one is still in play, and replays as the public sees it"
            )
    finally:
        host.send_signal(signal.SIGINT)
        out, err = host.communicate(timeout=GUARD)
    assert host.returncode == 0 and "Traceback" not in err and "The game is saved" in out
    assert not list(tmp_path.glob("*.lock"))  # the host let the save go
    checked = cabinet(tmp_path, "verify", str(save))
    assert checked.returncode == 0 and "; 0 moves; in progress." in checked.stdout
