"""Names and keys in a shared database (``cabinet serve --store``): every server on it
agrees on who holds a name, with the same rules as players.json."""

from __future__ import annotations

import threading

import pytest

from net.identity import StoredIdentities
from saves.store import open_store

pytest.importorskip("psycopg", reason="the PostgreSQL driver (the extra 'postgres') is not installed")

ANN, BOB = "SHA256:ann-key", "SHA256:bob-key"


@pytest.fixture
def two_servers(pg_url):
    """The identities of two server processes on one database (each its own connection)."""
    stores = [open_store(pg_url), open_store(pg_url)]
    yield [StoredIdentities(s) for s in stores]
    for s in stores:
        s.close()


def test_a_name_claimed_on_one_server_is_refused_to_another_key_on_the_other(two_servers) -> None:
    first, second = two_servers
    assert first.check("Ann", ANN) is None
    assert second.check("ann", BOB) == "The name Ann belongs to another key."
    assert second.check("ANN", ANN) is None  # the same key: her name, from any server
    assert second.spelling("ann") == "Ann" and second.owner("aNN") == ANN


def test_asking_claims_nothing(two_servers) -> None:
    first, second = two_servers
    assert first.check("bob", BOB, claim=False) is None
    assert second.check("bob", ANN) is None  # still free: Ann's key claims it now
    assert first.check("Bob", BOB) == "The name bob belongs to another key."


def test_a_name_the_rules_refuse_is_refused_here_too(two_servers) -> None:
    first, _ = two_servers
    assert first.check("no spaces", ANN) is not None
    assert first.check("", ANN) is not None


def test_two_servers_racing_for_one_name_give_it_to_one_key(two_servers) -> None:
    for round_ in range(10):
        name = f"racer{round_}"
        answers: dict[str, str | None] = {}
        start = threading.Barrier(2)

        def claim(
            who: StoredIdentities, key: str, name: str, start: threading.Barrier, answers: dict[str, str | None]
        ) -> None:
            start.wait()
            answers[key] = who.check(name, key)

        threads = [
            threading.Thread(target=claim, args=(server, key, name, start, answers))
            for server, key in zip(two_servers, (ANN, BOB), strict=True)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(a is None for a in answers.values()) == [False, True], answers  # exactly one got it
        winner = next(k for k, a in answers.items() if a is None)
        assert all(s.check(name, winner) is None for s in two_servers)


def test_a_database_out_of_reach_refuses_the_login_in_a_sentence(pg_url) -> None:
    store = open_store(pg_url)
    names = StoredIdentities(store)
    assert names.check("cy", ANN) is None
    store.close()  # the connection gone, as when the database restarts
    assert names.check("cy", ANN) == StoredIdentities.UNREACHABLE
    assert names.check("dee", BOB) == StoredIdentities.UNREACHABLE  # never let in unchecked
