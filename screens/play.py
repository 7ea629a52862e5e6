"""The table screen: any game, any mix of humans and bots, played here or joined over the network.

One screen for every table: hot-seat on one terminal, against bots, joined with ``cabinet join``
or through ``cabinet serve``.  It is fed by a feed (``table.feed``): a table played here
(``LocalFeed``) or one joined (``net.client.RemoteFeed``); the status line, the score sheets, the
history, take-back and the end of the game are the same for both.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from textual.binding import Binding, BindingType
from textual.screen import ModalScreen

from core.engine import Match, ScoreSheet, Viewer
from screens.boards import LiveTableScreen
from table.feed import Feed, LocalFeed
from table.seat import SeatLog
from tui.widgets import (
    Board,
    Curtain,
    GameOver,
    HistoryPanel,
    KeysFooter,
    ScoreSheetDialog,
    ServedGameOver,
    ServedScoreSheetDialog,
    StatusLine,
)

_UNSEEN = object()


class PlayScreen(LiveTableScreen):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("h", "history", "History"),
        Binding("enter", "pass_on", "Pass the terminal", priority=True),
        Binding("u", "takeback", "Take back"),
        Binding("r", "replay", "Replay"),
        Binding("s", "scores", "Scores"),
        Binding("question_mark", "rules", "Rules"),
        Binding("escape", "live", "Back to play", show=False),
        # a choice's digit typed while looking at the history: back to play, and the digit to it
        *(Binding(str(n), f"digit_to_play({n})", show=False, system=True) for n in range(10)),
        # q leaves the table for the bottom screen: the main menu, or a served session's lobby
        # (check_action offers the one that is there)
        Binding("q", "menu", "Menu"),
        Binding("q", "lobby", "Lobby"),
    ]
    SMALL_KEEPS = LiveTableScreen.SMALL_KEEPS | {"lobby"}

    def __init__(self, feed: Feed) -> None:
        super().__init__()
        self.feed = feed
        self.browsing: int | None = None
        self.browse_due = False  # the position browsed to is drawn after the keys read so far
        self.pick_before: Any = None  # the board's choice half made when the player looked back
        self.connected = True
        #: the table is closed for good here (joined from another terminal, left): why, when said
        self.over = False
        self.farewell: str | None = None
        self.curtain_up = False
        #: hot-seat: the seat the terminal is to pass to once the player has seen what their move
        #: showed them (Enter passes it); None: no such wait
        self.passing: int | None = None
        #: hot-seat: the move left the player at the terminal since they last had it (others moved,
        #: or a new turn or round began): when it comes back to them, the curtain comes first
        self.turn_left = False
        #: a player of this terminal has sat down (at a hot-seat table, the first behind a curtain too)
        self.seated = False
        self.reading = False  # a round's score sheet is open: the table here waits for the player
        self.announced_end = False
        #: the key of the last score sheet each seat here was shown (at a hot-seat table each
        #: player reads it, once, when they next have the terminal)
        self.sheets_seen: dict[Viewer, object] = {}

    # -- what tests and the app read of the table ------------------------------------------

    @property
    def knows(self) -> SeatLog:
        """What the seat whose eyes this screen shows knows of the table (``self.log`` is Textual's logger)."""
        return self.feed.log

    @property
    def waiting_text(self) -> str | None:
        """Whose move it is and what they decide, while this seat waits (the table says)."""
        return self.knows.waiting

    @property
    def viewer(self) -> Viewer:
        return self.feed.log.seat

    def here(self, what: str) -> LocalFeed:
        """The feed of a table played here; AttributeError (so that ``getattr`` with a default
        works) at a table joined, which has no ``what`` on this side."""
        if not isinstance(self.feed, LocalFeed):
            raise AttributeError(f"a table joined has no {what} here")
        return self.feed

    @property
    def match(self) -> Match:
        """The match, at a table played here."""
        return self.here("match").match

    @property
    def path(self) -> Path:
        """The save, at a table played here."""
        return self.here("save").path

    @property
    def runner(self) -> Any:
        """The bots' runner, at a table played here (a joined table's run on its server)."""
        return self.here("bot runner").runner

    @property
    def remote(self) -> Any:
        return self.feed.remote

    def game_id(self) -> str:
        assert self.knows.game is not None  # joined before the screen is made
        return self.knows.game.id

    # -- the feed ----------------------------------------------------------------------------

    def on_mount(self) -> None:
        self.feed.open(self.received)
        if isinstance(self.feed, LocalFeed):
            self.app.at_table = self.feed  # (for the words the terminal is left with, should the app quit here)

    def on_unmount(self) -> None:
        self.feed.close()  # a save is free for the next writer (Continue, another terminal)

    def received(self, message: dict[str, Any]) -> None:
        kind = message.get("t")
        if kind == "update":
            self.updated(message)
        elif kind == "view_at":
            view = self.feed.answered(message)
            if view is not None and self.browsing is not None:
                self.query_one(Board).show(view, None)
        elif kind == "error":
            self.notify(str(message.get("message")), severity="error")
            self.refresh_table()  # the dialog offers the legal moves again
        elif kind == "info":
            self.notify(str(message.get("message")))
        elif kind == "warning":
            self.notify(str(message.get("message")), severity="warning")
        elif kind == "thinking":
            self.refresh_status()
        elif kind == "connection":
            self.connected = bool(message.get("up"))
            if self.connected:
                self.notify("Joined again.")
            self.refresh_table()
        elif kind == "bye":
            text = str(message.get("message") or "The host closed the connection.")
            self.notify(text, severity="warning", timeout=10)
            if not message.get("come_back"):  # e.g. joined from another terminal: this one steps aside
                self.step_aside(text)

    def updated(self, update: dict[str, Any]) -> None:
        log = self.knows
        new = log.apply(update)
        history = self.query_one(HistoryPanel)
        if log.reset or (new and log.anew):  # taken back, or told again from the start
            history.news_after = log.last_own_move() if isinstance(log.seat, int) else None
            history.set_history(len(log.events), log.lines_between)
        else:
            # the news marked first, then the new lines (marked as they are made): the lines
            # marked again are measured with the new ones, before the panel scrolls to its end
            # (marked after, they were measured when drawn, and the panel laid out and drawn
            # again in a frame of its own)
            if isinstance(log.seat, int):
                history.mark_news(log.last_own_move())
            history.append_lines(log.lines(new))
            # a new turn or round: at a hot-seat table its first move comes after a curtain (a mark on
            # a move's first event names the move itself, as Ministères' placed cards: not a new turn)
            starts = {end for end, _ in log.moves[-(len(new) + 1) :]}
            game = log.game
            if game is not None and any(game.mark(event) and index not in starts for index, event in new):
                self.turn_left = True
        self.refresh_table()
        if log.outcome is None:  # a player at the table gone or back: said, not only in the status line
            for seat in log.went_away:
                self.notify(f"{log.name(seat)} left the table; their seat waits for them.")
            for seat in log.came_back:
                self.notify(f"{log.name(seat)} is back at the table.")
        if log.outcome is not None:
            self.announce_end()
        elif not self.show_new_sheet():
            self.hand_over()
        self.query_one(KeysFooter).show_keys_now()  # in the frame that shows the move

    def hand_over(self) -> None:
        """The move to the player at this terminal whose it is: a curtain between two players
        sharing it, so that neither sees the other's secrets.

        At a table of several players here: a player whose move showed them something (a card
        drawn, a turn won) sees it before the terminal passes (Enter passes it); and a player
        whose move comes back after others moved, or who begins a new turn, meets the curtain
        again, so that a key meant for a curtain never plays a move."""
        if self.curtain_up or self.reading or self.passing is not None or self.knows.outcome is not None:
            return
        here = self.feed.here
        human = next((seat for seat in self.knows.active if seat in here), None)
        viewer = self.viewer
        if human is None or human != viewer:
            self.turn_left = True
        if human is None:
            return
        if human == viewer and self.seated and not (self.turn_left and len(here) > 1):
            return
        if len(here) > 1:
            if human != viewer and self.seated and isinstance(viewer, int) and self.feed.showed_own_move(viewer):
                self.passing = human
                self.feed.hold(True)
                self.refresh_table()
                self.refresh_bindings()
                return
            self.raise_curtain(human)
        else:
            self.seated = True
            self.feed.sit(human)

    def action_pass_on(self) -> None:
        """Hot-seat: the player has seen what their move showed them; the terminal passes on."""
        seat, self.passing = self.passing, None
        if seat is None:
            return
        self.feed.hold(False)
        self.refresh_bindings()
        self.raise_curtain(seat)

    def raise_curtain(self, seat: int) -> None:
        self.curtain_up = True
        self.feed.hold(True)

        def lowered(result: str | None) -> None:
            if result == "menu":  # the table is left, hidden still (the game is saved as it is)
                self.action_menu()
                return
            self.curtain_up = False
            self.turn_left = False
            self.seated = True
            self.feed.sit(seat)
            self.feed.hold(False)
            self.refresh_table()

        self.app.push_screen(Curtain(self.knows.name(seat)), lowered)

    def step_aside(self, text: str) -> None:
        """The connection is closed for good: this screen takes no more moves, and says so.

        Any dialog the board had open is closed (its choice would go nowhere), the board
        is drawn without moves, and only leaving, the history and the rules are left.
        """
        self.over = True
        self.farewell = text
        app = self.app
        while app.screen is not self and isinstance(app.screen, ModalScreen) and self in app.screen_stack:
            app.pop_screen()  # without its callback: nothing chosen there may be sent
        self.refresh_table()
        self.refresh_bindings()

    # -- scores --------------------------------------------------------------------------------

    def score_sheet(self) -> ScoreSheet | None:
        log = self.knows
        if log.game is None or log.view is None:
            return None
        return log.game.score_sheet(log.view)

    def show_new_sheet(self) -> bool:
        """A round was just scored: its breakdown, once; the table here waits until it is read
        (a served table does not wait)."""
        sheet = self.score_sheet()
        key = sheet.key if sheet is not None else None
        seen, viewer = self.sheets_seen, self.viewer
        if not seen:  # the first update: what was scored before is old news, for every seat here
            seen.update(dict.fromkeys([*self.feed.here, viewer], key))
            return False
        if sheet is None or key == seen.get(viewer, _UNSEEN):
            return False
        seen[viewer] = key
        self.reading = True
        self.feed.hold(True)
        self.refresh_status()

        def read(result: str | None) -> None:
            self.reading = False
            self.refresh_status()
            if result == "menu":
                self.action_menu()
                return
            self.feed.hold(False)
            self.hand_over()

        self.app.push_screen(self.sheet_dialog(sheet), read)
        return True

    def sheet_dialog(self, sheet: ScoreSheet) -> ScoreSheetDialog:
        """``sheet`` in its dialog: q back to the lobby at a served table, to the menu here; at a
        table of several players here, nothing of the table shows behind it (the sheet is
        everybody's, the hand behind it one player's)."""
        dialog = ServedScoreSheetDialog if self.served else ScoreSheetDialog
        return dialog(sheet, self.knows.names(), hide_table=len(self.feed.here) > 1)

    # -- drawing -------------------------------------------------------------------------------

    def refresh_status(self) -> None:
        log = self.knows
        if self.farewell is not None:
            back = "lobby" if self.served else "menu"
            text = f"No more moves here (q: {back}). {self.farewell}"  # what matters first: 80 columns cut the rest
        elif not self.connected:
            text = "Connection lost: joining again…"
        elif self.browsing is not None:
            # "in move": a position inside a move shows its first events only (a card played
            # before the trick it ends), where "move 2 of 2" read as the table as it is now
            shown = log.move_at(self.browsing)
            within = "" if log.moves and log.moves[shown][0] == self.browsing else "in "  # (move_at: it ends there)
            text = f"Looking back: {within}move {shown} of {log.move_count} (Esc: back to play)"
        elif log.outcome is not None:
            text = "Game over: " + log.outcome_text(why=False)
        elif self.reading:  # what waits is this player's Enter, whoever the table waits for
            text = "Read the score sheet, then Enter."  # a round, a period: any game; short, for 80 columns
            if log.away:  # who went meanwhile is news too (a served table goes on without this Enter)
                text += f" Away: {', '.join(log.name(seat) for seat in log.away)}."
        elif self.passing is not None:
            # what matters first (80 columns cut the rest): who is next, and the key
            text = f"Enter: pass the terminal to {log.name(self.passing)} (your move showed you this)."
        else:
            text = log.waiting_sentence(self.feed.thinking)
        you = f"You: {log.name(log.seat)}" if isinstance(log.seat, int) else "Watching"
        title = log.game.title if log.game is not None else "Cabinet"
        self.query_one("#status", StatusLine).say(title, you, text)

    def taking_moves(self) -> bool:
        """Whether this screen offers the player's choices now (when it is their move)."""
        return (
            self.connected
            and not self.over
            and self.knows.outcome is None
            and not self.curtain_up
            and self.passing is None  # the terminal is being passed on: no choice offered meanwhile
        )

    def refresh_table(self) -> None:
        log = self.knows
        if log.view is None:
            return
        if self.browsing is None:
            playing = self.taking_moves()
            self.query_one(Board).show(log.view, log.legal if playing and log.my_move() else None)
        self.refresh_status()

    def action_live(self) -> None:
        super().action_live()
        self.resume_pick()

    def resume_pick(self) -> None:
        """Back at the table as it is: the choice half made before looking back, given back."""
        pick, self.pick_before = self.pick_before, None
        if pick is not None:  # the card picked before looking back, its action still to choose
            self.query_one(Board).resume_pick(pick)

    def action_digit_to_play(self, digit: int) -> None:
        """A digit typed at the history, where the choices say their digits: back to the table
        as it is now (it used to do nothing until Esc), and, where the board showed it as it
        is already, the digit to the choices.  Looking back, the board showed a past hand:
        the digit would play a card of the hand now, not the one the player read ("4" played
        Y1, the fourth card now, where G10 was fourth then), so it only brings the play back."""
        looking_back = self.browsing is not None
        self.action_live()
        if looking_back:
            self.notify("Back to play: the choices as they are now.")
        else:
            self.app.simulate_key(str(digit))

    def on_history_panel_browse(self, message: HistoryPanel.Browse) -> None:
        """The table as it was at a line of the history: drawn once the keys read so far are
        taken (a burst of arrows, a key held down, draws only where it lands: a served
        session drew the board a thousand times for a thousand arrows, and was held to a
        twentieth of a core for it), from its view if it is here, else when the server
        answers (which is asked only for where the steps land)."""
        n = message.n
        was = self.browsing
        self.browsing = None if n is None or n >= len(self.knows.events) else n
        if was is None and self.browsing is not None:  # a choice half made waits for the way back
            self.pick_before = self.query_one(Board).pick()
        if not self.browse_due:
            self.browse_due = True
            self.call_after_refresh(self.draw_browsed)

    def draw_browsed(self) -> None:
        self.browse_due = False
        view = self.feed.look_back(self.browsing)
        if view is not None:
            self.query_one(Board).show(view, None)
        self.refresh_table()
        if self.browsing is None:  # stepped forward to now
            self.resume_pick()

    def announce_end(self) -> None:
        self.refresh_status()
        if self.announced_end:
            return
        self.announced_end = True
        self.refresh_bindings()  # take-back goes, replay comes
        self.show_game_over()

    def show_game_over(self) -> None:
        """The game-over dialog: who won, the final sheet; Enter looks at the table, and ``s``
        there brings the dialog back."""

        def chosen(what: str | None) -> None:
            if what == "replay":
                self.action_replay()
            elif what == "menu":
                self.action_menu()

        # at a served session's table q goes back to the lobby, and the dialog says so
        dialog = ServedGameOver if self.served else GameOver
        sheet, names = self.score_sheet(), self.knows.names()
        self.app.push_screen(dialog(self.knows.outcome_text(), sheet, names, replay=self.feed.can_replay), chosen)

    # -- the player ------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Offer only what works here: take-back while the game is played (the table's one rule
        says when a move may be taken back, and why not), the replay once it is over; behind the
        "too small" notice, only leaving."""
        if super().check_action(action, parameters) is False:
            return False
        if action == "takeback":
            return not self.over and isinstance(self.viewer, int) and self.knows.outcome is None
        if action == "replay":
            return self.knows.outcome is not None and self.feed.can_replay
        if action == "scores":  # the last sheet again, once a round was scored; the game over's, once over
            if self.knows.outcome is not None:
                return self.announced_end
            return not self.reading and self.score_sheet() is not None
        if action == "digit_to_play":  # (the board's own digits come first where it has the keys)
            return isinstance(self.focused, HistoryPanel) and self.taking_moves() and self.knows.my_move()
        if action == "pass_on":  # (a priority key: Enter is the choices' otherwise)
            return self.passing is not None and self.browsing is None
        if action in ("menu", "lobby"):  # q's one way back, named as the session has it
            return (action == "lobby") == self.served
        return True

    def on_board_chosen(self, message: Board.Chosen) -> None:
        message.stop()
        if self.browsing is not None or not isinstance(self.viewer, int):
            return
        if self.over:
            self.notify("This screen takes no more moves: the game goes on elsewhere.", severity="warning")
            return
        if not self.connected:
            self.notify("Not connected: the move waits until you have joined again.", severity="warning")
            return
        self.feed.command(message.command)

    def action_takeback(self) -> None:
        if not self.check_action("takeback", ()):
            return
        if not self.connected:
            self.notify("Not connected: take it back once you have joined again.", severity="warning")
            return
        self.feed.takeback()

    def action_replay(self) -> None:
        self.feed.replay(self.app)

    def action_scores(self) -> None:
        """The last score sheet again: read once as it came, or missed (a seat that joined again
        after it, an Enter pressed too soon).  The table goes on meanwhile; q leaves it.  Once the
        game is over: its game-over dialog again, the final sheet in it."""
        if self.knows.outcome is not None:
            if self.announced_end:
                self.show_game_over()
            return
        sheet = self.score_sheet()
        if sheet is not None:
            self.app.push_screen(self.sheet_dialog(sheet), lambda result: self.action_menu() if result else None)

    def action_where_saved(self) -> None:
        self.notify(self.feed.where())

    def action_lobby(self) -> None:
        self.action_menu()  # a served session's bottom screen is its lobby (app.back_to_menu)

    def action_menu(self) -> None:
        self.over = True
        sentence = self.feed.leave()
        app = self.app
        if isinstance(self.feed, LocalFeed):
            if app.at_table is self.feed:
                app.at_table = None
            # the save let go now, not when the screen is gone: Continue, pressed at once, finds
            # it free (its writer held it until the screen's unmount, and Continue skipped it)
            self.feed.close()
            if sentence and self.feed.match.outcome is None:
                app.left_last = self.feed.path  # "Continue it from the menu": Continue opens this one
        app.back_to_menu()
        if sentence and self.farewell is None:  # a screen stepped aside said why already (played on elsewhere)
            app.notify(sentence)
