"""The Load and Replay lists (issue 34, items 7 and 8): each row tells its game apart
(whose move, how many moves, when started and last played, a fork's origin, a game
played elsewhere right now) and fits 80 columns, every name whole or visibly cut."""

from __future__ import annotations

import datetime
import os
import time
from pathlib import Path

import pytest
from rich.cells import cell_len
from textual.widgets import DataTable

import saves.store
from core.engine import Match
from saves import SaveWriter, list_saves, load
from saves.format import rewrite, who_holds
from screens.app import CabinetApp
from screens.save_list import SaveListScreen, fit, seats_fit, when_short
from table import Table
from table.spec import BOT, HUMAN, SeatSpec, TableSpec
from tests.tui_helpers import run_async, screen_text, settle
from tui.session import fork

#: every save of the list was played in 2025: its dates are shown with their year, whenever the tests run
T0 = datetime.datetime(2025, 3, 14, 9, 0, tzinfo=datetime.UTC)
QUARTET = ["Ada", "Bastien", "Chloé", "Denis"]


@pytest.fixture(autouse=True)
def utc(monkeypatch):
    """The dates as a machine set to UTC shows them (the list shows local time)."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def played(game_id: str, names: list[str], bots: set[int], moves: int | None, seed: int) -> Match:
    """A game of ``game_id`` with ``moves`` moves made by random bots (None: to its end)."""
    seats = [SeatSpec(BOT if i in bots else HUMAN, "easy" if i in bots else None, n) for i, n in enumerate(names)]
    match = TableSpec(game_id, len(names), seats, {}, seed=seed, bot_seed=seed).build()
    table = Table(match)
    count = 0
    while match.outcome is None and (moves is None or count < moves):
        seat = match.active()[0]
        assert table.submit(seat, table.bot_move(seat, level="random")) is None
        count += 1
    return match


def write(path: Path, match: Match, start: datetime.datetime) -> Path:
    """``match`` saved at ``path`` as if started at ``start``, a move a minute."""
    match.header["created"] = start.isoformat(timespec="seconds")
    times = [(start + datetime.timedelta(minutes=i)).isoformat(timespec="seconds") for i in range(len(match.moves))]
    rewrite(path, match, times)
    return path


def shelf(directory: Path) -> dict[str, Path]:
    """Four games of L'Agent Jean! between the same four players, a 1988 game and a game
    played on from its third move, a finished 5-player Ministères with a long name, and
    a damaged file."""
    paths = {}
    for k, moves in enumerate((10, 17, 24, 31)):
        match = played("agent-jean", QUARTET, {1, 2}, moves, seed=k)
        paths[f"aj{k}"] = write(directory / f"aj{k}.cab", match, T0 + datetime.timedelta(days=k))
    chirac = played("chirac-mitterrand", ["Ada", "Bastien"], {1}, 6, seed=9)
    paths["chirac"] = write(directory / "chirac.cab", chirac, T0 + datetime.timedelta(days=5))
    forked = fork(chirac, chirac.events_after_moves(3), parent="chirac.cab")
    paths["fork"] = write(directory / "chirac-fork.cab", forked, T0 + datetime.timedelta(days=6))
    names = ["Bartholomew-Maximilian", "Bastien", "Chloé", "Denis", "Elsa"]
    ministeres = played("ministeres", names, {4}, None, seed=3)
    paths["ministeres"] = write(directory / "ministeres.cab", ministeres, T0 - datetime.timedelta(days=30))
    broken = directory / "broken.cab"
    broken.write_bytes(b"CABINET\x00SAVE\x00\x02not a save at all")
    os.utime(broken, ((T0 - datetime.timedelta(days=60)).timestamp(),) * 2)
    paths["broken"] = broken
    return paths


def rows(app: CabinetApp) -> list[list[str]]:
    table = app.screen.query_one(DataTable)
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


def columns(app: CabinetApp) -> list[str]:
    return [str(c.label) for c in app.screen.query_one(DataTable).columns.values()]


async def open_list(pilot, mode: str = "load") -> SaveListScreen:
    screen = SaveListScreen(mode)
    await pilot.app.push_screen(screen)
    await settle(pilot)  # every game in play replayed for whose move it is
    return screen


# -- the pieces ---------------------------------------------------------------------


def test_fit_cuts_visibly_and_only_when_it_must() -> None:
    assert fit("L'Agent Jean!", 14) == "L'Agent Jean!"
    assert fit("1988: Chirac contre Mitterrand", 16) == "1988: Chirac co…"
    assert cell_len(fit("漢字漢字漢字", 7)) <= 7 and fit("漢字漢字漢字", 7).endswith("…")


def test_seats_fit_shows_whole_names_then_how_many_more(tmp_path: Path) -> None:
    match = played("agent-jean", ["Ada", "Bastien", "Chloé", "Denis", "Elsa"], {1, 2}, 0, seed=1)
    write(tmp_path / "g.cab", match, T0)
    [info] = list_saves(tmp_path)
    assert seats_fit(info, 40) == "Ada, Bastien*, Chloé*, Denis, Elsa"
    assert seats_fit(info, 18) == "Ada, Bastien*, +3"
    assert seats_fit(info, 8) == "Ada, +4"
    assert seats_fit(info, 5) == "A… +4"


def test_dates_are_short_and_say_the_year_of_another_year() -> None:
    now = datetime.datetime(2026, 6, 1, tzinfo=datetime.UTC)
    assert when_short(datetime.datetime(2026, 3, 14, 9, 5, tzinfo=datetime.UTC), now) == "14 Mar 09:05"
    assert when_short(datetime.datetime(2025, 3, 14, 9, 5, tzinfo=datetime.UTC), now) == "14 Mar 2025"
    assert when_short(None, now) == "?"


# -- the listing reads a save once, and tells a fork's origin ---------------------------


def test_a_fork_says_where_it_was_played_on_from(tmp_path: Path) -> None:
    paths = shelf(tmp_path)
    infos = {info.path: info for info in list_saves(tmp_path)}
    fork_info = infos[paths["fork"]]
    assert fork_info.parent == "chirac.cab" and fork_info.forked_at is not None
    assert infos[paths["chirac"]].parent is None


def test_a_save_unchanged_since_it_was_listed_is_not_read_again(tmp_path: Path, monkeypatch) -> None:
    paths = shelf(tmp_path)
    long_ago = time.time() - 3600
    for path in paths.values():
        os.utime(path, (long_ago, long_ago))
    known: dict = {}
    first = list_saves(tmp_path, known=known)
    read: list[Path] = []
    real = saves.store.save_info

    def counted(path, games=None):
        read.append(Path(path))
        return real(path, games)

    monkeypatch.setattr(saves.store, "save_info", counted)
    assert list_saves(tmp_path, known=known) == first and read == []
    # a move more: that save, and only it, is read again
    match = load(paths["aj0"]).match
    with SaveWriter.resume(load(paths["aj0"])) as writer:
        table = Table(writer.match, writer)
        seat = match.active()[0]
        assert table.submit(seat, table.bot_move(seat, level="random")) is None
    again = list_saves(tmp_path, known=known)
    assert read == [paths["aj0"]]
    assert {i.path: i.moves for i in again}[paths["aj0"]] == 11
    # a save written less than a second before it was read is read again (its clock's tick may hide a change)
    read.clear()
    list_saves(tmp_path, known=known)
    assert read == [paths["aj0"]]
    assert set(known) == set(paths.values())


def test_who_holds_a_save_is_said_while_it_is_held(tmp_path: Path) -> None:
    paths = shelf(tmp_path)
    assert who_holds(paths["aj1"]) is None
    with SaveWriter.resume(load(paths["aj1"])):
        assert "is playing this game already" in (who_holds(paths["aj1"]) or "")
    assert who_holds(paths["aj1"]) is None


# -- the list on the screen ---------------------------------------------------------------


@run_async
async def test_four_games_alike_are_told_apart_and_a_fork_from_its_original(tmp_path: Path) -> None:
    paths = shelf(tmp_path)
    app = CabinetApp(save_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_list(pilot)
        listed = rows(app)
        assert columns(app) == ["Game", "Players", "Moves", "Last played", "State"]
        by_moves = {row[2]: row for row in listed if row[0] == "L'Agent Jean!"}
        assert sorted(by_moves, key=int) == ["10", "17", "24", "31"]
        for moves, row in by_moves.items():
            match = load(paths[f"aj{['10', '17', '24', '31'].index(moves)}"]).match
            [seat] = match.active()
            name = QUARTET[seat] + ("*" if seat in (1, 2) else "")
            assert row[4] == f"{name} to play"  # whose move it is, in the row
            assert row[1] == "Ada, Bastien*, +2"
        # the newest first; the last played a move a minute after each start
        assert [row[3] for row in listed[:2]] == ["20 Mar 2025", "19 Mar 2025"]
        fork_row, chirac_row = listed[0], listed[1]
        assert fork_row[0] == "↳ 1988: Chirac…" and chirac_row[0] == "1988: Chirac c…"
        assert fork_row[2] == "3" and chirac_row[2] == "6"
        # the highlighted save, said whole under the list
        text = screen_text(app)
        assert "1988: Chirac contre Mitterrand: Ada (human), Bastien (bot, easy)" in text
        assert "↳ Played on from move 3 of the game started 2025-03-19 09:00 (chirac.cab)." in text
        assert "Started 2025-03-20 09:00 · last played 2025-03-20 09:03 · 3 moves" in text
        await pilot.press("down")
        assert "Started 2025-03-19 09:00 · last played 2025-03-19 09:06 · 6 moves" in screen_text(app)
        assert "Played on from" not in screen_text(app)
        assert screen.highlighted().path == paths["chirac"]


@run_async
async def test_every_cell_is_whole_or_visibly_cut_at_80_columns(tmp_path: Path) -> None:
    paths = shelf(tmp_path)
    infos = {info.path: info for info in list_saves(tmp_path)}
    app = CabinetApp(save_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_list(pilot)
        table = app.screen.query_one(DataTable)
        for i, listed in enumerate(app.screen.infos):
            row = [str(c) for c in table.get_row_at(i)]
            info = infos[listed.path]
            if info.error is None:
                title = ("↳ " if info.parent else "") + info.title
                assert row[0] == title or (row[0].endswith("…") and title.startswith(row[0][:-1]))
                names = [s.name + ("*" if s.kind == "bot" else "") for s in info.seats]
                if row[1] != ", ".join(names):  # whole names, the last one perhaps cut, then how many more
                    shown, _, more = row[1].rpartition("+")
                    pieces = shown.rstrip(", ").split(", ")
                    assert int(more) == len(names) - len(pieces)
                    for piece, name in zip(pieces, names, strict=False):
                        assert piece == name or (piece.endswith("…") and name.startswith(piece[:-1]))
            for value, column in zip(row, table.columns.values(), strict=True):
                assert cell_len(value) <= column.width, (value, column.width)
        # the long name: cut with a sign, and whole under the list
        row = next(r for r in rows(app) if r[0] == "Ministères")
        assert row[1].startswith("Bartholomew-") and row[1].endswith("… +4")
        await pilot.press(*["down"] * [info.path for info in app.screen.infos].index(paths["ministeres"]))
        assert "Bartholomew-Maximilian (human)" in screen_text(app)
        assert "won by" in rows(app)[[i.path for i in app.screen.infos].index(paths["ministeres"])][4]
        # the damaged file: said so in the row, and why under it
        assert rows(app)[-1][0] == "broken.cab" and rows(app)[-1][4] == "damaged"
        await pilot.press(*["down"] * len(app.screen.infos))
        assert "broken.cab is damaged" in screen_text(app)


@run_async
async def test_a_wider_terminal_shows_when_each_game_started(tmp_path: Path) -> None:
    shelf(tmp_path)
    app = CabinetApp(save_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_list(pilot)
        assert "Started" not in columns(app)
        await pilot.resize_terminal(120, 40)
        await settle(pilot)
        assert columns(app) == ["Game", "Players", "Moves", "Started", "Last played", "State"]
        assert rows(app)[1][0] == "1988: Chirac contre Mitterrand"  # whole, at 120 columns
        assert rows(app)[1][3] == "19 Mar 2025"
        # the state's column gives way to names that would be cut: the four players whole
        quartets = [row for row in rows(app) if row[0] == "L'Agent Jean!"]
        assert quartets and all(row[1] == "Ada, Bastien*, Chloé*, Denis" for row in quartets), quartets
        assert all(row[5].endswith(" to play") and "…" not in row[5] for row in quartets)


@run_async
async def test_a_game_played_elsewhere_says_so_before_enter(tmp_path: Path) -> None:
    paths = shelf(tmp_path)
    index = [info.path for info in list_saves(tmp_path)].index(paths["aj2"])
    with SaveWriter.resume(load(paths["aj2"])):  # another Cabinet plays it meanwhile
        for mode in ("load", "replay"):
            app = CabinetApp(save_dir=tmp_path)
            async with app.run_test(size=(80, 24)) as pilot:
                screen = await open_list(pilot, mode)
                assert rows(app)[index][4] == "played elsewhere"
                await pilot.press(*["down"] * index)
                text = " ".join(screen_text(app).split())  # (the line under the list wraps)
                assert "is playing this game already" in text
                assert ("It can be replayed, not played on, meanwhile." in text) == (mode == "load")
                await pilot.press("enter")
                await settle(pilot)
                if mode == "load":  # refused, in the sentence the row said already
                    assert app.screen is screen
                else:
                    assert type(app.screen).__name__ == "ReplayScreen"
    # let go: the list says so the next time it looks
    app = CabinetApp(save_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_list(pilot)
        assert rows(app)[index][4].endswith(" to play")


@run_async
async def test_a_finished_game_shown_elsewhere_is_not_said_played_there(tmp_path: Path) -> None:
    """A window at a game's end holds its save: the list said "played elsewhere", and "is
    playing this game already", of a game nobody can play any more (a play-test)."""
    paths = shelf(tmp_path)
    index = [info.path for info in list_saves(tmp_path)].index(paths["ministeres"])
    with SaveWriter.resume(load(paths["ministeres"])):  # its game over, shown in another window
        app = CabinetApp(save_dir=tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await open_list(pilot)
            assert rows(app)[index][4].startswith("won by ")
            await pilot.press(*["down"] * index)
            assert "is playing this game already" not in " ".join(screen_text(app).split())


@run_async
async def test_the_list_follows_a_game_played_elsewhere(tmp_path: Path) -> None:
    paths = shelf(tmp_path)
    app = CabinetApp(save_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_list(pilot)
        index = [info.path for info in screen.infos].index(paths["aj0"])
        assert rows(app)[index][2] == "10"
        with SaveWriter.resume(load(paths["aj0"])) as writer:
            screen.look_again()
            await settle(pilot)
            assert rows(app)[index][4] == "played elsewhere"
            table = Table(writer.match, writer)
            seat = writer.match.active()[0]
            assert table.submit(seat, table.bot_move(seat, level="random")) is None
        screen.look_again()
        await settle(pilot)
        index = [info.path for info in screen.infos].index(paths["aj0"])
        assert rows(app)[index][2] == "11" and rows(app)[index][4].endswith(" to play")


def shelf_app(tmp_path: Path) -> CabinetApp:
    shelf(tmp_path)
    return CabinetApp(save_dir=tmp_path)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_snapshot_load_list(snap_compare, tmp_path: Path, size) -> None:
    async def load_list(pilot) -> None:
        await pilot.press("down", "down", "enter")  # Load a game
        await settle(pilot)

    assert snap_compare(shelf_app(tmp_path), terminal_size=size, run_before=load_list)


@run_async
async def test_saves_written_before_these_rows_show_what_they_can(tmp_path: Path) -> None:
    """Saves an older Cabinet wrote (no fork, no field added for the list): listed, whose
    move or who won said, and opened as before."""
    data = Path(__file__).parent / "data"
    for name in ("agent-jean-main-bots.cab", "agent-jean-main-tie.cab"):
        (tmp_path / name).write_bytes((data / name).read_bytes())
    app = CabinetApp(save_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_list(pilot, "replay")
        states = {info.path.name: row[4] for info, row in zip(screen.infos, rows(app), strict=True)}
        assert states["agent-jean-main-bots.cab"].startswith("won by ")
        assert states["agent-jean-main-tie.cab"].endswith(" to play")
        await pilot.press("enter")
        await settle(pilot)
        assert type(app.screen).__name__ == "ReplayScreen"
