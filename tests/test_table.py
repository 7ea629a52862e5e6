"""The table layer: one table specification, one take-back rule, one way to seed and drive bots,
at a table on one terminal as at a served one."""

from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path
from typing import Any

import pytest

from core.engine import ConfigError, Event, Match, make_header
from core.games import all_games
from saves import SaveWriter, load
from table import TAKE_BACK_RULE, BotRunner, SeatSpec, Table, TableSpec, think
from table.spec import BOT, HUMAN
from tests.toygame import ToyGame
from tests.tui_helpers import NAMES, app_for, run_async, screen_text, settle
from tui.session import start_save
from tui.widgets import Curtain

README = Path(__file__).resolve().parent.parent / "README.md"


def hot_seat_with_a_bot(seed: int = 5) -> Table:
    """Ada and Bastien on one terminal, a bot in the third seat (Agent Jean!)."""
    seats = [SeatSpec(HUMAN, name="Ada"), SeatSpec(HUMAN, name="Bastien"), SeatSpec(BOT, "easy", "Chloé")]
    return Table(TableSpec("agent-jean", 3, seats, seed=seed, bot_seed=seed).build())


def test_the_readme_says_the_one_take_back_rule() -> None:
    said = " ".join(README.read_text().split())
    assert TAKE_BACK_RULE in said


def test_a_player_who_has_not_moved_is_told_so_not_that_another_has_played() -> None:
    """The issue's new user: two humans and a bot; ``u`` before one's first move."""
    table = hot_seat_with_a_bot()
    while True:
        seat = table.active()[0]
        assert table.submit(seat, table.bot_move(seat)) is None
        if seat in (0, 1):
            break
    other = 1 - seat
    assert table.takeback_refusal(other) == "You have made no move yet to take back."


def test_a_move_stays_played_once_another_human_has_moved() -> None:
    table = hot_seat_with_a_bot()
    order: list[int] = []
    while not (0 in order and 1 in order[order.index(0) + 1 :] if 0 in order else False):
        seat = table.active()[0]
        assert table.submit(seat, table.bot_move(seat)) is None
        order.append(seat)
    assert table.takeback_refusal(0) == "Your last move cannot be taken back: Bastien has played since."
    assert table.take_back(0) is not None and table.match.moves[-1].seat == order[-1]  # nothing changed


def test_against_bots_the_bots_answers_go_with_the_move() -> None:
    """A player's move and the bot's answer that showed the player nothing (the toy game played
    face up) are taken back together, and the table is as it was before the player's move."""
    from table import new_match

    game = OpenToy()
    table = Table(
        new_match(
            game,
            2,
            [{"name": "Ada"}, {"name": "Bot"}],
            [{"kind": "human"}, {"kind": "bot", "level": "random"}],
            seed=4,
            bot_seed=4,
        )
    )
    watched: list[bool] = []
    table.watchers.append(watched.append)
    while 0 not in table.active():
        table.submit(table.active()[0], table.bot_move(table.active()[0]))
    before, kept = list(table.match.events), len(table.match.moves)
    assert table.submit(0, table.bot_move(0)) is None
    answers = 0
    while table.outcome is None and 0 not in table.active():
        table.submit(table.active()[0], table.bot_move(table.active()[0]))
        answers += 1
    assert answers >= 1 and table.takeback_refusal(0) is None
    assert table.take_back(0) is None
    assert table.match.events == before and len(table.match.moves) == kept and watched[-1] is True


def test_against_bots_a_bot_answer_that_shows_something_ends_the_right() -> None:
    """1988: the bot's card and Chirac's new hand are news to him: his move stays played."""
    seats = [SeatSpec(HUMAN, name="Ada"), SeatSpec(BOT, "random", "Bot")]
    table = Table(TableSpec("chirac-mitterrand", 2, seats, seed=3, bot_seed=3).build())
    while 0 not in table.active():
        table.submit(table.active()[0], table.bot_move(table.active()[0]))
    table.submit(0, table.bot_move(0))
    assert table.takeback_refusal(0) is None  # nothing new for Chirac yet: the bot has not answered
    while table.outcome is None and 0 not in table.active():
        table.submit(1, table.bot_move(1))
    refusal = table.takeback_refusal(0)
    assert refusal == "Your last move cannot be taken back: something hidden was shown since (a card, a result)."
    assert table.take_back(0) == refusal


def test_a_move_that_showed_its_player_a_card_says_so_when_it_cannot_be_taken_back() -> None:
    """Ministères: Ada's first move takes a card and ends the deal, and the next deal draws her a
    card from the deck: she has seen it, so the move stays played, and the sentence says that her
    own move showed it (not that something was shown since: nothing was)."""
    seats = [SeatSpec(HUMAN, name="Ada"), SeatSpec(BOT, "random", "Bot")]
    table = Table(TableSpec("ministeres", 2, seats, seed=3, bot_seed=3).build())
    while 0 not in table.active():
        table.submit(table.active()[0], table.bot_move(table.active()[0]))
    assert table.submit(0, {"t": "Take", "card": "armee-F"}) is None
    move = table.match.moves[-1]
    assert move.seat == 0 and move.end == len(table.match.events), "nobody has moved since"
    drawn = [e for e in table.match.events[move.start : move.end] if e["t"] == "CardDrawn"]
    assert [(e["seat"], e["card"]) for e in drawn] == [(0, "divertissement-H")]
    refusal = table.takeback_refusal(0)
    assert refusal == "Your last move cannot be taken back: it showed you what was hidden (a card drawn, a result)."
    assert table.take_back(0) == refusal


class OpenToy(ToyGame):
    """The toy game played face up: nothing is news to anyone, so a move may be taken back."""

    def reveals(self, event: Event, seat: int) -> bool:
        return False


def test_saving_is_a_step_the_table_takes_not_the_match(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A move played on the match alone is not saved; one played at the table is, before anybody
    is told of it; a take-back cuts the save back; a save that fails is said, and the game goes on."""
    game = OpenToy()
    games = {game.id: game}

    def new() -> Match:
        config = game.make_config(2, [{"name": "Ada"}, {"name": "Bot"}], {"rounds": "3"})
        controllers = [{"kind": "human"}, {"kind": "bot", "level": "random"}]
        return Match.new(game, make_header(game, config, 11, controllers, bot_seed=11))

    # the match alone: its writer is told nothing
    alone = new()
    with SaveWriter(tmp_path / "alone.cab", alone) as writer:
        started = (tmp_path / "alone.cab").read_bytes()
        for _ in range(3):
            seat = alone.active()[0]
            alone.submit(seat, Table(alone).bot_move(seat))
        assert (tmp_path / "alone.cab").read_bytes() == started and writer.error is None
    assert load(tmp_path / "alone.cab", games).match.move_count == 0

    # at the table: every move saved before the watchers hear of it
    match = new()
    path = tmp_path / "table.cab"
    said: list[str] = []
    table = Table(match, SaveWriter(path, match, on_error=said.append))

    def saved() -> Match:
        return load(path, games).match

    heard: list[tuple[bool, bool]] = []  # (cut, the save held the table's moves when told)
    table.watchers.append(lambda cut: heard.append((cut, saved().events == match.events)))

    def play() -> None:
        seat = table.active()[0]
        assert table.submit(seat, table.bot_move(seat)) is None

    for _ in range(4):  # Ada, the bot, Ada, the bot
        play()
    assert table.take_back(0) is None  # Ada's last move, with the bot's answer
    assert match.move_count == 2 and saved().events == match.events
    assert heard == [(False, True)] * 4 + [(True, True)]
    assert said == []

    # a disk that fails: said once each, in one sentence, and the game goes on
    def no_space(*args: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", no_space)
    play()
    assert match.move_count == 3
    assert said == ["Could not save table.cab: No space left on device."]
    assert table.take_back(0) is None
    assert match.move_count == 2
    assert said[1:] == ["Could not cut table.cab back: No space left on device."]
    monkeypatch.undo()
    play()  # the next move saves the whole game again
    assert table.writer is not None and table.writer.error is None
    assert saved().events == match.events and len(said) == 2
    table.close()


def test_a_reveal_to_another_human_ends_the_right() -> None:
    """Two humans: a card played face up is news to the other, so the move stays played."""
    table = hot_seat_with_a_bot()
    while table.active()[0] not in (0, 1):
        seat = table.active()[0]
        table.submit(seat, table.bot_move(seat))
    seat = table.active()[0]
    table.submit(seat, table.bot_move(seat))
    refusal = table.takeback_refusal(seat)
    other = "Bastien" if seat == 0 else "Ada"
    assert refusal == f"Your last move cannot be taken back: it showed {other} what was hidden (a card, a choice)."


def test_bots_are_seeded_by_position_the_same_inline_and_in_a_runner() -> None:
    """One bot seed: a table played out inline, and the same table driven by the runner that
    local tables and servers use, make the same game."""
    spec = TableSpec("ministeres", 3, [SeatSpec(BOT, "easy")] * 3, seed=8, bot_seed=9)
    inline = Table(spec.build())
    inline.play_out()
    driven = Table(spec.build())

    async def drive() -> None:
        runner = BotRunner(driven, delay=0.0)
        done = asyncio.Event()
        driven.watchers.append(lambda cut: done.set() if driven.outcome is not None else None)
        runner.kick()
        await asyncio.wait_for(done.wait(), 120)

    asyncio.run(drive())
    assert driven.match.events == inline.match.events
    fresh = Table(spec.build())
    turn = fresh.bot_turn(fresh.active()[0])
    assert think(turn) == think(turn)  # a worker process makes the same bot of the same turn


@pytest.mark.parametrize(
    ("spec", "sentence"),
    [
        (TableSpec("whist", 2), r"There is no game 'whist' here \(games: .*\)\."),
        (TableSpec("agent-jean", 9), r"Agent Jean! is played by 2 to 5 players, not 9\."),
        (TableSpec("agent-jean", 2, [SeatSpec(BOT, "genius")]), r"has no bot level 'genius'"),
        (
            TableSpec("agent-jean", 2, [SeatSpec(HUMAN, name="x" * 25)]),
            r"The name of seat 1 has 25 characters; a name has 24 at most\.",
        ),
        (TableSpec("agent-jean", 2, [SeatSpec("alien")]), r"Seat 1 is a human's or a bot's\."),
        (TableSpec("agent-jean", 2, [SeatSpec(HUMAN, options={"hat": "red"})]), r"has no seat option 'hat'\."),
        (TableSpec("agent-jean", 2, variants={"speed": "fast"}), r"has no variant 'speed'"),
        (TableSpec("agent-jean", 2, seed=-1), r"A seed is a whole number from 0 to 2\*\*63 - 1\."),
        (TableSpec("agent-jean", 2, [SeatSpec(), SeatSpec(), SeatSpec()]), r"2 players but 3 seats were described\."),
        (
            TableSpec("agent-jean", 3, [SeatSpec(HUMAN, name="Ann"), SeatSpec(BOT), SeatSpec(HUMAN, name=" ann ")]),
            r"^Seats 1 and 3 have the same name: give each player a name of their own\.$",
        ),
    ],
)
def test_a_table_that_cannot_be_is_refused_in_one_sentence(spec: TableSpec, sentence: str) -> None:
    with pytest.raises(ConfigError) as refused:
        spec.check()
    assert re.search(sentence, str(refused.value)), str(refused.value)
    assert str(refused.value).count("\n") == 0


@pytest.mark.parametrize(
    ("plain", "sentence"),
    [
        ([], "A table is described by a map."),
        ({"game": "agent-jean", "players": 2, "seats": [{}]}, "A table needs a number of players and as many seats."),
        ({"game": "agent-jean", "players": True, "seats": []}, "A table needs a number of players and as many seats."),
        ({"game": "agent-jean", "players": 1, "seats": ["bot"]}, "Each seat is a player's or a bot's."),
        ({"game": "agent-jean", "players": 1, "seats": [{"kind": "bot", "level": 3}]}, "A bot's level is a word."),
        (
            {"game": "agent-jean", "players": 0, "seats": [], "variants": {"a": 1}},
            "Variants are a map of names to choices.",
        ),
    ],
)
def test_a_table_asked_of_a_hall_is_read_as_untrusted(plain: object, sentence: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(sentence)):
        TableSpec.from_plain(plain)


def test_a_spec_goes_over_the_wire_and_comes_back_the_same() -> None:
    for game_id, game in all_games().items():
        seats = [
            SeatSpec(HUMAN, name=NAMES[0]),
            *[SeatSpec(BOT, level) for level in game.bot_levels[: game.min_players - 1]],
        ]
        seats += [SeatSpec() for _ in range(max(0, game.min_players - len(seats)))]
        spec = TableSpec(game_id, max(game.min_players, len(seats)), seats)
        again = TableSpec.from_plain(spec.to_plain())
        assert again.to_plain() == spec.to_plain()
        again.check()


@run_async
async def test_take_back_is_offered_at_a_hot_seat_table_and_says_why_not(tmp_path: Path) -> None:
    """The same rule on one terminal: with two humans the key is there, and before a first move it
    says there is none to take back (not that the other has played)."""
    table = hot_seat_with_a_bot()
    app = app_for(tmp_path, start_save(tmp_path, table.match))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        while isinstance(app.screen, Curtain):  # the first human to act sits down
            await pilot.press("enter")
            await settle(pilot)
        screen = next(s for s in app.screen_stack if hasattr(s, "runner"))
        assert screen.check_action("takeback", ()) is True
        await pilot.press("u")
        await pilot.pause()
        said = [n.message for n in app._notifications]

        assert said and said[-1] == "You have made no move yet to take back.", screen_text(app)


def test_a_seat_counts_moves_as_the_table_does_from_its_updates_alone() -> None:
    """The status line's "Looking back: move M of N" counts moves, at a table here and at one
    joined: the seat's log, fed only the updates a server would send, counts as the match does,
    and knows which moves were its own (what is news since)."""
    from table.seat import SeatLog

    table = hot_seat_with_a_bot(seed=12)
    log = SeatLog(table.game, 0, table.description())
    told = 0
    for _ in range(40):
        if table.outcome is not None:
            break
        seat = table.active()[0]
        table.submit(seat, table.bot_move(seat))
        update = table.update_for(0, told)
        told = update["n"]
        log.apply(update)
    match = table.match
    assert log.move_count == match.move_count > 0
    ends = {move.end for move in match.moves}
    for n in range(len(match.events) + 1):
        assert log.moves_within(n) == match.moves_within(n)
        # a position inside a move shows part of it: that move is the one looked at
        inside = n not in ends and n > match.moves[0].end
        assert log.move_at(n) == match.moves_within(n) + inside
    own = [move.end for move in match.moves if move.seat == 0]
    assert log.last_own_move() == (own[-1] if own else match.moves[0].end)
    # a take-back cuts the seat's moves too
    if table.takeback_point(match.moves[-1].seat or 0) is not None:
        table.take_back(match.moves[-1].seat or 0)
        log.apply(table.update_for(0, told))
        assert log.move_count == match.move_count


def test_in_a_phase_where_several_act_the_status_says_whose_move_it_is() -> None:
    """Edgar & Lucien's programming, over ssh: the player's own programme is asked for, and the
    status says so first, naming the others who choose too, away or not."""
    from table.seat import SeatLog

    log = SeatLog(None, 0, {"seats": [{"name": "ann"}, {"name": "bob"}, {"name": "Bot 3", "kind": "bot"}]})
    log.active, log.away = [0, 1, 2], [1]
    assert log.waiting_sentence() == "ann, your move. Also choosing: bob (away), Bot 3."
    log.active = [1, 2]  # ann has programmed
    assert log.waiting_sentence() == "Waiting for bob (away), Bot 3."
    assert log.waiting_sentence(thinking=2) == "Bot 3 is thinking…"
    log.active = [2]
    assert log.waiting_sentence() == "Waiting for Bot 3. Away: bob."


def test_a_programme_laid_face_down_may_be_taken_back_while_the_other_still_chooses() -> None:
    """Edgar & Lucien, two players at one table: Ann's programme shows Bob only that it was laid;
    until Bob lays his (the reveal), Ann may take hers back and choose again."""
    seats = [SeatSpec(HUMAN, name="Ann"), SeatSpec(HUMAN, name="Bob")]
    table = Table(TableSpec("edgar-lucien", 2, seats, seed=7).build())
    while not (set(table.active()) == {0, 1} and table.match.game.legal(table.match.state, 0)[0]["t"] == "Program"):
        seat = table.active()[0]
        assert table.submit(seat, table.bot_move(seat)) is None
    assert table.submit(0, table.bot_move(0)) is None
    assert table.active() == (1,)
    assert table.takeback_refusal(0) is None
    assert table.take_back(0) is None and set(table.active()) == {0, 1}
    assert table.submit(0, table.bot_move(0)) is None and table.submit(1, table.bot_move(1)) is None
    refusal = table.takeback_refusal(1)
    assert refusal is not None and refusal.startswith("Your last move cannot be taken back:")


def test_a_joined_table_says_a_bot_whose_move_it_is_is_thinking() -> None:
    """At a served or joined table the status says "Bot 3 is thinking…" while the table waits
    for a bot alone, as at a table played here (it said "Waiting for Bot 3."); a person is
    waited for, and several seats acting at once are named."""
    from net.client import RemoteFeed
    from table.seat import SeatLog

    log = SeatLog(None, 0, {"seats": [{"name": "ann"}, {"name": "bob"}, {"name": "Bot 3", "kind": "bot"}]})
    feed = RemoteFeed(log)  # type: ignore[arg-type]  # (what it reads of a RemoteTable is its SeatLog)
    log.active = [2]
    assert log.waiting_sentence(feed.thinking) == "Bot 3 is thinking…"
    log.active = [1]
    assert log.waiting_sentence(feed.thinking) == "Waiting for bob."
    log.active = [1, 2]
    assert log.waiting_sentence(feed.thinking) == "Waiting for bob, Bot 3."
    log.active = [0]
    assert log.waiting_sentence(feed.thinking) == "ann, your move."
