"""Where saves live, and the listing of them (without replaying any).

A *store* keeps tables' logs (:class:`LogStore`): append records for a table, read a
table's records, list the tables, and one writer a table at a time.  Two stores
keep them: a directory of save files (:class:`FileStore`, the embedded default,
one writer a file under its exclusive lock) and a PostgreSQL database
(``saves.postgres``, one writer a table under its lease), for several server
processes on several machines.  Both keep the same records, byte for byte."""

from __future__ import annotations

import abc
import contextlib
import datetime
import os
import re
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from core.engine import Game
from saves.format import (
    FileLog,
    InStore,
    Loaded,
    Log,
    SaveError,
    Source,
    atomic_write,
    dir_key,
    encode_match,
    held,
    load,
    private_dir,
    read_save,
    scan,
    tighten,
)

EXTENSION = ".cab"
LOBBY_EXTENSION = ".table"  # a table's lobby record, beside its log in a FileStore
ENV_VAR = "CABINET_SAVE_DIR"


def save_dir(override: str | os.PathLike[str] | None = None) -> Path:
    """The save directory, created if missing (mode 0700: saves hold every
    hidden card): ``override`` (the --save-dir flag), else $CABINET_SAVE_DIR,
    else the user data dir's ``saves``.  Raises OSError."""
    if override:
        path = Path(override).expanduser()
    elif os.environ.get(ENV_VAR):
        path = Path(os.environ[ENV_VAR]).expanduser()
    else:
        path = platformdirs.user_data_path("cabinet") / "saves"
    return private_dir(path)


def new_save_path(directory: str | os.PathLike[str], game_id: str) -> Path:
    """A fresh file name: ``<game>-<YYYYmmdd-HHMMSS>-<8 hex>.cab``."""
    directory = private_dir(directory)
    slug = re.sub(r"[^a-z0-9_-]+", "-", game_id.lower()).strip("-") or "game"
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    while True:
        path = directory / f"{slug}-{stamp}-{secrets.token_hex(4)}{EXTENSION}"
        if not path.exists():
            return path


@dataclass(frozen=True)
class SeatInfo:
    name: str
    kind: str  # "human" or "bot"
    level: str | None = None


@dataclass(frozen=True)
class SaveInfo:
    """One line of the load screen."""

    path: Path
    game: str | None
    title: str
    seats: tuple[SeatInfo, ...]
    started: datetime.datetime | None
    last_played: datetime.datetime
    moves: int  # what the players (and bots) did, one command each; the setup is not a move
    finished: bool
    winners: tuple[int, ...]
    error: str | None = None  # the sentence for a file that cannot be loaded
    warning: str | None = None  # a torn tail that loading will drop
    #: the file's modification time in nanoseconds: orders saves played within the same second
    written: int = 0
    #: a fork's (a game played on from a replay): the file it was forked from, and the
    #: position there (in events) it plays on from
    parent: str | None = None
    forked_at: int | None = None
    #: the file as it was read (device, inode, size, modification and change times), and
    #: when (ns since the epoch): a file with the same stamp need not be read again
    #: (:func:`list_saves`'s ``known``)
    stamp: tuple[int, ...] = ()
    read_at: int = 0

    def still(self, stamp: tuple[int, ...]) -> bool:
        """Whether the file is as it was read, by its ``stamp`` now.  A file written less
        than a second before it was read may have been written again since within the same
        tick of the file system's clock, its stamp the same: it is read again."""
        return bool(stamp) and stamp == self.stamp and stamp[3] < self.read_at - 1_000_000_000

    @property
    def winner_names(self) -> tuple[str, ...]:
        return tuple(self.seats[w].name for w in self.winners if 0 <= w < len(self.seats))


def _parse_time(text: object) -> datetime.datetime | None:
    if not isinstance(text, str):
        return None
    try:
        value = datetime.datetime.fromisoformat(text)
    except ValueError:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=datetime.UTC)
    return value


def _game(game_id: str, games: Mapping[str, Game] | None) -> Game | None:
    if games is not None:
        return games.get(game_id)
    try:
        from core.games import get_game

        return get_game(game_id)
    except Exception:  # noqa: BLE001 - a broken game package must not hide the list
        return None


def save_info(path: str | os.PathLike[str], games: Mapping[str, Game] | None = None) -> SaveInfo:
    """The listing entry for one file; a damaged file gets its sentence in ``error``."""
    path = Path(path)
    read_at = time.time_ns()
    stamp = _stamp(path)
    written = stamp[3] if stamp else 0
    mtime = datetime.datetime.fromtimestamp(written / 1e9, datetime.UTC)
    try:
        s = scan(path)
    except SaveError as exc:
        return SaveInfo(
            path,
            None,
            path.name,
            (),
            None,
            mtime,
            0,
            False,
            (),
            error=str(exc),
            written=written,
            stamp=stamp,
            read_at=read_at,
        )
    header = s.header
    game_id = header["game"]
    game = _game(game_id, games)
    error = None
    if game is None:
        error = f"{path.name} is a save of a game this version of Cabinet does not know ({game_id!r})."
        title = game_id
    else:
        title = game.title or game_id
        if header["rules_version"] != game.rules_version:
            error = (
                f"{path.name} was made under version {header['rules_version']} of the rules of {title}, "
                f"and this Cabinet plays version {game.rules_version}."
            )
    seats = tuple(
        SeatInfo(str(seat["name"]), str(seat.get("kind") or "human"), seat.get("level")) for seat in header["seats"]
    )
    result = s.result
    return SaveInfo(
        path=path,
        game=game_id,
        title=title,
        seats=seats,
        started=_parse_time(header.get("created")),
        last_played=_parse_time(s.last_at) or mtime,
        moves=max(0, s.moves - 1),
        finished=result is not None,
        winners=tuple(result["winners"]) if result is not None else (),
        error=error,
        warning=s.torn.warning(path.name) if s.torn is not None else None,
        written=written,
        parent=header.get("parent"),
        forked_at=header.get("forked_at"),
        stamp=stamp,
        read_at=read_at,
    )


def _stamp(path: Path) -> tuple[int, ...]:
    """What tells a file changed: its device, inode, size, modification and change
    times (a save grows with each move, and is rewritten as a new file); () when it
    cannot be looked at."""
    try:
        st = path.stat()
    except OSError:
        return ()
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:  # a directory that can be listed but not entered: listed, said unreadable
        return True


def list_saves(
    directory: str | os.PathLike[str],
    games: Mapping[str, Game] | None = None,
    known: dict[Path, SaveInfo] | None = None,
) -> list[SaveInfo]:
    """Every ``*.cab`` in ``directory``, newest played first; never replays.

    ``known``: what an earlier listing found, by path (a screen listing the same directory
    again keeps it).  A file whose stamp has not changed since is not read again; ``known``
    is left holding exactly this listing's entries."""
    directory = Path(directory)
    try:
        paths = [p for p in directory.iterdir() if p.suffix == EXTENSION and not p.name.startswith(".") and _is_file(p)]
    except OSError:
        return []
    for p in paths:  # a save of ours left readable by others (an older Cabinet, a copy) is narrowed
        tighten(p)
    if known is None:
        infos = [save_info(p, games) for p in paths]
    else:
        infos = []
        for p in paths:
            info = known.get(p)
            if info is None or not info.still(_stamp(p)):
                info = save_info(p, games)
            infos.append(info)
        known.clear()
        known.update((info.path, info) for info in infos)
    # the moves' times are to the second: within one, the file written last was played last
    infos.sort(key=lambda i: (i.last_played, i.written, i.path.name), reverse=True)
    return infos


def latest_unfinished(directory: str | os.PathLike[str], games: Mapping[str, Game] | None = None) -> SaveInfo | None:
    """The most recently played game that is neither over nor damaged ("Continue")."""
    for info in list_saves(directory, games):
        if info.error is None and not info.finished:
            return info
    return None


# -- stores ------------------------------------------------------------------------------------


class LogStore(abc.ABC):
    """Where tables' logs are kept, each written by one writer at a time: a directory
    of save files (:class:`FileStore`) or a PostgreSQL database
    (``saves.postgres.PostgresStore``), which do the same things the same way.

    A table is named by a short string (a file's name without its extension, a
    row's name in a database); its log is the bytes a save file holds (the
    preamble, then framed records, see ``saves.format``).  Methods raise
    :class:`SaveError` with one sentence: a table that is not there, a store out
    of reach.  Every method may wait on a disk or a database: a server on an event
    loop calls them from a thread (``net.offloop``).

    An abstract base class rather than a ``typing.Protocol``: both stores are
    written here, against it; they inherit what they share (``close``,
    ``reachable``, ``log_to``), and mypy refuses to make one that leaves out a method
    (a protocol would be checked only where a store is handed over).  What other
    servers sharing a store do (listings, relayed commands, presence) is not a log
    store's business: ``net.cluster``."""

    #: how sentences name the store ("the saves in DIR", "PostgreSQL database cabinet on HOST")
    where: str = ""

    @abc.abstractmethod
    def tables(self) -> list[str]:
        """Every table with a log, the oldest first."""

    @abc.abstractmethod
    def source(self, table: str) -> Source:
        """What ``load``, ``verify`` and the exports take to read ``table``."""

    @abc.abstractmethod
    def unheld(self) -> list[str]:
        """The tables with a log that no writer holds now (finished, let go, or
        their writer's process died, however it died), the oldest first."""

    @abc.abstractmethod
    def read(self, table: str) -> bytes:
        """The table's log, as a save file holds it."""

    @abc.abstractmethod
    def key(self) -> bytes | None:
        """The secret the store's writers seal with, None if they have none yet."""

    @abc.abstractmethod
    def hold(self, table: str) -> Log:
        """The one writer's hold of ``table`` (made empty if it is not there):
        raises :class:`SaveLocked` when another writer keeps it."""

    @abc.abstractmethod
    def put(self, table: str, data: bytes) -> None:
        """A new table holding the log ``data``, all at once (an import): raises
        :class:`SaveError` when there is a table of that name already."""

    # A server's tables are listed in its lobby before their game starts (and so
    # before they have a log): who created them, their seats, who sits where.  The
    # store keeps that record too, as bytes it does not read.

    @abc.abstractmethod
    def lobby(self) -> list[tuple[str, bytes]]:
        """Every table's lobby record, the oldest first."""

    @abc.abstractmethod
    def keep_lobby(self, table: str, record: bytes) -> None:
        """Put ``record`` in place of the table's lobby record, all at once.  Raises OSError."""

    @abc.abstractmethod
    def forget_lobby(self, table: str) -> None:
        """The table's lobby record is gone (nobody sits there any more)."""

    @abc.abstractmethod
    def update_lobby(self, table: str, change: Callable[[bytes | None], bytes | None]) -> bytes | None:
        """Change the table's lobby record as one step nobody else's change can come
        between: ``change`` gets the record as it is now (None: there is none) and gives
        the one to keep (None: forget it); what it raises leaves the record as it was,
        and comes out of here.  The record kept.  Raises OSError when it cannot be written."""

    def close(self) -> None:  # noqa: B027 - not abstract: a directory holds nothing open
        """Let go of what the store holds open (connections); idempotent."""

    # A database goes away (it restarts, fails over) and comes back; a directory does not.

    @property
    def reachable(self) -> bool:
        """False while the store is out of reach (it has said so in its log, and says when
        it is back): what fails meanwhile is that, not the tables."""
        return True

    def log_to(self, log: Callable[[str], None]) -> None:  # noqa: B027 - not abstract: a directory never goes out of reach
        """Where the store says, once each time, that it went out of reach and is back."""


#: the name this interface had when it was the only one
Store = LogStore


class FileStore(LogStore):
    """A directory of save files, one a table: ``DIR/TABLE.cab``."""

    def __init__(self, directory: str | os.PathLike[str], extension: str = EXTENSION) -> None:
        self.directory = Path(directory)
        self.extension = extension
        self.where = f"the saves in {self.directory}"

    def path(self, table: str) -> Path:
        return self.directory / (table + self.extension)

    def _named(self, extension: str) -> list[Path]:
        """The files of the directory with that extension, the oldest first."""
        try:
            paths = [p for p in self.directory.iterdir() if p.suffix == extension and not p.name.startswith(".")]
        except OSError:
            return []
        paths.sort(key=lambda p: (p.stat().st_mtime_ns if p.exists() else 0, p.name))
        return paths

    def tables(self) -> list[str]:
        return [p.stem for p in self._named(self.extension)]

    def unheld(self) -> list[str]:
        return [p.stem for p in self._named(self.extension) if not held(p)]

    def lobby(self) -> list[tuple[str, bytes]]:
        records = []
        for path in self._named(LOBBY_EXTENSION):
            try:
                records.append((path.stem, path.read_bytes()))
            except OSError:
                continue  # gone since it was listed
        return records

    def lobby_path(self, table: str) -> Path:
        return self.directory / (table + LOBBY_EXTENSION)

    def keep_lobby(self, table: str, record: bytes) -> None:
        private_dir(self.directory)
        atomic_write(self.lobby_path(table), record)

    def forget_lobby(self, table: str) -> None:
        with contextlib.suppress(OSError):
            self.lobby_path(table).unlink()

    def update_lobby(self, table: str, change: Callable[[bytes | None], bytes | None]) -> bytes | None:
        # one server a directory, which changes its lobby from one thread: nothing comes between
        try:
            record: bytes | None = self.lobby_path(table).read_bytes()
        except FileNotFoundError:
            record = None
        new = change(record)
        if new is None:
            self.forget_lobby(table)
        else:
            self.keep_lobby(table, new)
        return new

    def source(self, table: str) -> Source:
        return self.path(table)

    def read(self, table: str) -> bytes:
        return read_save(self.path(table))[0]

    def key(self) -> bytes | None:
        return dir_key(self.directory)

    def hold(self, table: str) -> Log:
        private_dir(self.directory)
        return FileLog(self.path(table))

    def put(self, table: str, data: bytes) -> None:
        path = self.path(table)
        if path.exists():
            raise SaveError(f"There is a save {path.name} in {self.directory} already.")
        try:
            private_dir(self.directory)
            atomic_write(path, data)
        except OSError as exc:
            raise SaveError(
                f"Cannot write {path.name} in {self.directory}: {(exc.strerror or str(exc)).lower()}."
            ) from None


def open_store(address: str) -> LogStore:
    """The store an address names: ``postgresql://...`` (or ``postgres://``), a
    database; anything else, a directory of save files.  Raises :class:`SaveError`
    (a database out of reach, the driver not installed)."""
    if address.startswith(("postgresql://", "postgres://")):
        from saves.postgres import PostgresStore

        return PostgresStore(address)
    return FileStore(Path(address).expanduser())


def log_bytes(loaded: Loaded, data: bytes) -> bytes:
    """What a store is to keep of a save read back from ``data``: its records as
    they are, up to a torn tail (dropped, as a writer continuing it would); a save
    of format 1 (no numbers, links or seals) is written in the current format, as a
    writer continuing it would write it."""
    if loaded.chain is None:
        return encode_match(loaded.match, loaded.times)[0]
    return data[: loaded.end]


def import_save(
    path: str | os.PathLike[str], into: LogStore, table: str, games: Mapping[str, Game] | None = None
) -> Loaded:
    """Put the save file ``path`` into the store ``into`` as ``table``: the same
    records, byte for byte (their checksums, links and seals), once a load found
    them sound.  Raises :class:`SaveError` (a damaged save, one somebody is
    playing, a table of that name there already)."""
    # held as its writer would hold it, so that nobody plays it while it is read:
    # a save somebody plays is refused naming who
    try:
        hold: FileLog | None = FileLog(path)
    except OSError:
        # its lock cannot be made (a directory this user cannot write...): no writer can
        # take it either, so nobody plays it meanwhile
        hold = None
    try:
        data, _ = read_save(path)
        loaded = load(path, games, data=data)
    finally:
        if hold is not None:
            hold.release()
    into.put(table, log_bytes(loaded, data))
    return loaded


def export_table(
    store: LogStore, table: str, path: str | os.PathLike[str], games: Mapping[str, Game] | None = None
) -> Loaded:
    """Write ``table`` of ``store`` to the save file ``path`` (made atomically,
    0600): the same records, byte for byte, once a load found them sound.
    Raises :class:`SaveError`, and OSError when the file cannot be written."""
    data = store.read(table)
    loaded = load(InStore(_ReadOnce(store, data), table), games)
    atomic_write(path, data[: loaded.end])
    return loaded


class _ReadOnce:
    """A table's log as it was read once, so that what a load checks is what is written
    (what ``InStore`` reads of a store: ``read``, ``key`` and ``where``)."""

    def __init__(self, store: LogStore, data: bytes) -> None:
        self.store = store
        self.data = data
        self.where = store.where

    def read(self, table: str) -> bytes:
        return self.data

    def key(self) -> bytes | None:
        return self.store.key()
