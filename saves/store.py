"""Where saves live, and the listing of them (without replaying any)."""

from __future__ import annotations

import datetime
import os
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from core.engine import Game
from saves.format import SaveError, private_dir, scan, tighten

EXTENSION = ".cab"
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
        value = value.replace(tzinfo=datetime.timezone.utc)
    return value


def _game(game_id: str, games: Mapping[str, Game] | None) -> Game | None:
    if games is not None:
        return games.get(game_id)
    try:
        from core.games import get_game

        return get_game(game_id)
    except Exception:  # a broken game package must not hide the list
        return None


def save_info(path: str | os.PathLike[str], games: Mapping[str, Game] | None = None) -> SaveInfo:
    """The listing entry for one file; a damaged file gets its sentence in ``error``."""
    path = Path(path)
    try:
        written = path.stat().st_mtime_ns
    except OSError:
        written = 0
    mtime = datetime.datetime.fromtimestamp(written / 1e9, datetime.timezone.utc)
    try:
        s = scan(path)
    except SaveError as exc:
        return SaveInfo(path, None, path.name, (), None, mtime, 0, False, (), error=str(exc), written=written)
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
    seats = tuple(SeatInfo(str(seat["name"]), str(seat.get("kind") or "human"), seat.get("level")) for seat in header["seats"])
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
    )


def list_saves(directory: str | os.PathLike[str], games: Mapping[str, Game] | None = None) -> list[SaveInfo]:
    """Every ``*.cab`` in ``directory``, newest played first; never replays."""
    directory = Path(directory)
    try:
        paths = [p for p in directory.iterdir() if p.suffix == EXTENSION and not p.name.startswith(".") and p.is_file()]
    except OSError:
        return []
    for p in paths:  # a save of ours left readable by others (an older Cabinet, a copy) is narrowed
        tighten(p)
    infos = [save_info(p, games) for p in paths]
    # the moves' times are to the second: within one, the file written last was played last
    infos.sort(key=lambda i: (i.last_played, i.written, i.path.name), reverse=True)
    return infos


def latest_unfinished(directory: str | os.PathLike[str], games: Mapping[str, Game] | None = None) -> SaveInfo | None:
    """The most recently played game that is neither over nor damaged ("Continue")."""
    for info in list_saves(directory, games):
        if info.error is None and not info.finished:
            return info
    return None
