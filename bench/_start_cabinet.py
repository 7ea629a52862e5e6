"""Child process for bench/run.py: `cabinet` up to its interactive main menu.

Does what the `cabinet` console script does with no arguments
(cabinet.main: import tui.cli, parse the arguments, find the save directory,
import screens.app, build CabinetApp and run it), but headless, and exits once
the MainMenu is mounted and its first refresh is done: the mechanism of
bench/_start_bare.py.  The save directory comes from $CABINET_SAVE_DIR,
which bench/run.py points at a temporary directory.  Prints the app's return
value so the parent can check the menu really came up.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import tui.cli as cli  # what the `cabinet` script imports first


def main() -> int:
    args = cli.build_parser().parse_args([])
    save_dir = cli.save_dir_of(args)

    import screens.menu
    from screens.app import CabinetApp

    class FirstMenu(screens.menu.MainMenu):
        def on_mount(self) -> None:
            self.call_after_refresh(self.app.exit, "shown")

    # CabinetApp.on_mount imports MainMenu from screens.menu when it runs
    screens.menu.MainMenu = FirstMenu
    app = CabinetApp(save_dir=save_dir)
    app.run(headless=True)
    print(app.return_value)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
