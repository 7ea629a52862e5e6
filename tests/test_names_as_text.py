"""A seat's name is bounded where it is given (issue 32, defect 8): NAME_MAX printable
characters at most, refused otherwise in one sentence that does not quote it, at every
place a table is made (the command line of ``cabinet play`` and ``host``, New game)."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.engine import NAME_MAX, ConfigError, name_refusal
from core.games import get_game
from screens.new_game import NewGameScreen
from tests.tui_helpers import run_async
from tui.app import CabinetApp
from tui.cli import main
from tui.session import new_match

ODD = ["[/]", "[link=x]y", "[@click=app.quit]q[/]", "\x1b[31mred"]


# -- the bound, and where a name is given ----------------------------------------


def test_a_name_is_printable_text_of_NAME_MAX_characters_at_most() -> None:
    assert 24 <= NAME_MAX <= 32
    for name in ("Ada", "Chloé", "x" * NAME_MAX, *ODD[:3], "李小龍", "Ann Marie"):
        assert name_refusal(name, 0) is None, name
    for name in ("x" * (NAME_MAX + 1), "x" * 2**20, "\x1b[31mred", "a\nb", "bell\a", "\x9b31m", "\u202eevil", "\x7f"):
        refusal = name_refusal(name, 1)
        assert refusal is not None and refusal.startswith("The name of seat 2 ") and refusal.endswith(".")
        assert refusal.count(". ") == 0 and name not in refusal  # one sentence, the name never quoted


@pytest.mark.parametrize("name", ["x" * 2**20, "\x1b[31mred", "a\tb"], ids=["MiB", "escape", "tab"])
def test_a_new_table_refuses_a_name_too_long_or_not_text(name: str) -> None:
    game = get_game("agent-jean")
    with pytest.raises(ConfigError) as refused:
        new_match(game, 2, [{"name": "Ada"}, {"name": name}], [{"kind": "human"}, {"kind": "human"}])
    assert str(refused.value).startswith("The name of seat 2 ")


@pytest.mark.parametrize("command", ["play", "host"])
# (an argument of a command line has 128 KiB at most on Linux: no MiB there)
@pytest.mark.parametrize("name", ["x" * 100_000, "\x1b[31mred"], ids=["long", "escape"])
def test_the_command_line_refuses_such_a_name_in_one_sentence(command: str, name: str, tmp_path: Path, capsys) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--save-dir", str(tmp_path), command, "agent-jean", "--players", "2", "--bots", "2", "--names", f"Ann,{name}"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    last = err.strip().splitlines()[-1]
    assert err.startswith("usage: cabinet") and last.startswith(f"cabinet {command}: The name of seat 2 ")
    assert len(err) < 1000 and "\x1b" not in err
    assert not list(tmp_path.glob("*.cab"))


@pytest.mark.parametrize("name", ["x" * 2**20, "\x1b[31mred"], ids=["MiB", "escape"])
@run_async
async def test_new_game_refuses_such_a_name_in_one_sentence(name: str, tmp_path: Path) -> None:
    app = CabinetApp(save_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(NewGameScreen())
        await pilot.pause()
        app.screen.query_one("#name-1").value = name
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, NewGameScreen)
        said = [n.message for n in app._notifications]
        assert len(said) == 1 and said[0].startswith("The name of seat 2 ") and len(said[0]) < 200
        assert not list(tmp_path.glob("*.cab"))
