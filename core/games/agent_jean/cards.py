"""The cards of L'Agent Jean!, as data.

Action cards are strings: a colour letter and a value, ``"P1"``..``"P10"``
(purple matter), ``"B1"``..``"B18"`` (blue gadgets), ``"G1"``..``"G16"``
(green allies), ``"Y1"``..``"Y16"`` (yellow unstable objects).  The rulebook
gives the colour counts but not the values; each colour is numbered from 1
to its count, which fits the rulebook's example (an 8 and an 11 green, a 12
yellow).

Plan cards are ``"plan:01"``..``"plan:20"``; Power cards ``"power:<agent>"``.
Five of the plans are accomplices: while one is the visible top of the pile,
its special rule holds for that turn (see ``rules.trick_winner`` and
``rules.play_order``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

COLOUR_NAMES = {"P": "purple", "B": "blue", "G": "green", "Y": "yellow"}
COLOUR_COUNTS = {"P": 10, "B": 18, "G": 16, "Y": 16}
#: the order a hand is sorted in
COLOUR_ORDER = "PBGY"

ACTION_CARDS: tuple[str, ...] = tuple(
    f"{letter}{v}" for letter in COLOUR_ORDER for v in range(1, COLOUR_COUNTS[letter] + 1)
)
ACTION_SET = frozenset(ACTION_CARDS)


def colour(card: str) -> str:
    """``"purple"``, ``"blue"``, ``"green"`` or ``"yellow"``."""
    return COLOUR_NAMES[card[0]]


def value(card: str) -> int:
    """The printed value of an Action card."""
    return int(card[1:])


def card_label(card: str) -> str:
    """How an Action card is written for players: ``"G8"``."""
    return card


def hand_order(card: str) -> tuple[int, int]:
    """Sort key: purple, blue, green, yellow, then by value."""
    return (COLOUR_ORDER.index(card[0]), int(card[1:]))


# -- agents and their Power cards ----------------------------------------------

AGENTS: tuple[str, ...] = ("jean", "bulle", "wxt", "henry", "martha")

AGENT_NAMES = {
    "jean": "Jean",
    "bulle": "Bulle",
    "wxt": "WXT",
    "henry": "Henry B. Belton",
    "martha": "Martha",
}

POWER_TEXT = {
    "jean": "Jean plays last this turn, whoever leads.",
    "bulle": "Bulle adds 99 to the value of the card she plays this turn.",
    "wxt": (
        "Once everyone has played, and before the winner is found, WXT takes 99 off "
        "the value of one card played by another player."
    ),
    "henry": "Henry B. Belton decides who leads this turn; he may pick himself.",
    "martha": "If Martha wins this turn, she may also take the next plan card of the pile.",
}


def power_card(agent: str) -> str:
    return f"power:{agent}"


def is_power(card_id: str) -> bool:
    return card_id.startswith("power:")


def power_agent(card_id: str) -> str:
    return card_id.split(":", 1)[1]


def power_info(agent: str) -> dict[str, Any]:
    """What the screen shows for an agent's Power card."""
    return {
        "agent": agent,
        "card": power_card(agent),
        "name": AGENT_NAMES[agent],
        "value": 0,
        "text": POWER_TEXT[agent],
    }


# -- Machiavellian Plan cards ----------------------------------------------------


@dataclass(frozen=True)
class Plan:
    id: str
    name: str
    value: int
    text: str
    #: the accomplice's rule key, or None for a plain plan
    accomplice: str | None = None


ACCOMPLICE_TEXT = {
    "farine": "This turn, blue beats everything: if any blue card is played, the highest blue wins.",
    "grumeau": (
        "This turn, purple matter is inert: purple only wins if purple is the first colour "
        "played, like any other colour."
    ),
    "levure": (
        "This turn, colour does not matter: the highest card wins whatever its colour "
        "(purple still beats the rest; on equal values the card played first wins)."
    ),
    "miette": (
        "This turn, the lowest card wins: the lowest purple if any purple is played, "
        "otherwise the lowest card of the first colour."
    ),
    "brioche": "This turn, play goes the other way round: counter-clockwise from the leader.",
}

#: the one-line reminder shown while the accomplice is in force
ACCOMPLICE_EFFECT = {
    "farine": "Farine: blue cards beat all the others this turn.",
    "grumeau": "Grumeau: purple is an ordinary colour this turn.",
    "levure": "Levure: the highest card wins whatever its colour (purple still first).",
    "miette": "Miette: the lowest card wins this turn.",
    "brioche": "Brioche: play goes counter-clockwise this turn.",
}

_PLAN_ROWS: tuple[tuple[str, int, str, str | None], ...] = (
    ("Les Lacets Noués", 1, "The Beaver ties together every shoelace in Paris.", None),
    ("Brioche", 1, ACCOMPLICE_TEXT["brioche"], "brioche"),
    ("Le Vol de Chaussettes", 2, "Every left sock in the country disappears overnight.", None),
    ("La Sieste Interdite", 2, "A decree bans naps. Nobody is amused.", None),
    ("Le Grand Embouteillage", 2, "The Beaver parks a log across every roundabout.", None),
    ("Miette", 2, ACCOMPLICE_TEXT["miette"], "miette"),
    ("Le Casse", 3, "The Beaver empties the vault of the Banque de France.", None),
    ("La Pluie de Colle", 3, "It rains glue over the capital.", None),
    ("Le Faux Ministre", 3, "A beaver in a wig takes a seat in the cabinet.", None),
    ("Levure", 3, ACCOMPLICE_TEXT["levure"], "levure"),
    ("Le Barrage sur la Seine", 4, "The river stops at the Pont Neuf.", None),
    ("La Tour Eiffel Rongée", 4, "Someone has been gnawing at the Eiffel Tower.", None),
    ("Le Rayon Rétrécisseur", 4, "The Agency's headquarters now fit in a shoebox.", None),
    ("Grumeau", 4, ACCOMPLICE_TEXT["grumeau"], "grumeau"),
    ("L'Hypnose Générale", 5, "The whole country hums the Beaver's anthem.", None),
    ("Le Robot Castor", 5, "A giant mechanical beaver walks down the Champs-Élysées.", None),
    ("La Panne Géante", 5, "Every light in Europe goes out at once.", None),
    ("Farine", 5, ACCOMPLICE_TEXT["farine"], "farine"),
    ("Le Hold-up de la Lune", 6, "The Beaver tows the Moon away.", None),
    ("La Forêt Engloutie", 6, "A forest vanishes under a lake of the Beaver's making.", None),
)

PLANS: tuple[Plan, ...] = tuple(
    Plan(f"plan:{i:02d}", name, val, text, acc) for i, (name, val, text, acc) in enumerate(_PLAN_ROWS, start=1)
)
PLAN_IDS: tuple[str, ...] = tuple(p.id for p in PLANS)
_PLAN_BY_ID = {p.id: p for p in PLANS}


def plan(card_id: str) -> Plan:
    return _PLAN_BY_ID[card_id]


def plan_value(card_id: str) -> int:
    """Points of a card in a won pile: the plan's value, 0 for a Power card."""
    p = _PLAN_BY_ID.get(card_id)
    return p.value if p else 0


def accomplice(card_id: str | None) -> str | None:
    """The accomplice rule key of a plan card, None for anything else."""
    p = _PLAN_BY_ID.get(card_id) if card_id else None
    return p.accomplice if p else None


def plan_info(card_id: str) -> dict[str, Any]:
    """What the screen shows for a card of the plan pile (a plan or a Power card)."""
    if is_power(card_id):
        agent = power_agent(card_id)
        return {
            "name": f"Power: {AGENT_NAMES[agent]}",
            "value": 0,
            "text": POWER_TEXT[agent],
            "accomplice": False,
            "power": agent,
        }
    p = plan(card_id)
    return {"name": p.name, "value": p.value, "text": p.text, "accomplice": p.accomplice is not None, "power": None}


def plan_label(card_id: str) -> str:
    """``"Le Casse (3)"``, or ``"Martha's Power card"``."""
    if is_power(card_id):
        return f"{AGENT_NAMES[power_agent(card_id)]}'s Power card"
    p = plan(card_id)
    return f"{p.name} ({p.value})"
