"""Creating and opening matches: shared by the command line and the screens."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from core.engine import Match
from saves.format import rebuild
from table import new_match

__all__ = ["fork", "new_match", "parse_bots", "start_save"]

if TYPE_CHECKING:
    from saves import SaveWriter


def start_save(save_dir: Path, match: Match, durable: bool = True) -> SaveWriter:
    """Write a new match's save and keep appending every move to it.

    ``durable``: fsync after every move (play); simulations only flush.
    """
    from saves import SaveWriter, new_save_path

    return SaveWriter(new_save_path(save_dir, match.game.id), match, durable=durable)


def parse_bots(spec: str | None, players: int) -> set[int]:
    """``--bots 2,3`` (1-based seats), ``all`` or ``none``."""
    if not spec or spec == "none":
        return set()
    if spec == "all":
        return set(range(players))
    seats = set()
    for part in spec.split(","):
        part = part.strip()
        if not part.isdigit() or not 1 <= int(part) <= players:
            raise ValueError(f"--bots takes seat numbers from 1 to {players}, 'all' or 'none', not {part!r}")
        seats.add(int(part) - 1)
    return seats


def fork(match: Match, position: int, parent: str, take: int | None = None) -> Match:
    """A new match that plays on from the last move boundary at or before ``position``;
    ``take``: a seat that a player takes over from its bot (the rest as they were)."""
    import datetime

    header = dict(match.header)
    if take is not None:
        seats = [dict(seat) for seat in header["seats"]]
        seats[take] = {**{k: v for k, v in seats[take].items() if k != "level"}, "kind": "human"}  # (its agent kept)
        header["seats"] = seats
    header["created"] = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    header["parent"] = parent
    moves = [m for m in match.moves if m.end <= position] or match.moves[:1]
    header["forked_at"] = moves[-1].end
    records = [(move.seat, move.command, match.events[move.start : move.end]) for move in moves]
    return rebuild("The fork", header, records, {match.game.id: match.game})
