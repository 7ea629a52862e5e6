"""The cards of 1988: Chirac contre Mitterrand, as data.

The rulebook names the components but prints none of them: the 24 Event
cards, the 9 Electoral Campaign cards and the length of the Public Opinion
rows are Cabinet's design (docs/rules/chirac-mitterrand.md lists them all).

Event cards are ``"ev:01"``..``"ev:24"``, in the order of their dates, March
1986 to May 1988.  Each carries two political actions; an action has a colour
(``"white"`` neutral, ``"blue"`` Chirac's own, ``"pink"`` Mitterrand's own)
and one or more icons: a quality, or ``"choice"``, a quality the player picks
when the action is played.

Campaign cards come in two sets of nine (the variant ``campaign``): the
first set is ``"cp:01"``..``"cp:09"``, the one every game saved before the
second set played; the second set keeps three of them and replaces six with
``"cp:10"``..``"cp:15"`` (Génération Mitterrand, Barre, La France unie, Le Pen,
the debate and the polls, redesigned so that each is a real choice).  ``CampaignCard.effect`` names what each does,
``rules.campaign_steps`` carries it out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

QUALITIES: tuple[str, ...] = ("charisma", "courage", "integrity")
QUALITY_NAMES = {"charisma": "Charisma", "courage": "Courage", "integrity": "Integrity"}
#: the icon of an action that lets its player pick the quality
CHOICE = "choice"

#: squares from the centre of a Public Opinion row to either end
ROW_LENGTH = 4
#: the same in a solo game against the hard automaton (variant ``solo=hard``)
HARD_SOLO_ROW_LENGTH = 6

CANDIDATES: tuple[str, ...] = ("chirac", "mitterrand")
CANDIDATE_NAMES = {"chirac": "Jacques Chirac", "mitterrand": "François Mitterrand"}
CANDIDATE_SHORT = {"chirac": "Chirac", "mitterrand": "Mitterrand"}
#: the colour of each candidate's own actions
OWN_COLOUR = {"chirac": "blue", "mitterrand": "pink"}
COLOUR_NAMES = {"white": "neutral", "blue": "Chirac's own", "pink": "Mitterrand's own"}


@dataclass(frozen=True)
class Action:
    colour: str
    icons: tuple[str, ...]
    text: str


@dataclass(frozen=True)
class EventCard:
    id: str
    name: str
    date: str
    actions: tuple[Action, Action]
    #: one line of history, for the rules page
    about: str


def _a(colour: str, text: str, *icons: str) -> Action:
    return Action(colour, tuple(icons), text)


W, B, P = "white", "blue", "pink"
CHA, COU, INT, ANY = "charisma", "courage", "integrity", CHOICE

_EVENT_ROWS: tuple[tuple[str, str, Action, Action, str], ...] = (
    (
        "Législatives du 16 mars",
        "March 1986",
        _a(W, "The right wins the Assembly", CHA),
        _a(B, "Chirac back at Matignon", CHA, COU, COU),
        "The RPR-UDF alliance wins the legislative elections; Mitterrand appoints Chirac Prime Minister.",
    ),
    (
        "Dévaluation du franc",
        "April 1986",
        _a(W, "The franc loses 3%", COU),
        _a(B, "Balladur's recovery plan", COU, INT),
        "Within weeks of taking office the new government has the franc devalued inside the EMS.",
    ),
    (
        "Rétablir la peine de mort ?",
        "April 1986",
        _a(W, "The old debate returns", COU),
        _a(P, "Abolition is not negotiable", INT, INT),
        "Right-wing and far-right deputies table bills to bring back the death penalty abolished in 1981.",
    ),
    (
        "Sommet du G7 à Tokyo",
        "May 1986",
        _a(W, "Two Frenchmen at one summit", CHA),
        _a(P, "The President speaks for France", CHA, CHA),
        "For the first time a President and a Prime Minister of opposite camps go together to a summit of the Seven.",
    ),
    (
        "Le refus des ordonnances",
        "July 1986",
        _a(B, "Govern fast, by ordinance", COU, COU),
        _a(P, "The President will not sign", COU, INT),
        "On 14 July Mitterrand refuses on television to sign the privatisation ordinance; it goes to Parliament.",
    ),
    (
        "Mitterrand à Moscou",
        "July 1986",
        _a(W, "Détente with Gorbachev", ANY),
        _a(P, "The statesman at the Kremlin", CHA, INT),
        "State visit to the Soviet Union, where the President praises the new understanding with Moscow.",
    ),
    (
        "Suppression de l'impôt sur les grandes fortunes",
        "July 1986",
        _a(W, "The wealth tax is gone", COU),
        _a(P, "Stand for fair taxes", INT, CHA),
        "The corrective budget abolishes the wealth tax created in 1982, from the start of 1987.",
    ),
    (
        "Attentats de Paris",
        "September 1986",
        _a(W, "The nation stands firm", COU),
        _a(W, "Visas for every visitor", ANY),
        "A wave of bombings ends at rue de Rennes on 17 September; visas are imposed on most foreign visitors.",
    ),
    (
        "Le charter des 101 Maliens",
        "October 1986",
        _a(B, "Firmness at the borders", COU, COU),
        _a(P, "The rights of man", INT, CHA),
        "Under the new Pasqua law, 101 Malians are expelled together on one chartered flight.",
    ),
    (
        "Affaire du Carrefour du développement",
        "November 1986",
        _a(W, "Socialist funds gone astray", INT),
        _a(W, "The 'vrai-faux passeport'", INT),
        (
            "Yves Chalier, aide to the former minister Nucci, gives himself up and says a police chief "
            "supplied his false papers."
        ),
    ),
    (
        "Assassinat de Georges Besse",
        "November 1986",
        _a(W, "A nation pays its respects", CHA),
        _a(W, "No surrender to terror", COU),
        "Action directe shoots the head of Renault outside his home in Paris.",
    ),
    (
        "Ratification de l'Acte unique",
        "November 1986",
        _a(W, "The single market of 1992", ANY),
        _a(P, "Mitterrand's Europe", CHA, INT),
        "The Assembly approves the Single European Act by a large majority: the single market is set for 1992.",
    ),
    (
        "Les étudiants contre la loi Devaquet",
        "November 1986",
        _a(B, "Withdraw the bill, restore calm", INT, COU),
        _a(P, "On the students' side", CHA, CHA),
        "Hundreds of thousands of students march against the university bill; the government withdraws it in December.",
    ),
    (
        "Mort de Malik Oussekine",
        "December 1986",
        _a(W, "A nation in mourning", INT),
        _a(P, "The President visits the family", INT, CHA),
        "A student dies under police batons after a demonstration; the minister Devaquet resigns.",
    ),
    (
        "Privatisation de Saint-Gobain",
        "December 1986",
        _a(W, "A million and a half shareholders", CHA),
        _a(B, "Popular capitalism", CHA, COU),
        "The first of the privatisations is a popular success on the stock market.",
    ),
    (
        "Affaire Luchaire",
        "January 1987",
        _a(W, "Shells for Iran", INT),
        _a(W, "The Barba report in the press", ANY),
        "A defence report published by L'Express says shells were sold to Iran under the previous government.",
    ),
    (
        "Arrestation d'Action directe",
        "February 1987",
        _a(W, "Arrests at Vitry-aux-Loges", COU),
        _a(B, "The police strike home", COU, COU, INT),
        "The four leaders of Action directe are arrested in a farmhouse in the Loiret.",
    ),
    (
        "Privatisation de TF1",
        "April 1987",
        _a(B, "Sell the first channel", COU, CHA),
        _a(P, "Defend public television", INT, CHA),
        "The regulator hands TF1 to the group led by Francis Bouygues.",
    ),
    (
        "Affaire Gordji",
        "July 1987",
        _a(B, "Break with Tehran", COU, COU),
        _a(P, "The guardian of the State", INT, COU),
        "The 'war of the embassies': France breaks off relations with Iran over the interpreter Wahid Gordji.",
    ),
    (
        "Référendum en Nouvelle-Calédonie",
        "September 1987",
        _a(B, "New Caledonia stays French", CHA, COU),
        _a(P, "A vote without the Kanaks", INT, INT),
        "A large majority votes to stay in France; the FLNKS boycotts the referendum.",
    ),
    (
        "Krach d'octobre",
        "October 1987",
        _a(W, "Black Monday in Paris", COU),
        _a(W, "Small shareholders worry", INT),
        "The October stock market crash hits the newly privatised shares.",
    ),
    (
        "Retour du commandant Mafart",
        "December 1987",
        _a(W, "Flown home from Hao", COU),
        _a(W, "New Zealand protests", INT),
        "One of the two Rainbow Warrior agents is flown back to France, outside the agreement with New Zealand.",
    ),
    (
        "La grotte d'Ouvéa",
        "May 1988",
        _a(W, "The hostages are freed", COU),
        _a(B, "Chirac orders the assault", COU, COU, COU),
        "Gendarmes held in a cave on Ouvéa since 22 April are freed by an assault in which 19 Kanaks die.",
    ),
    (
        "Libération des otages du Liban",
        "May 1988",
        _a(W, "Home at last", CHA),
        _a(B, "Welcome at Villacoublay", CHA, CHA, CHA),
        "Kauffmann, Carton and Fontaine are freed on 4 May, four days before the second round.",
    ),
)

EVENTS: tuple[EventCard, ...] = tuple(
    EventCard(f"ev:{i:02d}", name, date, (a0, a1), about)
    for i, (name, date, a0, a1, about) in enumerate(_EVENT_ROWS, start=1)
)
EVENT_IDS: tuple[str, ...] = tuple(e.id for e in EVENTS)
EVENT_SET = frozenset(EVENT_IDS)
_EVENT_BY_ID = {e.id: e for e in EVENTS}


def event(card_id: str) -> EventCard:
    return _EVENT_BY_ID[card_id]


def actions(card_id: str) -> tuple[Action, Action]:
    return _EVENT_BY_ID[card_id].actions


def kind(card_id: str) -> str:
    """The card's kind for the solo setup: ``"NN"`` (two neutral actions),
    ``"NC"`` (neutral and Chirac's), ``"NM"`` (neutral and Mitterrand's) or
    ``"CM"`` (Chirac's and Mitterrand's)."""
    letters = {"white": "N", "blue": "C", "pink": "M"}
    pair = sorted((letters[a.colour] for a in actions(card_id)), key="NCM".index)
    return "".join(pair)


def may_use(candidate: str, action: Action) -> bool:
    """Neutral actions are for both candidates; a coloured one only for its owner."""
    return action.colour == "white" or action.colour == OWN_COLOUR[candidate]


def event_info(card_id: str) -> dict[str, Any]:
    """What the screen shows for an Event card."""
    e = _EVENT_BY_ID[card_id]
    return {
        "id": e.id,
        "name": e.name,
        "date": e.date,
        "actions": [{"colour": a.colour, "icons": list(a.icons), "text": a.text} for a in e.actions],
        "about": e.about,
    }


def event_label(card_id: str) -> str:
    """``"Affaire Gordji (July 1987)"``."""
    e = _EVENT_BY_ID[card_id]
    return f"{e.name} ({e.date})"


def action_label(card_id: str, index: int) -> str:
    """``"Break with Tehran [Chirac's own: courage, courage]"``."""
    a = actions(card_id)[index]
    return f"{a.text} [{COLOUR_NAMES[a.colour]}: {', '.join(a.icons)}]"


# -- Electoral Campaign cards ------------------------------------------------------


@dataclass(frozen=True)
class CampaignCard:
    id: str
    name: str
    date: str
    text: str
    #: the rule key carried out by rules.campaign_moves
    effect: str
    #: does the player choose a quality when applying it?
    choice: bool = False
    #: does it go back into the campaign pile after being applied?
    returns: bool = False
    #: one line of history, for the rules page
    about: str = ""


_CAMPAIGN_ROWS: tuple[tuple[str, str, str, str, bool, bool, str], ...] = (
    (
        "Génération Mitterrand",
        "January 1988",
        "Take the Media token. If you already hold it, move the Charisma token one step towards your end instead.",
        "media",
        False,
        False,
        "The Socialist party's 'Génération Mitterrand' posters go up before the President has even said he will run.",
    ),
    (
        "Candidature de Raymond Barre",
        "February 1988",
        (
            "A third man draws the fire: put the last Power Erosion card placed in front of you on the discard pile. "
            "If you have none, move the Courage token one step towards your end instead."
        ),
        "relief",
        False,
        False,
        "Raymond Barre declares in Lyon on 8 February: the right now has two candidates.",
    ),
    (
        "Fête du RPR à Vincennes",
        "March 1988",
        "Move the Charisma token two steps towards your end.",
        "charisma2",
        False,
        False,
        "On 20 March tens of thousands of RPR supporters and Johnny Hallyday cheer Chirac at the Vincennes racecourse.",
    ),
    (
        "La France unie",
        "March 1988",
        "Every token on your opponent's side of the centre moves one step back towards the centre.",
        "unite",
        False,
        False,
        "On 22 March Mitterrand says yes on the evening news: he runs again, for a France united.",
    ),
    (
        "Lettre à tous les Français",
        "April 1988",
        "Move the Integrity token one step towards your end, then the token of a quality of your choice one step.",
        "letter",
        True,
        False,
        "On 7 April the candidate's long letter to the French appears in the national and regional press.",
    ),
    (
        "Premier tour",
        "April 1988",
        "Move the Courage token and the Charisma token one step each towards your end.",
        "first_round",
        False,
        False,
        (
            "24 April: Mitterrand 34.1%, Chirac 19.9%, Barre 16.5%; President and Prime Minister go through "
            "to the second round."
        ),
    ),
    (
        "Le Pen à 14 %",
        "April 1988",
        "Put a card drawn at random from the discard pile in front of your opponent as Power Erosion.",
        "erosion",
        False,
        False,
        "24 April: Jean-Marie Le Pen gathers over 14% of the vote, and his voters weigh on the second round.",
    ),
    (
        "Débat d'entre deux tours",
        "April 1988",
        "Move the token of a quality of your choice two steps towards your end, then take the Media token.",
        "debate",
        True,
        False,
        (
            "28 April: 'two candidates on an equal footing', says Chirac; 'you are quite right, Prime Minister', "
            "answers Mitterrand."
        ),
    ),
    (
        "Les sondages",
        "1988",
        (
            "Move the token of a quality of your choice one step towards your end. "
            "Then shuffle this card back into the Campaign pile instead of removing it from the game."
        ),
        "poll",
        True,
        True,
        "Every week a new poll; they all give Mitterrand the winner of the second round.",
    ),
)

#: the cards of the second set that replace a card of the first, with the id they replace
_REVISED_ROWS: tuple[tuple[str, str, str, str, str, bool, bool, str], ...] = (
    (
        "cp:01",
        "Génération Mitterrand",
        "January 1988",
        ("Take the Media token. If you already hold it, move the Charisma token two steps towards your end instead."),
        "media2",
        False,
        False,
        "The Socialist party's 'Génération Mitterrand' posters go up before the President has even said he will run.",
    ),
    (
        "cp:02",
        "Candidature de Raymond Barre",
        "February 1988",
        (
            "A third man draws the fire: put the last Power Erosion card placed in front of you on the discard "
            "pile (if you have one), then move the token of a quality of your choice one step towards your end."
        ),
        "relief_step",
        True,
        False,
        "Raymond Barre declares in Lyon on 8 February: the right now has two candidates.",
    ),
    (
        "cp:04",
        "La France unie",
        "March 1988",
        ("Every token on your opponent's side of the centre moves two steps back towards the centre, stopping on it."),
        "unite2",
        False,
        False,
        "On 22 March Mitterrand says yes on the evening news: he runs again, for a France united.",
    ),
    (
        "cp:07",
        "Le Pen à 14 %",
        "April 1988",
        (
            "His voters punish the favourite: put a card drawn at random from the discard pile in front of your "
            "opponent as Power Erosion, and a second one if he is ahead in more qualities than you."
        ),
        "lepen",
        False,
        False,
        "24 April: Jean-Marie Le Pen gathers over 14% of the vote, and his voters weigh on the second round.",
    ),
    (
        "cp:08",
        "Débat d'entre deux tours",
        "April 1988",
        (
            "Move the token of a quality of your choice two steps towards your end. Then the Media token goes to "
            "the candidate ahead in fewer qualities; if you are level, you take it."
        ),
        "debate_even",
        True,
        False,
        (
            "28 April: 'two candidates on an equal footing', says Chirac; 'you are quite right, Prime Minister', "
            "answers Mitterrand."
        ),
    ),
    (
        "cp:09",
        "Les sondages",
        "1988",
        (
            "Every token on the centre square or one step from it moves one step towards your end; if none "
            "does, move the token of a quality of your choice one step. Then shuffle this card back into the "
            "Campaign pile instead of removing it from the game."
        ),
        "poll_centre",
        True,
        True,
        "Every week a new poll; they all give Mitterrand the winner of the second round.",
    ),
)

#: the first set, cp:01..cp:09: the cards of every game saved before the second set (variant ``campaign=first``)
FIRST_CARDS: tuple[CampaignCard, ...] = tuple(
    CampaignCard(f"cp:{i:02d}", name, date, text, effect, choice, returns, about)
    for i, (name, date, text, effect, choice, returns, about) in enumerate(_CAMPAIGN_ROWS, start=1)
)
#: the replacements, cp:10 onwards, in the order of the cards they replace
REVISED_CARDS: tuple[CampaignCard, ...] = tuple(
    CampaignCard(f"cp:{i:02d}", name, date, text, effect, choice, returns, about)
    for i, (_, name, date, text, effect, choice, returns, about) in enumerate(_REVISED_ROWS, start=10)
)
_REPLACES = {c.id: row[0] for c, row in zip(REVISED_CARDS, _REVISED_ROWS, strict=True)}
_REPLACED_BY = {old: new for new, old in _REPLACES.items()}

#: each set of nine, in the order of their dates (the variant ``campaign``)
CAMPAIGN_SETS: dict[str, tuple[str, ...]] = {
    "second": tuple(_REPLACED_BY.get(c.id, c.id) for c in FIRST_CARDS),
    "first": tuple(c.id for c in FIRST_CARDS),
}
#: the set new games use, and the one a game whose header names none used
DEFAULT_SET = "second"
OLD_SET = "first"
#: every Campaign card of either set (command shapes, names in the history)
ALL_CAMPAIGN_IDS: tuple[str, ...] = tuple(c.id for c in FIRST_CARDS + REVISED_CARDS)
_CAMPAIGN_BY_ID = {c.id: c for c in FIRST_CARDS + REVISED_CARDS}
#: the nine cards of the default set
CAMPAIGN_IDS: tuple[str, ...] = CAMPAIGN_SETS[DEFAULT_SET]
CAMPAIGNS: tuple[CampaignCard, ...] = tuple(_CAMPAIGN_BY_ID[c] for c in CAMPAIGN_IDS)
CAMPAIGN_SET = frozenset(CAMPAIGN_IDS)
#: the debate card of each set, which the solo mode removes from the game
DEBATES = frozenset(c.id for c in FIRST_CARDS + REVISED_CARDS if c.effect in ("debate", "debate_even"))
DEBATE = next(c for c in CAMPAIGN_IDS if c in DEBATES)


def campaign_set(name: str) -> tuple[str, ...]:
    return CAMPAIGN_SETS[name]


def set_of(cards: list[str] | tuple[str, ...]) -> str:
    """The name of the set these nine cards make."""
    for name, ids in CAMPAIGN_SETS.items():
        if sorted(ids) == sorted(cards):
            return name
    raise ValueError("these Campaign cards are not one of the sets")


def debate_of(cards: tuple[str, ...] | list[str]) -> str:
    """The debate card among a set of nine."""
    return next(c for c in cards if c in DEBATES)


def campaign(card_id: str) -> CampaignCard:
    return _CAMPAIGN_BY_ID[card_id]


def campaign_info(card_id: str | None) -> dict[str, Any]:
    """What the screen shows for a Campaign card."""
    if card_id is None:
        return {"id": None, "name": "nothing", "date": "", "text": ""}
    c = _CAMPAIGN_BY_ID[card_id]
    return {
        "id": c.id,
        "name": c.name,
        "date": c.date,
        "text": c.text,
        "choice": c.choice,
        "returns": c.returns,
        "about": c.about,
    }


def campaign_label(card_id: str) -> str:
    c = _CAMPAIGN_BY_ID[card_id]
    return f"{c.name} ({c.date})"
