"""Creating and opening matches: shared by the command line and the screens."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.engine import Game, Match, make_header
from core.bots import make_bot

if TYPE_CHECKING:
    from saves import SaveWriter


def new_match(
    game: Game,
    players: int,
    seats: Sequence[dict[str, Any]] = (),
    controllers: Sequence[dict[str, Any]] = (),
    seed: int | None = None,
    variants: dict[str, str] | None = None,
    bot_seed: int | None = None,
    **extra: Any,
) -> Match:
    """A new match, set up.  Raises ConfigError for a table that cannot be."""
    config = game.make_config(players, seats, variants)
    seed = secrets.randbits(48) if seed is None else seed
    # Bots get a seed of their own, never the match's: the match's seed
    # decides the shuffles, and a bot must not be able to recompute them.
    bot_seed = secrets.randbits(48) if bot_seed is None else bot_seed
    for i, ctl in enumerate(controllers):
        if ctl.get("kind") == "bot":
            make_bot(game, ctl.get("level") or "random", 0)  # ConfigError for an unknown level
    header = make_header(game, config, seed, controllers, bot_seed=bot_seed, **extra)
    return Match.new(game, header)


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


def fork(match: Match, position: int, parent: str) -> Match:
    """A new match that plays on from the last move boundary at or before ``position``."""
    import datetime

    header = dict(match.header)
    header["created"] = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    header["parent"] = parent
    moves = [m for m in match.moves if m.end <= position] or match.moves[:1]
    header["forked_at"] = moves[-1].end
    copy = Match(match.game, header)
    for move in moves:
        copy.replay_move(move.seat, move.command, match.events[move.start : move.end])
    return copy
