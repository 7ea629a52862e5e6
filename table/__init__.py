"""The table layer: a table is run in one place, local or served.

``core`` holds the games' rules; ``saves`` their logs; this package runs a table (its match,
its save, its bots, the take-back rule, what each seat is told) for the command line, the
screens and the game server alike.

Its names are imported from their modules when first asked for (PEP 562): a module that
needs one constant of ``table.table`` (the main menu's widgets) does not import the bots and
the table specification with it (docs/PERFORMANCE.md, issue 35: start-up).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from table.bots import BotRunner, BotTurn, bot_seed, think
    from table.spec import SeatSpec, TableSpec, new_match, usual_players
    from table.table import TAKE_BACK_RULE, Table

_WHERE = {
    "BotRunner": "table.bots",
    "BotTurn": "table.bots",
    "bot_seed": "table.bots",
    "think": "table.bots",
    "SeatSpec": "table.spec",
    "TableSpec": "table.spec",
    "new_match": "table.spec",
    "usual_players": "table.spec",
    "TAKE_BACK_RULE": "table.table",
    "Table": "table.table",
}

__all__ = [
    "TAKE_BACK_RULE",
    "BotRunner",
    "BotTurn",
    "SeatSpec",
    "Table",
    "TableSpec",
    "bot_seed",
    "new_match",
    "think",
    "usual_players",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'table' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
