"""The command line on a store of tables (a throwaway PostgreSQL cluster, see tests/pg.py):
``cabinet store import/export/list``, and ``verify``, ``export`` and ``replay`` of a table
with ``--store URL``; every mistake a usage line and status 2, damage and a store out of
reach one sentence and status 1, never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cabinet.main import main
from table import Table
from tests.test_cli import exit_code, in_play_save, start_of
from tests.tui_helpers import agent_jean_match
from tui.session import start_save

ROOT = Path(__file__).resolve().parent.parent

psycopg = pytest.importorskip("psycopg", reason="the PostgreSQL driver (the extra 'postgres') is not installed")


def finished_save(where: Path) -> Path:
    match = agent_jean_match(humans=0, players=2, seed=2)
    with start_save(where, match, durable=False) as writer:
        Table(match, writer).play_out()
    return writer.path


@pytest.fixture(scope="module")
def saves(tmp_path_factory) -> dict[str, Path]:
    """A finished game and one in play, as save files."""
    where = tmp_path_factory.mktemp("saves")
    return {"finished": finished_save(where / "f"), "in play": in_play_save(where / "p")}


@pytest.fixture(scope="module")
def imported(saves, pg_url) -> dict[str, str]:
    """The same two, imported into the store: the table names."""
    assert main(["store", "import", str(saves["finished"]), str(saves["in play"]), "--store", pg_url]) == 0
    return {kind: path.stem for kind, path in saves.items()}


def test_import_names_each_table_and_export_gives_back_the_file(saves, imported, pg_url, tmp_path, capsys) -> None:
    table = imported["finished"]
    out = tmp_path / "back.cab"
    assert main(["store", "export", table, "--store", pg_url, "-o", str(out)]) == 0
    assert capsys.readouterr().out == f"table {table}: written to {out}.\n"
    assert out.read_bytes() == saves["finished"].read_bytes()
    assert main(["verify", str(out)]) == 0


def test_import_says_where_each_save_went(saves, pg_url, tmp_path, capsys) -> None:
    path = tmp_path / "again.cab"
    path.write_bytes(saves["finished"].read_bytes())
    assert main(["store", "import", str(path), "--store", pg_url]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith(f"{path}: table again in PostgreSQL database cabinet_test_") and line.endswith(" moves).")


def test_a_save_imported_twice_is_refused_and_the_others_go_on(saves, imported, pg_url, tmp_path, capsys) -> None:
    new = tmp_path / "new-one.cab"
    new.write_bytes(saves["in play"].read_bytes())
    assert main(["store", "import", str(saves["finished"]), str(new), "--store", pg_url]) == 1
    out = capsys.readouterr().out.strip().splitlines()
    assert out[0] == f"There is a table {imported['finished']} in " + out[0].split(" in ", 1)[1]
    assert out[0].endswith(" already.") and out[1].startswith(f"{new}: table new-one in ")


def test_a_damaged_save_is_not_imported(saves, pg_url, tmp_path, capsys) -> None:
    bad = tmp_path / "bad.cab"
    data = bytearray(saves["finished"].read_bytes())
    data[len(data) // 2] ^= 0x10
    bad.write_bytes(bytes(data))
    assert main(["store", "import", str(bad), "--store", pg_url]) == 1
    assert capsys.readouterr().out.startswith("bad.cab is damaged at byte ")
    assert exit_code(["verify", "--store", pg_url, "bad"]) == 2  # it is not there


def test_list_shows_each_table(imported, pg_url, capsys) -> None:
    assert main(["store", "list", "--store", pg_url]) == 0
    lines = capsys.readouterr().out.splitlines()
    finished = next(line for line in lines if line.startswith(imported["finished"] + ": "))
    in_play = next(line for line in lines if line.startswith(imported["in play"] + ": "))
    assert "; finished, won by " in finished and in_play.endswith("; 6 moves; in progress.")


def test_verify_and_export_a_table(imported, pg_url, capsys) -> None:
    finished, in_play = imported["finished"], imported["in play"]
    assert main(["verify", "--store", pg_url, finished, in_play]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"{finished}: L'Agent Jean!: ") and lines[1].endswith("6 moves; in progress.")
    assert main(["export", "--store", pg_url, in_play]) == 0
    text = capsys.readouterr().out
    assert text.startswith(f"Cabinet save table {in_play}\n") and "\nMove 6: " in text
    assert main(["export", "--store", pg_url, finished, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["records"][0]["kind"] == "header"


def test_replay_a_table(imported, pg_url, capsys) -> None:
    start = start_of(["replay", "--store", pg_url, imported["in play"], "--at", "2"])
    assert start.mode == "replay" and start.at == 2 and start.locked  # in play: seen as the public sees it
    assert start.match.move_count == 6
    assert exit_code(["replay", "--store", pg_url, imported["in play"], "--at", "9"]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        "cabinet replay: --at takes a number of moves from 0 (the start) to 6, not 9"
    )


def test_a_table_damaged_in_the_database_is_one_sentence_and_status_1(
    imported, saves, pg_url, tmp_path, capsys
) -> None:
    path = tmp_path / "to-damage.cab"
    path.write_bytes(saves["finished"].read_bytes())
    assert main(["store", "import", str(path), "--store", pg_url]) == 0
    capsys.readouterr()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(
            "UPDATE cabinet.events SET crc = crc # 1 WHERE seq = 5 AND table_id = "
            "(SELECT id FROM cabinet.tables WHERE name = 'to-damage')"
        )
    assert main(["verify", "--store", pg_url, "to-damage", imported["in play"]]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("table to-damage is damaged at byte ") and lines[0].endswith("fails its checksum.")
    assert lines[1].startswith(imported["in play"] + ": ")  # it goes on to the next table
    assert main(["export", "--store", pg_url, "to-damage"]) == 1
    assert capsys.readouterr().err.startswith("table to-damage is damaged at byte ")
    assert main(["store", "export", "to-damage", "--store", pg_url, "-o", str(tmp_path / "out.cab")]) == 1
    assert not (tmp_path / "out.cab").exists()


@pytest.mark.parametrize(
    "args",
    [
        ["verify", "--store", "{url}", "no-such-table"],
        ["export", "--store", "{url}", "no-such-table"],
        ["replay", "--store", "{url}", "no-such-table"],
        ["store", "export", "no-such-table", "--store", "{url}", "-o", "{tmp}/x.cab"],
        ["store", "export", "{finished}", "--store", "{url}", "-o", "{tmp}"],  # there already
        ["store", "export", "{finished}", "--store", "{url}"],  # no -o
        ["store", "import", "{tmp}/missing.cab", "--store", "{url}"],
        ["store", "import", "{tmp}/missing.cab"],  # no --store
        ["store", "erase", "--store", "{url}"],
        ["store"],
    ],
)
def test_bad_arguments_get_a_usage_line_and_status_2(args, imported, pg_url, tmp_path, capsys) -> None:
    args = [a.format(url=pg_url, tmp=tmp_path, finished=imported["finished"]) for a in args]
    assert exit_code(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: cabinet") and "Traceback" not in err
    last = err.strip().splitlines()[-1]  # after the usage, one sentence that says what is wrong
    assert last.startswith("cabinet") and ": " in last and not last.startswith("usage")


def test_a_store_out_of_reach_is_one_sentence_and_status_1(tmp_path) -> None:
    """Through the installed command: a sentence, never a traceback."""
    address = f"postgresql://postgres@/cabinet?host={tmp_path}"
    for args in (["verify", "--store", address, "t"], ["store", "list", "--store", address]):
        result = subprocess.run(
            [sys.executable, "-m", "cabinet", *args], cwd=ROOT, capture_output=True, text=True, timeout=60
        )
        assert result.returncode == 1, result.stderr
        assert "Traceback" not in result.stdout + result.stderr
        [line] = result.stderr.splitlines()
        assert line.startswith(f"cabinet: Cannot reach PostgreSQL database cabinet on {tmp_path}: ")


def test_without_the_driver_one_sentence_names_the_extra(tmp_path) -> None:
    """A Cabinet installed without the extra 'postgres': the driver cannot be imported."""
    blocker = tmp_path / "blocker"
    blocker.mkdir()
    (blocker / "psycopg.py").write_text("raise ImportError('not installed')\n")
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            (
                "import sys; sys.path.insert(0, sys.argv[1]); from cabinet.main import main; "
                "raise SystemExit(main(sys.argv[2:]))"
            ),
            str(blocker),
            "store",
            "list",
            "--store",
            "postgresql://postgres@/cabinet",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1 and result.stdout == ""
    assert (
        result.stderr
        == "cabinet: A PostgreSQL store needs the psycopg driver, which is not installed: pip install 'cabinet[postgres]'.\n"
    )
