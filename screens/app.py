"""The Textual application, composed from the screens: they are pushed on a menu that stays beneath."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from rich.theme import Theme as RichTheme
from textual import events
from textual.app import App, ScreenStackError, SystemCommand
from textual.binding import Binding, BindingType
from textual.notifications import SeverityLevel
from textual.reactive import Reactive
from textual.screen import Screen
from textual.theme import Theme

from core.engine import printable
from tui.keys import plain
from tui.start import HOUSE_STYLE, Start

if TYPE_CHECKING:
    from core.engine import Match
    from saves import SaveWriter


#: Textual's dark theme, its colours chosen so that every text keeps 4.5:1 against its
#: background in full colour, in 256 and in 16 colours, and as the greys of NO_COLOR
#: (tests/test_contrast.py measures every screen): an amber accent (the orange one is
#: taken for red in 16 colours), a darker panel under the footer and the status line (a grey
#: in 16 colours), and a navy selection under light text (a light blue one held 3.8:1; in 16 colours it is
#: the background, and a selection is marked as without colours)
CABINET_THEME = Theme(
    name="cabinet",
    primary="#0178D4",
    secondary="#004578",
    accent="#FFB000",
    warning="#FFB000",
    error="#FF7B8C",
    success="#4EBF71",
    foreground="#E0E0E0",
    background="#121212",
    surface="#1E1E1E",
    panel="#1B2430",
    dark=True,
    variables={
        "block-cursor-background": "#072546",
        "block-cursor-foreground": "#E0E0E0",
        "block-cursor-blurred-background": "#072546",
        "footer-key-foreground": "#FFB000",
    },
)


#: the rules' Markdown in the same colours (Rich's own headings and quotes are magenta, which
#: Textual draws as Monokai's crimson: 4.5:1 at best, and a dark grey without colours)
RULES_STYLES = RichTheme(
    {
        "markdown.h2": "underline #B48CFF",
        "markdown.h3": "bold #B48CFF",
        "markdown.h4": "italic #B48CFF",
        "markdown.block_quote": "#B48CFF",
        "markdown.link": "#5FAFFF",
        "markdown.link_url": "underline #5FAFFF",
    }
)


class CabinetApp(App[int]):
    TITLE = "Cabinet"
    ENABLE_COMMAND_PALETTE = True
    #: Esc closes the Keys panel (the palette's "Keys") where it is open, before the screen's
    #: own Esc (a step back, a dialog closed) is reached: else only the palette closed it.
    #: Only while a panel is open (``check_action``): else the footers show the screen's Esc
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close_keys", "Close keys", show=False, priority=True)]
    theme: Reactive[str] = Reactive(CABINET_THEME.name)
    #: seconds a notification stays; errors stay a little longer (ERROR_TIMEOUT)
    NOTIFICATION_TIMEOUT = 4
    ERROR_TIMEOUT = 6

    def __init__(self, save_dir: Path, start: Start | None = None, bot_delay: float = 0.9) -> None:
        # The house style, then every board's own stylesheet, as the boards' registry finds
        # them (a game added is styled without a word here). Given as css_path, they are read
        # as files: an error in one names the file and line, and a watched file is read again.
        from screens.games import stylesheets

        super().__init__(css_path=[HOUSE_STYLE, *stylesheets()])
        self.register_theme(CABINET_THEME)
        # ``theme`` starts as the Cabinet theme (the class's default, below), so no change of
        # theme is made at start: a change has Textual parse every stylesheet again once the
        # first screen is up (10 ms of a start-up of 250, docs/PERFORMANCE.md, issue 35). The
        # stylesheet, made in App.__init__ before the theme was registered, takes its variables.
        self.stylesheet.set_variables(self.get_css_variables())
        self.set_class(True, f"-theme-{CABINET_THEME.name}")
        self.console.push_theme(RULES_STYLES)
        self.save_dir = save_dir
        self.start = start or Start()
        #: seconds a bot waits before moving, so a player can follow
        self.bot_delay = bot_delay
        #: a session of a game server (``cabinet serve``): its lobby is the bottom screen, and
        #: nothing is kept on this side (no local games, no forks)
        self.hall: Any = self.start.remote if self.start.mode == "lobby" else None
        #: the unfinished game this session last left for the menu: the one Continue opens
        #: (the menu's toast says so), before the most recently played
        self.left_last: Path | None = None
        #: the game of the last table opened here (its id): the New game form opens on it
        self.last_game: str | None = None
        #: the game of this terminal being played here now, if any (``goodbye``)
        self.at_table: Any = None

    @property
    def served(self) -> bool:
        return self.hall is not None

    def goodbye(self) -> str | None:
        """What the terminal is left with once the app has quit: where the game it was quit
        at is saved, and how to take it up again (a game over, or none, says nothing)."""
        feed = self.at_table
        if feed is None or feed.match.outcome is not None:
            return None
        import shlex

        return f"Your game is saved: cabinet load {shlex.quote(str(feed.path))} takes it up again (or Continue in the menu)."

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every notification is shown as text, whatever ``markup`` says (a screen's
        ``notify`` passes True): Cabinet's notifications are sentences, and many quote
        what a player typed, a save holds or a host or server sent (a seat's name, a
        file's, a refusal), which must be neither read as markup nor sent to the
        terminal with its control characters."""
        super().notify(
            printable(message, lines=True), title=printable(title), severity=severity, timeout=timeout, markup=False
        )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "close_keys":
            # no Keys panel: Esc is the screen's, in its footer ("esc Back") and when pressed.
            # (Textual mounts the panel on the screen itself: its children only are looked at.)
            try:
                return bool(self.screen.query_children("HelpPanel"))
            except ScreenStackError:  # (no screen: the app closing)
                return False
        return super().check_action(action, parameters)

    async def action_show_help_panel(self) -> None:
        """The palette's Keys (Textual's, but the footer told once the panel is there: its Esc)."""
        from textual.widgets import HelpPanel

        if not self.screen.query_children(HelpPanel):
            await self.screen.mount(HelpPanel())
        self.refresh_bindings()

    async def action_hide_help_panel(self) -> None:
        """The palette's Keys again, or Esc: the panel gone, the footer shows the screen's Esc."""
        await self.screen.query_children("HelpPanel").remove()
        self.refresh_bindings()

    async def action_close_keys(self) -> None:
        await self.action_hide_help_panel()

    def action_help_quit(self) -> None:
        """Ctrl-C (Textual's binding, which no longer quits): the key that quits on this screen,
        said in plain words.  Textual's own notice is markup ("Press [b]q[/b] to quit the app"),
        which ``notify`` shows as it is, brackets and all.  The key the screen's footer shows
        is named before one it does not (the main menu's q before the app's ctrl+q)."""
        quitting = [
            (key, active.binding.show)
            for key, active in self.active_bindings.items()
            if active.binding.action in ("quit", "app.quit")
        ]
        if quitting:
            key = next((key for key, shown in quitting if shown), quitting[0][0])
            self.notify(f"Press {key} to quit the app.", title="Do you want to quit?")

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and not event.is_forwarded and not self.read_while_small(event.key):
            return  # behind a table's "too small" notice: the key reaches nothing hidden there
        await super().on_event(event)

    def read_while_small(self, key: str) -> bool:
        """Behind the "too small" notice of a table (or of a dialog over it) the only keys read
        are those that leave (the screen's ``SMALL_KEEPS``) and the app's quit: a key must
        not play a move nobody sees (an arrow and Enter at a choice hidden there)."""
        screen = self.screen
        if not getattr(screen, "too_small", False):
            return True
        bound = screen.active_bindings.get(key)
        if bound is None:
            return False
        action = bound.binding.action
        return action in getattr(screen, "SMALL_KEEPS", ()) or action in ("quit", "app.quit", "help_quit")

    def on_mount(self) -> None:
        from screens.menu import MainMenu

        # Without colours (NO_COLOR), or with 16 (where the navy of a selection is the
        # background's black), a selection must still stand out: ``-mono`` underlines it.
        self.set_class(self.no_color or self.console.color_system in ("standard", "windows"), "-mono")

        start = self.start
        if self.served:
            self.run_worker(self.enter_lobby(), group="lobby")
            return
        self.push_screen(MainMenu())
        if start.mode == "play" and start.writer is not None:
            self.open_game(start.writer)
        elif start.mode == "replay" and start.match is not None and start.path is not None:
            # opened from the command line: leaving it goes back to the shell
            self.open_replay(
                start.match, start.path, at=start.at, viewer=start.viewer, locked=start.locked, ends_program=True
            )
        elif start.mode == "join" and start.remote is not None:
            self.run_worker(self.join(start.remote, from_command_line=True), group="join")
        for warning in start.warnings:
            self.notify(warning, severity="warning", timeout=self.ERROR_TIMEOUT)

    async def enter_lobby(self) -> None:
        """Connect to the hall and show the lobby; when the hall goes, the session ends."""
        from net.client import JoinError
        from screens.lobby import LobbyScreen

        hall = self.hall
        try:
            await hall.connect()
        except JoinError as exc:
            self.exit(1, return_code=1, message=plain(str(exc)))  # printed after the app, as text
            return
        lobby = LobbyScreen(hall)
        await self.push_screen(lobby)

        def listed() -> None:
            if lobby.is_attached:
                lobby.listed()

        def gone(sentence: str) -> None:
            self.exit(0, message=plain(sentence))

        await hall.listen(listed, gone)

    # -- navigation used by every screen ------------------------------------

    def open_game(self, writer: SaveWriter) -> None:
        """Play the match ``writer`` keeps saved."""
        from screens.play import PlayScreen
        from table import Table
        from table.feed import LocalFeed

        assert writer.path is not None  # a game played here is a save file
        self.last_game = writer.match.game.id
        listed = writer.path.parent.resolve() == Path(self.save_dir).resolve()
        feed = LocalFeed(Table(writer.match, writer), writer.path, delay=lambda: self.bot_delay, listed=listed)
        self.push_screen(PlayScreen(feed))

    def open_replay(
        self,
        match: Match,
        path: Path,
        at: int | None = None,
        viewer: Any = None,
        locked: bool = False,
        ends_program: bool = False,
        analyst: Any = None,
    ) -> None:
        from screens.replay import ReplayScreen

        self.push_screen(
            ReplayScreen(match, path, at=at, viewer=viewer, locked=locked, ends_program=ends_program, analyst=analyst)
        )

    async def join(self, remote: Any, from_command_line: bool = False) -> bool:
        """Join a hosted game and show it; a failure is one sentence (and, from the
        command line, the end of the app with exit status 1)."""
        from net.client import JoinError, RemoteFeed
        from screens.play import PlayScreen

        try:
            await remote.connect()
        except JoinError as exc:
            if from_command_line:
                self.exit(1, return_code=1, message=plain(str(exc)))
            else:
                self.notify(str(exc), severity="error", timeout=self.ERROR_TIMEOUT)
            return False
        if not from_command_line:  # (the command line's warnings are said as the app starts: kept)
            # what was said in the lobby or the menu stays there: "You left; the game waits for
            # you", said as the player left this very table, would be stale at it
            self.clear_notifications()
        hall = getattr(self, "hall", None) if getattr(remote, "token", None) is not None else None
        await self.push_screen(PlayScreen(RemoteFeed(remote, hall)))
        return True

    def replay_served(self, hall: Any, table_id: str) -> None:
        """A finished table of the hall: its log fetched, its replay opened (or why not, said)."""
        from screens.lobby import replay_table

        self.run_worker(replay_table(self, hall, table_id), group="replay")

    def open_rules(self, game_id: str | None = None) -> None:
        from screens.rules import RulesScreen

        self.push_screen(RulesScreen(game_id))

    def back_to_menu(self) -> None:
        """Back to the bottom screen: the main menu, or a served session's lobby."""
        while len(self.screen_stack) > 1 and not getattr(self.screen, "IS_HOME", False):
            self.pop_screen()
        self.clear_notifications()  # what was said at the table stays there

    # -- a served session touches nothing of the server's machine ------------
    #
    # Textual's App can write files (a screenshot, a delivered file), open a browser and
    # suspend its process: on the player's own machine these are theirs, but a served
    # session runs on the operator's, where any player with a key would use them.  They
    # are offered nowhere in a served session (the palette, the keys), and refused in
    # one sentence if reached another way (an action named in text, say).

    SERVED_REFUSAL = "Nothing is saved or opened on the server's machine from a session."

    def refuse_on_server(self) -> bool:
        """In a served session: say so, and True (the caller does nothing)."""
        if self.served:
            self.notify(self.SERVED_REFUSAL, severity="warning")
        return self.served

    def action_screenshot(self, filename: str | None = None, path: str | None = None) -> None:
        if not self.refuse_on_server():
            super().action_screenshot(filename, path)

    def save_screenshot(
        self, filename: str | None = None, path: str | None = None, time_format: str | None = None
    ) -> str:
        if self.refuse_on_server():
            return ""
        return super().save_screenshot(filename, path, time_format)

    def deliver_screenshot(
        self, filename: str | None = None, path: str | None = None, time_format: str | None = None
    ) -> str | None:
        if self.refuse_on_server():
            return None
        return super().deliver_screenshot(filename, path, time_format)

    def deliver_text(self, *args: Any, **kwargs: Any) -> str | None:
        if self.refuse_on_server():
            return None
        return super().deliver_text(*args, **kwargs)

    def deliver_binary(self, *args: Any, **kwargs: Any) -> str | None:
        if self.refuse_on_server():
            return None
        return super().deliver_binary(*args, **kwargs)

    def open_url(self, url: str, *, new_tab: bool = True) -> None:
        if not self.refuse_on_server():
            super().open_url(url, new_tab=new_tab)

    def action_suspend_process(self) -> None:
        if not self.refuse_on_server():
            super().action_suspend_process()

    #: the palette's own commands a served session keeps: none of them reaches the machine
    SERVED_SYSTEM_COMMANDS = frozenset({"Theme", "Quit", "Keys", "Maximize", "Minimize"})

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        for command in super().get_system_commands(screen):
            if not self.served or command.title in self.SERVED_SYSTEM_COMMANDS:
                yield command
        game = getattr(screen, "match", None)
        if game is not None and hasattr(screen, "action_where_saved"):
            yield SystemCommand(
                "Save", "Where this game is saved (every move is saved as it is played)", screen.action_where_saved
            )
        if game is not None and hasattr(screen, "action_replay"):
            yield SystemCommand("Replay", "Replay this game from the start", screen.action_replay)
        yield SystemCommand("Rules", "The rules of the game", lambda: self.open_rules(game.game.id if game else None))
        if getattr(screen, "IS_HOME", False):
            return  # (the menu, or the lobby, itself: nothing to leave for it)
        if self.served:
            yield SystemCommand("Lobby", "Leave this screen for the lobby", self.back_to_menu)
        else:
            yield SystemCommand("Main menu", "Leave this screen for the main menu", self.back_to_menu)
