"""L'Agent Jean! on screen: the footer offers only what works, the points a
game's end makes public, and the choice boxes of the powers at 80x24 and 120x40."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from textual.screen import ModalScreen

from core.engine import NAME_MAX
from core.games.agent_jean import cards as C
from screens.games.agent_jean.board import AgentJeanBoard, HandRow, pile_card_text
from screens.play import PlayScreen
from tests.tui_helpers import GAME, NAMES, app_for, play_app, run_async, screen_text, settle
from tui.session import new_match, start_save

#: the agents of the seats, Ada's first
AGENTS = ("henry", "jean", "bulle", "wxt", "martha")


def power_app(save_dir: Path, agent: str, players: int, seed: int = 5):
    """Ada (human, seat 1) plays ``agent``, whose Power card is on top of the
    plan pile; she leads the first turn; the others are easy bots."""
    agents = [agent] + [a for a in AGENTS if a != agent][: players - 1]
    seats = [{"name": NAMES[i], "agent": a} for i, a in enumerate(agents)]
    controllers = [{"kind": "human"}] + [{"kind": "bot", "level": "easy"}] * (players - 1)
    top = C.power_card(agent)
    plans = [top] + list(C.PLAN_IDS) + [C.power_card(a) for a in agents if a != agent]
    match = new_match(
        GAME, players, seats, controllers, seed=seed, bot_seed=seed, arranged={"plans": plans, "leader": 0}
    )
    return app_for(save_dir, start_save(save_dir, match))


def footer_keys(app) -> set[str]:
    """The descriptions the footer shows now."""
    return {b.binding.description for b in app.screen.active_bindings.values() if b.binding.show}


def players_rows(app) -> list[str]:
    """The lines of the players' table, as drawn."""
    static = app.screen.query_one("#aj-players")
    return [line.text for line in static.render_lines(static.content_region.reset_offset)]


# -- the footer ---------------------------------------------------------------------


@run_async
async def test_play_card_is_offered_on_your_turn_only(tmp_path: Path) -> None:
    """Ada plays; the bot's answer is held back (a long bot delay): her hand
    keeps the focus, but its footer no longer offers Play card, and 1 plays nothing."""
    app = play_app(tmp_path, humans=1, players=2, seed=5, delay=600)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        match = screen.match
        hand = screen.query_one(HandRow)
        assert match.active() == (0,) and hand.has_focus
        assert "Play card" in footer_keys(app)
        await pilot.press("1")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert match.active() == (1,) and screen.runner.thinking == 1 and hand.has_focus
        assert "Play card" not in footer_keys(app)
        moves = len(match.moves)
        await pilot.press("2", "enter")
        assert len(match.moves) == moves


@run_async
async def test_at_the_game_end_no_card_to_play_and_every_seats_points(tmp_path: Path) -> None:
    app = play_app(tmp_path, humans=1, players=2, seed=5)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = next(s for s in app.screen_stack if isinstance(s, PlayScreen))
        match = screen.match
        for _ in range(400):
            await settle(pilot)
            if match.outcome is not None:
                break
            if isinstance(app.screen, ModalScreen):  # a round's score: read, go on
                await pilot.press("enter")
                continue
            if 0 in match.active():
                before = len(match.events)
                await pilot.press("1")
                assert len(match.events) > before
        assert match.outcome is not None
        await settle(pilot)
        await pilot.press("enter")  # the Game over dialog: look at the table
        await settle(pilot)
        assert isinstance(app.screen, PlayScreen)
        assert "Play card" not in footer_keys(app)
        events = len(match.events)
        await pilot.press("1")  # and nothing happens
        assert len(match.events) == events
        # the plan the rules turned up after the last turn is not shown as at stake
        assert "No plan is played: the game is over." in screen_text(app)
        assert "Plan " not in str(screen.query_one("#aj-plan").render())
        # every seat's cards won, greens, yellows and plan points of the last
        # round are shown, and its score: with hidden counts (the default) they
        # were private until the round was scored, and the game is over
        rows = players_rows(app)
        final = screen.query_one(AgentJeanBoard).view["scoring"]
        assert "?" not in rows[1] and "?" not in rows[2], rows
        won = str(len(match.state.won_cards[1]))
        assert rows[2].split()[3:6] == [won, str(final["greens"][1]), str(final["yellows"][1])], rows
        board = screen.query_one(AgentJeanBoard)
        scoring = board.view["scoring"]
        head = rows[0].split()
        assert head[-2] == f"R{scoring['round']}"
        for i, row in enumerate(rows[1:3]):
            cells = row.split()
            assert cells[-3:-1] == [str(scoring["plan_points"][i]), str(scoring["scores"][i])], row


@run_async
async def test_long_names_are_cut_not_the_numbers(tmp_path: Path) -> None:
    """Five players at 80x24, one with a name as long as a name may be and Henry B.
    Belton: every row of the players' table is one line, its numbers whole."""
    names = ["Ada", "Bastien", "Chloé-Marguerite Exupéry", "Denis", "Elsa"]
    assert len(names[2]) == NAME_MAX
    seats = [{"name": n, "agent": a} for n, a in zip(names, AGENTS[::-1], strict=True)]
    controllers = [{"kind": "human"}] + [{"kind": "bot", "level": "easy"}] * 4
    match = new_match(GAME, 5, seats, controllers, seed=3, bot_seed=3, arranged={"leader": 2})
    app = app_for(tmp_path, start_save(tmp_path, match))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        rows = players_rows(app)
        assert len(rows) == 6, rows
        assert rows[0].split() == ["Player", "Hand", "Won", "G", "Y", "Pts", "Medals"]
        long = next(r for r in rows if "Chloé" in r)
        # the others' won piles are not to be looked at (hidden counts, the default)
        assert "…" in long and long.split()[-6:] == ["5+6", "?", "?", "?", "?", "-"]
        mine = next(r for r in rows if "Ada" in r)
        assert mine.split()[-6:] == ["6+6", "0", "0", "0", "0", "-"]
        # she leads: the top line ends with the start of her name and …
        static = app.screen.query_one("#aj-round")
        (line,) = [s.text for s in static.render_lines(static.content_region.reset_offset)]
        assert "Lead Chloé" in line and line.rstrip().endswith("…"), line
        assert any("Elsa Henry " in r for r in rows), rows  # Henry B. Belton, short


# -- the powers' choices -------------------------------------------------------------


@run_async
async def test_henrys_choice_lists_every_player_and_leads_with_the_one_chosen(tmp_path: Path) -> None:
    app = power_app(tmp_path, "henry", players=5)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        board = app.screen.query_one(AgentJeanBoard)
        options = board.query_one("#aj-choices")
        assert options.has_focus and options.border_title == "Henry B. Belton: who leads this turn?"
        assert [str(o.prompt) for o in options.options] == [f"{n} leads this turn" for n in NAMES]
        # the choice box is whole on the screen, under the players
        assert options.region.bottom <= 23 and options.region.height == 7
        await pilot.press("down", "down", "enter")
        await settle(pilot)
        match = app.screen.match
        chosen = [e for e in match.events if e["t"] == "LeaderChosen" and e["reason"] == "henry"]
        assert [e["seat"] for e in chosen] == [2]


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_snapshot_agent_jean_henry_chooses_who_leads(snap_compare, tmp_path: Path, size) -> None:
    assert snap_compare(power_app(tmp_path, "henry", players=5), terminal_size=size, run_before=settle)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_snapshot_agent_jean_wxt_chooses_a_card(snap_compare, tmp_path: Path, size) -> None:
    async def play_then_choose(pilot) -> None:
        await settle(pilot)
        await pilot.press("1")
        await settle(pilot)

    assert snap_compare(power_app(tmp_path, "wxt", players=3), terminal_size=size, run_before=play_then_choose)


def counts_app(save_dir: Path, counts: str):
    """Ada (human, seat 1) and two easy bots, no powers; Bastien leads, and
    Ada has played her last card of the first turn: a bot won it and the
    second turn is under way when she must play again."""
    seats = [{"name": NAMES[i], "agent": a} for i, a in enumerate(AGENTS[:3])]
    controllers = [{"kind": "human"}] + [{"kind": "bot", "level": "easy"}] * 2
    match = new_match(
        GAME,
        3,
        seats,
        controllers,
        seed=5,
        bot_seed=5,
        variants={"young": "on", "counts": counts},
        arranged={"leader": 1},
    )
    return app_for(save_dir, start_save(save_dir, match))


@pytest.mark.parametrize("counts", ["hidden", "open"])
@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_snapshot_agent_jean_counts_mid_round(snap_compare, tmp_path: Path, size, counts) -> None:
    """With hidden counts (the default) the others' Won, G and Y are ``?``
    and the last turn's take stays in sight while the next is played; with
    open counts everyone's are on the table, as before."""

    async def lose_the_first_turn(pilot) -> None:
        await settle(pilot)
        await pilot.press("6")
        await settle(pilot)

    assert snap_compare(counts_app(tmp_path, counts), terminal_size=size, run_before=lose_the_first_turn)


@run_async
async def test_while_a_rounds_score_waits_for_you_the_status_line_says_so(tmp_path: Path) -> None:
    """A round scored against a bot: its score sheet waits for Ada's Enter, and the bot waits
    with it (it leads the next turn, or answers her lead); the status line says that the
    sheet is hers to read, not that the table waits for the bot. Read, it says the move again."""
    from tui.widgets import ScoreSheetDialog

    app = play_app(tmp_path, humans=1, players=2, seed=5)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = next(s for s in app.screen_stack if isinstance(s, PlayScreen))
        match = screen.match
        for _ in range(400):
            await settle(pilot)
            if isinstance(app.screen, ScoreSheetDialog) or match.outcome is not None:
                break
            if 0 in match.active():
                await pilot.press("1")
        assert isinstance(app.screen, ScoreSheetDialog), "no round was scored"
        status = "\n".join(screen_text(app).splitlines()[:1])
        assert "Waiting for" not in status and "score sheet" in status, status
        # a seat gone meanwhile (at a served table, where the others' updates come on) is said too,
        # the game's name and the seat's still in the line's 80 columns
        screen.knows.away = [1]
        screen.refresh_status()
        await pilot.pause()
        status = screen_text(app).splitlines()[0]
        assert status.strip() == "L'Agent Jean! · You: Ada · Read the score sheet, then Enter. Away: Bastien.", status
        screen.knows.away = []
        screen.refresh_status()
        sheet = app.screen.sheet
        await pilot.press("enter")
        await settle(pilot)
        status = screen_text(app).splitlines()[0]
        assert "score sheet" not in status, status
        assert ("Ada, your move." in status) == (0 in match.active()), status
        # read once, the sheet comes back with s (the footer offers it), and Enter leaves it
        moves = match.move_count
        assert "s Scores" in screen_text(app).splitlines()[-1]
        await pilot.press("s")
        assert isinstance(app.screen, ScoreSheetDialog) and app.screen.sheet == sheet
        await pilot.press("enter")
        assert app.screen is screen and match.move_count == moves


@run_async
async def test_no_scores_key_before_a_round_is_scored(tmp_path: Path) -> None:
    app = play_app(tmp_path, humans=1, players=2, seed=5)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert "Scores" not in screen_text(app).splitlines()[-1]
        await pilot.press("s")
        assert isinstance(app.screen, PlayScreen)


def played_out(players: int) -> Any:
    """A game of bots only, played to its end."""
    from table import Table
    from tests.tui_helpers import agent_jean_match

    match = agent_jean_match(humans=0, players=players, seed=3)
    Table(match).play_out(level="easy")
    return match


@contextlib.asynccontextmanager
async def replay_board(tmp_path: Path, match: Any) -> AsyncIterator[tuple[Any, AgentJeanBoard]]:
    """The replay of ``match`` at its first move, at 120x40: the pilot and the board."""
    from screens.app import CabinetApp

    app = CabinetApp(save_dir=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        app.open_replay(match, tmp_path / "x.cab", at=1)
        await pilot.pause()
        yield pilot, app.screen.query_one(AgentJeanBoard)


@run_async
async def test_a_replay_with_everything_revealed_shows_each_reserve_card(tmp_path: Path) -> None:
    """Every hand and every reserve, card by card: the face-down six of each player, which
    their hand takes up later, were only counted ("reserve 6")."""
    from core.engine import ALL

    match = played_out(players=2)
    async with replay_board(tmp_path, match) as (pilot, board):
        shown = str(board.query_one("#aj-hands").render())
        state = match.state_at(match.events_after_moves(1))
        assert GAME.view(state, ALL)["players"][0].get("reserve_cards")
        for reserve in state.reserves:
            assert reserve and " ".join(reserve) in shown, shown
        # at the game's end nobody holds a card: no line with a name and nothing after it
        screen = pilot.app.screen
        await pilot.press("end")
        await pilot.pause()
        assert screen.position == len(match.events)
        hands = board.query_one("#aj-hands")
        assert not hands.display or all(not line.rstrip().endswith(":") for line in str(hands.render()).splitlines())


@run_async
async def test_looking_back_between_two_turns_the_plan_on_top_is_said_to_be_the_next(tmp_path: Path) -> None:
    """Right after "X wins turn N", the plan pile shows the card turned for turn N+1 while the
    round line still says turn N: the board says that turn N is won and that card is next."""
    from core.engine import ALL

    match = played_out(players=3)
    won = next(n for n, event in enumerate(match.events) if event["t"] == "TurnWon")
    between = GAME.view(match.state_at(won + 1), ALL)
    assert between["turn_over"] == "next" and between["plan_top"] == match.events[won]["revealed"]
    assert not GAME.view(match.state_at(won + 2), ALL)["turn_over"], "once the next turn starts"
    # the round's last turn won: no plan comes next in this round, none is said to
    last = next(n for n, event in enumerate(match.events) if event["t"] == "TurnWon" and event["turn"] == 12)
    round_over = GAME.view(match.state_at(last + 1), ALL)
    assert round_over["turn_over"] == "round"
    async with replay_board(tmp_path, match) as (pilot, board):
        board.draw(between, None)
        await pilot.pause()
        plan = str(board.query_one("#aj-plan").render())
        turn = match.events[won]["turn"]
        card = str(pile_card_text(between["plan_top"], details=True)).split("\n")[0]
        assert plan.startswith(f"Turn {turn} is won. Next: {card}"), plan
        assert f"Turn {turn}/12" in str(board.query_one("#aj-round").render())
        board.draw(round_over, None)
        await pilot.pause()
        assert str(board.query_one("#aj-plan").render()) == "Turn 12 is won: the round is over."
