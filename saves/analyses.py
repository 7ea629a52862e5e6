"""Where a finished game's analysis is kept: beside its save, never inside its log.

A save ``game.cab`` has its analysis in ``game.cab.analysis`` (msgpack: the save's
identity, its number of moves, the effort and the analysis).  The log stays as it was
played; the analysis is reused while it is of the same save with the same moves, at
the same effort.  The file is untrusted input like a save: read whole but never past
:data:`MAX_ANALYSIS` bytes, only a regular file, every field checked
(:meth:`core.analysis.Analysis.from_plain`); a damaged one is reported in one sentence
and made again."""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path
from typing import Any

import msgpack

from core.analysis import Analysis
from core.engine import Match, digest, to_plain
from saves.format import atomic_write

#: what follows a save's name for its analysis
SUFFIX = ".analysis"
#: the largest analysis file read (a 1,000-move game's is under 200 KB)
MAX_ANALYSIS = 4 * 1024 * 1024
#: the version of the file's layout
VERSION = 1


class AnalysisDamaged(Exception):
    """A stored analysis that cannot be used; ``str(exc)`` is one sentence."""


def analysis_path(save: str | os.PathLike[str]) -> Path:
    """Where the analysis of the save at ``save`` is kept."""
    save = Path(save)
    return save.with_name(save.name + SUFFIX)


def identity(match: Match) -> str:
    """What tells this save from any other: its header (seed, seats, when it was made) and
    its last move's events (a save played on from the same start differs there)."""
    last = match.moves[-1]
    return digest([to_plain(match.header), len(match.moves) - 1, match.events[last.start : last.end]])


def read_analysis(save: str | os.PathLike[str], match: Match, effort: int | None) -> Analysis | None:
    """The analysis kept beside ``save``, if it is of this match as it is now (the same
    save, the same moves) at ``effort`` (None: whatever effort it was made at); None when
    there is none or it is of another game or effort.  Raises :class:`AnalysisDamaged` for
    a file that cannot be used."""
    path = analysis_path(save)
    name = path.name
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise AnalysisDamaged(f"The analysis {name} cannot be read ({exc.strerror or exc}).") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise AnalysisDamaged(f"The analysis {name} is not a regular file.")
        if st.st_size > MAX_ANALYSIS:
            raise AnalysisDamaged(f"The analysis {name} is larger than an analysis can be.")
        with os.fdopen(os.dup(fd), "rb", buffering=0) as f:
            data = f.read(MAX_ANALYSIS + 1)
    finally:
        os.close(fd)
    if len(data) > MAX_ANALYSIS:
        raise AnalysisDamaged(f"The analysis {name} is larger than an analysis can be.")
    record = _unpacked(data, name)
    if record.get("version") != VERSION:
        raise AnalysisDamaged(f"The analysis {name} was written by another version of Cabinet.")
    if record.get("identity") != identity(match) or record.get("moves") != len(match.moves) - 1:
        return None  # of another game, or of this one before it was played on: made again
    if effort is not None and record.get("effort") != effort:
        return None
    try:
        analysis = Analysis.from_plain(record.get("analysis"))
    except ValueError as exc:
        raise AnalysisDamaged(f"The analysis {name} is damaged: {_clause(str(exc))}") from None
    if (
        analysis.game != match.game.id
        or analysis.seats != match.header["players"]
        or len(analysis.curve) != len(match.moves)
        or analysis.effort != record.get("effort")
    ):
        raise AnalysisDamaged(f"The analysis {name} does not fit its save.")
    return analysis


def _clause(sentence: str) -> str:
    """A sentence as the end of another ("The x is y." -> "the x is y.")."""
    return sentence[:1].lower() + sentence[1:]


def _unpacked(data: bytes, name: str) -> dict[str, Any]:
    try:
        record = msgpack.unpackb(
            data,
            raw=False,
            strict_map_key=True,
            use_list=True,
            max_str_len=MAX_ANALYSIS,
            max_bin_len=0,
            max_array_len=1_000_001,
            max_map_len=64,
            max_ext_len=0,
        )
    except Exception:  # noqa: BLE001 - any malformed bytes: msgpack raises several kinds
        raise AnalysisDamaged(f"The analysis {name} is damaged: it is not an analysis file.") from None
    if not isinstance(record, dict):
        raise AnalysisDamaged(f"The analysis {name} is damaged: it is not an analysis file.")
    return record


def keep_analysis(save: str | os.PathLike[str], match: Match, analysis: Analysis) -> None:
    """Write ``analysis`` beside ``save`` (atomically: a reader sees the old file or the
    new one).  Raises OSError."""
    record = {
        "version": VERSION,
        "identity": identity(match),
        "moves": len(match.moves) - 1,
        "effort": analysis.effort,
        "analysis": analysis.to_plain(),
    }
    atomic_write(analysis_path(save), msgpack.packb(record, use_bin_type=True))


def forget_analysis(save: str | os.PathLike[str]) -> None:
    """Remove the analysis kept beside ``save``, if there is one."""
    with contextlib.suppress(FileNotFoundError):
        analysis_path(save).unlink()
