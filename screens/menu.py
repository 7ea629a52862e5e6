"""The main menu: New game, Continue, Load, Replay, Join, Rules, Quit."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Center, Vertical
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from core.games import game_titles
from tui.keys import KeysFooter

TITLE_ART = "C A B I N E T"


class MainMenu(Screen):
    IS_HOME = True  # every screen leaves back to it (app.back_to_menu)
    BINDINGS: ClassVar[list[BindingType]] = [
        ("question_mark", "rules", "Rules"),  # as at a table, in a replay, in the lobby
        ("q", "app.quit", "Quit"),
    ]
    #: rows under which the menu shows its choices alone (the title and the games' line go):
    #: at 40x12 Rules and Quit were below the screen, and the highlight went there unseen
    SHORT = 20

    def on_resize(self) -> None:
        self.set_class(self.app.size.height < self.SHORT, "-short")

    def action_rules(self) -> None:
        self.app.open_rules()

    def on_mount(self) -> None:
        self.on_resize()

    def compose(self) -> ComposeResult:
        with Vertical(id="menu-box"):
            yield Static(TITLE_ART, id="menu-title")
            yield Static("Games of politics and intrigue", id="menu-subtitle")
            with Center():
                yield OptionList(
                    Option("New game", id="new"),
                    Option("Continue", id="continue"),
                    Option("Load a game", id="load"),
                    Option("Replay a game", id="replay"),
                    Option("Join a hosted game", id="join"),
                    Option("Rules", id="rules"),
                    Option("Quit", id="quit"),
                    id="menu-options",
                )
            games = ", ".join(game_titles().values()) or "no games installed"
            yield Static(games, id="menu-games")
        yield KeysFooter()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        choice = event.option.id
        if choice == "new":
            from screens.new_game import NewGameScreen

            self.app.push_screen(NewGameScreen(self.app.last_game))
        elif choice == "continue":
            self.continue_latest()
        elif choice in ("load", "replay"):
            from screens.save_list import SaveListScreen

            self.app.push_screen(SaveListScreen(mode=choice))
        elif choice == "join":
            from screens.join import JoinScreen

            self.app.push_screen(JoinScreen())
        elif choice == "rules":
            self.app.open_rules()
        elif choice == "quit":
            self.app.exit(0)

    def continue_latest(self) -> None:
        """The unfinished game this session last left for the menu (its toast said
        Continue opens it), else the most recently played; one that turns out damaged
        when it is replayed (the listing only reads its records), or that another
        program is playing now, is said so, and the next most recent is continued
        instead."""
        from saves import SaveError, list_saves, load
        from saves.format import who_holds
        from saves.store import save_info
        from screens.save_list import KNOWN, open_save

        self.app.clear_notifications()  # the menu's news of the game left: not over the game opened
        skipped: list[str] = []
        infos = list_saves(self.app.save_dir, known=KNOWN)
        left = getattr(self.app, "left_last", None)
        if left is not None and left.exists() and all(info.path != left for info in infos):
            infos.insert(0, save_info(left))  # a game opened from elsewhere (cabinet load PATH) is continued there
        infos.sort(key=lambda info: info.path != left)  # (stable: the others stay latest first)
        for info in infos:
            if info.error is not None or info.finished:
                if info.error is not None and not skipped:
                    skipped.append(info.error)
                continue
            holder = who_holds(info.path)
            if holder is not None:  # played in another window: the game before it is continued
                skipped.append(f"{info.path.name}: {holder}")
                continue
            try:
                loaded = load(info.path)
            except SaveError as exc:
                skipped.append(str(exc))
                continue
            for sentence in skipped[:1]:
                self.notify(
                    f"{sentence} Continuing {info.path.name} instead.",
                    severity="warning",
                    timeout=self.app.ERROR_TIMEOUT,
                )
            open_save(self.app, info.path, replay=False, loaded=loaded)
            return
        if skipped:
            self.notify(
                f"{skipped[0]} There is no other unfinished game to continue.",
                severity="error",
                timeout=self.app.ERROR_TIMEOUT,
            )
            return
        self.notify("There is no unfinished game to continue.")
