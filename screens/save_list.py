"""The load and replay lists: every save, newest first, each row telling its game apart.

A row says the game, its players, how many moves were made, when it was last played and
where it stands: whose move it is, who won, or that another Cabinet is playing it right
now.  The line under the list says everything about the highlighted save: every name
whole, when it started, the game it was played on from (a fork), why it cannot be opened.

The listing reads each save's records without replaying them (``saves.list_saves``), and
reads a save again only once it has changed.  Whose move it is needs the game replayed:
that is worked out after the list is shown, a save at a time, newest first, and kept for
as long as the save does not change."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from rich.cells import cell_len, set_cell_size
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.coordinate import Coordinate
from textual.screen import Screen
from textual.widgets import DataTable, Static

from tui.widgets import KeysFooter, Rows, cell, plain

if TYPE_CHECKING:
    from saves import SaveInfo

#: how often the list looks again at its directory (a save played elsewhere moves on, or is let go)
POLL_SECONDS = 2.0
#: the narrowest the game, players and state columns are cut to (a title stays recognisable)
MIN_GAME, MIN_PLAYERS, MIN_STATE = 14, 12, 17
#: the columns of names the players get before a long title has more (two names: "Player 1, Player 2*")
PLAYERS_FIRST = 19
#: the widest the game and state columns grow on a wide terminal (the players take the rest)
MAX_GAME, MAX_STATE = 32, 26


def when(moment: datetime.datetime | None) -> str:
    """'2026-12-02 17:15', in the machine's local time."""
    if moment is None:
        return "?"
    return moment.astimezone().strftime("%Y-%m-%d %H:%M")


def when_short(moment: datetime.datetime | None, now: datetime.datetime | None = None) -> str:
    """'02 Dec 17:15' this year, '02 Dec 2025' another: 12 columns at most, in local time."""
    if moment is None:
        return "?"
    local = moment.astimezone()
    this_year = (now or datetime.datetime.now().astimezone()).year
    return local.strftime("%d %b %H:%M" if local.year == this_year else "%d %b %Y")


def fit(text: str, width: int) -> str:
    """``text`` as it is if it fits in ``width`` columns, else cut with a visible "…"."""
    if cell_len(text) <= width:
        return text
    if width <= 1:
        return "…"[:width]
    return set_cell_size(text, width - 1).rstrip() + "…"


def title_of(info: SaveInfo) -> str:
    """The game's title, marked ↳ for a game played on from another."""
    return ("↳ " if info.parent is not None else "") + info.title


def seat_label(info: SaveInfo, seat: int) -> str:
    """A seat's name, with * for a bot."""
    s = info.seats[seat]
    return s.name + ("*" if s.kind == "bot" else "")


def seat_names(info: SaveInfo) -> list[str]:
    """Every seat's name, with * for a bot, in seat order."""
    return [seat_label(info, i) for i in range(len(info.seats))]


def seats_fit(info: SaveInfo, width: int) -> str:
    """The seats' names in ``width`` columns: as many whole names as fit, then how many
    more there are ("Ada, Bastien*, +3"); the first name cut with "…" if even it is too long."""
    names = seat_names(info)
    whole = ", ".join(names)
    if cell_len(whole) <= width:
        return whole
    for shown in range(len(names) - 1, 0, -1):
        text = ", ".join(names[:shown]) + f", +{len(names) - shown}"
        if cell_len(text) <= width:
            return text
    more = f" +{len(names) - 1}"
    return fit(names[0], max(1, width - cell_len(more))) + more


def names_and(names: list[str]) -> str:
    if len(names) < 2:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


@dataclass(frozen=True)
class Position:
    """What a save's replay tells its row: whose move it is, where a fork plays on from."""

    to_play: tuple[int, ...] = ()
    fork_move: int | None = None  # the parent's move a fork plays on from
    error: str | None = None  # the save turned out damaged when replayed


#: every position worked out in this program, by save as it was read: a save is replayed
#: once until it changes (a save's stamp changes with each move written)
POSITIONS: dict[tuple[Path, tuple[int, ...], int], Position] = {}
#: what the listing last read, by path: a save not changed since is not read again
KNOWN: dict[Path, SaveInfo] = {}


def position_key(info: SaveInfo) -> tuple[Path, tuple[int, ...], int]:
    return (info.path, info.stamp, info.read_at)


def position_of(info: SaveInfo) -> Position:
    """Replay ``info``'s save for whose move it is (and a fork's starting move)."""
    from saves import SaveError, load

    try:
        match = load(info.path).match
    except SaveError as exc:
        return Position(error=str(exc))
    fork_move = match.moves_within(info.forked_at) if info.forked_at is not None else None
    return Position(match.active(), fork_move)


def needs_replay(info: SaveInfo) -> bool:
    """Whether the row waits on a replay: a game in play (whose move), or a fork (from which move)."""
    return info.error is None and bool(info.stamp) and (not info.finished or info.forked_at is not None)


class Columns:
    """The list's columns, fitted to the terminal's width: at 80 columns the game, the
    players, the moves, when last played and the state; wider, when it started too."""

    def __init__(self, width: int, infos: list[SaveInfo]) -> None:
        self.started = width >= 100
        count = 6 if self.started else 5
        # each column is padded a cell on each side; the scrollbar's gutter is kept
        room = width - 2 - 2 * count
        fixed = 5 + 12 + (12 if self.started else 0)
        flexible = max(room - fixed, MIN_GAME + MIN_STATE + MIN_PLAYERS)
        titles = max((cell_len(title_of(i)) for i in infos if i.error is None), default=MIN_GAME)
        # the game as wide as its longest title, once the state and PLAYERS_FIRST columns of names have theirs
        self.game = max(MIN_GAME, min(titles, MAX_GAME, flexible - MIN_STATE - PLAYERS_FIRST))
        rest = flexible - self.game
        self.state = max(MIN_STATE, min(MAX_STATE, rest // 2, rest - PLAYERS_FIRST))
        self.players = max(MIN_PLAYERS, rest - self.state)
        # the state's few words give way, down to their least, to names that would be cut
        names = max((cell_len(", ".join(seat_names(i))) for i in infos if i.error is None), default=0)
        give = max(0, min(names - self.players, self.state - MIN_STATE))
        self.state -= give
        self.players += give

    def add_to(self, table: DataTable) -> None:
        table.add_column("Game", width=self.game, key="game")
        table.add_column("Players", width=self.players, key="players")
        table.add_column("Moves", width=5, key="moves")
        if self.started:
            table.add_column("Started", width=12, key="started")
        table.add_column("Last played", width=12, key="last")
        table.add_column("State", width=self.state, key="state")


def open_save(app: App, path: Path, replay: bool, loaded: Any = None) -> bool:
    """Load a save into the game or the replay screen; a damaged one is one
    sentence.  A save that can be read but not played on here (it cannot be
    written, or has a bot this Cabinet does not know) opens as a replay, with
    the sentence that says why."""
    from saves import SaveError, SaveNotWritable, SaveWriter, load

    if loaded is None:
        try:
            loaded = load(path)
        except SaveError as exc:
            app.notify(str(exc), severity="error", timeout=app.ERROR_TIMEOUT)
            return False
    for warning in loaded.warnings:
        app.notify(warning, severity="warning", timeout=app.ERROR_TIMEOUT)
    if replay:
        app.open_replay(loaded.match, path)
        return True
    if loaded.unplayable is not None:
        app.notify(f"{loaded.unplayable} It is shown as a replay.", severity="warning", timeout=app.ERROR_TIMEOUT)
        app.open_replay(loaded.match, path)
        return True
    try:
        writer = SaveWriter.resume(loaded)
    except SaveNotWritable as exc:
        app.notify(f"{exc} It is shown as a replay.", severity="warning", timeout=app.ERROR_TIMEOUT)
        app.open_replay(loaded.match, path)
        return True
    except SaveError as exc:  # somebody plays it already (SaveLocked), or it changed meanwhile
        app.notify(str(exc), severity="error", timeout=app.ERROR_TIMEOUT)
        return False
    app.open_game(writer)
    return True


class SaveListScreen(Screen):
    BINDINGS: ClassVar[list[BindingType]] = [
        ("escape", "app.pop_screen", "Back"),
        Binding("q", "app.pop_screen", "Back", show=False),  # as q leaves a game, a replay, the rules
    ]

    def __init__(self, mode: str = "load") -> None:
        super().__init__()
        self.mode = mode
        self.paths: dict[str, Path] = {}
        #: the saves listed, newest first, and who writes each of them now (a sentence, or None)
        self.infos: list[SaveInfo] = []
        self.holders: dict[Path, str | None] = {}
        self.width = 0
        self.columns = Columns(80, [])
        #: the saves being replayed now for their positions
        self.queued: set[tuple[Path, tuple[int, ...], int]] = set()

    def compose(self) -> ComposeResult:
        title = "Load a game" if self.mode == "load" else "Replay a game"
        yield Static(f"{title}   (Enter opens; * marks a bot; ↳ a game played on from another)", classes="title")
        yield Rows(id="saves", cursor_type="row", zebra_stripes=True)
        yield Static("", id="save-detail")
        yield Static("", id="saves-empty")
        yield KeysFooter()

    def on_mount(self) -> None:
        self.set_interval(POLL_SECONDS, self.look_again)

    def on_screen_resume(self) -> None:
        # shown, first or back from a game or a replay: the saves as they are now, and no toast
        # of before ("Saved: ...", the game left: listed here) over the highlighted save's lines
        self.app.clear_notifications()
        self.refresh_list()

    def on_resize(self) -> None:
        if self.size.width != self.width and self.infos:
            self.show_rows()

    # -- reading the directory ----------------------------------------------------

    def read(self) -> tuple[list[SaveInfo], dict[Path, str | None]]:
        from saves import list_saves
        from saves.format import who_holds

        infos = list_saves(self.app.save_dir, known=KNOWN)
        return infos, {info.path: who_holds(info.path) for info in infos}

    def refresh_list(self) -> None:
        self.infos, self.holders = self.read()
        self.show_rows()
        self.work_out_positions()

    def look_again(self) -> None:
        """The directory once more: shown again only if a save came, went, changed or was taken or let go."""
        infos, holders = self.read()
        if [position_key(i) for i in infos] != [position_key(i) for i in self.infos] or holders != self.holders:
            self.infos, self.holders = infos, holders
            self.show_rows()
            self.work_out_positions()

    # -- the rows -------------------------------------------------------------------

    def show_rows(self) -> None:
        table = self.query_one(DataTable)
        # shown again: the cursor stays on the save it was on (or its place)
        was = table.cursor_row
        chosen = None
        if table.is_valid_coordinate(Coordinate(was, 0)):
            chosen = table.coordinate_to_cell_key(Coordinate(was, 0)).row_key.value
        self.width = self.size.width
        columns = Columns(self.width or 80, self.infos)
        table.clear(columns=True)
        columns.add_to(table)
        self.paths.clear()
        self.columns = columns
        for info in self.infos:
            key = str(info.path)
            self.paths[key] = info.path
            # the seats' names and the file's are text, never markup
            table.add_row(*(cell(text) for text in self.row(info, columns)), key=key)
        empty = "" if self.infos else f"No saves yet in {self.app.save_dir}."
        self.query_one("#saves-empty", Static).update(plain(empty))
        self.query_one("#saves-empty").display = not self.infos
        self.query_one("#save-detail").display = bool(self.infos)
        if self.infos:
            keys = [str(info.path) for info in self.infos]
            row = keys.index(chosen) if chosen in keys else min(was, len(keys) - 1)
            table.move_cursor(row=max(0, row))
            table.focus()
        self.show_detail()

    def row(self, info: SaveInfo, columns: Columns) -> list[str]:
        if info.error is not None and info.game is None:
            game = fit(info.path.name, columns.game)
            cells = [game, "", "", *([""] if columns.started else []), when_short(info.last_played), "damaged"]
            return cells
        cells = [fit(title_of(info), columns.game), seats_fit(info, columns.players), str(info.moves)]
        if columns.started:
            cells.append(when_short(info.started))
        cells.append(when_short(info.last_played))
        cells.append(fit(self.state(info), columns.state))
        return cells

    def position(self, info: SaveInfo) -> Position | None:
        return POSITIONS.get(position_key(info)) if needs_replay(info) else None

    def state(self, info: SaveInfo) -> str:
        """Where the game stands, in a few words: the row's last column."""
        if info.error is not None:
            return "cannot be played" if info.game is not None else "damaged"
        position = self.position(info)
        if position is not None and position.error is not None:
            return "damaged"
        if self.holders.get(info.path) and not info.finished:  # (a game over is only shown elsewhere)
            return "played elsewhere"
        if info.finished:
            winners = [seat_label(info, w) for w in info.winners if 0 <= w < len(info.seats)]
            if not winners:
                return "finished"
            return "won by " + (winners[0] if len(winners) == 1 else f"{len(winners)} players")
        names = [seat_label(info, s) for s in position.to_play if 0 <= s < len(info.seats)] if position else []
        if not names:  # not replayed yet (or nobody to act: verify says why)
            return "in play"
        if len(names) == 1:
            return f"{fit(names[0], self.columns.state - len(' to play'))} to play"
        for together in (", ".join(names) + " to play", f"{len(names)} players to play"):
            if cell_len(together) <= self.columns.state:
                return together
        return f"{len(names)} to play"

    # -- the highlighted save, said whole ---------------------------------------------

    def highlighted(self) -> SaveInfo | None:
        table = self.query_one(DataTable)
        if not table.is_valid_coordinate(Coordinate(table.cursor_row, 0)):
            return None
        key = table.coordinate_to_cell_key(Coordinate(table.cursor_row, 0)).row_key.value
        return next((info for info in self.infos if str(info.path) == key), None)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.show_detail()

    def show_detail(self) -> None:
        info = self.highlighted()
        detail = self.query_one("#save-detail", Static)
        detail.update(Text("\n").join(plain(line) for line in self.detail(info)) if info is not None else "")

    def detail(self, info: SaveInfo) -> list[str]:
        """Everything about ``info``'s save, a line a subject."""
        if info.error is not None and info.game is None:
            return [info.path.name, info.error]
        seats = []
        for s in info.seats:
            seats.append(f"{s.name} (bot, {s.level})" if s.kind == "bot" and s.level else f"{s.name} ({s.kind})")
        lines = [f"{info.title}: {', '.join(seats)}"]
        moves = f"{info.moves} move{'s' if info.moves != 1 else ''}"
        facts = [f"Started {when(info.started)}", f"last played {when(info.last_played)}", moves]
        position = self.position(info)
        if info.finished:
            winners = [info.seats[w].name for w in info.winners if 0 <= w < len(info.seats)]
            facts.append(f"won by {names_and(winners)}" if winners else "finished")
        elif position is not None and position.error is None:
            to_play = [info.seats[s].name for s in position.to_play if 0 <= s < len(info.seats)]
            facts.append(f"{names_and(to_play)} to play" if to_play else "in play")
        lines.append(" · ".join(facts) + ".")
        if info.parent is not None:
            at = f"move {position.fork_move} of " if position is not None and position.fork_move is not None else ""
            parent = next((i for i in self.infos if i.path.name == info.parent), None)
            origin = f"the game started {when(parent.started)} ({info.parent})" if parent is not None else info.parent
            lines.append(f"↳ Played on from {at}{origin}.")
        holder = self.holders.get(info.path)
        if holder and not info.finished:  # a window showing a game over plays nothing in it
            lines.append(holder + ("" if self.mode == "replay" else " It can be replayed, not played on, meanwhile."))
        for problem in (info.error, position.error if position is not None else None, info.warning):
            if problem:
                lines.append(problem)
        return lines

    # -- whose move: the games in play replayed, newest first ------------------------------

    def work_out_positions(self) -> None:
        current = {position_key(info) for info in self.infos}
        for key in [key for key in list(POSITIONS) if key not in current]:  # saves changed or gone
            POSITIONS.pop(key, None)
        waiting = [
            info
            for info in self.infos
            if needs_replay(info) and position_key(info) not in POSITIONS and position_key(info) not in self.queued
        ]
        if waiting:
            self.queued.update(position_key(info) for info in waiting)
            # the app's worker, not the screen's: leaving the list stops it between two saves
            # (it is never cancelled midway, which whoever waits for the app's workers would see fail)
            self.app.run_worker(
                partial(self.replay_each, waiting, self.app.call_from_thread), thread=True, group="save-positions"
            )

    def replay_each(self, infos: list[SaveInfo], tell: Callable[..., Any]) -> None:
        """In a thread: each save of ``infos`` replayed, its row told whose move it is."""
        for info in infos:
            if not self.is_attached:
                return
            POSITIONS[position_key(info)] = position_of(info)
            try:
                tell(self.show_position, info)
            except RuntimeError:  # the app closed meanwhile
                return

    def show_position(self, info: SaveInfo) -> None:
        """``info``'s row, once its position is known."""
        self.queued.discard(position_key(info))
        if not self.is_attached:
            return
        table = self.query_one(DataTable)
        key = str(info.path)
        if info not in self.infos or key not in table.rows:
            return
        table.update_cell(key, "state", cell(fit(self.state(info), self.columns.state)))
        if self.highlighted() is info:
            self.show_detail()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        path = self.paths.get(str(event.row_key.value))
        if path is not None:
            open_save(self.app, path, replay=self.mode == "replay")
