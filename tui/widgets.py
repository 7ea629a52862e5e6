"""Widgets shared by every game screen: the board base, history, curtain, banners."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, ClassVar, Self, cast

from rich.cells import cell_len
from rich.console import Group
from rich.markup import escape
from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.css.scalar import Unit
from textual.geometry import Size
from textual.message import Message
from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import DataTable, OptionList, Static
from textual.widgets.option_list import Option

from core.engine import Command, ScoreSheet, printable
from table.table import HISTORY_CHUNK
from tui.keys import KeysFooter, plain

_NOTHING = object()


class Rows(DataTable):
    """A list of rows to choose from (the saves, the lobby's tables, the standings): Home and
    End go to the first and the last row, as in every other list here (a DataTable's own
    Home and End scroll sideways)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("home", "scroll_top", "First", show=False),
        Binding("end", "scroll_bottom", "Last", show=False),
    ]


def cell(text: str) -> str:
    """``text`` for a DataTable's cell, shown as it is.  A DataTable reads a string as
    Rich markup, and makes its Text itself (one line that does not wrap, ``end=""``),
    while it takes a Text as it comes: with :func:`plain`'s Texts a column was seen drawn
    a cell short ("ann, — fre").  So the string is escaped (read back, it is the text it
    is) and made printable."""
    return escape(printable(text))


#: a space a line is never broken at by :func:`kept_together` (shown as a space)
KEEP = "\u00a0"


def kept_together(text: Text, width: int) -> Text:
    """``text``, each of its lines broken at its plain spaces into rows of at most ``width``
    cells, never at a :data:`KEEP` (Rich and Textual break at a no-break space as at any
    other: "Elsa" on one row, her card count on the next), which then shows as a space.
    A word longer than a row is left to the widget to fold; ``width`` 0: as it is."""
    if width <= 0 or KEEP not in text.plain:
        return text
    rows: list[Text] = []
    for line in text.split("\n", allow_blank=True):
        plain = line.plain
        if KEEP not in plain or cell_len(plain) <= width:  # (most lines: as the widget would wrap them)
            rows.append(line)
            continue
        cuts: list[int] = []  # where rows end: each at a space, which goes
        start, space, used = 0, -1, 0  # used: the cells from start to here
        for i, char in enumerate(plain):
            used += cell_len(char)
            if char == " ":
                space = i
            elif space > start and used > width:
                cuts.append(space)
                used -= cell_len(plain[start : space + 1])
                start = space + 1
        pieces = line.divide([edge for cut in cuts for edge in (cut, cut + 1)])
        rows.extend(pieces[::2])  # (the odd pieces are the spaces cut at)
    for row in rows:
        row.plain = row.plain.replace(KEEP, " ")
    return Text("\n", end=text.end).join(rows)


def printable_view(value: Any) -> Any:
    """A view with each of its strings :func:`printable`: the same object, where all
    of them are already (always, but for a name from a save or a host that is not)."""
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, dict):
        changed = {key: new for key, item in value.items() if (new := printable_view(item)) is not item}
        return {**value, **changed} if changed else value
    if isinstance(value, (list, tuple)):
        items = [printable_view(item) for item in value]
        if all(new is old for new, old in zip(items, value, strict=True)):
            return value
        return type(value)(items) if isinstance(value, list) else tuple(items)
    return value


class LaidOutOnce(Widget if TYPE_CHECKING else object):  # type: ignore[misc]
    """A widget laid out once when its size changes, not twice.

    When a widget's size changes, Textual sets its virtual size (the size of what it holds) as
    a reactive that asks for a layout of its own: every part of a board that grew or shrank was
    laid out and drawn a second time, in a frame of its own, after the frame that showed it
    (issue 35).  The layout that measured the widget has just arranged what it holds, and its
    scrollbars are updated with the new sizes all the same (``Widget._size_updated``): its
    virtual size is set without that second layout.  (A mixin, put first: Textual finds a
    widget's CSS type names through its first base that is a widget.)"""

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True) -> bool:
        return super()._size_updated(size, virtual_size, container_size, layout=False)


class BoardPart(LaidOutOnce, Static):
    """A part of a board: a Static that ``Board.paint`` fills."""


class BoardScroll(LaidOutOnce, VerticalScroll):
    """The part of a board that scrolls when a tall choice meets many players in 24 rows."""


def keeps_its_size(widget: Widget) -> bool:
    """Whether ``widget``, given new content, takes the room it took: its width does not come
    from its content, and its height does not either or is what it was at that width (its
    content's height and its box's, within the box's bounds in lines).  Then it is drawn
    again alone; otherwise the screen is laid out again (Textual lays out the whole screen
    for any widget whose content changed, and draws again all that moved: most of a move's
    cost at a table when a line of the board changed and nothing moved, issue 35)."""
    styles = widget.styles
    size = widget.content_size
    outer = widget.outer_size.height
    if not widget.is_mounted or not widget.display or size.width <= 0 or not size.height:
        return False
    if (styles.width is not None and styles.width.is_auto) or styles.height is None:
        return False  # a width that comes from the content: laid out again (none: it fills the row)
    if not styles.height.is_auto:
        return True  # a height the stylesheet gives (lines, a share of the room): not the content's
    height = widget.get_content_height(widget.container_size, widget.app.size, size.width) + outer - size.height
    for bound, keep in ((styles.max_height, min), (styles.min_height, max)):
        if bound is not None:
            if bound.unit != Unit.CELLS:
                return False  # a bound of another unit than lines: the layout says
            height = keep(height, int(bound.value))
    return height == outer


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
        #: the widget the player's choice lives in (focused again when the history is left)
        self.play_focus: Widget | None = None
        #: what each Static was last given by paint(), or its key
        self.painted: dict[str, Any] = {}

    def show(self, view: dict[str, Any], legal: list[Command] | None) -> None:
        """Draw ``view``, offering ``legal`` (None: look, don't touch).

        The board draws the view's strings as they are, in Rich texts: a seat's name
        is one, and may come from a save or a host, so every string the board is
        given is made printable first, once for the four games."""
        self.draw(printable_view(view), legal)
        self.refresh_bindings()  # a board's own keys (pass, done, campaign) are offered as its moves are

    def draw(self, view: dict[str, Any], legal: list[Command] | None) -> None:
        raise NotImplementedError

    def pick(self) -> Any:
        """The choice half made (a card picked, its action not yet): kept while the player
        looks back at the history, whose past positions the board draws without choices."""
        return None

    def resume_pick(self, pick: Any) -> None:
        """Back from the history: the choice half made before it, where it can still be made."""

    def paint(self, selector: str, content: Any, same_as: Any = None) -> None:
        """Put ``content`` in the Static ``selector``, unless it shows that already.

        A Static given anything, even what it shows, is laid out and drawn again, and
        so is all that a layout moves. Most of a board stays as it was from one move
        to the next: drawing only what changed is most of what a move costs a
        screen. ``same_as`` stands for the content where that cannot be compared
        (a Rich table): equal keys, same drawing.
        """
        widget = self.query_one(selector, Static)
        key = content if same_as is None else same_as
        if self.painted.get(selector, _NOTHING) == key:
            return
        self.painted[selector] = key
        widget.update(content, layout=False)
        if not keeps_its_size(widget):
            widget.refresh(layout=True)

    def take_focus(self, widget: Widget) -> None:
        """Focus the widget of the player's choice, unless they are browsing the history."""
        self.play_focus = widget
        screen = self.screen
        if getattr(screen, "too_small", False):  # hidden: it has the keys when the terminal is big again
            screen.focus_before_small = widget  # type: ignore[attr-defined]
            return
        focused = screen.focused
        if focused is None or focused.id != "history":
            # at once, not once the messages before are handled (``focus``): the footer shows
            # the widget's keys (Choose) in the frame that shows the move (issue 35)
            screen.set_focus(widget)

    def focus_play(self) -> None:
        """Give the keys back to the player's choice (leaving the history): the
        widget the board last wanted focused, else its first focusable part."""
        target = self.play_focus
        if target is None or not target.is_attached or not target.display or not target.focusable:
            target = next((w for w in self.query("*") if w.focusable and w.display), None)
        if target is not None:
            target.focus()
        else:
            self.screen.set_focus(None)

    def refresh_view(self) -> None:
        """Draw the last view again (the terminal changed size)."""
        last = getattr(self, "shown", None)
        if last is not None:
            self.show(*last)


def too_small_text(width: int, height: int) -> str:
    return (
        f"The terminal is {width}x{height}.\nA table needs 80x24.\n\n"
        "Enlarge the terminal, or make the font smaller, to play on.\nNothing is lost meanwhile."
    )


def too_small_for_a_table(width: int, height: int) -> bool:
    return width < RoomyScreen.SMALLEST[0] or height < RoomyScreen.SMALLEST[1]


class StatusLine(Static):
    """A table's one line of status: its parts joined by `` · ``.  What it says last (whose
    move, who won) is what must be read whole: while the line is wider than the screen, the
    parts before it are shortened first (each to ``SHORTEST`` cells, ending in "…"), and only
    then left out, the first ones first."""

    SHORTEST = 12

    def __init__(self, **kwargs: Any) -> None:
        # text, never markup: the parts name players, and say what a host sent
        super().__init__("", markup=False, **kwargs)
        self.parts: tuple[str, ...] = ()

    def say(self, *parts: str) -> None:
        self.parts = tuple(printable(part) for part in parts)
        self.fit()

    @classmethod
    def fitted(cls, parts: tuple[str, ...], room: int) -> str:
        """``parts`` joined, in ``room`` cells if it can be done (0: any width)."""
        parts_left = list(parts)
        if room:
            for i in range(len(parts_left) - 1):
                excess = cell_len(" · ".join(parts_left)) - room
                if excess <= 0:
                    break
                width = cell_len(parts_left[i])
                keep = max(cls.SHORTEST, width - excess)
                if keep < width:
                    short = Text(parts_left[i])
                    short.truncate(keep, overflow="ellipsis")
                    parts_left[i] = short.plain
            while len(parts_left) > 1 and cell_len(" · ".join(parts_left)) > room:
                parts_left.pop(0)
        return " · ".join(parts_left)

    def fit(self) -> None:
        line = self.fitted(self.parts, self.content_region.width)
        if line != self.content:  # the same line is not drawn again
            self.update(line, layout=False)  # one line, always: nothing to lay out again

    def on_resize(self, event: events.Resize) -> None:
        self.fit()


class TooSmallGuard:
    """A table's screen, or a dialog over it, below 80x24: it shows only the notice
    (``#too-small``, its ``-small`` class) and takes no key but its ``SMALL_KEEPS`` actions
    (leaving): its own actions are refused here (``check_action``), what had the keys loses
    them until the terminal is big again, and the app reads no other key
    (``CabinetApp.on_event``), so that no key reaches a choice hidden behind it."""

    #: the actions still offered behind the notice (an action, or an action called with its
    #: parameters: ``choose('menu')``)
    SMALL_KEEPS: ClassVar[frozenset[str]] = frozenset()
    #: the terminal is smaller than a table needs: only the notice shows
    too_small = False
    #: what had the keys when the terminal became too small (given them back after)
    focus_before_small: Widget | None = None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if not self.too_small:
            return True
        called = f"{action}({', '.join(map(repr, parameters))})" if parameters else action
        return action in self.SMALL_KEEPS or called in self.SMALL_KEEPS

    def guard(self, width: int, height: int) -> bool:
        """The terminal is ``width`` x ``height``: the notice, or the screen again. True when too small."""
        screen = cast(Screen, self)
        small = too_small_for_a_table(width, height)
        if small != self.too_small:
            self.too_small = small
            if small:  # nothing hidden keeps the keys (nor shows its own in the footer)
                self.focus_before_small = screen.focused
                screen.set_focus(None)
            else:
                self.focus_again()
            screen.refresh_bindings()
        screen.set_class(small, "-small")
        if small:
            for notice in screen.query("#too-small").results(Static):
                notice.update(too_small_text(width, height))
        return small

    def focus_again(self) -> None:
        """The keys back to what had them, or to the board's choice (it may have changed meanwhile)."""
        widget, self.focus_before_small = self.focus_before_small, None
        if widget is not None and widget.is_attached and widget.display and widget.focusable:
            widget.focus()
            return
        for board in cast(Screen, self).query(Board):
            board.focus_play()
            return


class RoomyScreen(TooSmallGuard, Screen):
    """A screen that knows when the terminal has room to spare.

    ``-wide`` (at least 110 columns) and ``-tall`` (at least 34 rows) let the
    stylesheet and the boards draw more: a wider history, cards as boxes.  Below
    ``SMALLEST`` it shows only a notice, and takes no key but leaving (``TooSmallGuard``).
    """

    WIDE = 110
    TALL = 34
    #: below this a table cannot be drawn whole: the screen says so instead (``-small``)
    SMALLEST = (80, 24)
    SMALL_KEEPS = frozenset({"menu", "leave"})

    def on_resize(self, event: events.Resize) -> None:
        width, height = event.size
        self.set_class(width >= self.WIDE, "-wide")
        self.set_class(height >= self.TALL, "-tall")
        self.guard(width, height)
        for board in self.query(Board):
            board.refresh_view()


class SteadyOptionList(OptionList):
    """An OptionList whose scrollbar is drawn again only when it changes.

    Textual's ScrollView keeps the virtual size it measures itself (an OptionList: its lines),
    but at every layout of the screen it compares that with the one the layout passes (the
    size of its content region), which differs whenever the list is longer than it shows; so
    every layout, whatever it moved, had it update its scrollbar to the same values and draw it
    again, in one more frame of its own: a history panel's scrollbar was drawn in every frame
    of a table, and every update of the table cost a frame more (docs/PERFORMANCE.md, issue 35).
    What its scrollbars are made of is kept when they are made (``_scroll_update``): the sizes,
    its own virtual size, which scrollbars show and whether they were mounted yet (one not
    mounted is not drawn by a refresh: a replay opened at a move had its thumb left at the
    top).  When none of that changed, a layout has nothing to do here."""

    #: what the scrollbars were last made of
    _scrolled_for: tuple[Any, ...] | None = None
    #: while its lines change (``lines_change``): whether a layout was asked (None: not then)
    _layout_held: bool | None = None

    def refresh(self, *regions: Any, repaint: bool = True, layout: bool = False, recompose: bool = False) -> Self:
        if layout and self._layout_held is not None:
            self._layout_held = True
            layout = False
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    @contextmanager
    def lines_change(self) -> Iterator[None]:
        """Its options change (are replaced, added to): the layout of the screen they ask for
        is asked only where the box then takes another size or its scrollbars come or go.
        (Textual lays out the whole screen, and draws again all that moved, for a list whose
        lines changed: a history that grew by a line, choices that became a waiting sentence
        in a box that keeps its height, at every move of a table, issue 35.)"""
        if self._layout_held is not None:
            yield
            return
        bars = (self.show_vertical_scrollbar, self.show_horizontal_scrollbar)
        self._layout_held = False
        try:
            yield
        finally:
            asked, self._layout_held = self._layout_held, None
            if asked and (
                bars != (self.show_vertical_scrollbar, self.show_horizontal_scrollbar) or not keeps_its_size(self)
            ):
                self.refresh(layout=True)

    def _scrollbars_of(self) -> tuple[Any, ...]:
        bars = (self._vertical_scrollbar, self._horizontal_scrollbar)
        return (
            self._size,
            self._container_size,
            self.virtual_size,
            self.show_vertical_scrollbar,
            self.show_horizontal_scrollbar,
            tuple(bar is not None and bar.is_mounted for bar in bars),
        )

    def _scroll_update(self, virtual_size: Size) -> None:
        super()._scroll_update(virtual_size)
        self._scrolled_for = self._scrollbars_of()

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True) -> bool:
        if (
            size == self._size
            and container_size == self.container_size
            and not self._scrollbar_changes
            and self._scrolled_for == self._scrollbars_of()
        ):
            return False
        return super()._size_updated(size, virtual_size, container_size, layout)

    def _replace_option_prompt(self, index: int, prompt: Any) -> None:
        """Line ``index`` shows ``prompt``: where it takes as many lines as before, only its
        own drawing is made again.  (Textual's OptionList forgets the measures and drawings of
        every option for one prompt replaced: a history that marks the news since the
        player's move, a line or a few at every update, measured and drew all its lines again
        each time, issue 35.)"""
        option = self.get_option_at_index(index)
        before = self._line_cache.heights.get(index)
        option._set_prompt(prompt)
        region = self.scrollable_content_region
        if before is None or not region:
            self._clear_caches()
            return
        padding = self.get_component_styles("option-list--option").padding
        width = region.width - self._get_left_gutter_width() - padding.width
        if self._get_visual(option).get_height(self.styles, width) + option._divider != before:
            self._clear_caches()  # its lines, and those of every option after it, move
            return
        cache = self._option_render_cache
        for key in [key for key in cache.keys() if key[0] is option]:  # noqa: SIM118 - no iterating an LRUCache
            cache.discard(key)
        self.refresh()


def _prompt_key(prompt: Any) -> Any:
    """What a choice's prompt shows, as a key: its text and its styles."""
    if isinstance(prompt, Text):
        return ("text", prompt.plain, str(prompt.style), tuple((s.start, s.end, str(s.style)) for s in prompt.spans))
    return ("str", str(prompt))


class ChoiceList(SteadyOptionList):
    """A board's list of the moves its seat may make: Enter plays the highlighted one,
    and the footer says so while the list has the keys.

    While another seat acts the list says whose move it is and what they decide (the
    table's sentence), and offers nothing: no choice that cannot be taken stays listed,
    and no key is shown that does nothing.  While the player looks back at the history
    it says so (the choices of now are not the table's shown), and the choices come back
    with Esc."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "select", "Choose")]

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        #: the list holds one line saying why there is nothing to choose (another's move, the
        #: history looked back at), not choices
        self.waiting = False
        #: the options last made, by their prompts (``options_for``)
        self._made: dict[Any, Option] = {}

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "select":
            # nothing to choose (a replay, another's move, the history looked back at): no key
            return bool(self.option_count) and self.display and not self.waiting
        return True

    def add_options(self, items: Any) -> Self:
        super().add_options(items)
        self.refresh_bindings()  # the footer shows the key once there is something to choose
        return self

    def clear_options(self) -> Self:
        self.waiting = False
        super().clear_options()
        self.refresh_bindings()
        return self

    def list_choices(self, prompts: list[Any], title: str, live: bool, same: bool = False, first: int = 0) -> bool:
        """What a board shows of its seat's choices, one ``prompts`` line each, under ``title``.

        No prompts: while the game goes on (``live``) and the list was shown, it says whose
        move it is and what they decide (the screen's ``waiting_text``), titled "Waiting";
        or, while the player looks back at the history, that the table is as it was, titled
        "Looking back".  At the game's end, or where no list was shown, the list goes.  ``same``: the prompts are those listed already, which keep
        their place.  ``first``: the choice highlighted at first (what Enter takes when pressed at
        once).  True where the list has choices to take the keys (the board focuses it)."""
        with self.lines_change():
            return self._list_choices(prompts, title, live, same, first)

    def _list_choices(self, prompts: list[Any], title: str, live: bool, same: bool, first: int = 0) -> bool:
        if prompts:
            if not (same and self.option_count and not self.waiting):  # (the same, listed: kept as they are)
                rows = self.scrollable_content_region.height
                if self.styles.min_height is not None and len(prompts) < rows:
                    self.keep_height(None)  # fewer choices than the box kept room for: it shrinks to them
                if self.styles.overflow_y == "scroll" and len(prompts) <= rows:
                    self.styles.overflow_y = "auto"  # they fit: no scrollbar
                self.clear_options()
                # a prompt or a title given as a string names players: text, not markup
                self.add_options(self.options_for(prompts))
                self.highlighted = first if 0 <= first < len(prompts) else 0
                if self.highlighted:
                    self.call_after_refresh(self.from_the_top)
            self.border_title = plain(title)
            self.display = True
            return True
        if live and self.display and self.option_count:
            screen = self.screen
            if getattr(screen, "browsing", None) is not None:
                # the table as it was: the choices of now are not its (they come back with Esc)
                self.tell("The table as it was then. Esc: back to play.", "Looking back")
            else:
                self.tell(getattr(screen, "waiting_text", None) or "Another player is choosing.")
        elif self.option_count or self.display:
            self.clear_options()
            self.display = False
        return False

    def on_resize(self) -> None:
        self.from_the_top()

    def from_the_top(self) -> None:
        """The list from its top where its highlight is in sight there: a list that scrolled to
        its highlight while it was shorter (the lines of another phase's choices) stayed
        scrolled once it grew, the lines above the highlight out of sight (Ministères' first
        auction hid Pass above Bid 1)."""
        highlighted = self.highlighted
        if not self.is_attached or not highlighted or not self.scroll_offset.y:
            return
        self._update_lines()
        line = self._index_to_line.get(highlighted)
        if line is not None and line + self._heights[highlighted] <= self.scrollable_content_region.height:
            self.scroll_to(y=0, animate=False, immediate=True)

    def options_for(self, prompts: list[Any]) -> list[Option]:
        """The options of ``prompts``, each the one made for the same prompt last time where
        there was one: Textual keeps an option's content, made ready to draw, and the height it
        measured with the option, and a list of bids (up to 90 in Ministères' auctions) comes
        back at every turn of the player with most of its lines as they were (issue 35).  Only
        the last list's are kept."""
        made = self._made
        self._made = {}
        options = []
        for prompt in prompts:
            key = _prompt_key(prompt)
            option = None if key in self._made else made.pop(key, None)  # (an option is listed once)
            if option is None:
                option = Option(plain(prompt) if isinstance(prompt, str) else prompt)
            self._made.setdefault(key, option)
            options.append(option)
        return options

    def keep_height(self, rows: int | None) -> None:
        """The box is at least ``rows`` high (None: as high as its lines)."""
        if (self.styles.min_height is None and rows is None) or (
            self.styles.min_height is not None and self.styles.min_height.value == rows
        ):
            return
        self.styles.min_height = rows

    def tell(self, sentence: str, title: str = "Waiting") -> None:
        """Nothing to choose here now: the list says why in one line (another seat acts: who,
        and what they are deciding)."""
        self.border_title = title
        if self.waiting and self.option_count == 1 and str(self.get_option_at_index(0).prompt) == sentence:
            return
        if not self.waiting and self.display and self.outer_size.height:
            # the box keeps the height its choices gave it, and their scrollbar if they had
            # one: the board around it is not laid out and drawn again at every move (with
            # the choices their height comes back, and their scrollbar)
            self.keep_height(self.outer_size.height)
            if self.show_vertical_scrollbar and self.styles.overflow_y != "scroll":
                self.styles.overflow_y = "scroll"
        super().clear_options()
        super().add_options([Option(plain(sentence), disabled=True)])
        self.highlighted = None
        self.waiting = True
        self.refresh_bindings()


#: a history line: (events after it, its text, its mark)
Line = tuple[int, str, str | None]


class HistoryPanel(SteadyOptionList):
    """One line per event; highlighting a line shows the table as it was then.

    Given the lines' source (:meth:`set_history`), it builds the lines of the newest
    :data:`~table.table.HISTORY_CHUNK` events, under a first line that says how many came
    before; going up to that line (↑, a click) builds as many events' lines before those
    as are built, and a replay that goes back further has them built as far as it goes
    (:meth:`reach`)."""

    #: while the player browses it, the footer says how: the arrows step, Esc goes back to play
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor_up", "Earlier", key_display="↑↓"),
        Binding("down", "cursor_down", "Later", show=False),
        Binding("escape", "screen.live", "Back to play"),
        # h again, or Enter (a choice is in sight beside the history), go back as Esc does
        Binding("h", "screen.live", "Back to play", show=False),
        Binding("enter", "screen.live", "Back to play", show=False),
    ]

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
        #: lines after this many events are news to the player (marked "•"); None: no marks
        self.news_after: int | None = None
        self.texts: list[tuple[str, str | None]] = []  # option -> (text, mark), to restyle
        #: line -> what follows it, styled (a replay's analysis: "?" after a move that cost its mover much)
        self.suffixes: dict[int, Text] = {}
        #: one line's note, shown under it while it is the line looked at (what the search preferred)
        self.note: tuple[int, Text] | None = None
        #: the lines of events start..end, for the lines not built yet (None: all are built)
        self.source: Callable[[int, int], list[Line]] | None = None
        #: the lines of the events from this one on are built; the first option says how
        #: many came before, while there are any
        self.built_from = 0

    def on_resize(self, event: events.Resize) -> None:
        """The lines wrap anew at the new width, and every line after the first changed moves:
        the panel keeps its place, the newest line in view while it follows the game, the
        highlighted one while the player looks back (or a replay shows its line).  Done now,
        the lines measured at the new width (which OptionList does only after this handler),
        so that no frame is drawn at the old place."""
        self._clear_caches()
        self._update_lines()
        if self.highlighted is not None and (self.has_focus or self.keep_highlight):
            self.scroll_to_highlight()
        elif self.highlighted is None and not self.keep_highlight:
            self.scroll_end(animate=False, immediate=True)

    def set_lines(self, lines: list[tuple[int, str, str | None]], follow: bool = True) -> None:
        """(events after the line, text, mark) for every line, from scratch; ``follow``:
        scroll to the last line (a replay highlights its own line instead)."""
        self.source = None
        self.built_from = 0
        self.clear_options()
        self.event_index = []
        self.texts = []
        self.suffixes = {}
        self.note = None
        self.append_lines(lines, follow)

    def set_history(self, events: int, source: Callable[[int, int], list[Line]], follow: bool = True) -> None:
        """The lines of the first ``events`` events, from scratch, built by ``source(start, end)``
        (the lines of events start..end) a chunk at a time from the newest (see the class)."""
        start = max(0, events - HISTORY_CHUNK)
        self.set_lines([], follow)
        self.source = source
        self.built_from = start
        if start:
            self.event_index = [start]
            self.texts = [("", "earlier")]
            self.add_options([Option(self.earlier_prompt())])
        self.append_lines(source(start, events), follow)

    @property
    def more(self) -> bool:
        """Whether the first option stands for the lines not built yet."""
        return self.built_from > 0

    def earlier_prompt(self) -> Text:
        return Text(f"⋯ {self.built_from:,} earlier events: shown as you go back to them", style="italic")

    def show_earlier(self, down_to: int | None = None) -> None:
        """Build the chunk of lines before those built (or every chunk down to the event
        ``down_to``), above them, the highlight kept on its line."""
        if not self.more or self.source is None:
            return
        # as many events as are built already (at least a chunk): going back through a long
        # game builds its lines in a few steps, each the size of all those before it
        chunk = max(HISTORY_CHUNK, self.event_index[-1] - self.built_from if self.event_index else 0)
        goal = self.built_from - chunk if down_to is None else down_to
        start = max(0, min(goal, self.built_from - chunk))
        lines = [(n, printable(text), mark) for n, text, mark in self.source(start, self.built_from)]
        kept = self.highlighted
        old = list(self.options[1:])  # the marker goes; the built lines stay as they are
        index, texts = self.event_index[1:], self.texts[1:]
        self.built_from = start
        new = [Option(self.prompt(n, text, mark)) for n, text, mark in lines]
        head: list[Option] = [Option(self.earlier_prompt())] if start else []
        self.event_index = ([start] if start else []) + [n for n, _, _ in lines] + index
        self.texts = ([("", "earlier")] if start else []) + [(text, mark) for _, text, mark in lines] + texts
        shift = len(head) + len(new) - 1  # the old lines' new places, less the marker's
        self.set_options([*head, *new, *old])
        # what follows a line, and the note under one, go with their lines to their new places
        self.suffixes = {i + shift: text for i, text in self.suffixes.items() if i > 0}
        if self.note is not None:
            self.note = (self.note[0] + shift, self.note[1]) if self.note[0] > 0 else None
        if kept is not None:
            # on the marker: the line just above the one that was first; else the same line
            self.highlighted = max(0, shift if kept == 0 else kept + shift)
            self.scroll_to_highlight()

    def reach(self, n: int) -> None:
        """The lines down to the one of event ``n`` built (a replay going back to it)."""
        if self.more and n < self.built_from:
            self.show_earlier(down_to=n - HISTORY_CHUNK // 2)

    def prompt(self, n: int, text: str, mark: str | None) -> Text:
        """A line as shown; ``text`` is printable already (``append_lines``)."""
        style = "bold" if mark == "round" else ("" if mark == "turn" else "dim")
        if self.news_after is not None and n > self.news_after:
            return Text.assemble(("• ", "bold"), (text, style.replace("dim", "") or "not dim"))
        return Text(text, style=style)

    def line_prompt(self, index: int) -> Text:
        """Line ``index`` as shown: its text, what follows it, and its note where it has it."""
        text = self.prompt(self.event_index[index], *self.texts[index])
        suffix = self.suffixes.get(index)
        if suffix is not None:
            text = Text.assemble(text, " ", suffix)
        if self.note is not None and self.note[0] == index:
            text = Text.assemble(text, "\n", self.note[1])
        return text

    def set_suffixes(self, suffixes: dict[int, Text]) -> None:
        """What follows each line (``{line: text}``), in place of what followed them before."""
        old, self.suffixes = self.suffixes, dict(suffixes)
        for index in set(old) | set(suffixes):
            if index < len(self.texts) and old.get(index) != suffixes.get(index):
                self.replace_option_prompt_at_index(index, self.line_prompt(index))

    def set_note(self, index: int | None, note: Text | None) -> None:
        """Show ``note`` under line ``index`` (None: no note), and no longer under the line it was."""
        new = (index, note) if index is not None and note is not None and index < len(self.texts) else None
        old, self.note = self.note, new
        if old == new:
            return
        for line in {old[0] if old else None, new[0] if new else None} - {None}:
            assert line is not None
            self.replace_option_prompt_at_index(line, self.line_prompt(line))

    def append_lines(self, lines: list[tuple[int, str, str | None]], follow: bool = True) -> None:
        options = []
        for n, text, mark in lines:
            text = printable(text)  # a history line names players, who may come from a save or a host
            self.event_index.append(n)
            self.texts.append((text, mark))
            options.append(Option(self.prompt(n, text, mark)))
        if options:
            with self.lines_change():
                self.add_options(options)
            if follow and not self.has_focus:
                # laid out already (its lines measured by add_options): to the end now, in the
                # frame that shows the new lines; before its first layout, after it
                self.scroll_end(animate=False, immediate=bool(self.scrollable_content_region))

    def mark_news(self, after: int | None) -> None:
        """Mark the lines after ``after`` events as news (what happened since the
        player's own last move), and unmark the lines that no longer are."""
        old, self.news_after = self.news_after, after
        if old == after:
            return
        known = [x for x in (old, after) if x is not None]
        low = min(known) if known else 0
        for i in range(len(self.event_index) - 1, 0 if self.more else -1, -1):
            n = self.event_index[i]
            if n <= low:
                break
            self.replace_option_prompt_at_index(i, self.line_prompt(i))

    def action_cursor_up(self) -> None:
        self.open_at_now()  # h and ↑ read together (a paste, a slow link): ↑ is one step back
        # the first line is as far back as the history goes: ↑ does not wrap round to now
        if self.highlighted != 0:
            super().action_cursor_up()

    def action_cursor_down(self) -> None:
        self.open_at_now()
        # nor ↓ from now round to the first line
        if self.highlighted is None or self.highlighted < self.option_count - 1:
            super().action_cursor_down()

    def open_at_now(self) -> None:
        """Live play: the history opens on its last line, the table as it is now, so
        that the first ↑ steps back one line (a replay keeps the line it is at)."""
        if not self.keep_highlight and self.highlighted is None and self.option_count:
            self.highlighted = self.option_count - 1

    def on_focus(self) -> None:
        self.open_at_now()

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if self.more and event.option_index == 0:
            self.show_earlier()  # the highlight goes to the line above the first one built
            return
        if self.has_focus and event.option_index < len(self.event_index):
            self.post_message(self.Browse(self.event_index[event.option_index]))

    def on_blur(self) -> None:
        if getattr(self.screen, "too_small", False):
            return  # the keys went to the "too small" notice: it looks back still when they come back
        self.post_message(self.Browse(None))
        if not self.keep_highlight:  # live play: back to following the game
            self.highlighted = None
            self.scroll_end(animate=False)


class TableDialog(TooSmallGuard, ModalScreen[Any]):
    """A dialog over a table (a curtain, a score sheet, the game's end): below 80x24 it is
    hidden behind the same notice as the table, and, like the table, takes no key but those
    of its ``SMALL_KEEPS`` actions (leaving)."""

    def on_mount(self) -> None:
        self.mount(Static(too_small_text(*self.app.size), id="too-small"))
        self.guard(*self.app.size)

    def on_resize(self, event: events.Resize) -> None:
        self.guard(*event.size)


class Curtain(TableDialog):
    """Hides the table while the terminal passes to another player: Enter when they are
    ready; q or Esc back to the menu (the game is saved as it is)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,space", "ready", "I am ready", priority=True),
        Binding("q,escape", "leave", "Menu", key_display="q"),
    ]
    SMALL_KEEPS = frozenset({"leave"})

    def __init__(self, name: str, reason: str = "") -> None:
        super().__init__()
        self.player = name
        self.reason = reason

    def compose(self) -> ComposeResult:
        with Vertical(id="curtain-box"):
            yield Static(plain(f"Pass the terminal to {self.player}"), id="curtain-title")
            yield Static(
                plain(self.reason or "The table is hidden so that nobody sees another player's secrets."),
                id="curtain-reason",
            )
            yield Static(plain(f"{self.player}: press Enter when you are ready."), id="curtain-key")
        yield KeysFooter(show_command_palette=False)

    def action_ready(self) -> None:
        self.dismiss(None)

    def action_leave(self) -> None:
        self.dismiss("menu")


def _marked(cell: str) -> tuple[str, str] | None:
    """A cell of a value and a mark word ("90k ✗no", "7 ✓met"): the two; else None."""
    head, _, tail = cell.rpartition(" ")
    if head and len(tail) > 1 and not tail[0].isalnum() and tail[0] != "(" and tail[1:].isalpha():
        return head, tail
    return None


def aligned_rows(sheet: ScoreSheet) -> tuple[list[tuple[str, ...]], set[int]]:
    """The sheet's rows, and the columns of values with a mark word ("90k ✗no", "7 ✓met"): in
    those the values are padded to one width, so that, the column set to the left, values end
    and marks begin in one column each (set to the right, "90k ✗no" stood a column off from
    "7 ✓met": Edgar & Lucien)."""
    rows = [list(row) for row in sheet.rows]
    marked_columns = set()
    for i in range(len(sheet.columns)):
        marks = {r: m for r, row in enumerate(rows) if i < len(row) and (m := _marked(row[i])) is not None}
        if not marks:
            continue
        marked_columns.add(i)
        width = max(len(head) for head, _ in marks.values())
        for r, (head, tail) in marks.items():
            rows[r][i] = f"{head.rjust(width)} {tail}"
    return [tuple(row) for row in rows], marked_columns


def score_table(sheet: ScoreSheet, names: list[str]) -> Group:
    """A score sheet as a table: the seat's name, then the parts of its score; the notes under it.

    Every cell is a Text: Rich reads a string in a table as markup, and the names, the
    notes that quote them and a host's sheet are text."""
    table = Table(box=None, padding=(0, 1), show_edge=False, header_style="bold")
    table.add_column("", no_wrap=True, max_width=14, overflow="ellipsis")
    rows, marked = aligned_rows(sheet)
    for i, column in enumerate(sheet.columns):
        table.add_column(plain(column), justify="left" if i in marked else "right", no_wrap=True)
    for seat, row in enumerate(rows):
        name = names[seat] if seat < len(names) else f"Seat {seat + 1}"
        table.add_row(plain(name), *(plain(value) for value in row))
    title = plain(sheet.title)
    title.stylize("bold")
    return Group(title, table, *(plain(note) for note in sheet.notes))


def score_table_width(sheet: ScoreSheet, names: list[str]) -> int:
    """The columns the table of :func:`score_table` takes, every cell whole."""
    name = min(14, max((len(n) for n in names), default=0))
    rows, _ = aligned_rows(sheet)
    widths = [
        max([len(title)] + [len(row[i]) for row in rows if i < len(row)]) for i, title in enumerate(sheet.columns)
    ]
    table = name + 2 + sum(widths) + 2 * len(widths)  # each column padded by one space a side
    return max([table, len(sheet.title)] + [len(note) for note in sheet.notes])


class ScoreSheetDialog(TableDialog):
    """A round has been scored: the breakdown, until the player has read it (Enter); q back
    to the menu."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,space,escape", "go_on", "Go on", priority=True),
        Binding("q", "leave", "Menu"),
    ]
    SMALL_KEEPS = frozenset({"leave"})
    #: where q goes, as its line says
    BACK = "menu"

    def __init__(self, sheet: ScoreSheet, names: list[str], hide_table: bool = False) -> None:
        super().__init__(classes="-opaque" if hide_table else None)
        self.sheet = sheet
        self.names = names

    def compose(self) -> ComposeResult:
        with Vertical(id="gameover-box"):
            yield Static(score_table(self.sheet, self.names), id="gameover-sheet")
            yield Static(f"[b]Enter[/] go on   [b]q[/] {self.BACK}", id="gameover-keys")
        yield KeysFooter(show_command_palette=False)  # its own keys, not the table's behind it

    def on_mount(self) -> None:
        # as wide as the table (an auto width would squeeze its cells into "…")
        self.query_one("#gameover-box").styles.width = score_table_width(self.sheet, self.names) + 5

    def action_go_on(self) -> None:
        self.dismiss(None)

    def action_leave(self) -> None:
        self.dismiss("menu")


class ServedScoreSheetDialog(ScoreSheetDialog):
    """A round's score at a served session's table (``cabinet serve``): q goes back to the lobby."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("q", "leave", "Lobby")]
    BACK = "lobby"


class GameOver(TableDialog):
    """The end of a game: who won and why, the score as the rules count it; replay or back to the menu."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "choose('replay')", "Replay"),
        Binding("q,m", "choose('menu')", "Main menu"),
        Binding("enter,space", "choose('look')", "Look at the table"),
        # Esc closes the dialog, as it closes any: the table, not the menu (s brings it back)
        Binding("escape", "choose('look')", show=False),
    ]
    SMALL_KEEPS = frozenset({"choose('menu')"})
    #: where q goes, as its line says
    BACK = "main menu"

    def __init__(
        self, text: str, sheet: ScoreSheet | None = None, names: list[str] | None = None, replay: bool = True
    ) -> None:
        super().__init__()
        self.text = text
        self.sheet = sheet
        self.names = names or []
        #: whether the game's replay can be opened here (not for a game joined with a code)
        self.replay = replay

    def compose(self) -> ComposeResult:
        with Vertical(id="gameover-box"):
            yield Static("Game over", id="gameover-title")
            yield Static(plain(self.text), id="gameover-text")
            if self.sheet is not None:
                yield Static(score_table(self.sheet, self.names), id="gameover-sheet")
            replay = "   [b]r[/] replay" if self.replay else ""
            yield Static(f"[b]Enter[/] look at the table{replay}   [b]q[/] {self.BACK}", id="gameover-keys")
        yield KeysFooter(show_command_palette=False)  # its own keys, not the table's behind it

    def on_mount(self) -> None:
        if self.sheet is not None:
            width = max(score_table_width(self.sheet, self.names), min(len(self.text), 76), 46)
            self.query_one("#gameover-box").styles.width = width + 5

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "choose" and parameters == ("replay",) and not self.replay:
            return False
        return super().check_action(action, parameters)

    def action_choose(self, what: str) -> None:
        self.dismiss(what)


class ServedGameOver(GameOver):
    """The end of a game at a served session's table (``cabinet serve``): q goes back to the lobby."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("q,m", "choose('menu')", "Lobby")]
    BACK = "lobby"
