"""Ministères: gifts then auctions over six ministries (2-5 players)."""

from core.games import lazy_rules

ID = "ministeres"
TITLE = "Ministères"

# The rules load on first use, so that listing the games stays cheap.
__getattr__ = lazy_rules(globals(), "core.games.ministeres.rules", "Ministeres")
