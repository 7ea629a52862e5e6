"""L'Agent Jean!: trick-taking against the Beaver's Machiavellian plans (2-5 players)."""

from core.games import lazy_rules

ID = "agent-jean"
TITLE = "L'Agent Jean!"

# The rules load on first use, so that listing the games stays cheap.
__getattr__ = lazy_rules(globals(), "core.games.agent_jean.rules", "AgentJean")
