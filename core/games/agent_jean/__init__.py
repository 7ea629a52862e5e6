"""L'Agent Jean!: trick-taking against the Beaver's Machiavellian plans (2-5 players)."""

from core.games.agent_jean.rules import AgentJean

GAME = AgentJean()

__all__ = ["GAME", "AgentJean"]
