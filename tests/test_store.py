"""The stores of tables' logs: a directory of save files and a PostgreSQL database
(a throwaway cluster, see tests/pg.py), behind one interface; the same records,
byte for byte, in both; one writer a table in both."""

from __future__ import annotations

import signal

import pytest

from saves import SaveError, SaveLocked, SaveWriter, load, verify
from saves import format as fmt
from saves.store import FileStore, Store, export_table, import_save, open_store
from tests.ssh_helpers import until
from tests.test_save_lock import holding_process
from tests.test_saves import finished_save, new_match, step
from tests.toygame import GAMES

psycopg = pytest.importorskip("psycopg", reason="the PostgreSQL driver (the extra 'postgres') is not installed")


@pytest.fixture
def pg(pg_url) -> Store:
    store = open_store(pg_url)
    yield store
    store.close()


@pytest.fixture(params=["files", "postgresql"])
def store(request, tmp_path) -> Store:
    if request.param == "files":
        yield FileStore(tmp_path / "tables")
        return
    yield request.getfixturevalue("pg")


_names = iter(range(10**6))


def fresh(prefix: str = "t") -> str:
    """A table name no other test of the module uses (they share one database)."""
    return f"{prefix}{next(_names)}"


# -- both stores ------------------------------------------------------------------------------


def test_a_writer_keeps_a_table_in_step_and_its_store_folds_it_back(store) -> None:
    table = fresh()
    match = new_match()
    writer = SaveWriter(store.hold(table), match)
    step(match, writer)
    loaded = load(store.source(table), GAMES)
    assert loaded.match.events == match.events and loaded.sealed  # sealed by the store's writers: folded
    while match.active():
        step(match, writer)
    writer.close()
    assert writer.error is None
    again = load(store.source(table), GAMES)
    assert again.match.events == match.events and again.match.outcome is not None
    assert table in store.tables()
    assert fmt.read_records(store.source(table))[0][-1][0] == "outcome"


def test_one_writer_a_table_in_either_store(store) -> None:
    table = fresh()
    first = SaveWriter(store.hold(table), new_match())
    with pytest.raises(SaveLocked) as info:
        store.hold(table)
    assert "is playing this game already (cabinet" in str(info.value)
    step(first.match, first)
    first.close()
    second = SaveWriter.resume(load(store.source(table), GAMES))  # let go, it is free
    step(second.match, second)
    second.close()
    assert len(load(store.source(table), GAMES).match.moves) == 3  # setup, a move by each writer


def test_a_take_back_rewrites_the_table(store) -> None:
    table = fresh()
    match = new_match(bots=False)
    writer = SaveWriter(store.hold(table), match)
    for _ in range(4):
        step(match, writer)
    match.truncate_moves(2)
    step(match, writer)  # the writer sees the cut and writes the table again before going on
    writer.close()
    assert writer.error is None
    loaded = load(store.source(table), GAMES)
    assert loaded.match.events == match.events and len(loaded.match.moves) == 3  # the setup, a move kept, a new one


def test_a_table_of_a_name_taken_is_not_put_again(store, tmp_path) -> None:
    table = fresh()
    path = tmp_path / "g.cab"
    finished_save(path)
    import_save(path, store, table, GAMES)
    before = store.read(table)
    with pytest.raises(SaveError, match="already"):
        import_save(path, store, table, GAMES)
    assert store.read(table) == before


def test_a_missing_table_is_one_sentence(store) -> None:
    with pytest.raises(SaveError) as info:
        load(store.source("nowhere"), GAMES)
    assert "nowhere" in str(info.value) and str(info.value).endswith(".") and "\n" not in str(info.value)


# -- the same records, byte for byte -------------------------------------------------------------


def test_import_then_export_gives_back_the_very_file(pg, tmp_path) -> None:
    path = tmp_path / "orig.cab"
    match = finished_save(path)
    table = fresh("imported")
    import_save(path, pg, table, GAMES)
    assert pg.read(table) == path.read_bytes()  # checksums, links and seals as they were
    out = tmp_path / "elsewhere" / "back.cab"
    out.parent.mkdir()
    export_table(pg, table, out, GAMES)
    assert out.read_bytes() == path.read_bytes()
    assert "finished" in verify(out, GAMES)
    assert load(out, GAMES).match.events == match.events


def test_a_table_played_in_the_database_exports_to_a_save_verify_accepts(pg, tmp_path) -> None:
    table = fresh()
    match = new_match("30")
    with SaveWriter(pg.hold(table), match) as writer:
        for _ in range(40):
            step(match, writer)
    out = tmp_path / "played.cab"
    export_table(pg, table, out, GAMES)
    assert out.read_bytes() == pg.read(table)
    assert verify(out, GAMES).endswith("40 moves; in progress.")
    loaded = load(out, GAMES)
    # sealed with the database's key, which this directory does not have: decided again, and the same
    assert not loaded.sealed and loaded.match.events == match.events


def test_a_torn_save_is_imported_without_its_torn_tail(pg, tmp_path) -> None:
    path = tmp_path / "torn.cab"
    finished_save(path)
    data = path.read_bytes()
    path.write_bytes(data[:-3])
    table = fresh()
    loaded = import_save(path, pg, table, GAMES)
    assert loaded.warnings and pg.read(table) == data[: loaded.end]
    assert load(pg.source(table), GAMES).warnings == []


def test_a_damaged_save_is_not_imported(pg, tmp_path) -> None:
    path = tmp_path / "bad.cab"
    finished_save(path)
    data = bytearray(path.read_bytes())
    data[200] ^= 0x10
    path.write_bytes(bytes(data))
    table = fresh()
    with pytest.raises(SaveError, match=r"bad\.cab is damaged"):
        import_save(path, pg, table, GAMES)
    assert table not in pg.tables()


# -- what the database itself guarantees ------------------------------------------------------------


def test_two_writers_can_never_interleave_a_log(pg) -> None:
    """Whatever the leases do, a record numbered where one is already is refused."""
    table = fresh()
    match = new_match()
    with SaveWriter(pg.hold(table), match) as writer:
        step(match, writer)
    before = pg.read(table)
    with psycopg.connect(pg.url, autocommit=True) as conn, pytest.raises(psycopg.errors.UniqueViolation):
        conn.execute(
            "INSERT INTO cabinet.events (table_id, seq, kind, crc, link, seal, body) "
            "SELECT table_id, seq, kind, crc, link, seal, body FROM cabinet.events "
            "WHERE table_id = (SELECT id FROM cabinet.tables WHERE name = %s) AND seq = 2",
            (table,),
        )
    assert pg.read(table) == before


def test_a_record_damaged_in_the_database_is_named_as_in_a_file(pg) -> None:
    table = fresh()
    match = new_match()
    with SaveWriter(pg.hold(table), match) as writer:
        step(match, writer)
    with psycopg.connect(pg.url, autocommit=True) as conn:
        conn.execute(
            "UPDATE cabinet.events SET body = overlay(body placing '\\x00'::bytea from 3) "
            "WHERE table_id = (SELECT id FROM cabinet.tables WHERE name = %s) AND seq = 1",
            (table,),
        )
    with pytest.raises(SaveError) as info:
        load(pg.source(table), GAMES)
    assert str(info.value).startswith(f"table {table} is damaged at byte ")
    assert str(info.value).endswith("a record there fails its checksum.")


def taken(store: Store, table: str) -> SaveWriter | None:
    """A writer of ``table`` from its log, or None while the store cannot make one (SaveError)."""
    try:
        return SaveWriter.resume(load(store.source(table), GAMES))
    except SaveError:
        return None


def test_a_writer_that_lost_its_connection_writes_nothing_more(pg) -> None:
    """Its lease went with the connection: another writer takes the table over from the
    log, and the first one's next move is refused, not written after the second's."""
    table = fresh()
    match = new_match(bots=False)
    errors: list[str] = []
    first = SaveWriter(pg.hold(table), match, on_error=errors.append)
    step(match, first)
    with psycopg.connect(pg.url, autocommit=True) as conn:
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND objid = "
            "(SELECT id FROM cabinet.tables WHERE name = %s)",
            (table,),
        )
    # the store finds its connection for leases lost and makes another (at once, in a thread of
    # its own: the first hold after the loss is refused in a sentence), on which a writer takes the table
    second = until(lambda: taken(pg, table), what="the table taken again")
    step(second.match, second)
    step(match, first)  # the first writer's move: it cannot be saved
    assert first.error is not None and first.error.startswith(f"Could not save table {table}:")
    assert errors == [first.error]
    first.close()
    second.close()
    assert load(pg.source(table), GAMES).match.events == second.match.events


def test_the_lease_dies_with_its_process(pg) -> None:
    table = fresh()
    SaveWriter(pg.hold(table), new_match()).close()
    holder = holding_process("cabinet serve", f"open_store({pg.url!r}).source({table!r})")
    try:
        with pytest.raises(SaveLocked) as info:
            pg.hold(table)
        assert str(info.value).endswith(f"is playing this game already (cabinet serve, pid {holder.pid}).")
    finally:
        holder.send_signal(signal.SIGKILL)  # no clean close: the server ends its session, and the lock
        holder.wait(10)
    # the server notices the closed socket at once; the lock goes with the session
    writer = SaveWriter.resume(load(pg.source(table), GAMES))
    assert writer.error is None
    writer.close()


def test_headless_games_commit_without_waiting_for_the_disk_and_only_they(pg) -> None:
    table = fresh()
    match = new_match()
    lease = pg.hold(table)
    with SaveWriter(lease, match, durable=False) as writer:
        step(match, writer)
        # for that transaction only: the connection is every table's, and the others' moves wait for the disk
        (setting,) = lease.conn.execute("SHOW synchronous_commit").fetchone()
        assert setting == "on"
    assert load(pg.source(table), GAMES).match.events == match.events


# -- the schema and the connection -------------------------------------------------------------------


def test_the_schema_is_made_once_and_numbered(pg) -> None:
    from saves.postgres import SCHEMA_VERSION

    again = open_store(pg.url)  # a second process starting: nothing made twice
    again.close()
    with psycopg.connect(pg.url) as conn:
        versions = [v for (v,) in conn.execute("SELECT version FROM cabinet.schema_version")]
        keys = conn.execute("SELECT count(*) FROM cabinet.settings WHERE name = 'seal key'").fetchone()[0]
    assert versions == list(range(1, SCHEMA_VERSION + 1)) and keys == 1


def test_a_table_written_before_format_3_is_read_and_played_on_in_its_format(pg_url) -> None:
    """A database of schema 5 holds logs of save format 2: once the schema is brought up to
    date, each is read in its format (sealed by the store's writers: folded) and played on in
    it, and a table made since is of format 3."""
    from tests.pg import cluster, drop_database, fresh_database

    address = fresh_database(cluster())
    try:
        open_store(address).close()
        match = new_match()
        for _ in range(3):
            step(match)
        with psycopg.connect(address, autocommit=True) as conn:  # as Cabinet left a database before format 3
            conn.execute("ALTER TABLE cabinet.tables DROP COLUMN format")
            conn.execute("DELETE FROM cabinet.schema_version WHERE version > 5")
            key = bytes(conn.execute("SELECT value FROM cabinet.settings WHERE name = 'seal key'").fetchone()[0])
            data, _ = fmt.encode_match(match, key=key, version=2)
            table_id = conn.execute("INSERT INTO cabinet.tables (name) VALUES ('old') RETURNING id").fetchone()[0]
            for r in fmt.split_records(data, version=2):
                conn.execute(
                    "INSERT INTO cabinet.events VALUES (%s, %s, %s, %s, %s, %s, %s)",
                    (table_id, r.seq, r.kind.decode(), r.crc, r.link, r.seal, r.body),
                )
        store = open_store(address)
        try:
            assert store.read("old") == data
            loaded = load(store.source("old"), GAMES)
            assert loaded.sealed and loaded.match.events == match.events
            with SaveWriter.resume(loaded) as writer:
                step(writer.match, writer)
            again = load(store.source("old"), GAMES)
            assert again.sealed and len(again.match.moves) == len(match.moves) + 1
            assert store.read("old").startswith(data) and store.read("old")[12:14] == b"\x00\x02"
            with SaveWriter(store.hold("new"), new_match()):
                pass
            assert store.read("new")[12:14] == b"\x00\x03"
        finally:
            store.close()
    finally:
        drop_database(cluster(), address)


def test_a_newer_schema_is_refused_in_a_sentence(pg_url) -> None:
    from saves.postgres import SCHEMA_VERSION
    from tests.pg import cluster, drop_database, fresh_database

    address = fresh_database(cluster())
    try:
        open_store(address).close()
        with psycopg.connect(address, autocommit=True) as conn:
            conn.execute("INSERT INTO cabinet.schema_version VALUES (99)")
        with pytest.raises(SaveError) as info:
            open_store(address)
        assert str(info.value).endswith(
            f"was set up by a newer Cabinet (schema 99; this one knows schema {SCHEMA_VERSION})."
        )
    finally:
        drop_database(cluster(), address)


def test_a_database_out_of_reach_is_one_sentence(tmp_path) -> None:
    with pytest.raises(SaveError) as info:
        open_store(f"postgresql://postgres@/cabinet?host={tmp_path}")
    text = str(info.value)
    assert text.startswith(f"Cannot reach PostgreSQL database cabinet on {tmp_path}: ") and "\n" not in text


def answers(call) -> bool:
    """Whether ``call()`` goes through (no SaveError, no OSError)."""
    try:
        call()
    except (SaveError, OSError):
        return False
    return True


def test_a_store_whose_database_restarts_or_stops_a_while_connects_again_by_itself(pg_cluster) -> None:
    """Each of the store's connections (its own, the one for leases, the listening one) is made
    again once the database is back, without the store being opened again. Meanwhile every call
    fails at once in a sentence; a writer whose lease went with the restart writes nothing more,
    and the table is taken again from its log; the store says once that it lost the database and
    once that it has it again."""
    store = open_store(pg_cluster.url)
    said: list[str] = []
    store.log_to(said.append)
    heard: list[dict] = []
    listener = store.listen(heard.append)
    try:
        table = fresh()
        match = new_match(bots=False)
        writer = SaveWriter(store.hold(table), match)
        step(match, writer)
        committed = list(match.events)
        pid = listener.pid

        pg_cluster.restart()
        step(match, writer)  # its lease went with the restart: this move cannot be saved
        assert writer.error is not None and writer.error.startswith(f"Could not save table {table}: ") and writer.lost
        until(lambda: {"t": "listening"} in heard, what="the store listening again")
        assert listener.pid != pid  # a new connection: the other servers know this one by it
        second = until(lambda: taken(store, table), what="the table taken again")
        assert second.match.events == committed  # the move that could not be saved is not in the log
        writer.close()
        store.notify({"t": "ping"})
        until(lambda: {"t": "ping"} in heard, what="the store hearing itself")
        until(lambda: len(said) == 2, what="the store saying it has the database again")
        assert said[0].startswith(f"Lost the connection to {store.where}") and said[0].endswith("; connecting again.")
        assert said[1].startswith(f"Connected again to {store.where}, ")

        pg_cluster.shut_down()
        until(lambda: not store.reachable, what="the store finding the database gone")
        assert not answers(store.tables)  # the first call may find the store's own connection lost
        with pytest.raises(SaveError) as info:
            store.tables()
        assert str(info.value) == f"Cannot read {store.where}: the connection was lost, and is being made again."
        with pytest.raises(OSError):
            store.notify({"t": "ping"})
        with pytest.raises(SaveError):
            store.hold(fresh())
        step(second.match, second)
        assert second.error is not None and second.lost
        pg_cluster.start_again()
        until(lambda: answers(store.tables) and store.reachable, what="the store answering again")
        assert len(said) == 4 and said[3].startswith(f"Connected again to {store.where}, "), said
        third = until(lambda: taken(store, table), what="the table taken again")
        step(third.match, third)
        assert third.error is None
        second.close()
        third.close()
    finally:
        listener.close()
        store.close()


def test_without_the_driver_a_sentence_names_the_extra(monkeypatch) -> None:
    import saves.postgres

    monkeypatch.setattr(saves.postgres, "psycopg", None)
    with pytest.raises(SaveError) as info:
        open_store("postgresql://postgres@/cabinet")
    assert (
        str(info.value)
        == "A PostgreSQL store needs the psycopg driver, which is not installed: pip install 'cabinet[postgres]'."
    )


def test_the_tables_nobody_holds_are_listed(store) -> None:
    held, free = fresh(), fresh()
    SaveWriter(store.hold(free), new_match()).close()
    writer = SaveWriter(store.hold(held), new_match())
    try:
        unheld = store.unheld()
        assert free in unheld and held not in unheld
    finally:
        writer.close()
    assert held in store.unheld()
