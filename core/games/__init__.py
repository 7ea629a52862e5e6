"""The game registry: every folder here with a ``GAME`` in its package is a game.

A later game plugs in by adding ``core/games/<id>/__init__.py`` exposing
``GAME`` (an instance of :class:`core.engine.Game`).  The project id uses
dashes (``agent-jean``), the folder underscores (``agent_jean``).
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from core.engine import Game


@cache
def all_games() -> dict[str, Game]:
    games: dict[str, Game] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if not info.ispkg:
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        game = getattr(module, "GAME", None)
        if isinstance(game, Game):
            games[game.id] = game
    return games


def get_game(game_id: str) -> Game | None:
    return all_games().get(game_id)
