"""The lobby of a game server (``cabinet serve``): its tables, and a new one.

The tables are listed as the hall pushes them: those waiting for your move
first, then the tables waiting for players, the ones in play, and the finished
ones, the latest first.  Enter does what a table is for: play your seat, take a
free one, watch a game of others, replay a finished one.  The hall decides
everything (who may sit where, when a table starts); the screen asks and shows.
"""

from __future__ import annotations

from collections.abc import Awaitable
from pathlib import Path
from typing import Any, ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import DataTable, OptionList, Select, Static
from textual.widgets.data_table import CellDoesNotExist
from textual.widgets.option_list import Option

from core.engine import ConfigError, printable
from core.games import get_game
from net.client import HallClient
from saves import SaveError
from saves.format import rebuild
from screens.new_game import NewGameScreen
from table.spec import BOT, HUMAN, SeatSpec, TableSpec
from tui.widgets import KeysFooter, Rows, cell, plain

FINISHED_SHOWN = 30  # finished tables listed, the latest first
ORDER = {"your move": 0, "waiting": 1, "starting": 1, "playing": 2, "finished": 3}
TAGS = {
    "your move": "▶ Your move",
    "waiting": "Waiting",
    "starting": "Starting",
    "playing": "In play",
    "finished": "Finished",
}


def free_seats(table: dict[str, Any]) -> int:
    """The players' seats nobody has taken yet at a listed table."""
    return sum(1 for s in table.get("seats") or [] if s.get("kind") != "bot" and not s.get("user"))


def sits_at(table: dict[str, Any], user: str) -> bool:
    """Whether ``user`` has a seat at a listed table."""
    return any(s.get("user") == user for s in table.get("seats") or [])


def kind_of(table: dict[str, Any], user: str) -> str:
    """How the table stands for ``user``: your move, waiting (for players), starting (every
    seat taken, the hall starting it: a list can come in that moment), playing, finished."""
    state = table.get("state")
    if state == "waiting" and not free_seats(table):
        return "starting"
    if state == "playing":
        seats = table.get("seats") or []
        mine = {i for i, s in enumerate(seats) if s.get("user") == user}
        if mine & set(table.get("active") or []):
            return "your move"
    return str(state)


def sorted_tables(tables: list[dict[str, Any]], user: str) -> list[dict[str, Any]]:
    live = [t for t in tables if t.get("state") != "finished"]
    live.sort(key=lambda t: (ORDER.get(kind_of(t, user), 9), not sits_at(t, user), -float(t.get("updated") or 0)))
    done = [t for t in tables if t.get("state") == "finished"]
    done.sort(key=lambda t: (not sits_at(t, user), -float(t.get("updated") or 0)))
    return live + done[:FINISHED_SHOWN]


def seats_text(table: dict[str, Any], user: str) -> str:
    """A table's seats in its row: the players by name ("you" for the user), a free seat as
    such, and the bots counted (each bot's name and level are in the line under the list,
    ``LobbyScreen.detail``).  A player away from a table in play is marked so; at a finished
    table nobody is waited for, and nobody is marked away (the hall's listing says who is away
    only until the server stops: the mark came and went with a restart)."""
    parts = []
    bots = []
    finished = table.get("state") == "finished"
    for seat in table.get("seats") or []:
        if seat.get("kind") == "bot":
            bots.append(seat)
        elif seat.get("user"):
            name = str(seat["user"])
            if name == user:
                parts.append("you")  # at the lobby, not at the table: away there, but here
            else:
                parts.append(name + (" (away)" if seat.get("away") and not finished else ""))
        else:
            parts.append("— free")
    if len(bots) == 1:
        parts.append(f"{bots[0].get('name')} ({bots[0].get('level')})")
    elif bots:
        parts.append(f"{len(bots)} bots")
    return ", ".join(parts)


def others_text(table: dict[str, Any], user: str) -> str:
    """The other players at a table, as its news names them: ", with bob and cy"."""
    names = [str(s["user"]) for s in table.get("seats") or [] if s.get("user") and s.get("user") != user]
    if not names:
        return ""
    return ", with " + (names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1])


def fit_widths(natural: list[int], room: int, floors: list[list[int]]) -> list[int]:
    """Column widths that fit ``room`` cells.  ``floors`` are the stages in which columns give
    way, each a floor a column: in each stage the widest column still above its floor gives a
    cell at a time, until the row fits, or every column is at the stage's floor and the next
    stage begins."""
    widths = list(natural)
    for stage in floors:
        while sum(widths) > room:
            narrower = [i for i, w in enumerate(widths) if w > stage[i]]
            if not narrower:
                break
            widths[max(narrower, key=lambda i: widths[i])] -= 1
    return widths


def clipped(text: str, width: int) -> str:
    """``text`` (printable already) cut to ``width`` cells, an ellipsis where it was cut."""
    shown = Text(text)
    shown.truncate(max(width, 1), overflow="ellipsis")
    return shown.plain


def packed(entries: list[str], width: int) -> str:
    """``entries`` three spaces apart, in lines of at most ``width`` cells, broken only between
    two entries (a seat is never cut in two across lines)."""
    lines: list[str] = []
    for entry in entries:
        if lines and cell_len(lines[-1]) + 3 + cell_len(entry) <= width:
            lines[-1] += "   " + entry
        else:
            lines.append(entry)
    return "\n".join(lines)


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

    def analyst() -> Awaitable[dict[str, Any]]:  # the hall makes a table's analysis, and keeps it
        return hall.request({"t": "analysis", "table": table_id})

    app.open_replay(match, Path(f"table {table_id}"), analyst=analyst)


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
    DEFAULT_CSS = """
    LobbyScreen #tables {
        height: 1fr;
        /* the room the columns are fitted to does not change when the list grows a scrollbar */
        scrollbar-gutter: stable;
    }
    LobbyScreen #lobby-detail {
        height: auto;
        max-height: 8;
        padding: 0 1;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Open", show=False),
        Binding("n", "new", "New table"),
        Binding("o", "open_news", "Open started table"),
        Binding("w", "watch", "Watch"),
        Binding("x", "stand", "Give up seat"),
        Binding("r", "replay", "Replay"),
        Binding("b", "ratings", "Ratings"),
        Binding("question_mark", "rules", "Rules"),
        Binding("q", "app.quit", "Quit"),
    ]
    #: left out of a narrow footer first, the first first (they still work): "q Quit" stays
    FOOTER_SPARES = ("rules", "ratings", "replay", "stand", "watch")
    COLUMNS = ("", "Game", "Seats", "Progress")
    #: how the columns give way where a row is wider than the screen (the line under the list
    #: says the row whole): a finished table's result first, down to a dozen cells, then the
    #: seats down to 16, the game's title down to a dozen, and at last everything but the tag
    FLOORS = (
        (99, 999, 999, 12),
        (99, 999, 16, 12),
        (99, 12, 16, 12),
        (99, 4, 4, 4),
    )

    def __init__(self, hall: HallClient) -> None:
        super().__init__()
        self.hall = hall
        self.shown: list[dict[str, Any]] = []  # the tables listed, in their order
        self.by_id: dict[str, dict[str, Any]] = {}  # the same by id: the grid's row keys
        self.known: dict[str, str] = {}  # table -> how it stood for the user when last listed
        self.texts: dict[str, str] = {}  # what the title and the detail line show
        #: the table of the user's that started last, not opened since ("o" opens it)
        self.news: str | None = None
        #: a table of the user's that Enter was pressed on as it was starting: opened once started
        self.opening: str | None = None
        #: the table the player has just opened (``NewTableScreen``): the cursor goes to it
        #: when it is first listed, whatever table it was on
        self.follow: str | None = None

    def compose(self) -> ComposeResult:
        yield Static("", id="lobby-title", classes="title")
        yield Rows(id="tables", cursor_type="row", zebra_stripes=True)
        yield Static("", id="lobby-detail")
        # the lobby's keys need the whole line at 80 columns (a table's news, a seat, the ratings)
        yield KeysFooter(show_command_palette=False)

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns(*self.COLUMNS)
        self.refresh_list()
        table.focus()

    def on_resize(self, event: events.Resize) -> None:
        self.refresh_list()  # the columns and the detail fitted to the new width

    # -- the listing --------------------------------------------------------------------------

    def listed(self) -> None:
        """The hall sent its tables again.  The lobby in front shows them; behind a table
        (where a session spends most of its time) only the news is told, and the list is
        drawn when the lobby comes back to the front (``on_screen_resume``)."""
        if self.app.screen is self:
            self.refresh_list()
        else:
            self.tell_news(sorted_tables(self.hall.tables, self.hall.user))

    def width(self) -> int:
        return self.size.width or self.app.size.width

    def refresh_list(self) -> None:
        user = self.hall.user
        tables = sorted_tables(self.hall.tables, user)
        self.tell_news(tables)
        grid = self.query_one(DataTable)
        current, at = self.current_id(), grid.cursor_row
        grid.clear()  # drawn whole, so that each column is as wide as its longest cell
        rows, widths = self.rows(tables, user)
        # each column as wide as the rows were fitted to, set before a row is added: the grid
        # measures its rows only when idle, and a row it draws before that is kept (cached)
        # as it was drawn, its cells cut to the widths of the rows before (seen with many
        # lists coming while a table was opened: "you, — fre")
        for column, width in zip(grid.ordered_columns, widths, strict=True):
            column.auto_width, column.width = False, width
        for t, row in zip(tables, rows, strict=True):
            grid.add_row(*row, key=str(t["id"]))
        self.shown = tables
        self.by_id = {str(t["id"]): t for t in tables}
        # the cursor stays on its table (by its id, not its row), wherever the table is now
        # listed: rows added or taken away above it do not move it to another table; the table
        # the player has just opened takes it, once listed; where its table is gone, the cursor
        # stays on its row (the table listed after the one gone), not back at the top
        if self.follow in self.by_id:
            current, self.follow = self.follow, None
        if current in self.by_id:
            grid.move_cursor(row=grid.get_row_index(current))
        elif tables:
            grid.move_cursor(row=min(at, len(tables) - 1))
        count = len(tables)
        mine = sum(1 for t in tables if kind_of(t, user) == "your move")
        news = f" · {mine} waiting for your move" if mine else ""
        opens = "   (Enter opens)" if count else ""  # (nothing to open: "n New table" below says what to do)
        self.show("#lobby-title", f"Cabinet · {user} · {count} table{'s' if count != 1 else ''}{news}{opens}")
        self.show(
            "#lobby-detail",
            "No tables yet: n opens one (against bots, or with seats for friends)." if not tables else self.detail(),
        )
        self.refresh_bindings()

    def rows(self, tables: list[dict[str, Any]], user: str) -> tuple[list[tuple[str, ...]], list[int]]:
        """The tables' rows, each column cut (with an ellipsis) to what the screen's width leaves
        it: the Progress column always shows, and the line under the list says each row whole;
        and the columns' widths."""
        texts = [self.cells(t, user) for t in tables]
        natural = [max([cell_len(c)] + [cell_len(row[i]) for row in texts]) for i, c in enumerate(self.COLUMNS)]
        grid = self.query_one(DataTable)
        # the grid's width less its scrollbar's gutter (2) and each column's padding
        room = self.width() - 2 - 2 * grid.cell_padding * len(self.COLUMNS)
        widths = fit_widths(
            natural, room, [[min(n, f) for n, f in zip(natural, stage, strict=True)] for stage in self.FLOORS]
        )
        return [tuple(cell(clipped(c, w)) for c, w in zip(row, widths, strict=True)) for row in texts], widths

    @staticmethod
    def cells(t: dict[str, Any], user: str) -> tuple[str, ...]:
        """A table's row as text (printable: it names players), before it is fitted and escaped."""
        kind = kind_of(t, user)
        if kind == "finished":
            extra = str(t.get("outcome") or "")
        elif kind == "waiting":
            free = free_seats(t)
            extra = f"{free} seat{'s' if free > 1 else ''} free"
        elif kind == "starting":
            extra = "every seat taken"
        else:
            extra = f"move {t.get('moves', 0)}"
        return tuple(printable(x) for x in (TAGS.get(kind, kind), str(t.get("title")), seats_text(t, user), extra))

    def show(self, selector: str, text: str) -> None:
        """``text`` in the Static ``selector``, drawn again only when it changed."""
        if self.texts.get(selector) != text:
            self.texts[selector] = text
            # it names players: text, not markup; the detail's lines are its own (``packed``)
            self.query_one(selector, Static).update(Text(printable(text, lines=True)))

    def tell_news(self, tables: list[dict[str, Any]]) -> None:
        """A table of yours that started, or came to your move, is said once; a table that
        started is the lobby's news until it is opened (o opens it, wherever the cursor is)."""
        user = self.hall.user
        in_front = self.is_attached and self.app.screen is self
        at = self.table_in_play_here()
        opened = None
        starting = set()  # the tables listed as starting: one Enter was pressed on opens once started
        for t in tables:
            kind = kind_of(t, user)
            if kind == "starting":
                starting.add(str(t["id"]))
            before = self.known.get(t["id"])
            sits = sits_at(t, user)
            started = before in ("waiting", "starting") and kind in ("playing", "your move")
            if sits and started and str(t["id"]) == at:
                pass  # the player is at that table already: no news to them
            elif sits and started and str(t["id"]) == self.opening and in_front:
                opened = str(t["id"])  # Enter was pressed on it as it started: it opens now
            elif sits and started:
                self.news = str(t["id"])
                self.notify(
                    f"Your table of {t.get('title')} has started{others_text(t, user)}."
                    + (" It is your move." if kind == "your move" else "")
                    + (" o opens it." if in_front else " o in the lobby opens it.")
                )
            elif sits and before == "playing" and kind == "your move" and in_front:
                self.notify(f"{t.get('title')}: your move.")
            self.known[t["id"]] = kind
        if self.news is not None and self.news_table() is None:
            self.news = None  # finished, or no longer listed: nothing left to open
        if self.opening not in starting:
            self.opening = None  # opened, or not started after all, or gone
        if opened is not None:
            self.open_table(opened)

    def table_in_play_here(self) -> str | None:
        """The id of the hall's table this terminal is at now, if any."""
        for screen in self.app.screen_stack:
            remote = getattr(getattr(screen, "feed", None), "remote", None)
            table_id = getattr(remote, "table_id", None)
            if table_id is not None:
                return str(table_id)
        return None

    def news_table(self) -> dict[str, Any] | None:
        """The table the news named, while it is in play with the user at it."""
        user = self.hall.user
        t = next((t for t in self.hall.tables if t.get("id") == self.news), None)
        if t is None or t.get("state") != "playing" or not sits_at(t, user):
            return None
        return t

    def current_id(self) -> str | None:
        """The key of the row under the cursor: the table's id."""
        grid = self.query_one(DataTable)
        if not grid.row_count:
            return None
        try:
            row_key, _ = grid.coordinate_to_cell_key(grid.cursor_coordinate)
        except CellDoesNotExist:  # the cursor past the rows: no table under it
            return None
        return row_key.value

    def current(self) -> dict[str, Any] | None:
        table_id = self.current_id()
        return self.by_id.get(table_id) if table_id is not None else None

    def detail(self) -> str:
        """The table under the cursor whole: each seat, its result, its rules, one entry never
        cut across two lines."""
        t = self.current()
        if t is None:
            return ""
        entries = []
        for i, seat in enumerate(t.get("seats") or []):
            who = seat.get("name") or "free"
            if seat.get("kind") == "bot":
                who += f" (bot, {seat.get('level')})"
            label = f" · {seat['label']}" if seat.get("label") else ""
            entries.append(f"Seat {i + 1}: {who}{label}")
        if t.get("state") == "finished" and t.get("outcome"):
            entries.append(str(t["outcome"]))
        game = get_game(str(t.get("game")))
        chosen = t.get("variants") or {}
        changed = [v for v in (game.variants if game else ()) if v.listed and chosen.get(v.key, v.default) != v.default]
        entries.append(
            "Variants: " + "; ".join(f"{v.label} {chosen[v.key]}" for v in changed) if changed else "Rules as written"
        )
        return packed([printable(e) for e in entries], self.width() - 2)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.show("#lobby-detail", self.detail())
        self.refresh_bindings()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        # the table of the row Enter was pressed on, even if the list was drawn again since
        self.action_open(self.by_id.get(str(event.row_key.value)))

    def on_screen_resume(self) -> None:
        self.refresh_list()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        t = self.current()
        user = self.hall.user
        if action == "open_news":
            return self.news_table() is not None
        if action == "watch":  # a table of others in play (at one's own, Enter opens one's seat)
            return t is not None and t.get("state") == "playing" and not sits_at(t, user)
        if action == "stand":
            return t is not None and kind_of(t, user) == "waiting" and sits_at(t, user)
        if action == "replay":
            return t is not None and t.get("state") == "finished"
        return True

    # -- what a player does ------------------------------------------------------------------

    def action_open(self, t: dict[str, Any] | None = None) -> None:
        t = t or self.current()
        if t is None:
            self.action_new()
            return
        user = self.hall.user
        state = t.get("state")
        sits = sits_at(t, user)
        if state == "finished":
            self.action_replay()
        elif state == "playing":
            self.open_table(t["id"], watch=not sits)
        elif kind_of(t, user) == "starting":
            if sits:
                self.opening = str(t["id"])
                self.notify("Every seat is taken and the table is starting: it opens as soon as it has.")
            else:
                self.notify("Every seat of that table is taken: w watches it once it has started.")
        elif sits:
            free = free_seats(t)
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
        if table_id == self.news:
            self.news = None  # opened: no longer news
            self.refresh_bindings()
        self.run_worker(self.app.join(self.hall.table(table_id, watch=watch)), group="join")

    def action_open_news(self) -> None:
        """Open the table the news named, wherever it is listed and whatever the cursor is on."""
        t = self.news_table()
        if t is not None:
            self.open_table(str(t["id"]))

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
            if not reply.get("ok"):
                self.notify(str(reply.get("message")), severity="error")
            elif reply.get("closed"):
                self.notify("You gave your seat up; nobody else sat at that table, so it is closed.")
            else:
                self.notify("You gave your seat up.")

        self.run_worker(stand(), group="lobby-request")

    def action_replay(self) -> None:
        t = self.current()
        if t is not None and t.get("state") == "finished":
            self.run_worker(replay_table(self.app, self.hall, t["id"]), group="lobby-request")

    def action_new(self) -> None:
        self.app.push_screen(NewTableScreen(self.hall))

    def action_ratings(self) -> None:
        """The leaderboard of the game of the table under the cursor (any game's, by ← →), and
        from there the player's finished tables, each of which opens its replay."""
        from screens.standings import LeaderboardScreen

        def replay(table_id: str) -> None:
            self.run_worker(replay_table(self.app, self.hall, table_id), group="lobby-request")

        t = self.current()
        self.app.push_screen(LeaderboardScreen(self.hall, replay, str(t.get("game")) if t is not None else None))

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
        table_id = str(reply["table"])
        lobby = next((s for s in self.app.screen_stack if isinstance(s, LobbyScreen)), None)
        if lobby is not None:
            # the lobby's cursor goes to the new table, once listed (now, or back from it)
            lobby.follow = table_id
        self.app.pop_screen()
        if reply.get("started"):
            self.app.run_worker(self.app.join(self.hall.table(table_id)), group="join")
        else:
            # the table is waiting, as the reply says: its start is news even if the hall's next
            # list (gathered, or read from a database other servers share) shows it started already
            if lobby is not None:
                lobby.known.setdefault(table_id, "waiting")
            self.app.notify("Your table is open: it starts when every seat is taken.")
