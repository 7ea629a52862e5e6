"""What a finished game's analysis shows in its replay: the chart of each seat's chance to
win (and of the scores, round by round), and the marks the history puts after a move that
cost its mover much (issue 36).  The analysis itself is ``table.analysis``'s."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static
from textual_plotext import PlotextPlot

from core.engine import Match, printable
from table.analysis import Analysis, Judgement

#: each seat's line: a marker of its own, so that the lines are told apart without colours
#: (NO_COLOR, 16 colours), and a colour that reads at 4.5:1 on the chart's dark surface
SEAT_MARKERS = ("•", "+", "x", "o", "*")
SEAT_COLOURS = ((95, 175, 255), (255, 215, 95), (248, 152, 132), (78, 191, 113), (180, 140, 255))
#: the turning points, on the line of the seat whose move it was
TURNING_MARKER = "◆"
TURNING_COLOUR = (255, 160, 160)
#: the replay's position: a vertical line
NOW_COLOUR = (224, 224, 224)
#: the marks after a history line, as the analysis gives them (the light red of "??" and of
#: the turning points, and not the theme's error red, which 16 colours show as a crimson
#: under 4.5:1: tests/test_contrast.py)
MARK_STYLES = {"?": "bold #FFB000", "??": "bold #FFA0A0"}

#: what the pane shows, in the order ``a`` goes through them (the board comes back after)
CHANCES, SCORES = "chances", "scores"


def percent(chance: float) -> str:
    return f"{round(chance * 100)}%"


def seat_style(seat: int) -> str:
    r, g, b = SEAT_COLOURS[seat % len(SEAT_COLOURS)]
    return f"bold #{r:02X}{g:02X}{b:02X}"


def seat_marker(seat: int) -> str:
    return SEAT_MARKERS[seat % len(SEAT_MARKERS)]


def move_ends(match: Match) -> list[int]:
    """Where each of ``match.moves`` ends, in events (the setup first): for :func:`move_of_line`."""
    return [move.end for move in match.moves]


def move_of_line(ends: Sequence[int], n: int) -> int:
    """The index in the match's moves of the move a history line belongs to (``n``: the events
    after the line; ``ends``: :func:`move_ends`): the move holding its event, 0 for the setup."""
    return min(bisect.bisect_left(ends, n), len(ends) - 1) if ends else 0


def judged_lines(match: Match, analysis: Analysis, lines: Sequence[int]) -> dict[int, Judgement]:
    """Each judged move's first history line (``lines``: the events after each line), the
    one that says what its mover did, with its judgement: where its mark goes, and what the
    search preferred is said under it."""
    judgements = {j.move: j for j in analysis.judgements}
    ends = move_ends(match)
    found: dict[int, Judgement] = {}
    seen: set[int] = set()
    for index, n in enumerate(lines):
        move = move_of_line(ends, n)
        if move in judgements and move not in seen:
            seen.add(move)
            found[index] = judgements[move]
    return found


def ticks(last: int, room: int) -> list[int]:
    """Whole move numbers for the axis from 0 to ``last``, about one for each 10 columns of ``room``."""
    if last <= 0:
        return [0]
    want = max(2, min(room // 10, last + 1))
    step = next(s for s in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 10**9) if last / s <= want - 1)
    return list(range(0, last + 1, step))


def preferred_text(judgement: Judgement) -> str | None:
    """The line "better: …, 34% → 51%": the move the search preferred, the mover's chance after the
    move played and after that one (None: the search preferred the move played)."""
    if judgement.best is None or judgement.best_after is None:
        return None
    played = judgement.after[judgement.seat] if judgement.seat < len(judgement.after) else 0.0
    # the move as the history would tell it ("Ada plays B9."), its full stop dropped mid-line
    best = printable(judgement.best).rstrip(".")
    return f"better: {best}, {percent(played)} → {percent(judgement.best_after)}"


def judgement_text(judgement: Judgement, names: Sequence[str]) -> Text:
    """One line on the move at the replay's position: who moved, their chance before and
    after it, its mark and what the search preferred; or, where the search found no better
    move than the one played (so its chance is the same before and after), that chance and
    so much ("31% → 31%" read as a move that changed nothing)."""
    seat = judgement.seat
    name = names[seat] if seat < len(names) else f"Seat {seat + 1}"
    before = judgement.before[seat] if seat < len(judgement.before) else 0.0
    after = judgement.after[seat] if seat < len(judgement.after) else 0.0
    if judgement.best is None and not judgement.mark and percent(before) == percent(after):
        return Text.assemble(
            f"Move {judgement.move}: ",
            (printable(name), seat_style(seat)),
            f" {percent(after)} to win: no better move found",
        )
    text = Text.assemble(
        f"Move {judgement.move}: ",
        (printable(name), seat_style(seat)),
        f" {percent(before)} → {percent(after)}",
    )
    if judgement.mark:
        text.append(f" {judgement.mark}", style=MARK_STYLES.get(judgement.mark, "bold"))
    better = preferred_text(judgement)
    if better is not None:
        text.append(f" · {better}")
    return text


class AnalysisPane(Vertical):
    """The analysis of a finished game, in place of the board: a legend, the chart, and a
    line on the move at the replay's position."""

    DEFAULT_CSS = """
    AnalysisPane {
        width: 1fr;
        height: 1fr;
        padding: 0 1;
    }
    AnalysisPane #chart-legend, AnalysisPane #chart-move {
        height: auto;
    }
    AnalysisPane #chart-move {
        /* a marked move's line takes two rows where the board is 80 columns wide: two rows
           for every move, so that the chart above does not jump a row as the replay steps */
        min-height: 2;
    }
    AnalysisPane #chart {
        height: 1fr;
    }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.analysis: Analysis | None = None
        self.mode = CHANCES
        self.at = 0

    def compose(self) -> ComposeResult:
        yield Static("", id="chart-legend")
        yield PlotextPlot(id="chart")
        yield Static("", id="chart-move")

    def show(self, analysis: Analysis, mode: str, at: int) -> None:
        """Draw ``analysis`` (``mode``: the chances or the scores) with the replay after ``at`` moves."""
        self.analysis, self.mode, self.at = analysis, mode, at
        self.query_one("#chart-legend", Static).update(self.legend())
        self.query_one("#chart-move", Static).update(self.current_move())
        plot = self.query_one("#chart", PlotextPlot)
        plt = plot.plt
        plt.clear_data()
        plt.clear_figure()
        if mode == SCORES and analysis.scores:
            self.draw_scores(plt, analysis.scores)
        else:
            self.draw_chances(plt, analysis, at)
        plot.refresh()

    def on_resize(self) -> None:
        if self.analysis is not None:  # the axis's move numbers fitted to the new width
            self.show(self.analysis, self.mode, self.at)

    def names(self) -> list[str]:
        analysis = self.analysis
        assert analysis is not None
        return [printable(name) for name in analysis.names]

    def legend(self) -> Text:
        analysis = self.analysis
        assert analysis is not None
        title = "Scores, round by round" if self.mode == SCORES else "Chance to win, move by move"
        # (separator before it, piece): a line breaks between two pieces, never inside one (a
        # marker apart from its name read as another player's: "x" / "Chloé")
        pieces = [("", Text(title, style="bold"))]
        for seat, name in enumerate(self.names()):
            pieces.append((" · " if not seat else "  ", Text(f"{seat_marker(seat)} {name}", style=seat_style(seat))))
        if self.mode != SCORES:
            pieces += [(" · ", Text(f"{TURNING_MARKER} turning")), (" · ", Text("│ now"))]
        width = self.query_one("#chart-legend", Static).content_region.width or self.size.width or 80
        text, line = Text(), 0
        for separator, piece in pieces:
            if line and line + len(separator) + piece.cell_len > width:
                text.append("\n")
                line = 0
            elif line:
                text.append(separator)
                line += len(separator)
            text.append_text(piece)
            line += piece.cell_len
        return text

    def current_move(self) -> Text:
        """The move that led to the replay's position, as the analysis judged it."""
        analysis = self.analysis
        assert analysis is not None
        if self.mode == SCORES:
            names = self.names()
            rounds = [
                f"Round {number}: "
                + ", ".join(
                    f"{names[seat] if seat < len(names) else f'Seat {seat + 1}'} {score}"
                    for seat, score in enumerate(row)
                )
                for number, row in enumerate(analysis.scores or (), start=1)
            ]
            return Text(" · ".join(rounds))
        judgement = next((j for j in analysis.judgements if j.move == self.at), None)
        if judgement is None:
            if self.at == 0:
                return Text("The start: no move made yet.")
            return Text(f"Move {self.at}: the only move there was (nothing to judge).")
        return judgement_text(judgement, self.names())

    def draw_chances(self, plt: Any, analysis: Analysis, at: int) -> None:
        curve = analysis.curve
        xs, points = thinned(curve, max(8, (self.query_one("#chart").size.width or self.size.width or 52) - 8))
        for seat in range(analysis.seats):
            ys = [100 * point[seat] if seat < len(point) else 0.0 for point in points]
            plt.plot(xs, ys, marker=seat_marker(seat), color=SEAT_COLOURS[seat % len(SEAT_COLOURS)])
        movers = {j.move: j.seat for j in analysis.judgements}
        turning = [(m, movers[m]) for m in analysis.turning if m in movers and m < len(curve)]
        if turning:
            plt.scatter(
                [m for m, _ in turning],
                [100 * curve[m][seat] if seat < len(curve[m]) else 0.0 for m, seat in turning],
                marker=TURNING_MARKER,
                color=TURNING_COLOUR,
            )
        last = max(len(curve) - 1, 1)
        plt.vline(min(at, last), NOW_COLOUR)
        plt.xlim(0, last)
        plt.xticks(ticks(last, (self.size.width or 52) - 6))
        plt.ylim(0, 100)
        plt.yticks([0, 25, 50, 75, 100], ["0%", "25%", "50%", "75%", "100%"])
        plt.xlabel("move")

    def draw_scores(self, plt: Any, scores: Sequence[Sequence[int]]) -> None:
        """Each round, a bar a seat (filled with the seat's marker), side by side."""
        seats = max((len(row) for row in scores), default=0)
        rounds = [f"Round {r}" for r in range(1, len(scores) + 1)]
        columns = [[row[seat] if seat < len(row) else 0 for row in scores] for seat in range(seats)]
        plt.multiple_bar(
            rounds,
            columns,
            marker=[seat_marker(seat) for seat in range(seats)],
            color=[SEAT_COLOURS[seat % len(SEAT_COLOURS)] for seat in range(seats)],
        )
        top = max((max(column, default=0) for column in columns), default=0)
        low = min(0, *(min(column, default=0) for column in columns))
        plt.yticks(whole_ticks(low, top))


def thinned(curve: Sequence[Sequence[float]], columns: int) -> tuple[list[int], list[tuple[float, ...]]]:
    """The curve's points to draw in ``columns`` cells of width: every point when they fit;
    else the first (the start) and the last (the real outcome) as they are, and between them
    one a column, each the mean of the moves it stands for, at the last of them.  (A long
    game's every move, a dozen to a column, filled the chart with its markers: Ministères'
    300 moves read as a block.)"""
    count = len(curve)
    if count <= columns or count < 4:
        return list(range(count)), [tuple(point) for point in curve]
    xs, points = [0], [tuple(curve[0])]
    inner, spans = count - 2, columns - 2  # moves 1 to count - 2, between the two ends
    for k in range(spans):
        start, end = 1 + inner * k // spans, 1 + inner * (k + 1) // spans
        if end <= start:
            continue
        part = curve[start:end]
        seats = max(len(point) for point in part)
        xs.append(end - 1)
        points.append(
            tuple(sum(point[seat] if seat < len(point) else 0.0 for point in part) / len(part) for seat in range(seats))
        )
    xs.append(count - 1)
    points.append(tuple(curve[-1]))
    return xs, points


def whole_ticks(low: int, top: int) -> list[int]:
    """About five whole numbers from ``low`` to ``top`` (and 0), for a score's axis."""
    span = max(top - low, 1)
    step = next(s for s in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 10**9) if span / s <= 5)
    first = (low // step) * step
    return list(range(first, top + step, step))
