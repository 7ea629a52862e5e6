"""The analysis in the replay (issue 36): ``a`` on a finished game shows the analysis kept
beside the save at once, else works it out in a thread with a progress bar (Esc stops it,
the replay steps on meanwhile); the chart of each seat's chance in the board's place; the
history's marks after a costly move and, under the line looked at, the move the search
preferred.  On a game in play ``a`` says why not."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import ProgressBar, Static

import screens.replay
from core.engine import Match
from saves import load
from saves.analyses import analysis_path, keep_analysis
from screens.analysis import SEAT_MARKERS, AnalysisPane, judgement_text, thinned
from screens.app import CabinetApp
from screens.replay import IN_PLAY, SERVED, ReplayScreen
from table import Table
from table.analysis import DEFAULT_EFFORT, Analysis, Cancelled, Judgement
from tests.tui_helpers import agent_jean_match, run_async, screen_text
from tui.session import start_save
from tui.widgets import Board, HistoryPanel

#: the moves the analysis made by hand marks, and what it says the search preferred there
MARKED = {5: "??", 9: "?"}
PREFERRED = "Ada plays Y8"  # (the analysis gives it as the history tells a move, ending in a full stop)


def finished_game(tmp_path: Path, seed: int = 3) -> Path:
    """A whole two-player game of L'Agent Jean! (48 moves), saved."""
    match = agent_jean_match(humans=0, players=2, seed=seed)
    writer = start_save(tmp_path, match, durable=False)
    Table(match, writer).play_out()
    writer.close()
    return writer.path


def game_in_play(tmp_path: Path, moves: int = 8) -> Path:
    match = agent_jean_match(humans=2, players=2, seed=5)
    with start_save(tmp_path, match, durable=False) as writer:
        table = Table(match, writer)
        for _ in range(moves):
            seat = match.active()[0]
            assert table.submit(seat, table.bot_move(seat)) is None
    return writer.path


def by_hand(match: Match) -> Analysis:
    """An analysis of ``match`` made in the test: the first seat's chance rising by steps
    from an even share to 10% more over ten moves, the others sharing the rest, then the
    real outcome; moves 5 and 9 marked, each with a preferred move (the mover's chance
    34% after the move played, 51% after the preferred one)."""
    seats = int(match.header["players"])
    count = match.move_count
    winners = match.outcome.winners if match.outcome else (0,)

    def point(first: float) -> tuple[float, ...]:
        return (first, *((1.0 - first) / (seats - 1) for _ in range(seats - 1)))

    curve = [point(1 / seats + 0.1 * min(k, 10) / 10) for k in range(count)]
    curve.append(tuple(float(seat in winners) / len(winners) for seat in range(seats)))
    judgements = []
    for k in range(1, count + 1):
        seat = match.moves[k].seat
        assert seat is not None
        mark = MARKED.get(k, "")
        if mark:
            after = tuple(0.34 if s == seat else 0.66 / (seats - 1) for s in range(seats))
            judgements.append(Judgement(k, seat, curve[k - 1], after, PREFERRED + ".", 0.51, mark))
        else:
            judgements.append(Judgement(k, seat, curve[k - 1], curve[k], None, None, ""))
    scores = ((19, 26, 12, 7, 30)[:seats], (8, 28, 15, 21, 3)[:seats])
    return Analysis(
        game=match.game.id,
        seats=seats,
        names=tuple(str(seat["name"]) for seat in match.header["seats"]),
        judgements=tuple(judgements),
        curve=tuple(curve),
        turning=(5, 9),
        scores=scores,
        effort=DEFAULT_EFFORT,
    )


async def open_replay(pilot: Pilot, path: Path, at: int | None = None) -> ReplayScreen:
    pilot.app.open_replay(load(path).match, path, at=at)
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, ReplayScreen)
    return screen


def footer_keys(screen: ReplayScreen) -> dict[str, str]:
    """The keys the footer shows, as the player reads them: key -> description."""
    return {
        (binding.key_display or binding.key): binding.description
        for _, binding, enabled, _ in screen.active_bindings.values()
        if binding.show and enabled
    }


class Held:
    """Stands for the analysis in its thread: tells its progress one move at a time, each
    when the test lets it, and stops as the analysis does when it is cancelled."""

    def __init__(self, analysis: Analysis) -> None:
        self.analysis = analysis
        self.step = threading.Semaphore(0)
        self.stopped = threading.Event()
        self.calls = 0

    def __call__(
        self,
        save: Any,
        match: Match,
        *,
        progress: Callable[[int, int], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
        **kwargs: Any,
    ) -> tuple[Analysis, bool]:
        self.calls += 1
        total = match.move_count
        for done in range(1, total + 1):
            while not self.step.acquire(timeout=0.01):
                if cancelled is not None and cancelled():
                    self.stopped.set()
                    raise Cancelled("The analysis was cancelled.")
            if progress is not None:
                progress(done, total)
        return self.analysis, False


async def let_through(pilot: Pilot, held: Held, moves: int) -> None:
    """Let the analysis judge ``moves`` more moves, and wait until the bar says so."""
    bar = pilot.app.screen.query_one("#analysing-bar", ProgressBar)
    target = bar.progress + moves
    held.step.release(moves)
    for _ in range(1000):  # (a loaded machine: as long as it takes, within 20 s)
        await pilot.pause(0.02)
        if bar.progress >= target:
            return
    raise AssertionError(f"the bar never came to {target}")


# -- the keys ------------------------------------------------------------------


async def press_the_replays_keys(pilot: Pilot, replay: ReplayScreen) -> None:
    """Every key of the replay's footer but a, p and q (each tested on its own), each doing
    what it says; with the chart shown, its "now" follows the replay."""
    app, match = pilot.app, replay.match
    pane = replay.query_one(AnalysisPane)

    def moves() -> int:
        made = match.moves_within(replay.position)
        if pane.display:
            assert pane.at == made  # the chart's "now" is the replay's move
        return made

    at = moves()
    await pilot.press("right")
    assert moves() == at + 1
    await pilot.press("left")
    assert moves() == at
    await pilot.press("right_square_bracket")
    after_turn = moves()
    assert after_turn > at
    await pilot.press("left_square_bracket")
    assert moves() < after_turn
    await pilot.press("right_curly_bracket")
    assert moves() > at
    await pilot.press("left_curly_bracket")
    assert moves() <= at
    await pilot.press("g")
    assert type(app.screen).__name__ == "GoTo"
    await pilot.press(*str(at), "enter")
    assert app.screen is replay and moves() == at
    eyes = replay.viewer
    await pilot.press("v")
    assert replay.viewer != eyes
    await pilot.press("space")
    assert "autoplay" in screen_text(app)
    await pilot.press("space")
    assert "autoplay" not in screen_text(app)
    assert moves() == at


@run_async
async def test_every_footer_key_of_a_finished_games_replay_before_and_after_its_analysis(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = finished_game(tmp_path)
    match = load(path).match
    keep_analysis(path, match, by_hand(match))
    monkeypatch.setattr(screens.replay, "stored_analysis", lambda *a, **k: pytest.fail("worked out again"))
    app = CabinetApp(save_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        replay = await open_replay(pilot, path, at=20)
        keys = footer_keys(replay)
        assert keys == {
            "←→⇱⇲": "Move",
            "[]": "Turn",
            "{}": "Round",
            "g": "Go to",
            "␣": "Auto",
            "v": "Eyes",
            "p": "Play on",
            "a": "Analyse",
            "q": "Leave",
        }
        # every key shown, in a line of 80 columns that starts a space in
        footer = screen_text(app).splitlines()[-1]
        assert footer.startswith(" ←→⇱⇲ Move ") and footer.rstrip().endswith("q Leave"), footer
        await press_the_replays_keys(pilot, replay)

        # a: the analysis kept beside the save, at once, in the board's place
        await pilot.press("a")
        assert replay.analysis is not None and not list(replay.workers)
        assert replay.query_one(AnalysisPane).display and not replay.query_one(Board).display
        assert footer_keys(replay) == {**keys, "a": "Scores"}  # a names what it shows next
        assert "Chance to win, move by move" in screen_text(app)
        await press_the_replays_keys(pilot, replay)
        # a again: the scores by round; again: the board; and the chart once more
        await pilot.press("a")
        await pilot.pause()
        assert "Scores, round by round" in screen_text(app) and footer_keys(replay)["a"] == "Board"
        await pilot.press("a")
        await pilot.pause()
        assert replay.query_one(Board).display and not replay.query_one(AnalysisPane).display
        assert footer_keys(replay)["a"] == "Chart"
        await pilot.press("a")
        assert replay.query_one(AnalysisPane).display

        # p plays on from here in a new game
        await pilot.press("p")
        assert type(app.screen).__name__ == "PlayScreen"


@run_async
async def test_q_leaves_a_replay_with_its_analysis_shown(tmp_path: Path) -> None:
    path = finished_game(tmp_path)
    match = load(path).match
    keep_analysis(path, match, by_hand(match))
    app = CabinetApp(save_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await open_replay(pilot, path)
        await pilot.press("a", "q")
        assert type(app.screen).__name__ == "MainMenu"


@run_async
async def test_on_a_game_in_play_a_is_not_offered_and_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = game_in_play(tmp_path)
    monkeypatch.setattr(screens.replay, "stored_analysis", lambda *a, **k: pytest.fail("a game in play analysed"))
    app = CabinetApp(save_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        replay = await open_replay(pilot, path)
        assert "a" not in footer_keys(replay)
        assert "as a spectator saw it" in screen_text(app)  # its eyes: nobody's hidden cards
        await pilot.press("a")
        await pilot.pause()
        assert [n.message for n in app._notifications] == [IN_PLAY]
        assert IN_PLAY.count(".") == 1 and "cheating aid" in IN_PLAY
        assert replay.analysis is None and not list(replay.workers)
        assert replay.query_one(Board).display
        assert not analysis_path(path).exists()


@run_async
async def test_a_served_session_makes_no_analysis_and_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A finished table's replay opened from a server's lobby: an analysis would take more
    of the server's processor than a session's share (and slow it for the rest of its life)."""
    path = finished_game(tmp_path)
    monkeypatch.setattr(screens.replay, "stored_analysis", lambda *a, **k: pytest.fail("analysed in a session"))
    app = CabinetApp(save_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.hall = object()  # a served session (its lobby is not needed here)
        replay = await open_replay(pilot, path)
        assert "a" not in footer_keys(replay) and "p" not in footer_keys(replay)
        await pilot.press("a")
        await pilot.pause()
        assert [n.message for n in app._notifications] == [SERVED]
        assert replay.analysis is None and not list(replay.workers) and not analysis_path(path).exists()


# -- the worker ----------------------------------------------------------------


@run_async
async def test_the_analysis_runs_in_a_worker_with_its_progress_and_the_replay_steps_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = finished_game(tmp_path)
    match = load(path).match
    held = Held(by_hand(match))
    monkeypatch.setattr(screens.replay, "stored_analysis", held)
    app = CabinetApp(save_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        replay = await open_replay(pilot, path, at=10)
        await pilot.press("a")
        await let_through(pilot, held, 12)
        bar = replay.query_one("#analysing-bar", ProgressBar)
        assert bar.total == 48 and bar.progress == 12
        assert "Analysing move 12 of 48 · Esc stops" in screen_text(app)
        keys = footer_keys(replay)
        assert keys.get("esc") == "Stop" and "a" not in keys
        # the replay goes on meanwhile
        await pilot.press("right", "right")
        assert match.moves_within(replay.position) == 12
        await pilot.press("left")
        assert match.moves_within(replay.position) == 11
        # done: the chart, the marks, at the replay's move
        await let_through(pilot, held, 48 - 12)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert replay.analysis is held.analysis and replay.analysing is None
        assert "Analysing" not in screen_text(app)
        assert replay.query_one(AnalysisPane).at == 11
        assert footer_keys(replay)["a"] == "Scores" and "esc" not in footer_keys(replay)


@run_async
async def test_a_cancelled_analysis_leaves_the_replay_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = finished_game(tmp_path)
    match = load(path).match
    held = Held(by_hand(match))
    monkeypatch.setattr(screens.replay, "stored_analysis", held)
    app = CabinetApp(save_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        replay = await open_replay(pilot, path, at=10)
        before = screen_text(app)
        history = replay.query_one(HistoryPanel)
        lines = [str(history.get_option_at_index(i).prompt) for i in range(history.option_count)]
        await pilot.press("a")
        await let_through(pilot, held, 5)
        await pilot.press("escape")
        await pilot.pause()
        # Esc stopped the analysis, and did not leave the replay
        assert app.screen is replay
        assert held.stopped.wait(5)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert replay.analysis is None and replay.analysing is None
        assert [n.message for n in app._notifications] == ["Analysis stopped: press a to start it again."]
        app.clear_notifications()
        await pilot.pause()
        assert screen_text(app) == before
        assert [str(history.get_option_at_index(i).prompt) for i in range(history.option_count)] == lines
        assert footer_keys(replay)["a"] == "Analyse"
        assert not analysis_path(path).exists()
        # a starts it again; leaving the replay (q) stops it too
        held.stopped.clear()
        await pilot.press("a")
        await let_through(pilot, held, 1)
        assert held.calls == 2
        await pilot.press("q")
        assert type(app.screen).__name__ == "MainMenu"
        assert held.stopped.wait(5)


@run_async
async def test_the_real_analysis_is_kept_beside_the_save_and_shown_again_without_a_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The analysis the engine makes (at the least effort: this is not a test of its
    judgement), kept beside the save; opened again, it is read, not made."""
    monkeypatch.setattr(ReplayScreen, "ANALYSIS_EFFORT", 1)
    path = finished_game(tmp_path)
    app = CabinetApp(save_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        replay = await open_replay(pilot, path)
        await pilot.press("a")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert replay.analysis is not None and replay.analysis.effort == 1
        assert analysis_path(path).exists()
        made = replay.analysis
        await pilot.press("q")
        monkeypatch.setattr(screens.replay, "stored_analysis", lambda *a, **k: pytest.fail("worked out again"))
        again = await open_replay(pilot, path)
        await pilot.press("a")
        assert again.analysis == made and again.analysing is None and not list(again.workers)
        assert again.query_one(AnalysisPane).display


# -- the history's marks -------------------------------------------------------


def history_lines(replay: ReplayScreen) -> list[str]:
    history = replay.query_one(HistoryPanel)
    return [str(history.get_option_at_index(i).prompt) for i in range(history.option_count)]


def first_line_of_move(replay: ReplayScreen, move: int) -> int:
    history = replay.query_one(HistoryPanel)
    start, end = replay.match.moves[move].start, replay.match.moves[move].end
    return next(i for i, n in enumerate(history.event_index) if start < n <= end)


@run_async
async def test_the_history_marks_costly_moves_and_says_what_was_better_on_the_line_looked_at(tmp_path: Path) -> None:
    path = finished_game(tmp_path)
    match = load(path).match
    keep_analysis(path, match, by_hand(match))
    app = CabinetApp(save_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        replay = await open_replay(pilot, path, at=4)
        unmarked = history_lines(replay)
        await pilot.press("a")
        lines = history_lines(replay)
        five, nine = first_line_of_move(replay, 5), first_line_of_move(replay, 9)
        # the marks, after the line of the move that cost its mover much, and nowhere else
        assert lines[five] == unmarked[five] + " ??"
        assert lines[nine] == unmarked[nine] + " ?"
        assert [i for i, (a, b) in enumerate(zip(lines, unmarked, strict=True)) if a != b] == [five, nine]
        # at move 5: the line says what the search preferred, and what it would have kept
        await pilot.press("right")
        assert match.moves_within(replay.position) == 5
        assert history_lines(replay)[five] == unmarked[five] + f" ??\nbetter: {PREFERRED}, 34% → 51%"
        assert f"better: {PREFERRED}" in screen_text(app)
        # (the chart's line on the move, when the chart is shown, says the same)
        pane = replay.query_one(AnalysisPane)
        assert pane.current_move().plain == f"Move 5: Ada 54% → 34% ?? · better: {PREFERRED}, 34% → 51%"
        # a move later, no more (and nothing under move 6, which the search found no better than played)
        await pilot.press("right")
        assert pane.current_move().plain.startswith("Move 6: ") and " → " in pane.current_move().plain
        assert history_lines(replay)[five] == unmarked[five] + " ??"
        assert "better:" not in "\n".join(history_lines(replay))
        # other eyes, other lines: the marks find theirs again
        await pilot.press("v")
        five_now = first_line_of_move(replay, 5)
        assert history_lines(replay)[five_now].endswith(" ??")


def test_a_long_games_chart_draws_a_point_a_column_not_every_move() -> None:
    """Ministères' 300 moves in 44 columns, each a marker, read as a block: a column shows the
    mean of its moves; the start and the outcome are drawn as they are."""
    curve = [(0.5, 0.5)] + [((k % 2) * 0.2 + 0.4, 0.6 - (k % 2) * 0.2) for k in range(1, 305)] + [(0.0, 1.0)]
    xs, points = thinned(curve, 44)
    assert len(xs) == len(points) <= 44 and xs == sorted(set(xs))
    assert (xs[0], points[0]) == (0, (0.5, 0.5)) and (xs[-1], points[-1]) == (305, (0.0, 1.0))
    assert all(abs(p[0] - 0.5) < 0.03 and abs(sum(p) - 1) < 1e-9 for p in points[1:-1])  # the zigzag, averaged
    few = [(0.5, 0.5), (0.6, 0.4), (1.0, 0.0)]
    assert thinned(few, 44) == ([0, 1, 2], few)  # what fits is drawn whole


def test_a_move_the_search_found_no_better_than_played_says_so_rather_than_31_to_31() -> None:
    names = ("Ada", "Bastien")
    kept = Judgement(48, 0, (0.31, 0.69), (0.31, 0.69), None, None, "")
    assert judgement_text(kept, names).plain == "Move 48: Ada 31% to win: no better move found"
    costly = Judgement(5, 1, (0.46, 0.54), (0.66, 0.34), PREFERRED + ".", 0.51, "??")
    assert judgement_text(costly, names).plain == f"Move 5: Bastien 54% → 34% ?? · better: {PREFERRED}, 34% → 51%"


@run_async
async def test_without_colours_each_seat_has_its_own_marker_on_the_chart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    path = finished_game(tmp_path)
    match = load(path).match
    keep_analysis(path, match, by_hand(match))
    app = CabinetApp(save_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await open_replay(pilot, path, at=20)
        await pilot.press("a")
        await pilot.pause()
        text = screen_text(app)
        chart = "\n".join(line[:50] for line in text.splitlines()[3:-4])
        assert f"{SEAT_MARKERS[0]} Ada" in text and f"{SEAT_MARKERS[1]} Bastien" in text
        assert SEAT_MARKERS[0] in chart and SEAT_MARKERS[1] in chart
        assert "◆" in chart and "│" in chart


# -- snapshots -----------------------------------------------------------------


def shown(path: Path, at: int, keys: tuple[str, ...]) -> Callable[[Pilot], Any]:
    async def before(pilot: Pilot) -> None:
        await pilot.pause()
        await open_replay(pilot, path, at=at)
        await pilot.press(*keys)
        await pilot.pause()

    return before


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_snapshot_the_chart_of_the_chances(snap_compare, tmp_path: Path, size: tuple[int, int]) -> None:
    path = finished_game(tmp_path)
    match = load(path).match
    keep_analysis(path, match, by_hand(match))
    assert snap_compare(CabinetApp(save_dir=tmp_path), terminal_size=size, run_before=shown(path, 5, ("a",)))


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_snapshot_the_scores_by_round(snap_compare, tmp_path: Path, size: tuple[int, int]) -> None:
    path = finished_game(tmp_path)
    match = load(path).match
    keep_analysis(path, match, by_hand(match))
    assert snap_compare(CabinetApp(save_dir=tmp_path), terminal_size=size, run_before=shown(path, 30, ("a", "a")))


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_snapshot_the_board_with_the_marked_history(snap_compare, tmp_path: Path, size: tuple[int, int]) -> None:
    path = finished_game(tmp_path)
    match = load(path).match
    keep_analysis(path, match, by_hand(match))
    assert snap_compare(CabinetApp(save_dir=tmp_path), terminal_size=size, run_before=shown(path, 9, ("a", "a", "a")))


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
def test_snapshot_the_analysis_under_way(
    snap_compare, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]
) -> None:
    path = finished_game(tmp_path)
    match = load(path).match
    held = Held(by_hand(match))
    monkeypatch.setattr(screens.replay, "stored_analysis", held)

    async def before(pilot: Pilot) -> None:
        await shown(path, 12, ("a",))(pilot)
        await let_through(pilot, held, 20)

    try:
        assert snap_compare(CabinetApp(save_dir=tmp_path), terminal_size=size, run_before=before)
    finally:
        held.step.release(100)


def test_snapshot_the_chart_without_colours(snap_compare, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    path = finished_game(tmp_path)
    match = load(path).match
    keep_analysis(path, match, by_hand(match))
    assert snap_compare(CabinetApp(save_dir=tmp_path), terminal_size=(80, 24), run_before=shown(path, 5, ("a",)))


# -- what goes wrong, said -------------------------------------------------------


@run_async
async def test_an_analysis_that_fails_says_so_in_a_sentence_and_the_replay_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fails(*args: Any, **kwargs: Any) -> tuple[Analysis, bool]:
        raise RuntimeError("The rules could not replay move 7.")

    monkeypatch.setattr(screens.replay, "stored_analysis", fails)
    path = finished_game(tmp_path)
    app = CabinetApp(save_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        replay = await open_replay(pilot, path, at=10)
        await pilot.press("a")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert [n.message for n in app._notifications] == [
            "The analysis could not be made: the rules could not replay move 7."
        ]
        assert app.screen is replay and replay.analysis is None and replay.analysing is None
        assert footer_keys(replay)["a"] == "Analyse" and replay.query_one(Board).display
        await pilot.press("right")
        assert replay.match.moves_within(replay.position) == 11


@run_async
async def test_a_damaged_analysis_beside_the_save_is_said_and_made_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ReplayScreen, "ANALYSIS_EFFORT", 1)
    path = finished_game(tmp_path)
    analysis_path(path).write_bytes(b"\x00 not an analysis")
    app = CabinetApp(save_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        replay = await open_replay(pilot, path)
        await pilot.press("a")
        await app.workers.wait_for_complete()
        await pilot.pause()
        said = [n.message for n in app._notifications]
        assert len(said) == 1 and "damaged" in said[0] and said[0].endswith("It is made again.")
        assert replay.analysis is not None and replay.query_one(AnalysisPane).display
        assert load_kept(path, replay.match) == replay.analysis


def load_kept(path: Path, match: Match) -> Analysis | None:
    from saves.analyses import read_analysis

    return read_analysis(path, match, 1)


@run_async
async def test_the_charts_legend_breaks_its_lines_between_players_never_inside_one(tmp_path: Path) -> None:
    """Five players at 80x24: the legend takes two lines or more, and each player's marker
    stays beside their name (a line broke between "x" and "Chloé")."""
    match = agent_jean_match(humans=0, players=5, seed=3)
    writer = start_save(tmp_path, match, durable=False)
    Table(match, writer).play_out()
    writer.close()
    keep_analysis(writer.path, load(writer.path).match, by_hand(load(writer.path).match))
    app = CabinetApp(save_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        replay = await open_replay(pilot, writer.path, at=20)
        await pilot.press("a")
        await pilot.pause()
        legend = str(replay.query_one("#chart-legend", Static).render()).splitlines()
        assert len(legend) >= 2, legend
        for seat, name in enumerate(match.header["seats"]):
            assert any(f"{SEAT_MARKERS[seat]} {name['name']}" in line for line in legend), (name, legend)
        assert any("◆ turning" in line for line in legend) and any("│ now" in line for line in legend), legend
        width = replay.query_one("#chart-legend", Static).content_region.width
        assert all(len(line) <= width for line in legend), (width, legend)


@run_async
async def test_an_analysis_kept_at_another_effort_is_shown_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One made by `cabinet analyse --effort 8` is the game's analysis too: a shows it, and
    nothing is worked out again (a play-test's a started again, and would have replaced it)."""
    import dataclasses

    path = finished_game(tmp_path)
    match = load(path).match
    kept = dataclasses.replace(by_hand(match), effort=8)
    keep_analysis(path, match, kept)
    monkeypatch.setattr(screens.replay, "stored_analysis", lambda *a, **k: pytest.fail("worked out again"))
    app = CabinetApp(save_dir=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        replay = await open_replay(pilot, path)
        await pilot.press("a")
        await pilot.pause()
        assert replay.analysis == kept and replay.analysing is None and not list(replay.workers)
        assert replay.query_one(AnalysisPane).display
