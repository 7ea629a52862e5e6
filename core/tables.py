"""A new table: the match a game, its seats and their controllers make."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Any

from core.bots import make_bot
from core.engine import ConfigError, Game, Match, make_header, name_refusal


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
    """A new match, set up.  Raises ConfigError for a table that cannot be.

    Every new table comes through here (the command line, New game, a host, a
    server's hall), so this is where a seat's name is bounded: at most NAME_MAX
    characters, printable ones only.  A save's names are the reader's to check.
    """
    for seat, given in enumerate(seats):
        refusal = name_refusal(given["name"], seat) if "name" in given else None
        if refusal is not None:
            raise ConfigError(refusal)
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
