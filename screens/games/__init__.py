"""The boards' registry: every package here draws a game, found as the rules are found.

A game's board plugs in beside its rules (``core/games/<folder>/``) by adding
``screens/games/<folder>/__init__.py`` that names the game it draws with ``ID``
(the game's id, with dashes: ``agent-jean``) and gives its
:class:`tui.widgets.Board` subclass as ``BOARD``, imported on first use
(:func:`lazy_board`) so that finding the boards does not load every board's
code.  Its stylesheet, if it has one, is ``board.tcss`` in the same folder:
the app loads every board's (:func:`stylesheets`) without naming any game.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # (the tables' widgets are made when a board is first drawn: not at start-up)
    from tui.widgets import Board

#: the stylesheet a board package may carry, beside its ``__init__.py``
STYLESHEET = "board.tcss"


@cache
def boards() -> dict[str, str]:
    """Every board: the id of the game it draws -> its package's name, no board's code loaded."""
    found: dict[str, str] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if not info.ispkg:
            continue
        name = f"{__name__}.{info.name}"
        game_id = getattr(importlib.import_module(name), "ID", None)
        if isinstance(game_id, str):
            found[game_id] = name
    return found


def board_class(game_id: str) -> type[Board] | None:
    """The Board subclass that draws ``game_id``, or None if no board package draws it."""
    from tui.widgets import Board

    name = boards().get(game_id)
    if name is None:
        return None
    board = getattr(importlib.import_module(name), "BOARD", None)
    return board if isinstance(board, type) and issubclass(board, Board) else None


def stylesheet(game_id: str) -> Path | None:
    """The stylesheet of ``game_id``'s board, or None if its folder has none."""
    name = boards().get(game_id)
    if name is None:
        return None
    path = Path(importlib.import_module(name).__file__ or "").with_name(STYLESHEET)
    return path if path.is_file() else None


def stylesheets() -> list[Path]:
    """Every board's stylesheet, in the registry's order (the app loads them all)."""
    return [path for path in map(stylesheet, boards()) if path is not None]


def lazy_board(namespace: dict[str, Any], module: str, cls: str) -> Callable[[str], Any]:
    """A board package's module ``__getattr__``: ``BOARD`` (and the class by its own
    name) are imported from ``module`` the first time they are asked for."""

    def __getattr__(name: str) -> Any:
        if name in ("BOARD", cls):
            board = getattr(importlib.import_module(module), cls)
            namespace.update({"BOARD": board, cls: board})
            return board
        raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")

    return __getattr__
