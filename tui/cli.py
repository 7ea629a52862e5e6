"""The ``cabinet`` command line."""

from __future__ import annotations

import argparse
import json
import os
import stat
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from core.engine import ALL, PUBLIC, ConfigError, Game, derive_rng, printable
from core.games import game_titles, get_game
from table.spec import BOT, HUMAN, SeatSpec, TableSpec, check_level, usual_players

EPILOG = "Every move is saved as it is played; saves live in the data directory (see --save-dir)."


def version_line() -> str:
    """``cabinet 0.1.0``: the installed package's version (the source tree's when it is run
    uninstalled)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        number = version("cabinet")
    except PackageNotFoundError:
        from core import __version__ as number
    return f"cabinet {number}"


class VersionAction(argparse.Action):
    """``--version``: the version line, looked up only when it is asked for."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        print(version_line())
        parser.exit()


def games_list() -> str:
    """Every game installed, each its id then its title in brackets, joined by commas and a
    last "or" (the games' registry names them: none is written here)."""
    items = [f"{game_id} ({title})" for game_id, title in game_titles().items()]
    if len(items) < 2:
        return "".join(items) or "none is installed"
    return ", ".join(items[:-1]) + " or " + items[-1]


class Parser(argparse.ArgumentParser):
    """argparse, but every mistake is a usage line and exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        print(f"{self.prog}: {message}", file=sys.stderr)
        raise SystemExit(2)


def say(text: Any, file: Any = None, flush: bool = False) -> None:
    """Print ``text``, a line or several, with every character a terminal would act on
    shown as a stand-in (:func:`core.engine.printable`): what a save holds (a seat's
    name, in a summary, a history or a refusal) is printed this way, never with its
    escape sequences."""
    print(printable(str(text), lines=True), file=file or sys.stdout, flush=flush)


def build_parser() -> Parser:
    # --save-dir goes before or after the command; after it, a subcommand's
    # default must not wipe out a value given before (hence SUPPRESS there).
    common = Parser(add_help=False)
    common.add_argument(
        "--save-dir", metavar="DIR", default=argparse.SUPPRESS, help="where saves are kept (also CABINET_SAVE_DIR)"
    )
    # a table in a store (a database) where a command takes a save file
    in_store = Parser(add_help=False)
    in_store.add_argument(
        "--store", metavar="URL", help="the tables of this store (postgresql://USER@HOST/DB): SAVE names a table there"
    )

    parser = Parser(prog="cabinet", description="Games of politics and intrigue, in the terminal.", epilog=EPILOG)
    parser.add_argument("--save-dir", metavar="DIR", default=None, help="where saves are kept (also CABINET_SAVE_DIR)")
    parser.add_argument("--version", action=VersionAction, help="print the version of Cabinet and exit")
    sub = parser.add_subparsers(dest="command", parser_class=Parser)
    #: each command's own parser, so that a mistake found after parsing shows that command's usage
    parser.commands = sub.choices  # type: ignore[attr-defined]

    # how a new table is laid: the same for play and host
    table = Parser(add_help=False)
    table.add_argument("--players", type=int, help="number of seats (the game's usual number by default)")
    table.add_argument("--bots", metavar="SEATS", help="seats played by bots: 2,3 (1-based), all or none")
    table.add_argument("--bot-level", metavar="L", help="level of the bots, one for all or one per bot seat: L[,L...]")
    table.add_argument("--seed", type=int, help="seed of the shuffles (a random one by default)")
    table.add_argument("--variant", action="append", default=[], metavar="K=V", help="a rule variant (repeatable)")
    table.add_argument("--names", metavar="A,B,...", help="the players' names")

    play = sub.add_parser("play", parents=[common, table], help="start a new game")
    play.add_argument("game", nargs="?", help="game id: " + ", ".join(game_titles()))

    host = sub.add_parser("host", parents=[common, table], help="host a game for players in other terminals")
    host.add_argument("game", nargs="?", help="game id: " + ", ".join(game_titles()))
    host.add_argument(
        "--listen",
        metavar="ADDR",
        default="127.0.0.1:7788",
        help="HOST:PORT (default 127.0.0.1:7788, loopback only) or a Unix socket path",
    )
    host.add_argument("--resume", metavar="SAVE", type=Path, help="host a saved game again (same join codes)")
    host.add_argument("--bot-delay", type=float, default=0.6, metavar="S", help="seconds a bot waits before moving")
    host.add_argument(
        "--watch-code",
        action="store_true",
        help="spectators need a code too (printed; kept with the save, so --resume keeps it)",
    )
    host.add_argument(
        "--max-spectators",
        type=int,
        metavar="N",
        help="spectators at most (by default as many as the open-files limit leaves room for)",
    )

    join = sub.add_parser("join", parents=[common], help="join a game hosted with cabinet host")
    join.add_argument("address", metavar="ADDR", help="HOST:PORT or socket path the host printed")
    join.add_argument(
        "code", nargs="?", help="your seat's join code (with --watch: the watch code, if the host gave one)"
    )
    join.add_argument("--watch", action="store_true", help="watch as a spectator (public information only)")

    serve = sub.add_parser("serve", help="a game server friends reach with ssh: many tables, a lobby, bots")
    serve.add_argument(
        "--listen",
        metavar="ADDR:PORT",
        default="127.0.0.1:2222",
        help="where SSH clients connect (default 127.0.0.1:2222; 0.0.0.0:2222 opens it to the network)",
    )
    serve.add_argument("--allow", metavar="AUTHORIZED_KEYS", type=Path, help="admit only the public keys in this file")
    serve.add_argument("--data", metavar="DIR", type=Path, help="the server's tables, players and host key")
    serve.add_argument(
        "--store",
        metavar="URL",
        help="keep the tables in this PostgreSQL database (postgresql://USER@HOST/DB) rather than in --data",
    )
    serve.add_argument("--bot-delay", type=float, default=0.6, metavar="S", help="seconds a bot waits before moving")
    serve.add_argument("--max-sessions", type=int, default=200, metavar="N", help="SSH sessions at once, in all")
    serve.add_argument("--sessions-per-key", type=int, default=4, metavar="N", help="SSH sessions at once of one key")
    serve.add_argument(
        "--idle",
        type=float,
        default=3600.0,
        metavar="S",
        help="seconds without a key pressed before a session is closed",
    )
    serve.add_argument(
        "--log", metavar="FILE", type=Path, help="append the server's log to FILE, each line timed (default: stderr)"
    )
    serve.add_argument(
        "--no-fork",
        action="store_true",
        help="start each session's app afresh rather than fork it from a warm parent (more memory, slower starts)",
    )
    serve.add_argument(
        "--no-ksm",
        action="store_true",
        help="do not ask the kernel to merge the forked sessions' identical pages (KSM: see docs/SCALING.md)",
    )

    # started by cabinet serve for each SSH session, in its terminal (CABINET_HALL, CABINET_TOKEN)
    sub.add_parser("lobby")  # what a served session runs: no help, and left out of the list below

    load = sub.add_parser("load", parents=[common], help="continue a saved game")
    load.add_argument("save", type=Path)

    replay = sub.add_parser("replay", parents=[common, in_store], help="replay a saved game")
    replay.add_argument("save", type=Path)
    replay.add_argument("--at", type=int, metavar="N", help="open after move N (0: the start)")
    replay.add_argument(
        "--as",
        dest="viewer",
        metavar="SEAT|all",
        help="once the game is over: see it as seat SEAT (1-based) saw it, or all revealed",
    )

    simulate = sub.add_parser("simulate", parents=[common], help="bots play whole games headless")
    simulate.add_argument("game")
    simulate.add_argument("--players", type=int, required=True)
    simulate.add_argument("--games", type=int, required=True)
    simulate.add_argument("--seed", type=int, required=True)
    simulate.add_argument(
        "--bot-level", metavar="L[,L...]", default=None, help="one level for every seat or one per seat"
    )
    simulate.add_argument("--quiet", action="store_true", help="only the summary")
    simulate.add_argument(
        "--rotate", action="store_true", help="game k seats the levels k places on (fair between seats)"
    )
    simulate.add_argument("--jobs", type=int, default=1, metavar="N", help="games played at once, in N processes")
    simulate.add_argument("--variant", action="append", default=[], metavar="K=V", help="a rule variant (repeatable)")

    verify = sub.add_parser("verify", parents=[common, in_store], help="check saves replay to their checkpoints")
    verify.add_argument("saves", type=Path, nargs="+")

    export = sub.add_parser("export", parents=[common, in_store], help="print a save's history")
    export.add_argument("save", type=Path)
    export.add_argument("--format", choices=("text", "json"), default="text")

    analyse = sub.add_parser(
        "analyse", parents=[common], help="judge every move of a finished game from what its player knew"
    )
    analyse.add_argument("save", type=Path)
    analyse.add_argument("--json", action="store_true", help="the analysis as JSON")
    analyse.add_argument(
        "--effort",
        type=int,
        default=None,
        metavar="N",
        help="worlds drawn for each move judged (default 48: more is steadier and slower)",
    )
    analyse.add_argument(
        "--jobs", type=int, default=None, metavar="N", help="moves judged at once, in N processes (default: one a core)"
    )

    store = sub.add_parser("store", help="move saves between files and a store of tables (a database)")
    moves = store.add_subparsers(dest="store_command", parser_class=Parser, required=True, metavar="import|export|list")
    store.commands = moves.choices  # type: ignore[attr-defined]
    url = Parser(add_help=False)
    url.add_argument("--store", metavar="URL", required=True, help="the store: postgresql://USER@HOST/DB")
    put = moves.add_parser("import", parents=[url], help="copy saves into the store, each a table named as its file")
    put.add_argument("saves", metavar="SAVE", type=Path, nargs="+")
    get = moves.add_parser("export", parents=[url], help="copy a table of the store into a save file")
    get.add_argument("table", metavar="TABLE")
    get.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        type=Path,
        required=True,
        help="the save file to write (not one there already)",
    )
    moves.add_parser("list", parents=[url], help="the store's tables: game, seats, moves, state")
    sub.metavar = "{" + ",".join(name for name in sub.choices if name != "lobby") + "}"
    return parser


def parse_variants(parser: Parser, items: list[str]) -> dict[str, str]:
    variants = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key or not value:
            parser.error(f"--variant takes KEY=VALUE, not {item!r}")
        variants[key] = value
    return variants


def parse_levels(parser: Parser, spec: str | None, count: int, default: str, game: Game) -> list[str]:
    """One level a bot seat; every level named must be one of the game's bots' (even with no
    bot seat to take it: it is a mistake all the same)."""
    if not spec:
        return [default] * count
    levels = [x.strip() for x in spec.split(",")]
    for level in dict.fromkeys(levels):
        try:
            check_level(game, level)
        except ConfigError as exc:
            parser.error(str(exc))
    if len(levels) == 1:
        return levels * count
    if len(levels) != count:
        parser.error(f"--bot-level takes one level or {count} (one per bot seat), not {len(levels)}")
    return levels


def checked(parser: Parser, spec: TableSpec) -> TableSpec:
    """``spec``, once the table layer has found nothing wrong with it; else a usage error
    with its sentence."""
    try:
        spec.check()
    except ConfigError as exc:
        parser.error(str(exc).rstrip("."))
    return spec


def command_parser(parser: Parser, args: argparse.Namespace) -> Parser:
    """The parser of the command given (``parser`` itself if it is one already),
    and of its own command if it has some (``cabinet store import``)."""
    commands = getattr(parser, "commands", None) or {}
    mine = commands.get(args.command, parser)
    inner = getattr(mine, "commands", None) or {}
    return inner.get(getattr(args, "store_command", None), mine)


def existing_save(parser: Parser, args: argparse.Namespace, path: Path) -> Path:
    """A save named on the command line must be there: a missing file is a bad argument.
    One that cannot be looked at (in a directory this user may not enter) is given
    back as it is: reading it says why, in one sentence."""
    try:
        st = path.stat()
    except (FileNotFoundError, NotADirectoryError):
        command_parser(parser, args).error(f"there is no save {path}")
    except OSError:
        return path
    if stat.S_ISDIR(st.st_mode):
        command_parser(parser, args).error(f"{path} is a directory, not a save file")
    return path


def or_exit(work: Callable[[], Any], prefix: str = "cabinet: ") -> Any:
    """What ``work`` gives; where it raises SaveError, its sentence and status 1."""
    from saves import SaveError

    try:
        return work()
    except SaveError as exc:
        say(f"{prefix}{exc}", file=sys.stderr)
        raise SystemExit(1) from None


def open_store_or_exit(address: str):
    """The store at ``address``; one sentence and status 1 when it cannot be used
    (out of reach, a newer schema, the driver not installed)."""
    from saves import open_store

    return or_exit(lambda: open_store(address))


def sources(parser: Parser, args: argparse.Namespace, names: list[Path]) -> list[tuple[str, Any]]:
    """What the saves named on the command line are read from, each with the name to
    print: save files, or with --store the store's tables (a missing one is a bad argument)."""
    if getattr(args, "store", None) is None:
        return [(str(path), existing_save(parser, args, path)) for path in names]
    store = open_store_or_exit(args.store)
    known = set(or_exit(store.tables))
    for name in names:
        if str(name) not in known:
            command_parser(parser, args).error(f"there is no table {name} in {store.where}")
    return [(str(name), store.source(str(name))) for name in names]


def game_or_error(parser: Parser, game_id: str):
    game = get_game(game_id)
    if game is None:
        parser.error(f"there is no game {game_id!r}: the games are {games_list()}")
    return game


def save_dir_of(args: argparse.Namespace) -> Path:
    from saves import save_dir

    try:
        return save_dir(args.save_dir)
    except OSError as exc:
        build_parser().error(f"cannot use {exc.filename or args.save_dir} as the save directory: {exc.strerror or exc}")
        raise  # not reached: error() exits


def match_from_args(parser: Parser, args: argparse.Namespace):
    """A new match from ``play``'s or ``host``'s arguments."""
    from tui.session import parse_bots

    if not args.game:
        parser.error(f"say which game to play: {games_list()}")
    game = game_or_error(parser, args.game)
    players = usual_players(game) if args.players is None else args.players
    checked(parser, TableSpec(game.id, players))
    try:
        bots = parse_bots(args.bots, players)
    except ValueError as exc:
        parser.error(str(exc))
    levels = iter(parse_levels(parser, args.bot_level, len(bots) or 1, game.default_bot_level, game))
    names = [n.strip() for n in args.names.split(",")] if args.names else []
    seats = [
        SeatSpec(
            BOT if seat in bots else HUMAN,
            next(levels) if seat in bots else None,
            names[seat] if seat < len(names) else None,
        )
        for seat in range(players)
    ]
    spec = checked(parser, TableSpec(game.id, players, seats, parse_variants(parser, args.variant), args.seed))
    return spec.build()


def new_save_or_exit(args: argparse.Namespace, match):
    from saves import SaveError
    from tui.session import start_save

    try:
        return start_save(save_dir_of(args), match)
    except SaveError as exc:  # SaveNotWritable: a directory we may not write to, a full disk
        print(f"cabinet: {exc}", file=sys.stderr)
        raise SystemExit(1) from None
    except OSError as exc:
        print(f"cabinet: could not create a save: {exc.strerror or exc} ({exc.filename or ''}).", file=sys.stderr)
        raise SystemExit(1) from None


def cmd_play(parser: Parser, args: argparse.Namespace):
    from tui.start import Start

    match = match_from_args(parser, args)
    writer = new_save_or_exit(args, match)
    return Start(mode="play", match=match, path=writer.path, writer=writer)


def cmd_host(parser: Parser, args: argparse.Namespace) -> int:
    import asyncio

    from net.protocol import Address, parse_address
    from net.server import (
        GameServer,
        Limits,
        codes_path,
        is_loopback,
        join_hosts,
        load_or_make_codes,
        load_or_make_watch_code,
    )

    try:
        address = parse_address(args.listen)
    except ValueError as exc:
        parser.error(f"--listen: {exc}")
    if args.max_spectators is not None and args.max_spectators < 0:
        parser.error("--max-spectators takes a number from 0")
    if args.resume is not None:
        if args.game:
            parser.error("--resume hosts the saved game: give no game id")
        loaded = load_or_exit(existing_save(parser, args, args.resume))
        if not loaded.match.humans():
            parser.error("every seat is a bot: there is nobody to host (try cabinet simulate)")
        for warning in loaded.warnings:
            say(warning, file=sys.stderr)
        writer = resume_or_exit(loaded)
    else:
        if not args.game:
            parser.error(f"say which game to host, or --resume SAVE: {games_list()}")
        new = match_from_args(parser, args)
        if not new.humans():
            parser.error("every seat is a bot: there is nobody to host (try cabinet simulate)")
        writer = new_save_or_exit(args, new)
    match = writer.match
    codes = load_or_make_codes(writer.path, match)
    watch_code = load_or_make_watch_code(writer.path, args.watch_code)
    writer.on_error = lambda sentence: say(f"cabinet host: {sentence}", file=sys.stderr, flush=True)

    def log(line: str) -> None:
        say(line, flush=True)  # it names the seats, whose names a resumed save gives

    async def serve() -> None:
        limits = Limits.derive(len(codes), spectators=args.max_spectators)
        server = GameServer(
            writer, codes, bot_delay=max(0.0, args.bot_delay), log=log, watch_code=watch_code, limits=limits
        )
        try:
            bound = await server.start(address)
        except OSError as exc:
            writer.close()
            if args.resume is None:  # nothing was played: leave no empty game behind
                for left in (writer.path, codes_path(writer.path)):
                    left.unlink(missing_ok=True)
            print(f"cabinet host: cannot listen on {address}: {exc.strerror or exc}.", file=sys.stderr)
            raise SystemExit(1) from None
        joins, hosts = [str(bound)], [str(bound)]
        if bound.path is None:
            hosts, beyond = await join_hosts(bound, server.listening_on())
            joins = [str(Address(host=h, port=bound.port)) for h in hosts]
            if beyond:
                print(
                    f"cabinet host: warning: {bound} can be reached from other machines, and the traffic is not "
                    f"encrypted: the join codes travel in clear. Over a network you do not trust, listen on "
                    f"127.0.0.1 and have players join through SSH (ssh -L {bound.port}:127.0.0.1:{bound.port} THIS-MACHINE).",
                    file=sys.stderr,
                    flush=True,
                )
        log(f"Hosting {match.game.title} on {bound}; the game is saved in {writer.path}.")
        for seat, code in codes.items():
            log(f"  {server.name(seat)}: cabinet join {joins[0]} {code}")
        log(f"  spectators: cabinet join {joins[0]} --watch" + (f" {watch_code}" if watch_code else ""))
        if len(joins) > 1:  # every address: the likeliest first, then the others, loopback last
            others = [j for j, h in zip(joins[1:], hosts[1:], strict=True) if not is_loopback(h)]
            local = [j for j, h in zip(joins[1:], hosts[1:], strict=True) if is_loopback(h)]
            parts = ([f"other addresses: {', '.join(others)}"] if others else []) + (
                [f"from this machine: {', '.join(local)}"] if local else []
            )
            log(f"  ({'; '.join(parts)})")
        log("Ctrl-C stops the server; cabinet host --resume SAVE hosts the game again, with the same codes.")
        try:
            await asyncio.Event().wait()
        finally:
            await server.close()

    try:
        asyncio.run(serve())
    except KeyboardInterrupt:
        print(f"Stopped. The game is saved in {writer.path}.")
    finally:
        writer.close()
    return 0


def cmd_join(parser: Parser, args: argparse.Namespace):
    from net.client import RemoteTable
    from net.protocol import parse_address
    from tui.start import Start

    try:
        address = parse_address(args.address)
    except ValueError as exc:
        parser.error(str(exc))
    if not args.watch and not args.code:
        parser.error("join takes your seat's code, or --watch to look on")
    return Start(mode="join", remote=RemoteTable(address, args.code or None, watch=args.watch))


def load_or_exit(path: Path):
    """The save read back; a damaged one is its sentence and exit status 1."""
    from saves import load

    return or_exit(lambda: load(path), prefix="")


def resume_or_exit(loaded):
    """A writer continuing the save.  One sentence and status 1 for a save
    somebody is playing already, one that cannot be written, or one with a bot
    this Cabinet does not know; the last two can still be replayed."""
    from saves import SaveError, SaveNotWritable, SaveWriter

    if loaded.unplayable is not None:
        say(f"cabinet: {loaded.unplayable} (cabinet replay {loaded.path} shows it.)", file=sys.stderr)
        raise SystemExit(1)
    try:
        return SaveWriter.resume(loaded)
    except SaveNotWritable as exc:
        say(f"cabinet: {exc} (cabinet replay {loaded.path} shows it.)", file=sys.stderr)
        raise SystemExit(1) from None
    except SaveError as exc:  # SaveLocked: who plays it; or it changed since it was read
        say(f"cabinet: {exc}", file=sys.stderr)
        raise SystemExit(1) from None


def cmd_load(parser: Parser, args: argparse.Namespace):
    from tui.start import Start

    loaded = load_or_exit(existing_save(parser, args, args.save))
    writer = resume_or_exit(loaded)
    return Start(mode="play", match=loaded.match, path=args.save, writer=writer, warnings=list(loaded.warnings))


def cmd_replay(parser: Parser, args: argparse.Namespace):
    from tui.start import Start

    mine = command_parser(parser, args)
    [(_, source)] = sources(parser, args, [args.save])
    loaded = load_or_exit(source)
    match = loaded.match
    moves = len(match.moves) - 1  # a move is what a player did; the setup is not one
    if args.at is not None and not 0 <= args.at <= moves:
        mine.error(f"--at takes a number of moves from 0 (the start) to {moves}, not {args.at}")
    in_play = match.outcome is None
    viewer: Any = None
    if args.viewer is not None:
        players = match.header["players"]
        if args.viewer == "all":
            viewer = ALL
        elif args.viewer.isdigit() and 1 <= int(args.viewer) <= players:
            viewer = int(args.viewer) - 1
        else:
            mine.error(f"--as takes a seat from 1 to {players} or 'all', not {args.viewer!r}")
        if in_play:
            # the same rule as the replay in the app: a game still in play shows nobody's hidden hand
            mine.error("--as is for a finished game: this one is still in play, and replays as the public sees it")
    elif in_play:
        viewer = PUBLIC
    start = Start(mode="replay", match=match, path=args.save, at=args.at, viewer=viewer, warnings=list(loaded.warnings))
    # a game in play stays seen as the public sees it: the replay must not let v cycle to a seat
    start.locked = in_play
    return start


def cmd_simulate(parser: Parser, args: argparse.Namespace) -> int:
    game = game_or_error(parser, args.game)
    if args.games < 1:
        parser.error("--games must be at least 1")
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    checked(parser, TableSpec(game.id, args.players))
    levels = parse_levels(parser, args.bot_level, args.players, game.default_bot_level, game)
    variants = parse_variants(parser, args.variant)
    checked(parser, TableSpec(game.id, args.players, [SeatSpec(BOT, level) for level in levels], variants))
    directory = save_dir_of(args)
    if not os.access(directory, os.W_OK | os.X_OK):
        print(f"cabinet simulate: cannot save the games in {directory}: permission denied.", file=sys.stderr)
        return 1
    seeds = derive_rng(args.seed, "simulate")
    tables = []
    for k in range(args.games):
        # --rotate: game k seats the levels k places on, so each plays every seat as often
        shift = k % args.players if args.rotate else 0
        seated = levels[-shift:] + levels[:-shift] if shift else list(levels)
        tables.append((game.id, seated, seeds.getrandbits(48), seeds.getrandbits(48), str(directory), variants))
    by_level: dict[str, float] = dict.fromkeys(levels, 0.0)
    seats_of: Counter[str] = Counter(levels)
    thinking: dict[str, list[float]] = {level: [] for level in levels}
    by_seat = [0.0] * args.players
    lengths: list[int] = []
    shared = 0
    if args.jobs > 1:
        import concurrent.futures

        pool = concurrent.futures.ProcessPoolExecutor(args.jobs)
        results = pool.map(simulate_one, tables)
    else:
        pool = None
        results = map(simulate_one, tables)
    from saves import SaveError

    try:
        for k, (table, result) in enumerate(zip(tables, results, strict=True)):
            seated = table[1]
            winners, reason, victor, moves, times = result
            for w in winners:
                by_level[seated[w]] += 1 / len(winners) / seats_of[seated[w]]
                by_seat[w] += 1 / len(winners)
            lengths.append(moves)
            for seat, spent in times.items():
                thinking[seated[seat]].extend(spent)
            shared += len(winners) > 1
            if not args.quiet:
                names = " and ".join(f"P{w + 1}-{seated[w]}" for w in winners) or victor or "Nobody"
                print(
                    f"game {k + 1}: {names} {'share the win' if len(winners) > 1 else 'wins'} in {moves} moves ({reason})"
                )
    except SaveError as exc:  # the disk filled up, or the directory was taken away mid-run
        print(f"cabinet simulate: {exc}", file=sys.stderr)
        return 1
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    rotated = ", seats rotated" if args.rotate else ""
    chosen = "".join(f", {key}={value}" for key, value in variants.items())
    print(
        f"{args.games} games of {game.title}, {args.players} players, levels {','.join(levels)}{rotated}{chosen}; saves in {directory}"
    )
    for level in dict.fromkeys(levels):
        seats = f" (each of {seats_of[level]} seats)" if seats_of[level] > 1 else ""
        spent = thinking[level]
        think = (
            f"; thinks {sum(spent) / len(spent):.3f} s a move on average, {max(spent):.3f} s at most" if spent else ""
        )
        print(f"  {level}{seats}: {by_level[level]:.1f} wins ({100 * by_level[level] / args.games:.1f}%){think}")
    # the seats whatever their levels: with equal levels, how fair the table is to each place
    for seat, won in enumerate(by_seat):
        print(f"  seat {seat + 1}: {won:.1f} wins ({100 * won / args.games:.1f}%)")
    if shared:
        print(f"  shared victories: {shared} (each winner counts its share)")
    print(f"  games last {sum(lengths) / len(lengths):.0f} moves on average ({min(lengths)} to {max(lengths)})")
    return 0


def simulate_one(
    table: tuple[str, list[str], int, int, str, dict[str, str]],
) -> tuple[list[int], str, int, dict[int, list[float]]]:
    """One simulated game: (winners, reason, the seatless victor if any, moves, seconds each seat thought a move).

    Only moves with a choice are timed: a bot with one legal command does not think.
    """
    from table import Table
    from tui.session import start_save

    game_id, levels, seed, bot_seed, directory, variants = table
    spec = TableSpec(
        game_id,
        len(levels),
        [SeatSpec(BOT, level, f"P{i + 1}-{level}") for i, level in enumerate(levels)],
        variants,
        seed,
        bot_seed,
    )
    match = spec.build()
    times: dict[int, list[float]] = {seat: [] for seat in range(len(levels))}

    def timed(seat: int, seconds: float, choices: int) -> None:
        if choices > 1:
            times[seat].append(seconds)

    with start_save(Path(directory), match, durable=False) as writer:
        Table(match, writer).play_out(timed=timed)
    outcome = match.outcome
    assert outcome is not None
    return list(outcome.winners), outcome.reason, outcome.victor, len(match.moves) - 1, times


def cmd_verify(parser: Parser, args: argparse.Namespace) -> int:
    from saves import SaveError, verify

    status = 0
    for name, source in sources(parser, args, args.saves):
        try:
            say(f"{name}: {verify(source)}")
        except SaveError as exc:
            say(exc)
            status = 1
    return status


def cmd_export(parser: Parser, args: argparse.Namespace) -> int:
    from saves import SaveError, export_json, export_text

    [(_, source)] = sources(parser, args, [args.save])
    try:
        text = export_json(source) if args.format == "json" else export_text(source)
    except SaveError as exc:
        say(exc, file=sys.stderr)
        return 1
    # names from the save: JSON escapes what it shows of them (the same strings, read back),
    # text shows stand-ins; neither passes an escape sequence to the terminal
    text = json_printable(text) if args.format == "json" else printable(text, lines=True)
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0


def json_printable(text: str) -> str:
    """JSON ``text`` with every character a terminal would act on written as its
    ``\\uXXXX`` escape.  ``json.dumps`` escapes the C0 controls, but not DEL, the C1
    controls (U+009B is a CSI of its own) nor the format characters; outside its strings
    JSON holds only printable characters and newlines, so the document means the same."""
    if printable(text, lines=True) == text:
        return text

    def escaped(ch: str) -> str:
        if ch == "\n" or printable(ch) == ch:
            return ch
        code = ord(ch)
        if code > 0xFFFF:  # beyond the BMP: JSON writes it as a surrogate pair
            code -= 0x10000
            return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
        return f"\\u{code:04x}"

    return "".join(escaped(ch) for ch in text)


def cmd_store(parser: Parser, args: argparse.Namespace) -> int:
    """``cabinet store import|export|list``: saves into a store and back, byte for byte."""
    from saves import SaveError, export_table, import_save
    from saves.format import summary

    if args.store_command == "import":
        for path in args.saves:
            existing_save(parser, args, path)
    if args.store_command == "export" and os.path.lexists(args.output):
        parser.error(f"{args.output} is there already: export to a new file")
    store = open_store_or_exit(args.store)
    status = 0
    try:
        if args.store_command == "import":
            for path in args.saves:
                try:
                    loaded = import_save(path, store, path.stem)
                except SaveError as exc:
                    say(exc)
                    status = 1
                    continue
                print(f"{path}: table {path.stem} in {store.where} ({len(loaded.match.moves) - 1} moves).")
        elif args.store_command == "export":
            if args.table not in or_exit(store.tables):
                parser.error(f"there is no table {args.table} in {store.where}")
            try:
                export_table(store, args.table, args.output)
            except SaveError as exc:
                say(exc, file=sys.stderr)
                return 1
            except OSError as exc:
                print(f"cabinet: cannot write {args.output}: {(exc.strerror or str(exc)).lower()}.", file=sys.stderr)
                return 1
            print(f"table {args.table}: written to {args.output}.")
        else:
            for table in or_exit(store.tables):
                try:
                    say(f"{table}: {summary(store.source(table))}")
                except SaveError as exc:
                    say(exc)
                    status = 1
    finally:
        store.close()
    return status


def cmd_analyse(parser: Parser, args: argparse.Namespace) -> int:
    """``cabinet analyse SAVE``: every move of a finished game judged from what its player
    knew (``core.analysis``), kept beside the save and reused; a table, or JSON."""
    from core.analysis import DEFAULT_EFFORT, MOST_EFFORT
    from table.analysis import Cancelled, NotFinished, stored_analysis

    effort = DEFAULT_EFFORT if args.effort is None else args.effort
    if not 1 <= effort <= MOST_EFFORT:
        parser.error(f"--effort takes a number of worlds from 1 to {MOST_EFFORT:,}, not {effort}")
    if args.jobs is not None and args.jobs < 1:
        parser.error("--jobs must be at least 1")
    path = existing_save(parser, args, args.save)
    loaded = load_or_exit(path)
    match = loaded.match
    for warning in loaded.warnings:
        say(f"cabinet: {warning}", file=sys.stderr)
    shown = sys.stderr.isatty()
    line = {"drawn": False}  # is the progress line on the terminal?

    def progress(done: int, total: int) -> None:
        if shown:
            name = printable(path.name)
            print(f"\rAnalysing {name}: move {done} of {total}…", end="", file=sys.stderr, flush=True)
            line["drawn"] = True

    def clear() -> None:
        if line["drawn"]:
            print("\r\x1b[K", end="", file=sys.stderr, flush=True)
            line["drawn"] = False

    def said(sentence: str) -> None:
        clear()
        say(f"cabinet: {sentence}", file=sys.stderr)

    try:
        analysis, _ = stored_analysis(path, match, effort=effort, progress=progress, workers=args.jobs, said=said)
    except NotFinished as exc:
        said(str(exc))
        return 1
    except (Cancelled, KeyboardInterrupt):
        said("the analysis was stopped before its end; nothing was kept.")
        return 130
    finally:
        clear()
    if args.json:
        text = json.dumps(analysis_document(match, analysis), ensure_ascii=False, indent=1)
        sys.stdout.write(json_printable(text) + "\n")
    else:
        sys.stdout.write(printable(analysis_table(match, analysis), lines=True))
    return 0


def played_line(match: Any, index: int) -> str:
    """What move ``index`` of the finished ``match`` did, as its player saw it: the first
    line of history it made."""
    game, move = match.game, match.moves[index]
    viewer = ALL if move.seat is None else move.seat
    for event in match.events[move.start : move.end]:
        try:
            line = str(game.describe(game.redact(event, viewer), viewer))
        except Exception:  # noqa: BLE001 - a line that cannot be described is named by its tag
            line = str(event.get("t", "?"))
        if line:
            return line
    return str((move.command or {}).get("t", "?"))


def marks_legend() -> str:
    """What the marks mean: "?? cost 25% or more, ? 10% or more"."""
    from core.analysis import MARKS

    return ", ".join(f"{mark} cost {percent(threshold)} or more" for threshold, mark in MARKS)


def percent(chance: float) -> str:
    return f"{round(chance * 100)}%"


def analysis_table(match: Any, analysis: Any) -> str:
    """The analysis as a readable table: each move, its player, the player's chance before
    and after it, its mark and the move preferred; then the turning points and the scores."""
    from core.engine import outcome_text

    names = analysis.names
    width = max(len(n) for n in names)
    lines = [
        f"{match.game.title}: {outcome_text(match)}",
        (
            f"Each move judged from what its player knew, on {analysis.effort} drawn worlds each"
            f" (chance of winning before → after; {marks_legend()})."
        ),
        "",
        f"{'move':>4}  {'player':<{width}}  {'before':>6} → {'after':<5} {'':2}  played; preferred",
    ]
    for j in analysis.judgements:
        played = played_line(match, j.move)
        if j.best is not None:
            played = f"{played.rstrip('.')}; preferred: {j.best.rstrip('.')} ({percent(j.best_after or 0.0)})"
        line = (
            f"{j.move:>4}  {names[j.seat]:<{width}}  {percent(j.before[j.seat]):>6} → "
            f"{percent(j.after[j.seat]):<5} {j.mark:2}  {played}"
        )
        lines.append(line)
    lines.append("")
    if analysis.turning:
        lines.append("Turning points: " + ", ".join(f"move {k}" for k in analysis.turning) + ".")
    marked = [j for j in analysis.judgements if j.mark]
    for seat, name in enumerate(names):
        mine = [j for j in marked if j.seat == seat]
        lines.append(f"{name}: {sum(j.mark == '?' for j in mine)} ?, {sum(j.mark == '??' for j in mine)} ??")
    if analysis.scores:
        lines.append(
            "Scores by round: "
            + "; ".join(
                f"{k + 1}. " + ", ".join(f"{names[s]} {x}" for s, x in enumerate(row))
                for k, row in enumerate(analysis.scores)
            )
            + "."
        )
    return "\n".join(lines) + "\n"


def analysis_document(match: Any, analysis: Any) -> dict[str, Any]:
    """The analysis as JSON: the game, the seats, every move judged, the curve."""
    return {
        "game": analysis.game,
        "title": match.game.title,
        "seats": analysis.seats,
        "names": list(analysis.names),
        "effort": analysis.effort,
        "winners": list(match.outcome.winners),
        "moves": [
            {
                "move": j.move,
                "seat": j.seat,
                "player": analysis.names[j.seat],
                "played": played_line(match, j.move),
                "before": list(j.before),
                "after": list(j.after),
                "mark": j.mark,
                "preferred": j.best,
                "preferred_after": j.best_after,
            }
            for j in analysis.judgements
        ],
        "curve": [list(point) for point in analysis.curve],
        "turning": list(analysis.turning),
        "scores": None if analysis.scores is None else [list(row) for row in analysis.scores],
    }


#: how the app is run on what the command line says to open: the program's (``cabinet.main``)
RunApp = Callable[[Any, Path], int]


def main(argv: list[str] | None = None, run_app: RunApp | None = None) -> int:
    """The ``cabinet`` command: every command that needs no screen is run here; one that opens the
    app is handed to ``run_app`` (the app is composed from the screens, above this module)."""
    if run_app is not None and not (sys.argv[1:] if argv is None else argv):
        # ``cabinet`` alone: the menu. Nothing to parse (what parse_args([]) gives), and the
        # parser, 6 ms of a start-up, is built only if the save directory must be refused;
        # the saves' writer is already called "cabinet" (docs/PERFORMANCE.md, issue 35)
        from tui.start import Start

        return run_app(Start(), save_dir_of(argparse.Namespace(save_dir=None, command=None)))
    from saves import format as save_format

    parser = build_parser()
    args = parser.parse_args(argv)
    command = args.command
    # a second writer of a save this process writes is told who keeps it: "(cabinet host, pid 1234)"
    save_format.WRITER_COMMAND = f"cabinet {command}" if command else "cabinet"
    parser = command_parser(parser, args)  # a mistake shows the usage of the command it was made in
    if command == "simulate":
        return cmd_simulate(parser, args)
    if command == "verify":
        return cmd_verify(parser, args)
    if command == "export":
        return cmd_export(parser, args)
    if command == "store":
        return cmd_store(parser, args)
    if command == "analyse":
        return cmd_analyse(parser, args)
    if command == "host":
        return cmd_host(parser, args)
    if command == "serve":
        from tui.serve import cmd_serve

        return cmd_serve(parser, args)

    from tui.start import Start

    start = Start()
    if command == "play":
        start = cmd_play(parser, args)
    elif command == "load":
        start = cmd_load(parser, args)
    elif command == "replay":
        start = cmd_replay(parser, args)
    elif command == "join":
        start = cmd_join(parser, args)
    elif command == "lobby":
        from tui.serve import lobby_start

        start = lobby_start(parser)
    if run_app is None:  # (a tool: only the commands without a screen)
        if start.writer is not None:
            start.writer.close()
        parser.error("this command opens the app: run it as cabinet, or python -m cabinet")
    if command == "lobby":  # a served session keeps nothing on this side: no save directory is made or read
        return run_app(start, Path(os.devnull))
    try:
        return run_app(start, save_dir_of(args))
    finally:
        if start.writer is not None:
            start.writer.close()  # the save is free again (idempotent if the game screen closed it)


if __name__ == "__main__":
    raise SystemExit(main())
