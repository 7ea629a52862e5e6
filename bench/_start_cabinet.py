"""Child process for bench/run.py: `cabinet` up to its interactive main menu.

Runs what the `cabinet` console script runs with no arguments (``cabinet.main.main``: the
command line, ``tui.cli.main``, which parses the arguments, finds the save directory and
hands the menu to ``cabinet.main.run_app``, which builds ``CabinetApp``, sets the collector
and runs it), the only differences being that the app runs headless and exits once the
MainMenu is mounted and its first refresh is done: the mechanism of bench/_start_bare.py.
The save directory comes from $CABINET_SAVE_DIR, which bench/run.py points at a temporary
directory.  Prints the app's return value so the parent can check the menu really came up.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cabinet.main as program  # what the `cabinet` script imports

real_run_app = program.run_app


def run_app(start, save_dir):  # type: ignore[no-untyped-def]
    """``cabinet.main.run_app`` itself, with the app headless and leaving at the menu's first frame."""
    import screens.app
    import screens.menu

    class FirstMenu(screens.menu.MainMenu):
        def on_mount(self) -> None:
            self.call_after_refresh(self.app.exit, "shown")

    class HeadlessApp(screens.app.CabinetApp):
        def run(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            result = super().run(*args, headless=True, **kwargs)
            print(self.return_value)
            return result

    # CabinetApp.on_mount imports MainMenu from screens.menu when it runs
    screens.menu.MainMenu = FirstMenu
    screens.app.CabinetApp = HeadlessApp
    return real_run_app(start, save_dir)


if __name__ == "__main__":
    program.run_app = run_app  # cabinet.main.main hands the app to it
    raise SystemExit(program.main([]))
