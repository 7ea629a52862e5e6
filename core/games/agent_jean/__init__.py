"""L'Agent Jean!: trick-taking against the Beaver's Machiavellian plans (2-5 players)."""

from __future__ import annotations

from typing import Any

ID = "agent-jean"
TITLE = "L'Agent Jean!"


def __getattr__(name: str) -> Any:
    # The rules load on first use: listing the games stays cheap.
    if name in ("GAME", "AgentJean"):
        from core.games.agent_jean.rules import AgentJean

        globals().update(GAME=AgentJean(), AgentJean=AgentJean)
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
