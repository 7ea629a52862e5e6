"""Replay: step through a saved game move by move, as one seat saw it or all revealed."""

from __future__ import annotations

import bisect
from pathlib import Path
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from core.engine import ALL, PUBLIC, Match, Viewer, outcome_text
from screens.boards import TableScreen
from table import Table
from tui.widgets import Board, HistoryPanel, StatusLine

SPEEDS = (2.0, 1.0, 0.5, 0.25, 0.1)  # seconds a step


def moves_sentence(last: int) -> str:
    """What a move number may be, in one sentence: 'There are 57 moves: type a number from 0 to 57.'"""
    if last == 0:
        return "No move has been made yet: type 0, the start."
    if last == 1:
        return "There is 1 move: type 0 (the start) or 1."
    return f"There are {last} moves: type a number from 0 to {last}."


class GoTo(ModalScreen[int | None]):
    """Ask for a move number; anything else is answered in the dialog, which stays open."""

    DEFAULT_CSS = """
    GoTo #goto-box {
        width: 56;
        max-width: 100%;
        height: auto;
        border: round $accent;
        background: $surface;
        padding: 0 1;
    }
    GoTo #goto-problem {
        color: $text-error;
    }
    GoTo #goto-keys {
        color: $text-muted;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, last: int) -> None:
        super().__init__()
        self.last = last

    def compose(self) -> ComposeResult:
        with Vertical(id="goto-box"):
            yield Static(f"Go to move (0 to {self.last}):", id="goto-prompt")
            yield Input(placeholder=f"0 to {self.last}", max_length=12, compact=True, id="goto")
            yield Static("", id="goto-problem")
            yield Static("Enter goes there · Esc cancels", id="goto-keys")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if text.isascii() and text.isdigit() and int(text) <= self.last:
            self.dismiss(int(text))
            return
        self.query_one("#goto-problem", Static).update(moves_sentence(self.last))
        event.input.action_select_all()

    def on_input_changed(self, event: Input.Changed) -> None:
        self.query_one("#goto-problem", Static).update("")  # said of what was typed before

    def action_cancel(self) -> None:
        self.dismiss(None)


class ReplayScreen(TableScreen):
    # A pair of keys shows once in the footer (``←→ Move``), so that every key fits at 80 columns.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "step(-1)", "Move", key_display="←→", priority=True),
        Binding("right", "step(1)", "Forward", show=False, priority=True),
        Binding("home", "jump('start')", "Start", show=False, priority=True),
        Binding("end", "jump('end')", "End", show=False, priority=True),
        Binding("left_square_bracket", "turn(-1)", "Turn", key_display="[]"),
        Binding("right_square_bracket", "turn(1)", "Next turn", show=False),
        Binding("left_curly_bracket", "round(-1)", "Round", key_display="{}"),
        Binding("right_curly_bracket", "round(1)", "Next round", show=False),
        Binding("g", "goto", "Go to"),
        Binding("space", "autoplay", "Auto", key_display="␣"),
        Binding("plus,equals_sign", "speed(1)", "Faster", show=False),
        Binding("minus", "speed(-1)", "Slower", show=False),
        Binding("v", "viewpoint", "Eyes"),
        Binding("p", "play_on", "Play on"),
        # a board's own Esc (Edgar & Lucien: back to Edgar's move) never stands in for leaving
        Binding("escape,q", "leave", "Leave", key_display="q", priority=True),
    ]

    def __init__(
        self,
        match: Match,
        path: Path,
        at: int | None = None,
        viewer: Any = None,
        locked: bool = False,
        ends_program: bool = False,
    ) -> None:
        """``at``: the position after that many moves (a move is what a player did);
        None: the end.  ``ends_program``: leaving ends the program (a replay the command
        line opened goes back to the shell; one opened from the menu, to the menu)."""
        super().__init__()
        self.ends_program = ends_program
        self.match = match
        self.path = path
        #: the positions between moves, in events: right after the setup, then after each move
        self.ends = [move.end for move in match.moves] or [0]
        self.first = self.ends[0]
        self.last = len(match.events)
        self.position = self.last if at is None else match.events_after_moves(at)
        #: a game still in play, replayed by one of its players, stays seen through their eyes
        self.locked = locked
        if viewer is None:
            # no player's eyes given: a finished game with everything revealed; a game in play
            # as the public sees it, and no other eyes to take (as ``cabinet replay`` does):
            # whoever sits at the terminal may not be the player whose hand it is
            viewer = ALL if match.outcome is not None else PUBLIC
            self.locked = locked or match.outcome is None
        self.viewer: Viewer = viewer
        self.speed = 1
        self.timer = None
        self.marks = [(i + 1, match.game.mark(ev)) for i, ev in enumerate(match.events) if match.game.mark(ev)]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if super().check_action(action, parameters) is False:
            return False  # behind the "too small" notice: only leaving
        if action == "viewpoint":
            return not self.locked  # a game in play is replayed through its player's eyes only
        if action == "play_on":
            return not getattr(self.app, "served", False)  # a served session keeps no games of its own
        return True

    def on_mount(self) -> None:
        # The board is only looked at here: none of its keys (play a card, pass) may
        # stand in for the replay's own.
        board = self.query_one(Board)
        board.can_focus = board.can_focus_children = False
        self.set_focus(None)
        self.set_history()
        self.show()

    def set_history(self) -> None:
        """The history as the viewer saw it, its lines built as the replay reaches them."""
        table, viewer = Table(self.match), self.viewer
        self.query_one(HistoryPanel).set_history(
            len(self.match.events), lambda start, end: table.history(viewer, start, end), follow=False
        )

    # -- drawing ----------------------------------------------------------------

    def show(self) -> None:
        match = self.match
        state = match.state_at(self.position)
        self.query_one(Board).show(match.game.view(state, self.viewer), None)
        eyes = "everything revealed" if self.viewer == ALL else f"as {Table(match).name(self.viewer)} saw it"
        auto = f" · autoplay {SPEEDS[self.speed]}s" if self.timer else ""
        end = ()
        if self.position == self.last and match.outcome is not None:
            end = (outcome_text(match, why=False),)
        self.query_one("#status", StatusLine).say(
            f"Replay · {match.game.title}",
            f"move {match.moves_within(self.position)}/{match.move_count}",
            f"{eyes}{auto}",
            *end,
        )
        self.follow_history()

    def follow_history(self) -> None:
        """Highlight (and scroll to) the history line of the current position."""
        history = self.query_one(HistoryPanel)
        history.keep_highlight = True
        if not history.has_focus:
            index = self.line_for(self.position)
            if index is not None:
                history.highlighted = index
                history.scroll_to_highlight()

    def line_for(self, position: int) -> int | None:
        history = self.query_one(HistoryPanel)
        history.reach(position)
        lines = history.event_index
        best = None
        for i, n in enumerate(lines):
            if i == 0 and history.more:
                continue  # the line that stands for those not built
            if n <= position:
                best = i
            else:
                break
        return best

    def go(self, position: int) -> None:
        self.position = max(self.first, min(position, self.last))
        self.app.clear_notifications()  # news of another moment of the game would mislead
        self.show()

    def move_end(self, n: int) -> int:
        """The position once the move holding the ``n``-th event is complete."""
        i = bisect.bisect_left(self.ends, n)
        return self.ends[i] if i < len(self.ends) else self.last

    # -- actions ----------------------------------------------------------------

    def action_step(self, step: int) -> None:
        """One move forward or back (a position between two events of one move goes to its edge)."""
        if step > 0:
            i = bisect.bisect_right(self.ends, self.position)
            self.go(self.ends[i] if i < len(self.ends) else self.last)
        else:
            i = bisect.bisect_left(self.ends, self.position) - 1
            self.go(self.ends[i] if i >= 0 else self.first)

    def action_jump(self, where: str) -> None:
        self.go(self.first if where == "start" else self.last)

    def _jump_mark(self, direction: int, kinds: tuple[str, ...]) -> None:
        points = sorted({self.move_end(n) for n, mark in self.marks if mark in kinds})
        if direction > 0:
            target = next((n for n in points if n > self.position), self.last)
        else:
            target = next((n for n in reversed(points) if n < self.position), self.first)
        self.go(target)

    def action_turn(self, direction: int) -> None:
        self._jump_mark(direction, ("turn", "round"))

    def action_round(self, direction: int) -> None:
        self._jump_mark(direction, ("round",))

    def action_goto(self) -> None:
        def chosen(n: int | None) -> None:
            if n is not None:  # (the dialog takes only a move of this game)
                self.go(self.match.events_after_moves(n))

        self.app.push_screen(GoTo(self.match.move_count), chosen)

    def action_autoplay(self) -> None:
        if self.timer is not None:
            self.timer.stop()
            self.timer = None
        else:
            if self.position >= self.last:
                self.position = self.first
            self.timer = self.set_interval(SPEEDS[self.speed], self.autostep)
        self.show()

    def autostep(self) -> None:
        if self.position >= self.last:
            self.action_autoplay()
            return
        self.action_step(1)

    def action_speed(self, change: int) -> None:
        self.speed = max(0, min(len(SPEEDS) - 1, self.speed + change))
        if self.timer is not None:
            self.timer.stop()
            self.timer = self.set_interval(SPEEDS[self.speed], self.autostep)
        self.show()

    def action_viewpoint(self) -> None:
        if self.locked:
            eyes = "as the public sees it" if not isinstance(self.viewer, int) else "through your own eyes only"
            self.notify(f"While the game is in play it is replayed {eyes}.")
            return
        order: list[Viewer] = [*range(self.match.header["players"]), ALL]
        self.viewer = order[(order.index(self.viewer) + 1) % len(order)] if self.viewer in order else ALL
        self.set_history()
        self.show()

    def action_play_on(self) -> None:
        from tui.session import fork, start_save

        match = fork(self.match, self.position, parent=self.path.name)
        try:
            writer = start_save(self.app.save_dir, match)
        except OSError as exc:
            self.notify(f"Could not create a save in {self.app.save_dir}: {exc.strerror or exc}.", severity="error")
            return
        self.notify(f"A new game goes on from move {match.move_count}: {writer.path.name}")
        self.app.pop_screen()
        self.app.open_game(writer)

    def action_leave(self) -> None:
        if self.timer is not None:
            self.timer.stop()
        if self.ends_program:
            self.app.exit(0)
            return
        self.app.pop_screen()

    def on_history_panel_browse(self, message: HistoryPanel.Browse) -> None:
        if message.n is not None:
            self.go(message.n)
