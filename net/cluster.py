"""What the servers sharing a store tell one another: a :class:`Cluster`.

``cabinet serve`` keeps its tables' logs in a log store (``saves.store.LogStore``).
Several servers on one PostgreSQL database serve the same tables: each lists every
table (the waiting ones from their lobby records, those in play as their server
published them), passes its players' commands on to the server holding a table and
hears the answers, says which seats are connected to it, and follows the others'
news.  That is a cluster, apart from the log store, so that the hall (``net.hall``)
does the same things whatever it runs on, without asking which:

* :class:`LocalCluster`: one server, alone with its store (files, the default).
  There is nobody to tell and nothing elsewhere: it does nothing, and answers that
  nothing is published, relayed, or connected anywhere else.
* ``saves.postgres.PostgresStore``: the servers of a database, over the store's own
  connections (a notice on ``LISTEN``/``NOTIFY`` for each change).

A ``typing.Protocol`` rather than an abstract base class: ``saves`` is below ``net``
and cannot import this module, so the PostgreSQL store has the methods without naming
the class, and mypy checks that it has them (and their types) wherever it is handed
to the hall as a cluster.  Every method may wait on a database: the hall calls them
from a thread (``net.offloop``), never from its event loop, and ``listen``'s
``deliver`` is called from a thread of the cluster's own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from saves import SaveError


class News(Protocol):
    """A server's ear on the cluster, from :meth:`Cluster.listen`."""

    #: this server's name in the cluster (who a relayed command came from, where a seat is connected)
    @property
    def pid(self) -> int: ...

    def close(self) -> None:
        """Hear nothing more (waits for the listening thread to end)."""


class Cluster(Protocol):
    """The other servers of a store, as one server sees them.  Raising methods raise
    OSError (a write) or SaveError (a read) in one sentence."""

    @property
    def reachable(self) -> bool:
        """False while the cluster is out of reach (it has said so in the log)."""

    def listen(self, deliver: Callable[[dict[str, Any]], None]) -> News:
        """Hear the others' news: each a map passed to ``deliver`` (from a thread of its
        own): ``{"t": "lobby"}``, ``"log"``/``"rewrite"`` (a table's records), ``"command"``
        (relayed to a table), ``"answer"``, ``"seated"``, ``"listening"`` (heard again
        after a while: what was missed is to be read again)."""

    def summaries(self) -> dict[str, bytes]:
        """The listing each table's server last published, by table."""

    def publish(self, summaries: dict[str, bytes]) -> None:
        """The listings of the tables this server serves, for the others' lobbies."""

    def notify(self, message: dict[str, Any]) -> None:
        """Tell every server listening ``message``."""

    def records_after(self, table: str, seq: int) -> list[tuple[int, bytes, bytes]]:
        """Sequence number, kind and body of ``table``'s records after ``seq``, in order
        (what a server follows a table served elsewhere from)."""

    def relay(self, table: str, seat: int, kind: str, body: bytes, hall: int) -> int:
        """Pass a seat's command (or take-back) on to the server holding ``table``; its number."""

    def take_commands(self, table: str) -> list[tuple[int, int, str, bytes, int]]:
        """The commands relayed to ``table`` (number, seat, kind, body, hall), in order, taken."""

    def seat_here(self, table: str, seat: int, hall: int, here: bool) -> None:
        """``seat``'s player is connected to the server ``hall`` (``here``), or no more."""

    def seated(self, table: str, besides: int) -> set[int]:
        """The seats of ``table`` connected to a server other than ``besides``."""

    def leases_alive(self) -> bool:
        """Whether this server still holds its tables' leases (looking again now)."""


class Quiet:
    """The news of a server alone: none ever comes."""

    pid = 0

    def close(self) -> None:
        pass


class LocalCluster:
    """One server alone with its store: nobody else to tell, nothing served elsewhere."""

    reachable = True

    def listen(self, deliver: Callable[[dict[str, Any]], None]) -> News:
        return Quiet()

    def summaries(self) -> dict[str, bytes]:
        return {}

    def publish(self, summaries: dict[str, bytes]) -> None:
        pass

    def notify(self, message: dict[str, Any]) -> None:
        pass

    def records_after(self, table: str, seq: int) -> list[tuple[int, bytes, bytes]]:
        raise SaveError(f"table {table} is not served by another server.")

    def relay(self, table: str, seat: int, kind: str, body: bytes, hall: int) -> int:
        raise OSError(f"table {table} is not served by another server")

    def take_commands(self, table: str) -> list[tuple[int, int, str, bytes, int]]:
        return []

    def seat_here(self, table: str, seat: int, hall: int, here: bool) -> None:
        pass

    def seated(self, table: str, besides: int) -> set[int]:
        return set()

    def leases_alive(self) -> bool:
        return True  # a file's lock is never lost
