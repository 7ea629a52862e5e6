"""Fixtures every test module may ask for by name."""

import signal

from tests.pg import pg_cluster, pg_url

__all__ = ["pg_cluster", "pg_url"]

# A suite started in the background of a script (`nohup ... &`) inherits SIGINT ignored, and so
# would every program it starts: the tests that stop a server with Ctrl-C's signal would wait
# for ever. Each test process reads SIGINT again as Python does, and its children with it.
signal.signal(signal.SIGINT, signal.default_int_handler)
