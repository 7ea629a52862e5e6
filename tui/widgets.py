"""Widgets shared by every game screen: the board base, history, curtain, banners."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual import events
from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from core.engine import Command


class Board(Widget):
    """A game's table, drawn from one seat's ``view``.

    The same board serves live play (``legal`` given: the seat may act) and
    replay or browsing (``legal`` is None: look, don't touch).  It never
    decides a rule: it offers exactly the ``legal`` commands and posts the
    one chosen.
    """

    class Chosen(Message):
        def __init__(self, command: Command) -> None:
            super().__init__()
            self.command = command

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        #: the last view drawn, and what show() was given (to draw it again)
        self.view: dict[str, Any] | None = None
        self.shown: tuple[dict[str, Any], list[Command] | None] | None = None

    def show(self, view: dict[str, Any], legal: list[Command] | None) -> None:
        raise NotImplementedError

    def take_focus(self, widget: Widget) -> None:
        """Focus the widget of the player's choice, unless they are browsing the history."""
        focused = self.screen.focused
        if focused is None or focused.id != "history":
            widget.focus()

    def refresh_view(self) -> None:
        """Draw the last view again (the terminal changed size)."""
        last = getattr(self, "shown", None)
        if last is not None:
            self.show(*last)


class RoomyScreen(Screen):
    """A screen that knows when the terminal has room to spare.

    ``-wide`` (at least 110 columns) and ``-tall`` (at least 34 rows) let the
    stylesheet and the boards draw more: a wider history, cards as boxes.
    """

    WIDE = 110
    TALL = 34

    def on_resize(self, event: events.Resize) -> None:
        self.set_class(event.size.width >= self.WIDE, "-wide")
        self.set_class(event.size.height >= self.TALL, "-tall")
        for board in self.query(Board):
            board.refresh_view()


class HistoryPanel(OptionList):
    """One line per event; highlighting a line shows the table as it was then."""

    BINDINGS = [Binding("escape", "screen.live", "Back to play", show=False)]

    class Browse(Message):
        """Show the position after ``n`` events (None: the live position)."""

        def __init__(self, n: int | None) -> None:
            super().__init__()
            self.n = n

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.border_title = "History"
        self.event_index: list[int] = []  # option -> number of events after it
        #: a replay keeps its highlighted line in view, even when the panel is resized
        self.keep_highlight = False

    def on_resize(self, event: events.Resize) -> None:
        # the lines wrap anew at the new width: the highlighted one may have moved out of view
        if self.keep_highlight and self.highlighted is not None and not self.has_focus:
            self.call_after_refresh(self.scroll_to_highlight)

    def set_lines(self, lines: list[tuple[int, str, str | None]], follow: bool = True) -> None:
        """(events after the line, text, mark) for every line, from scratch; ``follow``:
        scroll to the last line (a replay highlights its own line instead)."""
        self.clear_options()
        self.event_index = []
        self.append_lines(lines, follow)

    def append_lines(self, lines: list[tuple[int, str, str | None]], follow: bool = True) -> None:
        options = []
        for n, text, mark in lines:
            self.event_index.append(n)
            style = "bold" if mark == "round" else ("" if mark == "turn" else "dim")
            options.append(Option(Text(text, style=style)))
        if options:
            at_end = self.highlighted is None or self.highlighted >= self.option_count - 1
            self.add_options(options)
            if follow and at_end and not self.has_focus:
                self.scroll_end(animate=False)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if self.has_focus and event.option_index < len(self.event_index):
            self.post_message(self.Browse(self.event_index[event.option_index]))

    def on_blur(self) -> None:
        self.post_message(self.Browse(None))


class Curtain(ModalScreen[None]):
    """Hides the table while the terminal passes to another player."""

    BINDINGS = [Binding("enter,space", "dismiss", "I am ready", priority=True)]

    def __init__(self, name: str, reason: str = "") -> None:
        super().__init__()
        self.player = name
        self.reason = reason

    def compose(self) -> ComposeResult:
        with Vertical(id="curtain-box"):
            yield Static(f"Pass the terminal to {self.player}", id="curtain-title")
            yield Static(self.reason or "The table is hidden so that nobody sees another player's secrets.", id="curtain-reason")
            yield Static(f"{self.player}: press Enter when you are ready.", id="curtain-key")

    def action_dismiss(self, result: None = None) -> None:  # type: ignore[override]
        self.dismiss(None)


class GameOver(ModalScreen[str]):
    """The end of a game: who won and why; replay or back to the menu."""

    BINDINGS = [
        Binding("r", "choose('replay')", "Replay"),
        Binding("m,escape", "choose('menu')", "Main menu"),
        Binding("enter,space", "choose('look')", "Look at the table"),
    ]

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical(id="gameover-box"):
            yield Static("Game over", id="gameover-title")
            yield Static(self.text, id="gameover-text")
            yield Static("[b]Enter[/] look at the table   [b]r[/] replay   [b]m[/] main menu", id="gameover-keys")

    def action_choose(self, what: str) -> None:
        self.dismiss(what)
