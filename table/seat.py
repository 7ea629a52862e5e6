"""What one seat knows of a table, as its updates told it: the same at a table played on this
terminal (``table.feed.LocalFeed``) and at one joined over the network (``net.client``).

A :class:`SeatLog` holds only what its seat was sent (``Table.update_for``): the events as
redacted for it, its view and legal commands, who must act and who is away, the outcome, the
moves' boundaries, and the past views it was given.  The game's code is used only to put
those in words.  The status line, the history's lines and what counts as news are worked out
here once, for every table screen.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from typing import Any

from core.engine import PUBLIC, Command, Event, Game, Viewer, outcome_sentence
from table.table import history_lines

#: past views kept for browsing the history, the first kept going first (a view is 10-15 kB in
#: memory: a seat holds 2 MB of them at most)
PAST_VIEWS = 128
#: the longest "whose move, deciding what" sentence taken from a server (a few names and words)
WAITING_CHARS = 240


class SeatLog:
    def __init__(self, game: Game | None = None, seat: Viewer = PUBLIC, table: dict[str, Any] | None = None) -> None:
        self.game = game
        self.seat: Viewer = seat
        #: the table's public description (``Table.description``): its game, seats' names and kinds
        self.table: dict[str, Any] = table or {}
        #: as redacted for this seat; None before ``base``, the events not taken in yet
        self.events: list[Event | None] = []
        #: the events before it are not taken in yet: ``earlier`` gives them when they are read
        self.base = 0
        #: the events ``start`` to ``end`` as redacted for this seat, from where they are (a
        #: table on this terminal: ``LocalFeed``); None: every update brings every event
        self.earlier: Callable[[int, int], list[Event]] | None = None
        #: each move's end (events after it) and seat (None: the setup), in order
        self.moves: list[tuple[int, int | None]] = []
        self.view: dict[str, Any] | None = None
        self.legal: list[Command] | None = None
        self.active: list[int] = []
        self.away: list[int] = []
        #: the seats the last update said went away, and came back (players at this table are told)
        self.went_away: list[int] = []
        self.came_back: list[int] = []
        #: whose move it is and what they decide, while this seat waits (the table's sentence)
        self.waiting: str | None = None
        self.outcome: dict[str, Any] | None = None
        #: the seat's view after n events, as it was sent (an update's, or an answer's)
        self.past: dict[int, dict[str, Any]] = {}
        #: the last update cut the log back (a take-back): the history is to be drawn again
        self.reset = False
        #: the last update told the seat everything from the start (the first, or once forgotten)
        self.anew = False

    def forget(self) -> None:
        """Everything told so far is dropped: the next update tells it all again (joined again,
        another seat's eyes at a hot-seat table)."""
        self.events = []
        self.base = 0
        self.moves = []
        self.past.clear()

    # -- taking updates in ------------------------------------------------------------

    def apply(self, update: dict[str, Any]) -> list[tuple[int, Event]]:
        """Take in an update; the events it brought, with their numbers."""
        new = []
        self.anew = not self.events
        start = update.get("from")
        self.reset = isinstance(start, int) and 0 <= start < len(self.events)
        if isinstance(start, int) and self.reset:
            del self.events[start:]  # taken back
            self.base = min(self.base, start)
            self.moves = [move for move in self.moves if move[0] <= start]
            for n in [n for n in self.past if n > start]:
                del self.past[n]  # positions past the cut were of moves that are gone
        events = self.events
        base = update.get("base")
        if not events and self.earlier is not None and type(base) is int and 0 < base <= (update.get("n") or 0):
            # a first update with the newest events only: the others are asked for when read
            events += [None] * base
            self.base = base
        for index, event in update.get("events") or ():
            if index == len(events):
                events.append(event)
                new.append((index, event))
        told = len(events)
        moves = update.get("moves")
        if moves:  # (every update after a move has one or two; the checks are the cheap ones)
            last = self.moves[-1][0] if self.moves else 0
            for entry in moves:
                end, seat = entry
                if type(end) is int and last < end <= told and (seat is None or type(seat) is int):
                    self.moves.append((end, seat))
                    last = end
        self.view = view = update.get("view")
        if type(view) is dict and update.get("n") == told:
            past = self.past  # kept for the history, as keep() does, without a call a move
            past.pop(told, None)
            past[told] = view
            if len(past) > PAST_VIEWS:
                del past[next(iter(past))]
        self.legal = update.get("legal")
        active, away = update.get("active"), update.get("away")  # lists, as decoded
        self.active = active if type(active) is list else list(active or [])
        before = self.away
        self.away = away if type(away) is list else list(away or [])
        # who went away and who came back with this update (not told of a first update: news only)
        self.went_away = [] if self.anew else [seat for seat in self.away if seat not in before]
        self.came_back = [] if self.anew else [seat for seat in before if seat not in self.away]
        self.outcome = update.get("outcome")
        waiting = update.get("waiting")
        self.waiting = waiting[:WAITING_CHARS] if type(waiting) is str else None
        return new

    def keep(self, n: int, view: dict[str, Any]) -> None:
        """The view after ``n`` events, kept for the history (the latest ``PAST_VIEWS``)."""
        self.past.pop(n, None)
        self.past[n] = view
        if len(self.past) > PAST_VIEWS:
            del self.past[next(iter(self.past))]

    # -- reading it -----------------------------------------------------------------------

    def lines(self, new: list[tuple[int, Event]]) -> list[tuple[int, str, str | None]]:
        """History lines for events, as HistoryPanel takes them."""
        assert self.game is not None
        return history_lines(self.game, new, self.seat)

    def lines_between(self, start: int, end: int) -> list[tuple[int, str, str | None]]:
        """History lines of events ``start`` to ``end`` (what a history panel builds at a time)."""
        start, end = max(0, start), min(end, len(self.events))
        self.take_in_from(start)
        events = self.events
        return self.lines([(i, event) for i in range(start, end) if (event := events[i]) is not None])

    def take_in_from(self, start: int) -> None:
        """The events from ``start`` on taken in, where a first update left them out."""
        if start < self.base and self.earlier is not None:
            self.events[start : self.base] = self.earlier(start, self.base)
            self.base = start

    def name(self, seat: Viewer) -> str:
        if isinstance(seat, int):
            return str(self.table["seats"][seat]["name"])
        return "Spectator"

    def names(self) -> list[str]:
        return [str(seat["name"]) for seat in self.table.get("seats", [])]

    def humans(self) -> list[int]:
        return [i for i, seat in enumerate(self.table.get("seats", [])) if seat.get("kind", "human") != "bot"]

    def outcome_text(self, why: bool = True) -> str:
        if self.outcome is None:
            return ""
        names = [self.name(s) for s in self.outcome["winners"]]
        return outcome_sentence(names, str(self.outcome["reason"]), str(self.outcome.get("victor") or ""), why=why)

    @property
    def move_count(self) -> int:
        """How many moves the players (and bots) have made: the setup is not one."""
        return max(0, len(self.moves) - 1)

    def moves_within(self, n: int) -> int:
        """How many moves are complete within the first ``n`` events."""
        return bisect.bisect_right([end for end, _ in self.moves[1:]], n)

    def move_at(self, n: int) -> int:
        """The move the table shows after the first ``n`` events: the moves complete by then, and
        the one under way if ``n`` falls inside it (its first events are shown: a card played
        before the trick it ends)."""
        ends = [end for end, _ in self.moves]
        if not ends or n <= ends[0]:
            return 0  # the setup
        done = bisect.bisect_right(ends, n, lo=1) - 1  # the moves complete by then
        return done if ends[done] == n else done + 1

    def last_own_move(self) -> int:
        """The number of events once this seat's last move was made (the setup's end if it has
        made none): what follows is news to its player."""
        for end, seat in reversed(self.moves):
            if seat is not None and seat == self.seat:
                return end
        return self.moves[0][0] if self.moves else 0

    def my_move(self) -> bool:
        return isinstance(self.seat, int) and self.seat in self.active

    def waiting_sentence(self, thinking: int | None = None) -> str:
        """The status of a game in play, as this seat sees it.  In a phase where several seats act
        at once (a programme, a secret choice), its own move comes first, and the others acting
        are named; otherwise whom it waits for, a bot thinking, who is away."""
        away = set(self.away)

        def called(seat: int) -> str:
            return self.name(seat) + (" (away)" if seat in away else "")

        others = [seat for seat in self.active if seat != self.seat]
        if self.my_move():
            text = f"{self.name(self.seat)}, your move."
            if others:
                text += f" Also choosing: {', '.join(called(s) for s in others)}."
        elif thinking is not None and thinking in self.active:
            text = f"{self.name(thinking)} is thinking…"
        else:
            text = f"Waiting for {', '.join(called(s) for s in self.active)}."
        idle = [self.name(s) for s in self.away if s not in self.active]
        if idle:
            text += f" Away: {', '.join(idle)}."
        return text
