"""The analysis of a finished game, as the replay and ``cabinet analyse`` ask for it: the
one kept beside the save when it fits, else made (``core.analysis``) and kept there
(``saves.analyses``).  The analysis itself and its names are ``core.analysis``'s, given
here as well."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from core.analysis import (
    DEFAULT_EFFORT,
    MARKS,
    Analysis,
    Cancelled,
    Judgement,
    NotFinished,
    analyse,
    check_finished,
    mark_for,
)
from core.engine import Match
from saves.analyses import AnalysisDamaged, analysis_path, keep_analysis, read_analysis

__all__ = [
    "DEFAULT_EFFORT",
    "MARKS",
    "Analysis",
    "Cancelled",
    "Judgement",
    "NotFinished",
    "analyse",
    "check_finished",
    "mark_for",
    "stored_analysis",
]


def stored_analysis(
    save: str | os.PathLike[str] | None,
    match: Match,
    *,
    effort: int = DEFAULT_EFFORT,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    workers: int | None = 1,
    said: Callable[[str], None] = lambda sentence: None,
) -> tuple[Analysis, bool]:
    """The analysis of the finished ``match`` saved at ``save`` (None: a game not saved as a
    file), and whether it was the one kept beside the save.  A kept one that is damaged is
    ``said`` in one sentence and made again; one that cannot be kept is ``said`` too, and
    given all the same.  Raises :class:`NotFinished` for a game in play (before anything is
    read) and :class:`Cancelled` as :func:`core.analysis.analyse` does."""
    check_finished(match, None if save is None else Path(save).name)
    if save is not None:
        try:
            found = read_analysis(save, match, effort)
        except AnalysisDamaged as exc:
            said(f"{exc} It is made again.")
            found = None
        if found is not None:
            return found, True
    analysis = analyse(match, effort=effort, progress=progress, cancelled=cancelled, workers=workers)
    if save is not None:
        try:
            keep_analysis(save, match, analysis)
        except OSError as exc:
            reason = (exc.strerror or str(exc)).lower()
            said(
                f"The analysis could not be kept beside {Path(save).name} ({reason}): it will be made again next time."
            )
    return analysis, False


def kept_path(save: str | os.PathLike[str]) -> Path:
    """Where the analysis of ``save`` is kept."""
    return analysis_path(save)
