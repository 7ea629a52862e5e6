"""Ministères on screen: a whole game through key presses, the board with
each kind of choice open (snapshots at 80x24 and 120x40), nothing cut off."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from rich.text import Text
from textual.widgets import OptionList

import screens.games.ministeres.board as ministeres_board
from core.engine import Match
from core.games import get_game
from core.games.ministeres import cards
from saves import load
from screens.games.ministeres.board import MinisteresBoard, bid_means, cards_text, first_choice
from screens.play import PlayScreen
from tests.tui_helpers import NAMES, app_for, run_async, screen_text, settle
from tui.session import new_match, start_save
from tui.widgets import GameOver

GAME = get_game("ministeres")


def mi_app(save_dir: Path, players: int = 3, humans: int = 1, seed: int = 3):
    controllers = [{"kind": "human"}] * humans + [{"kind": "bot", "level": "easy"}] * (players - humans)
    seats = [{"name": n} for n in NAMES[:players]]
    match = new_match(GAME, players, seats, controllers, seed=seed, bot_seed=seed)
    return app_for(save_dir, start_save(save_dir, match))


@run_async
async def test_a_whole_game_against_bots_through_key_presses(tmp_path: Path) -> None:
    app = mi_app(tmp_path, players=3, seed=5)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = next(s for s in app.screen_stack if isinstance(s, PlayScreen))
        match = screen.match
        for _ in range(3000):
            await settle(pilot)
            if match.outcome is not None:
                break
            if 0 in match.active() and isinstance(app.screen, PlayScreen):
                before = len(match.events)
                board = app.screen.query_one(MinisteresBoard)
                # pass in auctions when offered, else the first choice
                await pilot.press("p" if any(c["t"] == "Pass" for c in board.choices) else "enter")
                await settle(pilot)
                assert len(match.events) > before, "a key press of the player did nothing"
        assert match.outcome is not None
        assert isinstance(app.screen, GameOver)
        assert load(screen.path).match.events == match.events
        status = str(screen.query_one("#mi-status").content)
        assert status.startswith("Game over") and "Final:" in status and "Deal" not in status


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_snapshot_ministeres_in_play(snap_compare, tmp_path: Path, size) -> None:
    assert snap_compare(mi_app(tmp_path, seed=21), terminal_size=size, run_before=settle)


def played_to(players: int, seed: int, stop) -> Match:
    """A match played with seeded random commands (in an auction, pass or
    raise by one) until ``stop(state)`` holds with Ada (seat 0) to move; the
    other seats are bots."""
    controllers = [{"kind": "human"}] + [{"kind": "bot", "level": "easy"}] * (players - 1)
    seats = [{"name": n} for n in NAMES[:players]]
    match = new_match(GAME, players, seats, controllers, seed=seed, bot_seed=seed)
    rng = random.Random(seed)
    for _ in range(5000):
        (seat,) = match.active()
        if seat == 0 and stop(match.state):
            return match
        legal = GAME.legal(match.state, seat)
        if match.state.phase == "auction":
            match.submit(seat, legal[-1] if rng.random() < 0.5 else legal[0])
        else:
            match.submit(seat, rng.choice(legal))
    raise AssertionError("the position never came")


#: the choice box open: placing a drawn card (5 players, the widest table),
#: bidding with a bid and a pass made (3 players), paying for an Or card with
#: cards face down (2 players, many of your cards on the Favours pile)
POSITIONS = {
    "place": (5, 2, lambda s: s.phase == "gifts" and s.deal > 5 and s.limits == (1, 4, 1)),
    "bid": (3, 4, lambda s: s.phase == "auction" and s.bidder is not None and s.passed and s.auction_no > 3),
    "pay": (2, 6, lambda s: s.phase == "pay" and s.pay_kind == "cards" and s.owed - s.paid > 1),
}


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
@pytest.mark.parametrize("position", list(POSITIONS))
def test_snapshot_ministeres_choices(snap_compare, tmp_path: Path, position: str, size) -> None:
    players, seed, stop = POSITIONS[position]
    match = played_to(players, seed, stop)
    app = app_for(tmp_path, start_save(tmp_path, match))
    assert snap_compare(app, terminal_size=size, run_before=settle)


@run_async
async def test_cards_alike_are_one_choice_when_paying(tmp_path: Path) -> None:
    """Three Or 1 in hand: the pay menu offers "Or 1" once, says there are
    three, and choosing it pays one of them."""
    from core.engine import make_header
    from tests.test_ministeres_rules import bid, finish_gifts, two_player_gifts

    deck = two_player_gifts(["or1-01", "or1-02", "or1-03", "or2-01"], [], ["armee-D"])
    config = GAME.make_config(2, [{"name": "Ada"}, {"name": "Bastien"}], None)
    favours = [deck[3 * k + 2] for k in range(36)]
    header = make_header(
        GAME,
        config,
        1,
        [{"kind": "human"}, {"kind": "bot", "level": "easy"}],
        bot_seed=1,
        arranged={"deck": deck, "dealer": 0, "favours": favours},
    )
    match = Match.new(GAME, header)
    finish_gifts(match)
    bid(match, 4)
    bid(match, None)
    assert match.active() == (0,) and match.state.phase == "pay"
    app = app_for(tmp_path, start_save(tmp_path, match))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        board = app.screen.query_one(MinisteresBoard)
        labels = [str(o.prompt) for o in board.query_one("#mi-choices").options]
        ones = [label for label in labels if "Or 1" in label or "¤1" in label]
        assert len(ones) == 1 and "(3 in hand)" in ones[0]  # (short: a payment line stays one line at 80 columns)
        assert len(labels) == len(board.choices) == len({str(c["card"])[:3] for c in board.choices})
        await pilot.press("enter")  # the first choice: one Or 1
        await settle(pilot)
        paid = [e for e in match.events if e["t"] == "CardPaid"]
        assert len(paid) == 1 and paid[0]["card"].startswith("or1")
        assert sum(c.startswith("or1") for c in match.state.hands[0]) == 2


@run_async
async def test_no_choice_or_line_is_cut_off_at_80x24(tmp_path: Path) -> None:
    """Placing, bidding, paying: every choice fits the box whole, and no line
    of the table ends in an ellipsis."""
    for position, (players, seed, stop) in POSITIONS.items():
        save_dir = tmp_path / position
        app = app_for(save_dir, start_save(save_dir, played_to(players, seed, stop)))
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            options = app.screen.query_one("#mi-choices", OptionList)
            assert options.option_count > 1
            width = options.scrollable_content_region.width
            for k in range(options.option_count):
                label = options.get_option_at_index(k).prompt
                assert isinstance(label, Text) and label.cell_len <= width, (position, label)
            assert "…" not in app.export_screenshot(), position


@run_async
async def test_five_players_names_and_counts_stay_on_one_row_at_80x24(tmp_path: Path) -> None:
    """ "Hands: Ada 8, Bastien 8, Chloé 8, Denis 10, Elsa" then " 8" on the next row: the
    no-break spaces that should have kept them together were broken at (a play-test)."""
    app = mi_app(tmp_path, players=5, seed=3)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        board = app.screen.query_one("#board")
        view = board.view
        rows = [row.rstrip() for row in screen_text(app).splitlines()]
        hands = [f"{NAMES[i]} {p['hand']}" for i, p in enumerate(view["players"])]
        assert all(any(hand in row for row in rows) for hand in hands), (hands, rows)
        assert not any(row.endswith(tuple(NAMES[:5])) for row in rows), rows


def test_a_row_never_breaks_at_a_kept_space() -> None:
    from tui.widgets import KEEP, kept_together

    text = Text("Hands: " + ", ".join(f"Name{KEEP}{n}" for n in range(10, 16)))
    text.stylize("bold", 0, 6)
    rows = kept_together(text, 30)
    assert rows.plain.split("\n") == ["Hands: Name 10, Name 11,", "Name 12, Name 13, Name 14,", "Name 15"]
    assert KEEP not in rows.plain
    assert [(s.start, s.end, s.style) for s in rows.spans] == [(0, 6, "bold")]
    assert kept_together(text, 0) is text  # no room known: as it is


def test_a_roi_of_two_ministries_reads_as_one_card() -> None:
    """ "Roi +1 Diplomatie/Armée": in a list of cards and in the history, one card, not two."""
    assert cards_text(["roi-13", "or2-01"]).plain.replace("\u00a0", " ") == "♛Roi +1 Diplomatie/Armée, ¤Or 2"
    event = {"t": "CardTaken", "seat": 1, "name": "Bastien", "card": "roi-15"}
    assert GAME.describe(event, 0) == "Bastien takes Roi +1 Divertissement/Victuailles from the centre."


@run_async
async def test_the_final_score_says_why_the_winner_won_a_tie(tmp_path: Path) -> None:
    """A tie on 8 points and 2 Primaire tokens, won on the Gouvernement total:
    the end of the game says so, in the reason and under the score table."""
    from tests.test_ministeres_tiebreak import GOVERNMENT, ending

    match = ending(*GOVERNMENT)
    app = app_for(tmp_path, start_save(tmp_path, match))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, GameOver)
        assert "Ann wins with the stronger government (Gouvernement cards worth 45)" in app.screen.text
        notes = " ".join(n.strip() for n in app.screen.sheet.notes)
        assert "tied on 8 points and 2 Primaire tokens, Gouvernement cards worth 45 to Bob's 43." in notes


@run_async
async def test_on_another_seats_move_the_choices_say_whose_it_is_and_offer_nothing(tmp_path: Path) -> None:
    """Ada and Bastien at one table: on Bastien's move, Ada's list says under "Waiting" whose
    move it is and what he decides, lists none of her old choices, and the footer offers no
    Choose; neither Enter nor p (pass) plays anything, and the box keeps the height her choices
    gave it; on her move she has her choices, and Enter plays.  In the auctions, as her screen
    takes in Bastien's bid, it offers Choose at once (in the frame that shows the move, not in
    one of its own after it), and her list of bids, the same size, asks for no layout of the
    screen (issue 35: each such update was two frames, the second for the footer, and the whole
    screen laid out for the list's new lines)."""
    import asyncio

    from textual.widget import Widget
    from textual.widgets._footer import FooterKey

    from net.client import RemoteTable
    from net.server import load_or_make_codes
    from screens.app import CabinetApp
    from tests.test_remote import join, serve, until
    from tui.widgets import ChoiceList

    # the table played on to a few moves before its first auction (each seat's first legal
    # command, as Bastien plays below): what is walked by keys is those moves and the auctions
    # (the 140-odd moves before them, each walked so, took the test 37 s)
    game = get_game("ministeres")
    match = new_match(game, 2, [{"name": n} for n in NAMES[:2]], [{"kind": "human"}] * 2, seed=3, bot_seed=3)
    while match.state.phase != "auction":
        seat = match.active()[0]
        match.submit(seat, game.legal(match.state, seat)[0])
    match.truncate_moves(match.move_count - 6)
    writer = start_save(tmp_path, match, durable=False)
    server = await serve(writer, load_or_make_codes(writer.path, match))
    codes = server.codes
    go = asyncio.Event()

    async def bastien(remote: RemoteTable) -> None:
        while (message := await remote.receive()) is not None:
            if message["t"] != "update":
                continue
            remote.apply(message)
            if remote.outcome is not None:
                return
            if remote.legal:
                await go.wait()
                go.clear()
                remote.command(remote.legal[0])

    task = asyncio.create_task(bastien(await join(server, 1)))
    asked: list[bool] = []  # the layouts the list of choices asked for since Bastien's move
    real_refresh = Widget.refresh

    def refresh(self: Widget, *regions, **kwargs):  # type: ignore[no-untyped-def]
        if isinstance(self, ChoiceList):
            asked.append(bool(kwargs.get("layout")))
        return real_refresh(self, *regions, **kwargs)

    try:
        app = CabinetApp(save_dir=tmp_path / "ada", bot_delay=0)
        async with app.run_test(size=(80, 24)) as pilot:
            assert await app.join(RemoteTable(server.address, codes[0]))
            screen, match = app.screen, server.match
            options = screen.query_one("#mi-choices", ChoiceList)
            board = screen.query_one(MinisteresBoard)

            def choose_key() -> FooterKey | None:
                return next((k for k in screen.query(FooterKey) if k.action == "select" and k.display), None)

            offered: list[bool] = []  # after each update taken in: whether the footer offers Choose
            real_updated = screen.updated

            def updated(update):  # type: ignore[no-untyped-def]
                real_updated(update)
                offered.append(choose_key() is not None)

            screen.updated = updated  # type: ignore[method-assign]
            Widget.refresh = refresh  # type: ignore[method-assign]
            kept: int | None = None  # the box's height while Ada waited, in the auctions
            bids_back = 0

            def seen() -> bool:
                return len(screen.remote.events) == len(match.events)

            waited_in_auctions, place = 0, None
            for _ in range(400):
                await until(seen, pilot)
                if 0 in match.active():
                    await until(lambda: not options.waiting and options.option_count > 0, pilot)
                    # the highlight where an Enter at once plays what the player would (first_choice)
                    first = first_choice(board.choices, board.view)
                    assert options.display and not options.waiting and options.highlighted == first
                    assert (key := choose_key()) is not None and not key.has_class("-disabled")
                    if kept is not None and match.state.phase == "auction":
                        bids_back += 1  # (the first time: the footer mounts the Pass key it has not shown yet)
                        assert bids_back == 1 or offered[-1:] == [True], offered
                        if options.outer_size.height == kept:
                            assert not any(asked), asked  # the same box: no layout of the screen
                    place = True
                    if waited_in_auctions == 1:  # the history, in and out, then the move by keys
                        await pilot.press("h", "up")
                        assert screen.browsing is not None and options.waiting
                        assert options.border_title == "Looking back"
                        await pilot.press("escape")
                        assert screen.browsing is None and not options.waiting
                        assert options.highlighted == first and options.has_focus
                    before, height = len(match.events), options.outer_size.height
                    await pilot.press("enter")
                    await until(lambda before=before: len(match.events) > before, pilot)
                    assert len(match.events) > before, "Enter on Ada's move played nothing"
                    continue
                if place is not None:  # Ada has had choices: the list says whose move it is now
                    await until(lambda: options.waiting, pilot)
                    assert options.display and options.border_title == "Waiting"
                    assert options.option_count == 1 and options.highlighted is None
                    said = str(options.get_option_at_index(0).prompt)
                    assert said == match.game.waiting_for(match.state) and "Bastien" in said, said
                    assert choose_key() is None
                    # the box keeps the height Ada's choices gave it (more where the sentence
                    # needs more): the board does not jump, nor is it laid out and drawn whole,
                    # at every move; in the auctions her bids fill it
                    assert options.outer_size.height >= height, (options.outer_size.height, height)
                    if match.state.phase == "auction":
                        assert options.outer_size.height == height, (options.outer_size.height, height)
                    before = len(match.events)
                    await pilot.press("enter", "p")
                    await asyncio.sleep(0.05)
                    await pilot.pause()
                    assert len(match.events) == before, "a key played on Bastien's move"
                    if match.state.phase == "auction":
                        waited_in_auctions += 1
                        if waited_in_auctions == 3:
                            break
                before = len(match.events)
                kept = options.outer_size.height if place is not None and match.state.phase == "auction" else None
                offered.clear()
                asked.clear()
                go.set()
                await until(lambda before=before: len(match.events) > before, pilot)
            assert waited_in_auctions == 3 and bids_back >= 2
    finally:
        Widget.refresh = real_refresh  # type: ignore[method-assign]
        task.cancel()
        await server.close()


@run_async
async def test_a_spectator_sees_the_tokens_and_no_column_of_cards_it_does_not_have(tmp_path: Path) -> None:
    """Watching a table, the ministries' table holds the tokens only: a spectator has no
    hand and the others' are hidden, so there is no "Your cards (sum)" column (it was a
    column of zeros); a seat's player still has it."""
    from net.client import RemoteTable
    from screens.app import CabinetApp
    from tests.test_remote import hosted, serve, until

    names = list(cards.MINISTRY_NAMES.values())
    writer, codes = hosted(tmp_path, "ministeres", 3, 1, seed=21)  # Ada, away: the table waits for her
    server = await serve(writer, codes)
    try:
        for code in (None, codes[0]):
            app = CabinetApp(save_dir=tmp_path / "client", bot_delay=0)
            async with app.run_test(size=(80, 24)) as pilot:
                assert await app.join(RemoteTable(server.address, code))

                def rows(app: CabinetApp = app) -> list[list[str]]:
                    """The ministries' table as the screen shows it, left of the history."""
                    lines = [line.split("│")[0].split() for line in screen_text(app).splitlines()]
                    return [words for words in lines if words and words[0] in ("Ministère", *names)]

                await until(lambda: len(rows()) == 7, pilot)
                text = screen_text(app)
                head, *ministries = rows()
                assert [m[0] for m in ministries] == names, text
                if code is None:
                    assert "Watching" in text and "Your cards" not in text
                    assert head == ["Ministère", "Prim", "Sec"], text
                    assert all(len(m) == 3 and m[1].isdigit() and m[2].isdigit() for m in ministries), text
                else:
                    assert "You: Ada" in text and head == ["Ministère", "Prim", "Sec", "Your", "cards", "(sum)"], text
                    assert all(len(m) >= 4 and m[3].isdigit() for m in ministries), text
    finally:
        await server.close()


# -- bids and payments at 80x24 (issue 34) -----------------------------------------------------------


def board_and_box(app) -> tuple[MinisteresBoard, OptionList]:
    board = app.screen.query_one(MinisteresBoard)
    return board, board.query_one("#mi-choices", OptionList)


@run_async
async def test_bids_beyond_your_gold_are_marked(tmp_path: Path) -> None:
    players, seed, stop = POSITIONS["bid"]
    match = played_to(players, seed, stop)
    gold = cards.gold(match.state.hands[0])
    app = app_for(tmp_path, start_save(tmp_path, match))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        board, box = board_and_box(app)
        for index, command in enumerate(board.choices):
            line = str(box.get_option_at_index(index).prompt)
            if command["t"] == "Bid" and command["amount"] > gold:
                assert line == f"Bid {command['amount']}  more than your {gold} gold: unpaid"
            else:
                assert "more than" not in line, line


def can_pay_no_bid(s) -> bool:
    """Ada to bid, every bid over what she can pay (her gold, or her cards for an Or card)."""
    if s.phase != "auction":
        return False
    means = bid_means(GAME.view(s, 0))
    return means is not None and all(c["amount"] > means[0] for c in GAME.legal(s, 0) if c["t"] == "Bid")


@run_async
async def test_enter_at_once_never_makes_a_bid_you_cannot_pay(tmp_path: Path) -> None:
    """The highlight starts on the lowest bid you can pay, or on Pass when you can pay none: an
    unpaid bid costs a card, so a stray Enter must not make one (a play-test's Enter did)."""
    for stop, payable in ((POSITIONS["bid"][2], True), (can_pay_no_bid, False)):
        match = played_to(3, 4, stop)
        app = app_for(tmp_path / str(payable), start_save(tmp_path / str(payable), match))
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            board, box = board_and_box(app)
            means = bid_means(board.view)
            assert means is not None
            first = board.choices[box.highlighted]
            bids = [c for c in board.choices if c["t"] == "Bid" and c["amount"] <= means[0]]
            assert bool(bids) == payable
            assert first == (bids[0] if payable else {"t": "Pass"}), (first, means)
            # in sight at once: Pass and the lowest bid (the list opened at its foot, on Pass,
            # when no bid could be paid, the lowest bid fifteen rows up)
            lowest = min(c["amount"] for c in board.choices if c["t"] == "Bid")
            top, rows = round(box.scroll_offset.y), box.scrollable_content_region.height
            shown = [str(box.get_option_at_index(i).prompt) for i in range(top, min(top + rows, box.option_count))]
            assert "Pass" in shown and any(line.startswith(f"Bid {lowest}") for line in shown), shown
            await pilot.press("enter")
            await settle(pilot)
            made = [e for e in match.events if e.get("seat") == 0 and e["t"] in ("BidMade", "Passed")][-1]
            assert made["t"] == ("BidMade" if payable else "Passed"), made


def overpays_in_gold(s) -> bool:
    """Ada to pay in Or cards, holding one worth more than what is left to pay."""
    left = s.owed - s.paid if s.phase == "pay" else 0
    return s.pay_kind == "gold" and any(cards.is_or(c) and cards.value(c) > left for c in s.hands[0]) and left > 0


@run_async
async def test_an_or_card_worth_more_than_is_owed_says_by_how_many_no_change_being_given(tmp_path: Path) -> None:
    match = played_to(3, 4, overpays_in_gold)
    state = match.state
    left = state.owed - state.paid
    app = app_for(tmp_path, start_save(tmp_path, match))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        board, box = board_and_box(app)
        lines = {c["card"]: str(box.get_option_at_index(i).prompt) for i, c in enumerate(board.choices)}
        for card, line in lines.items():
            over = cards.value(card) - left
            assert (f"({over} too many)" in line) == (over > 0), line
        assert any("too many" in line for line in lines.values())
        room = box.scrollable_content_region.width
        assert all(len(line) <= room for line in lines.values()), (room, lines)  # each choice one line


@run_async
async def test_a_bid_is_typed_digit_by_digit_and_enter_makes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ministeres_board, "clock", lambda: 0.0)  # the digits typed without a pause
    players, seed, stop = POSITIONS["bid"]
    match = played_to(players, seed, stop)
    low = match.state.bid + 1
    app = app_for(tmp_path, start_save(tmp_path, match))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        board, box = board_and_box(app)
        assert "type it" in str(box.border_title)
        await pilot.press("1")  # no bid 1 (the bid is past it): the first bid in the tens
        assert board.choices[box.highlighted]["amount"] == 10
        await pilot.press("2")
        assert board.choices[box.highlighted]["amount"] == 12
        await pilot.press("1", "5")  # 1215 is no bid: a new number, 15
        assert board.choices[box.highlighted]["amount"] == 15
        await pilot.press("down", "0")  # the arrows moved on: 0 starts afresh, and is no bid
        assert board.choices[box.highlighted]["amount"] == 16
        assert app._notifications and f"You can bid from {low} to" in list(app._notifications)[-1].message
        await pilot.press("2", "0", "enter")
        await settle(pilot)
        made = [e for e in match.events if e["t"] == "BidMade" and e["seat"] == 0][-1]
        assert made["amount"] == 20


@run_async
async def test_paying_for_an_or_card_offers_the_cheapest_card_first_each_with_its_cost(tmp_path: Path) -> None:
    players, seed, stop = POSITIONS["pay"]
    match = played_to(players, seed, stop)
    hand = match.state.hands[0]
    app = app_for(tmp_path, start_save(tmp_path, match))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        board, box = board_and_box(app)
        paid = [c["card"] for c in board.choices]
        values = [0 if cards.is_roi(c) else cards.value(c) for c in paid]
        assert values == sorted(values)  # the cheapest first
        assert box.highlighted == 0
        for index, card in enumerate(paid):
            line = str(box.get_option_at_index(index).prompt)
            if cards.is_or(card):
                gold = cards.gold(hand)
                assert f"(gold {gold} → {gold - cards.value(card)})" in line, line
            elif cards.is_gouvernement(card):
                total = sum(
                    cards.value(c)
                    for c in hand
                    if cards.is_gouvernement(c) and cards.ministry(c) == cards.ministry(card)
                )
                assert f"(sum {total} → {total - cards.value(card)})" in line, line
        # the first Or 1 comes before the Gouvernement cards worth 1
        assert cards.is_or(paid[0]) and cards.value(paid[0]) == 1
        await pilot.press("enter")
        await settle(pilot)
        assert [e for e in match.events if e["t"] == "CardPaid"][-1]["card"] == paid[0]


def test_a_replay_that_sees_everything_names_who_drew_and_says_no_you() -> None:
    """A replay's eyes are no seat's: the card drawn is the dealer's, named, and the Favours pile
    is everybody's, not "yours"; a seat's own eyes still say "you"."""
    from core.engine import ALL

    match = new_match(GAME, 3, [{"name": n} for n in NAMES[:3]], [{"kind": "human"}] * 3, seed=3, bot_seed=3)
    rng = random.Random(3)
    while not (match.state.phase == "gifts" and match.state.drawn and match.state.favours):
        seat = match.active()[0]
        match.submit(seat, rng.choice(GAME.legal(match.state, seat)))
    dealer = match.state.dealer
    board = MinisteresBoard()
    seen, more = board.table(GAME.view(match.state, ALL), NAMES[:3])
    said = seen.plain + "\n" + more.plain
    assert f"{NAMES[dealer]} drew: " in said and "On the Favours pile: " in said, said
    assert "you" not in said.lower().replace("young", ""), said
    own, _ = board.table(GAME.view(match.state, dealer), NAMES[:3])
    assert "You drew: " in own.plain


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
@pytest.mark.parametrize("players", [3, 5])
@run_async
async def test_bidding_at_80x24_keeps_the_offer_who_passed_and_your_favours_in_sight(
    tmp_path: Path, size, players: int
) -> None:
    """An auction on a short terminal: the bids show four at a time, so that what is on offer,
    who passed and Ada's cards on the Favours pile stay in sight around them (the box of seven
    bids pushed them out of sight at 80x24, with five players and with three, where only the
    mouse could scroll to them); a tall terminal shows seven."""
    from tui.widgets import BoardScroll, ChoiceList

    match = played_to(
        players, 7, lambda s: s.phase == "auction" and s.bidder is not None and len(s.passed) >= 1 and s.placed[0]
    )
    app = app_for(tmp_path, start_save(tmp_path, match))
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        board = app.screen.query_one(MinisteresBoard)
        choices = board.query_one("#mi-choices", ChoiceList)
        text = screen_text(app)
        assert "On offer:" in text and "passed:" in text and "Your bid" in text, text
        assert "Yours on the Favours pile:" in text, text
        assert board.query_one(BoardScroll).max_scroll_y == 0, text  # the whole table in sight
        assert choices.scrollable_content_region.height == (4 if size == (80, 24) else 7)
        assert board.has_class("-crowded") == (size == (80, 24))
        await pilot.resize_terminal(*((120, 40) if size == (80, 24) else (80, 24)))  # the other size, live
        await settle(pilot)
        assert board.has_class("-crowded") == (size != (80, 24))


@run_async
async def test_the_first_auctions_bids_open_with_pass_in_sight(tmp_path: Path) -> None:
    """The bids listed for the first time (the game's first auction, for 2, 3 and 5 players):
    Pass and the lowest bids in sight, the highlight on the lowest you can pay (the new list
    scrolled its highlight to the top, and Pass, above it, was out of sight)."""
    for players in (2, 3, 5):
        # Ada's last move before the auctions, then Enter until her bids come: the list of
        # another phase's choices becomes the bids, as in a game played on
        match = played_to(players, 4, lambda s: s.phase != "auction" and s.auction_no == 0 and len(s.deck) < 12)
        app = app_for(tmp_path / str(players), start_save(tmp_path / str(players), match))
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            board, box = board_and_box(app)
            for _ in range(40):
                if any(c["t"] == "Bid" for c in board.choices) and 0 in match.active():
                    break
                await pilot.press("enter")
                await settle(pilot)
            assert match.state.phase == "auction" and match.state.auction_no == 1, match.state.phase
            top, rows = round(box.scroll_offset.y), box.scrollable_content_region.height
            shown = [str(box.get_option_at_index(i).prompt) for i in range(top, min(top + rows, box.option_count))]
            lowest = min(c["amount"] for c in board.choices if c["t"] == "Bid")
            assert shown[0] == "Pass" and shown[1].startswith(f"Bid {lowest}"), (players, shown)
            assert box.highlighted == first_choice(board.choices, board.view)


@run_async
async def test_after_a_pause_the_next_digit_starts_a_new_bid(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """1, a pause, then 2: the highlight on the first bid of the twenties, not on 12 (a
    play-test's 7, a pause, then 12 made 71, 712, and so 2)."""
    now = [100.0]
    monkeypatch.setattr(ministeres_board, "clock", lambda: now[0])
    players, seed, stop = POSITIONS["bid"]
    match = played_to(players, seed, stop)
    app = app_for(tmp_path, start_save(tmp_path, match))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        board, box = board_and_box(app)
        await pilot.press("1")
        now[0] += 0.5
        await pilot.press("6")  # within the pause: one number, 16
        assert board.choices[box.highlighted]["amount"] == 16
        now[0] += ministeres_board.TYPING_PAUSE + 1
        await pilot.press("1")
        assert board.choices[box.highlighted]["amount"] == 10
        now[0] += ministeres_board.TYPING_PAUSE + 1
        await pilot.press("2")
        assert board.choices[box.highlighted]["amount"] == 20
