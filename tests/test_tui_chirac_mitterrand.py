"""1988 on screen: played through key presses, solo and against a bot.

A turn is chosen in up to three steps (the card, its action, what becomes of
the two other cards); at 80x24 every option of a step must be told apart,
and the table must fit with the turn line in view.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.text import Text

from core.games import get_game
from core.games.chirac_mitterrand import cards as C
from saves import load
from screens.app import CabinetApp
from screens.games.chirac_mitterrand.board import NARROW_ROOM, CampaignDialog, ChiracMitterrandBoard, CMChoiceList
from screens.play import PlayScreen
from tests.tui_helpers import app_for, run_async, screen_text, settle
from tui.session import new_match, start_save
from tui.widgets import GameOver, HistoryPanel

GAME = get_game("chirac-mitterrand")

#: Chirac's first three cards: Attentats de Paris (two neutral actions, one a choice icon),
#: Mitterrand à Moscou (a choice icon, and Mitterrand's own), the wealth tax (the longest name)
OPENING = ["ev:08", "ev:06", "ev:07"]


def two_player_stack() -> dict:
    rest = [c for c in C.EVENT_IDS if c not in OPENING]
    return {"chirac": OPENING + rest[:7], "mitterrand": rest[7:17], "discard": rest[17:], "campaign": []}


def round_three_stack() -> dict:
    """Chirac's third hand is OPENING: in round 3 the two cards he passes on come up in two
    different hands of Mitterrand's, so their order is asked."""
    rest = [c for c in C.EVENT_IDS if c not in OPENING]
    return {"chirac": rest[:6] + OPENING + rest[6:7], "mitterrand": rest[7:17], "discard": rest[17:], "campaign": []}


def two_quiet_rounds(match) -> None:
    """Rounds 1 and 2, each candidate playing a neutral action: no erosion, no campaign."""
    for _ in range(4):
        (seat,) = match.active()
        legal = GAME.legal(match.state, seat)
        match.submit(seat, next(c for c in legal if C.actions(c["card"])[c["action"]].colour == "white"))
    assert GAME.view(match.state, 0)["turn"] == 5


def solo_stack() -> dict:
    """The automated Mitterrand's eight cards, two of each kind; yours open as in two_player_stack."""
    theirs = ["ev:10", "ev:11", "ev:01", "ev:02", "ev:03", "ev:04", "ev:05", "ev:09"]
    mine = OPENING + [c for c in C.EVENT_IDS if c not in OPENING and c not in theirs]
    return {"chirac": mine, "mitterrand": theirs, "campaign": []}


def cm_app(
    save_dir: Path,
    players: int = 2,
    humans: int = 1,
    seed: int = 3,
    candidate: str = "chirac",
    stack: dict | None = None,
    before=None,
    variants: dict | None = None,
):
    other = "mitterrand" if candidate == "chirac" else "chirac"
    seats = [{"name": "Jacques" if candidate == "chirac" else "François", "candidate": candidate}]
    if players == 2:
        seats.append({"name": "François" if candidate == "chirac" else "Jacques", "candidate": other})
    controllers = [{"kind": "human"}] * humans + [{"kind": "bot", "level": "easy"}] * (players - humans)
    extra = {"arranged": stack} if stack else {}
    match = new_match(GAME, players, seats, controllers, seed=seed, bot_seed=seed, variants=variants, **extra)
    if before is not None:
        before(match)  # the opening moves, played as commands before the screen opens
    return app_for(save_dir, start_save(save_dir, match))


def board_of(app) -> ChiracMitterrandBoard:
    return next(s for s in app.screen_stack if isinstance(s, PlayScreen)).query_one(ChiracMitterrandBoard)


def option_lines(board: ChiracMitterrandBoard, room: int = NARROW_ROOM + 1) -> list[tuple[str, ...]]:
    """Each option of the choice box as it shows: its lines cut to the box's width."""
    options = board.query_one("#cm-choices", CMChoiceList)
    out = []
    for i in range(options.option_count):
        prompt = options.get_option_at_index(i).prompt
        plain = prompt.plain if isinstance(prompt, Text) else str(prompt)
        out.append(tuple(line[:room] for line in plain.split("\n")))
    return out


def assert_fits(board: ChiracMitterrandBoard) -> None:
    """At 80x24: no scrollbar, the turn line at the top, every option told apart."""
    table = board.query_one("#cm-table")
    assert table.max_scroll_y == 0, "the table scrolls at 80x24"
    assert board.query_one("#cm-turn").region.y == board.region.y
    if board.query_one("#cm-choices").display:
        lines = option_lines(board)
        assert len(set(lines)) == len(lines), lines
        assert board.query_one("#cm-choices").max_scroll_y == 0


async def play_through(pilot, seat: int = 0, limit: int = 600, check: bool = False) -> PlayScreen:
    """Answer every question the game asks seat 0 with the first thing offered
    (``check``: at every step, the table fits 80x24 and its options differ)."""
    app = pilot.app
    screen = next(s for s in app.screen_stack if isinstance(s, PlayScreen))
    match = screen.match
    for _ in range(limit):
        await settle(pilot)
        if match.outcome is not None:
            break
        if isinstance(app.screen, CampaignDialog):
            await pilot.press("enter")
        elif seat in match.active() and isinstance(app.screen, PlayScreen):
            before = len(match.events)
            for _ in range(3):  # the card, its action, the order of the other two
                if check:
                    assert_fits(board_of(app))
                await pilot.press("enter")
                await settle(pilot)
                if len(match.events) > before or isinstance(app.screen, CampaignDialog):
                    break
            assert len(match.events) > before or isinstance(app.screen, CampaignDialog)
    return screen


@run_async
async def test_a_whole_game_against_the_bot_through_key_presses(tmp_path: Path) -> None:
    app = cm_app(tmp_path, players=2, humans=1, seed=5)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await play_through(pilot, check=True)
        match = screen.match
        assert match.outcome is not None
        assert isinstance(app.screen, GameOver)
        assert load(screen.path).match.events == match.events


@run_async
async def test_a_whole_solo_game_through_key_presses_fits_80x24(tmp_path: Path) -> None:
    app = cm_app(tmp_path, players=1, humans=1, seed=8, candidate="mitterrand")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await play_through(pilot, check=True)
        assert screen.match.outcome is not None
        assert screen.match.game.view(screen.match.state, 0)["solo"]


@pytest.mark.parametrize("looking_back", [False, True])
@run_async
async def test_number_keys_pick_a_card_and_escape_goes_back(tmp_path: Path, looking_back: bool) -> None:
    """And from the history too: the box says "(1-3, Enter)" while the history has the keys,
    and its digits did nothing there.  With the table as it is in sight (h), a digit goes
    back to play and picks that card; looking back at a past hand, it only goes back to play
    (that hand's second card may not be the second now: a play-test's L'Agent Jean! played
    a card it never saw)."""
    app = cm_app(tmp_path, players=2, humans=1, seed=5)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        board = board_of(app)
        hand = board.view["hand"]
        await pilot.press("h")
        if looking_back:
            await pilot.press("up")
            assert isinstance(app.screen.focused, HistoryPanel) and app.screen.browsing is not None
            await pilot.press("2")
            await pilot.pause()
            assert app.screen.browsing is None and not isinstance(app.screen.focused, HistoryPanel)
            assert board.card is None and board.view["hand"] == hand  # nothing picked: the hand now in sight
            await pilot.press("2")
        else:
            assert isinstance(app.screen.focused, HistoryPanel)
            await pilot.press("2")
        await pilot.pause()
        assert app.screen.browsing is None and not isinstance(app.screen.focused, HistoryPanel)
        assert board.card == hand[1]
        assert board.listed and all(kind in ("action", "command") for kind, _ in board.listed)
        await pilot.press("escape")
        assert board.card is None


@run_async
async def test_a_card_picked_before_looking_back_is_still_picked_after(tmp_path: Path) -> None:
    """A card picked, its action still to choose, then a look at the history: coming back
    went to "Play which card?" again, the card dropped (a play-test)."""
    app = cm_app(tmp_path, players=2, humans=1, seed=5)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        board = board_of(app)
        hand = board.view["hand"]
        await pilot.press("2")
        title = str(board.query_one("#cm-choices", CMChoiceList).border_title)
        assert board.card == hand[1] and "which action?" in title
        for keys in (("h", "up", "escape"), ("h", "up", "enter"), ("h", "up", "h"), ("h", "up", "down")):
            await pilot.press(*keys)
            await pilot.pause()
            await pilot.pause()
            assert app.screen.browsing is None, keys
            assert board.card == hand[1], keys
            assert str(board.query_one("#cm-choices", CMChoiceList).border_title) == title, keys
            if keys[-1] == "down":  # (stepped forward to now: the history still has the keys)
                await pilot.press("escape")
        await pilot.press("escape")  # and Esc still puts the card back
        assert board.card is None


@run_async
async def test_h_again_or_enter_leaves_the_history_as_esc_does(tmp_path: Path) -> None:
    """h opened the history and did not close it; Enter did nothing there (a play-test)."""
    app = cm_app(tmp_path, players=2, humans=1, seed=5)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for keys in (("h", "h"), ("h", "up", "enter"), ("h", "up", "escape")):
            await pilot.press(*keys)
            await pilot.pause()
            assert app.screen.browsing is None and not isinstance(app.screen.focused, HistoryPanel), keys
            assert "Jacques, your move." in screen_text(app).splitlines()[0]


@run_async
async def test_the_choice_box_stays_in_sight_after_the_command_palette_was_opened(tmp_path: Path) -> None:
    """The box was a class named as Textual's palette's own list (CommandList), whose style
    hides it: once the palette had been opened (Ctrl-P, even for its Keys), 1988's card choice
    was gone for the rest of the session, its keys still playing cards unseen."""
    table = cm_app(tmp_path, players=2, humans=1, seed=5)
    app = CabinetApp(save_dir=tmp_path, bot_delay=0)  # at the menu, then at that table
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+p")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        app.open_game(table.start.writer)
        await settle(pilot)
        box = board_of(app).query_one("#cm-choices", CMChoiceList)
        assert box.visible and box.region.height >= 5, (box.styles.visibility, box.region)
        assert "Play which card?" in screen_text(app)


@run_async
async def test_a_turn_in_three_steps_card_action_then_which_card_is_drawn_first(tmp_path: Path) -> None:
    app = cm_app(tmp_path, stack=round_three_stack(), before=two_quiet_rounds)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        board = board_of(app)
        match = board.screen.match
        assert board.view["hand"] == OPENING
        await pilot.press("1")  # Attentats de Paris: a) courage, b) a quality of your choice
        box = board.query_one("#cm-choices", CMChoiceList)
        assert "which action?" in str(box.border_title)
        # what differs (the quality picked) comes before the words that are alike
        firsts = [line[0] for line in option_lines(board)]
        # each with the digit that picks it: a) and b) are the card's, not keys
        assert firsts[0] == "1. a) [W] Cou  The nation stands firm"
        assert [line[: line.index(")  ") + 1] for line in firsts[1:]] == [
            "2. b) [W] Charisma (your pick)",
            "3. b) [W] Courage (your pick)",
            "4. b) [W] Integrity (your pick)",
        ]
        assert_fits(board)
        await pilot.press("down", "down", "down", "enter")  # b), choosing Integrity
        assert board.action == (1, ("integrity",))
        assert str(box.border_title) == "Under François's pile: which comes up first?"
        # the card that differs comes first, and says who draws it
        assert option_lines(board) == [
            ("1. François draws Mitterrand à Moscou first", "   then Suppression de l'IGF"),
            ("2. François draws Suppression de l'IGF first", "   then Mitterrand à Moscou"),
        ]
        assert str(board.query_one("#cm-hand").render()) == "You play Attentats de Paris: b) [W] Integrity"
        assert_fits(board)
        # Esc goes back one step, then another
        await pilot.press("escape")
        assert board.card == "ev:08" and board.action is None
        await pilot.press("escape")
        assert board.card is None
        await pilot.press("1", "4", "2")  # the digits: b) choosing Integrity, the second order
        await settle(pilot)
        played = [e for e in match.events if e["t"] == "CardPlayed" and e["by"] == "chirac"][-1]
        assert (played["card"], played["action"], played["choices"]) == ("ev:08", 1, ["integrity"])
        slid = [e for e in match.events if e["t"] == "CardsSlid" and e["by"] == "chirac"][-1]
        assert slid["cards"] == ["ev:07", "ev:06"]  # the one named first is drawn first


@run_async
async def test_where_the_order_cannot_matter_it_is_not_asked_and_the_option_says_why(tmp_path: Path) -> None:
    app = cm_app(tmp_path, stack=two_player_stack())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        board = board_of(app)
        match = board.screen.match
        await pilot.press("1")  # Attentats de Paris, turn 1: Mitterrand draws both in his fourth hand
        box = board.query_one("#cm-choices", CMChoiceList)
        assert "which action?" in str(box.border_title)
        lines = option_lines(board)
        assert len(lines) == 4  # a), then b) with each quality: no order to choose after them
        assert all(line[1] == "   the other two: drawn together by François" for line in lines)
        assert_fits(board)
        await pilot.press("down", "enter")  # b), choosing Charisma: played at once
        await settle(pilot)
        played = next(e for e in match.events if e["t"] == "CardPlayed")
        assert (played["card"], played["action"], played["choices"]) == ("ev:08", 1, ["charisma"])
        slid = next(e for e in match.events if e["t"] == "CardsSlid")
        assert slid["cards"] == ["ev:06", "ev:07"]  # as they were in the hand


@run_async
async def test_a_card_with_one_action_and_nothing_to_order_says_so_and_its_digit_plays_it(tmp_path: Path) -> None:
    app = cm_app(tmp_path, stack=two_player_stack())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        board = board_of(app)
        match = board.screen.match
        await pilot.press("3")  # the wealth tax, turn 1: only its neutral action, the order cannot matter
        box = board.query_one("#cm-choices", CMChoiceList)
        assert str(box.border_title).endswith(": its only action")  # not "which action?" of one
        assert len(board.listed) == 1 and option_lines(board)[0][0].startswith("1. a) ")
        await pilot.press("1")
        await settle(pilot)
        played = next(e for e in match.events if e["t"] == "CardPlayed")
        assert (played["card"], played["action"]) == ("ev:07", 0)


@run_async
async def test_a_card_with_one_action_to_offer_goes_straight_to_the_order(tmp_path: Path) -> None:
    app = cm_app(tmp_path, stack=round_three_stack(), before=two_quiet_rounds)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        board = board_of(app)
        await pilot.press("3")  # the wealth tax: only its neutral action is Chirac's to play
        assert board.action == (0, ())
        assert "which comes up first?" in str(board.query_one("#cm-choices", CMChoiceList).border_title)
        await pilot.press("escape")  # back to the cards, the skipped step is not shown
        assert board.card is None


@run_async
async def test_solo_the_last_step_says_what_is_removed_and_what_is_kept(tmp_path: Path) -> None:
    app = cm_app(tmp_path, players=1, stack=solo_stack())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        board = board_of(app)
        await pilot.press("2", "1")  # Mitterrand à Moscou, its neutral action choosing Charisma
        assert str(board.query_one("#cm-choices", CMChoiceList).border_title) == "Remove one card, keep the other"
        assert option_lines(board) == [
            ("1. Remove Attentats de Paris from the game", "   keep Suppression de l'IGF under your pile"),
            ("2. Remove Suppression de l'IGF from the game", "   keep Attentats de Paris under your pile"),
        ]
        assert_fits(board)


def chirac_wears_out_twice(match) -> None:
    """Chirac plays his own action, Mitterrand a neutral one, Chirac his own again:
    his second Power Erosion gives Mitterrand a campaign draw."""
    for _ in range(3):
        (seat,) = match.active()
        legal = GAME.legal(match.state, seat)
        own = "blue" if GAME.view(match.state, seat)["you"] == "chirac" else "white"
        match.submit(seat, next(c for c in legal if C.actions(c["card"])[c["action"]].colour == own))
    assert GAME.view(match.state, 0)["phase"] == "campaign"


def campaign_stack() -> dict[str, list]:
    """Piles arranged so that Chirac wears his out and Mitterrand draws campaign cards 5, 9, 2."""
    rest = [c for c in C.EVENT_IDS if c not in ("ev:01", "ev:02")]
    return {
        "chirac": ["ev:01"] + rest[:2] + ["ev:02"] + rest[2:8],
        "mitterrand": rest[8:18],
        "discard": rest[18:],
        "campaign": [["cp:05", "cp:09", "cp:02"]],
    }


@run_async
async def test_the_campaign_draw_asks_the_card_then_what_to_remove(tmp_path: Path) -> None:
    stack = campaign_stack()
    # the first set of campaign cards (variant campaign=first), where Barre names no quality
    app = cm_app(
        tmp_path, stack=stack, candidate="mitterrand", before=chirac_wears_out_twice, variants={"campaign": "first"}
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        match = board_of(app).screen.match
        dialog = app.screen
        assert isinstance(dialog, CampaignDialog)
        box = dialog.query_one(CMChoiceList)
        # the board's turn line names the drawer, whose move it is, not the player whose turn it is
        turn = str(board_of(app).query_one("#cm-turn").render())
        assert "Campaign draw: " in turn and "To play" not in turn, turn

        def labels() -> list[str]:
            return [str(o.prompt).split(":")[0] for o in box.options]

        # the cards, each with what it does; the quality is the next step's
        assert labels() == [  # each with the digit that picks it
            "1. Apply Lettre à tous les Français",
            "2. Apply Les sondages",
            "3. Apply Candidature de Raymond Barre",
        ]
        assert "Move the Integrity token one step" in str(box.options[0].prompt)
        # what the draw is about stays in view: the Opinion rows and the Power Erosion counts
        text = screen_text(app)
        assert "Charisma" in text and "Integrity" in text and "Media " in text
        assert "Power Erosion: Jacques (C) 2/6 · François (M) 0/6" in text
        await pilot.press("enter")  # the letter: which quality?
        assert str(box.border_title) == "Applying Lettre à tous les Français: which quality? (Esc: back)"
        assert labels() == ["1. Charisma", "2. Courage", "3. Integrity"]
        await pilot.press("enter")  # Charisma: the step after says so
        # (the title fits 80 columns: "Applying" went, it was cut)
        assert str(box.border_title) == "Lettre à tous les Français, choosing Charisma: remove which? (Esc: back)"
        assert [str(o.prompt) for o in box.options] == [
            "1. Remove Les sondages; Candidature de Raymond Barre goes back",
            "2. Remove Candidature de Raymond Barre; Les sondages goes back",
        ]
        await pilot.press("escape", "escape")  # back to the qualities, then to the cards
        assert len(box.options) == 3 and box.border_title == "Apply which card? (Esc: later)"
        await pilot.press("3")  # Barre names no quality in the first set: straight to what to remove
        assert str(box.border_title) == "Candidature de Raymond Barre: remove which? (Esc: back)"
        await pilot.press("escape", "1", "1", "down", "enter")
        await settle(pilot)
        applied = next(e for e in match.events if e["t"] == "CampaignApplied")
        assert (applied["applied"], applied["quality"], applied["removed"]) == ("cp:05", "charisma", "cp:02")


def slide_then_answer(match) -> None:
    """Chirac plays Attentats de Paris and slides Mitterrand à Moscou, then the wealth tax,
    under Mitterrand's pile; Mitterrand answers with a neutral action."""
    match.submit(0, {"t": "PlayCard", "card": "ev:08", "action": 0, "under": ["ev:06", "ev:07"]})
    legal = GAME.legal(match.state, 1)
    match.submit(1, next(c for c in legal if C.actions(c["card"])[c["action"]].colour == "white"))


@run_async
async def test_the_cards_you_slid_are_listed_in_the_order_your_opponent_draws_them(tmp_path: Path) -> None:
    app = cm_app(tmp_path, stack=two_player_stack(), before=slide_then_answer)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        board = board_of(app)
        lines = str(board.query_one("#cm-piles").render()).split("\n")
        at = next(i for i, line in enumerate(lines) if line.startswith("François"))
        assert lines[at + 1 : at + 3] == [
            "   you slid, in draw order: Mitterrand à Moscou,",
            "   Suppression de l'impôt sur les grandes fortunes",
        ]
        assert_fits(board)


# -- snapshots -----------------------------------------------------------------------


async def choose_card(pilot) -> None:
    await settle(pilot)
    await pilot.press("1")


async def choose_action(pilot) -> None:
    await settle(pilot)
    await pilot.press("1", "4")


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_snapshot_chirac_mitterrand_in_play(snap_compare, tmp_path: Path, size) -> None:
    assert snap_compare(cm_app(tmp_path, seed=21), terminal_size=size, run_before=settle)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_snapshot_chirac_mitterrand_choosing_the_action(snap_compare, tmp_path: Path, size) -> None:
    app = cm_app(tmp_path, stack=two_player_stack())
    assert snap_compare(app, terminal_size=size, run_before=choose_card)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_snapshot_chirac_mitterrand_choosing_the_order(snap_compare, tmp_path: Path, size) -> None:
    app = cm_app(tmp_path, stack=round_three_stack(), before=two_quiet_rounds)
    assert snap_compare(app, terminal_size=size, run_before=choose_action)


def test_snapshot_chirac_mitterrand_cards_you_slid(snap_compare, tmp_path: Path) -> None:
    app = cm_app(tmp_path, stack=two_player_stack(), before=slide_then_answer)
    assert snap_compare(app, terminal_size=(80, 24), run_before=settle)


def test_snapshot_chirac_mitterrand_solo(snap_compare, tmp_path: Path) -> None:
    assert snap_compare(cm_app(tmp_path, players=1, seed=21), terminal_size=(80, 24), run_before=settle)


def first_move(match) -> None:
    match.submit(0, GAME.legal(match.state, 0)[0])
    assert GAME.view(match.state, 0)["phase"] == "veto"  # the automaton turns over a card with neutral actions


def test_snapshot_chirac_mitterrand_solo_veto(snap_compare, tmp_path: Path) -> None:
    app = cm_app(tmp_path, players=1, stack=solo_stack(), before=first_move)
    assert snap_compare(app, terminal_size=(80, 24), run_before=settle)


def test_snapshot_chirac_mitterrand_solo_remove_or_keep(snap_compare, tmp_path: Path) -> None:
    app = cm_app(tmp_path, players=1, stack=solo_stack())
    assert snap_compare(app, terminal_size=(80, 24), run_before=choose_action)


def the_hard_automaton_campaigns(match) -> None:
    """Solo against the hard automaton (rows of six squares a side): two own actions, our
    second Power Erosion gives it a campaign draw, face up; then its own second gives us one,
    which we make at once (Fête du RPR): the history shows both."""
    for card, remove, keep in (("ev:23", "ev:22", "ev:08"), ("ev:17", "ev:11", "ev:16")):
        match.submit(0, {"t": "PlayCard", "card": card, "action": 1, "remove": remove, "under": [keep]})
    match.submit(0, {"t": "Campaign", "apply": "cp:03", "remove": "cp:10"})
    assert GAME.view(match.state, 0)["phase"] == "play"


def test_snapshot_chirac_mitterrand_solo_hard(snap_compare, tmp_path: Path) -> None:
    from tests.test_chirac_mitterrand_solo import AUTOMATON, HUMAN

    draws = [["cp:06", "cp:13", "cp:05"], ["cp:10", "cp:03", "cp:05"]]
    stack = {"chirac": HUMAN, "mitterrand": AUTOMATON, "campaign": draws}
    app = cm_app(tmp_path, players=1, stack=stack, before=the_hard_automaton_campaigns, variants={"solo": "hard"})
    assert snap_compare(app, terminal_size=(80, 24), run_before=settle)


@run_async
async def test_q_in_the_campaign_draw_goes_back_to_the_menu_and_the_draw_waits(tmp_path: Path) -> None:
    from screens.menu import MainMenu

    stack = campaign_stack()
    app = cm_app(tmp_path, stack=stack, candidate="mitterrand", before=chirac_wears_out_twice)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        match = board_of(app).screen.match
        assert isinstance(app.screen, CampaignDialog)
        assert "q Menu" in screen_text(app).splitlines()[-1]
        moves = len(match.moves)
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, MainMenu)
        assert len(match.moves) == moves and match.state.phase == "campaign"


def test_once_the_game_is_over_the_cards_slid_are_never_drawn() -> None:
    """Under a pile, the cards slid there are said in the order they will be drawn; once the
    game is over nobody draws them (it said "drawn in this order" on the final board)."""
    from screens.games.chirac_mitterrand.board import ChiracMitterrandBoard

    known = ["ev:06", "ev:07"]
    view = {"you": "chirac", "names": {"chirac": "Jacques", "mitterrand": "François"}, "to_move": "chirac"}
    during = ChiracMitterrandBoard.known_lines(None, {**view, "phase": "play"}, "chirac", known, 60)  # type: ignore[arg-type]
    over = ChiracMitterrandBoard.known_lines(None, {**view, "phase": "over"}, "chirac", known, 60)  # type: ignore[arg-type]
    assert "in draw order" in during[0] and "François slid" in during[0]
    assert "never drawn" in over[0] and "draw order" not in " ".join(over)


def test_the_media_line_fits_the_board_at_80_columns_whatever_the_names() -> None:
    """The Media token's line under the Public Opinion rows: where names are long, or the token
    is face down (the veto spent, solo), it starts from the left, then says "ahead" alone, and
    is never cut ("Media Player 1 (C) (face down)  ahead i…")."""
    from rich.console import Console

    from screens.games.chirac_mitterrand.board import NARROW_ROOM, opinion_group

    controllers = [{"kind": "human"}, {"kind": "bot", "level": "easy"}]
    match = new_match(GAME, 2, [{"name": "Jacques"}, {"name": "François"}], controllers, seed=3, bot_seed=3)
    view = GAME.view(match.state, 0)
    for names, face_down in ((view["names"], False), ({"chirac": "Player 1", "mitterrand": "Player 2"}, True)):
        shown = {**view, "names": names, "veto_used": face_down}
        console = Console(width=NARROW_ROOM + 3, record=True, color_system=None)
        console.print(opinion_group(shown))
        media = next(line for line in console.export_text().splitlines() if "Media " in line)
        assert "…" not in media and media.rstrip().endswith(f"M {media.rsplit('M ', 1)[1].strip()}"), media
        assert ("(face down)" in media) == face_down, media
