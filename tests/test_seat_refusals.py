"""The New game form's refusal of two seats with the same agent names the agent as the game
does ("Bulle", as on the form's own choices and in the game's log), not by its key ("bulle")."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from textual.widgets import Button, Input, Select

from core.engine import ConfigError
from core.games import get_game
from screens.app import CabinetApp
from screens.new_game import NewGameScreen
from tests.tui_helpers import run_async


def test_two_seats_with_one_agent_are_refused_in_the_agents_name() -> None:
    with pytest.raises(ConfigError) as refused:
        get_game("agent-jean").make_config(3, [{"agent": "bulle"}, {}, {"agent": "bulle"}])
    assert str(refused.value) == "Two seats cannot both take agent Bulle."


async def refused_by_the_form(tmp_path: Path, choose: Callable[[NewGameScreen], None]) -> list[str]:
    """The New game form of L'Agent Jean!, ``choose`` made on it, Start pressed: the form stays
    (no game started, no save written); what it said."""
    app = CabinetApp(save_dir=tmp_path, bot_delay=0.0)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")  # New game
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, NewGameScreen) and screen.game.id == "agent-jean"
        choose(screen)
        await pilot.pause()
        screen.query_one("#start", Button).press()
        await pilot.pause()
        assert isinstance(app.screen, NewGameScreen)  # no game started
        assert not list(tmp_path.glob("*.cab"))
        return [n.message for n in app._notifications]


@run_async
async def test_the_new_game_form_names_the_agent_two_seats_both_took(tmp_path: Path) -> None:
    def both_on_bulle(screen: NewGameScreen) -> None:
        first, second = screen.query_one("#opt-agent-0", Select), screen.query_one("#opt-agent-1", Select)
        assert second.value == "bulle"
        first.value = "bulle"  # both seats on Bulle, as a player picks her twice

    assert await refused_by_the_form(tmp_path, both_on_bulle) == ["Two seats cannot both take agent Bulle."]


@run_async
async def test_the_new_game_form_refuses_two_players_of_one_name(tmp_path: Path) -> None:
    """Two seats named alike would make the history say "Bastien plays" of either player."""

    def both_bastien(screen: NewGameScreen) -> None:
        assert screen.query_one("#name-1", Input).value == "Bastien"
        screen.query_one("#name-0", Input).value = "bastien"

    said = await refused_by_the_form(tmp_path, both_bastien)
    assert said == ["Seats 1 and 2 have the same name: give each player a name of their own."]
