"""Where a server's players stand (issue 36): a game's leaderboard, and a player's finished
tables with their placings, from which a table's replay opens.

Both are the hall's answers to a lobby's requests (``ratings``, ``results``: ``net.hall``);
the screens ask and show.  What a server sends names players: it is shown as text, never
read as markup (``tui.widgets.cell`` and ``plain``)."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any, ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import DataTable, Static
from textual.widgets.data_table import CellDoesNotExist

from core.engine import printable
from core.games import all_games
from saves.ratings import ordinal
from screens.lobby import clipped, fit_widths, packed
from tui.widgets import KeysFooter, Rows, cell

#: what the leaderboard's number is, said under it
RATING_NOTE = (
    "Rating: OpenSkill's cautious estimate of skill (its mean less three times its uncertainty), "
    "0 for a newcomer; it rises with wins, most with wins over strong players. Bots are rated by level."
)
YOU = "▶"


def placing(place: int | None, seats: list[Any]) -> str:
    """A seat's placing at a table: "1st of 3", "shared 2nd of 4"."""
    if not isinstance(place, int):
        return "—"
    places = [s[1] for s in seats if isinstance(s, list | tuple) and len(s) == 2]
    shared = "shared " if places.count(place) > 1 else ""
    return f"{shared}{ordinal(place)} of {len(seats)}"


def when(ended: Any) -> str:
    """When a table ended, to the minute, in UTC (the server's players are anywhere)."""
    try:
        moment = datetime.datetime.fromtimestamp(float(ended), datetime.UTC)
    except (TypeError, ValueError, OverflowError, OSError):
        return "—"
    return moment.strftime("%Y-%m-%d %H:%M")


class Standings(Screen):
    """A list from the hall, fitted to the screen: a title, the rows, a line under them."""

    DEFAULT_CSS = """
    Standings #standings {
        height: 1fr;
        scrollbar-gutter: stable;
    }
    Standings #standings-detail {
        height: auto;
        max-height: 6;
        padding: 0 1;
    }
    """
    COLUMNS: tuple[str, ...] = ()
    #: how the columns give way where a row is wider than the screen (``screens.lobby.fit_widths``)
    FLOORS: tuple[tuple[int, ...], ...] = ()

    def __init__(self, hall: Any) -> None:
        super().__init__()
        self.hall = hall
        self.rows: list[tuple[str, ...]] = []  # the rows as text, before they are fitted
        self.texts: dict[str, str] = {}

    def compose(self) -> ComposeResult:
        yield Static("", id="standings-title", classes="title")
        yield Rows(id="standings", cursor_type="row", zebra_stripes=True)
        yield Static("", id="standings-detail")
        yield KeysFooter()

    def on_mount(self) -> None:
        grid = self.query_one(DataTable)
        grid.add_columns(*self.COLUMNS)
        grid.focus()
        self.ask()

    def on_resize(self, event: events.Resize) -> None:
        self.draw()

    def ask(self) -> None:
        """The hall is asked again (what it answers is drawn)."""

    def show(self, selector: str, text: str) -> None:
        if self.texts.get(selector) != text:
            self.texts[selector] = text
            self.query_one(selector, Static).update(Text(printable(text, lines=True)))

    def draw(self) -> None:
        """The rows, each column cut (with an ellipsis) to what the screen's width leaves it."""
        if not self.is_attached:
            return
        grid = self.query_one(DataTable)
        current = grid.cursor_row
        grid.clear()
        if self.rows:
            natural = [max([cell_len(c)] + [cell_len(r[i]) for r in self.rows]) for i, c in enumerate(self.COLUMNS)]
            width = self.size.width or self.app.size.width
            room = width - 2 - 2 * grid.cell_padding * len(self.COLUMNS)
            floors = [[min(n, f) for n, f in zip(natural, stage, strict=True)] for stage in self.FLOORS]
            widths = fit_widths(natural, room, floors)
            for i, row in enumerate(self.rows):
                grid.add_row(*(cell(clipped(c, w)) for c, w in zip(row, widths, strict=True)), key=str(i))
            grid.move_cursor(row=min(max(current, 0), len(self.rows) - 1))
        self.show("#standings-detail", self.detail())
        self.refresh_bindings()

    def current_index(self) -> int | None:
        grid = self.query_one(DataTable)
        if not grid.row_count:
            return None
        try:
            row_key, _ = grid.coordinate_to_cell_key(grid.cursor_coordinate)
        except CellDoesNotExist:
            return None
        return int(str(row_key.value))

    def detail(self) -> str:
        return ""

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.show("#standings-detail", self.detail())
        self.refresh_bindings()


class LeaderboardScreen(Standings):
    """A game's best ratings, the player's own row marked (and shown below the best if it is
    not among them); ← and → go through the games, f to the player's finished tables."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "game(-1)", "Game", key_display="←→", priority=True),
        Binding("right", "game(1)", "Next game", show=False, priority=True),
        Binding("f", "results", "Your tables"),
        Binding("escape,q", "app.pop_screen", "Back", key_display="q"),
    ]
    FOOTER_SPARES = ("results", "game(-1)")  # (out of a narrow footer first: "q Back" stays)
    COLUMNS = ("", "#", "Player", "Rating", "Games")
    FLOORS = ((9, 9, 12, 9, 9), (9, 9, 4, 9, 9))

    def __init__(self, hall: Any, replay: Callable[[str], None], game: str | None = None) -> None:
        super().__init__(hall)
        #: opens a finished table's replay, by its id (from the player's tables, ``f``)
        self.replay = replay
        self.games = list(all_games())
        self.game = game if game in self.games else self.games[0]
        self.standings: list[dict[str, Any]] = []
        self.problem: str | None = None
        self.asked = 0  # the latest request: an answer to an earlier one is not drawn

    def heading(self) -> str:
        game = all_games().get(self.game)
        title = game.title if game is not None else self.game
        return f"Leaderboard · {title}   ({self.games.index(self.game) + 1} of {len(self.games)} games: ← →)"

    def ask(self) -> None:
        self.asked += 1
        self.show("#standings-title", self.heading())
        self.show("#standings-detail", "Reading the ratings…")
        self.run_worker(self.fetch(self.game, self.asked), group="standings", exclusive=True)

    async def fetch(self, game: str, asked: int) -> None:
        reply = await self.hall.request({"t": "ratings", "game": game})
        if asked != self.asked:
            return
        if reply.get("ok"):
            self.problem = None
            self.standings = [r for r in reply.get("rows") or [] if isinstance(r, dict)]
        else:
            self.problem = str(reply.get("message") or "The ratings cannot be read just now.")
            self.standings = []
        user = self.hall.user
        self.rows = [
            (
                YOU if r.get("name") == user else "",
                str(r.get("rank", "")),
                printable(str(r.get("name", ""))),
                str(r.get("rating", "")),
                str(r.get("games", "")),
            )
            for r in self.standings
        ]
        self.draw()
        mine = next((i for i, r in enumerate(self.standings) if r.get("name") == user), None)
        if mine is not None:
            self.query_one(DataTable).move_cursor(row=mine)

    def detail(self) -> str:
        if self.problem is not None:
            return self.problem
        if not self.standings:
            game = all_games().get(self.game)
            return f"No table of {game.title if game else self.game} has been rated yet: finish one to be the first."
        index = self.current_index()
        note = RATING_NOTE
        if index is not None and index < len(self.standings):
            r = self.standings[index]
            who = "You" if r.get("name") == self.hall.user else printable(str(r.get("name", "")))
            games = r.get("games", 0)
            note = (
                f"{who}: rank {r.get('rank')}, rating {r.get('rating')} after {games} "
                f"table{'s' if games != 1 else ''}. {RATING_NOTE}"
            )
        return note

    def action_results(self) -> None:
        """The player's finished tables, in this screen's place (q goes back to the lobby)."""
        self.app.switch_screen(ResultsScreen(self.hall, self.replay, self.game))

    def action_game(self, step: int) -> None:
        self.game = self.games[(self.games.index(self.game) + step) % len(self.games)]
        self.standings, self.rows, self.problem = [], [], None
        self.draw()
        self.ask()


class ResultsScreen(Standings):
    """The player's finished tables, the latest first: when, the game, who sat there, the
    player's placing.  Enter (or r) opens the table's replay, everything revealed; b goes to
    the leaderboard of the table's game."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "replay", "Replay"),
        Binding("b", "leaderboard", "Leaderboard"),
        Binding("escape,q", "app.pop_screen", "Back", key_display="q"),
    ]
    FOOTER_SPARES = ("leaderboard", "replay")  # (out of a narrow footer first: "q Back" stays)
    COLUMNS = ("Ended (UTC)", "Game", "Players", "Place")
    FLOORS = ((16, 999, 16, 99), (16, 12, 16, 99), (10, 8, 8, 99))

    def __init__(self, hall: Any, replay: Callable[[str], None], game: str | None = None) -> None:
        super().__init__(hall)
        #: opens a finished table's replay, by its id
        self.replay = replay
        #: the game whose leaderboard ``b`` goes back to
        self.game = game
        self.tables: list[dict[str, Any]] = []
        self.problem: str | None = None

    def ask(self) -> None:
        self.show("#standings-title", f"Your finished tables · {self.hall.user}   (Enter replays)")
        self.show("#standings-detail", "Reading your tables…")
        self.run_worker(self.fetch(), group="standings", exclusive=True)

    async def fetch(self) -> None:
        reply = await self.hall.request({"t": "results"})
        if reply.get("ok"):
            self.problem = None
            self.tables = [t for t in reply.get("tables") or [] if isinstance(t, dict) and t.get("id")]
        else:
            self.problem = str(reply.get("message") or "Your tables cannot be read just now.")
            self.tables = []
        self.rows = [self.cells(t) for t in self.tables]
        self.draw()

    def players(self, t: dict[str, Any]) -> list[str]:
        user = self.hall.user
        return [
            "you" if s[0] == user else str(s[0])
            for s in t.get("seats") or []
            if isinstance(s, list | tuple) and len(s) == 2
        ]

    def cells(self, t: dict[str, Any]) -> tuple[str, ...]:
        seats = t.get("seats") or []
        return tuple(
            printable(x)
            for x in (
                when(t.get("ended")),
                str(t.get("title") or t.get("game") or ""),
                ", ".join(self.players(t)),
                placing(t.get("place"), seats),
            )
        )

    def detail(self) -> str:
        if self.problem is not None:
            return self.problem
        if not self.tables:
            return "You have no finished table yet: each one you finish is listed here, with every seat's place."
        index = self.current_index()
        if index is None or index >= len(self.tables):
            return ""
        t = self.tables[index]
        seats = [s for s in t.get("seats") or [] if isinstance(s, list | tuple) and len(s) == 2]
        placed = sorted(
            (
                (s[1] if isinstance(s[1], int) else 0, i, name)
                for i, (s, name) in enumerate(zip(seats, self.players(t), strict=True))
            ),
        )
        entries = [f"{ordinal(place)} {name}" for place, _, name in placed]
        entries.append(f"Table {t.get('id')}: r replays it")
        return packed([printable(e) for e in entries], (self.size.width or self.app.size.width) - 2)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "replay":
            return bool(self.tables)
        return True

    def action_leaderboard(self) -> None:
        """The leaderboard, in this screen's place: of the game of the table under the cursor."""
        index = self.current_index()
        game = self.tables[index].get("game") if index is not None and index < len(self.tables) else self.game
        self.app.switch_screen(LeaderboardScreen(self.hall, self.replay, str(game) if game else None))

    def action_replay(self) -> None:
        index = self.current_index()
        if index is not None and index < len(self.tables):
            self.replay(str(self.tables[index]["id"]))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_replay()
