"""The lobby of a game server (``cabinet serve``): its tables, and a new one.

The tables are listed as the hall pushes them: those waiting for your move
first, then the tables waiting for players, the ones in play, and the finished
ones, the latest first.  Enter does what a table is for: play your seat, take a
free one, watch a game of others, replay a finished one.  The hall decides
everything (who may sit where, when a table starts); the screen asks and shows.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import DataTable, OptionList, Select, Static
from textual.widgets.option_list import Option

from core.engine import ConfigError
from core.games import get_game
from net.client import HallClient
from saves import SaveError
from saves.format import rebuild
from screens.new_game import NewGameScreen
from table.spec import BOT, HUMAN, SeatSpec, TableSpec
from tui.widgets import KeysFooter, cell, plain

FINISHED_SHOWN = 30  # finished tables listed, the latest first
ORDER = {"your move": 0, "waiting": 1, "playing": 2, "finished": 3}
TAGS = {"your move": "▶ Your move", "waiting": "Waiting", "playing": "In play", "finished": "Finished"}


def kind_of(table: dict[str, Any], user: str) -> str:
    """How the table stands for ``user``: your move, waiting (for players), playing, finished."""
    state = table.get("state")
    if state == "playing":
        seats = table.get("seats") or []
        mine = {i for i, s in enumerate(seats) if s.get("user") == user}
        if mine & set(table.get("active") or []):
            return "your move"
    return str(state)


def sorted_tables(tables: list[dict[str, Any]], user: str) -> list[dict[str, Any]]:
    def sits(t: dict[str, Any]) -> bool:
        return any(s.get("user") == user for s in t.get("seats") or [])

    live = [t for t in tables if t.get("state") != "finished"]
    live.sort(key=lambda t: (ORDER.get(kind_of(t, user), 9), not sits(t), -float(t.get("updated") or 0)))
    done = [t for t in tables if t.get("state") == "finished"]
    done.sort(key=lambda t: (not sits(t), -float(t.get("updated") or 0)))
    return live + done[:FINISHED_SHOWN]


def seats_text(table: dict[str, Any], user: str) -> str:
    parts = []
    for seat in table.get("seats") or []:
        if seat.get("kind") == "bot":
            parts.append(f"{seat.get('name')} ({seat.get('level')})")
        elif seat.get("user"):
            name = str(seat["user"])
            if name == user:
                parts.append("you")  # at the lobby, not at the table: away there, but here
            else:
                parts.append(name + (" (away)" if seat.get("away") else ""))
        else:
            parts.append("— free")
    return ", ".join(parts)


async def replay_table(app: App, hall: HallClient, table_id: str) -> None:
    """Open a finished table's replay, everything revealed; or say why not."""
    reply = await hall.request({"t": "log", "table": table_id})
    if not reply.get("ok"):
        app.notify(str(reply.get("message") or "That table's log could not be read."), severity="error")
        return
    try:  # what a server sent: checked as a save is, by the one rebuild
        match = rebuild(f"Table {table_id}", reply.get("header"), reply.get("moves") or [])
    except SaveError as exc:
        app.notify(str(exc), severity="error")
        return
    app.open_replay(match, Path(f"table {table_id}"))


class SeatPicker(ModalScreen[int | None]):
    """Which free seat to take, when they differ (a side, an agent)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss_none", "Back")]

    def __init__(self, table: dict[str, Any]) -> None:
        super().__init__()
        self.table = table

    def compose(self) -> ComposeResult:
        options = [
            Option(plain(f"Seat {i + 1}" + (f": {s['label']}" if s.get("label") else "")), id=str(i))
            for i, s in enumerate(self.table.get("seats") or [])
            if s.get("kind") != "bot" and not s.get("user")
        ]
        with Vertical(id="seat-box"):
            yield Static(plain(f"Take a seat at {self.table.get('title')}"), classes="title")
            yield OptionList(*options, id="seat-options")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(int(str(event.option.id)))

    def action_dismiss_none(self) -> None:
        self.dismiss(None)


class LobbyScreen(Screen):
    """The bottom screen of a served session: every screen leaves back to it."""

    IS_HOME = True
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Open", show=False),
        Binding("n", "new", "New table"),
        Binding("w", "watch", "Watch"),
        Binding("x", "stand", "Give up seat"),
        Binding("r", "replay", "Replay"),
        Binding("question_mark", "rules", "Rules"),
        Binding("q", "app.quit", "Quit"),
    ]

    def __init__(self, hall: HallClient) -> None:
        super().__init__()
        self.hall = hall
        self.shown: list[dict[str, Any]] = []
        self.known: dict[str, str] = {}  # table -> how it stood for the user when last listed
        self.texts: dict[str, str] = {}  # what the title and the detail line show

    def compose(self) -> ComposeResult:
        yield Static("", id="lobby-title", classes="title")
        yield DataTable(id="tables", cursor_type="row", zebra_stripes=True)
        yield Static("", id="lobby-detail")
        yield KeysFooter()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("", "Game", "Seats", "Progress")
        self.refresh_list()
        table.focus()

    # -- the listing --------------------------------------------------------------------------

    def listed(self) -> None:
        """The hall sent its tables again.  The lobby in front shows them; behind a table
        (where a session spends most of its time) only the news is told, and the list is
        drawn when the lobby comes back to the front (``on_screen_resume``)."""
        if self.app.screen is self:
            self.refresh_list()
        else:
            self.tell_news(sorted_tables(self.hall.tables, self.hall.user))

    def refresh_list(self) -> None:
        user = self.hall.user
        tables = sorted_tables(self.hall.tables, user)
        self.tell_news(tables)
        grid = self.query_one(DataTable)
        current = self.current()
        grid.clear()  # drawn whole, so that each column is as wide as its longest cell
        for t in tables:
            grid.add_row(*self.cells(t, user), key=str(t["id"]))
        if current is not None:
            ids = [t["id"] for t in tables]
            if current["id"] in ids:
                grid.move_cursor(row=ids.index(current["id"]))
        self.shown = tables
        count = len(tables)
        mine = sum(1 for t in tables if kind_of(t, user) == "your move")
        news = f" · {mine} waiting for your move" if mine else ""
        self.show("#lobby-title", f"Cabinet · {user} · {count} table{'s' if count != 1 else ''}{news}   (Enter opens)")
        self.show(
            "#lobby-detail",
            "No tables yet: n opens one (against bots, or with seats for friends)." if not tables else self.detail(),
        )
        self.refresh_bindings()

    @staticmethod
    def cells(t: dict[str, Any], user: str) -> tuple[str, ...]:
        """A table's row: what names players (its seats, who won) shown as it is (:func:`cell`)."""
        kind = kind_of(t, user)
        if kind == "finished":
            extra = cell(str(t.get("outcome") or ""))
        elif kind == "waiting":
            free = sum(1 for s in t.get("seats") or [] if s.get("kind") != "bot" and not s.get("user"))
            extra = f"{free} seat{'s' if free > 1 else ''} free"
        else:
            extra = f"move {t.get('moves', 0)}"
        return (TAGS.get(kind, kind), cell(str(t.get("title"))), cell(seats_text(t, user)), extra)

    def show(self, selector: str, text: str) -> None:
        """``text`` in the Static ``selector``, drawn again only when it changed."""
        if self.texts.get(selector) != text:
            self.texts[selector] = text
            self.query_one(selector, Static).update(plain(text))  # it names players: text, not markup

    def tell_news(self, tables: list[dict[str, Any]]) -> None:
        """A table of yours that started, or came to your move, is said once."""
        user = self.hall.user
        for t in tables:
            kind = kind_of(t, user)
            before = self.known.get(t["id"])
            sits = any(s.get("user") == user for s in t.get("seats") or [])
            if sits and before == "waiting" and kind in ("playing", "your move"):
                self.notify(
                    f"Your table of {t.get('title')} has started."
                    + (" It is your move." if kind == "your move" else "")
                )
            elif sits and before == "playing" and kind == "your move" and self.app.screen is self:
                self.notify(f"{t.get('title')}: your move.")
            self.known[t["id"]] = kind

    def current(self) -> dict[str, Any] | None:
        grid = self.query_one(DataTable)
        if not self.shown or grid.cursor_row is None or not 0 <= grid.cursor_row < len(self.shown):
            return None
        return self.shown[grid.cursor_row]

    def detail(self) -> str:
        t = self.current()
        if t is None:
            return ""
        lines = []
        for i, seat in enumerate(t.get("seats") or []):
            who = seat.get("name") or "free"
            if seat.get("kind") == "bot":
                who += f" (bot, {seat.get('level')})"
            label = f" · {seat['label']}" if seat.get("label") else ""
            lines.append(f"Seat {i + 1}: {who}{label}")
        game = get_game(str(t.get("game")))
        chosen = t.get("variants") or {}
        changed = [v for v in (game.variants if game else ()) if v.listed and chosen.get(v.key, v.default) != v.default]
        lines.append(
            "Variants: " + "; ".join(f"{v.label} {chosen[v.key]}" for v in changed) if changed else "Rules as written"
        )
        return "   ".join(lines)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.show("#lobby-detail", self.detail())
        self.refresh_bindings()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open()

    def on_screen_resume(self) -> None:
        self.refresh_list()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        t = self.current()
        user = self.hall.user
        if action == "watch":  # a table of others in play (at one's own, Enter opens one's seat)
            return (
                t is not None
                and t.get("state") == "playing"
                and not any(s.get("user") == user for s in t.get("seats") or [])
            )
        if action == "stand":
            return (
                t is not None
                and t.get("state") == "waiting"
                and any(s.get("user") == user for s in t.get("seats") or [])
            )
        if action == "replay":
            return t is not None and t.get("state") == "finished"
        return True

    # -- what a player does ------------------------------------------------------------------

    def action_open(self) -> None:
        t = self.current()
        if t is None:
            self.action_new()
            return
        user = self.hall.user
        state = t.get("state")
        sits = any(s.get("user") == user for s in t.get("seats") or [])
        if state == "finished":
            self.action_replay()
        elif state == "playing":
            self.open_table(t["id"], watch=not sits)
        elif sits:
            free = sum(1 for s in t.get("seats") or [] if s.get("kind") != "bot" and not s.get("user"))
            self.notify(
                f"Waiting for {free} more player{'s' if free > 1 else ''}; it starts when every seat is taken (x gives yours up)."
            )
        else:
            self.take_seat(t)

    def take_seat(self, t: dict[str, Any]) -> None:
        free = [s for s in t.get("seats") or [] if s.get("kind") != "bot" and not s.get("user")]
        if len({s.get("label") for s in free}) > 1:

            def chosen(seat: int | None) -> None:
                if seat is not None:
                    self.run_worker(self.sit(t["id"], seat), group="lobby-request")

            self.app.push_screen(SeatPicker(t), chosen)
        else:
            self.run_worker(self.sit(t["id"], None), group="lobby-request")

    async def sit(self, table_id: str, seat: int | None) -> None:
        reply = await self.hall.request({"t": "sit", "table": table_id, "seat": seat})
        await self.after_seat(reply)

    async def after_seat(self, reply: dict[str, Any]) -> None:
        if not reply.get("ok"):
            self.notify(str(reply.get("message")), severity="error")
            return
        if reply.get("started"):
            self.open_table(str(reply["table"]))
        else:
            self.notify("You have a seat; the table starts when every seat is taken.")

    def open_table(self, table_id: str, watch: bool = False) -> None:
        self.run_worker(self.app.join(self.hall.table(table_id, watch=watch)), group="join")

    def action_watch(self) -> None:
        t = self.current()
        if t is not None and t.get("state") == "playing":
            self.open_table(t["id"], watch=True)

    def action_stand(self) -> None:
        t = self.current()
        if t is None:
            return

        async def stand() -> None:
            reply = await self.hall.request({"t": "stand", "table": t["id"]})
            self.notify(
                "You gave your seat up." if reply.get("ok") else str(reply.get("message")),
                severity="information" if reply.get("ok") else "error",
            )

        self.run_worker(stand(), group="lobby-request")

    def action_replay(self) -> None:
        t = self.current()
        if t is not None and t.get("state") == "finished":
            self.run_worker(replay_table(self.app, self.hall, t["id"]), group="lobby-request")

    def action_new(self) -> None:
        self.app.push_screen(NewTableScreen(self.hall))

    def action_rules(self) -> None:
        t = self.current()
        self.app.open_rules(t.get("game") if t is not None else None)


class NewTableScreen(NewGameScreen):
    """A new table at the server: the game, its seats (you, a seat for a friend, a bot),
    its variants.  The names are the players' own; the server draws the seed."""

    ASK_SEED = False

    def __init__(self, hall: HallClient) -> None:
        super().__init__()
        self.hall = hall

    def on_mount(self) -> None:  # NewGameScreen's on_mount runs too (Textual calls each class's)
        self.query_one("#newgame .title", Static).update("New table")

    def seat_widgets(self, i: int) -> list[Widget]:
        game = self.game
        choices = [("You", "you"), ("A player", "human")] + [
            (f"Bot: {level}", f"bot:{level}") for level in game.bot_levels
        ]
        return [
            Select(
                choices,
                value="you" if i == 0 else f"bot:{game.default_bot_level}",
                allow_blank=False,
                compact=True,
                id=f"who-{i}",
                classes="who",
            )
        ]

    def action_start(self) -> None:
        seats: list[SeatSpec] = []
        mine = []
        for i in range(self.players):
            who = str(self.query_one(f"#who-{i}", Select).value)
            if who.startswith("bot:"):
                seats.append(SeatSpec(BOT, who[4:], options=self.seat_choices(i)))
            else:
                seats.append(SeatSpec(HUMAN, options=self.seat_choices(i)))
                if who == "you":
                    mine.append(i)
        if len(mine) != 1:
            self.notify("Choose one seat for yourself (You), and players or bots for the others.", severity="error")
            return
        spec = TableSpec(self.game.id, self.players, seats, self.chosen_variants())
        try:  # said here at once; the hall checks it again, as what any client sends
            spec.check()
        except ConfigError as exc:
            self.notify(str(exc), severity="error")
            return
        request = {"t": "create", **spec.to_plain(), "sit": mine[0]}
        self.run_worker(self.create(request), exclusive=True)

    async def create(self, request: dict[str, Any]) -> None:
        reply = await self.hall.request(request)
        if not reply.get("ok"):
            self.notify(str(reply.get("message")), severity="error")
            return
        self.app.pop_screen()
        if reply.get("started"):
            self.app.run_worker(self.app.join(self.hall.table(str(reply["table"]))), group="join")
        else:
            # the table is waiting, as the reply says: its start is news even if the hall's next
            # list (gathered, or read from a database other servers share) shows it started already
            for screen in self.app.screen_stack:
                if isinstance(screen, LobbyScreen):
                    screen.known.setdefault(str(reply["table"]), "waiting")
            self.app.notify("Your table is open: it starts when every seat is taken.")
