"""Fixtures every test module may ask for by name."""

import signal

from tests.pg import pg_cluster, pg_url

__all__ = ["pg_cluster", "pg_url"]

# A suite started in the background of a script (`nohup ... &`) inherits SIGINT ignored, and so
# would every program it starts: the tests that stop a server with Ctrl-C's signal would wait
# for ever. Each test process reads SIGINT again as Python does, and its children with it.
signal.signal(signal.SIGINT, signal.default_int_handler)

# Textual's Pilot waits after every key until the app looks idle: it sleeps 20 ms at a time and
# takes the app as idle once it used under 1 ms of CPU in one of them (5%), twice a key. A walk
# of hundreds of keys spent half its time asleep. The same test of idleness in windows of 5 ms
# (under 0.25 ms of CPU, 5% still) waits as surely for the work a key starts, a quarter as long.
import textual._wait  # noqa: E402

textual._wait.SLEEP_GRANULARITY = 1 / 200
textual._wait.SLEEP_IDLE = textual._wait.SLEEP_GRANULARITY / 20.0
