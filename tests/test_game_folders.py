"""A game is its rules folder and its board folder: adding the two adds the game.

The rules are every package of ``core.games``, the boards every package of
``screens.games``: both registries look along their package's ``__path__``, so a
folder put on it here is found exactly as ``core/games/<folder>/`` and
``screens/games/<folder>/`` are. The game added is tests/toygame.py's, copied in
as the rules of a folder of its own; nothing else in the project is told of it.
"""

from __future__ import annotations

import importlib
import io
import shutil
import sys
from pathlib import Path

import pytest
from rich.console import Console
from textual.css.stylesheet import StylesheetParseError
from textual.widgets import Select

import core.games
import screens.games
import tests.toygame
from core.games import catalogue, get_game
from saves import load
from screens.app import CabinetApp
from screens.boards import board_for
from screens.games import board_class, boards, stylesheets
from screens.new_game import NewGameScreen
from screens.play import PlayScreen
from screens.rules import rules_document, rules_text
from tests.tui_helpers import run_async, screen_text, settle
from tui.widgets import Board, GameOver

RULES_INIT = '''"""Toy Cards: a hand of two, play a card or gamble (a test's game)."""

from core.games import lazy_rules

ID = "toy"
TITLE = "Toy Cards"

__getattr__ = lazy_rules(globals(), "core.games.toy.rules", "ToyGame")
'''

RULES_MD = """# Toy Cards

Two players, a hand of two numbered cards. On your turn play a card (its number is added
to your score) or gamble for a bonus of 0 to 2. The higher score wins.
"""

BOARD_INIT = '''"""Toy Cards' board: the scores, your hand, your choices."""

from screens.games import lazy_board

ID = "toy"

__getattr__ = lazy_board(globals(), "screens.games.toy.board", "ToyBoard")
'''

BOARD_PY = '''"""Toy Cards' board: the scores, your hand, your choices."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.widgets import OptionList, Static

from core.engine import Command
from tui.widgets import Board, ChoiceList


class ToyBoard(Board):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.choices: list[Command] = []

    def compose(self) -> ComposeResult:
        yield Static("", id="toy-scores")
        yield ChoiceList(id="toy-choices")

    def draw(self, view: dict[str, Any], legal: list[Command] | None) -> None:
        self.shown = (view, legal)
        self.view = view
        line = "Scores " + " - ".join(map(str, view["scores"])) + f"  Deck {view['deck']}"
        if view["hand"] is not None:
            line += "  Your hand " + " ".join(map(str, view["hand"]))
        self.paint("#toy-scores", line)
        self.choices = list(legal or [])
        prompts = [f"Play {c['card']}" if c["t"] == "Play" else "Gamble" for c in self.choices]
        choices = self.query_one("#toy-choices", ChoiceList)
        if choices.list_choices(prompts, "Your move", live=True):
            self.take_focus(choices)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option_index < len(self.choices):
            self.post_message(Board.Chosen(self.choices[event.option_index]))
'''

BOARD_TCSS = """/* -- Toy Cards -- */
ToyBoard {
    padding: 0 3;
}
#toy-scores {
    height: 2;
    border-bottom: heavy $accent;
}
"""


def forget_the_toy() -> None:
    """Every trace of the added game in the registries and the imported modules."""
    for name in [n for n in sys.modules if n.startswith(("core.games.toy", "screens.games.toy"))]:
        del sys.modules[name]
    for package in (core.games, screens.games):
        if hasattr(package, "toy"):
            delattr(package, "toy")
    catalogue.cache_clear()
    boards.cache_clear()
    rules_document.cache_clear()


@pytest.fixture
def added_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A rules folder and a board folder for Toy Cards, found by the two registries;
    the board folder is returned."""
    rules = tmp_path / "rules" / "toy"
    rules.mkdir(parents=True)
    (rules / "__init__.py").write_text(RULES_INIT, encoding="utf-8")
    shutil.copyfile(tests.toygame.__file__, rules / "rules.py")
    (rules / "rules.md").write_text(RULES_MD, encoding="utf-8")
    board = tmp_path / "boards" / "toy"
    board.mkdir(parents=True)
    (board / "__init__.py").write_text(BOARD_INIT, encoding="utf-8")
    (board / "board.py").write_text(BOARD_PY, encoding="utf-8")
    (board / "board.tcss").write_text(BOARD_TCSS, encoding="utf-8")

    forget_the_toy()
    monkeypatch.setattr(core.games, "__path__", [*core.games.__path__, str(rules.parent)])
    monkeypatch.setattr(screens.games, "__path__", [*screens.games.__path__, str(board.parent)])
    importlib.invalidate_caches()
    yield board
    monkeypatch.undo()
    forget_the_toy()


def test_every_game_has_a_board_and_every_board_a_game() -> None:
    assert set(boards()) == set(catalogue())
    for game_id in catalogue():
        board = board_class(game_id)
        assert board is not None and issubclass(board, Board), game_id
        assert isinstance(board_for(game_id), board)


def test_the_app_loads_every_boards_stylesheet_and_nothing_else_names_a_game(tmp_path: Path) -> None:
    """Every board carries its stylesheet, and the app reads them all, as files; no
    package but the two registries' folders names a game or its folder."""
    sheets = stylesheets()
    assert len(sheets) == len(boards()) == len(catalogue())
    assert all(path.is_file() and path.name == "board.tcss" for path in sheets)
    app_sheets = CabinetApp(save_dir=tmp_path).css_path
    assert [Path(p).name for p in app_sheets[:1]] == ["cabinet.tcss"]
    assert [Path(p) for p in app_sheets[1:]] == sheets

    root = Path(__file__).resolve().parent.parent
    names = [*catalogue(), *(entry[0].rsplit(".", 1)[1] for entry in catalogue().values())]
    sources = [
        path
        for package in ("cabinet", "tui", "screens", "net", "saves", "table")
        for path in sorted((root / package).rglob("*"))
        if path.suffix in (".py", ".tcss") and (root / "screens" / "games") not in path.parents
    ]
    assert sources
    naming = {
        f"{path.relative_to(root)}: {name}"
        for path in sources
        for name in names
        if name in path.read_text(encoding="utf-8")
    }
    assert naming == set()


def test_a_game_added_as_two_folders_is_found_by_both_registries(added_game: Path) -> None:
    assert catalogue()["toy"] == ("core.games.toy", "Toy Cards")
    game = get_game("toy")
    assert game is not None and game.title == "Toy Cards" and game.max_players == 2
    assert boards()["toy"] == "screens.games.toy"
    board = board_for("toy")
    assert type(board).__name__ == "ToyBoard" and board.id == "board"
    assert added_game / "board.tcss" in stylesheets()
    assert rules_text("toy").startswith("# Toy Cards")


@run_async
async def test_a_game_added_as_two_folders_is_offered_styled_and_played_to_its_end(
    added_game: Path, tmp_path: Path
) -> None:
    saves = tmp_path / "saves"
    saves.mkdir()
    app = CabinetApp(save_dir=saves, bot_delay=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert "Toy Cards" in " ".join(screen_text(app).split())  # the menu lists the games installed
        await pilot.press("enter")  # New game
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, NewGameScreen)
        assert "toy" in dialog.games
        dialog.query_one("#game", Select).value = "toy"  # refused if it were not offered
        await settle(pilot)
        assert dialog.game.id == "toy" and "Toy Cards" in screen_text(app)
        dialog.query_one("#who-1", Select).value = "bot:random"
        await pilot.press("ctrl+s")
        await settle(pilot)

        screen = app.screen
        assert isinstance(screen, PlayScreen) and screen.match.game.id == "toy"
        board = screen.query_one(Board)
        assert type(board).__name__ == "ToyBoard"
        # its own stylesheet is applied: the padding, the line under the scores
        assert (board.styles.padding.left, board.styles.padding.right) == (3, 3)
        scores = board.query_one("#toy-scores")
        assert scores.styles.border_bottom[0] == "heavy" and scores.region.height == 2
        assert "Scores 0 - 0" in screen_text(app) and "Play " in screen_text(app)

        for _ in range(10):  # three turns each: the human plays the first card offered
            if screen.match.outcome is not None:
                break
            await pilot.press("enter")
            await settle(pilot)
        assert screen.match.outcome is not None
        assert isinstance(app.screen, GameOver)
        assert sum(1 for e in screen.match.events if e["t"] == "TurnEnded") == 6

    loaded = load(screen.path)
    assert loaded.match.game.id == "toy" and loaded.match.outcome == screen.match.outcome


@run_async
async def test_an_error_in_a_boards_stylesheet_names_its_file_and_line(added_game: Path, tmp_path: Path) -> None:
    sheet = added_game / "board.tcss"
    sheet.write_text(BOARD_TCSS.replace("height: 2;", "height: two;"), encoding="utf-8")
    app = CabinetApp(save_dir=tmp_path)
    with pytest.raises(StylesheetParseError) as raised:
        async with app.run_test(size=(80, 24)):
            pass
    shown = io.StringIO()
    Console(file=shown, width=400, color_system=None).print(raised.value.errors)
    assert f"{sheet}:6:" in shown.getvalue()
