"""The game registry: every package here is a game.

A game plugs in by adding ``core/games/<folder>/__init__.py`` that names it
with ``ID`` (the project id, with dashes: ``agent-jean``) and ``TITLE``, and
gives its rules as ``GAME`` (an instance of :class:`core.engine.Game`),
built on first use so that listing the games (the menu, ``--help``) does not
load every game's rules.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from functools import cache
from typing import Any

from core.engine import Game


@cache
def catalogue() -> dict[str, tuple[str, str]]:
    """Every game: id -> (package name, title), without loading any rules."""
    games: dict[str, tuple[str, str]] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if not info.ispkg:
            continue
        name = f"{__name__}.{info.name}"
        module = importlib.import_module(name)
        game_id = getattr(module, "ID", None)
        title = getattr(module, "TITLE", None)
        if game_id is None:  # a package that builds its game eagerly
            game = getattr(module, "GAME", None)
            if not isinstance(game, Game):
                continue
            game_id, title = game.id, game.title
        games[game_id] = (name, title or game_id)
    return games


def game_titles() -> dict[str, str]:
    return {game_id: title for game_id, (_, title) in catalogue().items()}


def get_game(game_id: str) -> Game | None:
    entry = catalogue().get(game_id)
    if entry is None:
        return None
    game = getattr(importlib.import_module(entry[0]), "GAME", None)
    return game if isinstance(game, Game) else None


def all_games() -> dict[str, Game]:
    games = {game_id: get_game(game_id) for game_id in catalogue()}
    return {game_id: game for game_id, game in games.items() if game is not None}


def lazy_rules(namespace: dict[str, Any], module: str, cls: str) -> Callable[[str], Any]:
    """A game package's module ``__getattr__``: ``GAME`` (and the rules class)
    are built from ``module`` the first time they are asked for."""

    def __getattr__(name: str) -> Any:
        if name in ("GAME", cls):
            rules = getattr(importlib.import_module(module), cls)
            namespace.update({"GAME": rules(), cls: rules})
            return namespace[name]
        raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")

    return __getattr__
