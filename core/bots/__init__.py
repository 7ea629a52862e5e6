"""Game-independent bots and the loop that lets bots play a match."""

from __future__ import annotations

from core.engine import Bot, Command, Match


def bot_command(match: Match, seat: int, bot: Bot) -> Command:
    """The command ``bot`` chooses for ``seat``, from that seat's view alone."""
    game = match.game
    view = game.view(match.state, seat)
    return bot.choose(game, view, game.legal(match.state, seat))


def bots_for(match: Match, default_level: str = "random") -> dict[int, Bot]:
    """One bot per seat, of the seat's level, seeded by the header's bot seed."""
    seed = int(match.header.get("bot_seed", 0))
    bots = {}
    for i, s in enumerate(match.header["seats"]):
        level = s.get("level") or default_level
        bots[i] = match.game.bot(level, seed * 31 + i)
    return bots


def play_out(match: Match, bots: dict[int, Bot], max_moves: int = 100_000) -> None:
    """Let bots play every seat until the game ends (simulate, tests)."""
    for _ in range(max_moves):
        active = match.active()
        if not active:
            return
        seat = active[0]
        match.submit(seat, bot_command(match, seat, bots[seat]))
    raise RuntimeError(f"{match.game.id}: no end after {max_moves} moves")
