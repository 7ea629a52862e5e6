"""The analysis of a finished game (issue 36): each move judged from what its mover knew.

The knowledge tests' method: a position whose hidden cards are dealt anew, so that its
mover sees the same, is judged the same, to the last digit; a judge handed the true state
(one that peeked) judges differently somewhere.  Then what a player reads: the winner at
100% at the end, a game in play refused, marks where moves cost much, the stored file
reused and a damaged one reported and made again, ``cabinet analyse``'s table and JSON.
"""

from __future__ import annotations

import dataclasses
import json
import math
import random
from functools import cache
from pathlib import Path

import msgpack
import pytest

from cabinet.main import main
from core import analysis as core_analysis
from core.analysis import (
    MARKS,
    Analysis,
    Cancelled,
    NotFinished,
    Position,
    analyse,
    assemble,
    judge,
    mark_for,
    positions_of,
)
from core.engine import Match, make_header
from core.games import get_game
from saves import load
from saves.analyses import MAX_ANALYSIS, analysis_path, keep_analysis, read_analysis
from table import Table
from table.analysis import stored_analysis
from tests.tui_helpers import agent_jean_match
from tui.session import start_save

#: worlds for the judgements of the knowledge tests: enough for a second round (the
#: preferred move confirmed on fresh worlds), few enough to be quick
EFFORT = 16


def bot_match(game_id: str, players: int, seed: int, levels: list[str]) -> Match:
    """A finished game of bots of those levels (one a seat)."""
    game = get_game(game_id)
    assert game is not None
    controllers = [{"kind": "bot", "level": level} for level in levels]
    header = make_header(game, game.make_config(players), seed, controllers, bot_seed=seed)
    match = Match.new(game, header)
    Table(match).play_out()
    assert match.outcome is not None
    return match


@cache
def cm_game() -> Match:
    """A whole game of 1988, the easy bot against the random one."""
    return bot_match("chirac-mitterrand", 2, 5, ["easy", "random"])


@cache
def cm_analysis() -> Analysis:
    return analyse(cm_game(), effort=2)


# -- what the mover knew, and nothing else ----------------------------------------------------

#: (game, players, seed): a finished game of easy bots each
KNOWLEDGE_TABLES = [
    ("agent-jean", 3, 11),
    ("chirac-mitterrand", 2, 12),
    ("edgar-lucien", 2, 13),
    ("ministeres", 3, 14),
]


def decisions(match: Match, count: int) -> list[tuple[Position, object]]:
    """``count`` positions of the game where the mover had a choice, spread over it, each
    with the true state it was taken from."""
    found = [p for p in positions_of(match, EFFORT) if p is not None]
    step = max(1, len(found) // count)
    return [(p, match.state_at(match.moves[p.move].start)) for p in found[::step][:count]]


@pytest.mark.parametrize(("game_id", "players", "seed"), KNOWLEDGE_TABLES)
def test_a_move_is_judged_the_same_whatever_the_cards_its_mover_could_not_see(game_id, players, seed) -> None:
    """Every hidden card dealt anew (three times, as the bots deal them), the mover's view
    the same: the same judgement, to the last digit.  The counter-check has teeth: judged
    from the true state of those deals (peeking), the judgements differ somewhere."""
    match = bot_match(game_id, players, seed, ["easy"] * players)
    game = match.game
    differing = peeked_apart = 0
    for position, state in decisions(match, 2 if game_id == "edgar-lucien" else 3):
        seat = position.seat
        assert position.known == game.observe(state, seat)
        assert position.view == game.view(state, seat)
        honest = judge(position, game)
        peeked = {repr(judge(dataclasses.replace(position, known=state), game))}
        for k in range(3):
            other = game.determinize(position.known, seat, random.Random(k))
            assert game.view(other, seat) == position.view
            assert game.legal(other, seat) == position.legal
            differing += other != state
            again = dataclasses.replace(position, known=game.observe(other, seat), view=game.view(other, seat))
            assert judge(again, game) == honest
            if not peeked_apart:
                peeked.add(repr(judge(dataclasses.replace(position, known=other), game)))
        peeked_apart += len(peeked) > 1
    assert differing > 0, "the hidden cards were never dealt differently"
    assert peeked_apart > 0, "a judge that sees the true state should have judged differently somewhere"


def test_the_analysis_of_a_game_is_its_moves_judged_from_their_movers_knowledge() -> None:
    """``analyse`` is the judgement of each position ``positions_of`` takes (a seat's view,
    what it knows, its legal moves and its own move: no state), put together."""
    match = cm_game()
    positions = positions_of(match, 4)
    estimates = {p.move: judge(p, match.game) for p in positions if p is not None}
    assert analyse(match, effort=4) == assemble(match, estimates, 4)
    for position in positions:
        if position is not None:
            assert set(vars(position)) == {
                "game",
                "move",
                "seat",
                "seats",
                "view",
                "known",
                "legal",
                "played",
                "seed",
                "effort",
            }


# -- what a player reads ---------------------------------------------------------------------


def test_the_curve_ends_with_the_winner_at_100_percent() -> None:
    match = cm_game()
    result = cm_analysis()
    [winner] = match.outcome.winners
    assert result.curve[-1][winner] == 1.0
    assert sum(result.curve[-1]) == 1.0
    assert len(result.curve) == len(match.moves)  # after 0, 1, ... every move
    assert len(result.judgements) == len(match.moves) - 1
    assert [j.move for j in result.judgements] == list(range(1, len(match.moves)))
    for point in result.curve:
        assert math.isclose(sum(point), 1.0, abs_tol=1e-9)
    assert result.names == tuple(s["name"] for s in match.header["seats"])


def test_a_three_player_game_ends_with_its_winner_and_keeps_its_round_scores() -> None:
    match = bot_match("agent-jean", 3, 21, ["easy", "easy", "easy"])
    result = analyse(match, effort=4)
    [winner] = match.outcome.winners
    assert result.curve[-1] == tuple(1.0 if s == winner else 0.0 for s in range(3))
    rounds = [tuple(e["scores"]) for e in match.events if e["t"] == "RoundScored"]
    assert result.scores == tuple(rounds) and len(rounds) >= 2
    assert 1 <= len(result.turning) <= 5
    assert all(1 <= k <= len(match.moves) - 1 for k in result.turning)


def test_a_game_that_keeps_no_scores_charts_none() -> None:
    assert cm_analysis().scores is None


def test_a_game_in_play_is_not_analysed() -> None:
    match = agent_jean_match(humans=2, players=2, seed=3)
    with pytest.raises(NotFinished, match="not finished: analysing a game in play would help a player cheat"):
        analyse(match)


def test_a_move_with_one_legal_choice_costs_nothing_to_judge(monkeypatch) -> None:
    match = bot_match("agent-jean", 2, 6, ["easy", "easy"])
    judged = []
    real = core_analysis.judge
    monkeypatch.setattr(core_analysis, "judge", lambda p, g=None: judged.append(p.move) or real(p, g))
    result = analyse(match, effort=4)
    forced = [
        k
        for k in range(1, len(match.moves))
        if len(match.game.legal(match.state_at(match.moves[k].start), match.moves[k].seat)) == 1
    ]
    assert forced, "this game has moves with a single choice"
    assert not set(forced) & set(judged)
    assert set(judged) | set(forced) == set(range(1, len(match.moves)))
    for k in forced:
        j = result.judgements[k - 1]
        assert j.before == j.after and j.mark == "" and j.best is None


def test_the_marks_and_their_thresholds() -> None:
    assert MARKS == ((0.25, "??"), (0.10, "?"))
    assert [mark_for(c) for c in (0.0, 0.09, 0.10, 0.2, 0.25, 0.9)] == ["", "", "?", "?", "??", "??"]


def test_a_random_player_is_marked_more_than_a_search_bot() -> None:
    """The random bot's moves against the normal search: the analysis finds its blunders,
    and each marked move names the move preferred and what it would have kept."""
    match = bot_match("chirac-mitterrand", 2, 8, ["random", "normal"])
    result = analyse(match, effort=32)
    marks = [sum(1 for j in result.judgements if j.seat == s and j.mark) for s in (0, 1)]
    assert marks[0] > marks[1]
    for j in result.judgements:
        if j.mark:
            assert j.best and j.best_after is not None
            assert math.isclose(j.before[j.seat], j.best_after)
            assert mark_for(j.best_after - j.after[j.seat]) == j.mark


def test_the_same_save_and_effort_give_the_same_analysis_in_one_process_or_two() -> None:
    match = cm_game()
    one = cm_analysis()
    assert analyse(match, effort=2) == one
    assert analyse(match, effort=2, workers=2) == one
    assert analyse(match, effort=3) != one


@pytest.mark.parametrize("workers", [1, 2])
def test_an_analysis_is_cancelled_when_asked(workers) -> None:
    match = cm_game()
    told = []
    with pytest.raises(Cancelled):
        analyse(match, effort=2, workers=workers, progress=lambda d, t: told.append(d), cancelled=lambda: len(told) > 2)
    assert len(told) < len(match.moves) - 1


def test_progress_counts_every_move() -> None:
    match = cm_game()
    told = []
    analyse(match, effort=2, progress=lambda done, total: told.append((done, total)))
    total = len(match.moves) - 1
    assert told[-1] == (total, total)
    assert [d for d, _ in told] == sorted(d for d, _ in told)


# -- plain data, checked -------------------------------------------------------------------


def test_an_analysis_comes_back_from_plain_data_as_it_was() -> None:
    result = cm_analysis()
    assert Analysis.from_plain(msgpack.unpackb(msgpack.packb(result.to_plain()))) == result


@pytest.mark.parametrize(
    "damage",
    [
        lambda d: d.update(seats=True),
        lambda d: d.update(names=["A"]),
        lambda d: d["curve"][0].__setitem__(0, float("nan")),
        lambda d: d["curve"][0].__setitem__(0, 1.5),
        lambda d: d["judgements"][0].__setitem__(1, 7),
        lambda d: d["judgements"][0].__setitem__(6, "!!"),
        lambda d: d["judgements"][0].__setitem__(4, "x" * 1000),
        lambda d: d.update(turning=[10_000]),
        lambda d: d.update(effort=0),
        lambda d: d.update(judgements=[[1, 0, [0.5, 0.5], [0.5, 0.5], "a move", None, ""]]),
        lambda d: d.update(judgements=[d["judgements"][1], d["judgements"][0]]),
        lambda d: d.update(scores=[["12", 3]]),
        lambda d: d.clear(),
    ],
)
def test_damaged_plain_data_is_refused_in_one_sentence(damage) -> None:
    plain = cm_analysis().to_plain()
    damage(plain)
    with pytest.raises(ValueError) as refused:
        Analysis.from_plain(plain)
    sentence = str(refused.value)
    assert sentence.endswith(".") and "\n" not in sentence


# -- kept beside the save ------------------------------------------------------------------


def saved_game(tmp_path: Path) -> Path:
    """A finished two-player game of L'Agent Jean! between easy bots, saved."""
    match = agent_jean_match(humans=0, players=2, seed=2)
    with start_save(tmp_path, match, durable=False) as writer:
        Table(match, writer).play_out()
    return writer.path


def test_the_analysis_is_kept_beside_the_save_and_reused(tmp_path, monkeypatch) -> None:
    path = saved_game(tmp_path)
    before = path.read_bytes()
    match = load(path).match
    made, reused = stored_analysis(path, match, effort=1)
    assert not reused
    assert analysis_path(path).exists() and path.read_bytes() == before  # the log stays as played
    monkeypatch.setattr(core_analysis, "judge", lambda *a: pytest.fail("a kept analysis is not made again"))
    again, reused = stored_analysis(path, load(path).match, effort=1)
    assert reused and again == made


def test_a_kept_analysis_of_another_effort_or_fewer_moves_is_made_again(tmp_path) -> None:
    path = saved_game(tmp_path)
    match = load(path).match
    stored_analysis(path, match, effort=1)
    assert read_analysis(path, match, 2) is None
    shorter = load(path).match
    shorter.truncate_moves(len(shorter.moves) - 1)
    assert read_analysis(path, shorter, 1) is None
    assert read_analysis(path, match, 1) is not None


@pytest.mark.parametrize(
    "damage",
    [
        b"",
        b"\x00garbage\xff" * 10,
        msgpack.packb([1, 2, 3]),
        msgpack.packb({"version": 99}),
        b"\x91" * 5000,  # nested lists, deeper than any analysis
        b"\xdd\xff\xff\xff\xff",  # a list that says it holds four billion items
    ],
)
def test_a_damaged_analysis_is_reported_in_one_sentence_and_made_again(tmp_path, damage) -> None:
    path = saved_game(tmp_path)
    match = load(path).match
    analysis_path(path).write_bytes(damage)
    said: list[str] = []
    made, reused = stored_analysis(path, match, effort=1, said=said.append)
    assert not reused
    [sentence] = said
    assert sentence.startswith(f"The analysis {analysis_path(path).name} ") and sentence.endswith("It is made again.")
    assert read_analysis(path, match, 1) == made


def test_a_kept_analysis_whose_fields_were_changed_is_refused(tmp_path) -> None:
    path = saved_game(tmp_path)
    match = load(path).match
    stored_analysis(path, match, effort=1)
    record = msgpack.unpackb(analysis_path(path).read_bytes())
    record["analysis"]["curve"][-1] = [2.0, 0.0]
    analysis_path(path).write_bytes(msgpack.packb(record))
    said: list[str] = []
    stored_analysis(path, match, effort=1, said=said.append)
    assert said == [
        f"The analysis {analysis_path(path).name} is damaged: the analysis holds a chance that is not between 0 and 1. "
        + "It is made again."
    ]


def test_an_analysis_file_too_large_is_not_read(tmp_path) -> None:
    path = saved_game(tmp_path)
    match = load(path).match
    stored_analysis(path, match, effort=1)
    with analysis_path(path).open("ab") as f:
        f.truncate(MAX_ANALYSIS + 1)
    said: list[str] = []
    stored_analysis(path, match, effort=1, said=said.append)
    assert said == [f"The analysis {analysis_path(path).name} is larger than an analysis can be. It is made again."]


def test_an_analysis_that_cannot_be_kept_is_given_all_the_same(tmp_path, monkeypatch) -> None:
    path = saved_game(tmp_path)
    match = load(path).match

    def refuse(*args):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("table.analysis.keep_analysis", refuse)
    said: list[str] = []
    made, reused = stored_analysis(path, match, effort=1, said=said.append)
    assert not reused and made.judgements
    assert said == [
        f"The analysis could not be kept beside {path.name} (permission denied): it will be made again next time."
    ]


# -- cabinet analyse ---------------------------------------------------------------------------


def test_cabinet_analyse_prints_every_move_and_keeps_the_analysis(tmp_path, capsys) -> None:
    path = saved_game(tmp_path)
    assert main(["analyse", str(path), "--effort", "2", "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    match = load(path).match
    lines = out.splitlines()
    assert lines[0].startswith("L'Agent Jean!: ") and "wins" in lines[0]
    assert "on 2 drawn worlds each" in lines[1]
    rows = [line for line in lines if line[:4].strip().isdigit()]
    assert [int(r[:4]) for r in rows] == list(range(1, len(match.moves)))
    assert all("→" in r and "%" in r for r in rows)
    assert any(r.split()[1] == "Ada" for r in rows) and any(r.split()[1] == "Bastien" for r in rows)
    assert "Scores by round: 1. Ada " in out
    assert analysis_path(path).exists()


def test_cabinet_analyse_json_has_every_move_the_curve_and_the_winner(tmp_path, capsys) -> None:
    path = saved_game(tmp_path)
    assert main(["analyse", str(path), "--json", "--effort", "2", "--jobs", "1"]) == 0
    doc = json.loads(capsys.readouterr().out)
    match = load(path).match
    assert set(doc) == {"game", "title", "seats", "names", "effort", "winners", "moves", "curve", "turning", "scores"}
    assert doc["game"] == "agent-jean" and doc["seats"] == 2 and doc["names"] == ["Ada", "Bastien"]
    assert doc["effort"] == 2 and doc["winners"] == list(match.outcome.winners)
    assert len(doc["moves"]) == len(match.moves) - 1
    first = doc["moves"][0]
    assert set(first) == {"move", "seat", "player", "played", "before", "after", "mark", "preferred", "preferred_after"}
    assert first["move"] == 1 and first["player"] in ("Ada", "Bastien") and first["played"]
    assert len(first["before"]) == 2 and first["mark"] in ("", "?", "??")
    assert len(doc["curve"]) == len(match.moves)
    [winner] = doc["winners"]
    assert doc["curve"][-1][winner] == 1.0
    assert doc["scores"] and all(len(row) == 2 for row in doc["scores"])


def test_cabinet_analyse_refuses_a_game_in_play(tmp_path, capsys) -> None:
    match = agent_jean_match(humans=2, players=2, seed=3)
    writer = start_save(tmp_path, match, durable=False)
    table = Table(match, writer)
    for _ in range(4):
        seat = match.active()[0]
        assert table.submit(seat, table.bot_move(seat)) is None
    writer.close()
    assert main(["analyse", str(writer.path)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        f"cabinet: {writer.path.name} is not finished: analysing a game in play would help a player cheat.\n"
    )
    assert not analysis_path(writer.path).exists()


def test_cabinet_analyse_tells_of_a_damaged_analysis_and_makes_it_again(tmp_path, capsys) -> None:
    path = saved_game(tmp_path)
    analysis_path(path).write_bytes(b"not msgpack at all \xc1")
    assert main(["analyse", str(path), "--effort", "1", "--jobs", "1"]) == 0
    captured = capsys.readouterr()
    assert captured.err == (
        f"cabinet: The analysis {analysis_path(path).name} is damaged: it is not an analysis file. It is made again.\n"
    )
    assert read_analysis(path, load(path).match, 1) is not None


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--effort", "0"], "--effort takes a number of worlds from 1 to 10,000, not 0"),
        (["--jobs", "0"], "--jobs must be at least 1"),
    ],
)
def test_cabinet_analyse_bad_arguments_are_usage_errors(tmp_path, capsys, args, message) -> None:
    path = saved_game(tmp_path)
    with pytest.raises(SystemExit) as stopped:
        main(["analyse", str(path), *args])
    assert stopped.value.code == 2
    assert message in capsys.readouterr().err


def test_keep_analysis_writes_what_read_analysis_reads(tmp_path) -> None:
    path = saved_game(tmp_path)
    match = load(path).match
    result = analyse(match, effort=1)
    keep_analysis(path, match, result)
    assert read_analysis(path, match, 1) == result
    assert (analysis_path(path).stat().st_mode & 0o777) == 0o600


@pytest.mark.parametrize(("game_id", "tag"), [("agent-jean", "RoundScored"), ("ministeres", "GameScored")])
def test_the_games_that_keep_scores_give_each_seats_points_and_only_when_they_score(game_id, tag) -> None:
    match = bot_match(game_id, 3, 4, ["easy"] * 3)
    game = match.game
    given = [(e, game.scores_of(e)) for e in match.events]
    scored = [s for e, s in given if s is not None]
    assert scored and all(len(s) == 3 and all(type(x) is int for x in s) for s in scored)
    assert all((s is not None) == (e["t"] == tag) for e, s in given)
