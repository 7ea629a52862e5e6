"""Edgar & Lucien on screen: the map, the programming and action dialogs, a whole game by keys."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from core.bots import make_bot
from core.games import get_game
from core.games.edgar_lucien import cards as GAME_CARDS
from core.games.edgar_lucien import fosko
from saves import load
from screens.app import CabinetApp
from screens.games.edgar_lucien.board import CONDITION_NAME, CONDITION_SHORT, EdgarLucienBoard, map_text
from screens.play import PlayScreen
from screens.replay import ReplayScreen
from table import Table
from tests.tui_helpers import NAMES, app_for, run_async, screen_text, settle
from tui.session import new_match, start_save
from tui.widgets import Curtain, GameOver

GAME = get_game("edgar-lucien")
LEVEL = "easy"


def el_match(players: int = 2, humans: int = 1, seed: int = 3, variants: dict[str, str] | None = None):
    controllers = [{"kind": "human"}] * humans + [{"kind": "bot", "level": LEVEL}] * (players - humans)
    seats = [{"name": n} for n in NAMES[:players]]
    return new_match(GAME, players, seats, controllers, seed=seed, bot_seed=seed, variants=variants)


def played(match, moves: int, bot_seed: int = 100):
    """The match after ``moves`` commands chosen by heuristic bots for every seat."""
    bots = {seat: make_bot(GAME, LEVEL, bot_seed + seat) for seat in range(match.header["players"])}
    for _ in range(moves):
        active = match.active()
        if not active:
            break
        match.submit(active[0], Table(match).bot_move(active[0], bots[active[0]]))
    return match


def el_app(save_dir: Path, match):
    return app_for(save_dir, start_save(save_dir, match))


def board_of(app) -> EdgarLucienBoard:
    screen = next(s for s in app.screen_stack if isinstance(s, PlayScreen))
    return screen.query_one(EdgarLucienBoard)


@run_async
async def test_a_whole_game_against_the_bot_through_key_presses(tmp_path: Path) -> None:
    app = el_app(tmp_path, el_match(players=2, seed=5))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = next(s for s in app.screen_stack if isinstance(s, PlayScreen))
        match = screen.match
        for _ in range(4000):
            await settle(pilot)
            if match.outcome is not None:
                break
            if not isinstance(app.screen, PlayScreen):  # a period's score, read and pressed away
                await pilot.press("enter")
                continue
            if 0 in match.active():
                before = len(match.events)
                # the first thing offered, through every step of the dialog (a card, then its target;
                # Edgar's move, then Lucien's)
                for _ in range(3):
                    await pilot.press("enter")
                    await settle(pilot)
                    if len(match.events) > before:
                        break
                assert len(match.events) > before, "three key presses of the player did nothing"
        assert match.outcome is not None
        assert isinstance(app.screen, GameOver)
        assert load(screen.path).match.events == match.events


@run_async
async def test_programming_is_two_steps_and_secret_between_two_humans(tmp_path: Path) -> None:
    match = el_match(players=2, humans=2, seed=8)
    # both players place their pawns
    for seat in (0, 1):
        match.submit(seat, GAME.legal(match.state, seat)[0])
    app = el_app(tmp_path, match)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, Curtain)
        await pilot.press("enter")
        await settle(pilot)
        board = board_of(app)
        options = board.query_one("#el-choices")
        assert "Edgar" in str(options.border_title)
        first_edgar = board.listed[0]
        assert first_edgar[0] == "edgar"
        await pilot.press("enter")
        # Edgar's move stays in sight while Lucien's is chosen: where it leads, by the map's code
        place, edgar, move = fosko.SIDES[board.view["side"]], board.view["players"][0]["edgar"], first_edgar[1]
        said = "immobile" if move == fosko.STAY else f"→ {place.district(place.destination(edgar, move)).code}"
        assert str(options.border_title).startswith("Program Lucien (L) · Edgar: ")
        assert str(options.border_title).endswith(said), options.border_title
        await pilot.press("escape")
        assert str(options.border_title) == "Program Edgar (E)", "Esc goes back to Edgar's move"
        await pilot.press("down", "enter", "escape")  # another move for Edgar, then back: on it, not the first
        assert options.highlighted == 1 and board.listed[1][0] == "edgar"
        await pilot.press("home")
        await pilot.press("enter", "enter")
        await settle(pilot)
        # Ada's program is in; the table hides before Bastien programs
        assert isinstance(app.screen, Curtain)
        program = match.events[-1]
        assert program["t"] == "Programmed"
        view = GAME.view(match.state, 1)
        assert view["players"][0]["program"] is None
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("enter", "enter")
        await settle(pilot)
        assert match.state_at(len(match.events))  # the reveal and the moves happened
        assert any(e["t"] == "ProgramsRevealed" for e in match.events)


def test_the_map_shows_every_district_border_and_metro() -> None:
    for moves in (4, 40):  # the pawns as placed, then spread over the city
        match = played(el_match(players=4, humans=0, seed=2), moves)
        check_map(GAME.view(match.state, 0))


def check_map(view) -> None:
    for place, wide in ((fosko.SIDES[view["side"]], False), (fosko.SIDES[view["side"]], True)):
        text = map_text(place, view, wide).plain
        for district in place.districts:
            name = district.name if len(district.name) <= 12 else district.name[:11] + "…"
            assert (name if wide else district.code) in text
        for _a, _b, colour in place.borders:
            assert fosko.COLOUR_LETTERS[colour] in text
        for line, _ in place.lines:
            assert fosko.LINE_NAMES[line] in text
        # each player's starting district carries its owner's letter, a space after it, never
        # a border's letter
        for seat in view["owners"].values():
            assert "■" + "RYBW"[seat] + " " in text
        assert not any(f"■{owner}{border}" in text for owner in "RYBW" for border in "GOVC┃│")
        # both pawns of every player: RE and RL (RE+L together, never three letters like a
        # district's code) wide, R and r (Rr) narrow
        for seat, player in enumerate(view["players"]):
            letter = "RYBW"[seat]
            if player["edgar"] == player["lucien"]:
                assert (letter + "E+L" if wide else letter + letter.lower()) in text
            else:
                assert all(
                    mark in text for mark in ((letter + "E", letter + "L") if wide else (letter, letter.lower()))
                )
        if wide:  # full names there, and no pawns' group reads like a code (BEL is Belvedere's)
            assert not any(letter + "EL" in text for letter in "RYBW")


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_snapshot_edgar_lucien_two_players(snap_compare, tmp_path: Path, size) -> None:
    match = played(el_match(players=2, seed=21), 12)
    assert snap_compare(el_app(tmp_path, match), terminal_size=size, run_before=settle)


async def back_to_the_board(pilot) -> None:
    """Settle, then press away what the shared screens lay over the board (the score of a
    period that the bots just ended): these snapshots are of the board."""
    await settle(pilot)
    for _ in range(3):
        if isinstance(pilot.app.screen, PlayScreen):
            break
        await pilot.press("enter")
        await settle(pilot)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_snapshot_edgar_lucien_four_players(snap_compare, tmp_path: Path, size) -> None:
    match = played(el_match(players=4, seed=13), 40)
    assert snap_compare(el_app(tmp_path, match), terminal_size=size, run_before=back_to_the_board)


#: positions where the dialog is open on a long list: (players, seed, moves, phase), the bots
#: seeded 100 * seed on; the players' own cards, certificates and the Governor are all there
#: to be seen
CHOOSING = {
    "two-programming": (2, 24, 34, "program"),  # Ada holds two cards, Bastien is Governor
    "two-acting": (2, 24, 46, "act"),  # ten actions to choose from
    "four-programming": (4, 20, 135, "program"),  # Ada holds two certificates
    "four-acting": (4, 2, 27, "ask"),  # a Requisition: a district out of ten
}


def choosing(position: str):
    """A position of CHOOSING. They were found when starts were on Steel and Ivory districts by
    default, and keep that start: what they show is the dialog, whatever the start."""
    players, seed, moves, phase = CHOOSING[position]
    match = played(el_match(players=players, seed=seed, variants={"start": "outskirts"}), moves, bot_seed=100 * seed)
    assert match.active() in ((0,), tuple(range(players))) and GAME.view(match.state, 0)["phase"] == phase
    return match


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
@pytest.mark.parametrize("position", list(CHOOSING))
def test_snapshot_edgar_lucien_while_choosing(snap_compare, tmp_path: Path, position: str, size) -> None:
    assert snap_compare(el_app(tmp_path, choosing(position)), terminal_size=size, run_before=back_to_the_board)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
@pytest.mark.parametrize("position", list(CHOOSING))
@run_async
async def test_the_players_own_situation_and_the_map_stay_in_sight_while_choosing(
    tmp_path: Path, position: str, size
) -> None:
    match = choosing(position)
    view = GAME.view(match.state, 0)
    me = view["players"][0]
    app = el_app(tmp_path, match)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        board = board_of(app)
        assert board.query_one("#el-choices").display and board.listed
        text = screen_text(app)
        wide = size[0] >= 110
        fortune = f"{me['cogs']:,} Cogs" if wide else f"{me['cogs'] // 1000}k Cogs"
        governor = view["players"][view["governor"]]["name"] if view["governor"] is not None else None
        assert fortune in text
        assert (f"popularity {me['popularity']}" if wide else f"Pop {me['popularity']}") in text
        assert (f"Governor: {governor}" if governor else "no Governor") in text
        # your own line, however it wraps (two long card names take two lines at 80 columns)
        line = board.query_one("#el-me", Static)
        assert line.region.height >= 1 and line.region.bottom <= size[1]  # on the screen
        own = " ".join(str(line.render()).split())
        for card in me["cards"]:
            assert GAME_CARDS.title(card) in own
        held = [c for c, seat in view["certificates"].items() if seat == 0]
        assert held or "No certificate" in text
        for certificate in held:
            assert (CONDITION_NAME if wide else CONDITION_SHORT)[certificate] in text
        # the whole map, its last line included, and the dialog's first choices
        place = fosko.SIDES[view["side"]]
        for district in place.districts:
            assert (district.name[:11] if wide else district.code) in text
        assert "└" in text and "┘" in text
        if wide and size[1] >= 40:  # and, with room, everybody's progress towards victory
            assert "Goals, 3 of 4" in text
            goals = text[text.index("Goals, 3 of 4") :]
            assert all(p["name"] in goals.split("╭")[0] for p in view["players"])


@run_async
async def test_replay_steps_through_a_game_and_keeps_programs_secret_until_the_reveal(tmp_path: Path) -> None:
    match = el_match(players=3, humans=0, seed=9)
    writer = start_save(tmp_path, match, durable=False)
    Table(match, writer).play_out()
    loaded = load(writer.path)
    replayed = loaded.match
    moves = replayed.moves  # moves[0] is the setup; the replay counts the moves after it
    program = lambda k: moves[k].command is not None and moves[k].command["t"] == "Program"  # noqa: E731
    # the moment seat 1 has programmed and the wheels are not yet revealed: another program follows
    at = next(k for k in range(1, len(moves) - 1) if program(k) and moves[k].seat == 1 and program(k + 1))
    app = CabinetApp(save_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_replay(replayed, writer.path, at=at)
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ReplayScreen) and screen.position == replayed.events_after_moves(at)
        board = screen.query_one(EdgarLucienBoard)
        assert board.view["players"][1]["program"] is not None  # everything revealed
        await pilot.press("v")  # through seat 0's eyes
        await pilot.pause()
        assert screen.viewer == 0
        assert board.view["players"][1]["program"] is None and board.view["players"][0]["cards"] is not None
        # the move that reveals the wheels is the last program of the turn
        reveal = next(k for k in range(at + 1, len(moves)) if not program(k + 1))
        for _ in range(reveal - at):
            await pilot.press("right")
        await pilot.pause()
        assert screen.position == replayed.events_after_moves(reveal)
        assert any(e["t"] == "ProgramsRevealed" for e in replayed.events[moves[reveal].start : moves[reveal].end])
        assert board.view["players"][1]["program"] is not None
        await pilot.press("end")
        await pilot.pause()
        assert board.view["phase"] == "over"


@run_async
async def test_the_replay_footer_keeps_its_way_out_at_80_columns(tmp_path: Path) -> None:
    """A finished game's replay at 80x24: its keys do not fit on one line, so the jumps by round
    (and more, while the analysis runs) are left out of the footer, never "q Leave" (cut off at
    the right edge before); at 120 columns every key is there; the keys left out still work."""
    from tui.keys import KeysFooter

    match = el_match(players=2, humans=0, seed=9)
    writer = start_save(tmp_path, match, durable=False)
    Table(match, writer).play_out()
    app = CabinetApp(save_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_replay(load(writer.path).match, writer.path, at=1)
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReplayScreen)

        def footer() -> str:
            return screen_text(app).splitlines()[-1].rstrip()

        async def fitted(width: int) -> None:
            """Until the footer has fitted its keys to the new width (a frame or two)."""
            for _ in range(20):
                if len(footer()) <= width and footer().endswith("q Leave"):
                    return
                await pilot.pause()
            raise AssertionError(footer())

        assert footer().endswith("q Leave") and "a Analyse" in footer() and "{} Round" not in footer(), footer()
        await pilot.resize_terminal(120, 40)
        await settle(pilot)
        await fitted(120)
        assert "{} Round" in footer() and "[] Turn" in footer() and footer().endswith("q Leave"), footer()
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        await fitted(80)
        assert footer().endswith("q Leave") and "{} Round" not in footer(), footer()
        before = screen.position
        await pilot.press("right_curly_bracket")  # a round on: the key works, out of the footer
        await pilot.pause()
        assert screen.position > before
        footer_widget = screen.query_one(KeysFooter)
        assert footer_widget.spared
        # a late resize or look reaching a footer taken down with its screen (the app crashed
        # with NoScreen once, leaving a table): nothing to fit, nothing raised
        await footer_widget.remove()
        footer_widget.fit()
        footer_widget.on_resize()


@run_async
async def test_after_the_chart_the_boards_own_keys_come_back_with_it(tmp_path: Path) -> None:
    """A replay's a shows the chart in place of the board, and a again (as often as it takes)
    the board: its t (the table of every player) is offered and works again (it went with the
    chart: what had the keys on the board lost them)."""
    from saves.analyses import keep_analysis
    from tests.test_replay_analysis import by_hand

    match = el_match(players=2, humans=0, seed=9)
    writer = start_save(tmp_path, match, durable=False)
    Table(match, writer).play_out()
    writer.close()
    loaded = load(writer.path).match
    keep_analysis(writer.path, loaded, by_hand(loaded))
    app = CabinetApp(save_dir=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        app.open_replay(loaded, writer.path, at=1)
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ReplayScreen) and "t" in screen.active_bindings
        await pilot.press("a")
        await settle(pilot)
        assert screen.pane != "board"
        while screen.pane != "board":
            await pilot.press("a")
            await settle(pilot)
        board = screen.query_one(EdgarLucienBoard)
        assert "t" in screen.active_bindings and "t Table" in screen_text(app).splitlines()[-1]
        await pilot.press("t")
        await settle(pilot)
        assert board.pane == "table"
