"""The history panel builds the lines it shows (issue 35): the newest chunk of events at
first, under a line that says how many came before; ↑ onto that line (or a click) builds
the chunk before it, and a replay going back builds them as far as it goes.  In the end
the lines are those of every event, as before.

The chunk is made small here (``tui.widgets.HISTORY_CHUNK``) so that a short game has
several."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from saves import load
from screens.app import CabinetApp
from screens.play import PlayScreen
from screens.replay import ReplayScreen
from table import Table, feed
from tests.tui_helpers import agent_jean_match, app_for, run_async, screen_text, settle
from tui import widgets
from tui.session import start_save
from tui.widgets import HistoryPanel

CHUNK = 12


@pytest.fixture(autouse=True)
def small_chunks(monkeypatch) -> None:
    monkeypatch.setattr(widgets, "HISTORY_CHUNK", CHUNK)
    monkeypatch.setattr(feed, "HISTORY_CHUNK", CHUNK)  # a table's first update to a seat: its newest events


def saved_game(tmp_path: Path, moves: int = 40, humans: int = 1):
    match = agent_jean_match(humans=humans, players=3, seed=5)
    writer = start_save(tmp_path, match, durable=False)
    table = Table(match, writer)
    for _ in range(moves):
        seat = match.active()[0]
        assert table.submit(seat, table.bot_move(seat)) is None
    return writer


def built(history: HistoryPanel) -> list[tuple[int, str, str | None]]:
    """The lines built, as (events after it, text, mark), the line that stands for the rest left out."""
    first = 1 if history.more else 0
    return [(n, text, mark) for n, (text, mark) in zip(history.event_index[first:], history.texts[first:], strict=True)]


def replay_app(tmp_path: Path, at: int | None = None) -> tuple[CabinetApp, Callable]:
    """The app, and what opens its replay (after ``at`` moves)."""
    writer = saved_game(tmp_path)
    writer.close()
    match = load(writer.path).match
    app = CabinetApp(save_dir=tmp_path)

    async def open_it(pilot) -> None:
        await pilot.pause()
        app.open_replay(match, writer.path, at=at)
        await pilot.pause()
        await pilot.pause()

    return app, open_it


def every_line(app: CabinetApp) -> list:
    """Every line of the history of the replay on top, as its viewer saw the game."""
    screen = app.screen
    assert isinstance(screen, ReplayScreen)
    return Table(screen.match).history(screen.viewer)


@run_async
async def test_a_replay_builds_the_newest_lines_then_the_rest_as_it_goes_back(tmp_path: Path) -> None:
    app, open_it = replay_app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_it(pilot)
        every = every_line(app)
        assert isinstance(app.screen, ReplayScreen)
        history = app.screen.query_one(HistoryPanel)
        total = app.screen.match.events.__len__()
        assert history.more and history.built_from == total - CHUNK
        assert built(history) == [line for line in every if line[0] > total - CHUNK]
        assert f"{total - CHUNK:,} earlier events" in screen_text(app) or history.scroll_y > 0
        for _ in range(6):  # back a move at a time: lines built as the replay reaches them
            await pilot.press("left")
        await pilot.pause()
        position = app.screen.position
        assert history.built_from <= position
        assert history.event_index[history.highlighted] <= position
        await pilot.press("home")  # the start: every line
        await pilot.pause()
        assert not history.more and built(history) == every
        assert history.highlighted == app.screen.line_for(app.screen.position)


@run_async
async def test_up_onto_the_first_line_builds_the_chunk_before_and_steps_onto_its_last_line(tmp_path: Path) -> None:
    writer = saved_game(tmp_path)
    app = app_for(tmp_path, writer)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, PlayScreen)
        history = screen.query_one(HistoryPanel)
        every = Table(writer.match).history(0)
        assert history.more and built(history) == [line for line in every if line[0] > history.built_from]
        # the seat was told the newest events only: the others are taken in as the history reaches them
        log, n = screen.knows, len(writer.match.events)
        assert len(log.events) == n and log.base == n - CHUNK >= history.built_from
        assert log.events[: log.base] == [None] * log.base and None not in log.events[log.base :]
        await pilot.press("h")  # into the history, on its newest line
        first_built = history.event_index[1]
        await pilot.press(*["up"] * (history.option_count - 2))  # onto the first line built
        await pilot.pause()
        assert history.highlighted == 1 and screen.browsing == first_built
        await pilot.press("up")  # onto the line standing for the rest: the chunk before comes
        await pilot.pause()
        assert history.event_index[history.highlighted + 1] == first_built
        assert screen.browsing == history.event_index[history.highlighted] < first_built
        while history.more:
            await pilot.press(*["up"] * (history.highlighted or 1))
            await pilot.pause()
        assert built(history) == every  # every line, as before issue 35
        assert log.base == 0 and log.events == [event for _, event in Table(writer.match).redacted(0)]
        await pilot.press(*["up"] * (history.highlighted + 1))  # up to the first, and no further
        await pilot.pause()
        assert history.highlighted == 0 and screen.browsing == every[0][0]
        await pilot.press("escape")  # back to play: the newest line again
        await pilot.pause()
        assert screen.browsing is None and history.highlighted is None


@run_async
async def test_a_click_on_the_first_line_builds_the_chunk_before(tmp_path: Path) -> None:
    app, open_it = replay_app(tmp_path, at=24)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_it(pilot)
        every = every_line(app)
        history = app.screen.query_one(HistoryPanel)
        assert history.more
        before = history.built_from
        history.scroll_to(y=0, animate=False, immediate=True)
        await pilot.pause()
        await pilot.click(HistoryPanel, offset=(4, 1))
        await pilot.pause()
        assert history.built_from < before
        assert built(history) == [line for line in every if line[0] > history.built_from]


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_snapshot_the_line_that_stands_for_the_earlier_events(snap_compare, tmp_path: Path, size) -> None:
    """A replay gone back to move 24 of a 40-move game of three: the history's first line
    says how many events are not built yet, above the lines that are."""
    app, open_it = replay_app(tmp_path, at=24)
    assert snap_compare(app, terminal_size=size, run_before=open_it)


@run_async
async def test_the_start_of_a_replay_shows_the_first_lines_and_highlights_none(tmp_path: Path) -> None:
    """Home: the game as its first move found it; the history's first lines (the setup's) in
    view, not left above the panel's top under the highlighted line."""
    app, open_it = replay_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_it(pilot)
        replay = app.screen
        assert isinstance(replay, ReplayScreen)
        history = replay.query_one(HistoryPanel)
        await pilot.press("home")
        await pilot.pause()
        await pilot.pause()
        assert replay.position == replay.first
        assert history.highlighted == replay.line_for(replay.position) and history.scroll_y == 0
        assert every_line(app)[0][1][:17] in screen_text(app)  # "Round 1: 12 cards"
        await pilot.press("right")  # a move on: its line highlighted again
        await pilot.pause()
        assert history.highlighted == replay.line_for(replay.position) is not None


def test_news_marks_are_drawn_on_their_lines_and_only_those_are_drawn_again() -> None:
    """Marking the news (a "• " before each line since the player's move) replaces those lines'
    prompts: the panel shows them marked, unmarks them later, and a line the mark makes wrap
    onto a second line moves the lines after it; the other lines are not measured nor drawn
    again (Textual's OptionList did that for every line at each replaced prompt)."""
    from textual.app import App, ComposeResult

    class Host(App[None]):
        CSS = "HistoryPanel { height: 14; }"

        def compose(self) -> ComposeResult:
            yield HistoryPanel(id="history")

    async def run() -> None:
        app = Host()
        async with app.run_test(size=(30, 16)) as pilot:
            history = app.query_one(HistoryPanel)
            long = "Chloé plays the Duc de Gui"  # as wide as the panel's lines: "• " makes it wrap
            before = [(n, f"Ann bids {n}.", "turn") for n in range(1, 7)]
            history.append_lines([*before, (7, "Bob passes.", "turn"), (8, long, "turn")])
            await pilot.pause()
            history.mark_news(6)  # the last two lines are news
            await pilot.pause()
            text = screen_text(app)
            assert "• Bob passes." in text and "• Ann" not in text and "Ann bids 6." in text
            assert "• Chloé plays the Duc de" in text and "Gui" in text.split("Duc de", 1)[1]  # wrapped, whole
            measured: list[int] = []
            real = type(history)._get_visual  # what measuring a line and drawing it anew start with
            history._get_visual = lambda option: measured.append(1) or real(history, option)  # type: ignore[method-assign]
            history.mark_news(7)  # Bob's line is no longer news: it and the newest are made again, no other
            await pilot.pause()
            text = screen_text(app)
            assert "• Bob" not in text and "Bob passes." in text and "• Chloé plays the Duc de" in text
            assert len(measured) <= 4  # those two lines measured, then drawn (16 without the fix: all eight)
            history.mark_news(None)
            await pilot.pause()
            text = screen_text(app)
            assert "•" not in text and "Bob passes." in text and long in text

    asyncio_run(run())


def asyncio_run(coro) -> None:
    import asyncio

    asyncio.run(coro)


def test_choices_that_come_back_are_not_made_again(monkeypatch) -> None:
    """A player's choices that come back after another's move (most of Ministères' 90 bids, at
    every turn) keep what they were measured and drawn with: only the new ones are made."""
    from textual.app import App, ComposeResult
    from textual.widgets import _option_list

    from tui.widgets import ChoiceList

    made: list[str] = []
    real = _option_list.visualize

    def visualize(widget, obj, **kwargs):  # type: ignore[no-untyped-def]
        made.append(str(obj))
        return real(widget, obj, **kwargs)

    monkeypatch.setattr(_option_list, "visualize", visualize)

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield ChoiceList(id="choices")

    async def run() -> None:
        app = Host()
        async with app.run_test(size=(60, 20)) as pilot:
            choices = app.query_one(ChoiceList)
            bids = [f"Bid {n}" for n in range(3, 40)]
            choices.list_choices([*bids, "Pass"], "Your bid", live=True)
            await pilot.pause()
            assert "Bid 3" in made and "Pass" in made
            choices.tell("Bastien is bidding.")
            await pilot.pause()
            made.clear()
            choices.list_choices([*bids[2:], "Bid 40", "Pass"], "Your bid", live=True)  # he bid 4
            await pilot.pause()
            assert made == ["Bid 40"], made  # the new bid only
            assert [str(choices.get_option_at_index(i).prompt) for i in (0, 36)] == ["Bid 5", "Pass"]
            assert choices.highlighted == 0 and not choices.waiting

    asyncio_run(run())
