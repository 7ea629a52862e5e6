"""The 108 cards of Ministères, as data.

Cards are plain strings:

- Gouvernement: ``"<ministry>-<letter>"``, ``"armee-B"``.  Each ministry has
  nine cards lettered A to I; the letter is the tie-break (nearest A wins)
  and is unique within a ministry, so two players can never tie on it.
- Roi: ``"roi-01"``..``"roi-15"``; each names the ministries whose Fonction
  Primaire token it moves, and by how much (see ``ROI_EFFECTS``).
- Or: ``"or<value>-<nn>"``, ``"or2-07"``: thirteen cards of each value 1 to 3.

The rulebook gives the counts but not the values, letters or Roi effects;
the choices are explained in docs/rules/ministeres.md.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

MINISTRIES: tuple[str, ...] = ("diplomatie", "armee", "architecture", "animaux", "divertissement", "victuailles")

MINISTRY_NAMES = {
    "diplomatie": "Diplomatie",
    "armee": "Armée",
    "architecture": "Architecture",
    "animaux": "Animaux",
    "divertissement": "Divertissement",
    "victuailles": "Victuailles",
}

LETTERS = "ABCDEFGHI"
#: the value printed on each letter, the same in every ministry: two 1s, three
#: 2s, two 3s, two 4s (22 a ministry).  The letters run 1-2-3-4 twice, so a
#: strong card does not also carry the best tie-break.
LETTER_VALUES = {"A": 1, "B": 2, "C": 3, "D": 4, "E": 1, "F": 2, "G": 3, "H": 4, "I": 2}

GOUVERNEMENT_CARDS: tuple[str, ...] = tuple(f"{m}-{letter}" for m in MINISTRIES for letter in LETTERS)

#: each Roi card: the tokens it moves, (ministry, +1 or -1)
ROI_EFFECTS: dict[str, tuple[tuple[str, int], ...]] = {}
for _i, _m in enumerate(MINISTRIES):
    ROI_EFFECTS[f"roi-{_i + 1:02d}"] = ((_m, +1),)
    ROI_EFFECTS[f"roi-{_i + 7:02d}"] = ((_m, -1),)
for _i, (_a, _b) in enumerate(zip(MINISTRIES[::2], MINISTRIES[1::2], strict=True)):
    ROI_EFFECTS[f"roi-{_i + 13:02d}"] = ((_a, +1), (_b, +1))
ROI_CARDS: tuple[str, ...] = tuple(sorted(ROI_EFFECTS))

OR_COUNT = 13  # of each value
OR_CARDS: tuple[str, ...] = tuple(f"or{v}-{i:02d}" for v in (1, 2, 3) for i in range(1, OR_COUNT + 1))

ALL_CARDS: tuple[str, ...] = GOUVERNEMENT_CARDS + ROI_CARDS + OR_CARDS
CARD_SET = frozenset(ALL_CARDS)


def _kind_of(card: str) -> str:
    if card.startswith("roi-"):
        return "roi"
    if card.startswith("or") and card[2:3].isdigit():
        return "or"
    return "gouvernement"


# looked up rather than parsed: the bot and the scoring ask these very often
_KIND = {c: _kind_of(c) for c in ALL_CARDS}
_MINISTRY: dict[str, str | None] = {}
_VALUE: dict[str, int] = {}
for _c in ALL_CARDS:
    if _KIND[_c] == "or":
        _MINISTRY[_c], _VALUE[_c] = None, int(_c[2])
    elif _KIND[_c] == "roi":
        _effects = ROI_EFFECTS[_c]
        _MINISTRY[_c] = _effects[0][0] if len(_effects) == 1 else None
        _VALUE[_c] = _effects[0][1]
    else:
        _MINISTRY[_c], _VALUE[_c] = _c.rsplit("-", 1)[0], LETTER_VALUES[_c[-1]]


def kind(card: str) -> str:
    """``"gouvernement"``, ``"roi"`` or ``"or"``."""
    return _KIND[card]


def is_gouvernement(card: str) -> bool:
    return _KIND[card] == "gouvernement"


def is_roi(card: str) -> bool:
    return _KIND[card] == "roi"


def is_or(card: str) -> bool:
    return _KIND[card] == "or"


def ministry(card: str) -> str | None:
    """The ministry of a Gouvernement card, or of a Roi card moving one token."""
    return _MINISTRY[card]


def ministry_of(card: str) -> str:
    """The ministry of a Gouvernement card."""
    m = _MINISTRY[card]
    if m is None or _KIND[card] != "gouvernement":
        raise ValueError(f"{card} is not a Gouvernement card")
    return m


def letter_of(card: str) -> str:
    """The letter of a Gouvernement card."""
    if _KIND[card] != "gouvernement":
        raise ValueError(f"{card} is not a Gouvernement card")
    return card[-1]


def letter(card: str) -> str | None:
    return card[-1] if _KIND[card] == "gouvernement" else None


def value(card: str) -> int:
    """Gouvernement 1-4, Or 1-3, Roi -1 or +1."""
    return _VALUE[card]


def gold(cards: Iterable[str]) -> int:
    """The total value of the Or cards among ``cards``."""
    return sum(_VALUE[c] for c in cards if _KIND[c] == "or")


def label(card: str) -> str:
    """``"Armée 3·B"``, ``"Or 2"``, ``"Roi +1 Diplomatie"``, ``"Roi +1 Diplomatie, Armée"``."""
    k = kind(card)
    if k == "or":
        return f"Or {value(card)}"
    if k == "roi":
        effects = ROI_EFFECTS[card]
        sign = f"{effects[0][1]:+d}"
        return f"Roi {sign} " + ", ".join(MINISTRY_NAMES[m] for m, _ in effects)
    m = ministry_of(card)
    return f"{MINISTRY_NAMES[m]} {value(card)}·{letter(card)}"


def card_info(card: str) -> dict[str, Any]:
    """What the screen shows for a card."""
    k = kind(card)
    return {
        "kind": k,
        "ministry": ministry(card),
        "ministries": [m for m, _ in ROI_EFFECTS[card]]
        if k == "roi"
        else ([ministry(card)] if k == "gouvernement" else []),
        "value": value(card),
        "letter": letter(card),
        "label": label(card),
    }


def hand_order(card: str) -> tuple[int, int, str]:
    """Sort key: Gouvernement by ministry then letter, then Roi, then Or by value."""
    k = kind(card)
    if k == "gouvernement":
        return (0, MINISTRIES.index(ministry(card)), card[-1])
    if k == "roi":
        return (1, 0, card)
    return (2, value(card), card)
