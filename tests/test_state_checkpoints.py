"""Checkpoints that carry the state (issue 35): a sealed save folds only what follows its
last usable checkpoint, and opens to the same game as folding every event would.

What a crafted checkpoint state does, and why:

- **over its bounds** (a body past the checkpoint's size, a string or an array past its
  kind's limits): the save is *damaged*, one sentence, sealed or not, as for every record:
  no Cabinet writes one, so the file is not a game's.
- **not plain data** in a save that is not sealed here (a float in it): *damaged*, one
  sentence: every field of every record is checked.
- **a state this game cannot have** (a record of another class, a record with other
  fields, a tag :func:`core.engine.freeze` never writes) or **one that does not match its
  checkpoint's digest**, in a sealed save: *ignored*, and the events folded instead.  A
  sealed save was written by this directory's Cabinet; a state that no longer comes back
  whole is what a save written before the game's state gained a field holds, and such a
  save must still open.  The fold gives the state the rules make, and the digests of the
  checkpoints after it are checked as the fold goes, as for any save.
- **any state in a save that is not sealed** (copied from elsewhere, edited): never read:
  every move is decided again, and continuing the game rewrites the file whole, so that a
  state nobody here made is never sealed as this directory's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core import engine
from core.engine import Match
from core.games import all_games
from saves import SaveError, SaveWriter, load, verify
from saves import format as fmt
from table import Table
from tests.test_saves import finished_save, one_sentence, record_offsets
from tests.toygame import GAMES
from tui.session import new_match

GAME_IDS = sorted(all_games())


def play(game_id: str, players: int, seed: int, moves: int | None, path: Path) -> Match:
    """A game of random bots, saved as it is played, stopped after ``moves`` moves (None: its end)."""
    game = all_games()[game_id]
    bots = [{"kind": "bot", "level": "random"}] * players
    match = new_match(game, players, controllers=bots, seed=seed, bot_seed=seed)
    with SaveWriter(path, match, durable=False) as writer:
        table = Table(match, writer)
        for _ in range(moves if moves is not None else 10_000):
            active = match.active()
            if not active:
                break
            assert table.submit(active[0], table.bot_move(active[0])) is None
    return match


def folded(match: Match) -> Match:
    """The same game, every event folded (the match as a load made it before issue 35)."""
    again = Match(match.game, match.header)
    for move in match.moves:
        again.replay_move(move.seat, move.command, match.events[move.start : move.end])
    return again


def assert_same_game(loaded: Match, fold: Match) -> None:
    """The same events, moves, state, history lines and state after every event."""
    assert loaded.events == fold.events
    assert [(m.seat, m.command, m.start, m.end) for m in loaded.moves] == [
        (m.seat, m.command, m.start, m.end) for m in fold.moves
    ]
    assert loaded.state == fold.state
    for viewer in (0, engine.ALL):
        assert Table(loaded).history(viewer) == Table(fold).history(viewer)
    # from the end back to the start, as a replay steps back, then forth again
    n = len(fold.events)
    for k in [*range(n, -1, -1), *range(0, n + 1, 7)]:
        assert loaded.state_at(k) == fold.state_at(k), k


def records(path: Path) -> list[tuple[bytes, dict[str, Any]]]:
    data = path.read_bytes()
    return [
        (kind, msgpack.unpackb(data[start + fmt._FRAME.size : end], raw=False))
        for kind, start, end in record_offsets(data)
    ]


def write(path: Path, recs: list[tuple[bytes, Any]], sealed: bool = True) -> None:
    """The records as a save, framed and chained as a writer would; sealed with the key of
    the save's directory when ``sealed`` (what a writer there would make of them)."""
    chain = fmt.Chain(fmt.dir_key(path.parent, create=True) if sealed else None)
    out = fmt.preamble()
    for kind, body in recs:
        out += chain.frame(kind, body if isinstance(body, bytes) else msgpack.packb(body, use_bin_type=True))
    path.write_bytes(out)


def checkpoints(recs: list[tuple[bytes, dict[str, Any]]]) -> list[int]:
    """The records that are checkpoints carrying a state."""
    return [i for i, (kind, body) in enumerate(recs) if kind == fmt.CHECKPOINT and "state" in body]


# -- what a save holds -------------------------------------------------------------


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_checkpoints_carry_a_state_that_comes_back_whole(tmp_path, game_id):
    """The first four checkpoints, one where a move crosses a multiple of 200 events, and the
    one after the move that ends the game (a finished game opens without a fold)."""
    game = all_games()[game_id]
    match = play(game_id, game.max_players, 3, None, tmp_path / "g.cab")
    recs = records(tmp_path / "g.cab")
    assert match.outcome is not None and [k for k, _ in recs[-2:]] == [fmt.CHECKPOINT, fmt.RESULT]
    events = 0
    for kind, body in recs:
        if kind == fmt.MOVE:
            events = len(body["events"])
        elif kind == fmt.CHECKPOINT:
            start = body["n"] - events
            due = (
                body["n"] < 4 * fmt.CHECKPOINT_EVERY
                or start // fmt.STATE_EVERY != body["n"] // fmt.STATE_EVERY
                or body["n"] == len(match.events)
            )
            assert ("state" in body) == due, body["n"]
    cps = checkpoints(recs)
    assert len(cps) >= 2
    for i in cps:
        body = recs[i][1]
        assert set(body) == {"n", "digest", "state"}
        state = engine.thaw(body["state"], game.state_records())
        assert state == match.state_at(body["n"])
        assert engine.digest(game.canonical(state)) == body["digest"]
        assert len(msgpack.packb(body)) <= fmt.BOUNDS[fmt.CHECKPOINT].size


def test_thaw_makes_only_the_games_own_records():
    records_ = all_games()["agent-jean"].state_records()
    assert "core.games.agent_jean.rules.State" in records_
    for plain in (
        {"R": ["subprocess.Popen", ["ls"]]},  # a class of no game
        {"R": ["core.games.ministeres.rules.State"]},  # another game's
        {"R": ["core.games.agent_jean.rules.State", "too", "few"]},
        {"X": [1]},
        {"L": [1], "F": [2]},
        {"D": [[1]]},
        {"F": [[1, 2], {"L": []}]},  # a list in a set
        1.5,
        b"bytes",
    ):
        with pytest.raises(ValueError):
            engine.thaw(plain, records_)
    deep: Any = 1
    for _ in range(engine.THAW_DEPTH + 1):
        deep = [deep]
    with pytest.raises(ValueError):
        engine.thaw(deep, records_)


def test_freeze_keeps_every_type():
    value = ((1, "a"), [2, (3,)], {"k": frozenset({4})}, {5: {6}}, None, True)
    plain = msgpack.unpackb(msgpack.packb(engine.freeze(value)), raw=False, strict_map_key=False)
    again = engine.thaw(plain, {})
    assert again == value
    assert [type(x) for x in again] == [tuple, list, dict, dict, type(None), bool]
    assert type(again[1][1]) is tuple and type(again[2]["k"]) is frozenset and type(again[3][5]) is set
    with pytest.raises(TypeError):
        engine.freeze((1.5,))


# -- a sealed save opens to the same game --------------------------------------------


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    game_id=st.sampled_from(GAME_IDS),
    seed=st.integers(0, 10_000),
    moves=st.one_of(st.none(), st.integers(0, 150)),
    more=st.booleans(),
)
def test_a_sealed_save_loads_to_the_full_fold(tmp_path_factory, game_id, seed, moves, more):
    game = all_games()[game_id]
    players = game.min_players if seed % 2 else game.max_players
    path = tmp_path_factory.mktemp("prop") / "g.cab"
    match = play(game_id, players, seed, moves, path)
    loaded = load(path)
    assert loaded.sealed and not loaded.warnings
    assert_same_game(loaded.match, folded(match))
    if more and loaded.match.active():
        # played on from the loaded match, saved, loaded again: the same game as the fold
        with SaveWriter.resume(loaded) as writer:
            table = Table(loaded.match, writer)
            for _ in range(20):
                active = loaded.match.active()
                if not active:
                    break
                assert table.submit(active[0], table.bot_move(active[0])) is None
        assert_same_game(load(path).match, folded(loaded.match))


def test_a_take_back_on_a_loaded_match_cuts_where_the_fold_would(tmp_path):
    path = tmp_path / "g.cab"
    match = play("agent-jean", 4, 5, 120, path)
    loaded = load(path).match
    fold = folded(match)
    for keep in (100, 60, 2):
        loaded.truncate_moves(keep)
        fold.truncate_moves(keep)
        assert_same_game(loaded, fold)


@pytest.mark.parametrize("moves", [None, 150])
def test_only_the_events_after_the_last_checkpoint_are_folded(tmp_path, monkeypatch, moves):
    """A game in play folds what follows its last state; a finished one folds nothing."""
    path = tmp_path / "g.cab"
    match = play("agent-jean", 5, 11, moves, path)
    last = records(path)[checkpoints(records(path))[-1]][1]["n"]
    folds = []
    real = match.game.evolve
    monkeypatch.setattr(type(match.game), "evolve", lambda self, state, event: folds.append(1) or real(state, event))
    loaded = load(path).match
    assert len(folds) == len(match.events) - last
    assert (len(folds) == 0) == (moves is None)
    assert loaded.state == match.state and loaded.outcome == match.outcome
    folds.clear()
    assert loaded.state_at(3) == folded(match).state_at(3)  # what a replay asks for: made then
    assert folds


# -- saves written before: no state in their checkpoints --------------------------------


def test_an_old_save_without_states_opens_as_before(tmp_path):
    path = tmp_path / "old.cab"
    match = play("chirac-mitterrand", 2, 8, None, path)
    recs = [(k, {f: v for f, v in b.items() if f != "state"} if k == fmt.CHECKPOINT else b) for k, b in records(path)]
    write(path, recs)
    loaded = load(path)
    assert loaded.sealed and not loaded.warnings
    assert_same_game(loaded.match, folded(match))
    assert "finished" in verify(path)


def test_the_saves_of_earlier_cabinets_still_open():
    for path in sorted((Path(__file__).parent / "data").glob("*.cab")):
        loaded = load(path)
        assert_same_game(loaded.match, folded(loaded.match))


# -- crafted checkpoint states ----------------------------------------------------------


@pytest.fixture
def toy_save(tmp_path) -> tuple[Path, Match, list[tuple[bytes, dict[str, Any]]]]:
    path = tmp_path / "t.cab"
    match = finished_save(path, "30")
    return path, match, records(path)


def other_state(recs, i: int) -> Any:
    """The state of another checkpoint than record ``i``'s."""
    cps = checkpoints(recs)
    return recs[cps[0] if i != cps[0] else cps[1]][1]["state"]


WRONG = {
    "the state of another point (not its digest's)": other_state,
    "a record of a class of no game": lambda recs, i: {"R": ["os.PathLike"]},
    "a record with other fields": lambda recs, i: {"R": [recs[i][1]["state"]["R"][0], 1, 2]},
    "a tag freeze never writes": lambda recs, i: {"Q": [1]},
    "a float among the fields": lambda recs, i: {"R": [*recs[i][1]["state"]["R"][:-1], 1.5]},
    "not a map": lambda recs, i: "state",
}


@pytest.mark.parametrize("which", ["last", "every"])
@pytest.mark.parametrize("how", sorted(WRONG))
def test_a_sealed_checkpoint_state_that_is_wrong_is_passed_over_for_the_fold(toy_save, how, which):
    path, match, recs = toy_save
    cps = checkpoints(recs)
    for i in cps if which == "every" else cps[-1:]:
        recs[i][1]["state"] = WRONG[how](recs, i)
    write(path, recs)
    loaded = load(path, GAMES)
    assert loaded.sealed and not loaded.warnings
    assert_same_game(loaded.match, folded(match))


def test_an_earlier_state_that_is_wrong_is_passed_over_when_a_replay_needs_it(toy_save):
    path, match, recs = toy_save
    cps = checkpoints(recs)
    for i in cps[1:-1]:
        recs[i][1]["state"] = other_state(recs, i)
    write(path, recs)
    assert_same_game(load(path, GAMES).match, folded(match))


def test_a_state_that_is_wrong_and_passed_over_still_has_the_fold_checked(toy_save):
    """The fold that replaces a state no longer usable is checked as every fold is: a save
    whose events do not give the digests recorded says so."""
    path, _, recs = toy_save
    cps = checkpoints(recs)
    recs[cps[-1]][1]["state"] = {"Q": [1]}
    recs[cps[-2]][1]["digest"] = "0" * 32
    write(path, recs)
    with pytest.raises(SaveError, match="diverges from the rules of this version") as err:
        load(path, GAMES)
    one_sentence(err.value, "t.cab")


@pytest.mark.parametrize("sealed", [True, False])
@pytest.mark.parametrize(
    "how",
    [
        "a body over the checkpoint's size",
        "a string longer than any the rules make",
        "an array longer than any the rules make",
    ],
)
def test_a_checkpoint_state_over_its_bounds_is_damage(toy_save, how, sealed):
    path, _, recs = toy_save
    i = checkpoints(recs)[-1]
    bound = fmt.BOUNDS[fmt.CHECKPOINT]
    recs[i][1]["state"] = {
        "a body over the checkpoint's size": [["card"] * 1000] * 3,
        "a string longer than any the rules make": "x" * (bound.string + 1),
        "an array longer than any the rules make": [0] * (bound.array + 1),
    }[how]
    write(path, recs, sealed)
    with pytest.raises(SaveError, match="damaged at byte") as err:
        load(path, GAMES)
    one_sentence(err.value, "t.cab")


def test_a_state_that_is_not_plain_data_in_a_save_from_elsewhere_is_damage(toy_save):
    path, _, recs = toy_save
    recs[checkpoints(recs)[-1]][1]["state"] = [1.5]
    write(path, recs, sealed=False)
    with pytest.raises(SaveError, match="holds a state that is not plain data") as err:
        load(path, GAMES)
    one_sentence(err.value, "t.cab")


def test_the_states_of_a_save_from_elsewhere_are_never_read_nor_sealed_here(toy_save):
    path, match, recs = toy_save
    for i in checkpoints(recs):
        recs[i][1]["state"] = other_state(recs, i)  # plain, within bounds, and wrong
    write(path, recs, sealed=False)
    loaded = load(path, GAMES)
    assert not loaded.sealed
    assert_same_game(loaded.match, folded(match))
    # continued here: the file is written again whole, its states this directory's own
    match.truncate_moves(len(match.moves) - 3)
    write(path, records_of_match(match), sealed=False)
    loaded = load(path, GAMES)
    with SaveWriter.resume(loaded) as writer:
        Table(loaded.match, writer).play_out()
    again = load(path, GAMES)
    assert again.sealed
    for i in checkpoints(records(path)):
        body = records(path)[i][1]
        assert engine.thaw(body["state"], GAMES["toy"].state_records()) == again.match.state_at(body["n"])


def records_of_match(match: Match) -> list[tuple[bytes, dict[str, Any]]]:
    """A match's records, each checkpoint's state swapped for another's (crafted elsewhere)."""
    data, _ = fmt.encode_match(match)
    recs = [
        (kind, msgpack.unpackb(data[start + fmt._FRAME.size : end], raw=False))
        for kind, start, end in record_offsets(data)
    ]
    for i in checkpoints(recs):
        recs[i][1]["state"] = other_state(recs, i)
    return recs
