"""The arithmetic of ratings, and nothing else: who placed where at a finished table, and
how that moves each name's rating (OpenSkill's Plackett-Luce model, for any number of
players, ties shared).  Pure: no file, no database, no clock; ``saves.ratings`` keeps
what it computes.

A rating is a belief about a name's skill at one game: ``mu`` (the estimate) and ``sigma``
(how unsure it is).  What a leaderboard shows is the *ordinal*, ``mu - 3 sigma``: a
cautious estimate that starts at 0 for a newcomer and rises as games tell more of them.

Bots are rated under their level's name ("Bot: hard"), every seat of that level at every
table the same name, so that a player sees where "hard" stands among them."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce

from core.engine import Outcome

#: one model for every game: OpenSkill's defaults (mu 25, sigma 25/3, beta 25/6)
MODEL = PlackettLuce()
#: the width of caution in an ordinal: mu - Z sigma
Z = 3.0


def bot_rating_name(level: str | None) -> str:
    """The name a bot of ``level`` is rated under ("Bot: hard"): never a player's, since
    players' names have no spaces."""
    return f"Bot: {level or 'unknown'}"


@dataclass(frozen=True)
class Rating:
    """One name's rating at one game, and how many rated tables of it they finished."""

    mu: float = MODEL.mu
    sigma: float = MODEL.sigma
    games: int = 0

    @property
    def ordinal(self) -> float:
        """The rating a leaderboard shows and sorts by: ``mu - 3 sigma``."""
        return self.mu - Z * self.sigma

    def sound(self) -> bool:
        """Whether the numbers are a rating (finite, sigma above zero, games counted)."""
        return math.isfinite(self.mu) and math.isfinite(self.sigma) and self.sigma > 0 and self.games >= 0


def rated_name(seat: Mapping[str, Any]) -> str:
    """The name a seat of a save's header is rated under: the player's own, or its bot level's."""
    if seat.get("kind") == "bot":
        return bot_rating_name(seat.get("level"))
    return str(seat.get("name") or "")


def placings(outcome: Outcome, seats: int) -> list[int]:
    """Each seat's place at the end (1 the best), ties shared: every winner is 1st; the others
    follow by the score the rules kept (higher first) where they kept one for every seat, else
    all share the place after the winners.  A game nobody at the table won (the automated
    opponent of a solo game won) is a draw among the seats."""
    winners = {w for w in outcome.winners if 0 <= w < seats}
    scores = list(outcome.scores) if len(outcome.scores) == seats else None
    places = []
    for seat in range(seats):
        if seat in winners or not winners:
            places.append(1)
            continue
        ahead = len(winners)
        if scores is not None:
            ahead += sum(1 for other in range(seats) if other not in winners and scores[other] > scores[seat])
        places.append(1 + ahead)
    return places


def rate(before: Mapping[str, Rating], table: Sequence[tuple[str, int]]) -> dict[str, Rating]:
    """The new ratings of the names at a finished table, from their ratings ``before`` (a name
    missing there is new: the model's first rating) and each seat's (name, place).  A name at
    several seats (two bots of one level) is rated as each, and keeps the mean of those.  Fewer
    than two names: nothing to learn, no rating changes ({})."""
    names = [name for name, _ in table]
    if len(set(names)) < 2:
        return {}
    teams = []
    for name in names:
        was = before.get(name, Rating())
        teams.append([MODEL.rating(mu=was.mu, sigma=was.sigma)])
    after = MODEL.rate(teams, ranks=[float(place) for _, place in table])
    seen: dict[str, list[tuple[float, float]]] = {}
    for name, (new,) in zip(names, after, strict=True):
        seen.setdefault(name, []).append((new.mu, new.sigma))
    return {
        name: Rating(
            mu=sum(mu for mu, _ in got) / len(got),
            sigma=sum(sigma for _, sigma in got) / len(got),
            games=before.get(name, Rating()).games + 1,
        )
        for name, got in seen.items()
    }
