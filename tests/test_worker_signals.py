"""Ctrl-C in the terminal running ``cabinet serve``: the terminal sends SIGINT to the whole
foreground process group, the server's bot and analysis workers (``net.hall.background_pool``)
with it.  The server stops them itself; they must neither die of it nor print a traceback."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: a server in miniature: its workers started as the hall starts them, Ctrl-C taken by the
#: server's own handler (as ``cabinet serve`` does), then work asked of the same worker again
SERVER = textwrap.dedent(
    """
    import os, signal, sys, threading, time

    from net.hall import _analyse_in_the_background, _think_in_the_background, background_pool, stop_pool

    interrupted = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: interrupted.set())
    initializer = {"bots": _think_in_the_background, "analyses": _analyse_in_the_background}[sys.argv[1]]
    pool = background_pool(1, ["net.hall"], initializer)
    worker = pool.submit(os.getpid).result(timeout=60)
    time.sleep(0.5)  # the worker past sending its answer, waiting for the next task (as between bots' moves)
    print("ready", flush=True)
    sys.stdin.readline()  # Ctrl-C is sent to the process group meanwhile
    assert interrupted.wait(10)
    try:
        again = pool.submit(os.getpid).result(timeout=60)
        print("same worker" if again == worker else f"another worker ({worker} died)", flush=True)
    except Exception as exc:
        print(f"no worker: {type(exc).__name__}", flush=True)
    finally:
        manager = stop_pool(pool)
        if manager is not None:
            manager.join(5)
    """
)


def ctrl_c_in_the_server_terminal(kind: str) -> tuple[str, str]:
    """What the miniature server printed, on stdout and on stderr, its process group sent SIGINT
    while its worker waited for work."""
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER, kind],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # a process group of its own, as a terminal's foreground job
    )
    try:
        assert server.stdout is not None and server.stdin is not None
        assert server.stdout.readline() == "ready\n"
        os.killpg(server.pid, signal.SIGINT)
        out, err = server.communicate("\n", timeout=60)
        return out, err
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


def test_ctrl_c_at_the_server_leaves_the_bot_workers_at_work_and_prints_no_traceback() -> None:
    out, err = ctrl_c_in_the_server_terminal("bots")
    assert out == "same worker\n"
    assert err == ""


def test_ctrl_c_at_the_server_leaves_the_analysis_worker_at_work_and_prints_no_traceback() -> None:
    out, err = ctrl_c_in_the_server_terminal("analyses")
    assert out == "same worker\n"
    assert err == ""
