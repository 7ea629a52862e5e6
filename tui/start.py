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
