"""The city of Fosko: both sides of the board, as data.

The rulebook never describes the board, so Cabinet designs it (see
docs/rules/edgar-lucien.md, "The map of Fosko").  Each side is a grid of
square districts.  Every border between two neighbours has one of four
colours, and no district has two borders of the same colour, so a colour
programmed on the movement wheel names exactly one move.  Metro lines have
colours of their own; a character who takes a line programs the entrance he
will come out of (any other entrance of that line).

A move is written as a string: ``"stay"``, a border colour (``"green"``) or a
metro line and its exit (``"pink>docks"``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache

STEEL, IVORY, ADMIN = "steel", "ivory", "admin"
KINDS = (STEEL, IVORY, ADMIN)
KIND_NAMES = {STEEL: "Steel", IVORY: "Ivory", ADMIN: "Administration"}
#: one letter per kind, for the map and for players who cannot tell colours apart
KIND_LETTERS = {STEEL: "S", IVORY: "I", ADMIN: "A"}

BORDER_COLOURS = ("green", "orange", "violet", "cyan")
METRO_COLOURS = ("pink", "brown", "grey")
#: one letter per colour (borders) and a short name per line (metro), for the map
COLOUR_LETTERS = {"green": "G", "orange": "O", "violet": "V", "cyan": "C"}
LINE_NAMES = {"pink": "M1", "brown": "M2", "grey": "M3"}

STAY = "stay"

#: the four Administration districts, by the key the rules use
BANK, ARCHIVES, PIG, HALL = "bank", "archives", "pig", "hall"
ADMIN_DISTRICTS = (BANK, ARCHIVES, PIG, HALL)


@dataclass(frozen=True)
class District:
    id: str
    name: str
    #: three letters, for the map
    code: str
    kind: str
    row: int
    col: int


@dataclass(frozen=True)
class Fosko:
    """One side of the board."""

    side: str  # "2-3", or "4b" (4 players; "4": the first drawing of that side)
    rows: int
    cols: int
    districts: tuple[District, ...]
    #: (district, district, colour) for every border between two neighbours
    borders: tuple[tuple[str, str, str], ...]
    #: (colour, entrances) for every metro line
    lines: tuple[tuple[str, tuple[str, ...]], ...]

    def district(self, district_id: str) -> District:
        return _index(self)[district_id]

    def has(self, district_id: object) -> bool:
        return isinstance(district_id, str) and district_id in _index(self)

    def at(self, row: int, col: int) -> District | None:
        for d in self.districts:
            if d.row == row and d.col == col:
                return d
        return None

    @property
    def players(self) -> str:
        """Who plays on this side, as players read it: ``"2-3"`` or ``"4"`` (both drawings)."""
        return "4" if self.cols > 4 else "2-3"

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(d.id for d in self.districts)

    def kind(self, district_id: str) -> str:
        return self.district(district_id).kind

    def neighbours(self, district_id: str) -> dict[str, str]:
        """Border colour -> the district across that border."""
        return _neighbours(self)[district_id]

    def border(self, a: str, b: str) -> str | None:
        for colour, other in self.neighbours(a).items():
            if other == b:
                return colour
        return None

    def stations(self, district_id: str) -> dict[str, tuple[str, ...]]:
        """Metro line -> the other entrances of that line, for the lines entered here."""
        out = {}
        for colour, entrances in self.lines:
            if district_id in entrances:
                out[colour] = tuple(e for e in entrances if e != district_id)
        return out

    def moves(self, district_id: str) -> dict[str, str]:
        """Every move that leads somewhere from this district, and Immobile: move -> destination."""
        out = {STAY: district_id}
        for colour in BORDER_COLOURS:
            other = self.neighbours(district_id).get(colour)
            if other is not None:
                out[colour] = other
        for colour, exits in self.stations(district_id).items():
            for exit_ in exits:
                out[f"{colour}>{exit_}"] = exit_
        return out

    def destination(self, district_id: str, move: str) -> str:
        """Where a programmed move takes a character: an invalid one leaves him in place."""
        return self.moves(district_id).get(move, district_id)


def is_move(move: object) -> bool:
    """Is this something a movement wheel can show (valid here or not)?"""
    if not isinstance(move, str):
        return False
    if move == STAY or move in BORDER_COLOURS:
        return True
    line, _, exit_ = move.partition(">")
    return line in METRO_COLOURS and bool(exit_)


def move_words(move: str, fosko: Fosko | None = None) -> str:
    """``"green border"``, ``"pink metro (M1) to Docks"``, ``"Immobile"``."""
    if move == STAY:
        return "Immobile"
    if move in BORDER_COLOURS:
        return f"{move} border"
    line, _, exit_ = move.partition(">")
    where = fosko.district(exit_).name if fosko is not None and fosko.has(exit_) else exit_
    return f"{line} metro ({LINE_NAMES.get(line, '?')}) to {where}"


@cache
def _index(fosko: Fosko) -> dict[str, District]:
    return {d.id: d for d in fosko.districts}


@cache
def _neighbours(fosko: Fosko) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {d.id: {} for d in fosko.districts}
    for a, b, colour in fosko.borders:
        out[a][colour] = b
        out[b][colour] = a
    return out


def _side(
    side: str, grid: list[list[tuple[str, str, str, str]]], borders: str, lines: dict[str, tuple[str, ...]]
) -> Fosko:
    districts = tuple(
        District(did, name, code, kind, r, c)
        for r, row in enumerate(grid)
        for c, (did, name, code, kind) in enumerate(row)
    )
    at = {(d.row, d.col): d.id for d in districts}
    edges = []
    for line in borders.strip().splitlines():
        r1, c1, r2, c2, colour = line.split()
        edges.append((at[int(r1), int(c1)], at[int(r2), int(c2)], colour))
    return Fosko(side, len(grid), len(grid[0]), districts, tuple(edges), tuple(lines.items()))


# -- the districts -------------------------------------------------------------

_D = {
    "forges": ("Forges", "FRG", STEEL),
    "docks": ("Docks", "DCK", STEEL),
    "rivets": ("Rivet Row", "RIV", STEEL),
    "foundry": ("Foundry", "FND", STEEL),
    "gasworks": ("Gasworks", "GAS", STEEL),
    "tramsheds": ("Tram Sheds", "TRM", STEEL),
    "smokestacks": ("Smokestacks", "SMK", STEEL),
    "boilerworks": ("Boilerworks", "BLR", STEEL),
    "opera": ("Opera", "OPE", IVORY),
    "promenade": ("Promenade", "PRM", IVORY),
    "lilacs": ("The Lilacs", "LIL", IVORY),
    "belvedere": ("Belvedere", "BEL", IVORY),
    "salons": ("Salons", "SAL", IVORY),
    "conservatory": ("Conservatory", "CON", IVORY),
    "tearooms": ("Tea Rooms", "TEA", IVORY),
    "quay": ("Ivory Quay", "QUA", IVORY),
    BANK: ("Central Bank", "BNK", ADMIN),
    ARCHIVES: ("Archives", "ARC", ADMIN),
    PIG: ("Drunken Pig Square", "PIG", ADMIN),
    HALL: ("City Hall", "HAL", ADMIN),
}


def _row(*ids: str) -> list[tuple[str, str, str, str]]:
    return [(i, *_D[i]) for i in ids]


#: The 2-3 player side: 16 districts, 6 Steel, 6 Ivory, the 4 Administration
#: districts one in each quarter of the city, two metro lines across it (the
#: same in both editions of the map, variant ``map``).
SMALL = _side(
    "2-3",
    [
        _row("forges", "opera", ARCHIVES, "docks"),
        _row("promenade", BANK, "rivets", "lilacs"),
        _row("foundry", "belvedere", "gasworks", PIG),
        _row(HALL, "tramsheds", "salons", "conservatory"),
    ],
    """
    0 0 0 1 green
    0 0 1 0 violet
    0 1 0 2 orange
    0 1 1 1 violet
    0 2 0 3 violet
    0 2 1 2 cyan
    0 3 1 3 green
    1 0 1 1 cyan
    1 0 2 0 orange
    1 1 1 2 green
    1 1 2 1 orange
    1 2 1 3 orange
    1 2 2 2 violet
    1 3 2 3 cyan
    2 0 2 1 violet
    2 0 3 0 cyan
    2 1 2 2 cyan
    2 1 3 1 green
    2 2 2 3 orange
    2 2 3 2 green
    2 3 3 3 green
    3 0 3 1 violet
    3 1 3 2 orange
    3 2 3 3 cyan
    """,
    {"pink": ("forges", PIG, "tramsheds"), "brown": ("docks", HALL)},
)

#: The 4 player side as Cabinet first drew it, kept for the games saved
#: before (variant ``map=1``): from Opera, one move led to the Central Bank and
#: one metro ride to City Hall, so a player starting there could have the
#: Bank Robbery doubled on the first turn (150,000 Cogs at once).
LARGE_1 = _side(
    "4",
    [
        _row("forges", "opera", "docks", ARCHIVES, "lilacs"),
        _row("promenade", BANK, "rivets", "belvedere", "gasworks"),
        _row("foundry", "salons", "tearooms", "smokestacks", PIG),
        _row(HALL, "tramsheds", "conservatory", "boilerworks", "quay"),
    ],
    """
    0 0 0 1 violet
    0 0 1 0 orange
    0 1 0 2 green
    0 1 1 1 orange
    0 2 0 3 orange
    0 2 1 2 cyan
    0 3 0 4 cyan
    0 3 1 3 violet
    0 4 1 4 green
    1 0 1 1 cyan
    1 0 2 0 green
    1 1 1 2 violet
    1 1 2 1 green
    1 2 1 3 green
    1 2 2 2 orange
    1 3 1 4 cyan
    1 3 2 3 orange
    1 4 2 4 orange
    2 0 2 1 cyan
    2 0 3 0 orange
    2 1 2 2 violet
    2 1 3 1 orange
    2 2 2 3 cyan
    2 2 3 2 green
    2 3 2 4 violet
    2 3 3 3 green
    2 4 3 4 green
    3 0 3 1 cyan
    3 1 3 2 violet
    3 2 3 3 cyan
    3 3 3 4 orange
    """,
    {"pink": ("forges", "tearooms", "quay"), "brown": ("lilacs", HALL, "opera"), "grey": ("docks", "boilerworks")},
)


#: The 4 player side: 20 districts, 8 Steel, 8 Ivory, the 4 Administration
#: districts, three metro lines.  The same districts and borders as the first
#: drawing; the brown line runs from Forges to City Hall and Boilerworks, so that
#: no district is one move from both City Hall and another Administration
#: district: Political Support doubles nothing on the first turn but a
#: Requisition on City Hall itself.  The pink line starts at The Lilacs instead of
#: Forges and the grey one ends at Conservatory: every district stays within four
#: moves of every other, and none has two lines (a narrow square has room for one).
LARGE = replace(
    LARGE_1,
    side="4b",
    lines=(
        ("pink", ("lilacs", "tearooms", "quay")),
        ("brown", ("forges", HALL, "boilerworks")),
        ("grey", ("docks", "conservatory")),
    ),
)


def side_for(players: int, edition: str = "2") -> Fosko:
    """The side of the board a table plays on (``edition`` "1": the first map)."""
    if players >= 4:
        return LARGE_1 if edition == "1" else LARGE
    return SMALL


#: every side, by the name the view gives it
SIDES = {side.side: side for side in (SMALL, LARGE_1, LARGE)}
