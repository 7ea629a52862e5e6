"""Crafted saves (issue 32): a file somebody else wrote, framed as Cabinet frames it.

Each record here is edited and framed again with a valid checksum, number and link
(by the writer's own ``Chain``), but without the directory's seal: only what the
reader checks stands between it and the game.  Whatever a record holds (every
header field, every event field, any type, size or nesting), loading, verifying,
exporting (text and JSON) and listing it ends in one sentence or a sound game: no
traceback, no hang, and memory a small multiple of the file's size.  The replay
and play screens open a sample of them headless.

Then what is not a save at all (a pipe, a device), a seal damaged alone, and the
command line on a path it may not enter.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import ctypes
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.bots import make_bot
from core.engine import ALL, Match, make_header
from core.games import get_game
from saves import SaveError, SaveWriter, export_json, export_text, list_saves, load, verify
from saves import format as fmt
from saves.store import save_info
from table import Table
from table.bots import bot_level


def new_match(game, players, seats, controllers, seed, bot_seed):
    """A match as table.new_match makes it, but for the bound on names: a save from
    elsewhere (another program, an older Cabinet, a hand with a hex editor) may hold any
    name, and the reader is what must refuse one over MAX_NAME or not text."""
    config = game.make_config(players, seats, None)
    return Match.new(game, make_header(game, config, seed, controllers, bot_seed=bot_seed))


ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
MiB = 1024 * 1024


# -- records, edited and framed again -------------------------------------------------------


def records_of(data: bytes) -> list[tuple[bytes, Any]]:
    """The records of a save of format 2, each (kind, body), bodies decoded as they are."""
    out = []
    pos = fmt.LOG_PREAMBLE
    while pos < len(data):
        kind, _, length, _, _, _ = fmt._FRAME.unpack_from(data, pos)
        body = data[pos + fmt.RECORD_FRAME : pos + fmt.RECORD_FRAME + length]
        out.append((kind, msgpack.unpackb(body, raw=False, strict_map_key=False)))
        pos += fmt.RECORD_FRAME + length
    return out


def framed(records: list[tuple[bytes, Any]]) -> bytes:
    """A save of these records, numbered and linked by the writer's own chain (unsealed);
    a body given as bytes is framed as it is."""
    chain = fmt.Chain()
    out = [fmt.preamble()]
    for kind, body in records:
        out.append(chain.frame(kind, body if isinstance(body, bytes) else msgpack.packb(body, use_bin_type=True)))
    return b"".join(out)


def one_sentence(exc: BaseException, name: str) -> None:
    text = str(exc)
    assert text.startswith((name, "cabinet: " + name)), text
    assert text.endswith("."), text
    assert "\n" not in text and "Traceback" not in text, text
    assert len(text) < 600, text  # a sentence, whatever the file holds


def nested(depth: int, leaf: Any = 0) -> Any:
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


def in_play(game_id: str, players: int, moves: int, seed: int = 3, first: str = "Ada") -> bytes:
    """A save of a game in play, seat 0 (called ``first``) a human and the others bots,
    as a file from elsewhere holds it."""
    game = get_game(game_id)
    controllers = [{"kind": "human"}] + [{"kind": "bot", "level": "easy"}] * (players - 1)
    names = [{"name": n} for n in [first, "Bastien", "Chloé", "Denis", "Elsa"][:players]]
    match = new_match(game, players, names, controllers, seed=seed, bot_seed=seed)
    for _ in range(moves):
        if not match.active():
            break
        seat = match.active()[0]
        match.submit(seat, Table(match).bot_move(seat))
    assert match.outcome is None
    return fmt.encode_match(match)[0]


#: real saves, as a directory without their key holds them: every move is decided again
BASES: dict[str, bytes] = {
    "agent-jean-main-tie.cab": (DATA / "agent-jean-main-tie.cab").read_bytes(),
    "agent-jean-main-bots.cab": (DATA / "agent-jean-main-bots.cab").read_bytes(),
    "aj-in-play.cab": in_play("agent-jean", 3, 9),
    "1988-in-play.cab": in_play("chirac-mitterrand", 2, 3),
    "ministeres-in-play.cab": in_play("ministeres", 3, 6),
    "edgar-in-play.cab": in_play("edgar-lucien", 2, 2),
}


def with_header(base: str, change: Callable[[dict[str, Any]], None]) -> bytes:
    records = records_of(BASES[base])
    change(records[0][1])
    return framed(records)


# -- everything a file goes through ---------------------------------------------------------


@contextlib.contextmanager
def no_hang(seconds: float = 30.0) -> Iterator[None]:
    """A call that takes longer than ``seconds`` fails, rather than holding the run."""

    def hung(*_: Any) -> None:
        raise TimeoutError(f"no answer after {seconds} s")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def bounded(size: int) -> int:
    """The most a file of ``size`` bytes may cost to read, load or export: a small
    multiple of its size, beside what an honest game of a few hundred moves costs."""
    return 3 * size + 16 * MiB


def costs(work: Callable[[], Any]) -> tuple[Any, int]:
    """What ``work`` gives (or the SaveError it raises), and the most memory it held at once."""
    tracemalloc.start()
    try:
        try:
            result: Any = work()
        except SaveError as exc:
            result = exc
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def sound(loaded: Any) -> None:
    """A game the screens can show: every event described, every seat's view and
    legal moves, the outcome, the bots of its header (when it can be played on here)."""
    match = loaded.match
    game = match.game
    for event in match.events:
        assert isinstance(game.describe(event, ALL), str)
    for seat in [*range(match.header["players"]), ALL]:
        game.view(match.state, seat)
    for seat in match.active():
        assert game.legal(match.state, seat)
    match.outcome  # noqa: B018
    if loaded.unplayable is None:
        for seat in Table(match).bot_seats():  # every bot of a playable save can be made
            make_bot(match.game, bot_level(match, seat), 0)
    else:
        one_sentence(SaveError(loaded.unplayable), loaded.name)
    for seat in match.header["seats"]:
        assert fmt.name_problem(seat["name"]) is None


def read_every_way(path: Path, measure: bool = True) -> Any:
    """Load, verify, export (text and JSON), scan and list the file: each gives a sound
    game or one sentence, within bounded memory, and the file is left as it was.
    The load's result (or its SaveError)."""
    data = path.read_bytes()
    loaded = None
    for what, work in [
        ("load", lambda: load(path)),
        ("verify", lambda: verify(path)),
        ("export", lambda: export_text(path)),
        ("export json", lambda: json.loads(export_json(path))),
        ("scan", lambda: fmt.scan(path)),
        ("listing", lambda: save_info(path)),
    ]:
        with no_hang():
            result, peak = costs(work) if measure else (_try(work), 0)
        assert peak <= bounded(len(data)), f"{what} held {peak} bytes for a file of {len(data)}"
        if isinstance(result, SaveError):
            one_sentence(result, path.name)
        elif what == "load":
            loaded = result
            sound(result)
        elif what == "listing" and result.error is not None:
            one_sentence(SaveError(result.error), path.name)
    assert path.read_bytes() == data  # a read never changes the file
    return loaded


def _try(work: Callable[[], Any]) -> Any:
    try:
        return work()
    except SaveError as exc:
        return exc


def refused_everywhere(path: Path, listed: bool = True) -> None:
    """Load, verify and both exports refuse the file, each in one sentence; and the
    listing too when ``listed`` (else it may not see it: it replays nothing)."""
    for work in (lambda: load(path), lambda: verify(path), lambda: export_text(path), lambda: export_json(path)):
        with pytest.raises(SaveError) as info:
            work()
        one_sentence(info.value, path.name)
    error = save_info(path).error
    assert error is not None or not listed
    if error is not None:
        one_sentence(SaveError(error), path.name)


# -- 2. every header field is checked --------------------------------------------------------


BAD_HEADER_FIELDS: list[tuple[str, Any]] = [
    ("bot_seed", "abc"),
    ("bot_seed", [1]),
    ("bot_seed", None),
    ("bot_seed", "1" * 5000),
    ("seed", "abc"),
    ("created", "x" * 5000),
    ("created", 12),
    ("app_version", {"v": 1}),
    ("parent", [1]),
    ("forked_at", -1),
    ("table", {}),
    ("arranged", "deck"),
    ("arranged", {"later": [{"actions": ["B1"]}]}),
    ("rules_version", 2**40),
    ("something", 1),
]


@pytest.mark.parametrize(
    ("field", "value"), BAD_HEADER_FIELDS, ids=[f"{f}={str(v)[:12]}" for f, v in BAD_HEADER_FIELDS]
)
def test_a_header_field_out_of_its_type_or_bounds_is_one_sentence_everywhere(
    tmp_path: Path, field: str, value: Any
) -> None:
    path = tmp_path / "h.cab"
    path.write_bytes(with_header("aj-in-play.cab", lambda h: h.__setitem__(field, value)))
    # the listing checks a header's fields, not whether the game can set up its table
    refused_everywhere(path, listed=field != "arranged" or not isinstance(value, dict))


def cabinet(*args: str, save_dir: Path, dac: bool = True, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """The command line in a process of its own, its memory capped (a runaway read fails
    rather than taking the machine's); ``dac=False``: as a user the file modes hold for
    (root without the capabilities that pass over them)."""
    env = {**os.environ, "CABINET_SAVE_DIR": str(save_dir), "PYTHONPATH": str(ROOT)}

    def limits() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2 * 1024 * MiB, 2 * 1024 * MiB))
        if not dac and os.geteuid() == 0:
            libc = ctypes.CDLL(None, use_errno=True)
            for capability in (1, 2):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH
                if libc.prctl(24, capability, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
                    raise OSError(ctypes.get_errno(), "prctl")

    return subprocess.run(
        [sys.executable, "-m", "cabinet", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        preexec_fn=limits,
    )


def no_traceback(result: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in result.stderr + result.stdout, result.stderr[-3000:]


def test_a_bot_seed_that_is_not_a_number_is_refused_by_verify_load_and_host(tmp_path: Path) -> None:
    path = tmp_path / "seed.cab"
    path.write_bytes(with_header("aj-in-play.cab", lambda h: h.__setitem__("bot_seed", "abc")))
    result = cabinet("verify", str(path), save_dir=tmp_path)
    no_traceback(result)
    assert result.returncode == 1
    one_sentence(
        SaveError(result.stdout.strip()), "seed.cab is damaged at byte 14: the header there has a bad bot seed"
    )
    for command in (["load", str(path)], ["host", "--resume", str(path), "--listen", "127.0.0.1:0"]):
        result = cabinet(*command, save_dir=tmp_path)
        no_traceback(result)
        assert result.returncode == 1
        assert result.stderr.strip() == "seed.cab is damaged at byte 14: the header there has a bad bot seed.", (
            result.stderr
        )


# -- 8. names: the writer writes only what its reader accepts ------------------------------------


def long_named(name: str) -> bytes:
    """An L'Agent Jean! game whose first seat is called ``name``, consistent throughout
    (its events name the seats too), framed as a file from elsewhere."""
    game = get_game("agent-jean")
    match = new_match(
        game,
        2,
        [{"name": name}, {"name": "Bob"}],
        [{"kind": "human"}, {"kind": "bot", "level": "easy"}],
        seed=4,
        bot_seed=4,
    )
    records: list[tuple[bytes, Any]] = [(fmt.HEADER, match.header)]
    for move in match.moves:
        records.append(
            (
                fmt.MOVE,
                {
                    "seat": move.seat,
                    "command": move.command,
                    "events": match.events[move.start : move.end],
                    "at": "2026-12-06T10:00:00+00:00",
                },
            )
        )
    return framed(records)


@pytest.mark.parametrize(
    "name", ["N" * 65, "N" * (1024 * 1024 // 8), "Ann\x1b[2J", "Ann\nBob"], ids=["65", "128k", "escape", "newline"]
)
def test_a_seat_name_over_the_bound_or_with_a_control_character_is_refused(tmp_path: Path, name: str) -> None:
    path = tmp_path / "names.cab"
    path.write_bytes(long_named(name))
    refused_everywhere(path)


def test_a_name_at_the_bound_is_a_sound_game(tmp_path: Path) -> None:
    path = tmp_path / "names.cab"
    path.write_bytes(long_named("é" * fmt.MAX_NAME))
    loaded = read_every_way(path)
    assert loaded.match.header["seats"][0]["name"] == "é" * fmt.MAX_NAME


def test_the_writer_refuses_in_a_sentence_a_save_its_reader_would_refuse(tmp_path: Path) -> None:
    game = get_game("agent-jean")
    match = new_match(
        game,
        2,
        [{"name": "N" * (1024 * 1024)}, {"name": "Bob"}],
        [{"kind": "human"}, {"kind": "bot", "level": "easy"}],
        seed=4,
        bot_seed=4,
    )
    with pytest.raises(fmt.SaveNotWritable) as info:
        SaveWriter(tmp_path / "long.cab", match)
    assert str(info.value) == (
        f"Cannot save long.cab in {tmp_path}: its header would have a seat name longer than {fmt.MAX_NAME} characters."
    )
    assert not (tmp_path / "long.cab").exists() and not (tmp_path / "long.cab.lock").exists()


# -- 3. what a record may hold, and what a file may cost ------------------------------------------


def bombs() -> dict[str, bytes]:
    """Files of ~2 MiB whose records decode to millions of empty maps, each record
    within the limits the reader had before (16 MiB a record, arrays of a million
    at most): a header of them, and moves of them."""
    header_bomb = with_header("aj-in-play.cab", lambda h: h.__setitem__("arranged", {"x": [[{}] * (MiB // 2)] * 4}))
    records = records_of(BASES["aj-in-play.cab"])
    header, setup = records[0], records[1]
    moves = [
        (
            fmt.MOVE,
            {
                "seat": 0,
                "command": {"t": "PlayCard", "card": "B1"},
                "events": [{"t": "Junk", "x": [{}] * 60_000}],
                "at": "2026-12-06T10:00:00+00:00",
            },
        )
    ] * 35
    return {"header": header_bomb, "moves": framed([header, setup, *moves])}


@pytest.mark.parametrize("kind", ["header", "moves"])
def test_a_record_full_of_empty_maps_costs_a_small_multiple_of_its_file(tmp_path: Path, kind: str) -> None:
    data = bombs()[kind]
    assert len(data) > 2 * MiB
    path = tmp_path / "bomb.cab"
    path.write_bytes(data)
    read_every_way(path)
    # the listing of the directory it is in, as the Load screen reads it
    _, peak = costs(lambda: list_saves(tmp_path))
    assert peak <= bounded(len(data))


def test_an_honest_save_is_within_the_same_bound(tmp_path: Path) -> None:
    for name, data in BASES.items():
        path = tmp_path / name
        path.write_bytes(data)
        assert read_every_way(path) is not None


def test_each_kind_of_record_is_refused_past_what_the_rules_make_before_it_is_decoded(tmp_path: Path) -> None:
    records = records_of(BASES["aj-in-play.cab"])
    path = tmp_path / "big.cab"
    cases = {
        fmt.HEADER: (0, lambda body: body.__setitem__("app_version", "x" * 20_000)),
        fmt.MOVE: (1, lambda body: body["events"].extend([{"t": "Junk", "x": "y" * 1000}] * 70)),
    }
    for kind, (index, change) in cases.items():
        edited = copy.deepcopy(records)
        change(edited[index][1])
        path.write_bytes(framed(edited))
        with pytest.raises(
            SaveError,
            match=rf"^big\.cab is damaged at byte \d+: a {fmt.KIND_NAMES[kind]} record there is \d+ bytes long, more than any the rules make \({fmt.BOUNDS[kind].size}\)\.$",
        ):
            load(path)


# -- 4. nesting ---------------------------------------------------------------------------


def test_a_record_nested_a_thousand_deep_is_refused_and_the_json_export_says_so(tmp_path: Path) -> None:
    records = records_of(BASES["aj-in-play.cab"])
    last = max(i for i, (kind, _) in enumerate(records) if kind == fmt.MOVE)
    path = tmp_path / "deep.cab"
    for where in ("event", "header"):
        edited = copy.deepcopy(records)
        if where == "event":
            edited[last][1]["events"][0]["deep"] = nested(1000)
        else:
            edited[0][1]["arranged"] = {"deep": nested(1000)}
        path.write_bytes(framed(edited))
        refused_everywhere(path, listed=where == "header")  # the listing does not decode events


# -- 9. a save is a regular file, read with a bound -------------------------------------------------


def test_a_pipe_a_device_and_a_pipe_for_a_key_are_each_one_sentence_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.cab"
    os.mkfifo(fifo)
    result = cabinet("verify", str(fifo), "/dev/zero", save_dir=tmp_path, timeout=60)
    no_traceback(result)
    assert result.returncode == 1
    assert result.stdout.splitlines() == ["fifo.cab is a pipe, not a save file.", "zero is a device, not a save file."]
    # a directory whose key is a pipe: the load looks for a seal, and goes on without
    keyed = tmp_path / "keyed"
    keyed.mkdir()
    (keyed / "g.cab").write_bytes(BASES["aj-in-play.cab"])
    os.mkfifo(keyed / fmt.KEY_NAME)
    result = cabinet("verify", str(keyed / "g.cab"), save_dir=keyed, timeout=60)
    no_traceback(result)
    assert result.returncode == 0 and "L'Agent Jean!" in result.stdout
    with no_hang():
        for work in (lambda: load(fifo), lambda: fmt.scan(fifo), lambda: load(Path("/dev/zero"))):
            with pytest.raises(SaveError, match=r" is a (pipe|device), not a save file\.$"):
                work()
        assert save_info(fifo).error == "fifo.cab is a pipe, not a save file."


def test_a_file_larger_than_any_save_is_not_read(tmp_path: Path) -> None:
    path = tmp_path / "huge.cab"
    with open(path, "wb") as f:
        f.write(BASES["aj-in-play.cab"])
        f.truncate(fmt.MAX_SAVE + 1)  # sparse: no disk is spent

    def refused() -> None:
        with pytest.raises(SaveError):
            load(path)

    _, peak = costs(refused)
    assert peak < MiB
    with pytest.raises(SaveError, match=r"^huge\.cab is larger than any save \(64 MiB at most\), so it is not one\.$"):
        verify(path)


# -- 10. a seal damaged alone is said --------------------------------------------------------------


def test_a_save_whose_last_seal_alone_is_damaged_is_decided_again_and_said_so(tmp_path: Path) -> None:
    path = tmp_path / "sealed.cab"
    game = get_game("agent-jean")
    match = new_match(
        game,
        2,
        [{"name": "Ada"}, {"name": "Bob"}],
        [{"kind": "human"}, {"kind": "bot", "level": "easy"}],
        seed=4,
        bot_seed=4,
    )
    with SaveWriter(path, match) as writer:
        table = Table(match, writer)
        for _ in range(3):
            seat = match.active()[0]
            assert table.submit(seat, table.bot_move(seat)) is None
    assert load(path).sealed and "Warning" not in verify(path)
    data = bytearray(path.read_bytes())
    last = max(start for _, start, _ in _offsets(bytes(data)))
    data[last + fmt._HEAD.size + 8] ^= 0x01  # the first byte of its seal, and nothing else
    path.write_bytes(bytes(data))
    loaded = load(path)
    assert not loaded.sealed
    said = (
        "sealed.cab was written here, but the seal of its last record does not hold (it was damaged, or the record "
        "changed after it was written): every move was decided again, and the game follows from them."
    )
    assert loaded.warnings == [said]
    assert verify(path).endswith(" Warning: " + said)
    # a save from elsewhere (no seal of this directory) is decided again as before, and nothing is said
    elsewhere = tmp_path / "other"
    elsewhere.mkdir()
    shutil.copy(path, elsewhere / "sealed.cab")
    assert load(elsewhere / "sealed.cab").warnings == []


def _offsets(data: bytes) -> list[tuple[bytes, int, int]]:
    out = []
    pos = fmt.LOG_PREAMBLE
    while pos < len(data):
        kind, _, length, _, _, _ = fmt._FRAME.unpack_from(data, pos)
        out.append((kind, pos, pos + fmt.RECORD_FRAME + length))
        pos += fmt.RECORD_FRAME + length
    return out


# -- 5. a path that cannot be entered ------------------------------------------------------------------


def test_a_save_in_a_directory_that_cannot_be_entered_is_one_sentence_for_every_command(tmp_path: Path) -> None:
    closed = tmp_path / "closed"
    closed.mkdir()
    save = closed / "x.cab"
    save.write_bytes(BASES["aj-in-play.cab"])
    store = tmp_path / "store"
    os.chmod(closed, 0)
    try:
        for command in (
            ["verify", str(save)],
            ["export", str(save)],
            ["export", "--format", "json", str(save)],
            ["replay", str(save)],
            ["load", str(save)],
            ["host", "--resume", str(save), "--listen", "127.0.0.1:0"],
            ["store", "import", "--store", str(store), str(save)],
        ):
            result = cabinet(*command, save_dir=tmp_path, dac=False)
            no_traceback(result)
            assert result.returncode == 1, (command, result.stderr)
            said = (result.stdout + result.stderr).strip()
            assert said.removeprefix("cabinet: ") == "x.cab cannot be read: Permission denied.", (command, said)
    finally:
        os.chmod(closed, 0o700)


# -- the crafted layer: any record edited, framed again ------------------------------------------------


def nodes(value: Any, path: tuple[Any, ...] = (), depth: int = 6) -> Iterator[tuple[Any, ...]]:
    """The path to every value inside a record body (the body itself first)."""
    yield path
    if depth == 0:
        return
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from nodes(inner, (*path, key), depth - 1)
    elif isinstance(value, list):
        for i, inner in enumerate(value):
            yield from nodes(inner, (*path, i), depth - 1)


def at(body: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        body = body[step]
    return body


plain = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=10,
)

#: what a field may be given instead: every type, sizes on both sides of each bound, nesting
nasty = st.one_of(
    st.none(),
    st.booleans(),
    st.sampled_from([0, 1, -1, 2, 7, 64, 65, 1000, 2**31, -(2**63), 2**64 - 1]),
    st.sampled_from([float("nan"), float("inf"), 0.5]),
    st.sampled_from(
        [
            "",
            "x",
            "N" * 64,
            "N" * 65,
            "é" * 64,
            "1" * 5000,
            "y" * 1024,
            "y" * 1025,
            "\x1b[2J",
            "Ann\nBob",
            "[b]Ann[/b]",
            "\u202eAnn",
            "P0",
            "human",
            "bot",
            "easy",
            "hard",
            "agent-jean",
            "jean",
            "B1",
            "plan:01",
        ]
    ),
    st.text(max_size=6),
    st.binary(max_size=3),
    st.sampled_from([[], {}, [0], ["B1"], {"t": "Junk"}, {"": {}}, [[]], {"t": 1}]),
    st.sampled_from([2, 9, 100, 1000]).map(nested),
    st.sampled_from([(2000, {}), (60_000, []), (70, "y" * 1000), (2000, 0)]).map(lambda n_v: [n_v[1]] * n_v[0]),
    plain,
)

#: the fields records have, and a few they do not
some_key = st.sampled_from(
    ["t", "seat", "name", "kind", "level", "agent", "bot_seed", "seed", "players", "x", "", "n", "at"]
)


@st.composite
def crafted(draw: st.DrawFn) -> tuple[str, bytes]:
    """A real save with one record edited (a field set to anything, removed, added,
    or nested deeper), numbered and linked again as a writer would."""
    name = draw(st.sampled_from(sorted(BASES)))
    records = records_of(BASES[name])
    index = draw(st.one_of(st.just(0), st.integers(0, len(records) - 1)))  # the header often
    kind, body = records[index]
    paths = list(nodes(body))
    path = paths[draw(st.integers(0, len(paths) - 1))]
    edit = draw(st.sampled_from(["set", "set", "delete", "add", "nest"]))
    if not path:
        edit = "add" if edit == "delete" else edit
    if edit == "set":
        value = draw(nasty)
        if path:
            at(body, path[:-1])[path[-1]] = value
        else:
            body = value
    elif edit == "delete":
        del at(body, path[:-1])[path[-1]]
    elif edit == "add":
        target = at(body, path)
        if isinstance(target, dict):
            target[draw(some_key)] = draw(nasty)
        elif isinstance(target, list):
            target.append(draw(nasty))
        else:
            at(body, path[:-1])[path[-1]] = [target, draw(nasty)] if path else [target]
    else:
        depth = draw(st.sampled_from([1, 8, 100, 1000]))
        if path:
            at(body, path[:-1])[path[-1]] = nested(depth, at(body, path))
        else:
            body = nested(depth, body)
    records[index] = (kind, body)
    return name, framed(records)


CRAFTED = settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)


@CRAFTED
@given(crafted())
def test_any_record_edited_and_framed_again_ends_in_a_sentence_or_a_sound_game(
    tmp_path: Path, case: tuple[str, bytes]
) -> None:
    name, data = case
    path = tmp_path / name
    path.write_bytes(data)
    read_every_way(path)


# -- the screens, headless: the listing, the replay, the game ------------------------------------------------


async def through_the_screens(save_dir: Path, path: Path) -> None:
    """The Load screen lists the directory; the save opens in the replay and in the game
    (or is one sentence), and their keys are pressed; nothing raises."""
    from screens.app import CabinetApp
    from screens.play import PlayScreen
    from screens.replay import ReplayScreen
    from screens.save_list import SaveListScreen, open_save
    from tests.tui_helpers import settle

    app = CabinetApp(save_dir=save_dir, bot_delay=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("down", "down", "enter")  # Load
        await pilot.pause()
        assert isinstance(app.screen, SaveListScreen)
        for replay, screen, keys in (
            (True, ReplayScreen, ("right", "end", "home", "v", "left", "]")),
            (False, PlayScreen, ("h", "up", "escape", "right", "enter", "down", "enter")),
        ):
            if open_save(app, path, replay=replay):
                await settle(pilot)
                if isinstance(app.screen, screen):
                    await pilot.press(*keys)
                    await settle(pilot)
                    app.pop_screen()
                    await settle(pilot)
            else:
                await pilot.pause()
                assert any(n.message.startswith(path.name) for n in app._notifications)


#: saves each screen must show, or refuse in a sentence: names at and past the bound, markup,
#: and the header fields the checks skipped
SCREEN_CASES: dict[str, bytes | Any] = {
    "wide-names.cab": long_named("é" * fmt.MAX_NAME),
    "markup-names.cab": long_named("[b]Ann[/b] [link=x]y[/]"),
    "long-name.cab": long_named("N" * (1024 * 1024 // 8)),
    "bot-seed.cab": with_header("aj-in-play.cab", lambda h: h.__setitem__("bot_seed", "abc")),
    "1988-bot-seed.cab": with_header("1988-in-play.cab", lambda h: h.__setitem__("bot_seed", [1])),
    "deep-arranged.cab": with_header(
        "ministeres-in-play.cab", lambda h: h.__setitem__("arranged", {"deck": nested(1000)})
    ),
}


@pytest.mark.parametrize("name", sorted(SCREEN_CASES))
def test_the_screens_show_a_crafted_save_or_say_why_not(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_bytes(SCREEN_CASES[name])
    (tmp_path / "honest.cab").write_bytes(BASES["agent-jean-main-bots.cab"])
    asyncio.run(through_the_screens(tmp_path, path))


#: a seat's name as a save may hold it: any printable text up to the reader's bound, markup
#: and all ("[/]" is text on every screen)
typed_names = st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), max_size=fmt.MAX_NAME)


@st.composite
def named(draw: st.DrawFn) -> tuple[str, bytes]:
    """A game in play, any of the four, its first seat called anything a save may hold."""
    game_id, players, moves = draw(
        st.sampled_from(
            [("agent-jean", 3, 5), ("chirac-mitterrand", 2, 3), ("ministeres", 3, 4), ("edgar-lucien", 2, 2)]
        )
    )
    return f"{game_id}.cab", in_play(game_id, players, moves, seed=draw(st.integers(1, 50)), first=draw(typed_names))


@settings(
    max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(st.one_of(crafted(), named()))
def test_the_screens_show_any_crafted_save_or_say_why_not(tmp_path: Path, case: tuple[str, bytes]) -> None:
    name, data = case
    directory = tmp_path / str(abs(hash(data)))
    directory.mkdir(exist_ok=True)
    path = directory / name
    path.write_bytes(data)
    asyncio.run(through_the_screens(directory, path))
