"""The words and data of Edgar & Lucien: Manigance cards, certificates,
administration actions and the colours of the seats.

Card effects and conditions are written in our own words after the
rulebook's Compendium; the rules themselves live in ``rules.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeGuard

from .fosko import ARCHIVES, BANK, HALL, PIG

# -- seats ---------------------------------------------------------------------------

COLOURS = ("red", "yellow", "blue", "white")
COLOUR_NAMES = {"red": "Red", "yellow": "Yellow", "blue": "Blue", "white": "White"}


def colour(seat: int) -> str:
    return COLOURS[seat]


# -- Manigance cards -------------------------------------------------------------------

PLAN_B = "plan-b"
TRAFFICKING = "trafficking"
DISCREDIT = "discredit"
CERTIFICATION = "certification"
BACKER = "backer"
POPULAR = "popular"
EXTORTION = "extortion"
REMOTE = "remote"
COUP = "coup"


@dataclass(frozen=True)
class Card:
    id: str
    title: str
    french: str
    #: copies in the Compendium's 15-card deck
    copies: int
    #: copies in the 20-card deck (variant)
    copies_20: int
    effect: str
    condition: str
    #: the extra key a PlayCard command of this card carries, if any
    param: str | None = None


CARDS: tuple[Card, ...] = (
    Card(
        PLAN_B,
        "Plan B",
        "Plan B",
        2,
        3,
        "Your Lucien goes straight to any district you choose.",
        "None.",
        "district",
    ),
    Card(
        TRAFFICKING,
        "Influence Trafficking",
        "Trafic d'influence",
        2,
        2,
        "Take over another player's district for 30,000 Cogs paid to that player, who cannot refuse.",
        "Your Edgar stands on that district, and its owner does not hold the Heritage Protection.",
    ),
    Card(
        DISCREDIT,
        "Discredit Threat",
        "Menace de Discrédit",
        2,
        3,
        "Every other player either loses 20 popularity or gives you 10,000 Cogs, as they choose.",
        "None; a player who has only one of the two must pay with it.",
    ),
    Card(
        CERTIFICATION,
        "Certification",
        "Certification",
        1,
        2,
        "Take a certificate nobody holds, for a victory condition you meet.",
        "The certificate must be free: this card never takes one from another player.",
        "certificate",
    ),
    Card(
        BACKER,
        "Financial Backer",
        "Soutien Financier",
        2,
        2,
        "The Bank pays you 40,000 Cogs.",
        "Your Edgar stands on one of your Steel districts.",
    ),
    Card(
        POPULAR,
        "Popular Support",
        "Soutien Populaire",
        2,
        2,
        "You gain 40 popularity (never above 100).",
        "Your Edgar stands on one of your Ivory districts.",
    ),
    Card(
        EXTORTION,
        "Extortion",
        "Extorsion",
        1,
        2,
        "Take one Manigance card at random from another player's hand.",
        "Your Edgar shares his district with that player's Edgar or Lucien.",
        "target",
    ),
    Card(
        REMOTE,
        "Remote Action",
        "Action à distance",
        2,
        2,
        "Your Edgar performs one of his administration actions from wherever he stands.",
        "You have not performed that action yet this Electoral Period and can pay its 20 popularity.",
        "action",
    ),
    Card(
        COUP,
        "Coup d'État",
        "Coup d'État",
        1,
        2,
        "Take the Governor token; your left-hand neighbour takes the first player token. "
        "The turn order changes from the next turn.",
        "Your Edgar stands on City Hall and another player is Governor.",
    ),
)

CARD_IDS: tuple[str, ...] = tuple(c.id for c in CARDS)
_BY_ID = {c.id: c for c in CARDS}


def card(card_id: str) -> Card:
    return _BY_ID[card_id]


def is_card(card_id: object) -> TypeGuard[str]:
    return isinstance(card_id, str) and card_id in _BY_ID


def title(card_id: str) -> str:
    return _BY_ID[card_id].title


def deck(size: int) -> tuple[str, ...]:
    """The Manigance deck of 15 (the Compendium) or 20 cards, in card order."""
    if size == 20:
        return tuple(c.id for c in CARDS for _ in range(c.copies_20))
    return tuple(c.id for c in CARDS for _ in range(c.copies))


def hand_order(card_id: str) -> int:
    return CARD_IDS.index(card_id)


# -- victory conditions and certificates ---------------------------------------------------

DANDY, COLLECTOR, BUREAUCRAT, ZEALOT = "dandy", "collector", "bureaucrat", "zealot"
CERTIFICATES = (DANDY, COLLECTOR, BUREAUCRAT, ZEALOT)
CERTIFICATE_NAMES = {
    DANDY: "Wealthy Dandy",
    COLLECTOR: "High Tax Collector",
    BUREAUCRAT: "Influential Bureaucrat",
    ZEALOT: "Grand Zealot",
}
CERTIFICATE_FRENCH = {
    DANDY: "Dandy Fortuné",
    COLLECTOR: "Haut Percepteur",
    BUREAUCRAT: "Bureaucrate Influent",
    ZEALOT: "Grand Zélateur",
}

WEALTH = 150_000
MAX_POPULARITY = 100


def districts_needed(players: int) -> int:
    """High Tax Collector: 6 districts with 3 players, 7 otherwise."""
    return 6 if players == 3 else 7


def admin_needed(players: int) -> int:
    """Influential Bureaucrat: 2 Administration districts with 4 players, 3 otherwise."""
    return 2 if players == 4 else 3


def condition_text(certificate: str, players: int) -> str:
    return {
        DANDY: "Own at least 150,000 Cogs.",
        COLLECTOR: f"Control at least {districts_needed(players)} districts of any kind.",
        BUREAUCRAT: f"Control at least {admin_needed(players)} Administration districts.",
        ZEALOT: "Be the Governor with 100 popularity.",
    }[certificate]


# -- administration actions -------------------------------------------------------------------

EDGAR, LUCIEN = "edgar", "lucien"
PAWNS = (EDGAR, LUCIEN)
PAWN_NAMES = {EDGAR: "Edgar", LUCIEN: "Lucien"}


@dataclass(frozen=True)
class AdminAction:
    key: str
    pawn: str
    district: str
    name: str
    #: what it does, in a few words
    words: str


ADMIN_ACTIONS: tuple[AdminAction, ...] = (
    AdminAction("draw", EDGAR, PIG, "Counter Manigances", "draw 2 Manigance cards"),
    AdminAction("intimidate", EDGAR, ARCHIVES, "Intimidation", "two players each make one of their districts neutral"),
    AdminAction("heist", EDGAR, BANK, "Bank Robbery", "take 50,000 Cogs from the Bank"),
    AdminAction("requisition", EDGAR, HALL, "Requisition", "put an influence token on a neutral district for free"),
    AdminAction("speech", LUCIEN, PIG, "Populist Speech", "gain 50 popularity"),
    AdminAction("heritage", LUCIEN, ARCHIVES, "Heritage Protection", "take the Heritage Protection card"),
    AdminAction("certificate", LUCIEN, BANK, "Certificate Acquisition", "take a certificate for a condition you meet"),
    AdminAction("support", LUCIEN, HALL, "Political Support", "double your Edgar's administration action"),
)
_ADMIN = {a.key: a for a in ADMIN_ACTIONS}
EDGAR_ACTIONS: tuple[str, ...] = tuple(a.key for a in ADMIN_ACTIONS if a.pawn == EDGAR)
LUCIEN_ACTIONS: tuple[str, ...] = tuple(a.key for a in ADMIN_ACTIONS if a.pawn == LUCIEN)
#: the doubled version of each Edgar action (Political Support)
DOUBLED_WORDS = {
    "draw": "draw 4 Manigance cards",
    "intimidate": "Intimidation twice",
    "heist": "take 100,000 Cogs from the Bank",
    "requisition": "requisition 2 districts",
}

EDGAR_ADMIN_COST = 20
SUPPORT_COST = 30


def admin(key: str) -> AdminAction:
    return _ADMIN[key]


def admin_district(key: str) -> str:
    return _ADMIN[key].district


def admin_name(key: str) -> str:
    return _ADMIN[key].name
