"""``cabinet serve``: the game server people reach with ``ssh``, and the app each session runs.

The server is two parts in one process: the hall (``net.hall``: the tables,
their saves and bots, the lobby) and the SSH front (``net.ssh``: keys, names,
refusals, one Cabinet app a session in a pseudo-terminal).  Each session's app
is ``cabinet lobby``, a process of its own, which reaches the hall over a Unix
socket with the token the front gave it.  It is forked from a warm parent
(``cabinet warm-parent``, ``net.zygote``) that has imported everything already,
and started afresh only until one is ready, or with ``--no-fork``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import re
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.start import WARM_COMMAND

if TYPE_CHECKING:
    from net.cluster import Cluster
    from net.identity import Identities
    from saves.postgres import PostgresStore
    from saves.store import LogStore

ENV_HALL = "CABINET_HALL"
ENV_TOKEN = "CABINET_TOKEN"
DEFAULT_PORT = 2222
TAKE_OVER_EVERY = 1.0  # seconds between looks for tables in play that no server holds (--store)
#: frames a second a session's app draws at most (Textual's TEXTUAL_FPS; 60 on a local
#: terminal). What changes within a frame is drawn once: a move's updates, the turn
#: passing, the history scrolling on, are one frame more often than two or three, and
#: a server's sessions share its cores. A key's echo waits 33 ms at most.
SESSION_FPS = 30


def data_dir_of(args: argparse.Namespace) -> Path:
    import platformdirs

    return Path(args.data).expanduser() if args.data else platformdirs.user_data_path("cabinet") / "server"


def program() -> list[str]:
    """This Python, this Cabinet: how the sessions' programs are started."""
    return [sys.executable, "-m", "cabinet"]


def child_command() -> list[str]:
    """How a session's app is started: this Python, this Cabinet (forked by the warm parent,
    which runs it in place, or exec'd)."""
    return [*program(), "lobby"]


def warm_command() -> list[str]:
    """The warm parent: a process that imports every session's app once and forks each."""
    return [*program(), WARM_COMMAND]


def lobby_start(parser: argparse.ArgumentParser) -> Any:
    """The app of one SSH session: its lobby at the hall named by the environment."""
    from net.client import HallClient
    from net.protocol import Address
    from tui.start import Start

    hall, token = os.environ.pop(ENV_HALL, ""), os.environ.pop(ENV_TOKEN, "")
    if not hall or not token:
        parser.error("lobby is the app cabinet serve starts for each SSH session; run cabinet serve")
    return Start(mode="lobby", remote=HallClient(Address(path=Path(hall)), token))


def parse_listen(parser: argparse.ArgumentParser, text: str) -> tuple[str, int]:
    """``ADDR:PORT``, ``:PORT``, ``PORT`` or ``ADDR`` (port 2222)."""
    from net.protocol import parse_address

    try:
        address = parse_address(text)
    except ValueError as exc:
        parser.error(f"--listen: {exc}")
    if address.path is not None:
        parser.error("--listen takes ADDR:PORT (SSH is served over TCP)")
    has_port = text.strip().isdigit() or re.search(r":\d+$", text.strip()) is not None
    return address.host, address.port if has_port else DEFAULT_PORT


class Server:
    """The hall and its SSH front, wired together: a session's login opens a hall session
    whose token its app is given; the session's end closes it.

    ``store``, ``cluster``, ``identities``: where the tables are kept, the other servers
    of that store, who holds which name; by default files in ``data`` for one server
    alone (see :func:`of_database`).  ``fork``: each session's app is forked from a warm
    parent (issue 35), else started afresh; ``merge``: the warm parent asks the kernel to merge
    its sessions' identical pages (KSM, ``net.zygote.merge_pages``)."""

    def __init__(
        self,
        data: Path,
        log: Any,
        allow: Path | None = None,
        limits: Any = None,
        store: LogStore | None = None,
        cluster: Cluster | None = None,
        identities: Identities | None = None,
        fork: bool = True,
        merge: bool = True,
        **hall: Any,
    ) -> None:
        from net.hall import Hall
        from net.ssh import FrontLimits, Login, SSHFront
        from net.zygote import ENV_MERGE

        self.hall = Hall(data, log=log, store=store, cluster=cluster, **hall)
        self.tokens: dict[int, str] = {}

        def child(login: Login) -> tuple[list[str], dict[str, str]]:
            token = self.hall.open_session(login.name)
            self.tokens[id(login)] = token
            return child_command(), {
                ENV_HALL: str(self.hall.socket_path),
                ENV_TOKEN: token,
                "TEXTUAL_FPS": str(SESSION_FPS),
            }

        def ended(login: Login) -> None:
            token = self.tokens.pop(id(login), None)
            if token is not None:
                self.hall.close_session(token)

        def seated(login: Login) -> bool:
            return self.hall.seated(login.name)

        # what every session's environment has that is the same for all: the warm parent
        # imports Textual with it (Textual reads its variables once, on import)
        warm_env = {"TEXTUAL_FPS": str(SESSION_FPS)}
        if merge:
            warm_env[ENV_MERGE] = "1"  # the kernel asked to share the sessions' pages alike (KSM)
        self.front = SSHFront(
            data,
            allow=allow,
            child=child,
            on_end=ended,
            seated=seated,
            limits=limits or FrontLimits(),
            log=log,
            identities=identities,
            offloop=self.hall.offloop,  # the names asked in the hall's threads
            warm=(warm_command(), warm_env) if fork else None,
        )

    async def start(self, host: str, port: int) -> tuple[str, int]:
        """The hall resumed, then the front listening; the address it listens on.
        OSError says which of them could not start."""
        try:
            await self.hall.start()
        except OSError as exc:
            raise OSError(exc.errno, f"cannot open the hall in {self.hall.data_dir}: {exc.strerror or exc}") from exc
        try:
            return await self.front.start(host, port)
        except OSError as exc:
            await self.hall.close()
            raise OSError(exc.errno, f"cannot listen on {host}:{port}: {exc.strerror or exc}") from exc

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.front.close()
        await self.hall.close()


def of_database(store: PostgresStore) -> dict[str, Any]:
    """A hall's store and cluster on a database (``Hall(..., **of_database(store))``): the
    tables, and what the servers sharing them tell one another, over the store's connections."""
    # annotated, so that mypy checks the store is each of them (a Cluster is a protocol)
    tables: LogStore = store
    servers: Cluster = store
    return {"store": tables, "cluster": servers}


def open_log(path: Path | None) -> logging.Logger:
    """The server's log: ``path`` (appended to, each line with its time), else stderr.

    Through Python's logging, whose handlers never raise: a log that cannot be written
    (a pipe whose reader went, as ``cabinet serve | head -1``; a full disk) loses its
    lines, and never stops the server nor its goodbye to the players."""
    logging.raiseExceptions = False  # a failed write is dropped, without a traceback on stderr
    logger = logging.getLogger("cabinet.serve")
    logger.setLevel(logging.INFO)
    logger.propagate = False
    handler: logging.Handler
    if path is None:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(message)s"))
    else:
        # WatchedFileHandler: a log rotated away (logrotate) is opened again at its name
        from logging.handlers import WatchedFileHandler

        handler = WatchedFileHandler(path, encoding="utf-8")
        handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
    logger.handlers[:] = [handler]
    return logger


def cmd_serve(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from net.protocol import Address
    from net.server import is_loopback, join_hosts
    from net.ssh import FrontLimits

    host, port = parse_listen(parser, args.listen)
    for flag, value in (("--max-sessions", args.max_sessions), ("--sessions-per-key", args.sessions_per_key)):
        if value < 1:
            parser.error(f"{flag} takes a number from 1")
    if args.idle <= 0:
        parser.error("--idle takes a number of seconds above 0")
    if args.allow is not None and not args.allow.is_file():
        parser.error(f"--allow: {args.allow} is not a file of public keys")
    data = data_dir_of(args)
    try:
        data.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as exc:
        print(f"cabinet serve: cannot use {data} for the server's data: {exc.strerror or exc}.", file=sys.stderr)
        return 1
    try:
        logger = open_log(args.log)
    except OSError as exc:
        print(f"cabinet serve: cannot write the log to {args.log}: {exc.strerror or exc}.", file=sys.stderr)
        return 1

    store: PostgresStore | None = None
    if args.store is not None:
        from saves import SaveError
        from saves.postgres import PostgresStore

        if not args.store.startswith(("postgresql://", "postgres://")):
            parser.error("--store takes a PostgreSQL address, postgresql://USER@HOST/DATABASE (the files are --data's)")
        try:
            store = PostgresStore(args.store)
        except SaveError as exc:
            print(f"cabinet serve: {exc}", file=sys.stderr)
            return 1

    def log(line: str) -> None:
        logger.info(line)

    async def serve() -> int:
        limits = FrontLimits(sessions_per_key=args.sessions_per_key, sessions=args.max_sessions, idle=args.idle)
        hall: dict[str, Any] = {}
        if store is not None:
            from net.identity import StoredIdentities

            # a store other servers may share: the tables of one that dies are taken over within
            # a second or so; who holds which name is kept there too (every server agrees)
            hall = {**of_database(store), "identities": StoredIdentities(store), "take_over_every": TAKE_OVER_EVERY}
        server = Server(
            data,
            log,
            allow=args.allow,
            limits=limits,
            fork=not args.no_fork,
            merge=not args.no_ksm,
            bot_delay=max(0.0, args.bot_delay),
            **hall,
        )
        try:
            bound_host, bound_port = await server.start(host, port)
        except OSError as exc:
            print(f"cabinet serve: {exc.strerror or exc}.", file=sys.stderr)
            return 1
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        shown = f"[{bound_host}]" if ":" in bound_host else bound_host
        # the tables taken up again: waiting for players or in play (the finished ones are only listed)
        tables = sum(1 for table in server.hall.tables.values() if table.state() != "finished")
        kept = f"tables in {store.where}, the rest in {data}" if store is not None else f"data in {data}"
        log(f"Cabinet serves on {shown}:{bound_port} ({tables} table{'s' if tables != 1 else ''} resumed; {kept}).")
        log(f"  host key: {server.front.host_fingerprint}")
        # as cabinet host does: a server on every address is reached by this machine's own
        hosts, beyond = await join_hosts(Address(host=bound_host, port=bound_port), server.front.listening_on())
        ssh = [
            f"ssh -p {bound_port} NAME@{f'[{h}]' if ':' in h else h}" if bound_port != 22 else f"ssh NAME@{h}"
            for h in hosts
        ]
        log(f"  players: {ssh[0]}")
        others = [line for line, h in zip(ssh[1:], hosts[1:], strict=True) if not is_loopback(h)]
        local = [line for line, h in zip(ssh[1:], hosts[1:], strict=True) if is_loopback(h)]
        if others or local:
            parts = ([f"other addresses: {', '.join(others)}"] if others else []) + (
                [f"from this machine: {', '.join(local)}"] if local else []
            )
            log(f"  ({'; '.join(parts)})")
        if args.allow is not None:
            log(f"  admitting only the keys in {args.allow}")
        elif beyond:
            logger.warning(
                f"cabinet serve: warning: {shown}:{bound_port} can be reached from other machines, and without "
                "--allow anyone who can reach it may claim a name with their key (--allow AUTHORIZED_KEYS admits "
                "only your friends' keys)."
            )
        log("Ctrl-C stops the server; starting it again resumes every table.")
        try:
            await stop.wait()
        finally:
            log("Stopping: every table is saved.")
            await server.close()
        return 0

    try:
        return asyncio.run(serve())
    finally:
        if store is not None:
            store.close()
