"""Who is who on ``cabinet serve``: a player's name belongs to the first key that uses it.

Nobody makes an account.  A player connects as ``ssh ann@host`` with whatever key
their ssh client has; the first key to log in as ann claims the name, and from
then on only that key may use it.  That is all the identity a public game server
needs, and all it can check: an SSH key is the one thing a client proves it holds.

Names are compared without regard to case (``Ann`` is ``ann``): two players
whose names differ only in case would be told apart by nobody at a table.  Who
holds which name is an :class:`Identities`: by default one JSON file
(:class:`FileIdentities`, ``players.json``) that the operator may read and edit
(deleting an entry frees the name); it is written whole to a temporary file (mode
0600) and renamed over the old one, so a crash never leaves half of it, and it is
read again when it changes on disk.  With ``cabinet serve --store``, the database
(:class:`StoredIdentities`), so that every server on it agrees.
"""

from __future__ import annotations

import abc
import contextlib
import errno
import json
import os
import re
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.engine import NAME_MAX  # a player's name is a seat's name at every table

if TYPE_CHECKING:
    from saves.postgres import PostgresStore

FILE = "players.json"
FORMAT = 1  # the version of players.json's layout
_NAME_CHARS = re.compile(r"[A-Za-z0-9._-]*\Z")


def valid_name(name: str) -> str | None:
    """Why ``name`` cannot be a player's name (one sentence), or None if it can.

    Only ASCII letters and digits, so that no two names look alike on screen, and
    '-', '_', '.' between them."""
    if not name:
        return "A player needs a name: connect as NAME@host."
    if len(name) > NAME_MAX:
        return f"A name has {NAME_MAX} characters at most."
    if not (name[0].isascii() and name[0].isalnum()):
        return "A name starts with a letter (a to z, without accents) or a digit."
    if not _NAME_CHARS.match(name):
        return "A name has only letters (a to z, without accents), digits, '-', '_' and '.' in it."
    return None


@dataclass(frozen=True)
class Claim:
    """A name as first used, the key that holds it, and since when (Unix time)."""

    name: str
    key: str
    since: int


class Identities(abc.ABC):
    """Who is who: a name is claimed by the first public key that uses it.

    ``check`` may wait on a disk or a database: the SSH front calls it from a thread,
    one call at a time (``net.offloop``).  An abstract base class rather than a
    ``typing.Protocol``: both kinds are written here, and share their reading of
    the claims (``spelling``, ``owner``); mypy refuses to make one that leaves out
    ``check``."""

    def __init__(self) -> None:
        self.claims: dict[str, Claim] = {}  # by name.lower(): as read (or told) last

    @abc.abstractmethod
    def check(self, name: str, key_fingerprint: str, *, claim: bool = True) -> str | None:
        """None if ``key_fingerprint`` may log in as ``name`` (claiming the name if it is
        new, unless ``claim`` is False: the key is only being asked about); else the one
        sentence why not."""

    def spelling(self, name: str) -> str:
        """``name`` as it was first claimed (``ann`` for ``Ann`` if ann came first)."""
        held = self.claims.get(name.lower())
        return held.name if held is not None else name

    def owner(self, name: str) -> str | None:
        """The fingerprint of the key holding ``name``, if any."""
        held = self.claims.get(name.lower())
        return held.key if held is not None else None


class FileIdentities(Identities):
    """The claims kept in DIR/players.json, written atomically (temp file + os.replace,
    mode 0600), for one server.

    ``path`` is the file, or the directory to keep ``players.json`` in.  A file
    that cannot be read raises OSError (its ``strerror`` a sentence's end): the
    server must not start by giving away every name.
    """

    def __init__(self, path: Path) -> None:
        path = Path(path)
        super().__init__()
        self.path = path / FILE if path.is_dir() else path
        self._stamp: tuple[int, int, int] | None = None
        self._damaged: str | None = None  # why the file on disk could not be read, lately
        self._read(strict=True)

    # -- asking -------------------------------------------------------------------------

    def check(self, name: str, key_fingerprint: str, *, claim: bool = True) -> str | None:
        why = valid_name(name)
        if why is not None:
            return why
        self._read(strict=False)
        held = self.claims.get(name.lower())
        if held is not None:
            return None if held.key == key_fingerprint else f"The name {held.name} belongs to another key."
        if not claim:
            return None
        if self._damaged is not None:  # writing now would overwrite what the operator is editing
            return "The server cannot record new names just now; try again later."
        new = Claim(name, key_fingerprint, int(time.time()))
        self.claims[name.lower()] = new
        try:
            self._write()
        except OSError:
            del self.claims[name.lower()]
            return "The server cannot record new names just now; try again later."
        return None

    # -- the file -------------------------------------------------------------------------

    def _read(self, strict: bool) -> None:
        """Read the file again if it changed.  ``strict``: an unreadable one raises;
        otherwise the claims read last are kept, and no new name is given until the
        file can be read again."""
        try:
            st = self.path.stat()
        except FileNotFoundError:  # none yet, or the operator deleted it: every name is free
            self.claims, self._stamp, self._damaged = {}, None, None
            return
        except OSError as exc:
            self._fail(f"{self.path} cannot be read ({exc.strerror or exc})", strict, None)
            return
        stamp = (st.st_ino, st.st_size, st.st_mtime_ns)
        if stamp == self._stamp:
            return
        try:
            claims = _parse(json.loads(self.path.read_text(encoding="utf-8")))
        except OSError as exc:
            self._fail(f"{self.path} cannot be read ({exc.strerror or exc})", strict, None)
            return
        except (ValueError, TypeError) as exc:
            why = f"{self.path} is not a list of Cabinet's players ({exc}): move it away to start with no names claimed"
            self._fail(why, strict, stamp)
            return
        self.claims, self._stamp, self._damaged = claims, stamp, None

    def _fail(self, why: str, strict: bool, stamp: tuple[int, int, int] | None) -> None:
        """``stamp``: the damaged file's, not read again until it changes."""
        if strict:
            raise OSError(errno.EINVAL, why)
        self._damaged, self._stamp = why, stamp

    def _write(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        data = {
            "format": FORMAT,
            "players": {
                c.name: {"key": c.key, "since": c.since}
                for c in sorted(self.claims.values(), key=lambda c: c.name.lower())
            },
        }
        fd, temp = tempfile.mkstemp(dir=self.path.parent, prefix="." + self.path.name + ".")  # mode 0600
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f, indent=1, sort_keys=True)
                f.write("\n")
                f.flush()
                os.fsync(f.fileno())
            os.replace(temp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise
        with contextlib.suppress(OSError):
            st = self.path.stat()
            self._stamp = (st.st_ino, st.st_size, st.st_mtime_ns)


def _parse(data: Any) -> dict[str, Claim]:
    """The claims in a players.json's data; ValueError if it is not one."""
    if not isinstance(data, dict) or not isinstance(data.get("players"), dict):
        raise ValueError("no players in it")
    if data.get("format", FORMAT) != FORMAT:
        raise ValueError(f"format {data.get('format')!r}, where this Cabinet reads {FORMAT}")
    claims: dict[str, Claim] = {}
    for name, entry in data["players"].items():
        if not isinstance(name, str) or valid_name(name) is not None:
            raise ValueError(f"{name!r} is not a name")
        if not isinstance(entry, dict) or not isinstance(entry.get("key"), str):
            raise ValueError(f"{name} has no key")
        since = entry.get("since", 0)
        claims[name.lower()] = Claim(name, entry["key"], since if isinstance(since, int) else 0)
    return claims


class StoredIdentities(Identities):
    """The same rules as :class:`Identities`, kept in a store's database (``cabinet
    serve --store``): every server on it agrees on who holds a name, and two servers
    claiming one name at once give it to one key (the database decides).

    ``store`` is the PostgreSQL store the tables are in (``name_holder``,
    ``claim_name``: its connection, no other).  When the database does not answer, a
    login is refused in a sentence, never let in under a name its key may not hold."""

    UNREACHABLE = "The server cannot check names just now; try again later."

    def __init__(self, store: PostgresStore) -> None:
        super().__init__()
        self.store = store

    def check(self, name: str, key_fingerprint: str, *, claim: bool = True) -> str | None:
        why = valid_name(name)
        if why is not None:
            return why
        from saves import SaveError

        try:
            held = self.store.name_holder(name.lower())
            if held is None and claim:
                held = self.store.claim_name(name, key_fingerprint, int(time.time()))
        except SaveError:
            return self.UNREACHABLE
        if held is None:
            return None  # free, and only asked about
        known = self.claims[name.lower()] = Claim(*held)
        return None if known.key == key_fingerprint else f"The name {known.name} belongs to another key."
