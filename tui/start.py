"""What the app opens on (the command line and a served session say it; ``screens.app`` opens it),
and the house style every screen shares."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.engine import Match


#: Cabinet's own stylesheet: the menus, the dialogs, the table's frame
HOUSE_STYLE = Path(__file__).with_name("cabinet.tcss")
#: the hidden command of ``cabinet serve``'s warm parent, which forks each session's app
#: (``net.zygote``; the program, ``cabinet.main``, runs it: it needs the screens)
WARM_COMMAND = "warm-parent"


def collect_for_a_screen() -> None:
    """Python's garbage collector, set for an app that draws frames: what is loaded by now
    (the modules, the games' data) lives as long as the program and is never looked at
    again (``gc.freeze``), and the young objects a frame makes by the thousand are looked at
    every 5,000 allocations rather than 700. A long game's moves cost a session 10–20% less
    CPU (docs/PERFORMANCE.md, issue 18): over SSH, 50 sessions share the server's cores."""
    import gc

    gc.freeze()
    gc.set_threshold(5000, 20, 10)


@dataclass
class Start:
    """What the app opens on: the menu, a game, or a replay."""

    mode: str = "menu"  # "menu" | "play" | "replay" | "join" | "lobby"
    match: Match | None = None
    path: Path | None = None
    at: int | None = None
    viewer: Any = None
    writer: Any = None  # the SaveWriter of a game to play
    warnings: list[str] = field(default_factory=list)
    remote: Any = None  # the RemoteTable of a game to join; the HallClient of a served session
    locked: bool = False  # a replay of a game in play: its viewer may not be changed
