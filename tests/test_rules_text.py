"""What a player reads on the rules screen is rules: no note about the code, an issue, a test, a
measurement or the screen's layout (those are kept for developers at the end of docs/rules/, under
"Notes for developers", which the rules screen leaves out)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from core.games import game_titles
from screens.app import CabinetApp
from screens.rules import DEVELOPER_NOTES, RulesScreen, players_text, rules_text
from tests.tui_helpers import run_async, screen_text

#: what tells a note for developers: a path or a module, an issue, a test, a benchmark, a seed or
#: a simulation command, the screen's width in columns
NOT_RULES = {
    "a path": r"\b[\w.-]+/[\w./-]+\.(py|md)\b|\b(core|docs|bench|tests|screens|tui|net|saves)/",
    "a Python file": r"\.py\b",
    "an issue": r"\bissues?\b",
    "a test": r"\btest(s|ed|ing)?\b",
    "a benchmark": r"\bbench(mark)?s?\b",
    "a seed": r"\bseeds?\b",
    "a command that simulates": r"cabinet simulate",
    "the terminal's width": r"\b\d+ columns\b|\bcolumns wide\b",
    "a reason of layout": r"Why this shape",
}


@pytest.mark.parametrize("game_id", list(game_titles()))
def test_the_rules_a_player_reads_carry_no_note_for_developers(game_id: str) -> None:
    text = players_text(game_id)
    assert text.startswith("# ") and len(text) > 5000  # the rules themselves, whole
    found = []
    for what, pattern in NOT_RULES.items():
        for match in re.finditer(pattern, text, flags=re.IGNORECASE):
            line = text[: match.start()].count("\n") + 1
            found.append(f"line {line}: {what}: {text.splitlines()[line - 1].strip()}")
    assert not found, "\n".join(found)


@pytest.mark.parametrize("game_id", list(game_titles()))
def test_the_notes_for_developers_are_kept_after_the_rules(game_id: str) -> None:
    whole = rules_text(game_id)
    assert DEVELOPER_NOTES in whole  # kept, in docs/rules/
    assert whole.startswith(players_text(game_id)) and DEVELOPER_NOTES not in players_text(game_id)


def test_the_check_sees_each_kind_of_note() -> None:
    notes = [
        "The board is drawn by `core/games/edgar_lucien/fosko.py`.",
        "the open counts of issue 17",
        "the property tests play 500 games",
        "Measured with `bench/cm_campaign.py`, seed 21.",
        "Why this shape: the table must fit 80 columns",
    ]
    for note in notes:
        assert any(re.search(p, note, flags=re.IGNORECASE) for p in NOT_RULES.values()), note


@run_async
async def test_the_rules_screen_shows_no_note_and_offers_its_arrows(tmp_path: Path) -> None:
    app = CabinetApp(save_dir=tmp_path)
    app.animation_level = "none"  # each page at once, not scrolled to in frames the Pilot waits out
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_rules("edgar-lucien")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RulesScreen)
        assert "←→ Game" in screen_text(app).splitlines()[-1]  # the footer says what ← → do
        await pilot.press("right")
        await pilot.pause()
        assert screen.game_id == "ministeres"
        await pilot.press("left", "left")
        await pilot.pause()
        assert screen.game_id == "chirac-mitterrand"
        # the tab shown stands out by its style, not by its underline alone
        tabs = {tab.id: tab for tab in screen.query("Tab")}
        shown, other = tabs["rules-chirac-mitterrand"], tabs["rules-ministeres"]
        assert shown.rich_style.bold and not other.rich_style.bold
        assert shown.rich_style.color != other.rich_style.color
        for _ in range(400):  # the whole text, page by page: no note for developers on screen
            assert "Notes for developers" not in screen_text(app) and ".py" not in screen_text(app)
            text = screen.query_one("#rules-text")
            if text.scroll_y >= text.max_scroll_y:
                break
            await pilot.press("pagedown")
            await pilot.pause()
        else:
            raise AssertionError("the end of the rules never came")


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_snapshot_rules_screen(snap_compare, tmp_path: Path, size) -> None:
    """Edgar & Lucien's rules as a player opens them: ← → said in the footer."""

    async def at_the_map(pilot) -> None:
        pilot.app.open_rules("edgar-lucien")
        await pilot.pause()

    assert snap_compare(CabinetApp(save_dir=tmp_path), terminal_size=size, run_before=at_the_map)


@run_async
async def test_the_rules_are_drawn_once_a_width_and_flow_again_at_a_new_one(tmp_path: Path, monkeypatch) -> None:
    """The rules opened again are shown from what was drawn the first time (Rich took 90-190 ms
    a rulebook, more than once an opening); a terminal resized gets them flowed to its width."""
    from rich.markdown import Markdown

    drawn: list[int] = []
    real = Markdown.__rich_console__

    def counted(self, console, options):  # type: ignore[no-untyped-def]
        drawn.append(options.max_width)
        yield from real(self, console, options)

    monkeypatch.setattr(Markdown, "__rich_console__", counted)
    app = CabinetApp(save_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_rules("edgar-lucien")
        await pilot.pause()
        assert isinstance(app.screen, RulesScreen)
        first = len(drawn)
        assert first >= 1
        body = app.screen.query_one("#rules-body")
        narrow = body.size.width
        await pilot.press("q")
        await pilot.pause()
        app.open_rules("edgar-lucien")
        await pilot.pause()
        assert len(drawn) == first, "the same rules at the same width were drawn again"
        await pilot.resize_terminal(120, 30)
        await pilot.pause()
        body = app.screen.query_one("#rules-body")
        assert body.size.width > narrow and max(drawn) == body.size.width
        lines = [line.rstrip() for line in screen_text(app).splitlines()[1:-1]]
        assert max(len(line) for line in lines) > narrow, "\n".join(lines)
