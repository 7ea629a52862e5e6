"""The random bot: uniform over ``legal``.  Works for any game."""

from __future__ import annotations

from typing import Any

from core.engine import Bot, Command, Game, derive_rng


class RandomBot(Bot):
    level = "random"

    def __init__(self, seed: int) -> None:
        self.rng = derive_rng(seed, "random-bot")

    def choose(self, game: Game, view: dict[str, Any], legal: list[Command], known: Any = None) -> Command:
        return self.rng.choice(legal)
