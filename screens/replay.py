"""Replay: step through a saved game move by move, as one seat saw it or all revealed."""

from __future__ import annotations

import asyncio
import bisect
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Input, ProgressBar, Static
from textual.worker import Worker, WorkerState, get_current_worker

from core.engine import ALL, PUBLIC, Match, Viewer, outcome_text
from saves.analyses import AnalysisDamaged, read_analysis
from screens.analysis import (
    CHANCES,
    MARK_STYLES,
    SCORES,
    AnalysisPane,
    judged_lines,
    move_of_line,
    preferred_text,
)
from screens.boards import TableScreen, board_for
from table import Table
from table.analysis import DEFAULT_EFFORT, Analysis, Cancelled, Judgement, stored_analysis
from tui.widgets import Board, HistoryPanel, KeysFooter, StatusLine, too_small_text

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


#: why a game in play has no analysis, said when ``a`` is pressed there
IN_PLAY = "This game is still in play: only a finished game is analysed, since analysing a game in play would be a cheating aid."
#: why a served session makes none: an analysis takes seconds of a core, and a session that
#: spends more than its share (net/ssh.py, CPU_RATE and CPU_BURST) is slowed for the rest of its life
SERVED = (
    "A table is not analysed over the server: the analysis needs more of the server's processor than a session may use."
)


class AnalysisProgress(Message):
    """The analysis has judged ``done`` moves of ``total`` (posted from its thread); a server
    making it has ``ahead`` other tables to analyse first."""

    def __init__(self, done: int, total: int, ahead: int = 0) -> None:
        super().__init__()
        self.done = done
        self.total = total
        self.ahead = ahead


class AnalysisRefused(Exception):
    """The server would not, or could not, give a served table's analysis: the sentence why."""


class AnalysisSaid(Message):
    """What the analysis's thread has to tell the player (a kept analysis damaged, or one
    that could not be kept), in a sentence."""

    def __init__(self, sentence: str) -> None:
        super().__init__()
        self.sentence = sentence


class ReplayScreen(TableScreen):
    # Keys that go together show once in the footer (``←→⇱⇲ Move``: a move back or forward, the
    # start or the end, ⇱ and ⇲ being Home and End), so that every key fits at 80 columns.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "step(-1)", "Move", key_display="←→⇱⇲", priority=True),
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
        # a finished game: its analysis (worked out, or read from beside the save), then the
        # chart and the board in turn; a game in play: why not, in a sentence
        Binding("a", "analyse", "Analyse"),
        # once there is one, a shows the next of the board, the chances, the scores: named so
        Binding("a", "chart('chances')", "Chart"),
        Binding("a", "chart('scores')", "Scores"),
        Binding("a", "chart('board')", "Board"),
        Binding("a", "no_analysis", "Analyse", show=False),
        # while the analysis runs, Esc stops it (and leaves the replay only after)
        Binding("escape", "stop_analysis", "Stop", key_display="esc", priority=True),
        # a board's own Esc (Edgar & Lucien: back to Edgar's move) never stands in for leaving
        Binding("q", "leave", "Leave", priority=True),
        Binding("escape", "leave", "Leave", show=False, priority=True),
    ]
    #: what the footer leaves out first where its keys do not fit (``KeysFooter.fit``): the
    #: jumps (the arrows step there too), then the autoplay and the eyes: never the way out
    FOOTER_SPARES = ("round(-1)", "turn(-1)", "goto", "autoplay", "viewpoint")
    # the compact footer (below) starts a space in, as the others do
    DEFAULT_CSS = """
    ReplayScreen KeysFooter {
        padding-left: 1;
    }
    """
    #: the worlds drawn for each move judged; the analysis judges them in its thread, in this
    #: process: worker processes cannot be started from inside the running app (multiprocessing's
    #: resource tracker passes on the app's captured stderr, whose file number is -1:
    #: docs/PERFORMANCE.md, issue 36)
    ANALYSIS_EFFORT = DEFAULT_EFFORT
    #: seconds between two questions to a server making a served table's analysis
    ASK_EVERY = 1.0

    def __init__(
        self,
        match: Match,
        path: Path,
        at: int | None = None,
        viewer: Any = None,
        locked: bool = False,
        ends_program: bool = False,
        analyst: Callable[[], Awaitable[dict[str, Any]]] | None = None,
    ) -> None:
        """``at``: the position after that many moves (a move is what a player did);
        None: the end.  ``ends_program``: leaving ends the program (a replay the command
        line opened goes back to the shell; one opened from the menu, to the menu).
        ``analyst``: where a served table's analysis is asked for (its hall, which makes it
        and keeps it: a session may not spend the processor it takes); None: made here."""
        super().__init__()
        self.ends_program = ends_program
        self.analyst = analyst
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
        #: the finished game's analysis, once worked out or read (None: not asked for)
        self.analysis: Analysis | None = None
        #: the analysis being worked out in its thread (None: none is)
        self.analysing: Worker[Analysis | None] | None = None
        #: what the left pane shows: the board, or the analysis's chances or scores
        self.pane = "board"
        #: what had the keys on the board before a chart hid it (given them back with the board)
        self.board_focus: Widget | None = None
        #: the history's first line of each judged move (what its mover did), with its judgement
        self.judged: dict[int, Judgement] = {}

    def compose(self) -> ComposeResult:
        yield StatusLine(id="status")
        with Horizontal(id="main"):
            # the analysis's progress under the board: the history beside it keeps its size and place
            with Vertical(id="left"):
                yield board_for(self.game_id())
                yield AnalysisPane(id="analysis")
                with Horizontal(id="analysing"):
                    yield Static("", id="analysing-text")
                    yield ProgressBar(show_eta=False, id="analysing-bar")
            yield HistoryPanel(id="history")
        yield Static(too_small_text(0, 0), id="too-small")
        # compact (a space less around each key), so that all ten of a finished game's keys fit at 80 columns
        yield KeysFooter(show_command_palette=False, compact=True)

    @property
    def analysable(self) -> bool:
        """A finished game (a served session makes none itself, ``SERVED``: its hall does)."""
        return self.match.outcome is not None and (self.analyst is not None or not self.served)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if super().check_action(action, parameters) is False:
            return False  # behind the "too small" notice: only leaving
        if action == "viewpoint":
            return not self.locked  # a game in play is replayed through its player's eyes only
        if action == "play_on":
            return not self.served  # a served session keeps no games of its own
        if action == "analyse":
            return self.analysable and self.analysis is None and self.analysing is None
        if action == "chart":
            return self.analysis is not None and parameters == (self.next_pane(),)
        if action == "no_analysis":
            return not self.analysable
        if action == "stop_analysis":
            return self.analysing is not None
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
        if self.viewer == ALL:
            eyes = "everything revealed"
        elif isinstance(self.viewer, int):
            eyes = f"as {Table(match).name(self.viewer)} saw it"
        else:  # a game in play: what anybody watching saw ("as Spectator saw it" read as a name)
            eyes = "as a spectator saw it"
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
        if self.analysis is not None and self.pane != "board":
            self.query_one(AnalysisPane).show(self.analysis, self.pane, match.moves_within(self.position))

    def follow_history(self) -> None:
        """Highlight (and scroll to) the history line of the current position; under it, what
        the analysis preferred to the move it ends."""
        history = self.query_one(HistoryPanel)
        history.keep_highlight = True
        if not history.has_focus:
            index = self.line_for(self.position)
            history.highlighted = index  # (None: before every line)
        self.note_preferred()
        if not history.has_focus:
            if self.position <= self.first:
                history.scroll_home(animate=False)  # the start: the game's first lines, the setup's, in view
            if history.highlighted is not None:
                history.scroll_to_highlight()

    def note_preferred(self) -> None:
        """Under the history's highlighted line, the move the search preferred to the one it ends."""
        history = self.query_one(HistoryPanel)
        index = history.highlighted
        if self.analysis is None or index is None or index >= len(history.event_index):
            history.set_note(None, None)
            return
        move = move_of_line(self.ends, history.event_index[index])
        found = next(((line, j) for line, j in self.judged.items() if j.move == move), None)
        better = preferred_text(found[1]) if found is not None else None
        if found is None or better is None:
            history.set_note(None, None)
        else:
            history.set_note(found[0], Text(better, style="italic"))

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
        self.mark_history()  # other eyes, other lines: the marks found their lines again
        self.show()

    def action_play_on(self) -> None:
        from screens.save_list import open_save
        from tui.session import fork, start_save

        if self.position == self.last and self.match.outcome is not None:
            # (played on from there, the new game would be over before its first move)
            self.notify("The game is over here: step back (←) to the move to play on from, then p.")
            return
        if self.position == self.last and self.match.outcome is None and self.path.is_file():
            # the last position of a game in play: played on in its own save, as Continue does
            # (a fork of it there would be its twin in the list); one played elsewhere is said so
            app = self.app
            stack = app.screen_stack
            below = stack[-2] if len(stack) > 1 else None
            app.pop_screen()
            if getattr(getattr(below, "feed", None), "path", None) != self.path:  # (else: back to it)
                open_save(app, self.path, replay=False)
            return
        # a game of bots only: the player takes the seat whose eyes the replay shows (the first,
        # where it shows everything), or the new game would be one more to watch
        seats = self.match.header.get("seats") or []
        take = None
        if seats and all(seat.get("kind") == "bot" for seat in seats):
            take = self.viewer if isinstance(self.viewer, int) else 0
        match = fork(self.match, self.position, parent=self.path.name, take=take)
        try:
            writer = start_save(self.app.save_dir, match)
        except OSError as exc:
            self.notify(f"Could not create a save in {self.app.save_dir}: {exc.strerror or exc}.", severity="error")
            return
        yours = f"; you play {match.header['seats'][take].get('name')}'s seat" if take is not None else ""
        self.notify(f"A new game goes on from move {match.move_count}{yours}: {writer.path.name}")
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

    # -- the analysis (issue 36) --------------------------------------------------

    def on_unmount(self) -> None:
        """The replay gone (left, played on, the program ended): its analysis's thread stops at its next move."""
        if self.analysing is not None:
            self.analysing.cancel()

    def action_no_analysis(self) -> None:
        self.notify(IN_PLAY if self.match.outcome is None else SERVED)

    def action_analyse(self) -> None:
        """The finished game's analysis: the one kept beside the save at once, else worked out
        in a thread, the replay going on meanwhile."""
        stored = self.stored_analysis() if self.analyst is None else None
        if stored is not None:
            self.take_analysis(stored)
            return
        total = self.match.move_count
        self.query_one("#analysing-text", Static).update(f"Analysing move 0 of {total} · Esc stops")
        bar = self.query_one("#analysing-bar", ProgressBar)
        bar.update(total=max(total, 1), progress=0)
        self.add_class("-analysing")
        self.analysing = self.work_out() if self.analyst is None else self.ask_server()
        self.refresh_bindings()

    @work(exclusive=True, group="analysis", exit_on_error=False)
    async def ask_server(self) -> Analysis | None:
        """A served table's analysis, asked of its hall every ASK_EVERY seconds until it is
        made (the hall goes on with it if the player stops waiting: it is there next time)."""
        assert self.analyst is not None
        while True:
            reply = await self.analyst()
            if not reply.get("ok"):
                raise AnalysisRefused(str(reply.get("message") or "the server did not say why"))
            if "analysis" in reply:
                try:  # what a server sent: checked as a kept analysis is
                    return Analysis.from_plain(reply["analysis"])
                except (TypeError, ValueError, KeyError) as exc:
                    raise AnalysisRefused(f"the server sent an analysis that cannot be read ({exc})") from None
            done, total, ahead = reply.get("done"), reply.get("of"), reply.get("ahead")
            if isinstance(done, int) and isinstance(total, int):
                self.post_message(AnalysisProgress(done, total, ahead if isinstance(ahead, int) else 0))
            await asyncio.sleep(self.ASK_EVERY)

    def stored_analysis(self) -> Analysis | None:
        """The analysis kept beside the save, when it is of this game as played, whatever effort
        it was made at (``cabinet analyse --effort 8``, say); one that cannot be used is said by
        the thread that makes it again."""
        try:
            return read_analysis(self.path, self.match, None)
        except AnalysisDamaged:
            return None

    @work(thread=True, exclusive=True, group="analysis", exit_on_error=False)
    def work_out(self) -> Analysis | None:
        """The analysis, in its thread, kept beside the save; None once stopped (Esc, or the replay left)."""
        worker = get_current_worker()

        def progress(done: int, total: int) -> None:
            self.post_message(AnalysisProgress(done, total))

        try:
            analysis, _ = stored_analysis(
                self.path,
                self.match,
                effort=self.ANALYSIS_EFFORT,
                progress=progress,
                cancelled=lambda: worker.is_cancelled,
                workers=1,
                said=lambda sentence: self.post_message(AnalysisSaid(sentence)),
            )
        except Cancelled:
            return None
        return analysis

    def on_analysis_said(self, message: AnalysisSaid) -> None:
        self.notify(message.sentence, severity="warning")

    def on_analysis_progress(self, message: AnalysisProgress) -> None:
        if self.analysing is None:
            return  # stopped: what its thread still said is of no interest
        bar = self.query_one("#analysing-bar", ProgressBar)
        bar.update(total=max(message.total, 1), progress=message.done)
        ahead = message.ahead
        self.query_one("#analysing-text", Static).update(
            f"The server analyses {ahead} other game{'s' if ahead > 1 else ''} first · Esc stops"
            if ahead
            else f"Analysing move {message.done} of {message.total} · Esc stops"
        )

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if worker is not self.analysing or event.state in (WorkerState.PENDING, WorkerState.RUNNING):
            return
        self.end_analysing()
        if event.state == WorkerState.SUCCESS and isinstance(worker.result, Analysis):
            self.take_analysis(worker.result)
        elif event.state == WorkerState.ERROR:
            reason = str(worker.error).rstrip(".") or type(worker.error).__name__
            reason = reason[:1].lower() + reason[1:]  # the end of this sentence
            self.notify(f"The analysis could not be made: {reason}.", severity="error")

    def end_analysing(self) -> None:
        self.analysing = None
        self.remove_class("-analysing")
        self.refresh_bindings()

    def action_stop_analysis(self) -> None:
        """Esc while the analysis runs: it stops, and the replay is as it was."""
        if self.analysing is not None:
            self.analysing.cancel()
            self.end_analysing()
            self.notify("Analysis stopped: press a to start it again.")

    def take_analysis(self, analysis: Analysis) -> None:
        """Show ``analysis``: the history's marks, and the chart of the chances in the board's place."""
        self.analysis = analysis
        self.mark_history()
        self.show_pane(CHANCES)
        self.refresh_bindings()

    def mark_history(self) -> None:
        """After each move that cost its mover much, its mark ("?", "??"), on its first line (what its mover did)."""
        history = self.query_one(HistoryPanel)
        self.judged = {}
        if self.analysis is None:
            return
        history.reach(0)  # every line built: a mark is on its line, which stays where it is
        self.judged = judged_lines(self.match, self.analysis, history.event_index)
        history.set_suffixes(
            {
                index: Text(judgement.mark, style=MARK_STYLES.get(judgement.mark, "bold"))
                for index, judgement in self.judged.items()
                if judgement.mark
            }
        )

    def next_pane(self) -> str:
        """What a shows next: the board, the chances, the scores (where the game keeps them), in turn."""
        panes = ["board", CHANCES] + ([SCORES] if self.analysis is not None and self.analysis.scores else [])
        return panes[(panes.index(self.pane) + 1) % len(panes)] if self.pane in panes else "board"

    def action_chart(self, pane: str) -> None:
        self.show_pane(pane)

    def show_pane(self, pane: str) -> None:
        board = self.query_one(Board)
        if pane != "board" and board.display:
            self.board_focus = self.focused  # (hidden, the board loses it: its keys with it)
        self.pane = pane
        board.display = pane == "board"
        self.query_one(AnalysisPane).display = pane != "board"
        if pane == "board" and self.board_focus is not None and self.board_focus.is_attached:
            # what had the keys on the board has them again: Edgar & Lucien's t (the table of
            # every player) went with the chart, and did not come back with the board
            self.set_focus(self.board_focus)
        self.refresh_bindings()  # a names what it shows next
        self.show()
