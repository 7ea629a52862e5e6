"""Every game walked by keyboard at 80x24, with 2 players and with the most the game allows,
every seat a human at one terminal (so every seat's every kind of decision is met): at each
decision the widget that has the keys is on screen whole, and so is its highlighted line on
every step of the arrows through all of its options; every key the footer shows does
something; Enter plays."""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import pytest
from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import OptionList

from core.games import get_game
from screens.play import PlayScreen
from tests.tui_helpers import app_for, run_async, screen_text, settle
from tui.session import new_match, start_save
from tui.widgets import Curtain, GameOver, ScoreSheetDialog

NAMES = ["Ada", "Bastien", "Chloé", "Denis", "Elsa", "Fanny"]
GAMES = ["agent-jean", "chirac-mitterrand", "edgar-lucien", "ministeres"]
#: decisions walked a table: the kinds of decision of a round's start, bounded for the suite's time
#: (the play-tests walk whole games; DECISIONS=300 walks much further, for a change of the boards)
DECISIONS = int(os.environ.get("CABINET_WALK_DECISIONS", "20"))


def configurations() -> list[tuple[str, int]]:
    found = []
    for game_id in GAMES:
        game = get_game(game_id)
        assert game is not None
        for players in sorted({max(2, game.min_players), game.max_players}):
            found.append((game_id, players))
    return found


def on_screen_whole(app: Any, widget: Widget, what: str) -> None:
    """``widget`` is drawn whole on the screen (no part clipped by its container or the
    terminal), and, a list, shows its highlighted line."""
    screen = app.screen
    geometry = screen.find_widget(widget)  # NoWidget: not drawn at all
    region = geometry.region
    shown = region.intersection(geometry.clip).intersection(Region(0, 0, *app.size))
    assert shown == region, f"{what}: {widget!r} is cut off ({region} shows {shown})\n{screen_text(app)}"
    if isinstance(widget, OptionList) and widget.highlighted is not None:
        line = widget._index_to_line[widget.highlighted]
        height = widget._heights[widget.highlighted]
        top, room = widget.scroll_offset.y, widget.scrollable_content_region.height
        assert top <= line and line + height <= top + room, (
            f"{what}: the highlighted option {widget.highlighted} is out of view\n{screen_text(app)}"
        )


def count_notifications(app: Any) -> None:
    """``app.told``: how many notifications it was ever given (those shown expire meanwhile)."""
    app.told = 0
    notify = app.notify

    def counted(*args: Any, **kwargs: Any) -> None:
        app.told += 1
        notify(*args, **kwargs)

    app.notify = counted


def state(app: Any, match: Any) -> tuple[Any, ...]:
    screen = app.screen
    return (
        screen_text(app),
        id(screen),
        app.told,
        len(match.events),
        id(screen.focused),
    )


async def back_to_the_table(pilot: Any, table: PlayScreen, after: str) -> None:
    app = pilot.app
    for _ in range(5):
        if app.screen is table and (table.focused is None or table.focused.id != "history"):
            return
        # a key that played hands the terminal on (a curtain), or scores a round: go on; else back
        await pilot.press("enter" if isinstance(app.screen, (Curtain, ScoreSheetDialog)) else "escape")
        await settle(pilot)
    assert app.screen is table, f"no way back to the table from {app.screen!r} after {after!r}"


async def every_footer_key_acts(pilot: Any, table: PlayScreen, match: Any, what: str) -> set[str]:
    """Each key the footer shows (but Enter, the move walked anyway, and q, leaving) changes
    something a player sees: the screen, its focus, a notification, the game."""
    app = pilot.app
    shown = {
        key: binding.action
        for key, (_, binding, enabled, _) in table.active_bindings.items()
        if binding.show and enabled and binding.action not in ("select", "menu")
    }
    for key, action in shown.items():
        if app.screen is not table or match.outcome is not None:
            break
        before = state(app, match)
        await pilot.press(key)
        await settle(pilot)
        assert state(app, match) != before, f"{what}: the footer's {key!r} ({action}) did nothing"
        await back_to_the_table(pilot, table, key)
    return set(shown.values())


async def walk(tmp_path: Path, game_id: str, players: int, seed: int) -> None:
    game = get_game(game_id)
    assert game is not None
    seats = [{"name": name} for name in NAMES[:players]]
    match = new_match(game, players, seats, [{"kind": "human"}] * players, seed=seed, bot_seed=seed)
    app = app_for(tmp_path, start_save(tmp_path, match), delay=0)
    count_notifications(app)
    rng = random.Random(seed)
    traversed: set[Any] = set()
    footers: set[Any] = set()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = next(s for s in app.screen_stack if isinstance(s, PlayScreen))
        decisions = idle = 0
        while match.outcome is None and decisions < DECISIONS:
            screen = app.screen
            if isinstance(screen, (Curtain, ScoreSheetDialog)):
                await pilot.press("enter")
                await settle(pilot)
                continue
            if isinstance(screen, GameOver):
                break
            what = f"{game_id} with {players}, decision {decisions}"
            focused = screen.focused
            assert focused is not None, f"{what}: nothing has the keys\n{screen_text(app)}"
            on_screen_whole(app, focused, what)
            if screen is table:
                # (an action's parameters aside: E&L's t shows the table or the map, one key either way)
                keys = tuple(
                    sorted(
                        {b.action.split("(")[0] for (_, b, on, _) in table.active_bindings.values() if b.show and on}
                    )
                )
                if keys not in footers:
                    footers.add(keys)
                    await every_footer_key_acts(pilot, table, match, what)
                    continue  # a footer key may have played (p: pass): look again
            before = state(app, match)
            if isinstance(focused, OptionList) and focused.option_count:
                kind = (type(screen).__name__, focused.id, focused.option_count)
                if kind not in traversed:  # every option reachable, its line in view
                    traversed.add(kind)
                    for _ in range(focused.option_count - 1):
                        await pilot.press("down")
                        on_screen_whole(app, focused, what)
                    await pilot.press("home")
                for _ in range(rng.randrange(focused.option_count)):
                    await pilot.press("down")
                on_screen_whole(app, focused, what)
            await pilot.press("enter")
            await settle(pilot)
            if state(app, match) == before:
                idle += 1
                assert idle < 3, f"{what}: Enter on {focused!r} did nothing\n{screen_text(app)}"
            else:
                idle = 0
                decisions += 1


@pytest.mark.parametrize(("game_id", "players"), configurations())
@run_async
async def test_every_game_walked_by_keyboard_at_80x24(tmp_path: Path, game_id: str, players: int) -> None:
    await walk(tmp_path, game_id, players, seed=11)
