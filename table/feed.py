"""A seat's feed: how a table screen is told of a table and acts at it, the same whether the
table is played on this terminal or joined over the network.

A feed delivers messages to the screen (``open(deliver)``), the ones a server sends a client
(``net.protocol``): ``update`` (``Table.update_for``), ``error`` and ``info`` (a sentence),
``view_at`` (a past view asked for), ``bye`` (closed for good, or ``come_back``); and two of
its own: ``thinking`` (a bot thinks, or stopped) and ``connection`` (``up``: lost, or back).
The screen takes every update into the feed's :class:`~table.seat.SeatLog` and draws it; it
acts through :meth:`command`, :meth:`takeback`, :meth:`look_back`, :meth:`sit` and
:meth:`hold`.  :class:`LocalFeed` is a table played here; ``net.client.RemoteFeed`` one
joined.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from core.engine import PUBLIC, Command, Match, Viewer
from table.bots import BotRunner, Thinker, think_in_thread
from table.seat import SeatLog
from table.table import HISTORY_CHUNK, Table

Deliver = Callable[[dict[str, Any]], None]


class Feed(Protocol):
    #: what the seat whose eyes the screen shows knows
    log: SeatLog
    #: the seats played on this terminal (several at a hot-seat table; none for a spectator)
    here: list[int]

    def open(self, deliver: Deliver) -> None: ...

    def sit(self, seat: Viewer) -> None:
        """Another seat of this terminal's sits down (hot-seat): everything is told again as it sees it."""

    def command(self, command: Command) -> None: ...

    def takeback(self) -> None: ...

    def look_back(self, n: int | None) -> dict[str, Any] | None:
        """The seat's view after ``n`` events, if it can be had now; else None, and a
        ``view_at`` message brings it (None: back to the table as it is)."""

    def answered(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """A ``view_at`` message: the view of the position looked at now, if known at last."""

    def showed_own_move(self, seat: int) -> bool:
        """Whether the last move of the table was ``seat``'s and showed it something it did
        not know (a card drawn, a turn won): its player should see it before passing on."""

    def hold(self, held: bool) -> None:
        """While held, the table does not move on here (a curtain between players, a score
        sheet being read); a served table does not wait."""

    @property
    def thinking(self) -> int | None:
        """The bot seat whose move is being thought of, if this feed knows."""

    def where(self) -> str:
        """Where the game is kept, in a sentence."""

    def leave(self) -> str | None:
        """The player leaves the table (it goes on, or waits): what to tell them."""

    @property
    def can_replay(self) -> bool:
        """Whether :meth:`replay` can open the game's replay here (a game joined with a code
        has its save on the host's machine): the game-over dialog offers it only then."""

    def replay(self, app: Any) -> None:
        """Open the game's replay (``app``: the application), or say why it cannot be here."""

    def close(self) -> None:
        """The screen is gone: nothing more is delivered, and what the feed holds is let go."""


def local_log(table: Table, seat: Viewer) -> SeatLog:
    """What ``seat`` knows of a table on this terminal: the first update of a seat brings the
    newest events, those its history shows (``LocalFeed.tell``), and the log takes the others
    from the table, as the seat may see them, when it reads them."""
    log = SeatLog(table.game, seat, table.description())
    log.earlier = lambda start, end: [event for _, event in table.redacted(log.seat, start, end)]
    return log


class LocalFeed:
    """A table played on this terminal: its save, its bots (thinking in a thread), its seats'
    players taking turns at the keyboard."""

    def __init__(
        self,
        table: Table,
        path: Path,
        delay: Callable[[], float] = lambda: 0.0,
        think: Thinker = think_in_thread,
        listed: bool = True,
    ) -> None:
        """``listed``: the save is in the folder the menu lists (the save folder), not one
        opened from elsewhere (``cabinet load PATH``)."""
        self.table = table
        self.path = path
        self.listed = listed
        self.here = table.humans()
        self.log = local_log(table, self.here[0] if self.here else PUBLIC)
        self.told = 0
        self.held = False
        self.deliver: Deliver = lambda message: None
        self.runner = BotRunner(
            table,
            think,
            delay=delay,
            held=lambda: self.held,
            said=lambda sentence: self.deliver({"t": "error", "message": sentence}),
            thinking=lambda seat: self.deliver({"t": "thinking", "seat": seat}),
        )
        table.watchers.append(self.changed)
        if table.writer is not None:
            table.writer.on_error = lambda sentence: self.deliver({"t": "error", "message": sentence})

    @property
    def match(self) -> Match:
        return self.table.match

    def open(self, deliver: Deliver) -> None:
        self.deliver = deliver
        self.tell()
        self.runner.kick()

    def tell(self) -> None:
        update = self.table.update_for(self.log.seat, self.told, newest=HISTORY_CHUNK)
        self.told = update["n"]
        self.deliver(update)

    def changed(self, cut: bool) -> None:
        if cut:
            self.told = min(self.told, len(self.match.events))
        self.tell()
        self.runner.kick()

    def sit(self, seat: Viewer) -> None:
        if seat == self.log.seat:
            return
        self.log.seat = seat
        self.log.forget()
        self.told = 0
        self.tell()

    def command(self, command: Command) -> None:
        seat = self.log.seat
        if not isinstance(seat, int):
            self.deliver({"t": "error", "message": "A spectator cannot play."})
            return
        refusal = self.table.submit(seat, command)
        if refusal is not None:
            self.deliver({"t": "error", "message": refusal})

    def takeback(self) -> None:
        seat = self.log.seat
        if not isinstance(seat, int):
            self.deliver({"t": "error", "message": "A spectator has no move to take back."})
            return
        self.runner.stop()  # a bot's answer to the position taken back is no answer
        refusal = self.table.take_back(seat)
        if refusal is not None:
            self.deliver({"t": "error", "message": refusal})
            self.runner.kick()
        else:
            self.deliver({"t": "info", "message": "Move taken back."})

    def look_back(self, n: int | None) -> dict[str, Any] | None:
        if n is None or not 0 <= n < len(self.match.events):
            return None
        return self.table.view_at(self.log.seat, n)

    def answered(self, message: dict[str, Any]) -> dict[str, Any] | None:
        return None  # nothing is ever asked: every past view is here

    def showed_own_move(self, seat: int) -> bool:
        moves = self.match.moves
        if not moves or moves[-1].seat != seat:
            return False
        move, reveals = moves[-1], self.table.game.reveals
        return any(reveals(event, seat) for event in self.match.events[move.start : move.end])

    def hold(self, held: bool) -> None:
        self.held = held
        if not held:
            self.runner.kick()

    @property
    def thinking(self) -> int | None:
        return self.runner.thinking

    def where(self) -> str:
        return f"Every move is saved as it is played, in {self.path}."

    @property
    def can_replay(self) -> bool:
        return True

    def replay(self, app: Any) -> None:
        in_play = self.match.outcome is None
        viewer = self.log.seat if in_play else None
        app.open_replay(self.match, self.path, viewer=viewer, locked=in_play and isinstance(viewer, int))

    def leave(self) -> str | None:
        if self.match.outcome is None:
            return f"Saved: {self.path.name}. Continue it from the menu."
        if self.listed:
            return f"The game is kept in {self.path.name}: Replay a game, in the menu, shows it again."
        return f"The game is kept in {self.path}."  # the menu's Replay lists the save folder alone

    def close(self) -> None:
        self.runner.stop(closing=True)
        self.deliver = lambda message: None
        self.table.close()
