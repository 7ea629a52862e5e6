"""``cabinet``: the command line, and the app it opens."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tui.start import WARM_COMMAND, Start, collect_for_a_screen


def run_app(start: Start, save_dir: Path) -> int:
    """Open the app on ``start`` (the menu, a game, a replay, a join, a served session's lobby)."""
    from screens.app import CabinetApp

    app = CabinetApp(save_dir=save_dir, start=start)
    collect_for_a_screen()
    app.run()
    said = app.goodbye()
    if said is not None:
        print(said)
    return app.return_code or 0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    # a Python that Cabinet starts (the forkserver of the bots' and the analyses' workers is
    # started with -c) would put its working directory first on its path: a folder there named
    # like one of Cabinet's packages (saves/, net/, core/...) would be imported in its place,
    # and every worker would die at its start (PYTHONSAFEPATH, Python 3.11)
    os.environ["PYTHONSAFEPATH"] = "1"
    if args == [WARM_COMMAND]:  # what cabinet serve starts, not a player: no help, no usage
        return warm_parent()
    if not args:
        # ``cabinet`` alone: the menu, without the command line's module (its parser, every
        # command's imports: 7 ms of a start-up, docs/PERFORMANCE.md, issue 35), which says
        # the sentence only where the save directory must be refused
        from saves.store import save_dir

        try:
            directory = save_dir(None)
        except OSError:
            directory = None
        if directory is not None:
            return run_app(Start(), directory)
    from tui.cli import main as command_line

    return command_line(argv, run_app=run_app)


def warm_up() -> None:
    """Everything a served session's app needs, imported before any session exists: Textual,
    the app and every screen, every game's rules and board (``screens.games``' boards are
    otherwise imported on first use), the client of the hall; then the app is run once
    (``rehearse``: if that fails, the warm parent says so in the server's log and forks all the same)."""
    import importlib
    import pkgutil

    import screens
    from core.games import all_games
    from screens.games import board_class, boards

    for info in pkgutil.walk_packages(screens.__path__, "screens."):
        importlib.import_module(info.name)
    for game_id in all_games():
        board_class(game_id)
    assert boards()
    for name in WARM_MODULES:
        importlib.import_module(name)
    try:
        rehearse()
    except Exception as exc:  # noqa: BLE001 - a warm parent without it still forks sessions, a little bigger
        print(
            f"the rehearsal of the app failed ({type(exc).__name__}: {exc}); sessions are forked without it",
            file=sys.stderr,
        )


#: modules a session imports as it starts its app and its lobby, not imported by the screens'
WARM_MODULES = (
    "net.client",
    "rich._emoji_codes",
    "textual._keyboard_protocol",
    "textual._xterm_parser",
    "textual.drivers.linux_driver",
    "textual.drivers._writer_thread",
    "textual.layouts.factory",
    "textual.layouts.horizontal",
    "textual.layouts.stream",
    "textual.scrollbar",
    "textual.pilot",
    "tty",
)


def rehearse() -> None:
    """The app run once, headless, to its menu: the code a session runs first has run (and
    Python has specialised it) before the warm parent forks, so that the sessions share it
    rather than each writing its own copy of those pages."""
    import asyncio
    import os

    from screens.app import CabinetApp

    async def once() -> None:
        app = CabinetApp(save_dir=Path(os.devnull), start=Start())
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()

    asyncio.run(once())


def warm_parent() -> int:
    """``cabinet serve``'s warm parent (``net.zygote``): warmed up, it forks each session's
    app and runs it in place, ``cabinet lobby`` without a new Python."""
    import os

    from net.zygote import ENV_SOCKET, serve_forks
    from tui.serve import program

    if not os.environ.get(ENV_SOCKET, "").isdigit():
        print(
            f"cabinet: {WARM_COMMAND} is what cabinet serve starts to fork its sessions' apps; run cabinet serve.",
            file=sys.stderr,
        )
        return 2
    warm_up()
    return serve_forks(run=main, warm_for=program())
