"""The lobby's leaderboard and finished tables (issue 36), at 80x24 and 120x40: every key the
footers show, the player's own row marked, names shown as text (never markup), and a finished
table's replay opened from the list of the player's tables.

The hall is a stand-in answering the lobby's requests as ``net.hall`` does (``ratings``,
``results``, ``log``), the replay it opens of a real finished game; the last test has a real
hall, a table played to its end there, and the real lobby client."""

from __future__ import annotations

import asyncio
import datetime
import os
from pathlib import Path
from typing import Any

import pytest

from net.client import HallClient
from net.hall import NO_RATINGS
from net.hall import Hall as RealHall
from net.protocol import Address
from saves.skill import placings
from screens.app import CabinetApp
from screens.lobby import LobbyScreen
from screens.replay import ReplayScreen
from screens.standings import LeaderboardScreen, ResultsScreen, ordinal, placing, when
from table.spec import BOT, HUMAN, SeatSpec
from tests.test_lobby_80 import USER, crowded, in_lobby, lobby_app
from tests.test_lobby_80 import Hall as ListingHall
from tests.test_ratings import chores_done, finished_match, play_a_table
from tests.tui_helpers import run_async, screen_text
from tui.start import Start

ENDED = datetime.datetime(2026, 12, 6, 23, 41, tzinfo=datetime.UTC).timestamp()
MARKUP = "[b]zed[/b]"  # a name that reads as markup: shown as these characters


def board(game: str) -> list[dict[str, Any]]:
    """A leaderboard as the hall sends it: ann (the user) below the best hundred in L'Agent Jean!."""
    if game == "agent-jean":
        rows = [
            {"rank": 1, "name": "Bot: hard", "rating": 14, "games": 31},
            {"rank": 2, "name": "bartholomew", "rating": 9, "games": 12},
            {"rank": 2, "name": MARKUP, "rating": 9, "games": 4},
            {"rank": 4, "name": "Bot: normal", "rating": 6, "games": 20},
            {"rank": 5, "name": "Bot: random", "rating": -3, "games": 18},
        ]
        return [*rows, {"rank": 117, "name": USER, "rating": -5, "games": 2}]
    if game == "ministeres":
        return [
            {"rank": 1, "name": USER, "rating": 3, "games": 1},
            {"rank": 2, "name": "bob", "rating": -2, "games": 1},
        ]
    return []


def results() -> list[dict[str, Any]]:
    return [
        {
            "id": "k7f3mb",
            "game": "agent-jean",
            "title": "L'Agent Jean!",
            "ended": ENDED,
            "seats": [[USER, 1], ["Bot: hard", 2], [MARKUP, 3]],
            "place": 1,
        },
        {
            "id": "p2q9rt",
            "game": "chirac-mitterrand",
            "title": "1988: Chirac contre Mitterrand",
            "ended": ENDED - 86400 * 3,
            "seats": [["bartholomew", 1], [USER, 2]],
            "place": 2,
        },
        {
            "id": "m4m4m4",
            "game": "ministeres",
            "title": "Ministères",
            "ended": ENDED - 86400 * 9,
            "seats": [[USER, 1], ["bob", 1], ["Bot: normal", 3], ["Bot: easy", 4], ["cy", 5]],
            "place": 1,
        },
    ]


def the_log() -> dict[str, Any]:
    """The log of a real finished table, as the hall's ``log`` request answers."""
    match = finished_match(
        "agent-jean", [SeatSpec(HUMAN, None, USER), SeatSpec(BOT, "hard", "Bot 2"), SeatSpec(BOT, "random", "Bot 3")]
    )
    moves = [[m.seat, m.command, match.events[m.start : m.end]] for m in match.moves]
    return {"ok": True, "header": match.header, "moves": moves}


class Hall(ListingHall):
    """The lobby's stand-in hall, answering the requests for ratings, results and a table's log."""

    def __init__(self, tables: list[dict[str, Any]], failing: bool = False, empty: bool = False) -> None:
        super().__init__(tables)
        self.asked: list[dict[str, Any]] = []
        self.failing = failing
        self.empty = empty

    async def request(self, message: dict[str, Any]) -> dict[str, Any]:
        self.asked.append(message)
        await asyncio.sleep(0)
        if self.failing:
            return {"ok": False, "message": NO_RATINGS}
        if message["t"] == "ratings":
            return {"ok": True, "game": message["game"], "rows": [] if self.empty else board(message["game"])}
        if message["t"] == "results":
            return {"ok": True, "tables": [] if self.empty else results()}
        if message["t"] == "log":
            return (
                the_log()
                if message["table"] == "k7f3mb"
                else {"ok": False, "message": "There is no such table (any more)."}
            )
        return {"ok": False, "message": "Unknown request."}


async def settled(pilot, screen_type) -> Any:
    for _ in range(200):
        await pilot.pause(0.01)
        screen = pilot.app.screen
        busy = any(w.is_running and w.group in ("standings", "lobby-request") for w in pilot.app.workers)
        if isinstance(screen, screen_type) and not busy:
            await pilot.pause()
            return screen
    raise AssertionError(f"{screen_type.__name__} did not settle: {type(pilot.app.screen).__name__}")


def footer(app) -> str:
    return screen_text(app).splitlines()[-1]


# -- the pure parts -------------------------------------------------------------------------------------


def test_placings_read_as_a_player_says_them() -> None:
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st", "111th",
    ]  # fmt: skip
    assert placing(1, [["a", 1], ["b", 2], ["c", 3]]) == "1st of 3"
    assert placing(2, [["a", 1], ["b", 2], ["c", 2], ["d", 4]]) == "shared 2nd of 4"
    assert placing(None, [["a", 1], ["b", 2]]) == "—"
    assert when(ENDED) == "2026-12-06 23:41" and when("garbage") == "—" and when(1e300) == "—"


# -- Pilot: every key --------------------------------------------------------------------------------------


@run_async
async def test_the_leaderboard_from_the_lobby_marks_your_row_and_goes_through_the_games() -> None:
    hall = Hall(crowded())
    app = lobby_app(hall)
    async with app.run_test(size=(80, 24)) as pilot:
        await in_lobby(pilot, app)
        for _ in range(100):  # (the footer's keys come in a frame after the lobby's rows)
            if footer(app).strip():
                break
            await pilot.pause(0.02)
        assert footer(app).rstrip().endswith("b Ratings  ? Rules  q Quit")  # every lobby key shows at 80
        await pilot.press("b")
        leaderboard = await settled(pilot, LeaderboardScreen)
        assert hall.asked[-1] == {"t": "ratings", "game": "agent-jean"}  # the game under the cursor
        text = screen_text(app)
        lines = text.splitlines()
        assert lines[0].startswith(" Leaderboard · L'Agent Jean!") or "Leaderboard · L'Agent Jean!" in lines[0]
        assert any("Bot: hard" in line and "14" in line and "31" in line for line in lines)
        assert any(MARKUP in line for line in lines)  # the name as typed, not bold "zed"
        mine = next(line for line in lines if f" {USER} " in line)
        assert "▶" in mine and "117" in mine and "-5" in mine  # ann's own row, marked, below the best
        # the cursor starts on the player's own row, and the line under the list says it
        assert "You: rank 117, rating -5 after 2 tables." in " ".join(text.split())
        keys = footer(app)
        assert "←→ Game" in keys and "f Your tables" in keys and "q Back" in keys
        await pilot.press("right")
        await settled(pilot, LeaderboardScreen)
        assert hall.asked[-1]["game"] != "agent-jean"
        shown = [hall.asked[-1]["game"]]
        for _ in range(len(leaderboard.games) - 1):
            await pilot.press("right")
            await settled(pilot, LeaderboardScreen)
            shown.append(hall.asked[-1]["game"])
        assert shown[-1] == "agent-jean" and sorted(set(shown)) == sorted(leaderboard.games)  # round again
        await pilot.press("left")
        await settled(pilot, LeaderboardScreen)
        assert hall.asked[-1]["game"] == leaderboard.games[-1]
        # a game nobody has finished a table of says so
        while leaderboard.game in ("agent-jean", "ministeres"):
            await pilot.press("left")
            await settled(pilot, LeaderboardScreen)
        assert "has been rated yet: finish one to be the first." in " ".join(screen_text(app).split())
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, LobbyScreen)
        await pilot.press("b", "escape")
        await pilot.pause()
        assert isinstance(app.screen, LobbyScreen)
        # f goes to the player's tables in the leaderboard's place, b back; q is the lobby again
        await pilot.press("b")
        await settled(pilot, LeaderboardScreen)
        await pilot.press("f")
        await settled(pilot, ResultsScreen)
        assert hall.asked[-1] == {"t": "results"}
        await pilot.press("down", "b")  # the leaderboard of the game of the table under the cursor
        await settled(pilot, LeaderboardScreen)
        assert hall.asked[-1] == {"t": "ratings", "game": "chirac-mitterrand"}
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, LobbyScreen) and len(app.screen_stack) == 2


async def open_results(pilot) -> ResultsScreen:
    await in_lobby(pilot, pilot.app)
    await pilot.press("b")
    await settled(pilot, LeaderboardScreen)
    await pilot.press("f")
    return await settled(pilot, ResultsScreen)


@run_async
async def test_your_finished_tables_say_when_what_who_and_your_place_and_open_a_replay() -> None:
    hall = Hall(crowded())
    app = lobby_app(hall)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_results(pilot)
        assert hall.asked[-1] == {"t": "results"}
        lines = screen_text(app).splitlines()
        first = next(line for line in lines if "2026-12-06 23:41" in line)
        assert "L'Agent Jean!" in first and "you, Bot: hard" in first and first.rstrip().endswith("1st of 3")
        second = next(line for line in lines if "2026-12-03" in line)
        assert second.rstrip().endswith("2nd of 2")
        third = next(line for line in lines if "2026-11-27" in line)
        assert third.rstrip().endswith("shared 1st of 5")
        text = " ".join(screen_text(app).split())
        assert f"1st you 2nd Bot: hard 3rd {MARKUP}" in text.replace("   ", " ")
        assert "Table k7f3mb: r replays it" in text
        keys = footer(app)
        assert "r Replay" in keys and "b Leaderboard" in keys and "q Back" in keys
        # r on a table that is gone says why, in a sentence, and stays
        await pilot.press("down")
        await pilot.pause()
        assert screen.current_index() == 1
        await pilot.press("r")
        await settled(pilot, ResultsScreen)
        said = [n.message for n in app._notifications]
        assert "There is no such table (any more)." in said
        assert app.screen is screen
        # Enter on the first opens its replay, everything revealed
        await pilot.press("up", "enter")
        replay = await settled(pilot, ReplayScreen)
        assert hall.asked[-1] == {"t": "log", "table": "k7f3mb"}
        assert replay.match.outcome is not None
        await pilot.press("q")
        await settled(pilot, ResultsScreen)
        await pilot.press("r")
        await settled(pilot, ReplayScreen)
        await pilot.press("q")
        await settled(pilot, ResultsScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, LobbyScreen)


@run_async
async def test_no_results_yet_and_ratings_out_of_reach_are_said_in_a_sentence() -> None:
    hall = Hall(crowded(), empty=True)
    app = lobby_app(hall)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_results(pilot)
        assert "You have no finished table yet" in screen_text(app)
        assert "r Replay" not in footer(app)  # nothing to replay: no key
        await pilot.press("r", "enter")  # and they do nothing
        await pilot.pause()
        assert isinstance(app.screen, ResultsScreen) and hall.asked[-1] == {"t": "results"}
        await pilot.press("q")
        hall.failing = True
        await pilot.press("b")
        await settled(pilot, LeaderboardScreen)
        assert "The ratings cannot be read just now; try again in a moment." in screen_text(app)
        await pilot.press("f")
        await settled(pilot, ResultsScreen)
        assert "The ratings cannot be read just now; try again in a moment." in screen_text(app)


# -- snapshots ------------------------------------------------------------------------------------------------

SIZES = [(80, 24), (120, 40)]


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_snapshot_leaderboard(snap_compare, size) -> None:
    async def open_it(pilot) -> None:
        await in_lobby(pilot, pilot.app)
        await pilot.press("b")
        await settled(pilot, LeaderboardScreen)

    assert snap_compare(lobby_app(Hall(crowded())), terminal_size=size, run_before=open_it)


@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_snapshot_finished_tables(snap_compare, size) -> None:
    async def open_it(pilot) -> None:
        await open_results(pilot)
        await pilot.press("down", "down")  # the table of five, a shared first place
        await pilot.pause()

    assert snap_compare(lobby_app(Hall(crowded())), terminal_size=size, run_before=open_it)


# -- the real hall ------------------------------------------------------------------------------------------


def test_a_finished_table_on_a_real_hall_shows_in_the_leaderboard_and_replays_from_your_tables(tmp_path: Path) -> None:
    """ann plays a random bot to the end at a real hall; her lobby's leaderboard then has her and
    "Bot: random", one above the other as the table ended, and her tables list it and replay it."""

    async def run() -> None:
        hall = RealHall(tmp_path, bot_delay=0.0)
        await hall.start()
        try:
            table_id = await play_a_table(hall)
            match = hall.tables[table_id].match
            assert match is not None and match.outcome is not None
            ann_place, bot_place = placings(match.outcome, 2)  # a shared victory is possible
            await chores_done(hall)  # the table rated
            client = HallClient(Address(path=hall.socket_path), hall.open_session(USER))
            app = CabinetApp(Path(os.devnull), Start(mode="lobby", remote=client), bot_delay=0)
            async with app.run_test(size=(80, 24)) as pilot:
                lobby = await in_lobby(pilot, app)
                assert lobby.current() is not None and lobby.current()["id"] == table_id
                await pilot.press("b")
                await settled(pilot, LeaderboardScreen)
                lines = screen_text(app).splitlines()
                ranked = [line for line in lines if "Bot: random" in line or f" {USER} " in line]
                assert len(ranked) == 2, lines
                mine = next(line for line in ranked if USER in line)
                bots = next(line for line in ranked if "Bot: random" in line)
                assert "▶" in mine and (mine.split()[1], bots.split()[0]) == (str(ann_place), str(bot_place))
                assert ranked[0] == (mine if ann_place < bot_place else bots)  # equals in name order
                await pilot.press("f")
                await settled(pilot, ResultsScreen)
                row = next(line for line in screen_text(app).splitlines() if "L'Agent Jean!" in line)
                shared = "shared " if ann_place == bot_place else ""
                assert "you, Bot: random" in row and row.rstrip().endswith(f"{shared}{ordinal(ann_place)} of 2")
                await pilot.press("enter")
                replay = await settled(pilot, ReplayScreen)
                assert replay.match.outcome == match.outcome
                assert len(replay.match.events) == len(match.events)
                await pilot.press("q")
                await settled(pilot, ResultsScreen)
                await pilot.press("q")
                await pilot.pause()
                assert app.screen is lobby
        finally:
            await hall.close()

    asyncio.run(run())


# -- contrast ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("colours", ["colour", "NO_COLOR"])
@pytest.mark.parametrize("view", ["leaderboard", "tables"])
def test_the_leaderboard_and_your_tables_keep_their_contrast_in_every_colour_mode(
    monkeypatch: pytest.MonkeyPatch, view: str, colours: str
) -> None:
    """Measured as tests/test_contrast.py measures every screen: each text run against 4.5:1,
    in truecolor, 256 and 16 colours, with and without NO_COLOR."""
    from tests.test_contrast import MINIMUM, SYSTEMS, too_faint

    if colours == "NO_COLOR":
        monkeypatch.setenv("NO_COLOR", "1")
    else:
        monkeypatch.delenv("NO_COLOR", raising=False)

    async def measure() -> dict[str, list[Any]]:
        app = lobby_app(Hall(crowded()))
        async with app.run_test(size=(80, 24)) as pilot:
            if view == "leaderboard":
                await in_lobby(pilot, app)
                await pilot.press("b")
                await settled(pilot, LeaderboardScreen)
                await pilot.press("up")  # the cursor off the player's own row: both are measured
            else:
                await open_results(pilot)
            await pilot.pause()
            return {system: too_faint(app, SYSTEMS[system]) for system in SYSTEMS}

    faint = asyncio.run(measure())
    said = [f"{system} colours: {run}" for system, found in faint.items() for run in found]
    assert not said, f"{view} ({colours}): text below {MINIMUM}:1\n" + "\n".join(said)
