"""One table, run in one place: its match, its save, its bots' turns, the take-back rule,
and what each seat is told.

A local game (one terminal, against bots or hot-seat), a game hosted with ``cabinet host``
and a table of ``cabinet serve`` are each a :class:`Table`; only where the bots think and
how the seats are reached differ (``table.bots.BotRunner``, ``net.server``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from core.engine import Bot, Command, Game, IllegalCommand, Match, Outcome, Viewer, outcome_text
from table.bots import BotTurn, think, turn_for

if TYPE_CHECKING:
    from saves import SaveWriter

#: the rule every table applies, said once (the README says it too)
TAKE_BACK_RULE = (
    "A player may take back their own last move while no other human has moved since and "
    "nothing hidden was revealed to anyone since; against bots, the bots' answers go with it."
)


def outcome_record(outcome: Outcome | None) -> dict[str, Any] | None:
    """An outcome as a seat is told it."""
    if outcome is None:
        return None
    told: dict[str, Any] = {"winners": list(outcome.winners), "reason": outcome.reason}
    if outcome.victor:
        told["victor"] = outcome.victor
    return told


class Table:
    """A match being played, with its save.

    Every change goes through :meth:`submit`, :meth:`bot_answer` or :meth:`take_back`, and
    every watcher is told of it (``watch(cut)``: ``cut`` when the log was cut back).  Saving
    is a step of each change, taken here before anybody is told of it: every move accepted
    is recorded by the save's ``writer`` (:meth:`SaveWriter.record`), and a take-back cuts
    the save back (:meth:`SaveWriter.cut_back`).  A save that cannot be written is said by
    the writer (its ``error`` and ``on_error``); the game goes on.
    """

    def __init__(self, match: Match, writer: SaveWriter | None = None) -> None:
        self.match = match
        self.game = match.game
        self.writer = writer
        self.watchers: list[Callable[[bool], None]] = []
        #: bumped by every change: a seat told at this version has been told everything
        self.version = 0
        self._now: tuple[Any, tuple[tuple[int, ...], dict[str, Any] | None, str | None]] = (None, ((), None, None))

    # -- who sits here ---------------------------------------------------------------------

    def name(self, seat: Viewer) -> str:
        """A seat's player's name; a spectator's eyes are "Spectator"."""
        if not isinstance(seat, int):
            return "Spectator"
        return str(self.match.header["seats"][seat]["name"])

    def names(self) -> list[str]:
        return [str(seat["name"]) for seat in self.match.header["seats"]]

    def is_bot(self, seat: int) -> bool:
        return self.match.is_bot(seat)

    def humans(self) -> list[int]:
        return self.match.humans()

    def bot_seats(self) -> list[int]:
        return [seat for seat in range(self.match.header["players"]) if self.is_bot(seat)]

    @property
    def outcome(self) -> Outcome | None:
        return self.match.outcome

    def active(self) -> tuple[int, ...]:
        return self.match.active()

    def outcome_text(self, why: bool = True) -> str:
        return outcome_text(self.match, why=why)

    # -- changes ----------------------------------------------------------------------------

    def submit(self, seat: int, command: Any) -> str | None:
        """``seat`` plays ``command``: None, or the sentence why it may not (nothing changed)."""
        if not isinstance(command, dict) or not isinstance(command.get("t"), str):
            return "A command must be a map with a type."
        try:
            self.match.submit(seat, command)
        except IllegalCommand as exc:
            return str(exc)
        except Exception:  # noqa: BLE001 - a command the rules cannot even read (they may raise anything): it changed nothing
            return "This game has no such command."
        if self.writer is not None:
            self.writer.record(self.match.moves[-1])
        self.changed(cut=False)
        return None

    def changed(self, cut: bool) -> None:
        self.version += 1
        for watch in list(self.watchers):
            watch(cut)

    # -- taking a move back: the one rule ----------------------------------------------------

    def takeback_point(self, seat: int) -> int | None:
        """How many moves are kept when ``seat`` takes its last move back; None when it may not."""
        return self._takeback(seat)[0]

    def takeback_refusal(self, seat: int) -> str | None:
        """Why ``seat`` may not take its last move back now, in one sentence; None when it may."""
        return self._takeback(seat)[1]

    def _takeback(self, seat: int) -> tuple[int | None, str | None]:
        match = self.match
        if match.outcome is not None:
            return None, "The game is over: its moves stay played."
        mine = next((i for i in range(len(match.moves) - 1, 0, -1) if match.moves[i].seat == seat), None)
        if mine is None:
            return None, "You have made no move yet to take back."
        for move in match.moves[mine + 1 :]:
            if move.seat is not None and not self.is_bot(move.seat):
                return None, f"Your last move cannot be taken back: {self.name(move.seat)} has played since."
        move = match.moves[mine]
        others = [human for human in self.humans() if human != seat]
        shown = next(
            (
                other
                for event in match.events[move.start : move.end]
                for other in others
                if self.game.reveals(event, other)
            ),
            None,
        )
        if shown is not None:
            return (
                None,
                f"Your last move cannot be taken back: it showed {self.name(shown)} what was hidden (a card, a choice).",
            )
        if any(self.game.reveals(event, seat) for event in match.events[move.start : move.end]):
            return None, "Your last move cannot be taken back: it showed you what was hidden (a card drawn, a result)."
        since = match.events[move.end :]
        if any(self.game.reveals(event, human) for event in since for human in [seat, *others]):
            return None, "Your last move cannot be taken back: something hidden was shown since (a card, a result)."
        return mine, None

    def take_back(self, seat: int) -> str | None:
        """``seat``'s last move taken back, with the bots' answers since: None, or the
        sentence why not (nothing changed).  A save that cannot be cut back is said by the
        writer (its ``on_error``); the table goes on from the position taken back."""
        point, refusal = self._takeback(seat)
        if point is None:
            return refusal
        self.match.truncate_moves(point)
        if self.writer is not None:
            self.writer.cut_back()
        self.changed(cut=True)
        return None

    # -- bots --------------------------------------------------------------------------------

    def bot_to_move(self) -> int | None:
        """The first bot seat that must act now, if any."""
        return next((seat for seat in self.match.active() if self.is_bot(seat)), None)

    def bot_turn(self, seat: int, level: str | None = None) -> BotTurn:
        return turn_for(self.match, seat, level)

    def bot_answer(self, turn: BotTurn, command: Command) -> str | None:
        """A bot's answer to ``turn`` lands: None (played, or dropped because the position
        moved on and made it illegal: the bot thinks again), or why the rules refused it."""
        match = self.match
        if turn.seat not in match.active():
            return None
        if turn.position != len(match.events) and command not in self.game.legal(match.state, turn.seat):
            return None
        return self.submit(turn.seat, command)

    def bot_move(self, seat: int, bot: Bot | None = None, level: str | None = None) -> Command:
        """What ``seat``'s bot plays here and now, thought of inline: its own (the header's
        level; a human seat's is ``level``, else a random bot's), or ``bot``'s (tests of a bot)."""
        turn = self.bot_turn(seat, level)
        if bot is not None:
            return bot.choose(self.game, turn.view, turn.legal, turn.known)
        return think(turn, self.game)[0]

    def play_out(
        self,
        bots: Mapping[int, Bot] | None = None,
        level: str | None = None,
        max_moves: int = 100_000,
        timed: Callable[[int, float, int], None] | None = None,
    ) -> None:
        """Bots play every seat, here and now, until the game ends (``simulate``, tests): each
        seat's bot as :meth:`bot_move` makes it (``bots``: a seat's own bot instead).
        ``timed(seat, seconds, choices)``: each move's thinking."""
        import time

        for _ in range(max_moves):
            active = self.match.active()
            if not active:
                return
            seat = active[0]
            began = time.perf_counter()
            command = self.bot_move(seat, (bots or {}).get(seat), level)
            if timed is not None:
                timed(seat, time.perf_counter() - began, len(self.game.legal(self.match.state, seat)))
            refusal = self.submit(seat, command)
            if refusal is not None:
                raise IllegalCommand(f"{self.name(seat)} (bot): {refusal}")
        raise RuntimeError(f"{self.game.id}: no end after {max_moves} moves")

    # -- what a seat is told -----------------------------------------------------------------

    def redacted(self, viewer: Viewer, start: int = 0, end: int | None = None) -> list[list[Any]]:
        """The events from ``start`` on (to ``end``), each ``[number, event as viewer may see it]``."""
        game, events = self.game, self.match.events
        end = len(events) if end is None else min(end, len(events))
        return [[i, game.redact(events[i], viewer)] for i in range(start, end)]

    def history(self, viewer: Viewer, start: int = 0, end: int | None = None) -> list[tuple[int, str, str | None]]:
        """The history's lines of events ``start`` to ``end`` (the last, by default), as ``viewer`` saw them."""
        return history_lines(self.game, self.redacted(viewer, start, end), viewer)

    def update_for(
        self, viewer: Viewer, told: int, away: Iterable[int] = (), newest: int | None = None
    ) -> dict[str, Any]:
        """What ``viewer`` (a seat, or a spectator) is told once it was told ``told`` events:
        the events since as it may see them, the moves they make, its view, its legal moves,
        who must act, who is away, the outcome.  The same update reaches a seat on this terminal and one over the
        network (``net.protocol`` carries it as it is).

        ``newest``: of a first update (``told`` 0), only the newest this many events as the
        seat may see them, the others counted (``"base"``: how many there are before them),
        for a seat's log that asks for them when it needs them (:attr:`SeatLog.earlier`, a
        table on this terminal: opening a long game redacts only what its history shows)."""
        match, game = self.match, self.game
        n = len(match.events)
        told = max(0, min(told, n))
        base = max(0, n - newest) if newest is not None and told == 0 else told
        active, ended, waiting = self.now()
        moves = match.moves
        first = len(moves)  # the first move ending after ``told``: from the end, where it is nearly always
        while first and moves[first - 1].end > told:
            first -= 1
        update = {
            "t": "update",
            "n": n,
            "from": told,  # under what the seat holds: a take-back cut the log
            "events": self.redacted(viewer, base),
            # each move's end and seat, from the first ending after ``told``: the seat counts
            # moves as players do, and knows which were its own (what is news since)
            "moves": [[move.end, move.seat] for move in moves[first:]],
            "view": game.view(match.state, viewer),
            "legal": game.legal(match.state, viewer) if isinstance(viewer, int) and viewer in active else None,
            "active": list(active),
            # whose move it is and what they decide, for a seat that waits (public: no seat's secret)
            "waiting": None if viewer in active else waiting,
            "away": [seat for seat in away if not self.is_bot(seat)],
            "outcome": ended,
        }
        if base != told:
            update["base"] = base  # the events before it are not in this update (see ``newest``)
        return update

    def now(self) -> tuple[tuple[int, ...], dict[str, Any] | None, str | None]:
        """What every seat is told alike of the table as it is: who must act, the outcome as
        told, whose move it is and what they decide (None once over); worked out once for
        all the seats told of a change (the rules' outcome is not free: Ministères counts
        its lots)."""
        match = self.match
        key = (id(match), self.version, len(match.events))  # (the match is the table's while it lives)
        if self._now[0] != key:
            outcome = match.outcome
            waiting = None if outcome is not None else self.game.waiting_for(match.state)
            self._now = (key, (match.active(), outcome_record(outcome), waiting))
        return self._now[1]

    def view_at(self, viewer: Viewer, n: int) -> dict[str, Any]:
        """``viewer``'s view of the table after the first ``n`` events."""
        return self.game.view(self.match.state_at(n), viewer)

    def description(self) -> dict[str, Any]:
        """What everybody may know of the table: no seed (it decides the shuffles)."""
        h = self.match.header
        return {
            "game": h["game"],
            "rules_version": h.get("rules_version"),
            "players": h["players"],
            "seats": [{"name": s["name"], "kind": s.get("kind", "human"), "level": s.get("level")} for s in h["seats"]],
            "variants": dict(h.get("variants") or {}),
        }

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


#: how many events' lines a history panel builds at first, the newest (a panel 40 rows high
#: is full with them): the rest when the player goes up to them, in chunks that double (a
#: game of 10,000 events opens without 10,000 lines)
HISTORY_CHUNK = 64


def history_lines(game: Game, events: Iterable[Sequence[Any]], viewer: Viewer) -> list[tuple[int, str, str | None]]:
    """The history's lines of ``events``, each ``(number, event as viewer may see it)``: for
    each event that says something, (events after it, its line, its mark): at a table here and
    on a client of a server alike (``table.redacted`` gives the events as a seat may see them)."""
    describe, mark = game.describe, game.mark
    lines = []
    for index, event in events:
        text = describe(event, viewer)
        if text:
            lines.append((index + 1, text, mark(event)))
    return lines
