"""Ministères' board: the six ministries, the centre, your hand by ministry, the auction."""

from screens.games import lazy_board

ID = "ministeres"

# The board's code loads on first use, so that finding the boards stays cheap.
__getattr__ = lazy_board(globals(), "screens.games.ministeres.board", "MinisteresBoard")
