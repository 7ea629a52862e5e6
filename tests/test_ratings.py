"""Ratings (issue 36): the arithmetic moves them the right way, a finished table is rated once
(in a file, and in PostgreSQL even when two servers race for one table's end), a damaged
ratings file is said in one sentence and the server starts afresh, and a hall rates its tables
as they end and again, once, the ones it finds finished and unrated when it starts."""

from __future__ import annotations

import asyncio
import errno
import json
import random
import threading
from pathlib import Path

import pytest

from core.engine import Outcome
from core.games import get_game
from net.hall import Hall
from saves import ratings as ratings_module
from saves.format import SaveError
from saves.postgres import PostgresStore
from saves.ratings import RATINGS_FILE, FileRatings, Placed, PostgresRatings, Ratings, Result, finished_table
from saves.skill import Rating, bot_rating_name, placings, rate
from table.spec import BOT, HUMAN, SeatSpec, TableSpec
from tests.pg import cluster, drop_database, fresh_database
from tests.random_games import play_random
from tests.test_hall import STEP, lobby_of
from tests.test_hall import play_random as play_remote
from tui.serve import of_database


def result(table: str, *seats: tuple[str, int], game: str = "agent-jean", ended: float = 1000.0) -> Result:
    return Result(table, game, ended, tuple(Placed(name, place) for name, place in seats))


# -- the arithmetic ----------------------------------------------------------------------------------


def test_the_winner_goes_up_and_the_loser_down() -> None:
    after = rate({}, [("ann", 1), ("bob", 2)])
    assert after["ann"].ordinal > Rating().ordinal
    assert after["ann"].mu > Rating().mu > after["bob"].mu
    assert after["ann"].games == after["bob"].games == 1
    # and again: a loser who now wins climbs back above where they were
    again = rate(after, [("ann", 2), ("bob", 1)])
    assert again["bob"].mu > after["bob"].mu and again["ann"].mu < after["ann"].mu
    assert again["ann"].games == 2


def test_a_draw_between_equals_changes_little() -> None:
    after = rate({}, [("ann", 1), ("bob", 1)])
    won = rate({}, [("ann", 1), ("bob", 2)])
    assert after["ann"].mu == pytest.approx(Rating().mu) == pytest.approx(after["bob"].mu)
    # only the uncertainty shrinks: far less movement than a win
    moved = abs(after["ann"].ordinal - Rating().ordinal)
    assert moved < abs(won["ann"].ordinal - Rating().ordinal) / 2


def test_four_players_are_rated_in_their_order_and_a_shared_place_rates_alike() -> None:
    after = rate({}, [("ann", 1), ("bob", 2), ("cy", 2), ("dan", 4)])
    assert after["ann"].mu > after["bob"].mu > after["dan"].mu
    assert after["bob"].mu == pytest.approx(after["cy"].mu)
    # a strong player beating a newcomer learns less than the newcomer beating them
    strong = {"ann": Rating(35.0, 3.0, 30)}
    expected = rate(strong, [("ann", 1), ("eve", 2)])
    upset = rate(strong, [("ann", 2), ("eve", 1)])
    assert expected["ann"].mu - 35.0 < 35.0 - upset["ann"].mu


def test_two_seats_of_one_bot_level_rate_that_level_once_a_table() -> None:
    after = rate({}, [("ann", 1), ("Bot: hard", 2), ("Bot: hard", 3)])
    assert set(after) == {"ann", "Bot: hard"}
    assert after["Bot: hard"].games == 1 and after["Bot: hard"].mu < Rating().mu
    assert rate({}, [("Bot: hard", 1), ("Bot: hard", 2)]) == {}  # one name alone learns nothing


def test_places_come_from_the_outcome_ties_shared() -> None:
    assert placings(Outcome((1,), "", (3, 5, 1)), 3) == [2, 1, 3]
    assert placings(Outcome((0,), "", (2, 2, 2, 5)), 4) == [1, 3, 3, 2]  # a winner is first whatever its score
    assert placings(Outcome((1, 2), "", ()), 4) == [3, 1, 1, 3]  # no scores: the others share the place after
    assert placings(Outcome((), "", (4, 1)), 2) == [1, 1]  # nobody at the table won: a draw


def finished_match(game_id: str, seats: list[SeatSpec], seed: int = 3):
    game = get_game(game_id)
    assert game is not None
    match = TableSpec(game_id, len(seats), seats, {}, seed=seed, bot_seed=seed).build()
    play_random(match, seed, deep=False)
    assert match.outcome is not None
    return match


def test_a_finished_match_is_rated_under_the_players_names_and_the_bots_levels() -> None:
    match = finished_match(
        "agent-jean",
        [SeatSpec(HUMAN, None, "ann"), SeatSpec(BOT, "hard", "Bot 2"), SeatSpec(BOT, "random", "Bot 3")],
    )
    done = finished_table("t1", match, ["2026-12-06T23:00:00+00:00", "2026-12-06T23:59:30+00:00"])
    assert done is not None
    assert [seat.name for seat in done.seats] == ["ann", bot_rating_name("hard"), "Bot: random"]
    assert done.ended == pytest.approx(1796601570.0)  # the last move's time: when it ended
    assert done.game == "agent-jean" and done.table == "t1"
    winners = set(match.outcome.winners)
    assert {i for i, seat in enumerate(done.seats) if seat.place == 1} == winners


def test_a_solo_game_is_not_rated() -> None:
    match = finished_match("chirac-mitterrand", [SeatSpec(HUMAN, None, "ann")])
    assert finished_table("t2", match) is None


# -- a file ---------------------------------------------------------------------------------------------


def test_a_table_is_rated_once_and_the_file_keeps_it(tmp_path: Path) -> None:
    path = tmp_path / RATINGS_FILE
    ratings = FileRatings(path)
    assert ratings.apply(result("t1", ("ann", 1), ("bob", 2)))
    assert not ratings.apply(result("t1", ("ann", 1), ("bob", 2)))  # the same table again: nothing changes
    assert ratings.apply(result("t2", ("ann", 1), ("Bot: hard", 2), ended=2000.0))
    again = FileRatings(path)  # the server started again
    assert not again.apply(result("t1", ("ann", 1), ("bob", 2)))
    board = again.board("agent-jean", "bob")
    assert [s.name for s in board] == ["ann", "Bot: hard", "bob"]
    assert board[0].rating.games == 2 and board[0].rank == 1
    assert again.board("ministeres") == []
    assert [r.table for r in again.results("ann")] == ["t2", "t1"]  # the latest first
    assert [r.table for r in again.results("bob")] == ["t1"]
    assert again.results("bob")[0].place_of("bob") == 2
    # written as the server's other secrets are: for its user alone
    assert path.stat().st_mode & 0o077 == 0


def test_a_leaderboard_shows_the_best_and_the_askers_own_row_below_them(tmp_path: Path) -> None:
    ratings = FileRatings(tmp_path / RATINGS_FILE)
    for i in range(6):  # ann loses every table, to a new player each time
        ratings.apply(result(f"t{i}", (f"p{i}", 1), ("ann", 2), ended=1000.0 + i))
    board = ratings.board("agent-jean", "ann", limit=3)
    assert len(board) == 4 and board[-1].name == "ann" and board[-1].rank == 7
    assert [s.rank for s in board[:3]] == [1, 2, 3] and [s.name for s in board[:3]] == ["p0", "p1", "p2"]
    ratings.apply(result("draw", ("x", 1), ("y", 1), game="ministeres"))
    assert [(s.rank, s.name) for s in ratings.board("ministeres")] == [(1, "x"), (1, "y")]  # equal: one rank


@pytest.mark.parametrize(
    "content",
    [
        b"\x00\x01 not json",
        b'{"format": "cabinet ratings", "version": 1, "ratings": [["agent-jean", "ann", 25.0, -1.0, 0, 0]], "tables": []}',
        b'{"format": "cabinet ratings", "version": 1, "ratings": [["agent-jean", "ann", NaN, 8.0, 0, 0]], "tables": []}',
        b'{"format": "cabinet ratings", "version": 1, "ratings": [], "tables": [{"id": "t", "game": "g", "ended": 1, "seats": [["a", 9], ["b", 1]]}]}',
        b'{"format": "cabinet ratings", "version": 7, "ratings": [], "tables": []}',
        b"[[[[[[[[[[" * 10000,
        b'{"format": "cabinet ratings", "version": 1, "ratings": [["agent-jean", "ann", 1'
        + b"0" * 400
        + b', 8.0, 0, 0]], "tables": []}',
        b'{"format": "cabinet ratings", "version": 1, "ratings": [], "tables": [{"id": "t", "ended": 1'
        + b"0" * 5000
        + b"}]}",
        b'{"format": "cabinet ratings", "version": 1, "ratings": [], "tables": [{"id": "t", "game": "g", "ended": 1, "seats": [["a", 1], ["a", true]]}]}',
    ],
    ids=[
        "not-json",
        "negative-sigma",
        "nan",
        "place-out-of-range",
        "newer-version",
        "deep",
        "huge-mu",
        "too-long",
        "bool-place",
    ],
)
def test_a_damaged_ratings_file_is_said_in_one_sentence_and_the_ratings_start_afresh(
    tmp_path: Path, content: bytes
) -> None:
    path = tmp_path / RATINGS_FILE
    path.write_bytes(content)
    said: list[str] = []
    ratings = FileRatings(path, said.append)
    assert ratings.board("agent-jean") == []  # no crash: fresh ratings
    assert len(said) == 1
    sentence = said[0]
    assert sentence.startswith(f"The ratings file {path} is damaged (") and sentence.endswith(
        "the ratings start afresh, and it is kept as ratings.json.damaged."
    ), sentence
    assert "\n" not in sentence and "Traceback" not in sentence
    assert (tmp_path / "ratings.json.damaged").read_bytes() == content
    assert ratings.apply(result("t1", ("ann", 1), ("bob", 2)))
    assert FileRatings(path).board("agent-jean")[0].name == "ann"  # a sound file written in its place


def test_a_ratings_file_too_large_is_refused_unread(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(ratings_module, "MAX_BYTES", 1000)
    path = tmp_path / RATINGS_FILE
    path.write_bytes(b" " * 2000)
    said: list[str] = []
    assert FileRatings(path, said.append).board("agent-jean") == []
    assert "larger than" in said[0]


def test_the_file_stays_bounded_and_an_old_table_dropped_from_it_is_not_rated_again(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setattr(ratings_module, "MAX_TABLES", 3)
    monkeypatch.setattr(ratings_module, "MAX_RATINGS", 4)
    path = tmp_path / RATINGS_FILE
    ratings = FileRatings(path)
    for i in range(5):
        assert ratings.apply(result(f"t{i}", (f"p{i}", 1), ("ann", 2), ended=1000.0 + i))
    plain = json.loads(path.read_text())
    assert [t["id"] for t in plain["tables"]] == ["t2", "t3", "t4"]
    assert len(plain["ratings"]) == 4  # ann and the three who played last
    assert {row[1] for row in plain["ratings"]} == {"ann", "p2", "p3", "p4"}
    again = FileRatings(path)
    assert not again.apply(result("t0", ("p0", 1), ("ann", 2), ended=1000.0))  # dropped, not forgotten
    assert again.apply(result("t9", ("p9", 1), ("ann", 2), ended=5000.0))
    assert [s.rating.games for s in again.board("agent-jean") if s.name == "ann"] == [6]


def test_a_ratings_file_that_cannot_be_written_is_said_and_changes_nothing(tmp_path: Path, monkeypatch) -> None:
    ratings = FileRatings(tmp_path / RATINGS_FILE)
    assert ratings.apply(result("t1", ("ann", 1), ("bob", 2)))

    def full(path, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(ratings_module, "atomic_write", full)
    with pytest.raises(SaveError, match=r"^Cannot write the ratings file .*: no space left on device\.$"):
        ratings.apply(result("t2", ("ann", 2), ("bob", 1)))
    assert [(s.name, s.rating.games) for s in ratings.board("agent-jean")] == [("ann", 1), ("bob", 1)]
    monkeypatch.undo()
    assert ratings.apply(result("t2", ("ann", 2), ("bob", 1)))  # not rated then: rated when it can be
    # a ratings file that cannot be read at all (a directory in its place) is said, not a crash
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / RATINGS_FILE).mkdir()
    with pytest.raises(SaveError, match=r"^Cannot read the ratings file .*: is a directory\.$"):
        FileRatings(tmp_path / "other" / RATINGS_FILE).board("agent-jean")


# -- PostgreSQL -----------------------------------------------------------------------------------------


@pytest.fixture
def pg_db(pg_url: str):
    """A database of the test cluster for this test alone (the ratings of one test are not another's)."""
    base = cluster()
    address = fresh_database(base)
    yield address
    drop_database(base, address)


def race(ratings: list[Ratings], results: list[Result]) -> list[bool]:
    """Every one of ``ratings`` applies each result at the same moment (a barrier a result);
    what each apply answered."""
    answers: list[bool] = []
    lock = threading.Lock()
    barrier = threading.Barrier(len(ratings))

    def run(one: Ratings) -> None:
        for done in results:
            barrier.wait(timeout=30)
            applied = one.apply(done)
            with lock:
                answers.append(applied)

    threads = [threading.Thread(target=run, args=(one,)) for one in ratings]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return answers


def test_two_servers_racing_for_one_tables_end_rate_it_once(pg_db: str) -> None:
    stores = [PostgresStore(pg_db), PostgresStore(pg_db)]
    try:
        ratings = [PostgresRatings(store) for store in stores]
        rng = random.Random(5)
        results = []
        for i in range(25):
            names = rng.sample(["ann", "bob", "cy", "Bot: hard", "Bot: easy"], rng.randint(2, 4))
            places = sorted(rng.randint(1, len(names)) for _ in names)
            results.append(result(f"race{i}", *zip(names, places, strict=True), ended=1000.0 + i))
        answers = race(ratings, results)
        assert answers.count(True) == len(results) and answers.count(False) == len(results)
        # each name has played exactly the tables it sat at, and the ratings are the arithmetic's
        expected: dict[str, Rating] = {}
        for done in results:
            expected.update(rate(expected, [(s.name, s.place) for s in done.seats]))
        board = {s.name: s.rating for s in ratings[1].board("agent-jean")}
        assert {name: r.games for name, r in board.items()} == {name: r.games for name, r in expected.items()}
        for name, rating in expected.items():
            assert board[name].mu == pytest.approx(rating.mu) and board[name].sigma == pytest.approx(rating.sigma)
        assert [r.table for r in ratings[0].results("cy")] == [
            d.table for d in reversed(results) if d.place_of("cy") is not None
        ][:50]
    finally:
        for store in stores:
            store.close()


def test_tables_of_the_same_players_ending_at_once_on_two_servers_are_all_rated(pg_db: str) -> None:
    """Different tables, the same names, on two connections at once: each waits for the other's
    rows (never a deadlock, never an update lost)."""
    stores = [PostgresStore(pg_db), PostgresStore(pg_db)]
    try:
        ratings = [PostgresRatings(store) for store in stores]
        answers: list[bool] = []
        barrier = threading.Barrier(2)

        def run(k: int) -> None:
            for i in range(15):
                barrier.wait(timeout=30)
                order = [("dee", 1), ("eli", 2), ("fay", 3)] if k else [("fay", 1), ("eli", 2), ("dee", 2)]
                answers.append(ratings[k].apply(result(f"same{k}-{i}", *order, game="ministeres")))

        threads = [threading.Thread(target=run, args=(k,)) for k in (0, 1)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
        assert answers == [True] * 30
        assert {s.name: s.rating.games for s in ratings[0].board("ministeres")} == {"dee": 30, "eli": 30, "fay": 30}
    finally:
        for store in stores:
            store.close()


# -- a hall ------------------------------------------------------------------------------------------------


async def play_a_table(hall: Hall, game_id: str = "agent-jean") -> str:
    """ann against a random bot, ann playing at random, to the end; the table's id."""
    ann, ann_task = await lobby_of(hall, "ann")
    made = await ann.request(
        {
            "t": "create",
            "game": game_id,
            "players": 2,
            "seats": [{"kind": "human"}, {"kind": "bot", "level": "random"}],
            "variants": {},
            "sit": 0,
        }
    )
    assert made["ok"] and made["started"], made
    remote = ann.table(made["table"])
    await remote.connect(timeout=STEP)
    await asyncio.wait_for(play_remote(remote, 4), 120)
    await remote.close()
    await ann.close()
    await asyncio.wait_for(ann_task, STEP)
    return str(made["table"])


async def chores_done(hall: Hall) -> None:
    """Every task the hall started (a finished table's rating among them) has ended."""
    while hall.chores:
        await asyncio.wait_for(asyncio.gather(*hall.chores, return_exceptions=True), 30)
    await hall.offloop.drain()


def test_a_hall_rates_a_table_when_it_ends_and_never_again(tmp_path: Path) -> None:
    async def run() -> None:
        hall = Hall(tmp_path, bot_delay=0.0)
        await hall.start()
        try:
            table_id = await play_a_table(hall)
            match = hall.tables[table_id].match
            assert match is not None and match.outcome is not None
            ann_won = 0 in match.outcome.winners
            ann, task = await lobby_of(hall, "ann")

            async def board() -> list[dict]:
                reply = await ann.request({"t": "ratings", "game": "agent-jean"})
                assert reply["ok"], reply
                return reply["rows"]

            rows: list[dict] = []

            async def rated() -> bool:
                rows[:] = await board()
                return len(rows) == 2

            for _ in range(1500):  # (bounded: 30 s on a loaded machine)
                if await rated():
                    break
                await asyncio.sleep(0.02)
            first, second = rows
            # (the table's seed is the server's: now and then both reach their second medal in
            # one round, and share the win; then they are rated alike)
            shared = len(match.outcome.winners) == 2
            if shared:
                assert sorted((r["name"], r["games"]) for r in rows) == [("Bot: random", 1), ("ann", 1)]
                assert first["rating"] == second["rating"]
            else:
                assert [(r["name"], r["games"]) for r in rows] == (
                    [("ann", 1), ("Bot: random", 1)] if ann_won else [("Bot: random", 1), ("ann", 1)]
                )
                assert first["rating"] > second["rating"] and first["rank"] == 1 and second["rank"] == 2
            mine = await ann.request({"t": "results"})
            assert mine["ok"]
            (listed,) = mine["tables"]
            assert listed["id"] == table_id and listed["title"] == "L'Agent Jean!"
            place = {seat: 1 if seat in match.outcome.winners else 2 for seat in (0, 1)}
            assert listed["place"] == place[0]
            assert listed["seats"] == [["ann", place[0]], ["Bot: random", place[1]]]
            refused = await ann.request({"t": "ratings", "game": "chess"})
            assert not refused["ok"] and refused["message"].startswith("This server has no such game")
            await ann.close()
            await asyncio.wait_for(task, STEP)
        finally:
            await hall.close()
        # started again: the finished table is not rated twice
        hall = Hall(tmp_path, bot_delay=0.0)
        await hall.start()
        try:
            await chores_done(hall)  # the finished table's rating was tried, and found done
            assert [s.rating.games for s in hall.ratings.board("agent-jean")] == [1, 1]
        finally:
            await hall.close()
        # a table that ended while its ratings could not be written is rated when a hall next starts
        (tmp_path / RATINGS_FILE).unlink()
        hall = Hall(tmp_path, bot_delay=0.0)
        await hall.start()
        try:
            await chores_done(hall)
            assert [s.rating.games for s in hall.ratings.board("agent-jean")] == [1, 1]
        finally:
            await hall.close()

    asyncio.run(run())


class Unwritable(Ratings):
    """Ratings that cannot be written (a database out of reach): the table ends unrated."""

    def __init__(self) -> None:
        self.tried: list[str] = []

    def apply(self, result: Result) -> bool:
        self.tried.append(result.table)
        raise SaveError("Cannot write the ratings: the database is away.")

    def board(self, game, name=None, limit=100):
        return []

    def results(self, name, limit=50):
        return []


def test_two_halls_starting_on_one_database_rate_a_table_left_unrated_once(tmp_path: Path, pg_db: str) -> None:
    """A table ended on a hall that could not rate it; two halls of the database start at once,
    each finds it finished and unrated, and race for it: it is rated once."""

    async def run() -> None:
        unwritable = Unwritable()
        said: list[str] = []
        hall = Hall(
            tmp_path / "a", bot_delay=0.0, **of_database(PostgresStore(pg_db)), ratings=unwritable, log=said.append
        )
        await hall.start()
        try:
            table_id = await play_a_table(hall)
            await chores_done(hall)
            assert unwritable.tried == [table_id]
            assert any(f"[{table_id}] Cannot rate the table now: Cannot write the ratings" in line for line in said)
        finally:
            await hall.close()
        halls = [
            Hall(tmp_path / name, bot_delay=0.0, **of_database(PostgresStore(pg_db)), log=said.append) for name in "bc"
        ]
        await asyncio.gather(*(h.start() for h in halls))
        try:
            for h in halls:
                await chores_done(h)  # each has tried to rate the table it found finished
            assert [s.rating.games for s in halls[1].ratings.board("agent-jean")] == [1, 1], said
            results = halls[0].ratings.results("ann")
            assert [r.table for r in results] == [table_id]
        finally:
            for h in halls:
                await h.close()

    asyncio.run(run())


def test_the_servers_log_names_a_rated_tables_seats_by_place_and_seat() -> None:
    """It read "rated: ann 4, bob 5, Bot: normal 1, ...": places that looked like ratings, and
    bots that could not be told apart."""
    from net.hall import by_place
    from saves.ratings import Placed, Result

    result = Result("t1", "agent-jean", 0.0, (Placed("ann", 2), Placed("Bot: normal", 1), Placed("Bot: normal", 2)))
    assert by_place(result) == "1st Bot: normal (seat 2), 2nd ann (seat 1), 2nd Bot: normal (seat 3)"
