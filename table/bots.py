"""The bots of a table: who is to move, what a bot is given, and the one loop that plays them.

A bot is made afresh for every position it moves at, from its level and a seed of the
table's bot seed, its seat and the position (:func:`bot_seed`): it keeps nothing from one
move to the next, so a move taken back and played again gets the same answer, a replay
of ``simulate`` is the same game, and any thread or worker process can think for any
table.  What a bot is given is a :class:`BotTurn`: what its seat may know, never the state.

Where the thinking happens is the caller's: :meth:`BotRunner` awaits a ``think``
function (a thread at a local table, the worker pool of a server), and
``Table.play_out`` thinks inline (``simulate``, tests).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from core.bots import bot_inputs, choose_safely, make_bot
from core.engine import Bot, Command, Game, Match
from core.games import get_game

if TYPE_CHECKING:
    from table.table import Table

#: the level a bot seat plays at when its save does not say (saves of the first Cabinets)
UNSAID_LEVEL = "random"


def bot_level(match: Match, seat: int, unsaid: str | None = None) -> str:
    """``seat``'s bot level: the header's, else ``unsaid`` (a human seat played by a bot in a
    test, a save of the first Cabinets), else a random bot's."""
    return str(match.header["seats"][seat].get("level") or unsaid or UNSAID_LEVEL)


def bot_seed(match: Match, seat: int, position: int) -> int:
    """The seed of ``seat``'s bot at ``position`` (events so far): from the header's bot seed,
    never the match's seed (that one decides the shuffles, which a bot must not recompute)."""
    return (int(match.header.get("bot_seed", 0)) * 31 + seat) * 1_000_003 + position


@dataclass(frozen=True)
class BotTurn:
    """A bot's move to think of: everything it is given (picklable, for a worker process)."""

    game: str
    seat: int
    level: str
    seed: int
    #: the number of events when it was asked: its answer is for this position only
    position: int
    view: dict[str, Any]
    legal: list[Command]
    known: Any


def turn_for(match: Match, seat: int, level: str | None = None) -> BotTurn:
    view, legal, known = bot_inputs(match.game, match.state, seat)
    position = len(match.events)
    return BotTurn(
        match.game.id,
        seat,
        bot_level(match, seat, level),
        bot_seed(match, seat, position),
        position,
        view,
        legal,
        known,
    )


def bot_for(match: Match, seat: int, level: str | None = None) -> Bot:
    """The bot the table makes for ``seat`` at this position (see :func:`bot_level`)."""
    return make_bot(match.game, bot_level(match, seat, level), bot_seed(match, seat, len(match.events)))


def think(turn: BotTurn, game: Game | None = None) -> tuple[Command, str | None]:
    """The bot's command for ``turn``, and None; or, should it fail, another legal command
    and the sentence that says what happened (see :func:`core.bots.choose_safely`).
    Runs anywhere: in the table's thread, a thread of its own, a worker process (which finds
    the game by its id; inline, the table gives its own)."""
    game = game or get_game(turn.game)
    assert game is not None, f"no game {turn.game!r} here"
    return choose_safely(game, make_bot(game, turn.level, turn.seed), turn.view, turn.legal, turn.known)


async def think_in_thread(turn: BotTurn) -> tuple[Command, str | None]:
    return await asyncio.to_thread(think, turn)


Thinker = Callable[[BotTurn], Awaitable[tuple[Command, str | None]]]


class BotRunner:
    """Plays a table's bots on an event loop, one move after the other: the one loop that
    drives bots, at a local table (thinking in a thread) as in a server (in worker processes).

    :meth:`kick` after anything that may give a bot the move; :meth:`stop` when the position
    the bot thinks of is gone (a take-back) or the table closes.  ``held``: while it says
    so, no bot move lands (a curtain between two players, a score sheet being read); the
    answer waits, and lands at the next :meth:`kick` if the position is still the same.
    ``delay``: a bot's move lands at least that long after the last move, so that a player
    can follow.  ``said``: a bot's failure, in one sentence.
    """

    def __init__(
        self,
        table: Table,
        think: Thinker = think_in_thread,
        delay: float | Callable[[], float] = 0.0,
        held: Callable[[], bool] = lambda: False,
        said: Callable[[str], None] = lambda sentence: None,
        thinking: Callable[[int | None], None] = lambda seat: None,
    ) -> None:
        self.table = table
        self.think = think
        self.delay = delay
        self.held = held
        self.said = said
        self.told_thinking = thinking
        self.task: asyncio.Task[None] | None = None
        #: an answer thought of while the table was held: (its turn, its command)
        self.waiting: tuple[BotTurn, Command] | None = None
        #: the seat whose move is being thought of (for a status line; ``thinking`` is told of each change)
        self.thinking: int | None = None

    def think_of(self, seat: int | None) -> None:
        if seat != self.thinking:
            self.thinking = seat
            self.told_thinking(seat)

    def kick(self) -> None:
        """Start the bots' loop if a bot must move and it is not running."""
        if (self.task is None or self.task.done()) and self.table.bot_to_move() is not None:
            self.task = asyncio.get_running_loop().create_task(self.run())

    def stop(self, closing: bool = False) -> None:
        """No bot answer lands from now on (until :meth:`kick`).  ``closing``: the table is
        left, nobody is told any more."""
        if closing:
            self.told_thinking = lambda seat: None
            self.said = lambda sentence: None
        self.waiting = None
        self.think_of(None)
        if self.task is not None:
            self.task.cancel()
            self.task = None

    def pause(self) -> float:
        return self.delay() if callable(self.delay) else self.delay

    async def run(self) -> None:
        table = self.table
        try:
            while not self.held():
                seat = table.bot_to_move()
                if seat is None:
                    return
                if self.waiting is not None and self.waiting[0].position == len(table.match.events):
                    turn, command = self.waiting
                else:
                    turn = table.bot_turn(seat)
                    self.think_of(seat)
                    began = time.monotonic()
                    command, failure = await self.think(turn)
                    if failure:
                        self.said(f"{table.name(seat)}: {failure}")
                    rest = self.pause() - (time.monotonic() - began)
                    if rest > 0:
                        await asyncio.sleep(rest)
                    self.think_of(None)
                self.waiting = None
                if self.held():
                    self.waiting = (turn, command)
                    return
                refusal = table.bot_answer(turn, command)
                if refusal is not None:
                    self.said(f"{table.name(seat)} (bot) tried an illegal move: {refusal}")
                    return
        finally:
            self.think_of(None)
