"""The save file: a match's log, appended record by record as the game goes.

Layout (all integers big-endian)::

    preamble   MAGIC (12 bytes, b"CABINET\\0SAVE") + format version (u16, currently 3)
    record*    kind (1 byte) + sequence number (u32) + body length (u32)
               + CRC32 of the body (u32) + link (8 bytes) + seal (8 bytes) + msgpack body

Record kinds (the letters are pairwise at least two bits apart, so a single
flipped bit in a kind byte never turns one valid kind into another):

    H  header      the match header (``core.engine.make_header``); first, exactly once
    M  move        {"seat": int|None, "command": dict|None, "events": [event...], "at": iso time}
                   one per ``Match.moves`` entry; the first is the setup (seat None)
    C  checkpoint  {"n": events so far, "digest": digest(game.canonical(state)),
                    "state": engine.freeze(state)}
                   after the setup and after every move that crosses a multiple of 50 events;
                   "state" in the first four and where a move crosses a multiple of 200
                   events (since December 2026: older checkpoints have none); and after
                   the move that ends the game, with its state (since 7 December 2026)
    R  result      Outcome.to_plain() + {"at": iso time}; last, once the game is over
                   ("victor", a winner with no seat, since December 2026: older results lack it)

**Each record knows its place.**  Records are numbered from 0 (the header),
and each carries as its *link* the first 8 bytes of the SHA-256 of every byte
of the file before it.  A record duplicated, moved, deleted or swapped with
another is therefore reported at the record where the order breaks, whatever
the record holds.

**A save written here is sealed.**  The seal of a record is a keyed blake2b of
the SHA-256 of the file up to the record's end, its own seal left out, with a
secret key kept in the save's directory (``.cabinet-key``, mode 0600, made by
the first writer there).  The last record's seal so vouches for every byte
before it: a load hashes the records in one piece and checks that one seal, and
reads each record's checksum and link only where it does not hold, to say
where the file was damaged, if it was (issue 35: a hash a record, in Python,
cost a load half what msgpack takes to decode the file; :class:`Chain`).  A save whose
last record's seal holds under its directory's key was written by Cabinet
itself as the game was played, every event coming from the rules' ``decide``:
it is replayed by folding its events, and only those after its last checkpoint
whose state is usable: the state a checkpoint carries (``engine.freeze``) is
taken back (``engine.thaw``, only of the game's own records) where the seal
holds, and checked against the checkpoint's digest; one that does not come
back whole (written under rules whose state had other fields) or does not
match is passed over for the fold, from an earlier checkpoint's state or the
start.  The moves before it are kept unfolded, and the states among them are
made when a replay asks for them (``Match.take_unfolded``).  The states of a
save that is not sealed are never read: its moves are decided again.  Any other save (copied from elsewhere,
edited, written by another version of the format) is *re-derived*: the setup and
every move are decided again from the seed and the recorded commands, and the
first move whose recorded events differ from what the rules make of it is named.
So a load accepts only what the rules could have produced, and costs the usual
fold for the saves Cabinet wrote.  ``verify`` always re-derives.  A save whose
seals hold up to some record under its directory's key and not after it (its
last seal damaged, or records changed since they were written here) is
re-derived too, and a warning says so: it is never passed over in silence.

Format 2 (until December 2026) frames its records alike, but chains them record
by record: ``chain(n) = blake2b(chain(n-1) + frame head(n) + body(n))`` from a
hash of the preamble, the link a record carries being a hash of the chain and
the seal before it, the seal a keyed blake2b of ``chain(n)`` (:class:`Chain2`).
It is still read, each record's link and checksum checked, and a game
continued from it is appended to in format 2.  A database's tables say which
format their logs are of (``saves.postgres``).

Format 1 (no numbers, links or seals) is still read, and always re-derived; a
game continued from it is rewritten in the current format.

The kind is in the frame so a listing can count moves and see whether a result
exists without decoding events (it still reads every body, to check its CRC and
the chain: a listing sees damage anywhere in a file).

A save is untrusted input.  Only a regular file is read (a pipe or a device
could make a read wait, or never end), and at most :data:`MAX_SAVE` bytes of
it.  Each kind of record holds at most what the rules make (:data:`BOUNDS`): a
body is refused past its kind's size before it is read, and decoded strictly
within its kind's limits (no ext types, no bytes, string map keys); every field
of every record is checked, of its type and within its bounds, and a record
with a field no Cabinet writes is refused.  A load decodes the moves one at a
time, each replayed (or decided again) before the next is decoded, so a file
costs what its game costs.  A load never writes to the file.  A record cut off
at the very end of the file (a crash mid-write) is dropped with a warning; any
other damage raises :class:`SaveError` with one sentence.

msgpack is prefix-free, which is what tells a torn tail from a damaged length
field: the bytes of a record cut off mid-write are a strict prefix of one
msgpack value and never decode to a whole value, while a last record whose
length was damaged still holds its whole body (and maybe more records).

Saves hold every hidden card and the seed, which predicts the shuffles to
come: they are created 0600, in directories Cabinet makes 0700.
"""

from __future__ import annotations

import datetime
import errno
import functools
import gc
import getpass
import hashlib
import hmac
import json
import os
import re
import secrets
import socket
import stat
import struct
import sys
import threading
import zlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple, NoReturn

import msgpack

if sys.platform != "win32":  # Windows has no flock: keeping to one writer is then up to the players
    import fcntl

import contextlib

from core import engine
from core.engine import NAME_MAX, Game, Match, Outcome

MAGIC = b"CABINET\x00SAVE"
FORMAT_VERSION = 3
_PREAMBLE = struct.Struct(">12sH")
_HEAD = struct.Struct(">cIII")  # kind, sequence number, body length, CRC32 of the body
_FRAME = struct.Struct(">cIII8s8s")  # the head, the link to the record before, the seal
_FRAME_V1 = struct.Struct(">cII")  # format 1: kind, body length, CRC32 of the body
_NO_SEAL = bytes(8)
_LENGTH = struct.Struct(">I")

#: the secret a save directory's writers seal their saves with (see the module docstring)
KEY_NAME = ".cabinet-key"

HEADER = b"H"
MOVE = b"M"
CHECKPOINT = b"C"
RESULT = b"R"
KIND_NAMES = {HEADER: "header", MOVE: "move", CHECKPOINT: "checkpoint", RESULT: "outcome"}

#: a checkpoint follows each move that crosses a multiple of this many events
CHECKPOINT_EVERY = 50
#: a checkpoint carries the state when it is one of the game's first four, or its move
#: crosses a multiple of this many events: a state weighs as much as a few dozen events in
#: the file, and a load folds at most this many events after the last (issue 35)
STATE_EVERY = 200


class Bound(NamedTuple):
    """What a record of one kind may hold at most: its body's bytes (refused before
    they are read), and the longest string, array and map msgpack may decode in it."""

    size: int
    string: int
    array: int
    map: int


#: A record holds at most what the rules can produce, with room to spare: the
#: largest the four games make are a header of ~0.5 KiB (six 64-character names
#: would make it ~2 KiB), a move of ~1.5 KiB (a deal of a whole deck, names in its
#: events, 36 events; arrays of 108 cards, maps of 11 fields), a checkpoint of
#: ~1.6 KiB with its state (Ministères at six players; six 64-character names would
#: add ~0.3 KiB; arrays of 105 cards, strings of 88 characters, maps of one key but
#: the body's own three, nested 10 deep in 1988's) and an outcome of ~0.25 KiB.  Decoded, a body costs at most ~64 times its
#: bytes (a map or a list a byte), so a record costs at most a few MiB; and a load
#: decodes one move at a time, checking it against the rules before the next.
BOUNDS: dict[bytes, Bound] = {
    HEADER: Bound(size=16 * 1024, string=1024, array=1024, map=64),
    MOVE: Bound(size=64 * 1024, string=1024, array=1024, map=64),
    CHECKPOINT: Bound(size=8 * 1024, string=1024, array=1024, map=4),
    RESULT: Bound(size=4 * 1024, string=1024, array=64, map=8),
}
#: a body longer than this is refused before it is read, whatever its kind
MAX_RECORD = max(b.size for b in BOUNDS.values())
#: a file longer than this is not read: the longest games played (a 10,000-event
#: marathon of L'Agent Jean!) make saves of about 1 MiB
MAX_SAVE = 64 * 1024 * 1024
#: how deep the values of a header field or of a command may nest (the rules nest
#: them three deep at most)
MAX_DEPTH = 8

_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_O_NOCTTY = getattr(os, "O_NOCTTY", 0)
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)

PathLike = str | os.PathLike[str]


class SaveError(Exception):
    """A save that cannot be read; ``str(exc)`` is one sentence naming the file."""


class SaveNotWritable(SaveError):
    """A save (or its directory) that cannot be written: it can still be replayed."""


def _detail(exc: OSError) -> str:
    """What an OSError says, to go inside a sentence ("permission denied")."""
    if isinstance(exc, NoLock):
        return str(exc.strerror)
    return (exc.strerror or str(exc)).lower()


def _not_writable(name: str, exc: OSError) -> SaveNotWritable:
    return SaveNotWritable(f"{name} cannot be written ({_detail(exc)}): it can be replayed, not played on.")


class NoLock(OSError):
    """The lock a writer must hold to write a save cannot be taken (see :class:`_WriterLock`);
    its ``strerror`` says why, in words that go inside a sentence."""


class SaveLocked(SaveError):
    """Another writer (a process, or another writer of this one) is keeping the save;
    ``str(exc)`` is one sentence naming who: "ann is playing this game already (cabinet host, pid 1234)."."""

    def __init__(self, sentence: str, holder: dict[str, Any] | None = None) -> None:
        super().__init__(sentence)
        #: what the holder wrote about itself (pid, user, host, command, since), if it could be read
        self.holder = holder or {}


#: how this process names itself to a second writer refused a save ("cabinet host");
#: the command line sets it, the app leaves "cabinet"
WRITER_COMMAND = "cabinet"


# -- encoding -----------------------------------------------------------------


def now_iso() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


def preamble(version: int = FORMAT_VERSION) -> bytes:
    return _PREAMBLE.pack(MAGIC, version)


def _genesis() -> bytes:
    """Where a format 2 chain starts: a hash of its preamble."""
    return hashlib.blake2b(preamble(2), digest_size=16).digest()


def _seal(chain: bytes, key: bytes | None) -> bytes:
    if key is None:
        return _NO_SEAL
    return hashlib.blake2b(chain, key=key, digest_size=8).digest()


class Chain:
    """Where a file's records stand (format 3): the next sequence number, and a running hash
    of every byte of the file so far.

    Every record framed through it is numbered and carries the first 8 bytes of the hash of
    every byte before it (its link); ``key``, when there is one, seals it: the seal is a keyed
    hash of the hash of the file up to the record, the record's own seal left out (see the
    module docstring).  ``link``: what the last record's seal was made of."""

    version = 3

    def __init__(self, key: bytes | None = None) -> None:
        self.key = key
        self.seq = 0
        #: the hash of every byte of the file so far
        self.running = hashlib.sha256(preamble(3))
        #: what the next record carries: the first bytes of ``running``
        self.prev = self.running.digest()[:8]
        self.link = b""
        self._last: tuple[bytes, bytes, bytes | memoryview] = (b"", b"", b"")

    def frame(self, kind: bytes, data: bytes) -> bytes:
        head = _HEAD.pack(kind, self.seq, len(data), zlib.crc32(data))
        carried = self.prev
        seal = _seal(self.extend(head, data), self.key)
        self.follow(seal)
        return head + carried + seal + data

    def extend(self, head: bytes, data: bytes | memoryview) -> bytes:
        """The next record's head and body taken in: what its seal is made of."""
        sealed = self.running.copy()
        sealed.update(head)
        sealed.update(self.prev)
        sealed.update(data)
        self.link = sealed.digest()
        self._last = (head, self.prev, data)
        self.seq += 1
        return self.link

    def follow(self, seal: bytes) -> None:
        """The seal of the record :meth:`extend` took in: the record is in the file, as it is."""
        head, carried, data = self._last
        running = self.running
        running.update(head)
        running.update(carried)
        running.update(seal)
        running.update(data)
        self.prev = running.digest()[:8]
        self._last = (b"", b"", b"")

    def skip(self, view: memoryview, start: int, last: int, end: int) -> None:
        """The whole records of ``view[start:end]`` taken in at once, the last starting at
        ``last``, from where this chain stands (at ``start``): their places, links and seals
        unchecked.  :meth:`_Reader.sealed_by` checks the last seal, which holds for every
        byte before it; the reader checks each record in turn where it does not."""
        running = self.running
        running.update(view[start:last])  # the records before the last, in one piece
        self.prev = bytes(view[last + _HEAD.size : last + _HEAD.size + 8])  # as the last one carries
        self.extend(bytes(view[last : last + _HEAD.size]), view[last + _FRAME.size : end])
        self.follow(bytes(view[last + _HEAD.size + 8 : last + _FRAME.size]))


class Chain2(Chain):
    """Where a file of format 2 stands: each record linked to the chain before it by its own
    hash, ``chain(n) = blake2b(chain(n-1) + frame head(n) + body(n))``, from a hash of the
    preamble; the next record carries a hash of the chain and the last seal."""

    version = 2

    def __init__(self, key: bytes | None = None) -> None:
        self.key = key
        self.seq = 0
        self.link = _genesis()
        self.prev = self.link[:8]

    def extend(self, head: bytes, data: bytes | memoryview) -> bytes:
        self.link = hashlib.blake2b(self.link + head + data, digest_size=16).digest()
        self.seq += 1
        return self.link

    def follow(self, seal: bytes) -> None:
        # the seal is hashed in too, so that a damaged seal is seen at the next record
        self.prev = hashlib.blake2b(self.link + seal, digest_size=8).digest()


def chain_for(version: int, key: bytes | None = None) -> Chain:
    """A new chain of save format ``version`` (2 or 3)."""
    return Chain2(key) if version == 2 else Chain(key)


def encode_record(kind: bytes, body: dict[str, Any], chain: Chain) -> bytes:
    """One framed record, the next of ``chain``.  Raises ValueError, in words that
    complete "Cannot save x.cab: ...", for a record the reader would refuse (too
    large for its kind, a header it does not accept): a save is never written
    that its reader then refuses."""
    if kind not in KIND_NAMES:
        raise ValueError(f"unknown record kind {kind!r}")
    if kind == HEADER:
        try:
            check_header(body)
        except BadRecord as exc:
            raise ValueError(exc.what) from None
    data = msgpack.packb(body, use_bin_type=True)
    bound = BOUNDS[kind].size
    if len(data) > bound:
        raise ValueError(f"its {KIND_NAMES[kind]} record would be {len(data)} bytes, over the {bound} a save may hold")
    return chain.frame(kind, data)


def _move_body(match: Match, index: int, at: str) -> dict[str, Any]:
    move = match.moves[index]
    return {
        "seat": move.seat,
        "command": move.command,
        "events": match.events[move.start : move.end],
        "at": at,
    }


def _checkpoint_due(index: int, start: int, end: int, ends: bool = False) -> bool:
    """Whether a checkpoint follows move ``index`` (events ``start`` to ``end``); ``ends``:
    the move ends the game."""
    return ends or index == 0 or start // CHECKPOINT_EVERY != end // CHECKPOINT_EVERY


def _state_due(start: int, end: int, ends: bool = False) -> bool:
    """Whether the checkpoint after a move of events ``start`` to ``end`` carries the state:
    always after the move that ends the game, so that a finished game opens without a fold."""
    return ends or end < 4 * CHECKPOINT_EVERY or start // STATE_EVERY != end // STATE_EVERY


def _checkpoint_body(match: Match, state: Any, n: int, with_state: bool = True) -> dict[str, Any]:
    body: dict[str, Any] = {"n": n, "digest": engine.digest(match.game.canonical(state))}
    if not with_state:
        return body
    try:
        frozen = engine.freeze(state)
        if len(msgpack.packb(frozen, use_bin_type=True)) <= BOUNDS[CHECKPOINT].size - 64:
            body["state"] = frozen
    except (TypeError, ValueError, OverflowError):  # a state that cannot be written down: the digest alone
        pass
    return body


def _result_body(outcome: Outcome, at: str) -> dict[str, Any]:
    return {**outcome.to_plain(), "at": at}


def _ends(match: Match, index: int) -> bool:
    """Whether ``match.moves[index]`` is the move that ended the game."""
    return match.outcome is not None and index == len(match.moves) - 1


def _move_records(match: Match, index: int, at: str, state: Any, chain: Chain) -> bytes:
    """The move record of ``match.moves[index]``, then its checkpoint if one is due."""
    move = match.moves[index]
    out = encode_record(MOVE, _move_body(match, index, at), chain)
    ends = _ends(match, index)
    if _checkpoint_due(index, move.start, move.end, ends):
        body = _checkpoint_body(match, state, move.end, _state_due(move.start, move.end, ends))
        out += encode_record(CHECKPOINT, body, chain)
    return out


def encode_match(
    match: Match, times: list[str | None] | None = None, key: bytes | None = None, version: int = FORMAT_VERSION
) -> tuple[bytes, Chain]:
    """The whole file for ``match`` (preamble, header, moves, checkpoints,
    outcome) in save format ``version``, sealed with ``key``; and the chain, to append after it."""
    times = list(times or [])
    chain = chain_for(version, key)
    out = [preamble(version), encode_record(HEADER, match.header, chain)]
    last_at = now_iso()
    for i, move in enumerate(match.moves):
        at = (times[i] if i < len(times) else None) or now_iso()
        last_at = at
        due = _checkpoint_due(i, move.start, move.end, _ends(match, i))
        state = match.state_at(move.end) if due else None
        out.append(_move_records(match, i, at, state, chain))
    outcome = match.outcome
    if outcome is not None:
        out.append(encode_record(RESULT, _result_body(outcome, last_at), chain))
    return b"".join(out), chain


# -- records as a store keeps them --------------------------------------------------


class StoredRecord(NamedTuple):
    """One record of a log as a store other than a file keeps it (a database row):
    the frame's fields and the body's bytes, so that the log's bytes are given back
    exactly, checksum, link and seal included."""

    seq: int
    kind: bytes
    crc: int
    link: bytes
    seal: bytes
    body: bytes


def split_records(data: bytes, whole: bool = True, version: int = FORMAT_VERSION) -> list[StoredRecord]:
    """The records of a log's bytes as they are framed (format 2 and 3 alike), with the
    preamble of format ``version`` when ``whole``, else records alone (what an append
    adds).  Nothing is checked but the framing: the bytes come from a writer, or from a
    load that checked them.  Raises ValueError for bytes that are not whole records."""
    pos = 0
    if whole:
        if data[: _PREAMBLE.size] != preamble(version):
            raise ValueError(f"not a log of save format {version}")
        pos = _PREAMBLE.size
    records = []
    while pos < len(data):
        if pos + _FRAME.size > len(data):
            raise ValueError(f"a record cut off at byte {pos}")
        kind, seq, length, crc, link, seal = _FRAME.unpack_from(data, pos)
        start = pos + _FRAME.size
        if start + length > len(data):
            raise ValueError(f"a record cut off at byte {pos}")
        records.append(StoredRecord(seq, kind, crc, link, seal, data[start : start + length]))
        pos = start + length
    return records


def format_of(data: bytes) -> int:
    """The save format of a log's bytes that a writer made, or a load read (2 or 3): its
    preamble's.  Raises ValueError for bytes that begin otherwise."""
    for version in (FORMAT_VERSION, 2):
        if data[: _PREAMBLE.size] == preamble(version):
            return version
    raise ValueError("not a log of save format 2 or 3")


def join_records(
    records: Iterable[tuple[int, bytes, int, bytes, bytes, bytes]], version: int = FORMAT_VERSION
) -> bytes:
    """A log's bytes (preamble of format ``version`` and records), as a save file holds
    them, from :class:`StoredRecord`'s fields (a table's rows as they are fetched)."""
    pack = _FRAME.pack
    return preamble(version) + b"".join(
        [pack(kind, seq, len(body), crc, link, seal) + body for seq, kind, crc, link, seal, body in records]
    )


#: the bytes a log takes besides its records' bodies: the preamble, and a frame a record
LOG_PREAMBLE = _PREAMBLE.size
RECORD_FRAME = _FRAME.size


# -- the directory's key and modes -------------------------------------------------


def _owned(st: os.stat_result) -> bool:
    return not hasattr(os, "geteuid") or st.st_uid == os.geteuid()


def _narrow(
    path: PathLike, flags: int, ok: Callable[[int], bool], mode: Callable[[int], int], follow: bool = False
) -> bool:
    """Narrow the mode of ``path``, ours, as ``mode`` says, when ``ok`` says its mode
    is the right kind of file; through a descriptor of what was checked, and unless
    ``follow``, never through a symbolic link (a link found among the saves may name
    anybody's file).  True when it had to be narrowed (and was)."""
    try:
        fd = os.open(path, flags | (0 if follow else _O_NOFOLLOW) | _O_NONBLOCK | _O_CLOEXEC)
    except OSError:
        return False  # a link, or not ours to open
    try:
        st = os.fstat(fd)
        if not ok(st.st_mode) or not _owned(st) or not st.st_mode & 0o077:
            return False
        os.fchmod(fd, mode(st.st_mode))
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def private_dir(directory: PathLike) -> Path:
    """Make ``directory`` (and missing parents) with mode 0700, and narrow it to
    0700 if it is ours and others may enter it.  Raises OSError."""
    directory = Path(directory)
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    # the directory the user named (a flag, the environment, the data directory), so
    # followed if it is a link; not ours to change: left as it is (its files are 0600 all the same)
    _narrow(
        directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0), stat.S_ISDIR, lambda m: m & 0o700 | 0o700, follow=True
    )
    return directory


def tighten(path: PathLike) -> bool:
    """Narrow a save (or a file beside it) of ours that others may read to 0600,
    never following a symbolic link; True when it had to be (and could be)."""
    return _narrow(path, os.O_RDONLY, stat.S_ISREG, lambda m: 0o600)


def open_to_others(path: PathLike) -> str | None:
    """A sentence when users other than its owner may read the save, else None."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    if not mode & 0o044:
        return None
    name = Path(path).name
    return (
        f"other users of this machine can read {name} (mode {mode & 0o777:o}), and with it every hidden "
        f"card and the shuffles to come: chmod 600 it."
    )


def dir_key(directory: PathLike, create: bool = False) -> bytes | None:
    """The secret of a save directory (see the module docstring), made when
    ``create`` and missing; None when there is none or it cannot be read."""
    path = Path(directory) / KEY_NAME
    try:
        # a regular file only, not through a link: a pipe would keep the read waiting
        fd = os.open(path, os.O_RDONLY | _O_NOFOLLOW | _O_NONBLOCK | _O_CLOEXEC)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            key = os.read(fd, 64)
        finally:
            os.close(fd)
        return key if len(key) == 32 else None
    except FileNotFoundError:
        if not create:
            return None
    except OSError:
        return None
    # made aside and linked into place: two writers starting at once agree on one key
    tmp = path.with_name(f"{KEY_NAME}.{secrets.token_hex(4)}.tmp")
    key = secrets.token_bytes(32)
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(key)
            f.flush()
            os.fsync(f.fileno())
        try:
            os.link(tmp, path)
        except FileExistsError:
            return dir_key(directory)
    except OSError:
        return None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
    return key


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write(path: PathLike, data: bytes) -> None:
    """Write ``data`` to a temp file in the same directory, fsync it, and
    ``os.replace`` it over ``path``: readers see the old file or the new one."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)  # a save holds secrets
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    _fsync_dir(path.parent)


def rewrite(path: PathLike, match: Match, times: list[str | None] | None = None) -> Chain:
    """Write the whole match to ``path`` atomically (take-back cut-backs,
    forks "play on from here", compaction), sealed with its directory's key.
    ``times``: each move's "at".  Returns the chain, to append after it.
    Raises OSError."""
    path = Path(path)
    data, chain = encode_match(match, times, dir_key(path.parent, create=True))
    atomic_write(path, data)
    return chain


# -- one writer a save ---------------------------------------------------------


def lock_path(path: PathLike) -> Path:
    """The file beside a save that its writer holds locked, and in which it says who it is."""
    path = Path(path)
    return path.with_name(path.name + ".lock")


def _whoami() -> dict[str, Any]:
    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no login name (a container, no passwd entry)
        user = ""
    return {
        "pid": os.getpid(),
        "user": user,
        "host": socket.gethostname(),
        "command": WRITER_COMMAND,
        "since": now_iso(),
    }


def _holder_sentence(holder: dict[str, Any], name: str) -> str:
    pid = holder.get("pid")
    if not isinstance(pid, int):
        return f"Someone is playing this game already (another Cabinet is writing {name})."
    user = str(holder.get("user") or "someone")
    command = str(holder.get("command") or "cabinet")
    host = holder.get("host")
    where = f" on {host}" if isinstance(host, str) and host and host != socket.gethostname() else ""
    return f"{user} is playing this game already ({command}{where}, pid {pid})."


def _read_holder(fd: int) -> dict[str, Any]:
    try:
        data = os.pread(fd, 4096, 0)
        holder = json.loads(data.decode("utf-8"))
    except (OSError, ValueError):
        return {}
    return holder if isinstance(holder, dict) else {}


def held(path: PathLike) -> bool:
    """Whether a writer holds the save at ``path`` now (its lock file is locked).  The
    probe takes a shared lock for an instant: a writer taking the save in that instant
    is refused as if somebody held it."""
    if sys.platform == "win32":
        return False
    try:
        fd = os.open(lock_path(path), os.O_RDONLY | _O_NOFOLLOW | _O_NONBLOCK | _O_CLOEXEC)
    except OSError:
        return False  # no lock file (a writer that let go removed it), or one no writer can take: nobody writes it
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError as exc:
        return exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES)
    finally:
        os.close(fd)  # and with it the probe's own lock
    return False


def who_holds(path: PathLike) -> str | None:
    """The sentence naming who writes the save at ``path`` now ("bob is playing this game
    already (cabinet play, pid 1234)."), or None when nobody holds it (see :func:`held`)."""
    if sys.platform == "win32":
        return None
    try:
        fd = os.open(lock_path(path), os.O_RDONLY | _O_NOFOLLOW | _O_NONBLOCK | _O_CLOEXEC)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                return _holder_sentence(_read_holder(fd), Path(path).name)
        return None
    finally:
        os.close(fd)


class _WriterLock:
    """An exclusive ``flock`` on ``SAVE.lock``, held as long as the writer lives.

    The lock is on a file of its own because a rewrite replaces the save itself
    (a new inode, which a lock on the old one would not guard).  The kernel drops
    the lock when the process dies, however it dies; the file then stays behind
    with a stale note, which the next writer overwrites.  A clean release removes
    it, and whoever locks checks that the file it locked is still the one at the
    path (a writer that opened it just before it was removed would otherwise hold
    a lock nobody else can see).

    A writer that cannot take the lock does not write: two writers that both went
    on without it would interleave their moves in the file.  So the lock must be a
    regular file, never reached through a symbolic link (its note would be written
    into whatever the link names), in a directory the writer can write, on a file
    system that has locks; else :class:`NoLock` says why.
    """

    def __init__(self, save: Path) -> None:
        self.path = lock_path(save)
        self.fd: int | None = None
        if sys.platform == "win32":
            return  # no flock on this platform: keeping to one writer is up to the players
        for _ in range(10):
            fd = self._open()
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                    os.close(fd)
                    raise self._no_lock(f"it cannot be locked here: {_detail(exc)}") from None
                holder = _read_holder(fd)
                os.close(fd)
                raise SaveLocked(_holder_sentence(holder, save.name), holder) from None
            try:
                here = os.stat(self.path, follow_symlinks=False)
                mine = os.fstat(fd)
                same = (here.st_dev, here.st_ino) == (mine.st_dev, mine.st_ino)
            except OSError:
                same = False
            if same:
                self.fd = fd
                break
            os.close(fd)  # removed (or replaced) between our open and our lock: again
        if self.fd is None:
            raise self._no_lock("it was replaced again and again while it was being taken")
        note = json.dumps(_whoami()).encode("utf-8")
        try:
            os.ftruncate(self.fd, 0)
            os.pwrite(self.fd, note, 0)
        except OSError:
            pass  # the lock holds all the same; a refusal just cannot say who

    def _no_lock(self, why: str) -> NoLock:
        return NoLock(errno.ENOLCK, f"its lock {self.path.name} cannot be taken: {why}")

    def _open(self) -> int:
        """The lock file, opened (made if missing) without following a link; NoLock if it cannot be."""
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | _O_NOFOLLOW | _O_NONBLOCK | _O_CLOEXEC, 0o600)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise self._no_lock("it is a symbolic link, which Cabinet does not follow") from None
            if exc.errno == errno.EISDIR:
                raise self._no_lock("it is a directory") from None
            raise self._no_lock(_detail(exc)) from None
        try:
            mode = os.fstat(fd).st_mode
        except OSError as exc:
            os.close(fd)
            raise self._no_lock(_detail(exc)) from None
        if not stat.S_ISREG(mode):
            os.close(fd)
            raise self._no_lock(f"it is {_kind_of_file(mode)}")
        return fd

    def release(self) -> None:
        fd, self.fd = self.fd, None
        if fd is None:
            return
        with contextlib.suppress(OSError):
            os.unlink(self.path)  # while still locked: nobody can take a lock on it meanwhile
        os.close(fd)


class Log:
    """A table's records, held by their one writer: what a :class:`SaveWriter` writes to.

    A save file under its lock (:class:`FileLog`), or a table in a database under
    its lease (``saves.postgres``).  Either way the records are the same bytes
    (the preamble, then framed records, see the module docstring): a log is
    replaced whole or appended to, never changed in place.  The methods raise
    OSError when the place cannot be written (a database out of reach is one too).
    """

    #: how sentences name it ("g.cab", "table k7f3mb")
    name: str = ""
    #: the save file, for a log that is one; None for a table in a database
    path: Path | None = None
    #: the save format it is written in (a database's table: the one it was made in, ``saves.postgres``)
    version: int = FORMAT_VERSION

    def key(self) -> bytes | None:
        """The secret this place's writers seal with, made if missing."""
        raise NotImplementedError

    def replace(self, data: bytes) -> None:
        """The whole log (preamble and records) put in place of the old one, all at once."""
        raise NotImplementedError

    def append(self, data: bytes, durable: bool) -> None:
        """Records after the last; ``durable``: on disk (fsync, commit) before this returns."""
        raise NotImplementedError

    def resume_at(self, end: int) -> bool:
        """Ready to append after the first ``end`` bytes of the log, which a load read:
        True when the log ends there; False when it is shorter (to be replaced whole).
        Raises SaveError when it is longer (somebody wrote to it since)."""
        raise NotImplementedError

    @property
    def ready(self) -> bool:
        """Whether records can be appended now (False after a failure, until a replace)."""
        raise NotImplementedError

    def drop(self) -> None:
        """Give up the place written to after a failure (the hold is kept)."""

    @property
    def lost(self) -> bool:
        """Whether the hold itself is gone (a lease whose connection ended): this writer may
        write no more, and another may have taken the log.  A file's lock is never lost."""
        return False

    def release(self) -> None:
        """Let the log go: another writer may take it.  Idempotent."""
        raise NotImplementedError

    # A log may be written later than asked, in order (``net.offloop.QueuedLog``: off an
    # event loop); these logs are written before their methods return.

    @property
    def pending(self) -> bool:
        """Whether writes asked for are not done yet."""
        return False

    def when_written(self, callback: Callable[[], None]) -> None:
        """``callback()`` once every write asked for so far is done (now, if none is pending)."""
        callback()


class FileLog(Log):
    """A save file, held under its exclusive lock (:class:`_WriterLock`) from the start."""

    path: Path

    def __init__(self, path: PathLike) -> None:
        """Raises :class:`SaveLocked` when another writer keeps the save, and
        :class:`NoLock` (an OSError) when its lock cannot be taken."""
        self.path = Path(path)
        self.name = self.path.name
        self._file: BinaryIO | None = None
        self._hold = _WriterLock(self.path)

    def key(self) -> bytes | None:
        return dir_key(self.path.parent, create=True)

    def replace(self, data: bytes) -> None:
        self.drop()
        atomic_write(self.path, data)
        self._file = open(self.path, "ab")  # noqa: SIM115 - held open by the log until drop()

    def append(self, data: bytes, durable: bool) -> None:
        assert self._file is not None
        self._file.write(data)
        self._file.flush()
        if durable:
            os.fsync(self._file.fileno())

    def resume_at(self, end: int) -> bool:
        # a file made read-only is not to be changed, not even by a rewrite into its place
        if self.path.exists() and not os.access(self.path, os.W_OK):
            raise PermissionError(errno.EACCES, "permission denied")
        f = open(self.path, "ab")  # noqa: SIM115 - kept as the log's file when its size is the one read
        size = os.fstat(f.fileno()).st_size
        if size == end:
            tighten(self.path)
            self._file = f
            return True
        f.close()
        if size > end:
            raise SaveError(f"{self.name} has changed since it was read (another program wrote to it): open it again.")
        return False

    @property
    def ready(self) -> bool:
        return self._file is not None

    def drop(self) -> None:
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.close()
            self._file = None

    def release(self) -> None:
        self.drop()
        self._hold.release()


class SaveWriter:
    """Keeps a save in step with a live match.

    ``SaveWriter(path, match)`` writes the match as it stands (atomically);
    ``SaveWriter.resume(loaded)`` continues a loaded save, appending to it
    (rewriting it first if its tail was torn).  In place of a path, a
    :class:`Log` held already (a table in a database) is written the same way.

    Saving is a step of each move, taken by whoever plays it (``table.Table``):
    :meth:`record` appends a move just played, flushed and fsynced, with
    checkpoints and the outcome record; :meth:`cut_back` rewrites the save after
    a take-back.  A move played on the match alone is not written until the next
    one recorded (which then rewrites the save whole).

    Writing never raises into the game: a failure is kept in :attr:`error`
    (and passed to ``on_error``), and the next move tries a full rewrite.

    One writer a save: a writer holds an exclusive lock on the save (see
    :class:`_WriterLock`; a lease in a database) from the moment it is made until
    :meth:`close` (or the end of the process); making a second writer of the same
    save, in this process or another, raises :class:`SaveLocked` naming the first.
    Call :meth:`close` when the game is left.
    """

    def __init__(
        self,
        path: PathLike | Log,
        match: Match,
        *,
        times: list[str | None] | None = None,
        on_error: Callable[[str], None] | None = None,
        durable: bool = True,
    ) -> None:
        """Raises :class:`SaveNotWritable` when the save cannot be created there
        (its lock cannot be taken, the directory cannot be written, the match's
        header is not one a save may hold)."""
        if isinstance(path, Log):
            log = path
        else:
            try:
                log = FileLog(path)
            except OSError as exc:  # its lock cannot be made: nothing is written unguarded
                raise SaveNotWritable(
                    f"Cannot save {Path(path).name} in {Path(path).parent}: {_detail(exc)}."
                ) from None
        self._init(log, match, times, on_error)
        self.durable = durable
        where = f" in {log.path.parent}" if log.path is not None else ""
        try:
            self._rewrite_all()
        except OSError as exc:
            log.release()
            raise SaveNotWritable(f"Cannot save {log.name}{where}: {_detail(exc)}.") from None
        except ValueError as exc:  # a record its reader would refuse (encode_record)
            log.release()
            raise SaveNotWritable(f"Cannot save {log.name}{where}: {exc}.") from None
        except BaseException:
            log.release()
            raise

    @classmethod
    def resume(cls, loaded: Loaded, *, on_error: Callable[[str], None] | None = None) -> SaveWriter:
        """Continue the save ``loaded`` came from, appending to it.

        Raises :class:`SaveLocked` when another writer keeps the save,
        :class:`SaveNotWritable` when the file (or, for a file that must be
        rewritten, its directory) cannot be written, and :class:`SaveError`
        when the file has grown since it was loaded (somebody wrote to it
        meanwhile: load it again rather than write over their moves).
        """
        source, path = loaded.source, loaded.path
        self = cls.__new__(cls)
        try:
            if isinstance(source, InStore):
                log: Log = source.hold()
            elif path is not None:
                log = FileLog(path)
            else:
                raise SaveError(
                    f"{loaded.name} was read from neither a file nor a store: there is nothing to write on."
                )
        except OSError as exc:  # its lock cannot be made: nothing is written unguarded
            raise _not_writable(loaded.name, exc) from None
        self._init(log, loaded.match, loaded.times, on_error)
        try:
            self._open_to_append(loaded)
        except OSError as exc:
            log.release()
            raise _not_writable(log.name, exc) from None
        except ValueError as exc:  # a record its reader would refuse (encode_record)
            log.release()
            raise SaveNotWritable(f"{log.name} cannot be written ({exc}): it can be replayed, not played on.") from None
        except BaseException:
            log.release()
            raise
        return self

    def _open_to_append(self, loaded: Loaded) -> None:
        # appended to only when sealed here: a save from elsewhere is rewritten whole, so that
        # the states its checkpoints carry, never read (its moves were decided again), are
        # never sealed here as if this directory's writers had written them
        if loaded.clean and loaded.chain is not None and self._log.resume_at(loaded.end) and loaded.sealed:
            self._chain = loaded.chain
            self._chain.key = self._log.key()
            self._moves_written = len(self.match.moves)
            self._events_written = len(self.match.events)
            self._outcome_written = self.match.outcome is not None
            return
        self._rewrite_all()

    def _init(
        self, log: Log, match: Match, times: list[str | None] | None, on_error: Callable[[str], None] | None
    ) -> None:
        self._log = log
        #: the save file (None for a table in a database), and how sentences name it
        self.path = log.path
        self.name = log.name
        self.match = match
        self.times: list[str | None] = list(times or [])
        self.error: str | None = None
        self.on_error = on_error
        #: fsync every move (interactive play); headless simulations only flush
        self.durable = True
        self._chain = chain_for(log.version)
        self._lock = threading.RLock()
        self._closed = False
        self._moves_written = 0
        self._events_written = 0
        self._outcome_written = False

    # -- writing --------------------------------------------------------------

    def _rewrite_all(self) -> None:
        with self._lock:
            n = len(self.match.moves)
            times = self.times[:n]
            times += [now_iso() for _ in range(n - len(times))]
            self.times = times
            data, self._chain = encode_match(self.match, times, self._log.key(), self._log.version)
            self._log.replace(data)
            self._moves_written = n
            self._events_written = len(self.match.events)
            self._outcome_written = self.match.outcome is not None
            self.error = None

    def record(self, move: engine.Move) -> None:
        """Write ``move``, just played (the match's last): appended, or the save rewritten
        whole when it is not in step with the match (a failure before, a move played
        without being recorded, a cut-back).  Never raises: a failure is kept in
        :attr:`error` and passed to ``on_error``.  Nothing once closed."""
        with self._lock:
            if self._closed:
                return
            try:
                self._append(move)
            except Exception as exc:  # noqa: BLE001 - never break the game over a save: the failure is reported
                self._fail(exc)

    def cut_back(self) -> None:
        """Rewrite the save from the match, just cut back (a take-back).  Never raises: a
        failure is kept in :attr:`error` and passed to ``on_error`` (the next move recorded
        tries the rewrite again).  Nothing once closed."""
        with self._lock:
            if self._closed:
                return
            try:
                self._rewrite_all()
            except Exception as exc:  # noqa: BLE001 - never break the game over a save: the failure is reported
                self._fail(exc, "Could not cut {name} back: {detail}.")

    def _append(self, move: engine.Move) -> None:
        match = self.match
        index = len(match.moves) - 1
        in_step = (
            self.error is None
            and self._log.ready
            and index == self._moves_written
            and match.moves[index] is move
            and move.start == self._events_written
            and not self._outcome_written
        )
        self.times = self.times[:index] + [None] * (index - len(self.times)) + [now_iso()]
        if not in_step:
            self._rewrite_all()
            return
        at = self.times[index] or now_iso()
        data = _move_records(match, index, at, match.state, self._chain)
        outcome = match.outcome
        if outcome is not None:
            data += encode_record(RESULT, _result_body(outcome, at), self._chain)
        self._log.append(data, self.durable)
        self._moves_written = index + 1
        self._events_written = move.end
        self._outcome_written = outcome is not None

    def _fail(self, exc: Exception, sentence: str = "Could not save {name}: {detail}.") -> None:
        detail = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        self.error = sentence.format(name=self.name, detail=detail)
        self._log.drop()
        if self.on_error is not None:
            self.on_error(self.error)

    @property
    def lost(self) -> bool:
        """Whether this writer's hold of the save is gone (a lease lost with its connection)."""
        return self._log.lost

    def write_with(self, wrap: Callable[[Log, Callable[[Exception], None]], Log]) -> None:
        """From now on write through ``wrap(log, failed)``: a log that writes later than
        asked (off an event loop), which tells ``failed`` of a write that failed, as a
        write that raised is told (``error``, ``on_error``, the next move rewrites)."""
        with self._lock:
            self._log = wrap(self._log, self._failed_later)

    def _failed_later(self, exc: Exception) -> None:
        with self._lock:
            if not self._closed:
                self._fail(exc)

    @property
    def pending(self) -> bool:
        """Whether moves played are not written yet (a log written later than asked)."""
        return self._log.pending

    def when_written(self, callback: Callable[[], None]) -> None:
        """``callback()`` once every move played so far is written (on disk, committed), or
        its write failed: now, if none is pending."""
        self._log.when_written(callback)

    def close(self) -> None:
        """Stop writing and let the save go (another writer may then take it); idempotent."""
        with self._lock:
            self._closed = True
            self._log.release()

    def __enter__(self) -> SaveWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# -- decoding -----------------------------------------------------------------


class BadRecord(Exception):
    """A badly-shaped record: the message completes "...: <message>."."""

    def __init__(self, message: str, what: str | None = None) -> None:
        super().__init__(message)
        #: the same without "there" (for the writer: "its header has ...")
        self.what = what or message


def _no_ext(code: int, data: bytes) -> Any:
    raise BadRecord("the record there holds a msgpack extension type")


def _string_keys(pairs: list[tuple[Any, Any]]) -> dict[str, Any]:
    """Every map is built here: its keys must be strings (msgpack lets bytes through)."""
    for key, _ in pairs:
        if type(key) is not str:
            raise BadRecord("the record there has a map key that is not a string")
    return dict(pairs)


#: how every record body is decoded: a save file is untrusted input (the sizes
#: allowed are each kind's, see BOUNDS)
_STRICT: dict[str, Any] = dict(
    raw=False,
    strict_map_key=True,
    use_list=True,
    ext_hook=_no_ext,
    max_ext_len=0,
    object_pairs_hook=_string_keys,
)
#: each kind's limits, as msgpack takes them; no record holds bytes
_LIMITS: dict[bytes, dict[str, int]] = {
    kind: dict(max_str_len=b.string, max_bin_len=0, max_array_len=b.array, max_map_len=b.map)
    for kind, b in BOUNDS.items()
}


def decode_body(data: bytes | memoryview, kind: bytes = MOVE) -> dict[str, Any]:
    """Strictly decode one record body of ``kind`` (within its limits; a move's by
    default); raises BadRecord."""
    if len(data) > BOUNDS[kind].size:
        raise BadRecord(f"the {KIND_NAMES[kind]} record there is longer than any the rules make")
    try:
        value = msgpack.unpackb(data, **_STRICT, **_LIMITS[kind])
    except BadRecord:
        raise
    except ValueError as exc:
        if "exceeds max" in str(exc):  # a string, an array or a map over its kind's limit
            raise BadRecord(f"the {KIND_NAMES[kind]} record there holds more than any the rules make") from None
        raise BadRecord("the record there is not valid msgpack") from None
    except Exception:  # noqa: BLE001 - what else msgpack raises on hostile bytes (TypeError, its own, ...)
        raise BadRecord("the record there is not valid msgpack") from None
    if not isinstance(value, dict):
        raise BadRecord("the record there is not a map")
    return value


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


#: characters no text of a save may hold: C0 and C1 controls (a terminal takes some
#: of them for commands), and the line and paragraph separators
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def _text(v: Any, longest: int) -> bool:
    """A string of at most ``longest`` characters, none of them a control character."""
    return type(v) is str and len(v) <= longest and _CONTROL.search(v) is None


#: The longest name a seat may have in a save.  Until the bound the entry points
#: use is in core (issue 32), it lives here alone: name_problem is the one place
#: that says what a name may be.
#: a seat's name in a save: above core.engine.NAME_MAX, where names enter (the command line,
#: New game, the hall), so that a save of an older Cabinet, which bounded names less, opens
MAX_NAME = 64
assert MAX_NAME >= NAME_MAX


def name_problem(name: Any) -> str | None:
    """What is wrong with ``name`` as a seat's name in a save ("a seat name longer
    than 64 characters"), or None."""
    if type(name) is not str:
        return "a seat without a name"
    if len(name) > MAX_NAME:
        return f"a seat name longer than {MAX_NAME} characters"
    if _CONTROL.search(name) is not None:
        return "a seat name with a control character in it"
    return None


def _plain(value: Any, depth: int = MAX_DEPTH, nodes: int = 4096) -> bool:
    """Whether ``value`` is plain data as the rules make it (maps with string keys,
    lists, strings, ints, booleans, None), nested at most ``depth`` deep and made of
    at most ``nodes`` values.  Looked at level by level: never recursive."""
    level = [value]
    seen = 0
    for _ in range(depth + 1):
        below: list[Any] = []
        for v in level:
            seen += 1
            if type(v) is dict:
                below.extend(v.values())
            elif type(v) is list:
                below.extend(v)
            elif not (v is None or type(v) in (str, int, bool)):
                return False
        if seen + len(below) > nodes:
            return False
        if not below:
            return True
        level = below
    return False


#: the fields of a header, each with what it must be; a header with another is refused
_HEADER_FIELDS: dict[str, Callable[[Any], bool]] = {
    "game": lambda v: _text(v, 64) and v != "",
    "rules_version": lambda v: _is_int(v) and 0 <= v < 2**31,
    "players": lambda v: _is_int(v) and 1 <= v <= 64,
    "seats": lambda v: type(v) is list,
    "variants": lambda v: type(v) is dict and len(v) <= 64 and all(_text(k, 64) and _text(x, 64) for k, x in v.items()),
    "seed": _is_int,
    "created": lambda v: _text(v, 64),
    "app_version": lambda v: _text(v, 64),
    "bot_seed": _is_int,
    # a fork's: the save it was forked from (a file's name), and where
    "parent": lambda v: _text(v, 255),
    "forked_at": lambda v: _is_int(v) and 0 <= v < 2**31,
    # a served table's id
    "table": lambda v: _text(v, 64),
    # a stacked deck (tests, the rulebook's examples): each game checks its cards
    "arranged": lambda v: type(v) is dict and _plain(v, depth=4, nodes=4096) and _short_strings(v),
}
#: the fields a header may lack, each with how a sentence names it
_OPTIONAL_FIELDS = {
    "app_version": "app version",
    "bot_seed": "bot seed",
    "parent": "parent save",
    "forked_at": "fork point",
    "table": "table id",
    "arranged": "arranged deck",
}
#: what every seat has, besides the game's own seat options (checked against the game when it is known)
SEAT_FIELDS = ("name", "kind", "level")


def _short_strings(value: Any, longest: int = 64) -> bool:
    """Every string in ``value`` (plain data, see _plain), keys too, is short text."""
    level = [value]
    while level:
        below: list[Any] = []
        for v in level:
            if type(v) is dict:
                if not all(_text(k, longest) for k in v):
                    return False
                below.extend(v.values())
            elif type(v) is list:
                below.extend(v)
            elif type(v) is str and not _text(v, longest):
                return False
        level = below
    return True


def _shown(key: str) -> str:
    return repr(key) if _text(key, 32) else "a long or unprintable one"


def check_header(h: dict[str, Any]) -> None:
    """Every field of a header, of its type and within its bounds; raises BadRecord."""

    def bad(what: str) -> NoReturn:
        raise BadRecord(f"the header there has {what}", f"its header would have {what}")

    def need(cond: bool, what: str) -> None:
        if not cond:
            bad(what)

    for key in h:
        need(key in _HEADER_FIELDS, f"a field no Cabinet writes ({_shown(key)})")
    need(_HEADER_FIELDS["game"](h.get("game")), "no game id")
    need(_HEADER_FIELDS["rules_version"](h.get("rules_version")), "no rules version")
    players = h.get("players")
    need(_HEADER_FIELDS["players"](players), "no valid player count")
    seats = h.get("seats")
    if not (isinstance(seats, list) and len(seats) == players):
        bad("a seat list that does not match its player count")
    for s in seats:
        need(type(s) is dict and len(s) <= 16, "a seat that is not a map")
        problem = name_problem(s.get("name"))
        need(problem is None, problem or "")
        need(_text(s.get("kind", "human"), 16), "a seat of no known kind")
        need(s.get("level") is None or _text(s.get("level"), 32), "a seat with a bad bot level")
        for key, value in s.items():
            if key not in SEAT_FIELDS:
                need(_text(key, 32) and (value is None or _text(value, 64)), "a seat option that is not a short text")
    need(_HEADER_FIELDS["variants"](h.get("variants")), "bad variants")
    need(_is_int(h.get("seed")), "no seed")
    need(_text(h.get("created"), 64), "no creation date")
    for key, what in _OPTIONAL_FIELDS.items():
        if key in h:
            need(_HEADER_FIELDS[key](h[key]), f"a bad {what}")


_MOVE_FIELDS = frozenset(("seat", "command", "events", "at"))
_CHECKPOINT_FIELDS = frozenset(("n", "digest", "state"))
_RESULT_FIELDS = frozenset(("winners", "reason", "scores", "victor", "at"))


def check_move(m: dict[str, Any], players: int, sealed: bool = False) -> None:
    if not _MOVE_FIELDS.issuperset(m):
        raise BadRecord("the move record there has a field no Cabinet writes")
    seat = m.get("seat", 0)
    if "seat" not in m or not (seat is None or (_is_int(seat) and 0 <= seat < players)):
        raise BadRecord("the move record there has no valid seat")
    command = m.get("command", 0)
    if "command" not in m or not (
        command is None or (type(command) is dict and (sealed or _plain(command, nodes=256)))
    ):
        raise BadRecord("the move record there has no valid command")
    if (seat is None) != (command is None):
        raise BadRecord("the move record there has a seat without a command")
    events = m.get("events")
    if not isinstance(events, list) or not all(isinstance(e, dict) and isinstance(e.get("t"), str) for e in events):
        raise BadRecord("the move record there has no valid event list")
    if "at" in m and not (type(m["at"]) is str if sealed else _text(m["at"], 64)):
        raise BadRecord("the move record there has a bad time")


def check_checkpoint(c: dict[str, Any], sealed: bool = False) -> None:
    """A checkpoint's fields; its state, if it has one, is plain data (``sealed``: of a
    save its directory's writers sealed, where the state is taken back by
    ``engine.thaw``, which refuses anything it did not make: not walked here)."""
    if not (_CHECKPOINT_FIELDS.issuperset(c) and _is_int(c.get("n")) and c["n"] >= 0 and _text(c.get("digest"), 64)):
        raise BadRecord("the checkpoint record there is badly formed")
    if "state" in c and not sealed and not _plain(c["state"], depth=engine.THAW_DEPTH, nodes=8192):
        raise BadRecord("the checkpoint record there holds a state that is not plain data")


def check_result(r: dict[str, Any], players: int) -> None:
    if not _RESULT_FIELDS.issuperset(r):
        raise BadRecord("the outcome record there has a field no Cabinet writes")
    winners = r.get("winners")
    if not (isinstance(winners, list) and all(_is_int(w) and 0 <= w < players for w in winners)):
        raise BadRecord("the outcome record there has no valid winners")
    if not _text(r.get("reason"), 1024):
        raise BadRecord("the outcome record there has no reason")
    scores = r.get("scores", [])
    if not (isinstance(scores, list) and all(_is_int(s) for s in scores)):
        raise BadRecord("the outcome record there has bad scores")
    if "victor" in r and not _text(r["victor"], 64):
        raise BadRecord("the outcome record there has a bad winner")
    if "at" in r and not _text(r["at"], 64):
        raise BadRecord("the outcome record there has a bad time")


@dataclass(slots=True)
class Frame:
    kind: bytes
    offset: int  # where the frame starts in the file
    length: int  # body length
    body: dict[str, Any] | None = None  # None when not decoded
    seq: int = 0  # its place in the file: 0 for the header
    raw: bytes | memoryview = b""  # the body's bytes (read in place: a view of the file's)


@dataclass
class Torn:
    """A record cut off at the end of the file."""

    kind: bytes
    offset: int

    def warning(self, name: str) -> str:
        what = {
            MOVE: "the last move",
            CHECKPOINT: "the last checkpoint",
            RESULT: "the final result",
            HEADER: "the header",
        }.get(self.kind, "the last record")
        return f"{name}: {what} was cut off mid-write and was dropped."


class _Reader:
    """Reads the frames of a save's bytes, verifying their checksums, their
    places in the file and, for what it decodes, their shapes."""

    def __init__(self, data: bytes, name: str) -> None:
        self.name = name
        # the whole file at once (the loader keeps every event anyway): one read, not two a record
        self.data = data
        self.view = memoryview(self.data)  # bodies are looked at in place, not copied
        self.size = len(self.data)
        self.pos = 0
        self.torn: Torn | None = None
        self.version = FORMAT_VERSION
        self.frame_size = _FRAME.size
        #: the chain so far, and the seal of the last record read (formats 2 and 3)
        self.chain = Chain()
        self.seal = _NO_SEAL
        #: where the records :meth:`walk` took in unchecked begin and end (format 3; see there)
        self.unchecked: tuple[int, int] | None = None

    def damaged(self, offset: int, what: str) -> SaveError:
        return SaveError(f"{self.name} is damaged at byte {offset}: {what}.")

    def read_preamble(self) -> None:
        data = self.data[: _PREAMBLE.size]
        if not data:
            raise SaveError(f"{self.name} is empty, not a Cabinet save.")
        if len(data) < _PREAMBLE.size:
            if MAGIC.startswith(data[: len(MAGIC)]):
                raise SaveError(f"{self.name} is cut off before the end of its header.")
            raise SaveError(f"{self.name} is not a Cabinet save file.")
        magic, version = _PREAMBLE.unpack(data)
        if magic != MAGIC:
            raise SaveError(f"{self.name} is not a Cabinet save file.")
        if version > FORMAT_VERSION:
            raise SaveError(
                f"{self.name} was written by a newer Cabinet (save format {version}; "
                f"this version reads formats 1 to {FORMAT_VERSION})."
            )
        if version < 1:
            raise SaveError(f"{self.name} has an unknown save format version {version}.")
        self.version = version
        self.frame_size = _FRAME.size if version >= 2 else _FRAME_V1.size
        self.chain = chain_for(version)
        self.pos = _PREAMBLE.size

    def _torn_or_damaged(self, kind: bytes, offset: int, length: int | None) -> None:
        """The file ends inside the record at ``offset``: torn, or damaged?"""
        if length is not None:
            partial = self.data[offset + self.frame_size :]
            unpacker = msgpack.Unpacker(max_buffer_size=BOUNDS[kind].size, **_STRICT, **_LIMITS[kind])
            try:
                unpacker.feed(partial)
                unpacker.unpack()
            except msgpack.OutOfData:
                pass  # a strict prefix of one value: cut off mid-write
            except Exception:  # noqa: BLE001 - whatever msgpack raises on hostile bytes
                raise self.damaged(offset, "a record there is garbled") from None
            else:
                raise self.damaged(offset, "a record's length does not match its contents")
        self.torn = Torn(kind, offset)
        self.pos = self.size

    def _out_of_place(self, seq: int) -> str:
        want = self.chain.seq
        if seq < want:
            return f"record {seq} comes again where record {want} belongs (records were duplicated or moved)"
        if seq == want + 1:
            return f"record {want} is missing there (deleted, or moved)"
        return f"records {want} to {seq - 1} are missing there (deleted, or moved)"

    def _length_at(self, offset: int) -> int:
        at = offset + (9 if self.version >= 2 else 5)  # where the length field ends
        return int.from_bytes(self.data[at - 4 : at], "big")

    def _check_length(self, kind: bytes, offset: int, length: int) -> None:
        if length == 0:
            raise self.damaged(offset, "a record there has an impossible length")
        bound = BOUNDS[kind].size
        if length > bound:
            raise self.damaged(
                offset,
                f"a {KIND_NAMES[kind]} record there is {length} bytes long, more than any the rules make ({bound})",
            )

    def next(self, want_body: Callable[[bytes], bool] = lambda kind: True) -> Frame | None:
        """The next frame, or None at the end (clean or torn).  Every body is
        read (for its checksum and the chain); those ``want_body`` picks are decoded."""
        offset = self.pos
        if offset >= self.size:
            return None
        head = self.data[offset : offset + self.frame_size]
        kind = head[:1]
        if kind not in KIND_NAMES:
            raise self.damaged(offset, "a record there is of no known kind")
        at = 9 if self.version >= 2 else 5  # where the length field ends
        if len(head) < self.frame_size:
            if len(head) >= at:
                self._check_length(kind, offset, self._length_at(offset))
            self._torn_or_damaged(kind, offset, None)
            return None
        if self.version >= 2:
            _, seq, length, crc, prev, seal = _FRAME.unpack(head)
        else:
            _, length, crc = _FRAME_V1.unpack(head)
            seq, prev, seal = self.chain.seq, b"", _NO_SEAL
        self._check_length(kind, offset, length)
        end = offset + self.frame_size + length
        if end > self.size:
            self._torn_or_damaged(kind, offset, length)
            return None
        data = self.view[end - length : end]
        if zlib.crc32(data) != crc:
            raise self.damaged(offset, "a record there fails its checksum")
        if self.version >= 2:
            if seq != self.chain.seq:
                raise self.damaged(offset, self._out_of_place(seq))
            if prev != self.chain.prev:
                raise self.damaged(
                    offset,
                    "its header does not follow the file's first bytes (its format number was changed, or its header)"
                    if seq == 0
                    else f"record {seq} does not follow the record before it (records were moved, or one before it was changed)",
                )
            self.chain.extend(head[: _HEAD.size], data)
            self.chain.follow(seal)
            self.seal = seal
        else:
            self.chain.seq += 1
        frame = Frame(kind, offset, length, seq=seq, raw=data)
        if want_body(kind):
            frame.body = self.decode(kind, offset, data)
        self.pos = end
        return frame

    def walk(self, frames: list[tuple[bytes, int, int, int]]) -> None:
        """Every frame from here to the end, as :meth:`next` reads them (checksums, places,
        the chain, a torn tail), none decoded: each put in ``frames`` as (kind, where it
        starts, where its body starts, where it ends).  The frames that are as they should
        be are read here in one loop; :meth:`next` takes over at the first that is not,
        to say what is wrong with it (or that the file ends there, cut off).

        Of format 3, the frames of that loop are taken in unchecked, all at once
        (:meth:`Chain.skip`): where :meth:`sealed_by` then holds, every byte of them is as
        its writer wrote it; where it does not, :meth:`check_unchecked` reads them again
        one by one, to say where they are damaged, if they are."""
        if self.version >= 3:
            start, before = self.pos, len(frames)
            seq = self._skim3(frames)
            if len(frames) > before:
                self.unchecked = (start, self.pos)
                last = frames[-1][1]
                self.chain.skip(self.view, start, last, self.pos)
                self.chain.seq = seq
                self.seal = self.data[last + _HEAD.size + 8 : last + _FRAME.size]
        elif self.version >= 2:
            self._skim(frames)
        try:
            while True:
                frame = self.next(want_body=lambda kind: False)
                if frame is None:
                    return
                body = frame.offset + self.frame_size
                frames.append((frame.kind, frame.offset, body, body + frame.length))
        except SaveError:
            self.check_unchecked()  # damage before it is said first
            raise

    def check_unchecked(self) -> None:
        """The frames :meth:`walk` took in unchecked, read again as :meth:`next` reads them
        (checksums, places, links): raises :class:`SaveError` at the first damaged."""
        if self.unchecked is None:
            return
        _, end = self.unchecked
        again = _Reader(self.data, self.name)
        again.read_preamble()
        while again.pos < end and again.next(want_body=lambda kind: False) is not None:
            pass
        self.unchecked = None

    def _skim3(self, frames: list[tuple[bytes, int, int, int]]) -> int:
        """The frames of format 3 that are whole, numbered in turn and within their kinds'
        bounds, in one loop, nothing else looked at (see :meth:`walk`): what a load reads of
        every record of a save sealed here."""
        data, size, pos, seq = self.data, self.size, self.pos, self.chain.seq
        unpack, frame_size = _HEAD.unpack_from, _FRAME.size
        bounds = {kind: bound.size for kind, bound in BOUNDS.items()}
        append = frames.append
        while pos + frame_size <= size:
            kind, number, length, _ = unpack(data, pos)
            body = pos + frame_size
            end = body + length
            if not 0 < length <= bounds.get(kind, 0) or end > size or number != seq:
                break
            seq += 1
            append((kind, pos, body, end))
            pos = end
        self.pos = pos
        return seq

    def _skim(self, frames: list[tuple[bytes, int, int, int]]) -> None:
        """:meth:`next` of format 2 for frames that are whole and sound, in one loop (what a
        load reads of every record: about half of what msgpack alone takes to decode them)."""
        data, view, size, pos = self.data, self.view, self.size, self.pos
        chain = self.chain
        link, prev_ok, seq, seal = chain.link, chain.prev, chain.seq, self.seal
        unpack, crc32 = _FRAME.unpack_from, zlib.crc32
        # each hash begun as a copy of an empty one (cheaper than a constructor's keywords), fed
        # its pieces in turn (cheaper than joining them first): the same hashes as Chain's
        link_hash, prev_hash = hashlib.blake2b(digest_size=16).copy, hashlib.blake2b(digest_size=8).copy
        frame_size, head_size = _FRAME.size, _HEAD.size
        bounds = {kind: bound.size for kind, bound in BOUNDS.items()}
        append = frames.append
        while pos + frame_size <= size:
            kind, number, length, crc, prev, its_seal = unpack(data, pos)
            body = pos + frame_size
            end = body + length
            if not 0 < length <= bounds.get(kind, 0) or end > size or number != seq or prev != prev_ok:
                break
            chunk = view[body:end]
            if crc32(chunk) != crc:
                break
            h = link_hash()
            h.update(link)
            h.update(view[pos : pos + head_size])
            h.update(chunk)
            link = h.digest()
            h = prev_hash()
            h.update(link)
            h.update(its_seal)
            prev_ok = h.digest()
            seq += 1
            seal = its_seal
            append((kind, pos, body, end))
            pos = end
        chain.link, chain.prev, chain.seq = link, prev_ok, seq
        self.seal = seal
        self.pos = pos

    def decode(self, kind: bytes, offset: int, data: bytes | memoryview) -> dict[str, Any]:
        try:
            return decode_body(data, kind)
        except BadRecord as exc:
            raise self.damaged(offset, str(exc)) from None

    def again(self, start: int, end: int) -> Iterable[Frame]:
        """The frames from ``start`` to ``end`` read once already by :meth:`next`
        (their checksums and places hold), each with its body decoded."""
        data, view, size, unpack = self.data, self.view, self.frame_size, _LENGTH.unpack_from
        at = 5 if self.version >= 2 else 1  # where the length field starts
        pos = start
        while pos < end:
            kind = data[pos : pos + 1]
            body = pos + size
            body_end = body + unpack(data, pos + at)[0]
            try:
                yield Frame(kind, pos, body_end - body, decode_body(view[body:body_end], kind))
            except BadRecord as exc:
                raise self.damaged(pos, str(exc)) from None
            pos = body_end

    def last_sealed(self, key: bytes, end: int) -> int | None:
        """The number of the last record before ``end`` (read once already by
        :meth:`next`) whose seal holds under ``key``, or None: where a save written
        by the holders of ``key`` was changed, or its seal damaged, after them."""
        if self.version < 2:
            return None
        chain = chain_for(self.version)
        held = None
        pos = _PREAMBLE.size
        while pos < end:
            length = self._length_at(pos)
            body_end = pos + _FRAME.size + length
            link = chain.extend(self.data[pos : pos + _HEAD.size], self.view[body_end - length : body_end])
            seal = self.data[pos + _HEAD.size + 8 : pos + _FRAME.size]
            if hmac.compare_digest(seal, _seal(link, key)):
                held = chain.seq - 1
            chain.follow(seal)
            pos = body_end
        return held

    def sealed_by(self, key: bytes | None) -> bool:
        """Whether the records read so far were written, in this order, by a
        writer holding ``key`` (see the module docstring)."""
        if key is None or self.version < 2:
            return False
        return hmac.compare_digest(self.seal, _seal(self.chain.link, key))


def _unreadable(name: str, exc: OSError) -> SaveError:
    """A read error (EIO, a vanished disk...) anywhere in a file, in one sentence."""
    return SaveError(f"{name} cannot be read: {(exc.strerror or str(exc)).lower()}.")


@dataclass(frozen=True)
class InStore:
    """A table's log in a store other than a directory of save files (a database):
    what :func:`load`, :func:`scan`, :func:`verify` and the exports take where they
    take a save's path.  ``store`` is a ``saves.store.Store``."""

    store: Any
    table: str

    @property
    def name(self) -> str:
        return f"table {self.table}"

    def hold(self) -> Log:
        """The table's one writer's hold (raises :class:`SaveLocked`)."""
        return self.store.hold(self.table)


Source = PathLike | InStore


def _seal_key(source: Source) -> bytes | None:
    """The secret the writers of the place ``source`` is in seal with, if there is one."""
    if isinstance(source, InStore):
        return source.store.key()
    return dir_key(Path(source).parent)


def _kind_of_file(mode: int) -> str:
    for test, what in (
        (stat.S_ISFIFO, "a pipe"),
        (stat.S_ISCHR, "a device"),
        (stat.S_ISBLK, "a device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return what
    return "a special file"


def _too_large(name: str) -> SaveError:
    return SaveError(f"{name} is larger than any save ({MAX_SAVE // (1024 * 1024)} MiB at most), so it is not one.")


def read_save(source: Source) -> tuple[bytes, str]:
    """The bytes of a save and how sentences name it: a regular file (never a pipe
    or a device, which could make a read wait or go on forever), read whole but
    never past :data:`MAX_SAVE` bytes; or a table's log in a store.  Raises
    :class:`SaveError` with one sentence."""
    if isinstance(source, InStore):
        data = source.store.read(source.table)  # SaveError for a missing table
        if len(data) > MAX_SAVE:
            raise _too_large(source.name)
        return data, source.name
    path = Path(source)
    name = path.name or str(path)
    try:
        # read-only (a load never changes the file); O_NONBLOCK: opening a pipe must not wait for a writer
        fd = os.open(path, os.O_RDONLY | _O_NONBLOCK | _O_NOCTTY | _O_CLOEXEC)
    except FileNotFoundError:
        raise SaveError(f"{name} does not exist.") from None
    except IsADirectoryError:
        raise SaveError(f"{name} is a directory, not a save file.") from None
    except OSError as exc:
        raise SaveError(f"{name} cannot be read: {exc.strerror or exc}.") from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise SaveError(f"{name} is a directory, not a save file.")
        if not stat.S_ISREG(st.st_mode):
            raise SaveError(f"{name} is {_kind_of_file(st.st_mode)}, not a save file.")
        if st.st_size > MAX_SAVE:
            raise _too_large(name)
        # the size the file says it has, and one byte more to see whether it says true (a file
        # of /proc says 0): what follows is read a piece at a time, up to the bound (straight
        # from the descriptor, one read as a file object would make, without making one)
        pieces = [os.read(fd, st.st_size + 1)]
        total = len(pieces[0])
        while total > st.st_size:
            piece = os.read(fd, min(1024 * 1024, MAX_SAVE + 1 - total))
            if not piece:
                break
            pieces.append(piece)
            total += len(piece)
            if total > MAX_SAVE:
                raise _too_large(name)
    except OSError as exc:  # a read error (EIO...) anywhere in the file
        raise _unreadable(name, exc) from None
    finally:
        os.close(fd)
    return (pieces[0] if len(pieces) == 1 else b"".join(pieces)), name


def _read_header(reader: _Reader) -> Frame:
    """Preamble and header record (validated), or SaveError."""
    reader.read_preamble()
    frame = reader.next()
    if frame is None:
        raise SaveError(f"{reader.name} is cut off before the end of its header.")
    if frame.kind != HEADER:
        raise reader.damaged(frame.offset, "the first record is not a header")
    assert frame.body is not None
    try:
        check_header(frame.body)
    except BadRecord as exc:
        raise reader.damaged(frame.offset, str(exc)) from None
    return frame


def _check_body(reader: _Reader, frame: Frame, players: int, sealed: bool = False) -> None:
    """The shape of a record's body (``sealed``: of a save its directory's writers sealed,
    whose commands come from the rules: their size and nesting are not looked at again)."""
    body = frame.body
    assert body is not None
    try:
        if frame.kind == HEADER:
            raise BadRecord("there is a second header")
        if frame.kind == MOVE:
            check_move(body, players, sealed)
        elif frame.kind == CHECKPOINT:
            check_checkpoint(body, sealed)
        elif frame.kind == RESULT:
            check_result(body, players)
    except BadRecord as exc:
        raise reader.damaged(frame.offset, str(exc)) from None


# -- loading ------------------------------------------------------------------


@dataclass
class Loaded:
    """A save read back: the match rebuilt from its events."""

    match: Match
    warnings: list[str]
    #: the save file; None for a table in a database
    path: Path | None
    #: each move's "at" time, aligned with ``match.moves``
    times: list[str | None] = field(default_factory=list)
    #: byte offset where the good records end
    end: int = 0
    #: the file holds exactly the match (no torn tail, outcome recorded if over)
    clean: bool = True
    #: where the file's records stand, to append after them (None: format 1, to be rewritten)
    chain: Chain | None = None
    #: sealed by this directory's writers, so folded; else every move was decided again
    sealed: bool = False
    #: why the game cannot be played on here (a bot level this Cabinet does not know), or None
    unplayable: str | None = None
    #: how sentences name it ("g.cab", "table k7f3mb")
    name: str = ""
    #: what it was loaded from: the path, or the table in its store
    source: Source | None = None


def _resolve_game(game_id: str, games: Mapping[str, Game] | None) -> Game | None:
    if games is not None:
        return games.get(game_id)
    from core.games import get_game

    return get_game(game_id)


def _title(game: Game) -> str:
    return game.title or game.id


def _unplayable(name: str, game: Game, header: dict[str, Any]) -> str | None:
    """Why a save this Cabinet replays cannot be played on here: a seat of a kind,
    or a bot of a level, that it does not know (a newer Cabinet's, or a damaged header)."""
    for seat in header["seats"]:
        kind = seat.get("kind") or "human"
        who = str(seat.get("name"))
        if kind not in ("human", "bot"):
            return f"{name} has a seat ({who}) of a kind this Cabinet does not know ({kind!r}): it can be replayed, not played on."
        level = seat.get("level")
        # any seat's level, a human's too: the bots of a table are made for every seat
        if level is not None and engine.LEVEL_ALIASES.get(level, level) not in game.bot_levels:
            return (
                f"{name} has a {'bot' if kind == 'bot' else 'seat'} ({who}) of a level this Cabinet does not know ({level!r}; it knows "
                f"{', '.join(game.bot_levels)}): it can be replayed, not played on."
            )
    return None


def _pack(events: Any) -> bytes:
    try:
        return msgpack.packb(events, use_bin_type=True)
    except Exception:  # noqa: BLE001 - an event the rules made that msgpack cannot hold: differs from any record
        return b""


def _difference(made: list[engine.Event], recorded: list[engine.Event]) -> str:
    """How the events the rules make of a move differ from those recorded, in a few words."""
    if len(made) != len(recorded):
        return f"the save records {len(recorded)} events for it where the rules make {len(made)}"
    for i, (a, b) in enumerate(zip(made, recorded, strict=True)):
        if _pack(a) != _pack(b):
            tag = b.get("t")
            shown = tag if _text(tag, 40) else "?"  # the file's words, in a sentence: short and printable only
            return f"its event {i + 1} ({shown}) is not the one the rules make ({a.get('t')})"
    return "its events are not the ones the rules make"


def _rederive(
    match: Match, seat: int | None, command: dict[str, Any] | None, recorded: list[engine.Event]
) -> str | None:
    """Decide the move again from the position and the match's RNG and fold it
    when its events are the recorded ones; else the words saying why not."""
    game = match.game
    if seat is None:
        made = game.setup(match.config, match.rng())
    else:
        assert command is not None
        if match.outcome is not None:
            return "it comes after the end of the game"
        if seat not in game.active(match.state):
            return f"it is made by {match.header['seats'][seat].get('name')}, who had no move to make then"
        try:
            command = game.normalize(command)  # kept as Match.submit keeps it
            made = game.decide(match.state, seat, command, match.rng())
        except engine.IllegalCommand as exc:
            return f"the rules refuse its command ({str(exc).rstrip('.')})"
    if _pack(made) != _pack(recorded):
        return _difference(made, recorded)
    match.replay_move(seat, command, recorded)
    return None


def load(
    path: Source, games: Mapping[str, Game] | None = None, *, rederive: bool = False, data: bytes | None = None
) -> Loaded:
    """Read, verify and replay a save (a file, or a table in a store).  Raises
    :class:`SaveError` (for any damage, and for a file that cannot be read).

    A save sealed by its directory's writers is replayed by folding its
    events; any other, or any when ``rederive``, has every move decided again
    (see the module docstring).  ``data``: the save's bytes, read already (by
    :func:`read_save`), so that what is checked is what the caller has."""
    if data is None:
        data, name = read_save(path)
    else:
        name = _name_of(path)
    # A load builds many small containers and keeps them all (the match holds
    # its events), none in a cycle: the cyclic GC would only walk them again and
    # again as they pile up.  It is held off for the load and left as it was.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _load(path, data, name, games, rederive)
    finally:
        if collecting:
            gc.enable()


def _name_of(source: Source) -> str:
    if isinstance(source, InStore):
        return source.name
    path = Path(source)
    return path.name or str(path)


def _game_of(name: str, header: dict[str, Any], games: Mapping[str, Game] | None) -> Game:
    """The game a (checked) header plays, under the rules it was made with; else SaveError."""
    game = _resolve_game(header["game"], games)
    if game is None:
        raise SaveError(f"{name} is a save of a game this version of Cabinet does not know ({header['game']!r}).")
    title = _title(game)
    if header["rules_version"] > game.rules_version:
        raise SaveError(
            f"{name} was made under a newer version of the rules of {title} "
            f"(version {header['rules_version']}; this Cabinet plays version {game.rules_version})."
        )
    if header["rules_version"] != game.rules_version:
        raise SaveError(
            f"{name} was made under version {header['rules_version']} of the rules of {title}, "
            f"which this Cabinet (version {game.rules_version}) cannot replay."
        )
    return game


def rebuild(name: str, header: Any, moves: Iterable[Any], games: Mapping[str, Game] | None = None) -> Match:
    """The match of a log that comes as records already decoded: a table's log in a database
    (``net.relay``), a finished table a hall sends a lobby (``screens.lobby``), a game forked
    from a replay.  The one place a match is rebuilt from its moves outside :func:`load`: the
    header is checked as a save's (every field, the game, its rules' version, a table the game
    can set up), each move's shape as a save's, the first move must be the setup and no other,
    then the moves are folded as recorded (their server decided them).  ``moves``: move records
    (``{"seat", "command", "events"}``) or ``(seat, command, events)`` triples.  Raises
    :class:`SaveError`, one sentence naming ``name``."""
    if not isinstance(header, dict):
        raise SaveError(f"{name} has no header.")
    try:
        check_header(header)
    except BadRecord as exc:
        raise SaveError(f"{name} is damaged: {exc.what}.") from None
    game = _game_of(name, header, games)
    try:
        match = _table_of(game, header)
    except BadRecord as exc:
        raise SaveError(f"{name} is damaged: {exc.what}.") from None
    fold(name, match, moves)
    return match


def _table_of(game: Game, header: dict[str, Any]) -> Match:
    """The (empty) match of a checked header, once its seats' options are ``game``'s and its
    table one the game can set up; else BadRecord."""
    title = _title(game)
    options = {opt.key for opt in game.seat_options}
    for seat in header["seats"]:
        if not all(key in SEAT_FIELDS or key in options for key in seat):
            raise BadRecord(
                f"the header there has a seat with a field {title} does not know",
                f"its header has a seat with a field {title} does not know",
            )
    try:
        match = Match(game, header)
        config = match.config
        game.make_config(config["players"], config["seats"], config["variants"])
    except Exception as exc:  # noqa: BLE001 - a hostile header may fail the rules' setup anywhere: one sentence
        detail = (str(exc).rstrip(".") or type(exc).__name__)[:200]
        raise BadRecord(
            f"the header describes a table {title} cannot set up ({detail})",
            f"its header describes a table {title} cannot set up ({detail})",
        ) from None
    return match


def fold(name: str, match: Match, moves: Iterable[Any]) -> None:
    """Fold recorded moves into ``match`` after those it has, each checked as :func:`rebuild`
    checks them (a log followed as its server appends to it).  Raises SaveError."""
    for index, move in enumerate(moves, start=len(match.moves)):
        if isinstance(move, (list, tuple)) and len(move) == 3:
            move = {"seat": move[0], "command": move[1], "events": move[2]}
        what = "the setup" if index == 0 else f"move {index}"
        try:
            if not isinstance(move, dict):
                raise BadRecord("it is not a move record")
            check_move(move, match.header["players"])
        except BadRecord as exc:
            raise SaveError(f"{name} is damaged at {what}: {exc.what}.") from None
        if (index == 0) != (move["seat"] is None):
            raise SaveError(
                f"{name} is damaged at {what}: " + ("it is not the setup." if index == 0 else "it is a second setup.")
            )
        try:
            match.replay_move(move["seat"], move["command"], move["events"])
        except Exception:  # noqa: BLE001 - a foreign log can make the rules fail anywhere: one sentence
            raise SaveError(f"{name} cannot be followed: {what} holds what the rules cannot apply.") from None


def _check_places(reader: _Reader, frames: list[tuple[bytes, int, int, int]], players: int, bodies: bool) -> None:
    """What every load sees of the records before it replays any: no second header, nothing
    after the result; and with ``bodies``, the shape of every checkpoint and result."""
    ended = False
    view = reader.view
    for kind, offset, body, end in frames:
        if kind == HEADER:
            raise reader.damaged(offset, "there is a second header")
        if bodies and kind in (CHECKPOINT, RESULT):
            frame = Frame(kind, offset, end - body, reader.decode(kind, offset, view[body:end]))
            _check_body(reader, frame, players)
        if ended:
            raise reader.damaged(offset, "a record follows the end of the game")
        ended = kind == RESULT


def _trusting(kind: bytes) -> Callable[[Any], Any]:
    """How a body of a sealed save is decoded: within its kind's limits, no ext types, no
    bytes, but its map keys not looked at one by one (``_string_keys``): its writers made
    them of the rules' strings."""
    options = {k: v for k, v in _STRICT.items() if k != "object_pairs_hook"}
    return functools.partial(msgpack.unpackb, **options, **_LIMITS[kind])


_TRUSTING = {kind: _trusting(kind) for kind in BOUNDS}
#: how the moves of a sealed save are decoded together (``_moves_at_once``): as ``_TRUSTING``
_BULK = {k: v for k, v in _STRICT.items() if k != "object_pairs_hook"}


def _trusted_body(reader: _Reader, kind: bytes, offset: int, data: memoryview) -> dict[str, Any]:
    try:
        value = _TRUSTING[kind](data)
    except Exception:  # noqa: BLE001 - what msgpack raises on bytes it refuses: said as it is for any save
        return reader.decode(kind, offset, data)
    if type(value) is not dict:
        raise reader.damaged(offset, "the record there is not a map")
    return value


def _state_from(game: Game, records: dict[str, type], body: Any, n: int) -> Any:
    """The state a sealed checkpoint's body carries, taken back and checked against its own
    digest, after ``n`` events; None when it has none, or one that does not come back whole
    (written under rules whose state had other fields) or does not match its digest: the
    events are folded instead."""
    if type(body) is not dict or body.get("n") != n or "state" not in body:
        return None
    try:
        check_checkpoint(body, sealed=True)
        state = engine.thaw(body["state"], records)
        if engine.digest(game.canonical(state)) != body["digest"]:
            return None
    except Exception:  # noqa: BLE001 - a state the rules cannot digest is one not to use
        return None
    return state


def _lazy_state(game: Game, records: dict[str, type], raw: bytes, n: int) -> Callable[[], Any]:
    """The state of a sealed checkpoint before the one a load settled at, made when a replay
    first needs it (see ``Match.settle``); None if it cannot be used."""

    def make() -> Any:
        try:
            body = _TRUSTING[CHECKPOINT](raw)
        except Exception:  # noqa: BLE001 - a body msgpack refuses: the events are folded instead
            return None
        return _state_from(game, records, body, n)

    return make


#: how many move records a sealed load decodes in one call (``_moves_at_once``)
_AT_ONCE = 128


def _moves_at_once(view: memoryview, frames: list[tuple[bytes, int, int, int]]) -> list[Any]:
    """The bodies of the move records among ``frames`` of a sealed save, decoded ``_AT_ONCE``
    in one call of msgpack (as an array of them, within a move's limits: a call a record cost a
    fifth more, issue 35); [] where msgpack refuses them, and each is then decoded alone, to
    say which."""
    spans = [view[at:end] for kind, _, at, end in frames if kind == MOVE]
    bodies: list[Any] = []
    unpack = functools.partial(msgpack.unpackb, **_BULK, **_LIMITS[MOVE])  # (arrays of 1,024 at most)
    for start in range(0, len(spans), _AT_ONCE):
        some = spans[start : start + _AT_ONCE]
        try:
            got = unpack(b"\xdd" + len(some).to_bytes(4, "big") + b"".join(some))
        except Exception:  # noqa: BLE001 - what msgpack refuses: each body decoded alone says where
            return []
        if type(got) is not list or len(got) != len(some):
            return []
        bodies += got
    return bodies


def _sound_move(body: Any, players: int) -> bool:
    """Whether a move record of a sealed save has the shape :func:`check_move` asks of one,
    looked at without a call a field (a load makes thousands): when not, ``check_move``
    says why."""
    if type(body) is not dict or not _MOVE_FIELDS.issuperset(body) or "seat" not in body or "command" not in body:
        return False
    seat, command, events = body["seat"], body["command"], body.get("events")
    if seat is None:
        if command is not None:
            return False
    elif type(seat) is not int or not 0 <= seat < players or type(command) is not dict:
        return False
    if type(events) is not list:
        return False
    for event in events:
        if type(event) is not dict or type(event.get("t")) is not str:
            return False
    return type(body.get("at", "")) is str


def _fold_sealed(
    reader: _Reader,
    frames: list[tuple[bytes, int, int, int]],
    match: Match,
    players: int,
    name: str,
    title: str,
) -> tuple[list[str | None], dict[str, Any] | None]:
    """Replay a sealed save (see the module docstring): the moves up to its last checkpoint
    whose state is usable taken in unfolded, then that state, then the moves after it
    folded, their checkpoints' digests and the result checked.  Each move's time, and the
    result."""
    game, view = match.game, reader.view
    records = game.state_records()
    settle_at = 0  # the frame of the checkpoint whose state the match settles at (0: none, fold all)
    settled: Any = None
    settle_n = 0  # the events it says come before it
    stateless = 0  # checkpoints without a state, from the end (a save before issue 35 has only those)
    for i in range(len(frames) - 1, -1, -1):
        kind, offset, at, end = frames[i]
        if kind == CHECKPOINT:
            last = _trusted_body(reader, kind, offset, view[at:end])
            _check_body(reader, Frame(kind, offset, end - at, last), players, sealed=True)
            if "state" not in last:
                stateless += 1
                if stateless > STATE_EVERY // CHECKPOINT_EVERY + 4:
                    break  # written before checkpoints carried states: every event folded
                continue  # (most carry none)
            settled = _state_from(game, records, last, last["n"])
            if settled is not None:
                settle_at, settle_n = i, last["n"]
            break  # only the last with a state: one that cannot be used says the others were written alike
    times: list[str | None] = []
    decode = _TRUSTING[MOVE]

    # up to it: the moves taken in as they are, each checkpoint's state kept to be made on demand
    taken: list[tuple[int | None, dict[str, Any] | None, list[engine.Event]]] = []
    earlier: dict[int, Callable[[], Any]] = {}
    count = 0  # events so far
    bodies = iter(_moves_at_once(view, frames[:settle_at]))
    for kind, offset, at, end in frames[:settle_at]:
        if kind == MOVE:
            body = next(bodies, None)
            if body is None:
                try:
                    body = decode(view[at:end])
                except Exception:  # noqa: BLE001 - what msgpack refuses: said as for any save
                    body = _trusted_body(reader, kind, offset, view[at:end])
            if not _sound_move(body, players):
                _check_body(
                    reader,
                    Frame(kind, offset, end - at, _trusted_body(reader, kind, offset, view[at:end])),
                    players,
                    sealed=True,
                )
            seat = body["seat"]
            if (seat is None) != (not taken):
                raise reader.damaged(
                    offset, "the first move is not the setup" if not taken else "there is a second setup"
                )
            events = body["events"]
            taken.append((seat, body["command"], events))
            count += len(events)
            times.append(body.get("at"))
        elif kind == CHECKPOINT and taken:
            earlier[count] = _lazy_state(game, records, bytes(view[at:end]), count)
    if settle_at:
        kind, offset, at, end = frames[settle_at]
        if not taken or settled is None or count != settle_n:
            raise reader.damaged(offset, "a checkpoint there is out of place")
        match.take_unfolded(taken)
        match.settle(settled, earlier)

    # after it: folded, checked against each checkpoint's digest and the result
    result: dict[str, Any] | None = None
    verified_move = len(match.moves) - 1 if settle_at else 0  # the last move a checkpoint vouched for
    for kind, offset, at, end in frames[settle_at + 1 if settle_at else 0 :]:
        if kind == MOVE:
            try:
                body = decode(view[at:end])
            except Exception:  # noqa: BLE001 - what msgpack refuses: said as for any save
                body = _trusted_body(reader, kind, offset, view[at:end])
            if not _sound_move(body, players):  # why not, in a sentence (not a map, a field...)
                frame = Frame(kind, offset, end - at, _trusted_body(reader, kind, offset, view[at:end]))
                _check_body(reader, frame, players, sealed=True)
            seat = body["seat"]
            if (seat is None) != (not match.moves):
                raise reader.damaged(
                    offset, "the first move is not the setup" if not match.moves else "there is a second setup"
                )
            try:
                match.replay_move(seat, body["command"], body["events"])
            except Exception:  # noqa: BLE001 - a move the rules cannot apply fails them anywhere: one sentence
                what = "the setup" if len(match.moves) == 0 else f"move {len(match.moves)}"
                raise SaveError(
                    f"{name} cannot be replayed: {what} (at byte {offset}) holds what "
                    f"the rules of {title} cannot apply, so it is damaged or was made under other rules."
                ) from None
            times.append(body.get("at"))
            continue
        body = _trusted_body(reader, kind, offset, view[at:end])
        _check_body(reader, Frame(kind, offset, end - at, body), players, sealed=True)
        if kind == CHECKPOINT:
            if not match.moves or body["n"] != len(match.events):
                raise reader.damaged(offset, "a checkpoint there is out of place")
            index = len(match.moves) - 1
            _check_digest(match, body, index, verified_move, name)
            verified_move = index
        elif kind == RESULT:
            _check_result(match, body, offset, reader, name)
            result = body
    return times, result


def _check_digest(match: Match, body: dict[str, Any], index: int, verified_move: int, name: str) -> None:
    """The replayed state after move ``index`` against the digest a checkpoint recorded."""
    try:
        mine = engine.digest(match.game.canonical(match.state))
    except Exception:  # noqa: BLE001 - a state the rules cannot digest differs from the recorded one
        mine = None
    if mine != body["digest"]:
        where = f"at move {index}" if verified_move + 1 >= index else f"between moves {verified_move + 1} and {index}"
        raise SaveError(
            f"{name} diverges from the rules of this version {where}: "
            f"the replayed position no longer matches the one saved after event {body['n']}."
        )


def _check_result(match: Match, body: dict[str, Any], offset: int, reader: _Reader, name: str) -> None:
    """The replayed outcome against the one a result record holds."""
    if not match.moves:
        raise reader.damaged(offset, "a result comes before the game was set up")
    try:
        replayed = match.outcome
    except Exception:  # noqa: BLE001 - an outcome the rules cannot compute differs from the recorded one
        replayed = None
    recorded = {k: body[k] for k in ("winners", "reason", "scores", "victor") if k in body}
    recorded.setdefault("scores", [])
    again = replayed.to_plain() if replayed is not None else None
    if again is not None and "victor" not in body:
        again.pop("victor", None)  # saved before results named a winner with no seat
    if again != recorded:
        raise SaveError(
            f"{name} diverges from the rules of this version at move {len(match.moves) - 1}: "
            f"the replayed result differs from the one saved."
        )


def _load(source: Source, data: bytes, name: str, games: Mapping[str, Game] | None, rederive: bool) -> Loaded:
    reader = _Reader(data, name)
    head = _read_header(reader)
    header = head.body
    assert header is not None
    game = _game_of(name, header, games)
    title = _title(game)
    try:
        match = _table_of(game, header)
    except BadRecord as exc:
        raise reader.damaged(head.offset, str(exc)) from None
    players = header["players"]

    # Every record's checksum and place first, and the shapes of the small ones,
    # so that damage anywhere is said as damage; then the game, a move at a time:
    # a move is decoded as it is replayed, and one the rules do not make is refused
    # before the next is decoded (what a file costs is then what its game costs).
    # The small ones of a sealed save are looked at as the game reaches them.
    start = reader.pos
    frames: list[tuple[bytes, int, int, int]] = []
    try:
        reader.walk(frames)
    except SaveError:
        _check_places(reader, frames, players, bodies=True)  # damage before it is said first
        raise
    end = reader.torn.offset if reader.torn is not None else reader.size
    key = _seal_key(source)
    sealed = reader.sealed_by(key)
    if not sealed:
        reader.check_unchecked()  # what its seal does not vouch for, record by record
    fold = sealed and not rederive
    _check_places(reader, frames, players, bodies=not fold)
    if fold:
        folded = _fold_sealed(reader, frames, match, players, name, title)
        return _loaded(reader, match, source, name, game, header, key, sealed, *folded, end)

    # decided again, move by move (the states checkpoints carry are not read)
    times: list[str | None] = []
    result: dict[str, Any] | None = None
    verified_move = 0  # the last move a checkpoint vouched for
    for frame in reader.again(start, end):
        _check_body(reader, frame, players, sealed)
        body = frame.body
        assert body is not None
        if frame.kind == MOVE:
            if not match.moves and body["seat"] is not None:
                raise reader.damaged(frame.offset, "the first move is not the setup")
            if match.moves and body["seat"] is None:
                raise reader.damaged(frame.offset, "there is a second setup")
            index = len(match.moves)
            what = "the setup" if index == 0 else f"move {index}"
            try:
                problem = _rederive(match, body["seat"], body["command"], body["events"])
            except Exception:  # noqa: BLE001 - a move the rules cannot apply fails them anywhere: one sentence
                raise SaveError(
                    f"{name} cannot be replayed: {what} (at byte {frame.offset}) holds what "
                    f"the rules of {title} cannot apply, so it is damaged or was made under other rules."
                ) from None
            if problem is not None:
                raise SaveError(
                    f"{name} does not follow from its moves at {what} (byte {frame.offset}): {problem}; "
                    f"it is damaged, or was made under other rules."
                )
            times.append(body.get("at"))
        elif frame.kind == CHECKPOINT:
            if not match.moves or body["n"] != len(match.events):
                raise reader.damaged(frame.offset, "a checkpoint there is out of place")
            index = len(match.moves) - 1
            _check_digest(match, body, index, verified_move, name)
            verified_move = index
        elif frame.kind == RESULT:
            _check_result(match, body, frame.offset, reader, name)
            result = body

    return _loaded(reader, match, source, name, game, header, key, sealed, times, result, end)


def _loaded(
    reader: _Reader,
    match: Match,
    source: Source,
    name: str,
    game: Game,
    header: dict[str, Any],
    key: bytes | None,
    sealed: bool,
    times: list[str | None],
    result: dict[str, Any] | None,
    end: int,
) -> Loaded:
    """What a load gives, once its records are read: the warnings, and whether the file is clean."""
    if not match.moves:
        raise SaveError(f"{name} is cut off before the game was set up.")
    warnings = []
    if reader.torn is not None:
        warnings.append(reader.torn.warning(name))
    if not sealed and key is not None:
        # written here up to some record, and not after it: said, not passed over in silence
        held = reader.last_sealed(key, end)
        if held is not None:
            warnings.append(_seal_warning(name, held, reader.chain.seq - 1))
    try:
        finished = match.outcome is not None
    except Exception:  # noqa: BLE001 - a replayed state whose outcome fails is not a finished game
        finished = False
    clean = reader.torn is None and (result is not None) == finished
    return Loaded(
        match=match,
        warnings=warnings,
        path=None if isinstance(source, InStore) else Path(source),
        times=times,
        end=end,
        clean=clean,
        chain=reader.chain if reader.version >= 2 else None,
        sealed=sealed,
        unplayable=_unplayable(name, game, header),
        name=name,
        source=source,
    )


def _seal_warning(name: str, held: int, last: int) -> str:
    if held == last - 1:
        what = "the seal of its last record does not hold (it was damaged, or the record changed after it was written)"
    else:
        what = (
            f"its seals hold up to record {held} and not after it (the records after it were changed, "
            f"or written elsewhere)"
        )
    return f"{name} was written here, but {what}: every move was decided again, and the game follows from them."


# -- reading without replaying -------------------------------------------------


@dataclass
class Scan:
    """What a listing needs, read without decoding or replaying events."""

    header: dict[str, Any]
    moves: int  # move records, the setup included
    result: dict[str, Any] | None
    last_at: str | None
    torn: Torn | None
    #: how sentences name it ("g.cab", "table k7f3mb")
    name: str = ""


def scan(path: Source) -> Scan:
    """Header, move count, outcome and last move time, without decoding the
    moves' events (every body is still read, for its checksum and its place in
    the file).  Raises :class:`SaveError`."""
    data, name = read_save(path)
    return _scan(data, name)


def _scan(data: bytes, name: str) -> Scan:
    reader = _Reader(data, name)
    head = _read_header(reader)
    header = head.body
    assert header is not None
    players = header["players"]
    moves = 0
    last_move: Frame | None = None
    result: Frame | None = None
    while True:
        frame = reader.next(want_body=lambda kind: kind == RESULT)
        if frame is None:
            break
        if result is not None:
            raise reader.damaged(frame.offset, "a record follows the end of the game")
        if frame.kind == HEADER:
            raise reader.damaged(frame.offset, "there is a second header")
        if frame.kind == MOVE:
            moves += 1
            last_move = frame
        elif frame.kind == RESULT:
            _check_body(reader, frame, players)
            result = frame
    if moves == 0:
        raise SaveError(f"{name} is cut off before the game was set up.")
    last_at = None
    if last_move is not None:
        last_move.body = reader.decode(MOVE, last_move.offset, last_move.raw)
        _check_body(reader, last_move, players)
        last_at = last_move.body.get("at")
    return Scan(
        header=header,
        moves=moves,
        result=result.body if result is not None else None,
        last_at=last_at,
        torn=reader.torn,
        name=name,
    )


def read_records(path: Source) -> tuple[list[tuple[str, dict[str, Any]]], list[str]]:
    """Every record as (kind name, body), verified but not replayed, and warnings."""
    return _read_records(*read_save(path))


def _read_records(data: bytes, name: str) -> tuple[list[tuple[str, dict[str, Any]]], list[str]]:
    reader = _Reader(data, name)
    head = _read_header(reader)
    assert head.body is not None
    players = head.body["players"]
    records: list[tuple[str, dict[str, Any]]] = [("header", head.body)]
    while True:
        frame = reader.next()
        if frame is None:
            break
        _check_body(reader, frame, players)
        assert frame.body is not None
        records.append((KIND_NAMES[frame.kind], frame.body))
    warnings = [reader.torn.warning(name)] if reader.torn is not None else []
    return records, warnings


# -- summaries and exports -----------------------------------------------------


def _seat_label(seat: dict[str, Any]) -> str:
    kind = seat.get("kind") or "human"
    if kind == "bot" and seat.get("level"):
        return f"{seat.get('name')} (bot, {seat['level']})"
    return f"{seat.get('name')} ({kind})"


def _winners_text(header: dict[str, Any], winners: list[int]) -> str:
    names = [str(header["seats"][w].get("name")) for w in winners if 0 <= w < len(header["seats"])]
    if not names:
        return "no winner"
    return "won by " + " and ".join(names)


def _moves_text(n: int) -> str:
    return f"{n} move{'s' if n != 1 else ''}"


def _seat_name(header: dict[str, Any], seat: int | None) -> str:
    if seat is None or not 0 <= seat < len(header["seats"]):
        return "?"
    return str(header["seats"][seat].get("name"))


def _summary(title: str, header: dict[str, Any], moves: int, winners: list[int] | None) -> str:
    """ "Title: seats; N moves; in progress." (or "finished, won by ...")."""
    seats = ", ".join(_seat_label(s) for s in header["seats"])
    state = "in progress" if winners is None else f"finished, {_winners_text(header, winners)}"
    return f"{title}: {seats}; {_moves_text(moves)}; {state}."


def summary(source: Source, games: Mapping[str, Game] | None = None) -> str:
    """The line :func:`verify` prints, read as a listing reads (see :func:`scan`):
    nothing replayed.  Raises SaveError."""
    s = scan(source)
    game = _resolve_game(s.header["game"], games)
    title = _title(game) if game is not None else s.header["game"]
    line = _summary(title, s.header, max(0, s.moves - 1), None if s.result is None else list(s.result["winners"]))
    if s.torn is not None:
        line += " Warning: " + s.torn.warning(s.name)
    return line


def verify(path: Source, games: Mapping[str, Game] | None = None) -> str:
    """One line: game, seats, moves (what the players did, the setup not counted),
    finished or in progress.  Every move is decided again from the seed and its
    command (whatever seals the file): raises SaveError naming the first move
    whose events differ, and for a game that is not over and yet has nobody to
    act (two writers interleaved, or other rules), or that this Cabinet cannot
    play on (a bot level it does not know)."""
    loaded = load(path, games, rederive=True)
    match = loaded.match
    header = match.header
    moves = len(match.moves) - 1
    outcome = match.outcome
    if outcome is None and not match.active():
        raise SaveError(
            f"{loaded.name} is stuck after {_moves_text(moves)}: the game is not over, yet nobody has a move to make."
        )
    if loaded.unplayable is not None:
        raise SaveError(loaded.unplayable)
    line = _summary(_title(match.game), header, moves, None if outcome is None else list(outcome.winners))
    for w in loaded.warnings:
        line += " Warning: " + w
    exposed = open_to_others(loaded.path) if loaded.path is not None else None
    if exposed is not None:
        line += " Warning: " + exposed[0].upper() + exposed[1:]
    return line


def export_text(path: Source, games: Mapping[str, Game] | None = None) -> str:
    """A readable log: header summary, then the setup and each move, numbered
    as replays number them, with the lines of what it caused."""
    loaded = load(path, games)
    match = loaded.match
    game = match.game
    header = match.header
    lines = [
        f"Cabinet save {loaded.name}",
        f"Game: {_title(game)} (rules version {header['rules_version']})",
        "Seats: " + ", ".join(f"{i + 1}. {_seat_label(s)}" for i, s in enumerate(header["seats"])),
    ]
    if header["variants"]:
        lines.append("Variants: " + ", ".join(f"{k}={v}" for k, v in sorted(header["variants"].items())))
    lines.append(f"Seed: {header['seed']}; created {header['created']}")
    moves = len(match.moves) - 1
    outcome = match.outcome
    if outcome is None:
        lines.append(f"In progress after {_moves_text(moves)}")
    else:
        lines.append(
            f"Finished after {_moves_text(moves)}: {_winners_text(header, list(outcome.winners))} ({outcome.reason})"
        )
    lines.extend(loaded.warnings)
    for index, move in enumerate(match.moves):
        lines.append("")
        lines.append("Setup" if index == 0 else f"Move {index}: {_seat_name(header, move.seat)}")
        for event in match.events[move.start : move.end]:
            try:
                text = str(game.describe(event, engine.ALL))
            except Exception:  # noqa: BLE001 - an event of a damaged save is still listed, by its tag
                text = str(event.get("t", "?"))
            if text:
                lines.append(f"  {text}")
    return "\n".join(lines) + "\n"


def _json_default(value: Any) -> Any:
    if isinstance(value, bytes):
        return value.hex()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def export_json(path: Source, games: Mapping[str, Game] | None = None) -> str:
    """The records as JSON: {"format", "version", "records": [{"kind", "body"}], "warnings"}.

    A save is exported once a load found it sound (as the text export), so that
    what is printed is what the rules made: a record's size and nesting, and so
    the size of the JSON, are those of a game.  Raises :class:`SaveError`."""
    data, name = read_save(path)
    loaded = load(path, games, data=data)
    records, _ = _read_records(data, name)
    warnings = loaded.warnings
    doc = {
        "format": "cabinet-save",
        "version": FORMAT_VERSION,  # of the file format Cabinet writes; the records are the same in both
        "records": [{"kind": kind, "body": body} for kind, body in records],
        "warnings": warnings,
    }
    return json.dumps(doc, ensure_ascii=False, indent=1, default=_json_default) + "\n"
