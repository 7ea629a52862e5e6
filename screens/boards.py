"""Which board widget draws which game."""

from __future__ import annotations

from tui.widgets import Board


def board_for(game_id: str) -> Board:
    if game_id == "agent-jean":
        from screens.agent_jean import AgentJeanBoard

        return AgentJeanBoard(id="board")
    raise LookupError(f"No screen for game {game_id!r}.")
