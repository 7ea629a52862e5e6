"""Game-independent bots: making one of a level, what it is given, and its failures played around.

The loop that lets bots play a table is the table layer's (``table.bots``)."""

from __future__ import annotations

import importlib
from typing import Any

from core.engine import LEVEL_ALIASES, Bot, Command, ConfigError, Game


def make_bot(game: Game, level: str, seed: int) -> Bot:
    """A bot of that level for ``game``: ``random`` for every game, ``normal`` and
    ``hard`` the search bot with the game's :attr:`~Game.search_budget`, the others
    from its :attr:`~Game.bot_classes`; each imported only when a bot is wanted.
    Raises ConfigError for a level the game does not have."""
    level = LEVEL_ALIASES.get(level, level)
    if level == "random":
        from core.bots.random_bot import RandomBot

        return RandomBot(seed)
    if level in game.search_budget:
        from core.bots.search import SearchBot

        return SearchBot(seed, game.search_budget[level], level)
    if level in game.bot_classes:
        module, name = game.bot_classes[level].split(":")
        return getattr(importlib.import_module(module), name)(seed)
    raise ConfigError(f"{game.title} has no bot level {level!r} (levels: {', '.join(game.bot_levels)}).")


def bot_inputs(game: Game, state: Any, seat: int) -> tuple[dict[str, Any], list[Command], Any]:
    """What a bot is given to choose a move for ``seat``: the seat's view, its
    legal commands and what it knows (for a bot that simulates), taken from
    the state, which the bot itself never sees."""
    return game.view(state, seat), game.legal(state, seat), game.observe(state, seat)


def choose_safely(
    game: Game, bot: Bot, view: dict[str, Any], legal: list[Command], known: Any
) -> tuple[Command, str | None]:
    """The bot's command, and None; or, should the bot fail (a bug in a
    search must not end a game), the easy bot's command, or the first legal
    one, and a sentence saying what happened."""
    try:
        return bot.choose(game, view, legal, known), None
    except Exception as exc:  # noqa: BLE001 - any failure of a bot, reported and played around
        failure = f"the {bot.level} bot failed ({type(exc).__name__}: {exc})"
    try:
        command = make_bot(game, "easy", 0).choose(game, view, legal, known)
        if command in legal:
            return command, f"{failure}; the easy bot moved instead."
    except Exception:  # noqa: BLE001
        pass
    return legal[0], f"{failure}; it made the first legal move instead."
