"""The table layer: a table is run in one place, local or served.

``core`` holds the games' rules; ``saves`` their logs; this package runs a table (its match,
its save, its bots, the take-back rule, what each seat is told) for the command line, the
screens and the game server alike.
"""

from table.bots import BotRunner, BotTurn, bot_seed, think
from table.spec import SeatSpec, TableSpec, new_match, usual_players
from table.table import TAKE_BACK_RULE, Table

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
