"""1988: Chirac contre Mitterrand: the 1988 presidential race, for two players or solo."""

from core.games import lazy_rules

ID = "chirac-mitterrand"
TITLE = "1988: Chirac contre Mitterrand"

# The rules load on first use, so that listing the games stays cheap.
__getattr__ = lazy_rules(globals(), "core.games.chirac_mitterrand.rules", "ChiracMitterrand")
