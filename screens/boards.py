"""Which board widget draws which game, and the screen layout they share."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Static

from core.engine import Match
from screens.games import board_class
from tui.widgets import Board, HistoryPanel, KeysFooter, RoomyScreen, StatusLine, too_small_text


def board_for(game_id: str) -> Board:
    """The board that draws ``game_id``, found in the boards' registry (``screens.games``)."""
    board = board_class(game_id)
    if board is None:
        raise LookupError(f"No screen for game {game_id!r}.")
    return board(id="board")


class TableScreen(RoomyScreen):
    """A status line, the game's board beside the history, the keys: play and replay alike."""

    match: Match

    def game_id(self) -> str:
        return self.match.game.id

    @property
    def served(self) -> bool:
        """Whether the table is shown in a served session (``cabinet serve``), whose bottom
        screen is its lobby and which keeps no games of its own."""
        return bool(getattr(self.app, "served", False))

    def compose(self) -> ComposeResult:
        yield StatusLine(id="status")
        with Horizontal(id="main"):
            yield board_for(self.game_id())
            yield HistoryPanel(id="history")
        yield Static(too_small_text(0, 0), id="too-small")
        yield KeysFooter(show_command_palette=False)


class LiveTableScreen(TableScreen):
    """A game being played, here or on a host: the history to browse, the rules to read."""

    browsing: int | None = None

    def refresh_table(self) -> None:
        raise NotImplementedError

    def action_history(self) -> None:
        # at once, not after this message (as Widget.focus does): a key read with h (a paste,
        # a slow link's packet) goes to the history, not to the choices h left
        self.set_focus(self.query_one(HistoryPanel))

    def action_live(self) -> None:
        """Back from the history to play: the table as it is now, the keys to the player's choice."""
        self.browsing = None
        self.refresh_table()
        self.query_one(Board).focus_play()

    def action_rules(self) -> None:
        self.app.open_rules(self.game_id())
