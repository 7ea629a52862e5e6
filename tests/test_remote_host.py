"""Where ``cabinet host`` listens, against other local users and the network.

* a Unix socket is created where nobody else can reach it, at no moment: bound in a
  private directory, made 0600 there, then renamed into place;
* a second host on a Unix socket a live host answers on is refused in one sentence
  (and the first keeps its game); a socket left by a killed host is replaced;
* a host listening beyond loopback warns that the traffic is not encrypted, and its
  join lines give this machine's addresses, not 0.0.0.0.

Every test starts the real server (in this process, or ``cabinet host`` in its own).
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import stat
import sys
from pathlib import Path

import pytest

from net import server as server_module
from net.client import RemoteTable
from net.protocol import Address, parse_address
from tests.test_remote import hosted, join, serve
from tests.tui_helpers import run_async

ROOT = Path(__file__).resolve().parent.parent
STEP = 20.0  # seconds any one wait on a process may take


# -- 2. the Unix socket is never reachable by others -------------------------------------------------


@run_async
async def test_the_unix_socket_is_made_private_before_it_is_put_in_place(tmp_path: Path, monkeypatch) -> None:
    """Whatever the umask, the socket is bound in a directory only its user may enter, made
    0600 there, and only then renamed to its path: it never is at its path with a wider mode."""
    path = tmp_path / "game.sock"
    binds: list[tuple[str, int, bool]] = []  # path bound, mode of its directory then, whether the target existed
    renames: list[tuple[str, str, int]] = []  # from, to, mode of the socket then
    real_socket, real_replace = socket.socket, os.replace

    class Watched(real_socket):
        def bind(self, address):
            if self.family == socket.AF_UNIX:
                directory = os.path.dirname(address)
                binds.append((address, stat.S_IMODE(os.stat(directory).st_mode), path.exists()))
            return super().bind(address)

    def replace(src, dst, *args, **kwargs):
        renames.append((str(src), str(dst), stat.S_IMODE(os.stat(src).st_mode)))
        return real_replace(src, dst, *args, **kwargs)

    writer, codes = hosted(tmp_path, "chirac-mitterrand", 2, 2, seed=1)
    monkeypatch.setattr(socket, "socket", Watched)
    monkeypatch.setattr(os, "replace", replace)
    before = set(tmp_path.iterdir())
    old_umask = os.umask(0)  # the most open umask: a socket bound at its path would be 0777
    try:
        server = await serve(writer, codes, Address(path=path))
    finally:
        os.umask(old_umask)
    try:
        monkeypatch.undo()
        ((bound, directory_mode, existed),) = binds
        assert Path(bound) != path and Path(bound).parent != path.parent  # not at its path...
        assert directory_mode == 0o700 and not existed  # ...but inside a private directory
        assert [r for r in renames if r[1] == str(path)] == [(bound, str(path), 0o600)]  # put in place, 0600
        mode = path.lstat().st_mode
        assert stat.S_ISSOCK(mode) and stat.S_IMODE(mode) == 0o600
        assert set(tmp_path.iterdir()) == before | {path}  # the private directory is gone
        table = await join(server, 0)  # and it serves
        assert table.seat == 0
        await table.close()
    finally:
        await server.close()
    assert not path.exists()


# -- 3. a live host's socket is not taken over -----------------------------------------------------------


@run_async
async def test_a_second_host_on_a_live_unix_socket_is_refused_and_the_first_keeps_its_game(tmp_path: Path) -> None:
    path = tmp_path / "game.sock"
    first_writer, first_codes = hosted(tmp_path / "first", "chirac-mitterrand", 2, 2, seed=1)
    second_writer, second_codes = hosted(tmp_path / "second", "agent-jean", 2, 2, seed=2)
    first = await serve(first_writer, first_codes, Address(path=path))
    try:
        inode = path.stat().st_ino
        with pytest.raises(OSError) as refused:
            await serve(second_writer, second_codes, Address(path=path))
        assert refused.value.strerror == "it is in use by another Cabinet host"
        assert path.stat().st_ino == inode  # still the first host's socket
        table = await join(first, 1)
        assert table.seat == 1 and table.table["game"] == "chirac-mitterrand"
        await table.close()
    finally:
        second_writer.close()
        await first.close()


@run_async
async def test_a_socket_left_by_a_killed_host_is_replaced_and_a_file_is_not(tmp_path: Path) -> None:
    path = tmp_path / "game.sock"
    left = socket.socket(socket.AF_UNIX)  # a host that died: its socket file stays, nobody answers
    left.bind(str(path))
    left.close()
    assert stat.S_ISSOCK(path.lstat().st_mode)
    writer, codes = hosted(tmp_path, "chirac-mitterrand", 2, 2, seed=1)
    server = await serve(writer, codes, Address(path=path))
    try:
        table = await join(server, 0)
        assert table.seat == 0
        await table.close()
    finally:
        await server.close()
    # a file that is not a socket is somebody's: refused, and left as it was
    path.write_text("notes")
    writer, codes = hosted(tmp_path / "again", "chirac-mitterrand", 2, 2, seed=1)
    try:
        with pytest.raises(OSError) as refused:
            await serve(writer, codes, Address(path=path))
        assert refused.value.strerror == "it exists and is not a socket"
    finally:
        writer.close()
    assert path.read_text() == "notes"


async def host_process(tmp_path: Path, *args: str) -> asyncio.subprocess.Process:
    env = {**os.environ, "CABINET_SAVE_DIR": str(tmp_path)}
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "cabinet",
        "host",
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
        cwd=ROOT,
    )


async def read_until(process: asyncio.subprocess.Process, prefix: str) -> list[str]:
    """The host's lines up to the one starting with ``prefix``."""
    lines: list[str] = []
    while not any(line.startswith(prefix) for line in lines):
        raw = await asyncio.wait_for(process.stdout.readline(), STEP)
        assert raw, (await process.stderr.read()).decode()
        lines.append(raw.decode().rstrip("\n"))
    return lines


@run_async
async def test_cabinet_host_on_a_live_unix_socket_says_so_and_exits_1(tmp_path: Path) -> None:
    path = tmp_path / "game.sock"
    writer, codes = hosted(tmp_path / "first", "chirac-mitterrand", 2, 2, seed=1)
    first = await serve(writer, codes, Address(path=path))
    try:
        saves = tmp_path / "second"
        process = await host_process(saves, "agent-jean", "--listen", str(path))
        _out, err = await asyncio.wait_for(process.communicate(), STEP)
        assert process.returncode == 1
        assert err.decode().strip() == f"cabinet host: cannot listen on {path}: it is in use by another Cabinet host."
        assert not list(saves.glob("*.cab")) and not list(saves.glob("*.codes"))  # no empty game left behind
        table = await join(first, 0)  # the first host never noticed
        assert table.seat == 0
        await table.close()
    finally:
        await first.close()


# -- 4. beyond loopback: a warning, and addresses one can join ----------------------------------------


@run_async
async def test_a_host_on_every_address_warns_and_prints_addresses_one_can_join(tmp_path: Path) -> None:
    process = await host_process(
        tmp_path, "chirac-mitterrand", "--names", "Ada,Bastien", "--listen", "0.0.0.0:0", "--watch-code"
    )
    try:
        lines = await read_until(process, "Ctrl-C")
        joins = [line.split() for line in lines if "cabinet join" in line]
        assert [j[0] for j in joins] == ["Ada:", "Bastien:", "spectators:"]
        addresses = {j[3] for j in joins}
        assert len(addresses) == 1 and "0.0.0.0" not in lines[-1]
        (printed,) = addresses
        assert not printed.startswith("0.0.0.0:")
        address = parse_address(printed)
        # the address printed is one of this machine's: the players join by it, the spectator with the watch code
        ada = RemoteTable(address, joins[0][4])
        watcher = RemoteTable(address, joins[2][5], watch=True)
        for table in (ada, watcher):
            await table.connect()
        assert ada.seat == 0 and watcher.seat == "public"
        for table in (ada, watcher):
            await table.close()
        if printed.startswith("127.0.0.1:"):
            assert not any(line.startswith("  (") for line in lines)  # loopback only: nothing more to say
        else:  # loopback is offered last, for players on this machine
            assert lines[-2].strip().startswith("(") and f"127.0.0.1:{address.port}" in lines[-2]
    finally:
        process.send_signal(signal.SIGINT)
        _out, err = await asyncio.wait_for(process.communicate(), STEP)
    assert process.returncode == 0
    (warning,) = err.decode().splitlines()
    assert warning.startswith("cabinet host: warning:") and "not encrypted" in warning
    assert "join codes travel in clear" in warning and "ssh -L" in warning


@run_async
async def test_join_lines_name_the_machine_s_addresses_loopback_last() -> None:
    hosts, beyond = await server_module.join_hosts(Address(host="0.0.0.0", port=7788), [(socket.AF_INET, "0.0.0.0")])
    assert beyond and hosts[-1] == "127.0.0.1" and "0.0.0.0" not in hosts
    assert all(not h.startswith("127.") for h in hosts[:-1])
    hosts, beyond = await server_module.join_hosts(
        Address(host="127.0.0.1", port=7788), [(socket.AF_INET, "127.0.0.1")]
    )
    assert hosts == ["127.0.0.1"] and not beyond
    hosts, beyond = await server_module.join_hosts(
        Address(host="localhost", port=7788), [(socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")]
    )
    assert hosts == ["localhost"] and not beyond
    hosts, beyond = await server_module.join_hosts(
        Address(host="192.0.2.7", port=7788), [(socket.AF_INET, "192.0.2.7")]
    )
    assert hosts == ["192.0.2.7"] and beyond  # a given address: as given, with the warning


def test_a_loopback_host_prints_no_warning_and_stops_quietly_with_clients_connected(tmp_path: Path) -> None:
    async def run() -> bytes:
        process = await host_process(tmp_path, "chirac-mitterrand", "--listen", "127.0.0.1:0")
        tables: list[RemoteTable] = []
        try:
            lines = await read_until(process, "Ctrl-C")
            joins = [line.split() for line in lines if "cabinet join 127.0.0.1:" in line]
            assert len(joins) == 3
            address = parse_address(joins[0][-2])
            tables = [RemoteTable(address, joins[0][-1]), RemoteTable(address, None)]
            for table in tables:
                await table.connect()
        finally:
            process.send_signal(signal.SIGINT)  # a player and a spectator still connected
            _, err = await asyncio.wait_for(process.communicate(), STEP)
            for table in tables:
                await table.close()
        assert process.returncode == 0
        return err

    assert asyncio.run(run()) == b""  # no warning, and no traceback for the connections it closed


def test_is_loopback() -> None:
    assert server_module.is_loopback("127.0.0.1") and server_module.is_loopback("::1")
    assert server_module.is_loopback("localhost") and server_module.is_loopback("127.3.4.5")
    assert not server_module.is_loopback("0.0.0.0") and not server_module.is_loopback("::")
    assert not server_module.is_loopback("192.168.1.4") and not server_module.is_loopback("example.org")
