"""Building apps in a known position for the screen tests."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot

from core.games import get_game
from saves import SaveWriter
from screens.app import CabinetApp
from tui.session import new_match, start_save
from tui.start import Start

GAME = get_game("agent-jean")
NAMES = ["Ada", "Bastien", "Chloé", "Denis", "Elsa"]


def agent_jean_match(humans: int = 1, players: int = 2, seed: int = 7, level: str = "easy"):
    controllers = [{"kind": "human"}] * humans + [{"kind": "bot", "level": level}] * (players - humans)
    seats = [{"name": n} for n in NAMES[:players]]
    return new_match(GAME, players, seats, controllers, seed=seed, bot_seed=seed)


def play_app(save_dir: Path, humans: int = 1, players: int = 2, seed: int = 7, delay: float = 0.0) -> CabinetApp:
    match = agent_jean_match(humans, players, seed)
    writer = start_save(save_dir, match)
    return app_for(save_dir, writer, delay)


def app_for(save_dir: Path, writer: SaveWriter, delay: float = 0.0) -> CabinetApp:
    start = Start(mode="play", match=writer.match, path=writer.path, writer=writer)
    return CabinetApp(save_dir=save_dir, start=start, bot_delay=delay)


async def settle(pilot: Pilot, rounds: int = 200) -> None:
    """Wait until no bot is thinking and the screen is still."""
    app = pilot.app
    for _ in range(rounds):
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = next((s for s in app.screen_stack if hasattr(s, "runner")), None)
        task = screen.runner.task if screen is not None else None
        if (task is None or task.done()) and not any(w.is_running for w in app.workers):
            await pilot.pause()
            return


def run_async(test):
    """Run an async test on its own event loop (no async plugin needed)."""
    import asyncio
    import functools

    @functools.wraps(test)
    def wrapper(*args, **kwargs):
        return asyncio.run(test(*args, **kwargs))

    return wrapper


def screen_text(app) -> str:
    """The top screen as a player reads it: its lines of text, colours dropped."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def toasts_text(app) -> list[str]:
    """Each notification shown on the top screen, read off the screen where it is drawn, its
    lines joined (a toast at a table is as narrow as the history, so a sentence wraps)."""
    from textual.widgets._toast import Toast

    lines = screen_text(app).splitlines()
    shown = []
    for toast in app.screen.query(Toast):
        box = toast.region
        rows = [lines[y][box.x : box.right].replace("▌", " ") for y in range(box.y, min(box.bottom, len(lines)))]
        shown.append(" ".join(" ".join(rows).split()))
    return shown
