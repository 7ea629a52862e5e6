"""One server of bench/takeover.py, in a process of its own: a hall on the shared
database (no SSH front: the players reach the hall's socket directly, with a session
token made here for each name given), looking every second for tables to take over.
Prints one line of JSON, {"socket": PATH, "tokens": {NAME: TOKEN}}, then serves until killed;
its log goes to stderr, as ``cabinet serve`` prints it.

    python bench/_hall_server.py DATA-DIR URL NAME...
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from net.hall import BotPool, Hall  # noqa: E402
from saves.postgres import PostgresStore  # noqa: E402
from tui.serve import TAKE_OVER_EVERY, of_database  # noqa: E402


async def serve(data: str, url: str, names: list[str]) -> None:
    bots = BotPool()
    bots.unusable = True  # no bot seats here; no worker to leave behind when this process is killed

    def log(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    hall = Hall(
        Path(data),
        bot_delay=0.0,
        **of_database(PostgresStore(url)),
        bots=bots,
        take_over_every=TAKE_OVER_EVERY,
        log=log,
    )
    await hall.start()
    tokens = {name: hall.open_session(name) for name in names}
    print(json.dumps({"socket": str(hall.socket_path), "tokens": tokens}), flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(serve(sys.argv[1], sys.argv[2], sys.argv[3:]))
