"""Saves against other local users, crafted files, broken disks (issue 16).

Each record knows its place (a number and a link to the record before);
a save written here is sealed with its directory's key and folded, any other
is decided again move by move; saves are private to their owner; a file that
cannot be read or written is one sentence, and what can be read stays
replayable.
"""

from __future__ import annotations

import contextlib
import os
import stat
import subprocess
import sys
from pathlib import Path

import msgpack
import pytest

from saves import SaveError, SaveNotWritable, SaveWriter, list_saves, load, save_dir, verify
from saves import format as fmt
from screens.app import CabinetApp
from screens.play import PlayScreen
from screens.replay import ReplayScreen
from table import Table
from tests.test_saves import craft, finished_save, new_match, one_sentence, record_offsets, records_of, step
from tests.toygame import GAMES
from tests.tui_helpers import agent_jean_match, run_async, settle

ROOT = Path(__file__).resolve().parents[1]


def frames(data: bytes) -> list[bytes]:
    """The raw frames (head and body) of a save, in order."""
    return [data[start:end] for _, start, end in record_offsets(data)]


def rebuild(data: bytes, order: list[bytes]) -> bytes:
    return data[: fmt._PREAMBLE.size] + b"".join(order)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def game_save(tmp_path: Path) -> tuple[Path, bytes]:
    path = tmp_path / "game.cab"
    finished_save(path, "3")
    return path, path.read_bytes()


# -- each record knows its place -----------------------------------------------------


def test_every_duplicate_deletion_swap_and_move_of_whole_records_is_reported_where_it_happens(game_save) -> None:
    path, data = game_save
    parts = frames(data)
    n = len(parts)
    offsets = [start for _, start, _ in record_offsets(data)]
    cases: list[tuple[str, list[bytes], int]] = []
    for k in range(1, n):
        cases.append((f"duplicate {k}", parts[: k + 1] + [parts[k]] + parts[k + 1 :], k + 1))
        if k < n - 1:  # the last record cut off is a shorter game, not damage (see below)
            cases.append((f"delete {k}", parts[:k] + parts[k + 1 :], k))
            cases.append((f"swap {k}", parts[:k] + [parts[k + 1], parts[k]] + parts[k + 2 :], k))
            cases.append((f"move {k} to the end", parts[:k] + parts[k + 1 :] + [parts[k]], k))
    for what, order, broken_at in cases:
        path.write_bytes(rebuild(data, order))
        with pytest.raises(SaveError) as err:
            load(path, GAMES)
        one_sentence(err.value, "game.cab")
        # named at the byte where the order breaks, with the record numbers
        assert f"damaged at byte {offsets[broken_at] if broken_at < n else len(data)}:" in str(err.value), (
            what,
            str(err.value),
        )
        assert "record" in str(err.value), what
    # and the words say what happened
    path.write_bytes(rebuild(data, parts[:3] + [parts[2]] + parts[3:]))
    with pytest.raises(SaveError, match=r"record 2 comes again where record 3 belongs"):
        load(path, GAMES)
    path.write_bytes(rebuild(data, parts[:3] + parts[4:]))
    with pytest.raises(SaveError, match=r"record 3 is missing there"):
        load(path, GAMES)


def test_a_record_renumbered_to_fit_still_does_not_follow_the_one_before(game_save) -> None:
    path, data = game_save
    # records 3 and 4 swapped, and each given the other's number (CRC intact):
    # the links still say the order is wrong
    path.write_bytes(swapped_and_renumbered(data, 3))
    with pytest.raises(SaveError, match=r"record 3 does not follow the record before it"):
        load(path, GAMES)


def swapped_and_renumbered(data: bytes, k: int) -> bytes:
    """``data`` with its records ``k`` and ``k + 1`` swapped, each given the other's number."""
    parts = frames(data)
    a, b = bytearray(parts[k + 1]), bytearray(parts[k])
    a[1:5], b[1:5] = parts[k][1:5], parts[k + 1][1:5]
    return rebuild(data, parts[:k] + [bytes(a), bytes(b)] + parts[k + 2 :])


def test_the_last_records_cut_off_whole_are_an_earlier_moment_of_the_same_game(game_save) -> None:
    path, data = game_save
    parts = frames(data)
    path.write_bytes(rebuild(data, parts[:-3]))
    loaded = load(path, GAMES)
    assert loaded.match.outcome is None and loaded.sealed  # what the file held a few moves earlier


def test_a_sealed_save_of_format_2_opens_folded_is_played_on_in_format_2_and_its_damage_is_said(tmp_path: Path) -> None:
    """The saves Cabinet wrote before format 3 (each record's link a hash of its own):
    still folded where their seals hold, continued in their format, refused where damaged."""
    match = new_match(bots=False)
    for _ in range(4):
        step(match)
    path = tmp_path / "old.cab"
    data, _ = fmt.encode_match(match, key=fmt.dir_key(tmp_path, create=True), version=2)
    path.write_bytes(data)
    loaded = load(path, GAMES)
    assert loaded.sealed and loaded.match.events == match.events and loaded.match.state == match.state
    with SaveWriter.resume(loaded) as writer:
        step(writer.match, writer)
    grown = path.read_bytes()
    assert grown[12:14] == b"\x00\x02" and grown.startswith(data)  # appended to, in its format
    again = load(path, GAMES)
    assert again.sealed and len(again.match.moves) == len(match.moves) + 1
    # a byte of a move in the middle changed: named where it is
    parts = frames(grown)
    offsets = [start for _, start, _ in record_offsets(grown)]
    bad = bytearray(parts[3])
    bad[-2] ^= 0x01
    path.write_bytes(rebuild(grown, parts[:3] + [bytes(bad)] + parts[4:]))
    with pytest.raises(SaveError, match=rf"damaged at byte {offsets[3]}: a record there fails its checksum"):
        load(path, GAMES)
    # two records swapped and renumbered: the links say so
    path.write_bytes(swapped_and_renumbered(grown, 3))
    with pytest.raises(SaveError, match=r"record 3 does not follow the record before it"):
        load(path, GAMES)


def test_a_byte_changed_anywhere_in_a_sealed_save_is_found_though_a_load_checks_one_seal(game_save) -> None:
    """A load of a save sealed here hashes its records in one piece and checks the last seal;
    where that fails, each record is read again: the damage is named where it is, and a save
    whose records are sound but whose seal is not this directory's is decided again."""
    path, data = game_save
    offsets = [start for _, start, _ in record_offsets(data)]
    for k in (1, len(offsets) // 2, len(offsets) - 2):
        changed = bytearray(data)
        body = offsets[k] + fmt.RECORD_FRAME
        changed[body + 1] ^= 0x40
        path.write_bytes(bytes(changed))
        with pytest.raises(SaveError, match=rf"damaged at byte {offsets[k]}: a record there fails its checksum"):
            load(path, GAMES)
    # a seal changed (the last record's, then one in the middle): the records are sound, the
    # file is not as this directory's writers wrote it
    for k in (len(offsets) - 1, len(offsets) // 2):
        changed = bytearray(data)
        changed[offsets[k] + fmt.RECORD_FRAME - 1] ^= 0x01
        path.write_bytes(bytes(changed))
        if k == len(offsets) - 1:
            loaded = load(path, GAMES)
            assert not loaded.sealed and loaded.warnings  # decided again, and said
        else:
            with pytest.raises(SaveError, match=rf"record {k + 1} does not follow the record before it"):
                load(path, GAMES)


# -- a load accepts only what the rules could have produced -------------------------------


def played_match(moves: int = 4):
    """A match of the toy game, and the index of a move that played a card."""
    match = new_match(bots=False)
    for _ in range(moves):
        step(match)
    plays = [i for i, m in enumerate(match.moves) if i and m.command["t"] == "Play"]
    assert plays, "the seed plays a card in its first moves"
    return match, plays[0]


def test_a_crafted_move_is_named_at_the_first_move_whose_events_differ(tmp_path: Path) -> None:
    match, k = played_match()
    recs = records_of(match)
    moves = [i for i, (kind, _) in enumerate(recs) if kind == fmt.MOVE]
    # move k's events kept, its command changed to another legal one: every CRC and link is fine
    body = recs[moves[k]][1]
    legal = GAMES["toy"].legal(match.state_at(match.moves[k].start), body["seat"])
    body["command"] = next(c for c in legal if c != body["command"])
    path = tmp_path / "crafted.cab"
    craft(path, recs)
    before = path.read_bytes()
    with pytest.raises(
        SaveError, match=rf"^crafted\.cab does not follow from its moves at move {k} \(byte \d+\): "
    ) as err:
        load(path, GAMES)
    one_sentence(err.value, "crafted.cab")
    with pytest.raises(SaveError, match=f"at move {k}"):
        verify(path, GAMES)
    assert path.read_bytes() == before  # never written


def test_a_move_by_a_seat_that_had_no_move_and_a_refused_command_are_named(tmp_path: Path) -> None:
    match = new_match(bots=False)
    for _ in range(2):
        step(match)
    recs = records_of(match)
    moves = [i for i, (k, _) in enumerate(recs) if k == fmt.MOVE]
    seat = recs[moves[2]][1]["seat"]
    recs[moves[2]][1]["seat"] = 1 - seat
    craft(tmp_path / "who.cab", recs)
    with pytest.raises(SaveError, match=r"at move 2 \(byte \d+\): it is made by \w+, who had no move to make then"):
        load(tmp_path / "who.cab", GAMES)
    recs[moves[2]][1]["seat"] = seat
    recs[moves[2]][1]["command"] = {"t": "Play", "card": 999}
    craft(tmp_path / "refused.cab", recs)
    with pytest.raises(SaveError, match=r"at move 2 \(byte \d+\): the rules refuse its command"):
        load(tmp_path / "refused.cab", GAMES)
    # the setup, too, is dealt again from the seed
    recs = records_of(match)
    recs[moves[0]][1]["events"][0]["order"] = list(reversed(recs[moves[0]][1]["events"][0]["order"]))
    craft(tmp_path / "deal.cab", recs)
    with pytest.raises(SaveError, match=r"at the setup \(byte \d+\)"):
        load(tmp_path / "deal.cab", GAMES)


def test_a_sealed_save_is_folded_and_verify_decides_every_move_all_the_same(tmp_path: Path) -> None:
    match, k = played_match()
    recs = records_of(match)
    moves = [i for i, (kind, _) in enumerate(recs) if kind == fmt.MOVE]
    body = recs[moves[k]][1]
    body["command"] = {**body["command"], "card": body["command"]["card"] + 100}  # events kept
    # sealed with this directory's key, as only a writer holding it could
    key = fmt.dir_key(tmp_path, create=True)
    data = fmt.preamble()
    chain = fmt.Chain(key)
    for kind, rec in recs:
        data += chain.frame(kind, msgpack.packb(rec, use_bin_type=True))
    path = tmp_path / "sealed.cab"
    path.write_bytes(data)
    loaded = load(path, GAMES)
    assert loaded.sealed and loaded.match.events == match.events  # folded: the seal vouches for it
    with pytest.raises(
        SaveError, match=rf"sealed\.cab does not follow from its moves at move {k} .*the rules refuse its command"
    ):
        verify(path, GAMES)
    # the same file in another directory (another key) is decided again on load
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "sealed.cab").write_bytes(data)
    with pytest.raises(SaveError, match=f"at move {k}"):
        load(other / "sealed.cab", GAMES)


def test_a_save_written_here_is_sealed_and_a_copied_one_is_decided_again(tmp_path: Path) -> None:
    path = tmp_path / "a.cab"
    match = finished_save(path)
    assert load(path, GAMES).sealed
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "a.cab").write_bytes(path.read_bytes())
    again = load(copy / "a.cab", GAMES)
    assert not again.sealed and again.match.events == match.events and again.match.state == match.state


def test_a_format_1_save_is_decided_again_and_rewritten_in_the_current_format_when_played_on(tmp_path: Path) -> None:
    match = new_match(bots=False)
    for _ in range(2):
        step(match)
    path = tmp_path / "old.cab"
    craft(path, records_of(match), version=1)
    loaded = load(path, GAMES)
    assert not loaded.sealed and loaded.chain is None and loaded.match.events == match.events
    with SaveWriter.resume(loaded) as writer:
        step(writer.match, writer)
    assert path.read_bytes()[12:14] == b"\x00\x03"
    again = load(path, GAMES)
    assert again.sealed and len(again.match.moves) == len(match.moves) + 1


# -- what this Cabinet cannot play on, it still replays ------------------------------------------


def godlike_save(path: Path) -> None:
    match = new_match()
    step(match)
    recs = records_of(match)
    recs[0][1]["seats"][1]["level"] = "godlike"
    craft(path, recs)


def test_an_unknown_bot_level_is_one_sentence_in_verify_and_load_and_the_game_still_replays(tmp_path: Path) -> None:
    path = tmp_path / "god.cab"
    godlike_save(path)
    loaded = load(path, GAMES)  # replayable
    assert loaded.unplayable is not None
    assert "'godlike'" in loaded.unplayable and loaded.unplayable.endswith("it can be replayed, not played on.")
    with pytest.raises(
        SaveError, match=r"^god\.cab has a bot \(Bob\) of a level this Cabinet does not know \('godlike'"
    ):
        verify(path, GAMES)


# -- private to their owner -----------------------------------------------------------------


def test_saves_keys_and_locks_are_private_from_creation_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        directory = save_dir(tmp_path / "fresh" / "saves")
        assert mode(directory) == 0o700
        path = directory / "g.cab"
        writer = SaveWriter(path, new_match())
        assert mode(path) == 0o600
        assert mode(directory / fmt.KEY_NAME) == 0o600
        assert mode(fmt.lock_path(path)) == 0o600
        step(writer.match, writer)
        writer.match.truncate_moves(1)
        writer.cut_back()  # a take-back's rewrite: a new file, private as well
        assert writer.error is None
        assert mode(path) == 0o600
        writer.close()
    finally:
        os.umask(old)


def test_saves_and_directories_left_open_to_others_are_narrowed_or_reported(tmp_path: Path) -> None:
    directory = tmp_path / "saves"
    directory.mkdir(mode=0o755)
    os.chmod(directory, 0o755)
    path = directory / "open.cab"
    finished_save(path)
    os.chmod(path, 0o644)
    assert "other users of this machine can read open.cab (mode 644)" in verify(path, GAMES).replace("Other", "other")
    assert mode(path) == 0o644  # verify only reads
    save_dir(directory)
    assert mode(directory) == 0o700
    list_saves(directory, GAMES)
    assert mode(path) == 0o600
    assert "Warning" not in verify(path, GAMES)
    # and a save played on is narrowed too
    os.chmod(path, 0o644)
    match = new_match(bots=False)
    live = directory / "live.cab"
    SaveWriter(live, match).close()
    os.chmod(live, 0o640)
    with SaveWriter.resume(load(live, GAMES)):
        assert mode(live) == 0o600


def test_a_link_among_the_saves_is_never_followed_to_narrow_what_it_names(tmp_path: Path) -> None:
    """Issue 32: a link ``evil.cab`` to somebody's file (or to a save elsewhere) is listed, and
    the mode of what it names is left alone; the saves of the directory itself are narrowed."""
    outside = tmp_path / "outside"
    outside.mkdir()
    notes = outside / "notes.txt"
    notes.write_text("not a save\n")
    elsewhere = outside / "shared.cab"
    finished_save(elsewhere)
    for target in (notes, elsewhere):
        os.chmod(target, 0o644)
    directory = tmp_path / "saves"
    directory.mkdir()
    (directory / "evil.cab").symlink_to(notes)
    (directory / "shared.cab").symlink_to(elsewhere)
    own = directory / "own.cab"
    finished_save(own)
    os.chmod(own, 0o644)
    infos = {info.path.name: info for info in list_saves(directory, GAMES)}
    assert set(infos) == {"evil.cab", "shared.cab", "own.cab"}
    assert infos["evil.cab"].error == "evil.cab is not a Cabinet save file."
    assert infos["shared.cab"].error is None
    assert mode(notes) == 0o644 and mode(elsewhere) == 0o644
    assert mode(own) == 0o600
    assert fmt.tighten(directory / "shared.cab") is False and mode(elsewhere) == 0o644


# -- files that cannot be read or written ------------------------------------------------------


@contextlib.contextmanager
def read_only(directory: Path):
    """``directory`` and its files made read-only for this process.  Modes do
    it for a user; root ignores them, so for root a read-only bind mount."""
    if os.geteuid() != 0:
        kept = {p: mode(p) for p in [directory, *directory.iterdir()]}
        for p in kept:
            os.chmod(p, 0o555 if p.is_dir() else 0o444)
        try:
            yield
        finally:
            for p, m in kept.items():
                os.chmod(p, m)
        return
    bind = subprocess.run(["mount", "--bind", str(directory), str(directory)], capture_output=True)
    if bind.returncode != 0:
        pytest.skip("as root, a read-only directory takes a bind mount, which this machine refuses")
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(directory)], check=True, capture_output=True)
        yield
    finally:
        subprocess.run(["umount", str(directory)], capture_output=True)


def cabinet(*args: str, save_dir: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "CABINET_SAVE_DIR": str(save_dir), "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "cabinet", *args], capture_output=True, text=True, env=env, timeout=120
    )


def no_traceback(result: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in result.stderr + result.stdout, result.stderr


def real_save(path: Path, level: str = "easy") -> Path:
    """A game of L'Agent Jean! against a bot, a few moves in (the command line knows only real games)."""
    match = agent_jean_match(humans=1, players=2, seed=5, level=level)
    with SaveWriter(path, match) as writer:
        table = Table(match, writer)
        for _ in range(3):
            seat = match.active()[0]
            assert table.submit(seat, table.bot_move(seat)) is None
    return path


def test_a_save_that_cannot_be_written_is_one_sentence_and_still_replays(tmp_path: Path) -> None:
    directory = tmp_path / "ro"
    directory.mkdir()
    path = directory / "g.cab"
    SaveWriter(path, new_match()).close()
    real = real_save(directory / "real.cab")
    before = path.read_bytes()
    with read_only(directory):
        loaded = load(path, GAMES)
        with pytest.raises(
            SaveNotWritable, match=r"^g\.cab cannot be written \(.*\): it can be replayed, not played on\.$"
        ):
            SaveWriter.resume(loaded)
        with pytest.raises(SaveNotWritable, match=r"^Cannot save new\.cab in .*ro: "):
            SaveWriter(directory / "new.cab", new_match())
        result = cabinet("load", str(real), save_dir=directory)
        no_traceback(result)
        assert result.returncode == 1
        assert result.stderr.strip().startswith("cabinet: real.cab cannot be written")
        assert f"cabinet replay {real} shows it." in result.stderr
        result = cabinet("host", "--resume", str(real), "--listen", "127.0.0.1:0", save_dir=directory)
        no_traceback(result)
        assert result.returncode == 1 and "real.cab cannot be written" in result.stderr
        result = cabinet(
            "simulate",
            "agent-jean",
            "--players",
            "2",
            "--games",
            "1",
            "--seed",
            "1",
            "--bot-level",
            "random",
            save_dir=directory,
        )
        no_traceback(result)
        assert result.returncode == 1 and "cannot save the games in" in result.stderr
        result = cabinet("play", "agent-jean", "--bots", "2", save_dir=directory)
        no_traceback(result)
        assert result.returncode == 1 and result.stderr.startswith("cabinet: ")
    assert path.read_bytes() == before


def test_a_read_error_is_one_sentence_and_verify_goes_on_to_the_next_file(tmp_path: Path) -> None:
    good = real_save(tmp_path / "good.cab")
    result = cabinet("verify", "/proc/self/mem", str(good), save_dir=tmp_path)
    no_traceback(result)
    lines = result.stdout.splitlines()
    assert lines[0] == "mem cannot be read: input/output error."
    assert lines[1].startswith(f"{good}: L'Agent Jean!: Ada (human), Bastien (bot, easy); 3 moves; in progress.")
    assert result.returncode == 1


def test_the_cli_refuses_to_play_on_an_unknown_bot_level_in_one_sentence(tmp_path: Path) -> None:
    path = real_save(tmp_path / "god.cab")
    recs, _ = fmt.read_records(path)
    recs[0][1]["seats"][1]["level"] = "godlike"
    craft(path, [(next(k for k, v in fmt.KIND_NAMES.items() if v == kind), body) for kind, body in recs])
    result = cabinet("verify", str(path), save_dir=tmp_path)
    no_traceback(result)
    assert result.returncode == 1 and "of a level this Cabinet does not know ('godlike'" in result.stdout
    for command in (["load", str(path)], ["host", "--resume", str(path), "--listen", "127.0.0.1:0"]):
        result = cabinet(*command, save_dir=tmp_path)
        no_traceback(result)
        assert result.returncode == 1
        assert result.stderr.startswith("cabinet: god.cab has a bot (Bastien) of a level this Cabinet does not know"), (
            result.stderr
        )


# -- the listing sees damage anywhere in a file --------------------------------------------------


def test_the_listing_sees_damage_in_the_middle_of_a_file(tmp_path: Path) -> None:
    path = tmp_path / "mid.cab"
    match = new_match()
    with SaveWriter(path, match) as writer:
        for _ in range(4):
            step(match, writer)
    data = bytearray(path.read_bytes())
    _, _start, end = record_offsets(bytes(data))[3]
    data[end - 2] ^= 0x01  # inside the body of the third record: only its CRC knows
    path.write_bytes(bytes(data))
    [info] = list_saves(tmp_path, GAMES)
    assert info.error is not None and info.error.startswith("mid.cab is damaged at byte")


# -- the menu: Continue passes over a damaged game; Load shows what it cannot play on -----------------


def aj_save(directory: Path, seed: int, hours_ago: float) -> Path:
    """A game of L'Agent Jean! against a bot, last played ``hours_ago``."""
    import datetime

    match = agent_jean_match(humans=1, players=2, seed=seed)
    at = (datetime.datetime.now(datetime.UTC) - datetime.timedelta(hours=hours_ago)).isoformat(timespec="seconds")
    path = directory / f"aj-{seed}.cab"
    fmt.rewrite(path, match, [at] * len(match.moves))
    return path


def unsealed_edit(path: Path) -> None:
    """Change the setup's deal, framed as a writer would but without the key: only a replay sees it."""
    recs, _ = fmt.read_records(path)
    kinds = {v: k for k, v in fmt.KIND_NAMES.items()}
    setup = next(body for kind, body in recs if kind == "move")
    first = setup["events"][0]
    key = next(k for k, v in first.items() if isinstance(v, list) and len(v) > 1)
    first[key] = list(reversed(first[key]))
    craft(path, [(kinds[kind], body) for kind, body in recs])


def notes(app) -> list[str]:
    return [n.message for n in app._notifications]


@run_async
async def test_continue_passes_over_a_damaged_latest_game_and_says_so(tmp_path: Path) -> None:
    older = aj_save(tmp_path, 4, hours_ago=3)
    newer = aj_save(tmp_path, 5, hours_ago=1)
    unsealed_edit(newer)
    assert list_saves(tmp_path)[0].path == newer and list_saves(tmp_path)[0].error is None  # the listing cannot tell
    app = CabinetApp(save_dir=tmp_path, bot_delay=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("down", "enter")  # Continue
        await settle(pilot)
        assert isinstance(app.screen, PlayScreen) and app.screen.path == older
        assert any(
            m.startswith("aj-5.cab does not follow from its moves at the setup")
            and m.endswith("Continuing aj-4.cab instead.")
            for m in notes(app)
        )
    # damage the listing sees is passed over too
    data = bytearray(newer.read_bytes())
    data[-3] ^= 0x10
    newer.write_bytes(bytes(data))
    assert list_saves(tmp_path)[0].error is not None
    app = CabinetApp(save_dir=tmp_path, bot_delay=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("down", "enter")
        await settle(pilot)
        assert isinstance(app.screen, PlayScreen) and app.screen.path == older
        assert any(m.startswith("aj-5.cab is damaged at byte") for m in notes(app))


@run_async
async def test_continue_passes_over_the_latest_game_while_another_program_plays_it(tmp_path: Path) -> None:
    older = aj_save(tmp_path, 4, hours_ago=3)
    newer = aj_save(tmp_path, 5, hours_ago=1)
    elsewhere = SaveWriter.resume(load(newer))  # the newest game, open in another window
    try:
        app = CabinetApp(save_dir=tmp_path, bot_delay=0)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("down", "enter")  # Continue
            await settle(pilot)
            assert isinstance(app.screen, PlayScreen) and app.screen.path == older
            said = [m for m in notes(app) if m.startswith("aj-5.cab: ")]
            assert len(said) == 1 and "is playing this game already" in said[0], notes(app)
            assert said[0].endswith("Continuing aj-4.cab instead.")
    finally:
        elsewhere.close()
    # the other game open too: nothing to continue, and why
    elsewhere = SaveWriter.resume(load(newer))
    other = SaveWriter.resume(load(older))
    try:
        app = CabinetApp(save_dir=tmp_path, bot_delay=0)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("down", "enter")
            await settle(pilot)
            assert not isinstance(app.screen, PlayScreen)
            assert any(
                m.startswith("aj-5.cab: ") and m.endswith("There is no other unfinished game to continue.")
                for m in notes(app)
            ), notes(app)
    finally:
        elsewhere.close()
        other.close()


@run_async
async def test_load_opens_what_it_cannot_play_on_as_a_replay_and_says_why(tmp_path: Path) -> None:
    aj_save(tmp_path, 4, hours_ago=1)
    with read_only(tmp_path):
        app = CabinetApp(save_dir=tmp_path, bot_delay=0)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("down", "down", "enter")  # Load
            await pilot.pause()
            await pilot.press("enter")
            await settle(pilot)
            assert isinstance(app.screen, ReplayScreen)
            assert any(
                m.startswith("aj-4.cab cannot be written") and m.endswith("It is shown as a replay.")
                for m in notes(app)
            )
            await pilot.press("left", "right", "q")  # steps, then leaves, as any replay
            await pilot.pause()
            assert not isinstance(app.screen, ReplayScreen)
