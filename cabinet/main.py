"""``cabinet``: the command line, and the app it opens."""

from __future__ import annotations

from pathlib import Path

from tui.cli import collect_for_a_screen
from tui.cli import main as command_line
from tui.start import Start


def run_app(start: Start, save_dir: Path) -> int:
    """Open the app on ``start`` (the menu, a game, a replay, a join, a served session's lobby)."""
    from screens.app import CabinetApp

    app = CabinetApp(save_dir=save_dir, start=start)
    collect_for_a_screen()
    app.run()
    return app.return_code or 0


def main(argv: list[str] | None = None) -> int:
    return command_line(argv, run_app=run_app)
