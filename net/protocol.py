"""The wire between ``cabinet host`` and ``cabinet join``: length-framed msgpack.

A frame is a 4-byte big-endian length and that many bytes of msgpack, one map
with a string ``t`` (its type).  The client speaks first::

    client: {"t": "hello", "v": VERSION, "code": CODE}      a seat's join code
            {"t": "hello", "v": VERSION, "watch": True}    a spectator (with "code": the watch
                                                           code, if the host asks for one)
    server: {"t": "welcome", "v": VERSION, "seat": k|None, "table": {...}}
            then an "update" whenever anything changes for that seat
    client: {"t": "command", "command": {...}}   a move for the client's own seat
            {"t": "view_at", "n": N}             the table as the seat saw it after N events
            {"t": "ping"}
    server: {"t": "error", "message": "..."}     one sentence; the connection stays open
            {"t": "bye", "message": "..."}       the last frame before the server closes

Frames a client sends are at most ``CLIENT_MAX`` bytes, a server's at most
``SERVER_MAX``; a longer length closes the connection before its body is read.
"""

from __future__ import annotations

import asyncio
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgpack

VERSION = 1
CLIENT_MAX = 64 * 1024
SERVER_MAX = 16 * 1024 * 1024
DEFAULT_PORT = 7788
_LENGTH = struct.Struct(">I")


class ProtocolError(Exception):
    """A frame that cannot be accepted: its message is the sentence to show or send."""


class SpeaksSSH(ProtocolError):
    """The other end began as an SSH server or client does ("SSH-2.0-..."): a ``cabinet
    serve`` (or any SSH server) given as a hosted game's address, or ssh pointed at a host."""


#: how every SSH peer's first line begins (RFC 4253, 4.2): read as a frame's length, 1.4 GB
SSH_BANNER = b"SSH-"


def pack(message: dict[str, Any]) -> bytes:
    body = msgpack.packb(message, use_bin_type=True)
    return _LENGTH.pack(len(body)) + body


async def read_frame(reader: asyncio.StreamReader, limit: int) -> dict[str, Any] | None:
    """The next message, or None at a clean end of the stream (between frames)."""
    try:
        head = await reader.readexactly(_LENGTH.size)
    except asyncio.IncompleteReadError as exc:
        if not exc.partial:
            return None
        raise ProtocolError("The connection closed in the middle of a frame.") from None
    if head == SSH_BANNER:
        raise SpeaksSSH("It speaks SSH, not Cabinet's protocol.")
    (length,) = _LENGTH.unpack(head)
    if length > limit:
        raise ProtocolError(f"A frame of {length} bytes is over the limit of {limit}.")
    try:
        body = await reader.readexactly(length)
    except asyncio.IncompleteReadError:
        raise ProtocolError("The connection closed in the middle of a frame.") from None
    try:
        message = msgpack.unpackb(body, raw=False, strict_map_key=True)
    except Exception:  # noqa: BLE001 - msgpack's own advice: its unpack raises more than its UnpackException on bad bytes
        raise ProtocolError("A frame is not valid msgpack.") from None
    if not isinstance(message, dict) or not isinstance(message.get("t"), str):
        raise ProtocolError("A message must be a map with a type.")
    return message


@dataclass(frozen=True)
class Address:
    """Where a server listens: TCP ``host:port`` or a Unix socket path."""

    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    path: Path | None = None

    def __str__(self) -> str:
        if self.path is not None:
            return str(self.path)
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"


def parse_address(text: str) -> Address:
    """``host:port``, ``:port``, ``port``, ``host``, ``unix:PATH`` or a path with a slash.

    Raises ValueError with a sentence for anything else.
    """
    text = text.strip()
    if text.startswith("unix:"):
        return Address(path=Path(text[5:]))
    if "/" in text:
        return Address(path=Path(text))
    if text.isdigit():
        return Address(port=_port(text))
    if text.startswith("["):  # [::1]:7788
        host, _, rest = text[1:].partition("]")
        return Address(host=host, port=_port(rest[1:]) if rest.startswith(":") else DEFAULT_PORT)
    host, sep, port = text.rpartition(":")
    if not sep:
        return Address(host=text or "127.0.0.1")
    return Address(host=host or "127.0.0.1", port=_port(port))


def _port(text: str) -> int:
    if not text.isdigit() or not 0 <= int(text) <= 65535:
        raise ValueError(f"{text!r} is not a port number (0 to 65535).")
    return int(text)


async def open_connection(address: Address) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    limit = SERVER_MAX + _LENGTH.size
    if address.path is not None:
        return await asyncio.open_unix_connection(str(address.path), limit=limit)
    return await asyncio.open_connection(address.host, address.port, limit=limit)
