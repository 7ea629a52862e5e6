"""1988: Chirac contre Mitterrand's board: public opinion, the piles, erosion, your three cards."""

from screens.games import lazy_board

ID = "chirac-mitterrand"

# The board's code loads on first use, so that finding the boards stays cheap.
__getattr__ = lazy_board(globals(), "screens.games.chirac_mitterrand.board", "ChiracMitterrandBoard")
