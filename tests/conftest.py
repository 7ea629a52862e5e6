"""Fixtures every test module may ask for by name."""

import os
import signal
from collections.abc import Iterator

import pytest

from tests.pg import pg_cluster, pg_url

__all__ = ["pg_cluster", "pg_url"]

# A suite started in the background of a script (`nohup ... &`) inherits SIGINT ignored, and so
# would every program it starts: the tests that stop a server with Ctrl-C's signal would wait
# for ever. Each test process reads SIGINT again as Python does, and its children with it.
signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: half as many workers again as the machine has cores. A quarter of the
    suite's time is spent waiting (servers, terminals, databases, the app's idle), with
    a worker a core the cores were idle that long (CPU 74% of the run's two cores)."""
    return max(2, (os.cpu_count() or 1) * 3 // 2)


#: PYTHONSAFEPATH as the test run started (see ``_pythons_as_the_run_started_them``)
_SAFEPATH_AT_START = os.environ.get("PYTHONSAFEPATH")


@pytest.fixture(autouse=True)
def _pythons_as_the_run_started_them() -> Iterator[None]:
    """``cabinet.main.main`` sets PYTHONSAFEPATH for every Python the program starts (its workers'
    forkserver must not import a folder of the working directory as one of Cabinet's packages);
    after each test the environment is as the run started, so that the next test's ``python -c``
    still finds ``tests`` in the working directory: a test that calls it in-process, and a
    module's fixture that does (set up before this one, so that what it set stayed for every
    later test of its worker: test_save_lock's and test_hall_store's ``python -c`` failed after
    test_store_cli's ``imported`` in the same worker)."""
    yield
    if _SAFEPATH_AT_START is None:
        os.environ.pop("PYTHONSAFEPATH", None)
    else:
        os.environ["PYTHONSAFEPATH"] = _SAFEPATH_AT_START
