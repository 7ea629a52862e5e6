"""A throwaway PostgreSQL cluster for the tests and benchmarks: the real server,
never a mock of it.

Two uses, one file (the standard library only, so that ``.ci/run`` can use it
before the virtual environment exists):

* ``python3 tests/pg.py start DIR`` makes a cluster in DIR (``initdb``), starts it
  on a Unix socket in DIR and no TCP port at all, and prints its address
  (``postgresql://postgres@/postgres?host=DIR``); it prints nothing, and says why
  on stderr, when this machine has no PostgreSQL.  ``python3 tests/pg.py stop DIR``
  stops it.  ``.ci/run`` starts one cluster so for the whole run and passes its
  address in ``CABINET_TEST_PG``.
* for the tests, the fixture ``pg_url``: a fresh database for the test module, in
  the cluster ``CABINET_TEST_PG`` names, or else in a cluster this test process
  starts itself (once, stopped at its end); the tests that use it are skipped,
  saying why, when there is neither.  A test that restarts or stops the database
  makes a cluster of its own (``start``) and drives it (``restart``, ``shut_down``,
  ``start_again``): the shared one serves the other tests meanwhile.

``initdb`` refuses to run as root: as root (CI), the cluster is made and run by
the ``postgres`` system user through ``runuser``, in a directory given to it.
"""

from __future__ import annotations

import glob
import os
import pwd
import secrets
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import quote

ENV_VAR = "CABINET_TEST_PG"
SYSTEM_USER = "postgres"  # who runs the cluster when we are root
#: where PostgreSQL's programs are looked for after $PATH
PLACES = ["/usr/local/bin", "/usr/local/pgsql/bin", *sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)]


def binaries() -> tuple[Path, Path] | None:
    """``initdb`` and ``pg_ctl``, if this machine has them."""
    initdb = shutil.which("initdb")
    if initdb is None:
        initdb = next((str(Path(p) / "initdb") for p in PLACES if (Path(p) / "initdb").is_file()), None)
    if initdb is None:
        return None
    pg_ctl = Path(initdb).with_name("pg_ctl")
    return (Path(initdb), pg_ctl) if pg_ctl.is_file() else None


def _as_owner(directory: Path) -> list[str]:
    """The prefix that runs a command as the cluster's owner (root may not run it)."""
    if os.geteuid() != 0:
        return []
    try:
        user = pwd.getpwnam(SYSTEM_USER)
    except KeyError:
        raise RuntimeError(f"running as root, and there is no {SYSTEM_USER!r} user to run PostgreSQL as") from None
    for path in [directory, *directory.rglob("*")]:
        os.chown(path, user.pw_uid, user.pw_gid)
    return ["runuser", "-u", SYSTEM_USER, "--"]


def url(host: str | Path, dbname: str = "postgres", user: str = "postgres", port: str | None = None) -> str:
    """A ``postgresql://`` address (a socket's directory is a host to libpq)."""
    return f"postgresql://{quote(user, safe='')}@/{dbname}?host={quote(str(host), safe='')}" + (
        f"&port={port}" if port else ""
    )


def _run(prefix: list[str], step: list[str], directory: Path) -> None:
    """One of PostgreSQL's programs, as the cluster's owner; raises RuntimeError with its log's tail."""
    done = subprocess.run(prefix + step, capture_output=True, text=True, cwd=directory)
    if done.returncode != 0:
        log = directory / "server.log"
        tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
        raise RuntimeError(f"{Path(step[0]).name} failed ({done.returncode}): {done.stderr.strip()} {tail}".strip())


def start(directory: str | Path, durable: bool = False) -> str:
    """A cluster made and started in ``directory``; its address.  ``durable``: a
    commit waits for the disk, as in production (the benchmarks); else it does not
    (the tests, which time nothing).  Raises RuntimeError."""
    found = binaries()
    if found is None:
        raise RuntimeError("no PostgreSQL programs (initdb, pg_ctl) on this machine")
    initdb, _ = found
    directory = Path(directory).resolve()
    directory.mkdir(parents=True, exist_ok=True)
    os.chmod(directory, 0o755)  # the server's user writes its socket there; we connect through it
    data = directory / "data"
    prefix = _as_owner(directory)
    _run(
        prefix,
        [str(initdb), "-D", str(data), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-locale", "--no-sync"],
        directory,
    )
    # a Unix socket and no TCP port; in the cluster's own settings, so that a restart keeps them
    settings = {"unix_socket_directories": f"'{directory}'", "listen_addresses": "''", "max_connections": "200"}
    if not durable:
        settings.update(fsync="off", full_page_writes="off")
    with open(data / "postgresql.conf", "a", encoding="utf-8") as conf:
        conf.write("".join(f"{name} = {value}\n" for name, value in settings.items()))
    start_again(directory)
    return url(directory)


def _pg_ctl(directory: str | Path, *args: str) -> None:
    found = binaries()
    if found is None:
        raise RuntimeError("no PostgreSQL programs (initdb, pg_ctl) on this machine")
    directory = Path(directory).resolve()
    prefix = ["runuser", "-u", SYSTEM_USER, "--"] if os.geteuid() == 0 else []
    # the server's output to its log: one left on a pipe of ours would hold it open for ever
    _run(
        prefix,
        [str(found[1]), "-D", str(directory / "data"), "-l", str(directory / "server.log"), "-w", "-t", "60", *args],
        directory,
    )


def restart(directory: str | Path, mode: str = "fast") -> None:
    """The cluster in ``directory`` stopped (``pg_ctl -m MODE``: every session ended) and
    started again, as an administrator restarts it.  Raises RuntimeError."""
    _pg_ctl(directory, "-m", mode, "restart")


def shut_down(directory: str | Path, mode: str = "fast") -> None:
    """The cluster in ``directory`` stopped, its data kept (``start_again``).  Raises RuntimeError."""
    _pg_ctl(directory, "-m", mode, "stop")


def start_again(directory: str | Path) -> None:
    """The cluster in ``directory`` started (made by ``start``).  Raises RuntimeError."""
    _pg_ctl(directory, "start")


def stop(directory: str | Path) -> None:
    found = binaries()
    directory = Path(directory).resolve()
    if found is not None and (directory / "data" / "postmaster.pid").exists():
        prefix = ["runuser", "-u", SYSTEM_USER, "--"] if os.geteuid() == 0 else []
        subprocess.run(
            prefix + [str(found[1]), "-D", str(directory / "data"), "-m", "immediate", "-w", "stop"],
            capture_output=True,
        )
    shutil.rmtree(directory, ignore_errors=True)


# -- for the tests ----------------------------------------------------------------------------

_started: list[Path] = []


def cluster() -> str:
    """The address of the cluster the tests use: CABINET_TEST_PG's, or one started here
    (once a process, stopped when it ends).  Raises RuntimeError when there can be none."""
    given = os.environ.get(ENV_VAR)
    if given:
        return given
    if not _started:
        import atexit

        directory = Path(
            tempfile.mkdtemp(prefix="cabinet-pg-")
        )  # not under pytest's 0700 temp: the server's user enters it
        try:
            os.environ[ENV_VAR] = start(directory)
        except BaseException:
            stop(directory)
            raise
        _started.append(directory)
        atexit.register(stop, directory)
    return os.environ[ENV_VAR]


def fresh_database(base: str) -> str:
    """A new, empty database in the cluster at ``base``; its address."""
    import psycopg
    from psycopg.conninfo import conninfo_to_dict

    name = f"cabinet_test_{secrets.token_hex(6)}"
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    info = conninfo_to_dict(base)
    return url(info.get("host") or "/tmp", name, info.get("user") or "postgres", info.get("port"))


def drop_database(base: str, address: str) -> None:
    import psycopg
    from psycopg.conninfo import conninfo_to_dict

    name = conninfo_to_dict(address)["dbname"]
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


class Cluster:
    """A cluster of one test's own, which it may restart or stop a while (``restart``,
    ``shut_down``, ``start_again``); ``url``: a database made in it."""

    def __init__(self) -> None:
        self.directory = Path(tempfile.mkdtemp(prefix="cabinet-pg-"))  # not under pytest's 0700 temp
        try:
            self.url = fresh_database(start(self.directory))
        except BaseException:
            stop(self.directory)
            raise

    def restart(self) -> None:
        restart(self.directory)

    def shut_down(self) -> None:
        shut_down(self.directory)

    def start_again(self) -> None:
        start_again(self.directory)

    def remove(self) -> None:
        stop(self.directory)


try:
    import pytest
except ImportError:  # run as a script by .ci/run, before the test environment is installed
    pytest = None  # type: ignore[assignment]

if pytest is not None:

    @pytest.fixture(scope="module")
    def pg_url():
        """A fresh database of the test cluster for this module, dropped after it."""
        try:
            base = cluster()
        except RuntimeError as exc:
            pytest.skip(f"no PostgreSQL to test against: {exc}")
        address = fresh_database(base)
        yield address
        drop_database(base, address)

    @pytest.fixture
    def pg_cluster():
        """A cluster of the test's own (``Cluster``), removed after it."""
        if binaries() is None:
            pytest.skip("no PostgreSQL to test against: no PostgreSQL programs (initdb, pg_ctl) on this machine")
        pytest.importorskip("psycopg", reason="the PostgreSQL driver (the extra 'postgres') is not installed")
        made = Cluster()
        yield made
        made.remove()


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in ("start", "stop"):
        print("usage: pg.py start|stop DIR", file=sys.stderr)
        return 2
    command, directory = argv
    if command == "stop":
        stop(directory)
        return 0
    if binaries() is None:
        print("pg.py: no PostgreSQL on this machine (initdb, pg_ctl): its tests will be skipped.", file=sys.stderr)
        return 0
    try:
        print(start(directory))
    except RuntimeError as exc:
        print(f"pg.py: cannot start PostgreSQL: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
