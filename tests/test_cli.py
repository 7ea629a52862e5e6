"""The command line: every mistake a usage line and status 2, damage status 1."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cabinet.main import main
from table import Table
from tests.tui_helpers import agent_jean_match
from tui.session import start_save

ROOT = Path(__file__).resolve().parent.parent


def exit_code(args: list[str]) -> int:
    with pytest.raises(SystemExit) as info:
        main(args)
    return int(info.value.code)


@pytest.mark.parametrize(
    "args",
    [
        ["--bogus"],
        ["play", "no-such-game"],
        ["play", "agent-jean", "--players", "9"],
        ["play", "agent-jean", "--bots", "7"],
        ["play", "agent-jean", "--variant", "nonsense"],
        ["play", "agent-jean", "--variant", "young=maybe"],
        ["play", "agent-jean", "--bots", "2", "--bot-level", "genius"],
        ["play", "agent-jean", "--bot-level", "genius"],  # no bot seat: still a mistake
        ["play", "chirac-mitterrand", "--players", "3"],
        ["host", "agent-jean", "--bot-level", "genius"],
        ["load", "missing.cab"],
        ["load", "."],
        ["replay", "missing.cab"],
        ["replay", "missing.cab", "--at", "-5"],
        ["export", "missing.cab"],
        ["verify", "missing.cab"],
        ["host", "--resume", "missing.cab"],
        ["simulate", "agent-jean", "--players", "2", "--games", "1"],
        ["simulate", "agent-jean", "--players", "6", "--games", "1", "--seed", "1"],
        ["simulate", "agent-jean", "--players", "2", "--games", "1", "--seed", "1", "--bot-level", "a,b,c"],
        ["simulate", "edgar-lucien", "--players", "2", "--games", "1", "--seed", "1", "--variant", "start=moon"],
        ["export", "x.cab", "--format", "pdf"],
        ["replay"],
        ["host"],
        ["host", "agent-jean", "--bots", "all"],
        ["host", "agent-jean", "--listen", "127.0.0.1:99999"],
        ["host", "agent-jean", "--resume", "x.cab"],
        ["join", "127.0.0.1:7788"],
        ["join", "127.0.0.1:7788", "abcd-efgh-jkmn", "efgh-jkmn-pqrs", "--watch"],
        ["host", "agent-jean", "--max-spectators", "-1"],
        ["join", "host:port", "abcd-efgh-jkmn"],
    ],
)
def test_bad_arguments_get_a_usage_line_and_status_2(args, capsys, tmp_path) -> None:
    assert exit_code(["--save-dir", str(tmp_path), *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: cabinet")
    assert "Traceback" not in err
    # after the usage, one sentence that says what is wrong
    last = err.strip().splitlines()[-1]
    assert last.startswith("cabinet") and ": " in last and "usage" not in last
    assert not list(tmp_path.glob("*.cab")), "a refused command must not start a game"


@pytest.mark.parametrize("before", [True, False])
def test_a_save_directory_that_cannot_be_made_is_a_usage_error(capsys, tmp_path, before) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    option = ["--save-dir", str(blocker / "saves")]
    args = option + ["play", "agent-jean"] if before else ["play", "agent-jean"] + option
    assert exit_code(args) == 2
    assert "save directory" in capsys.readouterr().err


@pytest.mark.parametrize("before", [True, False])
def test_the_save_directory_option_is_heard_before_or_after_the_command(capsys, tmp_path, before) -> None:
    option = ["--save-dir", str(tmp_path)]
    command = [
        "simulate",
        "agent-jean",
        "--players",
        "2",
        "--games",
        "1",
        "--seed",
        "1",
        "--quiet",
        "--bot-level",
        "easy",
    ]
    assert main(option + command if before else command + option) == 0
    assert len(list(tmp_path.glob("*.cab"))) == 1


def finished_save(tmp_path: Path) -> Path:
    match = agent_jean_match(humans=0, players=2, seed=2)
    with start_save(tmp_path, match, durable=False) as writer:
        Table(match, writer).play_out()
    return writer.path  # written whole, and its lock let go


def test_simulate_plays_saves_and_sums_up(capsys, tmp_path) -> None:
    code = main(
        [
            "simulate",
            "agent-jean",
            "--players",
            "2",
            "--games",
            "3",
            "--seed",
            "5",
            "--bot-level",
            "easy,random",
            "--save-dir",
            str(tmp_path),
        ]
    )
    assert code == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in out[:3]] == ["game 1", "game 2", "game 3"]
    summary = [line.strip() for line in out[4:]]
    assert [line.split(":")[0] for line in summary[:4]] == ["easy", "random", "seat 1", "seat 2"]
    wins = [float(line.split(": ")[1].split(" wins")[0]) for line in summary[:4]]
    assert sum(wins[:2]) == 3 and sum(wins[2:]) == 3  # every game has its winner (a shared win counts its shares)
    assert wins[:2] == wins[2:]  # easy sits at seat 1 and random at seat 2 in every game
    assert "thinks" in summary[0] and "a move on average" in summary[0]
    moves = [int(line.split(" moves")[0].rsplit(" ", 1)[1]) for line in out[:3]]
    assert summary[-1] == f"games last {sum(moves) / 3:.0f} moves on average ({min(moves)} to {max(moves)})"
    assert len(list(tmp_path.glob("*.cab"))) == 3
    # the same seed gives the same games
    again = tmp_path / "again"
    main(
        [
            "simulate",
            "agent-jean",
            "--players",
            "2",
            "--games",
            "3",
            "--seed",
            "5",
            "--bot-level",
            "easy,random",
            "--save-dir",
            str(again),
        ]
    )
    assert capsys.readouterr().out.splitlines()[:3] == out[:3]


def test_simulate_plays_the_variants_it_is_given(capsys, tmp_path) -> None:
    code = main(
        [
            "simulate",
            "edgar-lucien",
            "--players",
            "2",
            "--games",
            "2",
            "--seed",
            "3",
            "--quiet",
            "--bot-level",
            "random",
            "--variant",
            "deck=20",
            "--save-dir",
            str(tmp_path),
        ]
    )
    assert code == 0
    assert "levels random,random, deck=20;" in capsys.readouterr().out
    from saves import load

    assert [load(path).match.header["variants"]["deck"] for path in tmp_path.glob("*.cab")] == ["20", "20"]


def test_simulate_rotates_the_seats_between_levels(capsys, tmp_path) -> None:
    """--rotate: game k seats the levels k places on, so in a 2-player match
    each level plays each seat (each candidate, in 1988) every other game."""
    code = main(
        [
            "simulate",
            "chirac-mitterrand",
            "--players",
            "2",
            "--games",
            "4",
            "--seed",
            "2",
            "--bot-level",
            "random,easy",
            "--rotate",
            "--save-dir",
            str(tmp_path),
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "seats rotated" in out
    from saves import load

    seated = sorted(
        tuple(seat["level"] for seat in load(path).match.header["seats"]) for path in tmp_path.glob("*.cab")
    )
    assert seated == [("easy", "random")] * 2 + [("random", "easy")] * 2


def test_replay_refuses_a_seat_that_is_not_there(capsys, tmp_path) -> None:
    path = finished_save(tmp_path)
    assert exit_code(["replay", str(path), "--as", "7"]) == 2


def in_play_save(tmp_path: Path, moves: int = 6) -> Path:
    """A two-human game of L'Agent Jean! a few moves in (hands hidden from each other)."""

    match = agent_jean_match(humans=2, players=2, seed=3)
    writer = start_save(tmp_path, match, durable=False)
    table = Table(match, writer)
    for _ in range(moves):
        seat = match.active()[0]
        assert table.submit(seat, table.bot_move(seat)) is None
    writer.close()
    return writer.path


def start_of(args: list[str]):
    """What the app would open on for ``args`` (the commands that open a screen)."""
    from tui.cli import build_parser, cmd_load, cmd_replay, command_parser

    parser = build_parser()
    parsed = parser.parse_args(args)
    command = {"replay": cmd_replay, "load": cmd_load}[parsed.command]
    return command(command_parser(parser, parsed), parsed)


def test_replay_of_a_game_in_play_shows_no_hidden_hand(capsys, tmp_path) -> None:
    """Hot-seat: the command line keeps the app's rule, a game in play is replayed as the public sees it."""
    from core.engine import ALL, PUBLIC

    path = in_play_save(tmp_path)
    for viewer in ("1", "2", "all"):
        assert exit_code(["replay", str(path), "--as", viewer]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert err[0].startswith("usage: cabinet replay")
        assert (
            err[-1]
            == "cabinet replay: --as is for a finished game: this one is still in play, and replays as the public sees it"
        )
    start = start_of(["replay", str(path)])
    assert start.viewer == PUBLIC and start.locked
    # once the game is over, every seat's eyes and everything revealed
    done = finished_save(tmp_path)
    assert start_of(["replay", str(done), "--as", "2"]).viewer == 1
    start = start_of(["replay", str(done), "--as", "all"])
    assert start.viewer == ALL and not start.locked


def test_replay_at_counts_moves(capsys, tmp_path) -> None:
    """--at N: after N moves (what the players did; 0 is the start, after the setup)."""
    path = in_play_save(tmp_path, moves=6)
    assert start_of(["replay", str(path), "--at", "0"]).at == 0
    assert start_of(["replay", str(path), "--at", "6"]).at == 6
    for wrong in ("-5", "7"):
        assert exit_code(["replay", str(path), "--at", wrong]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert err[-1] == f"cabinet replay: --at takes a number of moves from 0 (the start) to 6, not {wrong}"
    assert main(["verify", str(path)]) == 0
    assert "; 6 moves; in progress." in capsys.readouterr().out
    assert main(["export", str(path)]) == 0
    text = capsys.readouterr().out
    assert "In progress after 6 moves" in text and "\nMove 6: " in text and "\nMove 7" not in text


@pytest.mark.parametrize(
    "game_id, players, expected",
    [
        ("chirac-mitterrand", None, 2),
        ("chirac-mitterrand", 1, 1),
        ("agent-jean", None, 2),
        ("ministeres", None, 2),
        ("edgar-lucien", None, 2),
        ("edgar-lucien", 4, 4),
    ],
)
def test_a_new_game_has_its_usual_number_of_players(game_id, players, expected) -> None:
    """1988 without --players is the two-player game; its solo mode only with --players 1."""
    from tui.cli import build_parser, match_from_args

    parser = build_parser()
    args = ["play", game_id] + ([] if players is None else ["--players", str(players)])
    match = match_from_args(parser, parser.parse_args(args))
    assert match.header["players"] == expected


def test_loading_a_save_somebody_plays_is_refused_naming_them(capsys, tmp_path, monkeypatch) -> None:
    from saves import SaveWriter, load
    from saves import format as fmt

    path = in_play_save(tmp_path)
    monkeypatch.setattr(fmt, "WRITER_COMMAND", "cabinet host")
    holder = SaveWriter.resume(load(path))
    try:
        assert exit_code(["load", str(path)]) == 1
        err = capsys.readouterr().err.strip()
        assert err.endswith(f"is playing this game already (cabinet host, pid {__import__('os').getpid()}).")
        assert len(err.splitlines()) == 1 and "usage" not in err
    finally:
        holder.close()
    start = start_of(["load", str(path)])  # free again
    start.writer.close()


def test_verify_and_export(capsys, tmp_path) -> None:
    good = finished_save(tmp_path)
    assert main(["verify", str(good)]) == 0
    line = capsys.readouterr().out.strip()
    assert str(good) in line and "\n" not in line
    bad = tmp_path / "bad.cab"
    data = bytearray(good.read_bytes())
    data[len(data) // 2] ^= 0x10
    bad.write_bytes(bytes(data))
    before = bad.read_bytes()
    assert main(["verify", str(good), str(bad)]) == 1
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2 and "bad.cab" in lines[1]
    assert bad.read_bytes() == before

    assert main(["export", str(good)]) == 0
    text = capsys.readouterr().out
    assert "plays" in text and "wins" in text and "\nMove 1: " in text
    assert main(["export", str(good), "--format", "json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert records["records"][0]["kind"]


def test_loading_a_damaged_save_is_one_sentence_and_status_1(capsys, tmp_path) -> None:
    bad = tmp_path / "bad.cab"
    bad.write_bytes(b"\x00garbage" * 10)
    assert exit_code(["load", str(bad)]) == 1
    err = capsys.readouterr().err.strip()
    assert "bad.cab" in err and len(err.splitlines()) == 1


def test_the_installed_command_never_shows_a_traceback(tmp_path) -> None:
    bad = tmp_path / "bad.cab"
    bad.write_bytes(b"CABINET\x00SAVE\x00\x09")
    result = subprocess.run(
        [sys.executable, "-m", "cabinet", "verify", str(bad)], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stdout + result.stderr
    assert "bad.cab" in result.stdout


def test_help_lists_every_command_a_user_types_and_nothing_else(capsys) -> None:
    assert exit_code(["--help"]) == 0
    out = capsys.readouterr().out
    assert "SUPPRESS" not in out
    assert "\n    lobby" not in out and ",lobby" not in out  # what a served session runs is no user's command
    for command in (
        "play",
        "host",
        "join",
        "serve",
        "load",
        "replay",
        "simulate",
        "verify",
        "export",
        "analyse",
        "store",
    ):
        assert f"\n    {command} " in out, command
    assert "--version" in out


def test_version_is_the_installed_packages(capsys) -> None:
    from importlib.metadata import version

    assert exit_code(["--version"]) == 0
    assert capsys.readouterr().out == f"cabinet {version('cabinet')}\n"


@pytest.mark.parametrize("command", ["play", "host"])
def test_a_new_game_without_a_game_names_every_game(command, capsys, tmp_path) -> None:
    from core.games import game_titles

    assert exit_code(["--save-dir", str(tmp_path), command]) == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.startswith(f"cabinet {command}: say which game to {command}")
    for game_id, title in game_titles().items():
        assert f"{game_id} ({title})" in last
    assert not list(tmp_path.glob("*.cab"))


def test_an_unknown_game_names_every_game(capsys, tmp_path) -> None:
    from core.games import game_titles

    assert exit_code(["--save-dir", str(tmp_path), "play", "chess"]) == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.startswith("cabinet play: there is no game 'chess': the games are ")
    assert all(f"{game_id} ({title})" in last for game_id, title in game_titles().items())


def test_the_installed_command_says_its_version() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "cabinet", "--version"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0 and result.stdout.startswith("cabinet ") and not result.stderr
