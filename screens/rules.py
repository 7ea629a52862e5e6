"""The rules screen: each game's rules as Cabinet implements them."""

from __future__ import annotations

import weakref
from functools import cache
from importlib import resources
from typing import ClassVar

from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import Markdown
from rich.segment import Segment
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static, Tab, Tabs

from core.games import catalogue, game_titles
from tui.widgets import KeysFooter


def rules_text(game_id: str) -> str:
    """docs/rules/<id>.md, which each game package carries as its rules.md
    (a link in the repository, a copy in an installed package)."""
    entry = catalogue().get(game_id)
    try:
        if entry is None:
            raise FileNotFoundError(game_id)
        return (resources.files(entry[0]) / "rules.md").read_text(encoding="utf-8")
    except OSError:
        return f"# {game_id}\n\nThe rules text is missing from this installation."


#: the heading of a rules file's last section, its notes for developers (how a rule is coded,
#: measured or tested, why a screen is laid out as it is): kept in docs/rules/, never shown
DEVELOPER_NOTES = "## Notes for developers"


def players_text(game_id: str) -> str:
    """What a player reads of a game's rules: its rules text without the notes for developers."""
    text = rules_text(game_id)
    cut = text.find("\n" + DEVELOPER_NOTES + "\n")
    return text if cut < 0 else text[: cut + 1]


@cache
def rules_document(game_id: str) -> Markdown:
    # Rich draws a whole document in a few milliseconds, where a tree of
    # Markdown widgets took a second to open and seconds to switch games.
    return Markdown(players_text(game_id), hyperlinks=False)


#: the rules as drawn, kept a console (an app's): its latest few, each a game and a way of drawing
#: (a width, mostly); a screen resized a few times over keeps the last
_DRAWN: weakref.WeakKeyDictionary[Console, dict[tuple[object, ...], list[Segment]]] = weakref.WeakKeyDictionary()
DRAWN_KEPT = 4


class DrawnRules:
    """A game's rules document, drawn by Rich once for a console and a way of drawing, and given
    again from the segments kept: a whole rulebook takes Rich 90-190 ms at 80 columns, and the
    screen asks for it more than once (to measure its height, to draw it), at every opening."""

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        kept = _DRAWN.setdefault(console, {})
        key = (
            self.game_id,
            options.max_width,
            options.min_width,
            options.max_height,
            options.height,
            options.justify,
            options.overflow,
            options.no_wrap,
            options.highlight,
            options.markup,
            options.encoding,
            options.is_terminal,
            options.legacy_windows,
        )
        segments = kept.pop(key, None)  # (put back last: the most recent are kept)
        if segments is None:
            segments = list(console.render(rules_document(self.game_id), options))
        kept[key] = segments
        while len(kept) > DRAWN_KEPT:
            del kept[next(iter(kept))]
        yield from segments


class RulesScreen(Screen):
    BINDINGS: ClassVar[list[BindingType]] = [
        # before the text's own ← → (a scroll sideways it never needs), which hid them from the footer
        Binding("left", "game(-1)", "Game", key_display="←→", priority=True),
        Binding("right", "game(1)", "Next game", show=False, priority=True),
        Binding("pagedown,space", "page(1)", "Page", key_display="PgDn"),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("escape,q", "app.pop_screen", "Back", key_display="q"),
    ]

    def __init__(self, game_id: str | None = None) -> None:
        super().__init__()
        titles = game_titles()
        self.game_id = game_id if game_id in titles else next(iter(titles), None)

    def compose(self) -> ComposeResult:
        yield Tabs(*(Tab(title, id=f"rules-{gid}") for gid, title in game_titles().items()), id="rules-tabs")
        with VerticalScroll(id="rules-text"):
            yield Static(id="rules-body")
        yield KeysFooter(show_command_palette=False)

    def on_mount(self) -> None:
        tabs = self.query_one(Tabs)
        tabs.can_focus = False  # the text has the keys: arrows scroll, ← → change the game
        if self.game_id:
            tabs.active = f"rules-{self.game_id}"
            self.show_rules(self.game_id)
        else:
            self.query_one("#rules-body", Static).update("No games are installed.")
        self.query_one("#rules-text").focus()

    def show_rules(self, game_id: str) -> None:
        self.game_id = game_id
        self.query_one("#rules-body", Static).update(DrawnRules(game_id))
        self.query_one("#rules-text", VerticalScroll).scroll_home(animate=False)

    def on_tabs_tab_activated(self, event: Tabs.TabActivated) -> None:
        if event.tab is None or event.tab.id is None:
            return
        game_id = event.tab.id.removeprefix("rules-")
        if game_id != self.game_id:
            self.show_rules(game_id)

    def action_game(self, step: int) -> None:
        tabs = self.query_one(Tabs)
        if step > 0:
            tabs.action_next_tab()
        else:
            tabs.action_previous_tab()

    def action_page(self, step: int) -> None:
        text = self.query_one("#rules-text", VerticalScroll)
        if step > 0:
            text.scroll_page_down(animate=False)
        else:
            text.scroll_page_up(animate=False)
