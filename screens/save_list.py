"""The load and replay lists: every save, newest first, read without replaying."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any, ClassVar

from textual.app import App, ComposeResult
from textual.binding import BindingType
from textual.coordinate import Coordinate
from textual.screen import Screen
from textual.widgets import DataTable, Static

from tui.widgets import KeysFooter, cell, plain


def when(moment: datetime.datetime | None) -> str:
    """'2026-12-02 17:15', in the machine's local time."""
    if moment is None:
        return "?"
    return moment.astimezone().strftime("%Y-%m-%d %H:%M")


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
    BINDINGS: ClassVar[list[BindingType]] = [("escape", "app.pop_screen", "Back")]

    def __init__(self, mode: str = "load") -> None:
        super().__init__()
        self.mode = mode
        self.paths: dict[str, Path] = {}

    def compose(self) -> ComposeResult:
        title = "Load a game" if self.mode == "load" else "Replay a game"
        yield Static(f"{title}   (Enter opens; * marks a bot)", classes="title")
        yield DataTable(id="saves", cursor_type="row", zebra_stripes=True)
        yield Static("", id="saves-empty")
        yield KeysFooter()

    def on_mount(self) -> None:
        self.refresh_list()

    def on_screen_resume(self) -> None:
        self.refresh_list()

    def refresh_list(self) -> None:
        from saves import list_saves

        table = self.query_one(DataTable)
        # back from a replay or a game: the cursor stays on the save it was on (or its place)
        was = table.cursor_row
        chosen = None
        if table.is_valid_coordinate(Coordinate(was, 0)):
            chosen = table.coordinate_to_cell_key(Coordinate(was, 0)).row_key.value
        table.clear(columns=True)
        table.add_column("Game", width=14)
        table.add_column("Seats", width=24)
        table.add_column("Last played", width=16)
        table.add_column("Moves", width=5)
        table.add_column("State", width=8)
        self.paths.clear()
        infos = list_saves(self.app.save_dir)
        for info in infos:
            if info.error:
                row = (info.path.name, "", when(info.last_played), "", "damaged")
            else:
                seats = ", ".join(s.name + ("*" if s.kind == "bot" else "") for s in info.seats)
                state = "finished" if info.finished else "in play"
                row = (info.title, seats, when(info.last_played), str(info.moves), state)
            key = str(info.path)
            self.paths[key] = info.path
            table.add_row(*(cell(text) for text in row), key=key)  # the seats' names and the file's: text
        self.query_one("#saves-empty", Static).update(plain("" if infos else f"No saves yet in {self.app.save_dir}."))
        if infos:
            keys = [str(info.path) for info in infos]
            row = keys.index(chosen) if chosen in keys else min(was, len(keys) - 1)
            table.move_cursor(row=max(0, row))
            table.focus()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        path = self.paths.get(str(event.row_key.value))
        if path is not None:
            open_save(self.app, path, replay=self.mode == "replay")
