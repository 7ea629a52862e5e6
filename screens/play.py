"""Live play: any game, any mix of humans and bots, on one terminal."""

from __future__ import annotations

from textual.binding import Binding

from core.engine import PUBLIC, Match, ScoreSheet, Viewer, outcome_text
from saves import SaveWriter
from screens.boards import LiveTableScreen
from table import BotRunner, Table
from table.bots import think_in_thread
from table.table import history_lines as table_history
from tui.widgets import Board, Curtain, GameOver, HistoryPanel, ScoreSheetDialog, StatusLine


def seat_name(match: Match, seat: Viewer) -> str:
    if isinstance(seat, int):
        return match.header["seats"][seat]["name"]
    return "Spectator"


def seat_names(match: Match) -> list[str]:
    return [seat["name"] for seat in match.header["seats"]]


def last_own_move(match: Match, seat: Viewer) -> int:
    """The number of events once ``seat``'s last move was made (the setup's end if it has made none):
    what follows is news to that player."""
    for move in reversed(match.moves):
        if move.seat == seat and move.seat is not None:
            return move.end
    return match.moves[0].end if match.moves else 0


def history_lines(match: Match, viewer: Viewer, start: int = 0) -> list[tuple[int, str, str | None]]:
    """(events after, line, mark) for events from ``start``, as ``viewer`` saw them."""
    return table_history(match.game, Table(match).redacted(viewer, start), viewer)


class PlayScreen(LiveTableScreen):
    BINDINGS = [
        Binding("h", "history", "History"),
        Binding("u", "takeback", "Take back"),
        Binding("r", "replay", "Replay"),
        Binding("question_mark", "rules", "Rules"),
        Binding("escape", "live", "Back to play", show=False),
        Binding("q", "menu", "Menu"),
    ]

    def __init__(self, writer: SaveWriter) -> None:
        super().__init__()
        self.writer = writer
        self.match = match = writer.match
        self.path = writer.path
        writer.on_error = lambda sentence: self.app.call_later(self.notify, sentence, severity="error", timeout=self.app.ERROR_TIMEOUT)
        self.table = Table(match, writer)
        self.table.watchers.append(self.table_changed)
        #: the bots, thought of in a thread; none lands while a curtain is up or a score read
        self.runner = BotRunner(
            self.table,
            think_in_thread,
            delay=lambda: float(getattr(self.app, "bot_delay", 0.0)),
            held=lambda: self.curtain_up or self.reading,
            said=lambda sentence: self.notify(sentence, severity="error"),
            thinking=lambda seat: self.refresh_status(),
        )
        humans = match.humans()
        self.viewer: Viewer = humans[0] if humans else PUBLIC
        self.browsing: int | None = None
        self.curtain_up = False
        self.shown_lines = 0
        self.announced_end = False
        #: the scoring the player has been shown (a round's sheet is shown once, when it is new)
        self.sheet_seen = self.score_sheet_key()
        self.reading = False  # a round's score sheet is open: the game waits for the player

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Offer only what works here: take-back while the game is played (the table's rule
        says when a move may be taken back, and why not), replay once it is over."""
        if action == "takeback":
            return isinstance(self.viewer, int) and self.match.outcome is None
        if action == "replay":
            return self.match.outcome is not None
        return True

    def on_unmount(self) -> None:
        self.runner.stop(closing=True)
        self.writer.close()  # the save is free for the next writer (Continue, another terminal)

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
        """Hand the move to whoever must act: a bot (the runner thinks in a thread), or a human."""
        if self.curtain_up or self.reading:
            return
        match = self.match
        if match.outcome is not None:
            self.announce_end()
            return
        human = self.first_human_to_act()
        if human is not None and human != self.viewer:
            if isinstance(self.viewer, int) and len(match.humans()) > 1:
                self.raise_curtain(human)
                return
            self.viewer = human
            self.rebuild_history()
            self.refresh_table()
        self.runner.kick()

    def on_board_chosen(self, message: Board.Chosen) -> None:
        message.stop()
        if self.browsing is not None or not isinstance(self.viewer, int):
            return
        refusal = self.table.submit(self.viewer, message.command)
        if refusal is not None:
            self.notify(refusal, severity="error")

    def table_changed(self, cut: bool) -> None:
        """A move was played (by this terminal's player or a bot), or taken back (``cut``)."""
        if cut:
            self.rebuild_history()
            self.refresh_table()
            self.advance()
            return
        self.append_history()
        self.refresh_table()
        if self.match.outcome is None and self.show_new_sheet():
            return  # the game goes on once the player has read the round's score
        self.advance()

    # -- scores ---------------------------------------------------------------

    def score_sheet(self) -> ScoreSheet | None:
        match = self.match
        return match.game.score_sheet(match.game.view(match.state, self.viewer))

    def score_sheet_key(self) -> str | None:
        sheet = self.score_sheet()
        return sheet.key if sheet is not None else None

    def show_new_sheet(self) -> bool:
        """A round was just scored: show its breakdown once, and wait until it is read."""
        sheet = self.score_sheet()
        if sheet is None or sheet.key == self.sheet_seen:
            return False
        self.sheet_seen = sheet.key
        self.reading = True

        def read(_: None) -> None:
            self.reading = False
            self.advance()

        self.app.push_screen(ScoreSheetDialog(sheet, seat_names(self.match)), read)
        return True

    # -- drawing ------------------------------------------------------------

    def refresh_status(self) -> None:
        match = self.match
        if self.browsing is not None:
            text = f"Looking back: move {match.moves_within(self.browsing)} of {match.move_count} (Esc: back to play)"
        elif match.outcome is not None:
            text = "Game over: " + outcome_text(match, why=False)
        else:
            active = match.active()
            names = ", ".join(seat_name(match, s) for s in active)
            if self.runner.thinking is not None:
                text = f"{seat_name(match, self.runner.thinking)} is thinking…"
            elif isinstance(self.viewer, int) and self.viewer in active:
                text = f"{seat_name(match, self.viewer)}, your move."
            else:
                text = f"Waiting for {names}."
        you = f"You: {seat_name(match, self.viewer)}" if isinstance(self.viewer, int) else "Watching"
        self.query_one("#status", StatusLine).say(match.game.title, you, text)

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
        history = self.query_one(HistoryPanel)
        history.news_after = last_own_move(self.match, self.viewer) if isinstance(self.viewer, int) else None
        history.set_lines(history_lines(self.match, self.viewer))
        self.shown_lines = len(self.match.events)

    def append_history(self) -> None:
        history = self.query_one(HistoryPanel)
        history.append_lines(history_lines(self.match, self.viewer, self.shown_lines))
        if isinstance(self.viewer, int):
            history.mark_news(last_own_move(self.match, self.viewer))
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

        self.refresh_bindings()  # take-back goes, replay comes
        sheet = self.score_sheet()
        self.app.push_screen(GameOver(outcome_text(self.match), sheet, seat_names(self.match)), chosen)

    # -- actions --------------------------------------------------------------

    def action_menu(self) -> None:
        self.app.back_to_menu()
        if self.match.outcome is None:
            self.app.notify(f"Saved: {self.path.name}. Continue it from the menu.")

    def action_where_saved(self) -> None:
        self.notify(f"Every move is saved as it is played, in {self.path}.")

    def action_replay(self) -> None:
        in_play = self.match.outcome is None
        viewer = self.viewer if in_play else None
        self.app.open_replay(self.match, self.path, viewer=viewer, locked=in_play and isinstance(viewer, int))

    def action_takeback(self) -> None:
        if not self.check_action("takeback", ()) or not isinstance(self.viewer, int):
            return
        self.runner.stop()  # a bot's answer to the position taken back is no answer
        refusal = self.table.take_back(self.viewer)
        if refusal is not None:
            self.notify(refusal, severity="warning")
            self.advance()
            return
        self.notify("Move taken back.")
