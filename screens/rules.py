"""The rules screen: each game's rules as Cabinet implements them."""

from __future__ import annotations

from importlib import resources

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer, MarkdownViewer, Tab, Tabs

from core.games import catalogue, game_titles


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


class RulesScreen(Screen):
    BINDINGS = [("escape", "app.pop_screen", "Back"), ("q", "app.pop_screen", "Back")]

    def __init__(self, game_id: str | None = None) -> None:
        super().__init__()
        titles = game_titles()
        self.game_id = game_id if game_id in titles else next(iter(titles), None)

    def compose(self) -> ComposeResult:
        yield Tabs(*(Tab(title, id=f"rules-{gid}") for gid, title in game_titles().items()), id="rules-tabs")
        yield MarkdownViewer(rules_text(self.game_id) if self.game_id else "No games.", show_table_of_contents=False, id="rules-text")
        yield Footer()

    def on_mount(self) -> None:
        if self.game_id:
            self.query_one(Tabs).active = f"rules-{self.game_id}"
        self.query_one(MarkdownViewer).focus()

    async def on_tabs_tab_activated(self, event: Tabs.TabActivated) -> None:
        if event.tab is None or event.tab.id is None:
            return
        game_id = event.tab.id.removeprefix("rules-")
        self.game_id = game_id
        viewer = self.query_one(MarkdownViewer)
        await viewer.document.update(rules_text(game_id))
        viewer.scroll_home(animate=False)
