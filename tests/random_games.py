"""What every game's property tests share: the random-game driver and ``strings``.

It plays a match with random legal commands and, when ``deep``, checks after
every event that the event is plain data (msgpack gives it back exactly) and
whatever the game's own ``check_event`` asserts (cards conserved, views that
leak nothing), and before every move that each command ``legal`` offers is
accepted by ``decide`` and that seats not to move are offered nothing.  At the
end, folding the log from the initial state must give the live state.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import msgpack

from core.engine import Command, Event, Match
from table import Table

if TYPE_CHECKING:
    from saves import SaveWriter

#: the random games a property test plays are the suite's times this (CABINET_RANDOM_GAMES=5: five
#: times as many, a deeper run for a change of the rules; the suite's own keep it in its minutes).
#: The suite's counts were halved on 7 December 2026 (its run had grown past ten minutes on two
#: cores, these tests a sixth of its CPU): each run draws new seeds, so the games played over the
#: runs still add up; CABINET_RANDOM_GAMES=2 plays as many as a run did before.
SCALE = float(os.environ.get("CABINET_RANDOM_GAMES", "1"))


def games(n: int) -> int:
    """``n`` random games, scaled by $CABINET_RANDOM_GAMES."""
    return max(1, round(n * SCALE))


def strings(value: Any) -> set[str]:
    """Every string inside a plain value."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(strings(k) | strings(v) for k, v in value.items())) if value else set()
    if isinstance(value, (list, tuple)):
        return set().union(*(strings(v) for v in value)) if value else set()
    return set()


def check_legal(match: Match) -> None:
    game, state = match.game, match.state
    for seat in range(match.header["players"]):
        commands = game.legal(state, seat)
        if seat not in game.active(state):
            assert commands == []
            continue
        assert commands
        for command in commands:
            game.decide(state, seat, command, match.rng())  # must not raise


def play_random(
    match: Match,
    seed: int,
    deep: bool,
    check_event: Callable[[Any, Event], None] | None = None,
    choose: Callable[[random.Random, list[Command]], Command] | None = None,
    max_moves: int = 5000,
    writer: SaveWriter | None = None,
) -> Match:
    """``writer``: the match's save, kept as a table keeps it (each move played at a Table)."""
    game = match.game
    table = Table(match, writer) if writer is not None else None
    chooser = random.Random(seed)
    pick = choose or (lambda rng, legal: rng.choice(legal))
    state = game.initial(match.config)
    folded = 0

    def fold() -> None:
        nonlocal state, folded
        for event in match.events[folded:]:
            state = game.evolve(state, event)
            if deep:
                assert msgpack.unpackb(msgpack.packb(event, use_bin_type=True), raw=False) == event
                if check_event is not None:
                    check_event(state, event)
        folded = len(match.events)

    fold()
    for _ in range(max_moves):
        if match.outcome is not None:
            break
        if deep:
            check_legal(match)
        seat = chooser.choice(match.active())  # some games let several seats move at once
        command = pick(chooser, game.legal(match.state, seat))
        if table is None:
            match.submit(seat, command)
        else:
            refusal = table.submit(seat, command)
            assert refusal is None, f"{command}: {refusal}"
        fold()
    assert game.canonical(state) == game.canonical(match.state)
    return match
