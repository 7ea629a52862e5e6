"""Edgar & Lucien: two henchmen each take control of the city of Fosko (2-4 players)."""

from core.games import lazy_rules

ID = "edgar-lucien"
TITLE = "Edgar & Lucien"

# The rules load on first use, so that listing the games stays cheap.
__getattr__ = lazy_rules(globals(), "core.games.edgar_lucien.rules", "EdgarLucien")
