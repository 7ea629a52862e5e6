"""1988 at 80x24 and 120x40 (issue 34): the campaign draw shows the Opinion rows it is about,
and every card name under a pile, and the discard's top card, is readable whole."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from core.games.chirac_mitterrand import cards as C
from screens.games.chirac_mitterrand.board import forms
from tests.test_tui_chirac_mitterrand import GAME, board_of, chirac_wears_out_twice, cm_app
from tests.tui_helpers import run_async, screen_text, settle


def campaign_stack() -> dict:
    rest = [c for c in C.EVENT_IDS if c not in ("ev:01", "ev:02")]
    return {
        "chirac": ["ev:01"] + rest[:2] + ["ev:02"] + rest[2:8],
        "mitterrand": rest[8:18],
        "discard": rest[18:],
        # the three longest texts of the second set
        "campaign": [["cp:15", "cp:11", "cp:13"]],
    }


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_snapshot_the_campaign_draw_with_the_opinion_it_is_about(snap_compare, tmp_path: Path, size) -> None:
    app = cm_app(tmp_path, stack=campaign_stack(), candidate="mitterrand", before=chirac_wears_out_twice)
    assert snap_compare(app, terminal_size=size, run_before=settle)


async def choose_barre(pilot) -> None:
    await settle(pilot)
    await pilot.press("2")


def test_snapshot_the_campaign_draw_asking_the_quality(snap_compare, tmp_path: Path) -> None:
    app = cm_app(tmp_path, stack=campaign_stack(), candidate="mitterrand", before=chirac_wears_out_twice)
    assert snap_compare(app, terminal_size=(80, 24), run_before=choose_barre)


def rounds(count: int, seed: int):
    """``count`` whole rounds of random legal moves (neutral actions, so that no campaign draw
    comes), then Chirac to play."""

    def before(match) -> None:
        rng = random.Random(seed)
        while GAME.view(match.state, 0)["turn"] <= 2 * count:
            (seat,) = match.active()
            legal = GAME.legal(match.state, seat)
            white = [c for c in legal if C.actions(c["card"])[c["action"]].colour == "white"]
            match.submit(seat, rng.choice(white or legal))
        assert match.active() == (0,)

    return before


def readable(card: str, text: str) -> bool:
    return any(form in text for form in forms(card))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("count", [2, 3, 4, 5])
@run_async
async def test_every_card_you_slid_and_the_discards_top_card_are_readable_at_80x24(
    tmp_path: Path, seed: int, count: int
) -> None:
    app = cm_app(tmp_path, seed=seed, before=rounds(count, seed))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        board = board_of(app)
        view = board.view
        known = view["known_bottom"]["mitterrand"]
        assert len(known) >= 2
        piles = str(board.query_one("#cm-piles").render())
        assert "…" not in piles
        for card in known:
            assert readable(card, piles), (card, piles)
        top = view["discard"][-1]
        assert readable(top, piles.split("\n")[-1]), piles
        text = screen_text(app)
        assert all(readable(card, text) for card in known)
        assert board.query_one("#cm-table").max_scroll_y == 0, "the table scrolls at 80x24"
