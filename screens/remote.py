"""A game hosted elsewhere (``cabinet join``): the same board as local play, fed by the server.

The screen holds only what the server sent to its seat (see ``net.client``).
When the connection drops it tries again every few seconds with the same
join code; the game waits on the host meanwhile.
"""

from __future__ import annotations

import asyncio
from typing import Any

from textual.binding import Binding
from textual.screen import ModalScreen

from core.engine import ScoreSheet
from net.client import JoinError, RemoteTable
from net.protocol import ProtocolError
from screens.boards import LiveTableScreen
from tui.widgets import Board, GameOver, HistoryPanel, ScoreSheetDialog, StatusLine

RETRY = 2.0  # seconds between two attempts to join again
_UNSEEN = object()


class RemotePlayScreen(LiveTableScreen):
    BINDINGS = [
        Binding("h", "history", "History"),
        Binding("u", "takeback", "Take back"),
        Binding("question_mark", "rules", "Rules"),
        Binding("escape", "live", "Back to play", show=False),
        Binding("q", "menu", "Leave"),
    ]

    def __init__(self, remote: RemoteTable) -> None:
        super().__init__()
        self.remote = remote
        self.browsing: int | None = None
        self.connected = True
        self.over = False  # the connection was closed for good (joined elsewhere, left)
        #: why it was closed for good, when the host said so (the status keeps saying it)
        self.farewell: str | None = None
        self.announced_end = False
        self.sheet_seen: object = _UNSEEN  # the key of the last score sheet shown

    def game_id(self) -> str:
        assert self.remote.game is not None  # joined before the screen is made
        return self.remote.game.id

    def on_mount(self) -> None:
        self.run_worker(self.listen(), exclusive=True, group="remote")

    # -- the wire -----------------------------------------------------------------------

    async def listen(self) -> None:
        remote = self.remote
        while not self.over:
            try:
                while True:
                    message = await remote.receive()
                    if message is None:
                        break
                    self.received(message)
                    if self.over:
                        await remote.close()  # nothing more goes out on it
                        return
            except (ProtocolError, OSError) as exc:
                self.notify(f"The connection broke: {exc}", severity="warning")
            if self.over:
                return
            self.connected = False
            self.refresh_status()
            await remote.close()
            while not self.over:
                await asyncio.sleep(RETRY)
                try:
                    await remote.connect(timeout=5.0)
                except JoinError:
                    continue
                self.connected = True
                self.query_one(HistoryPanel).set_lines([])
                self.notify("Joined again.")
                break

    def received(self, message: dict[str, Any]) -> None:
        kind = message["t"]
        if kind == "update":
            new = self.remote.apply(message)
            history = self.query_one(HistoryPanel)
            if self.remote.reset:  # a move was taken back: the history as it now is
                history.set_lines(self.remote.lines(list(enumerate(self.remote.events))))
            else:
                history.append_lines(self.remote.lines(new))
            self.refresh_table()
            if self.remote.outcome is not None:
                self.announce_end()
            else:
                self.show_new_sheet()
        elif kind == "view_at":
            view = self.remote.answered(message)
            if view is not None and self.browsing is not None:
                self.query_one(Board).show(view, None)
        elif kind == "error":
            self.notify(str(message.get("message")), severity="error")
            self.refresh_table()  # the dialog offers the legal moves again
        elif kind == "info":
            self.notify(str(message.get("message")))
        elif kind == "bye":
            text = str(message.get("message") or "The host closed the connection.")
            self.notify(text, severity="warning", timeout=10)
            if not message.get("come_back"):  # e.g. joined from another terminal: this one steps aside
                self.step_aside(text)

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
        self.refresh_status()
        self.refresh_bindings()

    # -- drawing --------------------------------------------------------------------------

    def refresh_status(self, text: str | None = None) -> None:
        remote = self.remote
        if text is None and self.farewell is not None:
            text = f"No more moves here (q: leave). {self.farewell}"  # what matters first: 80 columns cut the rest
        if text is None:
            if not self.connected:
                text = "Connection lost: joining again…"
            elif self.browsing is not None:
                text = f"Looking back at move {self.browsing} of {len(remote.events)} (Esc: back to play)"
            elif remote.outcome is not None:
                text = "Game over: " + remote.outcome_text()
            else:
                away = [remote.name(s) for s in remote.away if s in remote.active]
                if away:
                    text = f"Waiting for {', '.join(away)} (away)."
                elif isinstance(remote.seat, int) and remote.seat in remote.active:
                    text = f"{remote.name(remote.seat)}, your move."
                else:
                    text = f"Waiting for {', '.join(remote.name(s) for s in remote.active)}."
                others = [remote.name(s) for s in remote.away if s not in remote.active]
                if others:
                    text += f" Away: {', '.join(others)}."
        you = f"You: {remote.name(remote.seat)}" if isinstance(remote.seat, int) else "Watching"
        title = remote.game.title if remote.game else "Cabinet"
        self.query_one("#status", StatusLine).say(title, you, text)

    def refresh_table(self) -> None:
        remote = self.remote
        if remote.view is None:
            return
        if self.browsing is None:
            legal = remote.legal if self.connected and not self.over and remote.outcome is None else None
            self.query_one(Board).show(remote.view, legal)
        self.refresh_status()

    def announce_end(self) -> None:
        if self.announced_end:
            return
        self.announced_end = True

        def chosen(what: str | None) -> None:
            if what == "replay":
                hall = getattr(self.app, "hall", None)
                if hall is not None and self.remote.table_id is not None:
                    from screens.lobby import replay_table

                    self.app.run_worker(replay_table(self.app, hall, self.remote.table_id), group="replay")
                else:
                    self.notify("The save and its replay are on the host's machine.", severity="information")
            elif what == "menu":
                self.action_menu()

        self.app.push_screen(GameOver(self.remote.outcome_text(), self.score_sheet(), self.seat_names()), chosen)

    # -- scores: the same sheets as at a local table, from the view the host sent -------

    def seat_names(self) -> list[str]:
        return [seat["name"] for seat in self.remote.table.get("seats", [])]

    def score_sheet(self) -> ScoreSheet | None:
        remote = self.remote
        if remote.game is None or remote.view is None:
            return None
        return remote.game.score_sheet(remote.view)

    def show_new_sheet(self) -> None:
        """A round was just scored: its breakdown, once (the host's game does not wait for it)."""
        sheet = self.score_sheet()
        key = sheet.key if sheet is not None else None
        if self.sheet_seen is _UNSEEN:  # the first update: what was scored before we came is old news
            self.sheet_seen = key
            return
        if sheet is None or key == self.sheet_seen or key == "final":
            return
        self.sheet_seen = key
        self.app.push_screen(ScoreSheetDialog(sheet, self.seat_names()))

    # -- the player -------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "takeback":
            if self.over:
                return False  # closed for good: leave, history and rules are what is left
            # a seat's player may ask; the table's one rule, on the server, says yes or why not
            return isinstance(self.remote.seat, int) and self.remote.outcome is None
        return True

    def on_board_chosen(self, message: Board.Chosen) -> None:
        message.stop()
        if self.browsing is not None or not isinstance(self.remote.seat, int):
            return
        if self.over:
            self.notify("This screen takes no more moves: the game goes on elsewhere.", severity="warning")
            return
        if not self.connected:
            self.notify("Not connected: the move waits until you have joined again.", severity="warning")
            return
        self.remote.command(message.command)

    def on_history_panel_browse(self, message: HistoryPanel.Browse) -> None:
        """The table as it was at a line of the history: drawn at once if its view was sent
        already, else when the server answers (a burst of steps asks for where it lands)."""
        n = message.n
        self.browsing = None if n is None or n >= len(self.remote.events) else n
        view = self.remote.look_back(self.browsing)
        if view is not None:
            self.query_one(Board).show(view, None)
        self.refresh_table()

    def action_takeback(self) -> None:
        """Asked of the server, whose table alone knows whether the seat may (``table.Table``'s
        rule: no other human has moved since, nothing hidden was shown since) and says so in a
        sentence when it may not."""
        if not isinstance(self.remote.seat, int):
            self.notify("A spectator has no move to take back.", severity="warning")
        elif not self.connected:
            self.notify("Not connected: take it back once you have joined again.", severity="warning")
        else:
            self.remote.takeback()

    def action_menu(self) -> None:
        self.over = True
        self.workers.cancel_group(self, "remote")
        self.run_worker(self.remote.close(), group="close")
        app = self.app
        app.back_to_menu()
        if isinstance(self.remote.seat, int) and self.remote.outcome is None:
            again = "Open it again from the lobby." if self.remote.token is not None else "Join again with the same code."
            app.notify(f"You left; the game waits for you. {again}")
