"""A new table's specification, checked in one place: the command line, New game, a host and
a server's hall all describe the table they want as a :class:`TableSpec`."""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.bots import make_bot
from core.engine import ConfigError, Game, Match, make_header, name_refusal
from core.games import all_games, get_game

HUMAN, BOT = "human", "bot"


@dataclass(frozen=True)
class SeatSpec:
    """One seat: who plays it (a human, or a bot of a level: None is the game's usual
    level), its player's name (None: the game's "Player N"), and its options (a side, an
    agent: None where the game chooses)."""

    kind: str = HUMAN
    level: str | None = None
    name: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)


def usual_players(game: Game) -> int:
    """How many play when nobody says: the game's own default if it has one, else two where two
    may play (a solo mode, as 1988's, is asked for with one player), else its least."""
    default = getattr(game, "default_players", None)
    if isinstance(default, int) and game.min_players <= default <= game.max_players:
        return default
    return max(game.min_players, min(2, game.max_players))


def is_whole(value: object) -> bool:
    """A whole number, as a table's numbers must be (a bool is not one): what a spec holds may
    have come from a message (``TableSpec.from_plain``)."""
    return isinstance(value, int) and not isinstance(value, bool)


def check_level(game: Game, level: str) -> None:
    """Raises ConfigError, in one sentence, for a bot level ``game`` does not have."""
    make_bot(game, level, 0)


@dataclass(frozen=True)
class TableSpec:
    """Everything a new table is made of.  :meth:`check` says in one sentence
    (:class:`ConfigError`) what is wrong with it; :meth:`build` makes its match."""

    game: str
    players: int
    seats: Sequence[SeatSpec] = ()
    variants: Mapping[str, str] = field(default_factory=dict)
    #: the seed of the shuffles (None: drawn at random)
    seed: int | None = None
    #: the bots' own seed (None: drawn at random); never the shuffles' seed, which a bot
    #: must not be able to recompute
    bot_seed: int | None = None

    def to_plain(self) -> dict[str, Any]:
        """The spec as a message carries it (a lobby's request to a hall)."""
        plain: dict[str, Any] = {
            "game": self.game,
            "players": self.players,
            "seats": [
                {
                    "kind": seat.kind,
                    **({"level": seat.level} if seat.level else {}),
                    **({"name": seat.name} if seat.name is not None else {}),
                    **dict(seat.options),
                }
                for seat in self.seats
            ],
            "variants": dict(self.variants),
        }
        return plain

    @classmethod
    def from_plain(cls, plain: Any, seeds: bool = False) -> TableSpec:
        """A spec from a message (untrusted: a lobby's request); :meth:`check` it still.
        Raises ConfigError for what is not even the shape of one.  ``seeds``: the message
        may give the seeds (else they are drawn: a hall draws its tables' own)."""
        if not isinstance(plain, dict):
            raise ConfigError("A table is described by a map.")
        seats, players = plain.get("seats"), plain.get("players")
        if (
            not isinstance(players, int)
            or isinstance(players, bool)
            or not isinstance(seats, list)
            or len(seats) != players
        ):
            raise ConfigError("A table needs a number of players and as many seats.")
        specs = []
        for seat in seats:
            if not isinstance(seat, dict) or not all(isinstance(key, str) for key in seat):
                raise ConfigError("Each seat is a player's or a bot's.")
            level, name = seat.get("level"), seat.get("name")
            if level is not None and not isinstance(level, str):
                raise ConfigError("A bot's level is a word.")
            options = {key: value for key, value in seat.items() if key not in ("kind", "level", "name")}
            specs.append(SeatSpec(str(seat.get("kind") or HUMAN), level, name, options))
        variants = plain.get("variants") or {}
        if not isinstance(variants, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in variants.items()
        ):
            raise ConfigError("Variants are a map of names to choices.")
        seed, bot_seed = (plain.get("seed"), plain.get("bot_seed")) if seeds else (None, None)
        return cls(str(plain.get("game")), players, specs, variants, seed, bot_seed)

    def the_game(self, given: Game | None = None) -> Game:
        """The registry's game of that id; or ``given``, a game of that id the registry does not
        hold (a test's toy game, a benchmark's variant of one)."""
        if given is not None and given.id == self.game:
            return given
        game = get_game(self.game)
        if game is None:
            raise ConfigError(f"There is no game {self.game!r} here (games: {', '.join(all_games())}).")
        return game

    def check(self, given: Game | None = None) -> Game:
        """The game, once every part of the table is one it can be set up with: the number of
        players, each seat's name, kind, bot level and options, the variants, the seeds."""
        game = self.the_game(given)
        if not is_whole(self.players):
            raise ConfigError("The number of players is a whole number.")
        if not game.min_players <= self.players <= game.max_players:
            raise ConfigError(
                f"{game.title} is played by {game.min_players} to {game.max_players} players, not {self.players}."
            )
        if len(self.seats) > self.players:
            raise ConfigError(f"{self.players} players but {len(self.seats)} seats were described.")
        for i, seat in enumerate(self.seats):
            if seat.kind not in (HUMAN, BOT):
                raise ConfigError(f"Seat {i + 1} is a human's or a bot's.")
            if seat.name is not None:
                refusal = name_refusal(seat.name, i)
                if refusal is not None:
                    raise ConfigError(refusal)
            if seat.kind == BOT:
                check_level(game, self.level(game, seat))
            known = {opt.key for opt in game.seat_options}
            for key in seat.options:
                if key not in known:
                    raise ConfigError(f"{game.title} has no seat option {key!r}.")
        named: dict[str, int] = {}
        for i, seat in enumerate(self.seats):
            if seat.name is None or not seat.name.strip():
                continue
            same = named.setdefault(" ".join(seat.name.casefold().split()), i)
            if same != i:  # the history would say "Bastien plays" of either (the names never quoted)
                raise ConfigError(
                    f"Seats {same + 1} and {i + 1} have the same name: give each player a name of their own."
                )
        for seed in (self.seed, self.bot_seed):
            if seed is not None and not (is_whole(seed) and 0 <= seed < 2**63):
                raise ConfigError("A seed is a whole number from 0 to 2**63 - 1.")
        game.make_config(self.players, self.config_seats(), dict(self.variants))
        return game

    @staticmethod
    def level(game: Game, seat: SeatSpec) -> str:
        return seat.level or game.default_bot_level

    def config_seats(self) -> list[dict[str, Any]]:
        seats = []
        for seat in self.seats:
            described = {key: value for key, value in seat.options.items() if value is not None}
            if seat.name is not None:
                described["name"] = seat.name
            seats.append(described)
        return seats

    def controllers(self, game: Game) -> list[dict[str, Any]]:
        seats = list(self.seats) + [SeatSpec() for _ in range(self.players - len(self.seats))]
        return [
            {"kind": BOT, "level": self.level(game, seat)} if seat.kind == BOT else {"kind": HUMAN} for seat in seats
        ]

    def build(self, given: Game | None = None, **extra: Any) -> Match:
        """The new match, set up (its header holds ``extra`` too).  Raises ConfigError."""
        game = self.check(given)
        config = game.make_config(self.players, self.config_seats(), dict(self.variants))
        seed = secrets.randbits(48) if self.seed is None else self.seed
        bot_seed = secrets.randbits(48) if self.bot_seed is None else self.bot_seed
        header = make_header(game, config, seed, self.controllers(game), bot_seed=bot_seed, **extra)
        return Match.new(game, header)


def new_match(
    game: Game,
    players: int,
    seats: Sequence[dict[str, Any]] = (),
    controllers: Sequence[dict[str, Any]] = (),
    seed: int | None = None,
    variants: dict[str, str] | None = None,
    bot_seed: int | None = None,
    **extra: Any,
) -> Match:
    """A new match from the plain form tests and tools write: seats as ``{"name", options}``,
    controllers as ``{"kind", "level"}``.  Raises ConfigError."""
    specs = []
    for i in range(max(len(seats), len(controllers))):
        given = dict(seats[i]) if i < len(seats) else {}
        ctl = controllers[i] if i < len(controllers) else {}
        name = given.pop("name", None)
        specs.append(SeatSpec(str(ctl.get("kind") or HUMAN), ctl.get("level"), name, given))
    spec = TableSpec(game.id, players, specs, dict(variants or {}), seed, bot_seed)
    return spec.build(game, **extra)
