"""Edgar & Lucien's board: the map of Fosko, the players, the programming and action dialogs."""

from screens.games import lazy_board

ID = "edgar-lucien"

# The board's code loads on first use, so that finding the boards stays cheap.
__getattr__ = lazy_board(globals(), "screens.games.edgar_lucien.board", "EdgarLucienBoard")
