"""What the first screens need of the shared widgets (the main menu, the app): the footer
and names shown as text.  Kept apart from ``tui.widgets``, the tables' widgets, so that
``cabinet`` reaches its menu without making those (issue 35: start-up)."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.dom import NoScreen
from textual.geometry import Size
from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

from core.engine import printable


def plain(text: str) -> Text:
    """``text`` to be shown as it is: never read as markup (a name ``[/]`` or
    ``[@click=app.quit]q`` is those characters, not a tag or an action to run), and its
    control characters as visible stand-ins (:func:`core.engine.printable`).  Whatever a
    player typed, a save holds or a host or server sent reaches a widget through this."""
    return Text(printable(text))


class KeysFooter(Footer):
    """The footer, built again only when the keys it shows change.

    Textual's footer takes itself apart and mounts every key anew whenever the
    screen's bindings may have changed (any change of focus, any
    ``refresh_bindings``), keys alike or not. A move at a table moves the focus
    to the new choice and back, so that was every move, on every screen at the
    table: a served session's costliest part after drawing itself.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.shown_keys: tuple[Any, ...] | None = None
        self.looking = False  # a look at the keys is on its way
        #: keys left out for want of room (``fit``): the screen's ``FOOTER_SPARES``
        self.spared: set[FooterKey] = set()

    def keys_now(self) -> tuple[Any, ...]:
        return tuple(
            (binding.key, binding.description, binding.action, binding.group, enabled, tooltip)
            for (_, binding, enabled, tooltip) in self.screen.active_bindings.values()
            if binding.show
        )

    def bindings_changed(self, screen: Screen) -> None:
        """The keys are looked at once the messages before are handled, once for all the
        changes they made, so that the footer changes in the frame that shows why (Textual's
        footer waits for the next frame: an update of a table whose turn passed cost a frame
        for the footer alone, issue 35)."""
        self._bindings_ready = True
        if screen.app.app_focus and self.is_attached and screen is self.screen and not self.looking:
            self.looking = True
            self.call_later(self.recompose_if_changed)

    async def recompose_if_changed(self) -> None:
        self.looking = False
        if not self.is_attached:
            return
        keys = self.keys_now()
        if keys != self.shown_keys:
            self.shown_keys = keys
            if self.show_again(keys):
                self.spared = set()  # (show_again showed or hid each key as wanted)
                self.fit()
            else:
                await self.recompose()
                self.call_after_refresh(self.fit)  # (the new keys styled: their widths known)

    def show_keys_now(self) -> None:
        """Show the keys as they are now, where that takes no widget mounted, so that they change
        in the frame being made: a table's update shows its footer with its board (the look the
        screen's signal asks for later then finds them shown).  Textual tells a screen's footer
        of its keys once the screen is idle, after the frame that showed the move had been made:
        every update of a table was drawn in two frames, the second for the footer (issue 35)."""
        if not (self.app.app_focus and self.is_attached):
            return
        keys = self.keys_now()
        if keys != self.shown_keys and self.show_again(keys):
            self.shown_keys = keys
            self.spared = set()  # (show_again showed or hid each key as wanted)
            self.fit()

    def on_resize(self) -> None:
        self.fit()

    def fit(self) -> None:
        """Where the keys are wider than the footer, the screen's spare ones (``FOOTER_SPARES``:
        actions, the first to go first) are left out until the others fit: the keys after them,
        its way out among them, are never cut off at the right edge (a replay of Edgar & Lucien
        at 80 columns lost "q Leave").  A spare key still works; the Keys panel lists it."""
        for key in self.spared:  # shown again, to be looked at afresh
            key.display = True
        self.spared = set()
        try:
            spares = getattr(self.screen, "FOOTER_SPARES", ())
        except NoScreen:  # (a footer being taken down, its screen gone: a late resize, a late look)
            return
        if not spares or not self.is_attached:
            return
        shown = [key for key in self.query_children(FooterKey) if key.display]
        room = self.content_region.width or self.app.size.width
        big = Size(max(room, 1), 1)

        def width(key: FooterKey) -> int:  # with the space after it
            return key.get_content_width(big, big) + key.styles.gutter.width + key.styles.margin.width

        needed = sum(width(key) for key in shown)
        for action in spares:
            if needed <= room:
                break
            for key in shown:
                if key.action == action and key not in self.spared:
                    key.display = False
                    self.spared.add(key)
                    needed -= width(key)

    def show_again(self, keys: tuple[Any, ...]) -> bool:
        """Show ``keys`` with the keys mounted already, hiding the others, where all of
        them are there and in that order; False where the footer must be built again.

        Whose turn it is comes and goes with a key or two ("Choose" on your turn, none
        on another's): shown and hidden again, they need no widget taken apart and
        mounted, nor styled afresh."""
        wanted: dict[str, tuple[Any, ...]] = {}  # action -> its first key, as Footer shows them
        for key in keys:
            if key[3] is not None:  # a group of keys: the footer draws those its own way
                return False
            wanted.setdefault(key[2], key)
        # (the palette's key, on the right, is not among the screen's: left as it is, shown)
        mounted = [key for key in self.query_children(FooterKey) if not key.has_class("-command-palette")]
        order = iter(wanted.values())
        shown: dict[FooterKey, tuple[Any, ...] | None] = {}
        want = next(order, None)
        for widget in mounted:
            if want is not None and (widget.key, widget.description, widget.action) == want[:3]:
                shown[widget] = want
                want = next(order, None)
            else:
                shown[widget] = None
        if want is not None:  # a key not mounted, or out of order
            return False
        for widget, key in shown.items():
            widget.display = key is not None
            if key is not None and widget._disabled == key[4]:  # enabled now as it was not, or back
                widget._disabled = not key[4]
                widget.set_class(widget._disabled, "-disabled")
        return True
