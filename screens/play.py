"""Live play: any game, any mix of humans and bots, on one terminal."""

from __future__ import annotations

import time
from typing import Any

from textual.binding import Binding
from textual.widgets import Static

from core.bots import bot_inputs, bots_for, choose_safely
from core.engine import PUBLIC, Bot, IllegalCommand, Match, Viewer
from saves import SaveWriter
from screens.boards import LiveTableScreen
from tui.widgets import Board, Curtain, GameOver, HistoryPanel


def seat_name(match: Match, seat: Viewer) -> str:
    if isinstance(seat, int):
        return match.header["seats"][seat]["name"]
    return "Spectator"


def outcome_text(match: Match) -> str:
    outcome = match.outcome
    if outcome is None:
        return ""
    names = [seat_name(match, s) for s in outcome.winners]
    who = " and ".join(names) if names else "Nobody"
    verb = "share the victory" if len(names) > 1 else "wins"
    return f"{who} {verb}. {outcome.reason}"


def history_lines(match: Match, viewer: Viewer, start: int = 0) -> list[tuple[int, str, str | None]]:
    """(events after, line, mark) for events from ``start``, as ``viewer`` saw them."""
    game = match.game
    lines = []
    for i in range(start, len(match.events)):
        event = match.events[i]
        text = game.describe(game.redact(event, viewer), viewer)
        if text:
            lines.append((i + 1, text, game.mark(event)))
    return lines


class PlayScreen(LiveTableScreen):
    BINDINGS = [
        Binding("h", "history", "History"),
        Binding("u", "takeback", "Take back"),
        Binding("question_mark", "rules", "Rules"),
        Binding("escape", "live", "Back to play", show=False),
        Binding("q", "menu", "Menu"),
    ]

    def __init__(self, writer: SaveWriter) -> None:
        super().__init__()
        self.writer = writer
        self.match = match = writer.match
        self.path = writer.path
        writer.on_error = lambda sentence: self.app.call_later(self.notify, sentence, severity="error", timeout=10)
        self.bots: dict[int, Bot] = {s: bot for s, bot in bots_for(match).items() if match.is_bot(s)}
        humans = match.humans()
        self.viewer: Viewer = humans[0] if humans else PUBLIC
        self.browsing: int | None = None
        self.thinking: int | None = None  # the bot seat whose move is being worked out
        self.generation = 0  # bumped when the log is cut back: stale bot moves are dropped
        self.curtain_up = False
        self.shown_lines = 0
        self.announced_end = False

    def on_mount(self) -> None:
        first = self.first_human_to_act()
        if first is not None and len(self.match.humans()) > 1:
            self.viewer = first
            self.raise_curtain(first)
        self.rebuild_history()
        self.refresh_table()
        self.advance()

    # -- whose eyes, whose move ---------------------------------------------

    def first_human_to_act(self) -> int | None:
        humans = [s for s in self.match.active() if not self.match.is_bot(s)]
        return humans[0] if humans else None

    def raise_curtain(self, seat: int) -> None:
        self.curtain_up = True

        def lowered(_: None) -> None:
            self.curtain_up = False
            self.viewer = seat
            self.rebuild_history()
            self.refresh_table()
            self.advance()

        self.app.push_screen(Curtain(seat_name(self.match, seat)), lowered)

    def advance(self) -> None:
        """Hand the move to whoever must act: a bot in a worker, or a human."""
        if self.curtain_up:
            return
        match = self.match
        if match.outcome is not None:
            self.announce_end()
            return
        active = match.active()
        human = self.first_human_to_act()
        if human is not None and human != self.viewer:
            if isinstance(self.viewer, int) and len(match.humans()) > 1:
                self.raise_curtain(human)
                return
            self.viewer = human
            self.rebuild_history()
            self.refresh_table()
        bots = [s for s in active if s in self.bots]
        if bots and self.thinking is None:
            self.think(bots[0])

    def think(self, seat: int) -> None:
        self.thinking = seat
        self.refresh_status()
        match, bot, generation = self.match, self.bots[seat], self.generation
        # The view and legal commands are taken here, on the UI thread; the
        # worker only thinks over them.
        view, legal, known = bot_inputs(match.game, match.state, seat)

        started = time.monotonic()

        def work() -> None:
            command, failure = choose_safely(match.game, bot, view, legal, known)
            try:
                if failure:
                    name = seat_name(match, seat)
                    self.app.call_from_thread(self.notify, f"{name}: {failure}", severity="error")
                self.app.call_from_thread(self.bot_ready, seat, command, generation, started)
            except RuntimeError:
                pass  # the app closed while the bot was thinking

        self.run_worker(work, thread=True, exclusive=False, group="bot")

    def bot_ready(self, seat: int, command: dict[str, Any], generation: int, started: float) -> None:
        """The bot has chosen; its move lands once the last one could be followed."""
        rest = getattr(self.app, "bot_delay", 0.0) - (time.monotonic() - started)
        if rest > 0:
            self.set_timer(rest, lambda: self.bot_moved(seat, command, generation))
        else:
            self.bot_moved(seat, command, generation)

    def bot_moved(self, seat: int, command: dict[str, Any], generation: int) -> None:
        if generation != self.generation:
            return  # the log was cut back since: this move answers a position that is gone
        self.thinking = None
        try:
            self.match.submit(seat, command)
        except IllegalCommand as exc:
            self.notify(f"{seat_name(self.match, seat)} (bot) tried an illegal move: {exc}", severity="error")
            return
        self.after_move()

    def on_board_chosen(self, message: Board.Chosen) -> None:
        message.stop()
        if self.browsing is not None or not isinstance(self.viewer, int):
            return
        try:
            self.match.submit(self.viewer, message.command)
        except IllegalCommand as exc:
            self.notify(str(exc), severity="error")
            return
        self.after_move()

    def after_move(self) -> None:
        self.append_history()
        self.refresh_table()
        self.advance()

    # -- drawing ------------------------------------------------------------

    def refresh_status(self) -> None:
        match = self.match
        if self.browsing is not None:
            text = f"Looking back at move {self.browsing} of {len(match.events)} (Esc: back to play)"
        elif match.outcome is not None:
            text = "Game over: " + outcome_text(match)
        else:
            active = match.active()
            names = ", ".join(seat_name(match, s) for s in active)
            if self.thinking is not None:
                text = f"{seat_name(match, self.thinking)} is thinking…"
            elif isinstance(self.viewer, int) and self.viewer in active:
                text = f"{seat_name(match, self.viewer)}, your move."
            else:
                text = f"Waiting for {names}."
        you = f"You: {seat_name(match, self.viewer)}" if isinstance(self.viewer, int) else "Watching"
        self.query_one("#status", Static).update(f"{match.game.title} · {you} · {text}")

    def refresh_table(self) -> None:
        match, board = self.match, self.query_one(Board)
        if self.browsing is not None:
            board.show(match.game.view(match.state_at(self.browsing), self.viewer), None)
        else:
            legal = None
            if isinstance(self.viewer, int) and self.viewer in match.active() and not self.curtain_up:
                legal = match.game.legal(match.state, self.viewer)
            board.show(match.game.view(match.state, self.viewer), legal)
        self.refresh_status()

    def rebuild_history(self) -> None:
        self.query_one(HistoryPanel).set_lines(history_lines(self.match, self.viewer))
        self.shown_lines = len(self.match.events)

    def append_history(self) -> None:
        self.query_one(HistoryPanel).append_lines(history_lines(self.match, self.viewer, self.shown_lines))
        self.shown_lines = len(self.match.events)

    def on_history_panel_browse(self, message: HistoryPanel.Browse) -> None:
        n = message.n
        self.browsing = None if n is None or n >= len(self.match.events) else n
        self.refresh_table()

    def announce_end(self) -> None:
        self.refresh_status()
        if self.announced_end:
            return
        self.announced_end = True

        def chosen(what: str | None) -> None:
            if what == "replay":
                self.action_replay()
            elif what == "menu":
                self.app.back_to_menu()

        self.app.push_screen(GameOver(outcome_text(self.match)), chosen)

    # -- actions --------------------------------------------------------------

    def action_menu(self) -> None:
        self.notify(f"Saved: {self.path.name}. Continue it from the menu.")
        self.app.back_to_menu()

    def action_where_saved(self) -> None:
        self.notify(f"Every move is saved as it is played, in {self.path}.")

    def action_replay(self) -> None:
        in_play = self.match.outcome is None
        viewer = self.viewer if in_play else None
        self.app.open_replay(self.match, self.path, viewer=viewer, locked=in_play and isinstance(viewer, int))

    def action_takeback(self) -> None:
        match = self.match
        if not isinstance(self.viewer, int):
            return
        if len(match.humans()) > 1 and not self.bots:
            self.notify("Take-backs are for games against bots.", severity="warning")
            return
        point = match.takeback_point(self.viewer)
        if point is None:
            self.notify("You cannot take back now: nothing of yours to take back, or something was revealed since.", severity="warning")
            return
        self.generation += 1
        self.thinking = None
        self.workers.cancel_group(self, "bot")
        match.truncate_moves(point)
        try:
            self.writer.rewrite()
        except OSError as exc:
            self.notify(f"Could not cut the save back: {exc.strerror or exc}.", severity="error")
        self.notify("Move taken back.")
        self.rebuild_history()
        self.refresh_table()
        self.advance()
