"""Where a server's ratings are kept: each name's rating per game, and each finished table's
result (who placed where), applied once per table.

The arithmetic is ``saves.skill``'s; this module keeps what it computes, in one of two places,
as the server's tables are kept:

- :class:`FileRatings`: one file in the server's data directory (``ratings.json``), written
  whole and atomically after each table, bounded (the latest ``MAX_TABLES`` results, the
  ``MAX_RATINGS`` names played most recently), and checked on read like any untrusted input: a
  damaged file is said in one sentence, put aside (``ratings.json.damaged``) and the ratings
  start afresh.  One server a data directory, so a lock in the process is all it takes.
- :class:`PostgresRatings`: two tables of the ``cabinet`` schema (``saves.postgres``,
  schema 5): ``ratings`` (game, name: mu, sigma, games) and ``rated`` (one row a table rated,
  its result).  A table is rated in one transaction whose first step inserts its row into
  ``rated``: two servers sharing the database that both see one table end race for that
  unique key, and the second finds the row there and changes nothing.

Every method may wait on a disk or a database: a server calls them from a thread.  They raise
:class:`SaveError` with one sentence when the ratings cannot be read or written."""

from __future__ import annotations

import abc
import datetime
import json
import math
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.engine import NAME_MAX, Match
from saves.format import SaveError, atomic_write, private_dir
from saves.skill import Rating, placings, rate, rated_name
from saves.store import LogStore

RATINGS_FILE = "ratings.json"
FORMAT = "cabinet ratings"
VERSION = 1
#: a ratings file larger than this is not read (it cannot be one this module wrote)
MAX_BYTES = 16 * 1024 * 1024
#: finished tables whose results a ratings file keeps, the latest
MAX_TABLES = 5000
#: names' ratings a ratings file keeps (all games together), those who played last
MAX_RATINGS = 20000
#: seats a rated table may have
MAX_SEATS = 16
#: the longest rated name: a player's (NAME_MAX) or a bot level's ("Bot: " and the level)
MAX_RATED_NAME = NAME_MAX + 40
MAX_GAME_ID = 64
#: rows of a leaderboard a lobby is sent, and finished tables of a player
BOARD_ROWS = 100
RESULTS_ROWS = 50


def ordinal(place: int) -> str:
    """1st, 2nd, 3rd, 4th, ... 11th, 12th, 13th, 21st."""
    if 10 <= place % 100 <= 20:
        return f"{place}th"
    return f"{place}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(place % 10, 'th') }"


@dataclass(frozen=True)
class Placed:
    """A seat at a finished table: the name it is rated under, and its place (1 the best)."""

    name: str
    place: int


@dataclass(frozen=True)
class Result:
    """A finished table as the ratings know it: its game, when it ended (seconds since the
    epoch, the time of its last move), and each seat's placing, in seat order."""

    table: str
    game: str
    ended: float
    seats: tuple[Placed, ...]

    def place_of(self, name: str) -> int | None:
        return next((seat.place for seat in self.seats if seat.name == name), None)

    def to_plain(self) -> dict[str, Any]:
        return {
            "id": self.table,
            "game": self.game,
            "ended": self.ended,
            "seats": [[seat.name, seat.place] for seat in self.seats],
        }

    @classmethod
    def from_plain(cls, data: Any) -> Result:
        """A result as a file or a database holds it, checked: raises ValueError (what is wrong)."""
        if not isinstance(data, dict):
            raise ValueError("a table's result is not a map")
        table, game, ended, seats = data.get("id"), data.get("game"), data.get("ended"), data.get("seats")
        if not isinstance(table, str) or not isinstance(game, str) or not _short(table, MAX_GAME_ID):
            raise ValueError("a table's id or game is not a short text")
        if not _short(game, MAX_GAME_ID):
            raise ValueError(f"table {table}'s game is not a short text")
        if not isinstance(ended, int | float) or not _number(ended):
            raise ValueError(f"table {table}'s end is not a time")
        if not isinstance(seats, list) or not 2 <= len(seats) <= MAX_SEATS:
            raise ValueError(f"table {table}'s seats are not a list of 2 to {MAX_SEATS}")
        placed = []
        for seat in seats:
            if not (isinstance(seat, list) and len(seat) == 2 and _short(seat[0], MAX_RATED_NAME)):
                raise ValueError(f"a seat of table {table} is not a name and a place")
            place = seat[1]
            if not (isinstance(place, int) and not isinstance(place, bool) and 1 <= place <= len(seats)):
                raise ValueError(f"a seat of table {table} has no place among its seats")
            placed.append(Placed(seat[0], place))
        return cls(table, game, float(ended), tuple(placed))


@dataclass(frozen=True)
class Standing:
    """A leaderboard's row: its rank (shared by equal ratings), the name and its rating."""

    rank: int
    name: str
    rating: Rating


def _short(value: Any, limit: int) -> bool:
    return isinstance(value, str) and 0 < len(value) <= limit


def _number(value: Any) -> bool:
    """Whether ``value`` is a finite number a float holds (an integer of 400 digits is not)."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def finished_table(table: str, match: Match, times: list[str | None] | None = None) -> Result | None:
    """The result of ``table``'s finished ``match`` (``times``: each move's "at", as its save
    writer keeps them: the last is when it ended), or None if there is nothing to rate: the
    game is not over, or fewer than two names sat at it (a solo game)."""
    outcome = match.outcome
    if outcome is None:
        return None
    seats = match.header["seats"]
    names = [rated_name(seat) for seat in seats]
    if len(set(names)) < 2 or len(names) > MAX_SEATS or not all(0 < len(n) <= MAX_RATED_NAME for n in names):
        return None
    places = placings(outcome, len(names))
    ended = _time(times[-1] if times else None)
    return Result(table, match.game.id, ended, tuple(Placed(n, p) for n, p in zip(names, places, strict=True)))


def _time(text: str | None) -> float:
    if text:
        try:
            value = datetime.datetime.fromisoformat(text)
        except ValueError:
            pass
        else:
            if value.tzinfo is None:
                value = value.replace(tzinfo=datetime.UTC)
            return value.timestamp()
    return datetime.datetime.now(datetime.UTC).timestamp()


class Ratings(abc.ABC):
    """A server's ratings (files or PostgreSQL, as its tables are kept)."""

    #: how sentences name where the ratings are
    where: str = ""

    @abc.abstractmethod
    def apply(self, result: Result) -> bool:
        """Rate the finished table ``result`` describes, unless it was rated already; whether
        it was now.  Raises SaveError."""

    @abc.abstractmethod
    def board(self, game: str, name: str | None = None, limit: int = BOARD_ROWS) -> list[Standing]:
        """The best ``limit`` ratings of ``game``, best first, and ``name``'s row after them
        if it is rated and not among them.  Raises SaveError."""

    @abc.abstractmethod
    def results(self, name: str, limit: int = RESULTS_ROWS) -> list[Result]:
        """The latest ``limit`` finished tables ``name`` sat at, the latest first.  Raises SaveError."""

    def close(self) -> None:  # noqa: B027 - not abstract: a file holds nothing open
        """Let go of what is held open; idempotent."""


def ratings_for(store: LogStore, data_dir: str | os.PathLike[str], log: Callable[[str], None] | None = None) -> Ratings:
    """The ratings kept beside ``store``'s tables: in its database, or a file in ``data_dir``."""
    from saves.postgres import PostgresStore

    if isinstance(store, PostgresStore):
        return PostgresRatings(store)
    return FileRatings(Path(data_dir) / RATINGS_FILE, log)


# -- a file --------------------------------------------------------------------------------------


@dataclass
class _Book:
    """What a ratings file holds, read and checked."""

    #: (game, name) -> the rating, and when the name last finished a table of that game
    ratings: dict[tuple[str, str], tuple[Rating, float]]
    #: table id -> its result
    tables: dict[str, Result]
    #: the latest end among the results dropped to keep the file bounded: a table that ended
    #: then or before was rated (or is too old to be now)
    trimmed_through: float = 0.0

    def to_bytes(self) -> bytes:
        plain = {
            "format": FORMAT,
            "version": VERSION,
            "trimmed_through": self.trimmed_through,
            "ratings": [
                [game, name, r.mu, r.sigma, r.games, last] for (game, name), (r, last) in sorted(self.ratings.items())
            ],
            "tables": [t.to_plain() for t in sorted(self.tables.values(), key=lambda t: (t.ended, t.table))],
        }
        return json.dumps(plain, ensure_ascii=False, separators=(",", ":")).encode()

    @classmethod
    def from_bytes(cls, data: bytes) -> _Book:
        """Raises ValueError (what is wrong) for anything but a ratings file as written here."""
        try:
            plain = json.loads(data.decode())
        except (ValueError, RecursionError):  # not UTF-8, not JSON, too deep, an integer too long
            raise ValueError("it is not JSON") from None
        if not isinstance(plain, dict) or plain.get("format") != FORMAT:
            raise ValueError("it is not a ratings file")
        if plain.get("version") != VERSION:
            raise ValueError(f"it is of version {plain.get('version')!r}, and this Cabinet reads version {VERSION}")
        trimmed = plain.get("trimmed_through", 0.0)
        rows, tables = plain.get("ratings"), plain.get("tables")
        if not _number(trimmed):
            raise ValueError("its trimmed_through is not a time")
        if not isinstance(rows, list) or len(rows) > MAX_RATINGS:
            raise ValueError(f"its ratings are not a list of at most {MAX_RATINGS}")
        if not isinstance(tables, list) or len(tables) > MAX_TABLES:
            raise ValueError(f"its tables are not a list of at most {MAX_TABLES}")
        ratings: dict[tuple[str, str], tuple[Rating, float]] = {}
        for row in rows:
            if not (isinstance(row, list) and len(row) == 6):
                raise ValueError("a rating is not a game, a name and four numbers")
            game, name, mu, sigma, games, last = row
            if not (_short(game, MAX_GAME_ID) and _short(name, MAX_RATED_NAME)):
                raise ValueError("a rating's game or name is not a short text")
            if not (_number(mu) and _number(sigma) and _number(last) and isinstance(games, int)):
                raise ValueError(f"{name}'s rating is not numbers")
            rating = Rating(float(mu), float(sigma), games)
            if not rating.sound() or (game, name) in ratings:
                raise ValueError(f"{name}'s rating at {game} is not one")
            ratings[game, name] = (rating, float(last))
        results: dict[str, Result] = {}
        for entry in tables:
            result = Result.from_plain(entry)
            if result.table in results:
                raise ValueError(f"table {result.table} is there twice")
            results[result.table] = result
        return cls(ratings, results, float(trimmed))


class FileRatings(Ratings):
    """The ratings of a server whose tables are files: one file, read once and kept in memory,
    written whole (atomically) after each table rated."""

    def __init__(self, path: str | os.PathLike[str], log: Callable[[str], None] | None = None) -> None:
        self.path = Path(path)
        self.where = f"the ratings file {self.path}"
        self.log = log or (lambda line: None)
        self.lock = threading.Lock()
        self._book: _Book | None = None

    def _read(self) -> _Book:
        """The file's ratings (read on the first call).  A damaged file is said, put aside, and
        the ratings start afresh: it never stops the server."""
        if self._book is not None:
            return self._book
        try:
            with open(self.path, "rb") as f:
                data = f.read(MAX_BYTES + 1)
        except FileNotFoundError:
            self._book = _Book({}, {})
            return self._book
        except OSError as exc:
            raise SaveError(f"Cannot read {self.where}: {(exc.strerror or str(exc)).lower()}.") from None
        try:
            if len(data) > MAX_BYTES:
                raise ValueError(f"it is larger than {MAX_BYTES // (1024 * 1024)} MiB")
            self._book = _Book.from_bytes(data)
        except ValueError as exc:
            aside = self.path.with_name(self.path.name + ".damaged")
            try:
                os.replace(self.path, aside)
                kept = f"it is kept as {aside.name}"
            except OSError:
                kept = "it could not be put aside"
            self.log(f"The ratings file {self.path} is damaged ({exc}): the ratings start afresh, and {kept}.")
            self._book = _Book({}, {})
        return self._book

    def apply(self, result: Result) -> bool:
        with self.lock:
            book = self._read()
            if result.table in book.tables or result.ended <= book.trimmed_through:
                return False
            before = {
                seat.name: book.ratings[result.game, seat.name][0]
                for seat in result.seats
                if (result.game, seat.name) in book.ratings
            }
            after = rate(before, [(seat.name, seat.place) for seat in result.seats])
            changed = _Book(dict(book.ratings), dict(book.tables), book.trimmed_through)
            for name, rating in after.items():
                changed.ratings[result.game, name] = (rating, result.ended)
            changed.tables[result.table] = result
            _trim(changed)
            try:
                private_dir(self.path.parent)
                atomic_write(self.path, changed.to_bytes())
            except OSError as exc:
                raise SaveError(f"Cannot write {self.where}: {(exc.strerror or str(exc)).lower()}.") from None
            self._book = changed
            return True

    def board(self, game: str, name: str | None = None, limit: int = BOARD_ROWS) -> list[Standing]:
        with self.lock:
            rows = [(n, r) for (g, n), (r, _) in self._read().ratings.items() if g == game]
        rows.sort(key=lambda row: (-row[1].ordinal, row[0]))
        standings = []
        rank = 0
        for i, (n, r) in enumerate(rows):
            if i == 0 or r.ordinal < rows[i - 1][1].ordinal:
                rank = i + 1
            if i < limit or n == name:
                standings.append(Standing(rank, n, r))
        return standings

    def results(self, name: str, limit: int = RESULTS_ROWS) -> list[Result]:
        with self.lock:
            tables = [t for t in self._read().tables.values() if t.place_of(name) is not None]
        tables.sort(key=lambda t: (t.ended, t.table), reverse=True)
        return tables[:limit]


def _trim(book: _Book) -> None:
    """``book`` kept within the file's bounds: the oldest results and the names that played
    least recently go first."""
    if len(book.tables) > MAX_TABLES:
        by_end = sorted(book.tables.values(), key=lambda t: (t.ended, t.table))
        for dropped in by_end[: len(by_end) - MAX_TABLES]:
            del book.tables[dropped.table]
            book.trimmed_through = max(book.trimmed_through, dropped.ended)
    if len(book.ratings) > MAX_RATINGS:
        by_last = sorted(book.ratings.items(), key=lambda item: (item[1][1], item[0]))
        for key, _ in by_last[: len(by_last) - MAX_RATINGS]:
            del book.ratings[key]


# -- PostgreSQL ---------------------------------------------------------------------------------


class PostgresRatings(Ratings):
    """The ratings of the servers sharing a PostgreSQL database (``saves.postgres``, schema 5),
    through the store's own connection."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self.where = f"the ratings in {store.where}"

    def _step(self, what: str) -> Any:
        return self.store._using(self.store.main, lambda why: SaveError(f"Cannot {what} {self.where}: {why}."))

    def apply(self, result: Result) -> bool:
        names = sorted({seat.name for seat in result.seats})
        with self.store.lock, self._step("write") as conn, conn.transaction():
            # the table's row first: a second server rating the same table waits here for the
            # first one's transaction, then finds the row and changes nothing
            row = conn.execute(
                "INSERT INTO cabinet.rated (table_name, game, ended, seats) VALUES (%s, %s, %s, %s) "
                "ON CONFLICT (table_name) DO NOTHING RETURNING table_name",
                (result.table, result.game, result.ended, json.dumps(result.to_plain()["seats"])),
            ).fetchone()
            if row is None:
                return False
            # every name's row there, then locked in the names' order (two tables of the same
            # names ending at once wait for each other, never deadlock)
            fresh = Rating()
            conn.execute(
                "INSERT INTO cabinet.ratings (game, name, mu, sigma, games) "
                "SELECT %s, n, %s, %s, 0 FROM unnest(%s::text[]) AS n ORDER BY n ON CONFLICT DO NOTHING",
                (result.game, fresh.mu, fresh.sigma, names),
            )
            rows = conn.execute(
                "SELECT name, mu, sigma, games FROM cabinet.ratings WHERE game = %s AND name = ANY(%s) "
                "ORDER BY name FOR UPDATE",
                (result.game, names),
            ).fetchall()
            before = {name: Rating(mu, sigma, games) for name, mu, sigma, games in rows}
            after = rate(before, [(seat.name, seat.place) for seat in result.seats])
            for name, rating in after.items():
                conn.execute(
                    "UPDATE cabinet.ratings SET mu = %s, sigma = %s, games = %s WHERE game = %s AND name = %s",
                    (rating.mu, rating.sigma, rating.games, result.game, name),
                )
        return True

    def board(self, game: str, name: str | None = None, limit: int = BOARD_ROWS) -> list[Standing]:
        ranked = (
            "SELECT name, mu, sigma, games, rank() OVER (ORDER BY mu - 3 * sigma DESC) AS place "
            "FROM cabinet.ratings WHERE game = %s"
        )
        with self.store.lock, self._step("read") as conn:
            rows = conn.execute(f"SELECT * FROM ({ranked}) r ORDER BY place, name LIMIT %s", (game, limit)).fetchall()
            if name is not None and all(row[0] != name for row in rows):
                rows += conn.execute(f"SELECT * FROM ({ranked}) r WHERE name = %s", (game, name)).fetchall()
        return [Standing(int(place), n, Rating(mu, sigma, games)) for n, mu, sigma, games, place in rows]

    def results(self, name: str, limit: int = RESULTS_ROWS) -> list[Result]:
        with self.store.lock, self._step("read") as conn:
            rows = conn.execute(
                "SELECT table_name, game, ended, seats FROM cabinet.rated "
                "WHERE seats @> %s::jsonb ORDER BY ended DESC, table_name DESC LIMIT %s",
                (json.dumps([[name]]), limit),
            ).fetchall()
        results = []
        for table, game, ended, seats in rows:
            try:
                results.append(Result.from_plain({"id": table, "game": game, "ended": ended, "seats": seats}))
            except ValueError:
                continue  # a row no Cabinet wrote: not shown
        return results
