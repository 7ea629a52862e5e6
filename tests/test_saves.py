"""The save file layer: format, writer, loader, listing, directory."""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import json
import os
import re
import struct
import zlib
from pathlib import Path

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.engine import Match, make_header
from saves import (
    SaveError,
    SaveWriter,
    export_json,
    export_text,
    latest_unfinished,
    list_saves,
    load,
    new_save_path,
    rewrite,
    save_dir,
    verify,
)
from saves import format as fmt
from table import Table
from tests.toygame import GAME, GAMES, ToyGame

# -- helpers -------------------------------------------------------------------


def new_match(rounds: str = "3", seed: int = 42, bots: bool = True) -> Match:
    config = GAME.make_config(2, [{"name": "Ann"}, {"name": "Bob"}], {"rounds": rounds})
    controllers = [{"kind": "human"}, {"kind": "bot", "level": "random"}] if bots else None
    return Match.new(GAME, make_header(GAME, config, seed, controllers, bot_seed=7))


def step(match: Match, writer: SaveWriter | None = None) -> None:
    """One move of the bot's choice, played at a table that keeps ``writer``'s save, if any."""
    seat = match.active()[0]
    table = Table(match, writer)
    refusal = table.submit(seat, table.bot_move(seat))
    assert refusal is None, refusal


def finished_save(path: Path, rounds: str = "3", seed: int = 42) -> Match:
    match = new_match(rounds, seed)
    with SaveWriter(path, match) as writer:
        Table(match, writer).play_out()
    return match


def same_moves(a: Match, b: Match) -> bool:
    return [(m.seat, m.command, m.start, m.end) for m in a.moves] == [
        (m.seat, m.command, m.start, m.end) for m in b.moves
    ]


def record_offsets(data: bytes) -> list[tuple[bytes, int, int]]:
    """(kind, start, end) of each record of a well-formed save."""
    out = []
    pos = fmt._PREAMBLE.size
    while pos < len(data):
        kind, _, length, _, _, _ = fmt._FRAME.unpack_from(data, pos)
        end = pos + fmt._FRAME.size + length
        out.append((kind, pos, end))
        pos = end
    return out


def craft(path: Path, records: list[tuple[bytes, object]], version: int = fmt.FORMAT_VERSION) -> None:
    """A save written record by record: valid frames (numbered and linked as a
    writer would, but unsealed) around any bodies."""
    data = struct.pack(">12sH", fmt.MAGIC, version)
    chain = fmt.chain_for(version)
    for kind, body in records:
        raw = body if isinstance(body, bytes) else msgpack.packb(body, use_bin_type=True)
        if version >= 2:
            data += chain.frame(kind, raw)
        else:
            data += struct.pack(">cII", kind, len(raw), zlib.crc32(raw)) + raw
    path.write_bytes(data)


def records_of(match: Match) -> list[tuple[bytes, object]]:
    """The records of a match, decoded, for tampering."""
    data, _ = fmt.encode_match(match)
    return [(kind, msgpack.unpackb(data[start + fmt._FRAME.size : end])) for kind, start, end in record_offsets(data)]


def one_sentence(exc: SaveError, name: str) -> None:
    text = str(exc)
    assert text.startswith(name), text
    assert text.endswith("."), text
    assert "\n" not in text and "Traceback" not in text


@pytest.fixture(scope="module")
def small_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("small")


@pytest.fixture(scope="module")
def small_save(small_dir) -> tuple[bytes, Match]:
    path = small_dir / "small.cab"
    match = finished_save(path, "3")
    return path.read_bytes(), match


def same_key(src: Path, dst: Path) -> None:
    """Give directory ``dst`` the key of ``src``: its saves are then sealed there too."""
    (dst / fmt.KEY_NAME).write_bytes((src / fmt.KEY_NAME).read_bytes())


# -- round trip -------------------------------------------------------------------


@pytest.mark.parametrize("rounds", ["3", "30"])
def test_round_trip(tmp_path, rounds):
    path = tmp_path / "game.cab"
    match = finished_save(path, rounds)
    loaded = load(path, GAMES)
    assert loaded.warnings == []
    assert loaded.clean and loaded.path == path
    assert loaded.match.header == match.header
    assert loaded.match.events == match.events
    assert loaded.match.state == match.state
    assert same_moves(loaded.match, match)
    assert loaded.match.outcome == match.outcome is not None
    assert len(loaded.times) == len(match.moves) and all(loaded.times)
    # history works on the rebuilt match
    assert loaded.match.state_at(10) == match.state_at(10)
    records, _warnings = fmt.read_records(path)
    kinds = [k for k, _ in records]
    assert kinds[0] == "header" and kinds[1] == "move" and kinds[2] == "checkpoint" and kinds[-1] == "outcome"
    assert kinds.count("move") == len(match.moves)
    # after the setup, after each move that crosses a multiple of 50 events, and after the last
    due = {0, len(match.moves) - 1} | {
        i for i, m in enumerate(match.moves) if m.start // fmt.CHECKPOINT_EVERY != m.end // fmt.CHECKPOINT_EVERY
    }
    assert kinds.count("checkpoint") == len(due)
    assert kinds[-2] == "checkpoint" and records[-2][1]["n"] == len(match.events) and "state" in records[-2][1]
    if rounds == "30":
        assert len(match.events) > 150


def test_file_layout(tmp_path):
    path = tmp_path / "game.cab"
    finished_save(path)
    data = path.read_bytes()
    assert data[:12] == b"CABINET\x00SAVE"
    assert struct.unpack(">H", data[12:14]) == (3,)
    # kind, place (the header is record 0), length, CRC, link to the start, seal
    kind, seq, length, crc, link, seal = struct.unpack(">cIII8s8s", data[14:43])
    assert (kind, seq) == (b"H", 0)
    body = data[43 : 43 + length]
    assert zlib.crc32(body) == crc
    assert msgpack.unpackb(body)["game"] == "toy"
    # the link: the hash of every byte before the record; the seal: a keyed hash of the
    # hash of the file up to the record's end, the seal itself left out
    assert link == hashlib.sha256(data[:14]).digest()[:8]
    key = (tmp_path / fmt.KEY_NAME).read_bytes()
    up_to = hashlib.sha256(data[:35] + body).digest()
    assert seal == hashlib.blake2b(up_to, key=key, digest_size=8).digest()
    # the next record is number 1 and links to every byte before it
    kind, seq, _, _, link, _ = struct.unpack(">cIII8s8s", data[43 + length : 43 + length + 29])
    assert (kind, seq) == (b"M", 1)
    assert link == hashlib.sha256(data[: 43 + length]).digest()[:8]


def test_written_and_flushed_move_by_move(tmp_path, monkeypatch):
    synced = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd))[1])
    path = tmp_path / "live.cab"
    match = new_match("3")
    writer = SaveWriter(path, match)
    sizes = [path.stat().st_size]
    assert load(path, GAMES).match.events == match.events  # header and setup already there
    while match.active():
        before = len(synced)
        step(match, writer)
        assert len(synced) > before  # fsynced as it happened
        with open(path, "rb") as other:  # another handle sees it at once
            sizes.append(len(other.read()))
        again = load(path, GAMES)
        assert again.warnings == []
        assert len(again.match.moves) == len(match.moves)
        assert again.match.events == match.events
    writer.close()
    assert sizes == sorted(sizes) and len(set(sizes)) == len(sizes)
    assert load(path, GAMES).match.outcome is not None
    assert fmt.read_records(path)[0][-1][0] == "outcome"


def test_a_closed_writer_writes_nothing_more(tmp_path):
    path = tmp_path / "g.cab"
    match = new_match(bots=False)
    writer = SaveWriter(path, match)
    step(match, writer)
    step(match, writer)
    writer.close()
    data = path.read_bytes()
    step(match, writer)  # played at the table whose writer was closed
    assert path.read_bytes() == data
    match.truncate_moves(1)
    writer.cut_back()
    assert path.read_bytes() == data
    assert writer.error is None
    assert len(load(path, GAMES).match.moves) == 3  # the setup and the two moves made while it was open


# -- torn tails, truncation, bit flips ------------------------------------------------


def test_torn_tail_is_dropped_with_a_warning(tmp_path, small_save):
    data, match = small_save
    offsets = record_offsets(data)
    last_move = [o for o in offsets if o[0] == b"M"][-1]
    path = tmp_path / "torn.cab"
    path.write_bytes(data[: last_move[1] + 20])
    loaded = load(path, GAMES)
    assert loaded.warnings == ["torn.cab: the last move was cut off mid-write and was dropped."]
    assert len(loaded.match.moves) == len(match.moves) - 1
    assert loaded.match.events == match.events[: match.moves[-1].start]
    assert not loaded.clean
    assert path.read_bytes() == data[: last_move[1] + 20]  # loading did not repair it


def test_truncation_at_every_offset(tmp_path, small_save):
    data, match = small_save
    path = tmp_path / "cut.cab"
    setup_end = record_offsets(data)[1][2]
    loads = errors = torn = 0
    last_moves = 0
    for n in range(len(data)):
        cut = data[:n]
        path.write_bytes(cut)
        try:
            loaded = load(path, GAMES)
        except SaveError as exc:
            one_sentence(exc, "cut.cab")
            errors += 1
            assert n < setup_end, (n, str(exc))
        else:
            loads += 1
            assert n >= setup_end
            k = len(loaded.match.moves)
            assert k >= last_moves  # a longer file never loads fewer moves
            last_moves = k
            assert loaded.match.events == match.events[: loaded.match.moves[-1].end]
            assert [(m.seat, m.command) for m in loaded.match.moves] == [(m.seat, m.command) for m in match.moves[:k]]
            if loaded.warnings:
                torn += 1
                assert len(loaded.warnings) == 1 and "cut off mid-write and was dropped" in loaded.warnings[0]
        assert path.read_bytes() == cut  # never modified
    assert loads and errors and torn
    assert load_ok(path, data)


def load_ok(path: Path, data: bytes) -> bool:
    path.write_bytes(data)
    return load(path, GAMES).warnings == []


def test_every_flipped_bit_is_detected(tmp_path, small_save, small_dir):
    data, match = small_save
    path = tmp_path / "flip.cab"
    same_key(small_dir, tmp_path)
    path.write_bytes(data)
    assert load(path, GAMES).sealed
    loaded_anyway = []
    for i in range(len(data)):
        for bit in range(8):
            bad = bytearray(data)
            bad[i] ^= 1 << bit
            bad = bytes(bad)
            path.write_bytes(bad)
            try:
                loaded = load(path, GAMES)
            except SaveError as exc:
                one_sentence(exc, "flip.cab")
            else:
                loaded_anyway.append((i, bit))
                # only the last record's seal: the save is then decided again, move by move
                assert not loaded.sealed and loaded.match.events == match.events
            assert path.read_bytes() == bad
    # the CRC guards every body, the kinds are two bits apart, a length that
    # overshoots the end is told from a torn tail, a damaged seal breaks the
    # link of the record after it: no single flip goes unnoticed but in the
    # last seal, which only costs the trust the seal gave
    _, start, _ = record_offsets(data)[-1]
    seal = start + fmt._FRAME.size - 8
    assert loaded_anyway == [(i, bit) for i in range(seal, seal + 8) for bit in range(8)]


def test_flipped_bits_in_listing_and_exports_never_traceback(tmp_path, small_save):
    data, _ = small_save
    path = tmp_path / "flip.cab"
    for i in range(0, len(data), 3):
        bad = bytearray(data)
        bad[i] ^= 1 << (i % 8)
        path.write_bytes(bytes(bad))
        info = list_saves(tmp_path, GAMES)[0]
        assert info.error is None or info.error.startswith("flip.cab")
        for f in (lambda: export_json(path, GAMES), lambda: export_text(path, GAMES), lambda: verify(path, GAMES)):
            with contextlib.suppress(SaveError):
                f()


def test_damaged_length_at_the_end_is_not_taken_for_a_torn_tail(tmp_path, small_save):
    data, _ = small_save
    _kind, start, end = record_offsets(data)[-1]
    bad = bytearray(data)
    struct.pack_into(">I", bad, start + 5, end - start - fmt._FRAME.size + 100)
    path = tmp_path / "len.cab"
    path.write_bytes(bytes(bad))
    with pytest.raises(SaveError, match=r"damaged at byte \d+: a record's length does not match"):
        load(path, GAMES)


def test_oversized_record_refused_before_reading(tmp_path, small_save):
    data, _ = small_save
    path = tmp_path / "big.cab"
    path.write_bytes(data + struct.pack(">cII", b"M", fmt.MAX_RECORD + 1, 0) + b"\x80")
    with pytest.raises(SaveError, match="impossible length"):
        load(path, GAMES)


# -- not saves, versions, games ---------------------------------------------------------


def test_empty_and_foreign_files(tmp_path):
    path = tmp_path / "x.cab"
    path.write_bytes(b"")
    with pytest.raises(SaveError, match=r"^x\.cab is empty"):
        load(path, GAMES)
    path.write_bytes(b"PK\x03\x04 this is a zip file, not a save" * 3)
    with pytest.raises(SaveError, match=r"^x\.cab is not a Cabinet save file\.$"):
        load(path, GAMES)
    path.write_bytes(b"CABINET")
    with pytest.raises(SaveError, match="cut off before the end of its header"):
        load(path, GAMES)
    with pytest.raises(SaveError, match="does not exist"):
        load(tmp_path / "missing.cab", GAMES)
    with pytest.raises(SaveError, match="directory"):
        load(tmp_path, GAMES)


def test_newer_format_version(tmp_path, small_save):
    data, _ = small_save
    path = tmp_path / "new.cab"
    path.write_bytes(data[:12] + struct.pack(">H", 4) + data[14:])
    with pytest.raises(
        SaveError,
        match=r"^new\.cab was written by a newer Cabinet \(save format 4; this version reads formats 1 to 3\)\.$",
    ):
        load(path, GAMES)


def test_a_format_number_changed_to_another_this_version_reads_is_said_at_the_header(tmp_path, small_save):
    """Format 3's records read as format 2's (or the other way): the header's link says so."""
    data, _ = small_save
    path = tmp_path / "changed.cab"
    path.write_bytes(data[:12] + struct.pack(">H", 2) + data[14:])
    with pytest.raises(SaveError) as err:
        load(path, GAMES)
    assert str(err.value) == (
        "changed.cab is damaged at byte 14: its header does not follow the file's first bytes "
        "(its format number was changed, or its header)."
    )


def test_unknown_game(tmp_path):
    match = new_match()
    recs = records_of(match)
    recs[0][1]["game"] = "chess"
    path = tmp_path / "u.cab"
    craft(path, recs)
    with pytest.raises(SaveError, match="does not know \\('chess'\\)") as err:
        load(path, GAMES)
    one_sentence(err.value, "u.cab")
    info = list_saves(tmp_path, GAMES)[0]
    assert info.game == "chess" and info.title == "chess" and "does not know" in info.error


def test_saves_played_within_one_second_list_the_last_written_first(tmp_path, monkeypatch):
    """The moves' times have whole seconds: two games played in the same second
    list the one written last first, whatever their names say."""
    monkeypatch.setattr(fmt, "now_iso", lambda: "2026-12-04T04:39:15+00:00")
    for name in ("zz.cab", "aa.cab"):
        finished_save(tmp_path / name)
    stamp = (tmp_path / "zz.cab").stat().st_mtime_ns
    os.utime(tmp_path / "zz.cab", ns=(stamp, stamp))
    os.utime(tmp_path / "aa.cab", ns=(stamp + 1_000, stamp + 1_000))  # a microsecond later
    infos = list_saves(tmp_path, GAMES)
    assert infos[0].last_played == infos[1].last_played
    assert [i.path.name for i in infos] == ["aa.cab", "zz.cab"]
    os.utime(tmp_path / "zz.cab", ns=(stamp + 2_000, stamp + 2_000))  # zz played on
    assert [i.path.name for i in list_saves(tmp_path, GAMES)] == ["zz.cab", "aa.cab"]


class ToyV2(ToyGame):
    rules_version = 2


def test_rules_version_changed(tmp_path, small_save):
    data, _ = small_save
    path = tmp_path / "r.cab"
    path.write_bytes(data)
    with pytest.raises(SaveError, match=r"version 1 of the rules of Toy Cards.*\(version 2\)") as err:
        load(path, {"toy": ToyV2()})
    one_sentence(err.value, "r.cab")
    match = new_match()
    match.header["rules_version"] = 3
    rewrite(path, match)
    with pytest.raises(SaveError, match=r"newer version of the rules of Toy Cards \(version 3"):
        load(path, GAMES)
    assert list_saves(tmp_path, GAMES)[0].error is not None


# -- rules that changed under a save -----------------------------------------------------


class TamperedToy(ToyGame):
    """Plays seat 2's cards one point higher from turn ``from_turn`` on."""

    def __init__(self, from_turn: int) -> None:
        self.from_turn = from_turn

    def evolve(self, state, event):
        new = super().evolve(state, event)
        if event["t"] == "CardPlayed" and event["seat"] == 1 and state.played >= self.from_turn:
            scores = list(new.scores)
            scores[1] += 1
            new = type(new)(**{**new.__dict__, "scores": tuple(scores)})
        return new


def checkpoint_moves(match: Match) -> list[int]:
    return [i for i, m in enumerate(match.moves) if fmt._checkpoint_due(i, m.start, m.end)]


def stateless_checkpoints(monkeypatch) -> None:
    """Checkpoints written as before they carried the state: the digest alone."""
    plain = fmt._checkpoint_body
    monkeypatch.setattr(fmt, "_checkpoint_body", lambda match, state, n, with_state=True: plain(match, state, n, False))


@pytest.mark.parametrize("how", ["verify", "old save"])
def test_checkpoint_divergence_names_the_move(tmp_path, monkeypatch, how):
    """Rules changed under a save: deciding every move again (verify, a copied save) names
    the stretch where the digests part; so does folding a sealed save whose checkpoints
    carry no state (written before they did).  (A sealed save whose checkpoints carry the
    state folds only what follows the last: see test_state_checkpoints.py.)"""
    path = tmp_path / "d.cab"
    if how == "old save":
        stateless_checkpoints(monkeypatch)
    match = finished_save(path, "30")
    cps = checkpoint_moves(match)
    assert len(cps) >= 4
    # the first of seat 2's card plays at or after turn 20
    first = next(
        i
        for i, m in enumerate(match.moves)
        if m.seat == 1 and m.command["t"] == "Play" and match.state_at(m.start).played >= 20
    )
    after = min(c for c in cps if c >= first)
    before = max(c for c in cps if c < first)
    before_bytes = path.read_bytes()
    with pytest.raises(SaveError, match="diverges from the rules of this version") as err:
        load(path, {"toy": TamperedToy(20)}, rederive=how == "verify")
    one_sentence(err.value, "d.cab")
    text = str(err.value)
    if before + 1 == after:
        assert f"at move {after}:" in text
    else:
        assert f"between moves {before + 1} and {after}:" in text
    assert path.read_bytes() == before_bytes


def test_divergence_after_the_last_checkpoint_is_caught_by_the_result(tmp_path, monkeypatch):
    """A finished save written before 7 December 2026 has no checkpoint after its last move:
    what the rules make of the moves after its last one is checked against the result."""
    path = tmp_path / "d.cab"
    with monkeypatch.context() as written_before:
        written_before.setattr(fmt, "_ends", lambda match, index: False)
        match = finished_save(path, "30")
    last_cp = checkpoint_moves(match)[-1]
    turn = match.state_at(match.moves[last_cp].end).played
    plays_after = [i for i, m in enumerate(match.moves) if i > last_cp and m.seat == 1 and m.command["t"] == "Play"]
    if not plays_after:
        pytest.skip("no card played by seat 2 after the last checkpoint with this seed")
    with pytest.raises(SaveError, match=r"diverges .* at move \d+: the replayed result differs"):
        load(path, {"toy": TamperedToy(turn)})


def test_event_the_rules_cannot_apply(tmp_path):
    match = new_match()
    for _ in range(3):
        step(match)
    recs = records_of(match)
    moves = [i for i, (k, _) in enumerate(recs) if k == b"M"]
    recs[moves[2]][1]["events"][0] = {"t": "CardBurned", "seat": 0}
    path = tmp_path / "e.cab"
    craft(path, recs)
    with pytest.raises(
        SaveError, match=r"does not follow from its moves at move 2 \(byte \d+\): its event 1 \(CardBurned\)"
    ) as err:
        load(path, GAMES)
    one_sentence(err.value, "e.cab")
    recs[moves[2]][1]["events"][0] = {"t": "CardPlayed", "seat": 0, "card": 999}  # not in hand
    craft(path, recs)
    with pytest.raises(SaveError, match="does not follow from its moves at move 2"):
        load(path, GAMES)


# -- badly shaped records (valid frames, bad bodies) ----------------------------------------


def _bad_shapes():
    match = new_match()
    step(match)
    base = records_of(match)

    def with_(i, change):
        recs = [(k, dict(b) if isinstance(b, dict) else b) for k, b in base]
        change(recs)
        return recs

    cases = {
        "header not a map": with_(0, lambda r: r.__setitem__(0, (b"H", [1, 2]))),
        "header without game": with_(0, lambda r: r[0][1].pop("game")),
        "seats mismatch": with_(0, lambda r: r[0][1].__setitem__("players", 3)),
        "bad variant": with_(0, lambda r: r[0][1].__setitem__("variants", {"rounds": "7"})),
        "seed a string": with_(0, lambda r: r[0][1].__setitem__("seed", "42")),
        "first record a move": with_(0, lambda r: r.pop(0)),
        "seat out of range": with_(0, lambda r: r[3][1].__setitem__("seat", 5)),
        "seat a bool": with_(0, lambda r: r[3][1].__setitem__("seat", True)),
        "events not a list": with_(0, lambda r: r[3][1].__setitem__("events", {"t": "x"})),
        "event without t": with_(0, lambda r: r[3][1].__setitem__("events", [{"seat": 0}])),
        "setup with a seat": with_(0, lambda r: r[1][1].__setitem__("seat", 0)),
        "checkpoint out of place": with_(0, lambda r: r[2][1].__setitem__("n", 1)),
        "checkpoint digest an int": with_(0, lambda r: r[2][1].__setitem__("digest", 5)),
        "second header": with_(0, lambda r: r.append((b"H", r[0][1]))),
        "outcome of an unfinished game": with_(
            0, lambda r: r.append((b"R", {"winners": [0], "reason": "x", "scores": []}))
        ),
        "outcome with bad winners": with_(0, lambda r: r.append((b"R", {"winners": ["Ann"], "reason": "x"}))),
        "msgpack garbage": with_(0, lambda r: r.append((b"M", b"\xc1\xc1\xc1"))),
        "trailing bytes": with_(0, lambda r: r.append((b"M", msgpack.packb(r[3][1]) + b"\x00"))),
        "ext type": with_(0, lambda r: r.append((b"M", msgpack.packb({"seat": 0, "x": msgpack.ExtType(5, b"ab")})))),
        "timestamp": with_(0, lambda r: r.append((b"M", msgpack.packb({"seat": 0, "x": msgpack.Timestamp(1, 0)})))),
        "int map key": with_(0, lambda r: r.append((b"M", msgpack.packb({1: 2}, strict_types=False)))),
        "deep nesting": with_(0, lambda r: r.append((b"M", b"\x81\xa1e" + b"\x91" * 100 + b"\x00"))),
        "nesting past msgpack's own limit": with_(
            0, lambda r: r.append((b"M", b"\x81\xa1e" + b"\x91" * 5000 + b"\x00"))
        ),
        "deep nesting inside an event": with_(
            0, lambda r: r[3][1].__setitem__("events", [{"t": "Drew", "x": msgpack.unpackb(b"\x91" * 900 + b"\x00")}])
        ),
        "body a list": with_(0, lambda r: r.append((b"C", msgpack.packb([1, 2])))),
        "unknown kind": with_(0, lambda r: r.append((b"Z", {"n": 1}))),
    }
    return cases


def test_records_after_the_end_of_the_game(tmp_path, small_save):
    _, match = small_save
    recs = records_of(match)
    assert recs[-1][0] == b"R"
    path = tmp_path / "after.cab"
    for extra in (recs[-2], (b"C", {"n": len(match.events), "digest": "0" * 32}), recs[-1]):
        craft(path, recs + [extra])
        with pytest.raises(
            SaveError, match=r"^after\.cab is damaged at byte \d+: a record follows the end of the game\.$"
        ):
            load(path, GAMES)
        assert list_saves(tmp_path, GAMES)[0].error.startswith("after.cab is damaged")


@pytest.mark.parametrize("case", list(_bad_shapes()))
def test_badly_shaped_records(tmp_path, case):
    path = tmp_path / "shape.cab"
    craft(path, _bad_shapes()[case])
    before = path.read_bytes()
    with pytest.raises(SaveError) as err:
        load(path, GAMES)
    one_sentence(err.value, "shape.cab")
    assert path.read_bytes() == before
    info = list_saves(tmp_path, GAMES)[0]  # the listing never raises either
    assert info.path == path


# -- fuzz -----------------------------------------------------------------------------------


def _try_everything(path: Path, data: bytes) -> None:
    path.write_bytes(data)
    for f in (
        lambda: load(path, GAMES),
        lambda: verify(path, GAMES),
        lambda: export_text(path, GAMES),
        lambda: export_json(path, GAMES),
        lambda: fmt.scan(path),
    ):
        try:
            f()
        except SaveError as exc:
            one_sentence(exc, path.name)
    info = list_saves(path.parent, GAMES)[0]
    assert info.error is None or info.error.startswith(path.name)
    assert path.read_bytes() == data


FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@FUZZ
@given(st.binary(max_size=300))
def test_fuzz_random_bytes(tmp_path, data):
    _try_everything(tmp_path / "fuzz.cab", data)


@FUZZ
@given(st.binary(max_size=300))
def test_fuzz_after_a_valid_preamble(tmp_path, data):
    _try_everything(tmp_path / "fuzz.cab", fmt.preamble() + data)


plain = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.floats()
    | st.text(max_size=5)
    | st.binary(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=12,
)


_BASE_RECORDS = records_of(new_match())


@FUZZ
@given(
    st.lists(
        st.tuples(
            st.sampled_from([b"H", b"M", b"C", b"R"]),
            st.dictionaries(
                st.sampled_from(
                    ["game", "seat", "command", "events", "n", "digest", "winners", "reason", "players", "seats", "t"]
                ),
                plain,
                max_size=5,
            ),
        ),
        max_size=5,
    ),
    st.integers(0, 3),
)
def test_fuzz_valid_frames_with_random_bodies(tmp_path, records, keep):
    """Frames and CRCs are right, so every check behind them is exercised."""
    recs = _BASE_RECORDS[:keep] + records
    path = tmp_path / "fuzz.cab"
    craft(path, recs)
    _try_everything(path, path.read_bytes())


@FUZZ
@given(st.data())
def test_fuzz_splices_of_a_real_save(tmp_path, small_save, data):
    real, _ = small_save
    i = data.draw(st.integers(0, len(real)))
    j = data.draw(st.integers(i, min(len(real), i + 40)))
    junk = data.draw(st.binary(max_size=40))
    _try_everything(tmp_path / "fuzz.cab", real[:i] + junk + real[j:])


# -- continuing, rewriting, take-backs --------------------------------------------------------


def test_resume_appends_to_a_clean_save(tmp_path):
    path = tmp_path / "r.cab"
    match = new_match()
    writer = SaveWriter(path, match)
    step(match, writer)
    step(match, writer)
    writer.close()
    ino = path.stat().st_ino
    loaded = load(path, GAMES)
    assert loaded.clean
    writer = SaveWriter.resume(loaded)
    Table(loaded.match, writer).play_out()
    writer.close()
    assert path.stat().st_ino == ino  # appended, not rewritten
    again = load(path, GAMES)
    assert again.warnings == [] and again.match.events == loaded.match.events
    assert again.match.outcome is not None
    assert again.times[:3] == loaded.times[:3]


def test_resume_after_a_torn_tail_rewrites_cleanly_first(tmp_path):
    path = tmp_path / "t.cab"
    match = new_match()
    with SaveWriter(path, match) as writer:
        for _ in range(3):
            step(match, writer)
    data = path.read_bytes()
    path.write_bytes(data[:-5])
    loaded = load(path, GAMES)
    assert loaded.warnings and not loaded.clean
    ino = path.stat().st_ino
    writer = SaveWriter.resume(loaded)
    assert path.stat().st_ino != ino  # replaced atomically
    assert load(path, GAMES).warnings == []
    Table(loaded.match, writer).play_out()
    writer.close()
    final = load(path, GAMES)
    assert final.warnings == [] and final.match.events == loaded.match.events
    assert final.match.outcome is not None


def test_resume_when_the_result_record_was_torn(tmp_path, small_save):
    data, match = small_save
    path = tmp_path / "o.cab"
    path.write_bytes(data[:-3])
    loaded = load(path, GAMES)
    assert loaded.warnings == ["o.cab: the final result was cut off mid-write and was dropped."]
    assert loaded.match.outcome == match.outcome and not loaded.clean
    SaveWriter.resume(loaded).close()
    assert fmt.read_records(path)[0][-1][0] == "outcome"


def test_rewrite_is_atomic(tmp_path, small_save, monkeypatch):
    data, match = small_save
    path = tmp_path / "a.cab"
    path.write_bytes(b"old contents")
    seen = []
    real_replace = os.replace

    def spy(src, dst):
        src, dst = Path(src), Path(dst)
        seen.append((src, dst, src.read_bytes(), dst.read_bytes()))
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    rewrite(path, match, load_times(data, tmp_path))
    [(src, dst, new, old)] = seen
    assert src.parent == dst.parent == tmp_path and src != dst and dst == path
    assert old == b"old contents"  # untouched until the rename
    assert new == path.read_bytes()
    # the same records as the original (sealed with this directory's key, not the original's)
    (tmp_path / "orig.cab").write_bytes(data)
    assert fmt.read_records(path) == fmt.read_records(tmp_path / "orig.cab")
    (tmp_path / "orig.cab").unlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == [".cabinet-key", "a.cab", "times.cab"]

    def broken(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(OSError):
        rewrite(path, new_match(), None)
    assert path.read_bytes() == new  # the old file survives a failed rewrite
    assert sorted(p.name for p in tmp_path.iterdir()) == [".cabinet-key", "a.cab", "times.cab"]  # no temp left


def load_times(data: bytes, where: Path) -> list:
    p = where / "times.cab"
    p.write_bytes(data)
    return load(p, GAMES).times


def test_take_back_cut_rewrites_the_file(tmp_path):
    path = tmp_path / "tb.cab"
    match = new_match(bots=False)
    writer = SaveWriter(path, match)
    for _ in range(4):
        step(match, writer)
    match.truncate_moves(3)
    step(match, writer)  # the writer notices the cut and rewrites before going on
    assert writer.error is None
    loaded = load(path, GAMES)
    assert loaded.warnings == [] and loaded.match.events == match.events and same_moves(loaded.match, match)
    match.truncate_moves(2)
    writer.cut_back()
    assert writer.error is None
    assert load(path, GAMES).match.events == match.events
    step(match, writer)
    writer.close()
    assert load(path, GAMES).match.events == match.events


def test_fork_play_on_from_here(tmp_path, small_save):
    data, match = small_save
    src = tmp_path / "src.cab"
    src.write_bytes(data)
    loaded = load(src, GAMES)
    loaded.match.truncate_moves(3)
    fork = new_save_path(tmp_path, "toy")
    writer = SaveWriter(fork, loaded.match, times=loaded.times)
    step(loaded.match, writer)
    writer.close()
    assert src.read_bytes() == data
    forked = load(fork, GAMES)
    assert forked.match.events[: match.moves[3].start] == match.events[: match.moves[3].start]
    assert forked.times[:3] == loaded.times[:3]


def test_a_failing_disk_does_not_stop_the_game(tmp_path, monkeypatch):
    path = tmp_path / "f.cab"
    match = new_match()
    errors = []
    writer = SaveWriter(path, match, on_error=errors.append)
    real_fsync = os.fsync

    def no_space(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", no_space)
    step(match, writer)  # no exception into the game
    assert writer.error == "Could not save f.cab: No space left on device."
    assert errors == [writer.error]
    monkeypatch.setattr(os, "fsync", real_fsync)
    step(match, writer)  # the next move rewrites everything
    assert writer.error is None
    writer.close()
    loaded = load(path, GAMES)
    assert loaded.warnings == [] and loaded.match.events == match.events


# -- summaries, exports ---------------------------------------------------------------------


def test_verify_and_exports(tmp_path, small_save):
    data, match = small_save
    path = tmp_path / "v.cab"
    path.write_bytes(data)
    line = verify(path, GAMES)
    assert "\n" not in line
    # a move is what a player did: the setup is not one, and events are not counted
    assert len(match.moves) - 1 == 6
    assert line.startswith("Toy Cards: Ann (human), Bob (bot, random); 6 moves;")
    assert "finished, won by" in line and "event" not in line
    text = export_text(path, GAMES)
    lines = text.splitlines()
    assert lines[1] == "Game: Toy Cards (rules version 1)"
    assert "Finished after 6 moves: won by" in text
    # the setup, then each move numbered as the replay numbers it, with who made it
    headings = [ln for ln in lines if ln == "Setup" or ln.startswith("Move ")]
    assert headings == ["Setup"] + [
        f"Move {i}: {'Ann' if m.seat == 0 else 'Bob'}" for i, m in enumerate(match.moves[1:], 1)
    ]
    described = [ln for ln in lines if ln.startswith("  ")]
    assert len(described) == len(match.events)
    assert lines[lines.index("Setup") + 1] == "  The deck is shuffled."
    assert "draws" in lines[lines.index("Setup") + 2]  # everything revealed
    doc = json.loads(export_json(path, GAMES))
    assert doc["version"] == 3 and doc["records"][0]["kind"] == "header"
    assert [r["kind"] for r in doc["records"]].count("move") == len(match.moves)
    moves = [r["body"] for r in doc["records"] if r["kind"] == "move"]
    assert [e for m in moves for e in m["events"]] == match.events
    path.write_bytes(data[:-3])
    assert "Warning:" in verify(path, GAMES)
    assert json.loads(export_json(path, GAMES))["warnings"]


# -- the directory and the listing ---------------------------------------------------------------


class RaisingToy(ToyGame):
    def evolve(self, state, event):
        raise AssertionError("the listing must not replay")

    def initial(self, config):
        raise AssertionError("the listing must not build a match")


def test_list_saves_without_replaying(tmp_path):
    d = tmp_path
    t0 = datetime.datetime(2026, 1, 1, 12, 0, tzinfo=datetime.UTC)

    def times(n, start):
        return [(start + datetime.timedelta(minutes=i)).isoformat(timespec="seconds") for i in range(n)]

    done = new_match("3", seed=1)
    Table(done).play_out()
    rewrite(d / "done.cab", done, times(len(done.moves), t0))
    going = new_match("3", seed=2)
    step(going)
    step(going)
    rewrite(d / "going.cab", going, times(len(going.moves), t0 + datetime.timedelta(hours=1)))
    older = new_match("3", seed=3)
    rewrite(d / "older.cab", older, times(1, t0 - datetime.timedelta(days=1)))
    (d / "broken.cab").write_bytes(b"CABINET\x00SAVE\x00\x01garbage!!")
    os.utime(d / "broken.cab", (0, 0))
    (d / "notes.txt").write_text("not a save")
    (d / ".going.cab.1234.tmp").write_bytes(b"temp")
    torn = new_match("3", seed=4)
    step(torn)
    rewrite(d / "torn.cab", torn, times(2, t0 - datetime.timedelta(days=2)))
    data = (d / "torn.cab").read_bytes()
    (d / "torn.cab").write_bytes(data[:-4])

    infos = list_saves(d, {"toy": RaisingToy()})
    assert [i.path.name for i in infos] == ["going.cab", "done.cab", "older.cab", "torn.cab", "broken.cab"]
    going_i, done_i, older_i, torn_i, broken_i = infos
    assert going_i.game == "toy" and going_i.title == "Toy Cards"
    assert [(s.name, s.kind, s.level) for s in going_i.seats] == [("Ann", "human", None), ("Bob", "bot", "random")]
    assert going_i.started == datetime.datetime.fromisoformat(going.header["created"])
    assert going_i.last_played == t0 + datetime.timedelta(hours=1, minutes=2)
    assert going_i.moves == 2 and not going_i.finished and going_i.winners == ()
    assert going_i.error is None and going_i.warning is None
    assert done_i.finished and done_i.moves == len(done.moves) - 1
    assert done_i.winners == done.outcome.winners and done_i.winner_names
    assert older_i.moves == 0 and not older_i.finished
    assert torn_i.moves == 0 and torn_i.warning and torn_i.error is None  # the torn move is not counted
    assert broken_i.error.startswith("broken.cab is damaged at byte 14")
    assert latest_unfinished(d, {"toy": RaisingToy()}).path.name == "going.cab"
    (d / "going.cab").unlink()
    assert latest_unfinished(d, GAMES).path.name == "older.cab"


def test_latest_unfinished_none(tmp_path, small_save):
    assert latest_unfinished(tmp_path, GAMES) is None
    (tmp_path / "done.cab").write_bytes(small_save[0])
    assert latest_unfinished(tmp_path, GAMES) is None


def test_last_played_falls_back_to_mtime(tmp_path):
    match = new_match()
    craft(tmp_path / "m.cab", [(k, {key: v for key, v in b.items() if key != "at"}) for k, b in records_of(match)])
    os.utime(tmp_path / "m.cab", (1_700_000_000, 1_700_000_000))
    [info] = list_saves(tmp_path, GAMES)
    assert info.error is None
    assert info.last_played == datetime.datetime.fromtimestamp(1_700_000_000, datetime.UTC)


def test_save_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("CABINET_SAVE_DIR", raising=False)
    default = save_dir()
    assert default == tmp_path / "xdg" / "cabinet" / "saves" and default.is_dir()
    monkeypatch.setenv("CABINET_SAVE_DIR", str(tmp_path / "env"))
    assert save_dir() == tmp_path / "env" and (tmp_path / "env").is_dir()
    assert save_dir(str(tmp_path / "flag" / "deep")) == tmp_path / "flag" / "deep"
    assert (tmp_path / "flag" / "deep").is_dir()


def test_new_save_path(tmp_path):
    paths = {new_save_path(tmp_path, "agent-jean") for _ in range(20)}
    assert len(paths) == 20
    for p in paths:
        assert p.parent == tmp_path
        assert re.fullmatch(r"agent-jean-\d{8}-\d{6}-[0-9a-f]{8}\.cab", p.name)
    assert re.fullmatch(r"x-y-\d{8}-\d{6}-[0-9a-f]{8}\.cab", new_save_path(tmp_path, "../x/y").name)


def test_a_log_rebuilt_from_records_is_checked_as_a_save_is(tmp_path: Path) -> None:
    """The one rebuild (a table's log in a database, a hall's reply, a fork): the header is checked
    field by field, the moves by shape, the setup first and once; each refusal one sentence."""
    from saves.format import rebuild

    match = new_match(seed=5)
    while match.active() and len(match.moves) < 8:
        step(match)
    moves = [(m.seat, m.command, match.events[m.start : m.end]) for m in match.moves]
    games = {match.game.id: match.game}
    again = rebuild("Table x", dict(match.header), moves, games)
    assert again.events == match.events and len(again.moves) == len(match.moves)
    bad_name = {**match.header, "seats": [{**match.header["seats"][0], "name": "\x1b[2J"}, *match.header["seats"][1:]]}
    cases = {
        "no header": (None, moves),
        "a name": (bad_name, moves),
        "a field": ({**match.header, "evil": 1}, moves),
        "no setup": (dict(match.header), moves[1:]),
        "two setups": (dict(match.header), [moves[0], moves[0]]),
        "a seat": (dict(match.header), [moves[0], (9, moves[1][1], moves[1][2])]),
        "rules": (dict(match.header), [moves[0], (moves[1][0], moves[1][1], [{"t": "Nonsense"}])]),
    }
    for what, (header, records) in cases.items():
        with pytest.raises(SaveError) as refused:
            rebuild("Table x", header, records, games)
        sentence = str(refused.value)
        assert sentence.startswith("Table x") and sentence.endswith(".") and "\n" not in sentence, (what, sentence)
