"""The analysis of a finished game: every move judged from what its mover knew.

For each move, the mover's position is taken as the search bot takes it
(:meth:`Game.observe`: the state with everything the seat cannot see left
unseen) and never as it was: the hidden state of the save is not read.  Each
move the mover could have made there (:meth:`Game.search_moves`, the move
played among them) is played out on the same worlds, drawn as the bots draw
them (:meth:`Game.determinize`), with the same random numbers after it: the
search bot's paired comparison (``core/bots/search.py``), with its model of
the players (the game's heuristic bot, from each seat's own view) and its
judgement of a position where the game cuts a play-out short
(:meth:`Game.estimate`).  ``effort`` is the number of worlds, so the number of
play-outs of each move weighed.

What a move is worth is every seat's chance of winning after it (``after``).
The position before it is worth what the best move was worth: the move the
search prefers when it beats the one played by more than the noise of the
play-outs (:data:`MARGIN` standard errors of their paired differences), else
the move played.  What a move cost its mover is the difference; a move that
cost at least :data:`MARKS`'s thresholds is marked "?" or "??".  A move with a
single legal choice costs nothing and is not played out.

The curve of the game is each seat's chance at each move boundary: the
estimates made there (the one after the move before, from its mover's
knowledge, and the one before the move after, from its mover's), averaged;
the last point is the real outcome.  Everything is seeded from the save's seed
and the move's index: the same save and effort give the same analysis, on any
machine and with any number of worker processes.
"""

from __future__ import annotations

import contextlib
import math
import os
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from core.bots.search import MIN_DEALS, Model, command_key, play_command
from core.engine import Command, Game, Match, derive_rng
from core.games import get_game

#: what a move cost its mover (its chance of winning) to be marked, greatest first
MARKS: tuple[tuple[float, str], ...] = ((0.25, "??"), (0.10, "?"))
#: worlds drawn for each move judged (play-outs of each move weighed): see bench/analysis.py
DEFAULT_EFFORT = 48
#: the most moves weighed at one decision: the one played, the model's and others drawn
MOST_WEIGHED = 8
#: how many turning points an analysis names at most, and the least swing that is one
TURNING_POINTS = 5
LEAST_SWING = 0.05
#: how many standard errors of the paired differences a move must beat the one played by
#: to be preferred.  Stricter than the search bot's 1.5 (which only keeps its heuristic's
#: move against noise): a game judges a hundred moves, and at 1.5 one move in fifteen
#: that was as good as any would be found worse by chance (bench/analysis.py)
MARGIN = 2.5
#: the largest effort an analysis is asked for (a stored one is refused beyond it)
MOST_EFFORT = 10_000


class NotFinished(Exception):
    """The game is not over: analysing it would help a player cheat."""


#: why a game in play is not analysed (the end of the sentence that refuses it)
WHY_NOT_IN_PLAY = "analysing a game in play would help a player cheat"


def check_finished(match: Match, name: str | None = None) -> None:
    """Raise :class:`NotFinished` unless ``match`` is over; ``name``: how the sentence names it."""
    if match.outcome is None:
        raise NotFinished(f"{name or f'This game of {match.game.title}'} is not finished: {WHY_NOT_IN_PLAY}.")


class Cancelled(Exception):
    """The analysis was cancelled before it was done."""


def mark_for(cost: float) -> str:
    """The mark of a move that cost its mover ``cost`` of its chance of winning."""
    for threshold, mark in MARKS:
        if cost >= threshold - 1e-9:
            return mark
    return ""


@dataclass(frozen=True)
class Judgement:
    """One move of the game, judged from what its mover knew."""

    #: index into ``match.moves`` (1 is the first move after the setup)
    move: int
    #: who moved
    seat: int
    #: every seat's chance to win before the move, as the mover could estimate it
    before: tuple[float, ...]
    #: the same after the move (the same knowledge, and its own move)
    after: tuple[float, ...]
    #: the move the search preferred (described as the mover would read it), when not the one played
    best: str | None
    #: the mover's chance after that preferred move
    best_after: float | None
    #: "", "?" or "??" (see :data:`MARKS`)
    mark: str

    @property
    def cost(self) -> float:
        """What the move cost its mover: its chance before, less its chance after."""
        return max(0.0, self.before[self.seat] - self.after[self.seat])


@dataclass(frozen=True)
class Analysis:
    """A finished game's analysis: each move judged, the curve of every seat's chances."""

    game: str
    seats: int
    names: tuple[str, ...]
    judgements: tuple[Judgement, ...]
    #: each seat's chance once k moves are made, k from 0 (just after the setup) to the
    #: number of moves; the last point is the real outcome (the winner 1.0, a shared win split)
    curve: tuple[tuple[float, ...], ...]
    #: the moves (indices into ``match.moves``) across which the curve swung most, in order
    turning: tuple[int, ...]
    #: each seat's score after each round, where the game keeps scores (else None)
    scores: tuple[tuple[int, ...], ...] | None
    #: worlds drawn (play-outs) for each estimate
    effort: int

    def to_plain(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "seats": self.seats,
            "names": list(self.names),
            "judgements": [
                [j.move, j.seat, list(j.before), list(j.after), j.best, j.best_after, j.mark] for j in self.judgements
            ],
            "curve": [list(point) for point in self.curve],
            "turning": list(self.turning),
            "scores": None if self.scores is None else [list(row) for row in self.scores],
            "effort": self.effort,
        }

    @classmethod
    def from_plain(cls, d: Any) -> Analysis:
        """An analysis read back from plain data that may be anything (a file on disk):
        checked field by field; raises ValueError with one sentence."""
        if not isinstance(d, dict):
            raise ValueError("The analysis is not a record.")
        game = _text(d.get("game"), "game")
        seats = _whole(d.get("seats"), "seats", 1, 8)
        names = tuple(_text(n, "name") for n in _list(d.get("names"), "names", seats, seats))
        judgements = []
        last = 0
        for item in _list(d.get("judgements"), "judgements", 0, 100_000):
            row = _list(item, "judgement", 7, 7)
            move = _whole(row[0], "move", last + 1, 1_000_000)
            last = move
            seat = _whole(row[1], "seat", 0, seats - 1)
            best = None if row[4] is None else _text(row[4], "preferred move", 400)
            best_after = None if row[5] is None else _chance(row[5])
            if (best is None) != (best_after is None):
                raise ValueError("A judgement names a preferred move without its chance, or a chance without it.")
            mark = row[6]
            if mark not in ("", *(m for _, m in MARKS)):
                raise ValueError("A judgement has a mark that is not one.")
            judgements.append(
                Judgement(move, seat, _chances(row[2], seats), _chances(row[3], seats), best, best_after, mark)
            )
        curve = tuple(_chances(p, seats) for p in _list(d.get("curve"), "curve", 1, 1_000_001))
        turning = tuple(
            _whole(t, "turning point", 1, len(curve) - 1) for t in _list(d.get("turning"), "turning", 0, 50)
        )
        raw = d.get("scores")
        scores = None
        if raw is not None:
            scores = tuple(
                tuple(_whole(x, "score", -1_000_000, 1_000_000) for x in _list(row, "scores", seats, seats))
                for row in _list(raw, "scores", 0, 1000)
            )
        effort = _whole(d.get("effort"), "effort", 1, MOST_EFFORT)
        if any(j.move >= len(curve) for j in judgements):
            raise ValueError("A judgement is of a move past the end of the curve.")
        return cls(game, seats, names, tuple(judgements), curve, turning, scores, effort)


def _text(v: Any, what: str, longest: int = 64) -> str:
    if not isinstance(v, str) or len(v) > longest:
        raise ValueError(f"The analysis's {what} is not a short text.")
    return v


def _whole(v: Any, what: str, lo: int, hi: int) -> int:
    if type(v) is not int or not lo <= v <= hi:
        raise ValueError(f"The analysis's {what} is not a whole number from {lo} to {hi}.")
    return v


def _list(v: Any, what: str, lo: int, hi: int) -> list[Any]:
    if not isinstance(v, (list, tuple)) or not lo <= len(v) <= hi:
        raise ValueError(f"The analysis's {what} is not a list of {lo} to {hi} items.")
    return list(v)


def _chance(v: Any) -> float:
    if type(v) not in (int, float) or not (0.0 <= v <= 1.0):  # NaN fails the comparison too
        raise ValueError("The analysis holds a chance that is not between 0 and 1.")
    return float(v)


def _chances(v: Any, seats: int) -> tuple[float, ...]:
    return tuple(_chance(x) for x in _list(v, "chances", seats, seats))


# -- one move -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Position:
    """One move to judge: what its mover knew, and what it did (picklable, for a worker)."""

    game: str
    move: int
    seat: int
    seats: int
    #: the seat's view and what it knows (:meth:`Game.observe`), never the state
    view: dict[str, Any]
    known: Any
    legal: list[Command]
    played: Command
    seed: int
    effort: int


@dataclass(frozen=True)
class Estimate:
    """What the play-outs of one position found."""

    after: tuple[float, ...]
    best: str | None
    best_vector: tuple[float, ...] | None


def judge(position: Position, game: Game | None = None) -> Estimate:
    """The move played's chances at ``position``, and the move the search prefers if it
    is clearly better.

    In two rounds, so that the move preferred is not merely the luckiest of several: every
    move weighed is played out on the first quarter of the worlds (:func:`screen_worlds`),
    the best of them on the rest, beside the move played; only those later worlds, drawn
    after the choice, decide whether it beat the move played.  The move played is played
    out on all ``effort`` worlds."""
    game = game or get_game(position.game)
    assert game is not None, f"no game {position.game!r} here"
    seat, played = position.seat, position.played
    rng = derive_rng(position.seed, "analysis", position.move)
    weighed = _weighed(game, position, rng)
    played_key = command_key(played)
    played_at = next(i for i, c in enumerate(weighed) if command_key(c) == played_key)
    screen = screen_worlds(position.effort)
    first, world = _play_outs(game, position, weighed, screen, rng)
    means = [_mean(rows) for rows in first]
    best_at = max(range(len(weighed)), key=lambda i: (means[i][seat], i == played_at))
    pair = [played_at] if best_at == played_at else [played_at, best_at]
    second, _ = _play_outs(game, position, [weighed[i] for i in pair], position.effort - screen, rng)
    after = _mean(first[played_at] + second[0])
    if best_at == played_at or not second[0]:
        return Estimate(after, None, None)
    ours, theirs = [r[seat] for r in second[0]], [r[seat] for r in second[1]]
    if not _clearly_better(theirs, ours):
        return Estimate(after, None, None)
    # what it gains is measured against the move played on the same worlds: the mover's
    # chance with it is the played move's (on all worlds) and that gain
    gain = sum(theirs) / len(theirs) - sum(ours) / len(ours)
    preferred = _shifted(_mean(second[1]), seat, after[seat] + gain)
    return Estimate(after, _described(game, world, seat, weighed[best_at], rng), preferred)


def screen_worlds(effort: int) -> int:
    """The worlds every move weighed is played out on (the rest decide between two)."""
    return min(effort, max(MIN_DEALS, effort // 4))


def _play_outs(
    game: Game, position: Position, commands: list[Command], worlds: int, rng: random.Random
) -> tuple[list[list[tuple[float, ...]]], Any]:
    """Each command's play-outs on ``worlds`` new worlds (each seat's share of the win),
    the same random numbers after each command in a world; and the first world."""
    seat, known = position.seat, position.known
    rows: list[list[tuple[float, ...]]] = [[] for _ in commands]
    first: Any = None
    for _ in range(worlds):
        world = game.determinize(known, seat, rng, redo=True)
        if first is None:
            first = world
        seed = rng.getrandbits(64)
        for i, command in enumerate(commands):
            same = random.Random(seed)
            after = play_command(game, world, seat, command, same)
            rows[i].append(play_out(game, known, after, same, Model(game, same), position.seats))
    return rows, first


def _mean(rows: list[tuple[float, ...]]) -> tuple[float, ...]:
    return tuple(sum(column) / len(rows) for column in zip(*rows, strict=True))


def _shifted(chances: tuple[float, ...], seat: int, value: float) -> tuple[float, ...]:
    """``chances`` with ``seat``'s set to ``value``, the others scaled to keep the total."""
    value = min(1.0, max(0.0, value))
    rest = sum(c for i, c in enumerate(chances) if i != seat)
    total = sum(chances)
    scale = (total - value) / rest if rest > 0 else 0.0
    return tuple(value if i == seat else max(0.0, c * scale) for i, c in enumerate(chances))


def _weighed(game: Game, position: Position, rng: random.Random) -> list[Command]:
    """The moves weighed: those the search weighs, the one played always among them, at
    most :data:`MOST_WEIGHED` (the one played, the model's choice, then others drawn)."""
    seat, played = position.seat, position.played
    weighed = list(game.search_moves(position.known, seat, position.legal))
    keys = [command_key(c) for c in weighed]
    if command_key(played) not in keys:
        weighed.append(played)
    if len(weighed) <= MOST_WEIGHED:
        return weighed
    model = Model(game, random.Random(rng.getrandbits(64)))
    preferred = model.choose(game, seat, None, weighed, noise=False, view=position.view)
    first = [played] if command_key(preferred) == command_key(played) else [played, preferred]
    rest = [c for c in weighed if command_key(c) not in {command_key(f) for f in first}]
    return first + rng.sample(rest, MOST_WEIGHED - len(first))


def _clearly_better(best: list[float], played: list[float]) -> bool:
    """Does ``best`` beat ``played``, world by world, by more than MARGIN standard errors?"""
    gains = [b - p for b, p in zip(best, played, strict=True)]
    n = len(gains)
    mean = sum(gains) / n
    spread = sum((g - mean) ** 2 for g in gains) / max(1, n - 1)
    return n >= MIN_DEALS and mean > MARGIN * math.sqrt(spread / n + 1e-6)


def _described(game: Game, world: Any, seat: int, command: Command, rng: random.Random) -> str:
    """A move as its mover would read it in the history: the first fact it causes, as the
    mover sees it (in one of the worlds it could not tell from its own)."""
    try:
        events = game.decide(world, seat, command, random.Random(rng.getrandbits(64)))
    except Exception:  # noqa: BLE001 - a description is never worth failing an analysis
        events = []
    for event in events:
        line = game.describe(game.redact(event, seat), seat)
        if line:
            return line[:400]
    return str(command.get("t", "?"))[:400]


def play_out(game: Game, known: Any, state: Any, rng: random.Random, model: Model, seats: int) -> tuple[float, ...]:
    """Every seat's share of the win where a play-out from ``state`` stops: at the end
    of the game its real outcome, where the game cuts it short the game's estimate."""
    played = 0
    while True:
        shares = outcome_shares(game, state, seats)
        if shares is not None:
            return shares
        if game.search_cutoff(known, state, played):
            return tuple(game.estimate(state))
        mover = game.active(state)[0]
        state = play_command(game, state, mover, model.choose(game, mover, state, game.legal(state, mover)), rng)
        played += 1


def outcome_shares(game: Game, state: Any, seats: int) -> tuple[float, ...] | None:
    """Every seat's share of a finished game (the winner 1, a shared win split, a win of
    nobody's seat none), or None while it goes on."""
    outcome = game.outcome(state)
    if outcome is None:
        return None
    winners = outcome.winners
    return tuple((1.0 / len(winners) if s in winners else 0.0) for s in range(seats))


# -- a whole game ---------------------------------------------------------------------------


def positions_of(match: Match, effort: int) -> list[Position | None]:
    """Each move of ``match`` (``match.moves[1:]``) as its mover knew it, or None for a
    move with a single legal choice (it costs nothing, and is not played out)."""
    game = match.game
    seats = int(match.header["players"])
    seed = int(match.header["seed"])
    out: list[Position | None] = []
    for index in range(1, len(match.moves)):
        move = match.moves[index]
        if move.seat is None or move.command is None:
            out.append(None)
            continue
        state = match.state_at(move.start)
        seat = move.seat
        legal = game.legal(state, seat)
        if len(legal) <= 1:
            out.append(None)
            continue
        view = game.view(state, seat)
        known = game.observe(state, seat)
        out.append(Position(game.id, index, seat, seats, view, known, legal, move.command, seed, effort))
    return out


def analyse(
    match: Match,
    *,
    effort: int = DEFAULT_EFFORT,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    workers: int | None = 1,
) -> Analysis:
    """The analysis of the finished ``match``: each move judged from what its mover knew.

    ``effort``: the worlds drawn for each move judged.  ``progress(done, total)`` is told
    after each move judged (total: the moves of the game); ``cancelled()`` is asked as often,
    and when it says so the analysis stops with :class:`Cancelled`.  ``workers``: processes
    to judge moves in at once (None: one a core; 1: here, in this thread).  Raises
    :class:`NotFinished` for a game in play."""
    check_finished(match)
    if not 1 <= effort <= MOST_EFFORT:
        raise ValueError(f"The effort is a number of worlds from 1 to {MOST_EFFORT:,}, not {effort}.")
    cancelled = cancelled or (lambda: False)
    positions = positions_of(match, effort)
    total = len(positions)
    estimates: dict[int, Estimate] = {}
    to_judge = [p for p in positions if p is not None]
    done = total - len(to_judge)

    def tell() -> None:
        if progress is not None:
            progress(done, total)

    tell()
    if workers is None:
        workers = os.cpu_count() or 1
    workers = max(1, min(workers, len(to_judge)))
    if workers == 1:
        for position in to_judge:
            if cancelled():
                raise Cancelled("The analysis was cancelled.")
            estimates[position.move] = judge(position, match.game)
            done += 1
            tell()
    else:
        for move, estimate in _judge_in_workers(to_judge, workers, cancelled):
            estimates[move] = estimate
            done += 1
            tell()
    if cancelled():
        raise Cancelled("The analysis was cancelled.")
    return assemble(match, estimates, effort)


def _judge_in_workers(
    positions: Sequence[Position], workers: int, cancelled: Callable[[], bool]
) -> Iterator[tuple[int, Estimate]]:
    """(move, estimate) for each position, judged in ``workers`` processes, as they come;
    stops with :class:`Cancelled` (the moves not started are dropped) when ``cancelled()``."""
    import multiprocessing  # here, not at the top: the command line imports this module
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    # forkserver: the caller may have threads (the replay's), which fork copies badly; the
    # server loads the rules once, and each worker is a fork of it
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["core.games", "core.bots", "core.analysis"])
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_in_the_background)
    finished = False
    try:
        # the longest first (more moves to weigh, more seats to play out): the last to end sooner
        order = sorted(positions, key=lambda p: -len(p.legal))
        futures = {pool.submit(judge, p): p.move for p in order}
        waiting = set(futures)
        while waiting:
            if cancelled():
                raise Cancelled("The analysis was cancelled.")
            ready, waiting = wait(waiting, timeout=0.1, return_when=FIRST_COMPLETED)
            for future in ready:
                yield futures[future], future.result()
        finished = True
    finally:
        if not finished:
            # cancelled (or interrupted): the moves being judged are not waited for.  The
            # pool has no public way to stop a running task before Python 3.14's
            # terminate_workers; its processes are what it would terminate.
            processes = getattr(pool, "_processes", None) or {}
            for process in list(processes.values()):
                with contextlib.suppress(Exception):
                    process.terminate()
        pool.shutdown(wait=finished, cancel_futures=True)


#: how much nicer than its caller a worker of the analysis is: a replay's key presses, or a
#: served table's players, never wait behind it
WORKER_NICENESS = 5


def _in_the_background() -> None:
    """In a new worker: judge at a lower priority than the program that asked."""
    with contextlib.suppress(OSError):
        os.nice(WORKER_NICENESS)


def assemble(match: Match, estimates: dict[int, Estimate], effort: int) -> Analysis:
    """The analysis from the estimates of the moves judged (by move index): the curve, each
    move's judgement (a forced one at the curve's point before it), the turning points."""
    seats = int(match.header["players"])
    count = len(match.moves) - 1
    point: tuple[float, ...] = tuple(1.0 / seats for _ in range(seats))
    curve: list[tuple[float, ...]] = []
    for k in range(count):
        # at boundary k: the estimate after move k (its mover's) and before move k + 1 (its mover's)
        here = []
        if k in estimates:
            here.append(estimates[k].after)
        if k + 1 in estimates:
            following = estimates[k + 1]
            here.append(following.best_vector or following.after)
        if here:
            point = tuple(sum(v[s] for v in here) / len(here) for s in range(seats))
        curve.append(point)
    final = outcome_shares(match.game, match.state, seats)
    assert final is not None  # analyse() takes finished games only
    curve.append(final)
    judgements = []
    for index in range(1, count + 1):
        move = match.moves[index]
        seat = move.seat if move.seat is not None else 0
        e = estimates.get(index)
        if e is None:
            judgements.append(Judgement(index, seat, curve[index - 1], curve[index - 1], None, None, ""))
            continue
        before = e.best_vector or e.after
        best_after = None if e.best_vector is None else e.best_vector[seat]
        mark = mark_for(before[seat] - e.after[seat]) if e.best is not None else ""
        judgements.append(Judgement(index, seat, before, e.after, e.best, best_after, mark))
    swings = sorted(
        ((max(abs(a - b) for a, b in zip(curve[k], curve[k - 1], strict=True)), k) for k in range(1, count + 1)),
        reverse=True,
    )
    turning = tuple(sorted(k for swing, k in swings[:TURNING_POINTS] if swing >= LEAST_SWING))
    game = match.game
    rounds = [scores for scores in (game.scores_of(event) for event in match.events) if scores is not None]
    names = tuple(str(seat.get("name", f"Player {i + 1}")) for i, seat in enumerate(match.header["seats"]))
    return Analysis(
        game=game.id,
        seats=seats,
        names=names[:seats],
        judgements=tuple(judgements),
        curve=tuple(curve),
        turning=turning,
        scores=tuple(tuple(int(x) for x in row) for row in rounds) or None,
        effort=effort,
    )
