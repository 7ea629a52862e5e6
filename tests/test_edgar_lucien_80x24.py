"""Edgar & Lucien at 80x24 (issue 34): every public fact of the table can be brought up with
one key, the choice in hand staying in sight and keeping its place; the rulebook's start in
New game with the outskirts offered as a variant, and why."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.containers import VerticalScroll
from textual.widgets import Select, Static

from core.games.edgar_lucien import cards as GAME_CARDS
from core.games.edgar_lucien import fosko
from screens.app import CabinetApp
from screens.games.edgar_lucien.board import ADMIN_PLACES, EdgarLucienBoard, cogs
from screens.new_game import NewGameScreen
from screens.play import PlayScreen
from tests.test_tui_edgar_lucien import GAME, back_to_the_board, board_of, el_app, el_match, played
from tests.tui_helpers import run_async, screen_text, settle

#: positions where Ada (seat 0) chooses her actions and every player has something public to
#: show: administration actions used, a card in a hand, a certificate, a Governor
POSITIONS = {2: (1, 50), 4: (9, 120)}
SIZES = [(80, 24), (120, 40)]
EDGAR, LUCIEN = GAME_CARDS.EDGAR_ACTIONS, GAME_CARDS.LUCIEN_ACTIONS


def position(players: int):
    seed, moves = POSITIONS[players]
    match = played(el_match(players=players, seed=seed), moves, bot_seed=100 * seed)
    view = GAME.view(match.state, 0)
    assert 0 in match.active() and view["phase"] == "act" and len(GAME.legal(match.state, 0)) >= 4
    assert view["governor"] is not None and any(s is not None for s in view["certificates"].values())
    assert sum(bool(p["used"]) for p in view["players"]) >= players - 1
    return match


def footer_keys(app) -> list[str]:
    return [
        f"{binding.key} {binding.description}"
        for _, binding, enabled, _ in app.screen.active_bindings.values()
        if binding.show and enabled
    ]


def in_sight(widget, size: tuple[int, int]) -> bool:
    region = widget.region
    return region.height > 0 and region.y >= 0 and region.bottom <= size[1] and region.right <= size[0]


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("players", [2, 4])
@run_async
async def test_t_brings_up_every_public_fact_of_the_table_and_the_choice_stays(
    tmp_path: Path, players: int, size
) -> None:
    match = position(players)
    view = GAME.view(match.state, 0)
    app = el_app(tmp_path, match)
    async with app.run_test(size=size) as pilot:
        await back_to_the_board(pilot)
        board = board_of(app)
        options = board.query_one("#el-choices")
        assert app.focused is options and "t Table" in footer_keys(app)
        await pilot.press("down", "down")
        highlighted, listed, title = options.highlighted, list(board.listed), str(options.border_title)
        before = len(match.events)

        await pilot.press("t")
        await settle(pilot)
        assert board.pane == "table" and "t Map" in footer_keys(app) and "t Table" not in footer_keys(app)
        # the switch plays nothing and keeps the dialog where it was, its highlighted line in sight
        assert len(match.events) == before
        assert app.focused is options and options.display and in_sight(options, size)
        assert (options.highlighted, board.listed, str(options.border_title)) == (highlighted, listed, title)
        # the whole table is in sight: nothing left to scroll to
        scroll = board.query_one("#el-scroll", VerticalScroll)
        assert scroll.max_scroll_y == 0, "the table is taller than its pane"
        text = screen_text(app)
        wide = size[0] >= 110
        for seat, player in enumerate(view["players"]):
            # the standings come first: the player's seat letter, name, then the values
            row = next(line for line in text.splitlines() if line.startswith(f"{'RYBW'[seat]} {player['name']}"))
            d = player["districts"]
            # popularity, districts of each kind and in all, cards in hand, on the player's line
            numbers = row.split()
            for value in (player["popularity"], d["steel"], d["ivory"], sum(d.values()), player["hand"]):
                assert any(n.lstrip("✓©★") == str(value) for n in numbers), (player["name"], value, row)
            fortune = cogs(player["cogs"]) if player["cogs"] is not None else "?"
            assert fortune in row
        # where every pawn stands, and the administration actions each player used this period
        side = fosko.SIDES[view["side"]]
        lines = text.splitlines()
        head = next(k for k, line in enumerate(lines) if all(side.district(d).code in line for d in ADMIN_PLACES))
        for k, seat in enumerate(view["order"] or range(players)):
            player = view["players"][seat]
            line = lines[head + 1 + k][: board.region.right]  # the left pane, not the history beside it
            assert player["name"][:7] in line
            for pawn in ("edgar", "lucien"):
                assert side.district(player[pawn]).code in line
            marks = line.split()[-5:-1]  # PIG ARC BNK HAL, before the certificate column
            for district, mark in zip(ADMIN_PLACES, marks, strict=True):
                edgar = any(GAME_CARDS.admin_district(a) == district for a in player["used"] if a in EDGAR)
                lucien = any(GAME_CARDS.admin_district(a) == district for a in player["used"] if a in LUCIEN)
                assert mark == (("E" if edgar else "") + ("L" if lucien else "") or "·"), (line, player["used"])
        # the Governor, the certificates, the popularity track, the deck, Ada's own cards
        assert "★" in text and "©" in text and "Pop 0 " in text and f"Deck {view['deck']}" in text
        assert ("Your cards: " + ", ".join(GAME_CARDS.title(c) for c in view["players"][0]["cards"])) in " ".join(
            text.split()
        ) or not view["players"][0]["cards"]
        assert ("Win with 3 of 4" if wide else "Win with 3") in text

        # and back: the map, the same dialog, still nothing played
        await pilot.press("t")
        await settle(pilot)
        assert board.pane == "map" and "t Table" in footer_keys(app)
        assert "└" in screen_text(app) and board.query_one("#el-me", Static).display
        assert options.highlighted == highlighted and len(match.events) == before
        await pilot.press("enter")
        await settle(pilot)
        assert len(match.events) > before or board.opened is not None, "Enter still takes the choice"


@run_async
async def test_the_table_stays_up_from_move_to_move_until_t_again(tmp_path: Path) -> None:
    match = position(2)
    app = el_app(tmp_path, match)
    async with app.run_test(size=(80, 24)) as pilot:
        await back_to_the_board(pilot)
        board = board_of(app)
        await pilot.press("t")
        before = len(match.events)
        for _ in range(6):  # Ada's actions, and the bot's, while the table is up
            if 0 in match.active():
                await pilot.press("enter")
            await back_to_the_board(pilot)
            if len(match.events) > before + 3:
                break
        assert len(match.events) > before
        board = board_of(app)
        assert board.pane == "table" and board.query_one("#el-table", Static).display
        assert not board.query_one("#el-map", Static).display


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("players", [2, 4])
def test_snapshot_edgar_lucien_table(snap_compare, tmp_path: Path, players: int, size) -> None:
    async def table(pilot) -> None:
        await back_to_the_board(pilot)
        await pilot.press("t")
        await settle(pilot)

    assert snap_compare(el_app(tmp_path, position(players)), terminal_size=size, run_before=table)


# -- the start ------------------------------------------------------------------------------------


@run_async
async def test_new_game_starts_anywhere_and_offers_the_outskirts_with_its_reason(tmp_path: Path) -> None:
    app = CabinetApp(save_dir=tmp_path, bot_delay=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")  # New game
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, NewGameScreen)
        screen.query_one("#game", Select).value = "edgar-lucien"
        await settle(pilot)
        start = screen.query_one("#variant-start", Select)
        assert start.value == "anywhere" and screen.chosen_variants()["start"] == "anywhere"
        assert "fairer at 3 and 4 players" not in screen_text(app)
        start.focus()
        await settle(pilot)
        words = " ".join(screen_text(app).split())
        assert "anywhere: any neutral district, an Administration one too, as the rulebook says" in words
        assert "outskirts: Steel or Ivory districts only, fairer at 3 and 4 players" in words
        start.value = "outskirts"
        screen.query_one("#game", Select).focus()
        await settle(pilot)
        assert "fairer at 3 and 4 players" not in screen_text(app)
        await pilot.press("ctrl+s")
        await settle(pilot)
        play = next(s for s in app.screen_stack if isinstance(s, PlayScreen))
        assert play.match.header["variants"]["start"] == "outskirts"
        assert not play.match.state.anywhere
        assert isinstance(play.query_one(EdgarLucienBoard), EdgarLucienBoard)


@pytest.mark.parametrize("players", [2, 4])
@run_async
async def test_at_80_columns_each_choice_takes_one_line_and_its_cut_is_seen(
    tmp_path: Path, players: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "Edgar: play Remote Action → Bank Robbery (+50,000)" took two lines, and with it the
    list showed fewer choices (a play-test); the rules notes say a choice a line. Here every
    choice is made longer than the box, whatever the position holds."""
    from screens.games.edgar_lucien import board as el_board

    label = el_board.command_label
    monkeypatch.setattr(el_board, "command_label", lambda *a, **k: label(*a, **k).append(" (and so on)" * 6))
    app = el_app(tmp_path, position(players))
    async with app.run_test(size=(80, 24)) as pilot:
        await back_to_the_board(pilot)
        board = board_of(app)
        options = board.query_one("#el-choices")
        assert "…" in screen_text(app)  # cut where it is seen to be
        for index in range(len(board.listed)):
            kind, _ = board.listed[index]
            lists = [options]
            if kind == "head":  # its choices too: opened, looked at, closed
                options.highlighted = index
                await pilot.press("enter")
                await pilot.pause()
                lists.append(options)
            for shown in lists:
                assert shown.virtual_size.height == shown.option_count, [
                    str(shown.get_option_at_index(i).prompt) for i in range(shown.option_count)
                ]
            if kind == "head":
                await pilot.press("escape")
                await pilot.pause()


@run_async
async def test_a_choice_opened_before_looking_back_is_still_open_after(tmp_path: Path) -> None:
    """ "Which one? · Esc: back", then a look at the history: coming back went to "Your
    actions" again (a play-test)."""
    app = el_app(tmp_path, position(4))
    async with app.run_test(size=(80, 24)) as pilot:
        await back_to_the_board(pilot)
        board = board_of(app)
        options = board.query_one("#el-choices")
        heads = [i for i, (kind, _) in enumerate(board.listed) if kind == "head"]
        assert heads, board.listed
        options.highlighted = heads[0]
        await pilot.press("enter")
        await pilot.pause()
        opened, title = board.opened, str(options.border_title)
        assert opened is not None and title.startswith("Which one?")
        await pilot.press("h", "up", "escape")
        await pilot.pause()
        assert app.screen.browsing is None
        assert (board.opened, str(options.border_title)) == (opened, title)
