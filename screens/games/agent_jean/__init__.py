"""L'Agent Jean!'s board: the plan pile, the turn's cards, the agents, your hand."""

from screens.games import lazy_board

ID = "agent-jean"

# The board's code loads on first use, so that finding the boards stays cheap.
__getattr__ = lazy_board(globals(), "screens.games.agent_jean.board", "AgentJeanBoard")
