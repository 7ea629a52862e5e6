"""1988: Chirac contre Mitterrand: one test per rule and per documented decision.

Positions are built by playing commands through a Match, with piles and
campaign draws stacked through the header's ``arranged`` key.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from core.bots import make_bot
from core.bots.random_bot import RandomBot
from core.engine import ALL, PUBLIC, ConfigError, IllegalCommand, Match, Outcome, make_header
from core.games import get_game
from core.games.chirac_mitterrand import GAME
from core.games.chirac_mitterrand import cards as C
from core.games.chirac_mitterrand.bot import HeuristicBot
from core.games.chirac_mitterrand.rules import CHIRAC, MITTERRAND, ahead, election_winner, push
from table import Table

DOC = Path(__file__).resolve().parent.parent / "docs" / "rules" / "chirac-mitterrand.md"

# -- building positions ------------------------------------------------------------------


def arranged(chirac=(), mitterrand=(), discard=None, campaign=()) -> dict:
    """Both piles top first, each topped up to ten with cards nobody named."""
    named = [*chirac, *mitterrand, *(discard or [])]
    rest = [c for c in C.EVENT_IDS if c not in named]
    if discard is None:
        discard, rest = rest[:4], rest[4:]
    ch, mi = list(chirac), list(mitterrand)
    while len(ch) < 10:
        ch.append(rest.pop(0))
    while len(mi) < 10:
        mi.append(rest.pop(0))
    return {"chirac": ch, "mitterrand": mi, "discard": list(discard), "campaign": [list(d) for d in campaign]}


def new_match(stack: dict | None = None, seed: int = 1, seats: list[dict] | None = None, cards: str = "first") -> Match:
    """A two-player match; ``cards`` is the set of Electoral Campaign cards (the
    scripted tests below were written for the first set, which old saves play)."""
    config = GAME.make_config(2, seats or [{"name": "Jacques"}, {"name": "François"}], {"campaign": cards})
    return Match.new(GAME, make_header(GAME, config, seed, arranged=stack))


def play(match: Match, card: str, action: int, under: list[str], choices: list[str] | None = None) -> list[dict]:
    (seat,) = match.active()
    command = {"t": "PlayCard", "card": card, "action": action, "under": under}
    if choices:
        command["choices"] = choices
    return match.submit(seat, command)


def campaign(match: Match, apply: str, remove: str | None, quality: str | None = None) -> list[dict]:
    (seat,) = match.active()
    command = {"t": "Campaign", "apply": apply, "remove": remove}
    if quality:
        command["quality"] = quality
    return match.submit(seat, command)


def of(events: list[dict], t: str) -> list[dict]:
    return [e for e in events if e["t"] == t]


def view(match: Match, seat=ALL) -> dict:
    return GAME.view(match.state, seat)


def eroded(match: Match) -> dict:
    return {side: len(cards) for side, cards in view(match)["erosion"].items()}


# The scripted two-player game: Chirac plays his own actions turn after turn.
CH = ["ev:01", "ev:08", "ev:10", "ev:02", "ev:11", "ev:16", "ev:05", "ev:21", "ev:22", "ev:09"]
MI = ["ev:03", "ev:04", "ev:13", "ev:06", "ev:07", "ev:19", "ev:12", "ev:14", "ev:18", "ev:20"]
DI = ["ev:15", "ev:17", "ev:23", "ev:24"]


def scripted(draws=(("cp:07", "cp:03", "cp:06"), ("cp:08", "cp:01", "cp:05")), seed: int = 11) -> Match:
    return new_match({"chirac": CH, "mitterrand": MI, "discard": DI, "campaign": [list(d) for d in draws]}, seed)


def to_first_campaign(first_draw: tuple[str, str, str]) -> Match:
    """Turns 1-3 of the scripted game: Chirac's second Power Erosion gives Mitterrand a draw."""
    m = scripted(draws=(first_draw,))
    play(m, "ev:01", 1, ["ev:08", "ev:10"])
    play(m, "ev:04", 0, ["ev:03", "ev:13"])
    play(m, "ev:02", 1, ["ev:11", "ev:16"])
    assert view(m)["phase"] == "campaign" and view(m)["campaign"]["drawer"] == "mitterrand"
    assert view(m)["rows"] == {"charisma": 0, "courage": 3, "integrity": 1}
    return m


def to_chirac_campaign(draws) -> Match:
    """Chirac: an own action, then a neutral one; Mitterrand: two own actions, so Chirac draws after turn 4."""
    stack = arranged(
        chirac=["ev:15", "ev:08", "ev:10", "ev:21", "ev:22", "ev:24"],
        mitterrand=["ev:04", "ev:11", "ev:16", "ev:03", "ev:06", "ev:07"],
        discard=["ev:02", "ev:05", "ev:09", "ev:13"],
        campaign=draws,
    )
    m = new_match(stack)
    play(m, "ev:15", 1, ["ev:08", "ev:10"])  # charisma +1, courage +1; Chirac's 1st erosion
    play(m, "ev:04", 1, ["ev:11", "ev:16"])  # charisma -2; Mitterrand's 1st erosion
    play(m, "ev:21", 0, ["ev:22", "ev:24"])  # courage +1
    play(m, "ev:03", 1, ["ev:06", "ev:07"])  # integrity -2; Mitterrand's 2nd erosion
    assert view(m)["phase"] == "campaign" and view(m)["campaign"]["drawer"] == "chirac"
    assert view(m)["rows"] == {"charisma": -1, "courage": 2, "integrity": -2}
    assert eroded(m) == {"chirac": 1, "mitterrand": 2}
    return m


# -- registry, table, components -------------------------------------------------------------


def test_registered_with_its_options() -> None:
    game = get_game("chirac-mitterrand")
    assert game is GAME
    assert (game.title, game.min_players, game.max_players) == ("1988: Chirac contre Mitterrand", 1, 2)
    (option,) = game.seat_options
    assert (option.key, option.label, option.choices, option.unique) == (
        "candidate",
        "Candidate",
        ("chirac", "mitterrand"),
        True,
    )
    assert option.labels == ("Jacques Chirac", "François Mitterrand")
    cards, solo = game.variants
    assert (cards.key, cards.choices, cards.default) == ("campaign", ("second", "first"), "second")
    assert (solo.key, solo.choices, solo.default, solo.listed) == ("solo", ("standard", "hard"), "standard", True)
    assert GAME.make_config(2)["variants"] == {"campaign": "second", "solo": "standard"}
    assert game.bot_levels == ("random", "easy", "normal", "hard")
    assert isinstance(make_bot(game, "easy", 1), HeuristicBot)
    assert isinstance(make_bot(game, "random", 1), RandomBot)
    with pytest.raises(ConfigError):
        make_bot(game, "genius", 1)


def test_seats_choose_their_candidates() -> None:
    assert [s["candidate"] for s in GAME.make_config(2)["seats"]] == ["chirac", "mitterrand"]
    assert [s["candidate"] for s in GAME.make_config(2, [{"candidate": "mitterrand"}])["seats"]] == [
        "mitterrand",
        "chirac",
    ]
    assert GAME.make_config(1)["seats"][0]["candidate"] == "chirac"
    with pytest.raises(ConfigError):
        GAME.make_config(2, [{"candidate": "chirac"}, {"candidate": "chirac"}])
    with pytest.raises(ConfigError):
        GAME.make_config(3)


MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]


def test_the_cards_as_designed() -> None:
    assert len(C.EVENT_IDS) == 24 and C.EVENT_IDS[0] == "ev:01" and C.EVENT_IDS[-1] == "ev:24"
    kinds = [C.kind(c) for c in C.EVENT_IDS]
    assert {k: kinds.count(k) for k in set(kinds)} == {"NN": 6, "NC": 6, "NM": 6, "CM": 6}
    previous = (1986, 3)
    for e in C.EVENTS:
        month, year = e.date.split()
        when = (int(year), MONTHS.index(month) + 1)
        assert (1986, 3) <= when <= (1988, 5), e.name
        assert when >= previous, "cards are numbered in the order of their dates"
        previous = when
        assert len(e.actions) == 2 and e.about
        for a in e.actions:
            assert a.colour in ("white", "blue", "pink") and a.icons and a.text
            assert all(i in C.QUALITIES or i == C.CHOICE for i in a.icons)
            # an own action is worth more than a neutral one: it costs a Power Erosion
            assert len(a.icons) == 1 if a.colour == "white" else len(a.icons) >= 2
    assert sum(1 for e in C.EVENTS for a in e.actions if a.colour == "blue" and len(a.icons) == 3) == 4
    assert any(C.CHOICE in a.icons for e in C.EVENTS for a in e.actions)
    assert len(C.CAMPAIGN_IDS) == 9 and C.campaign(C.DEBATE).name == "Débat d'entre deux tours"
    assert [c.name for c in C.CAMPAIGNS if c.returns] == ["Les sondages"]
    assert C.ROW_LENGTH == 4 and C.QUALITIES == ("charisma", "courage", "integrity")
    info = C.event_info("ev:19")
    assert info["name"] == "Affaire Gordji" and info["date"] == "July 1987"
    assert info["actions"] == [
        {"colour": "blue", "icons": ["courage", "courage"], "text": "Break with Tehran"},
        {"colour": "pink", "icons": ["integrity", "courage"], "text": "The guardian of the State"},
    ]
    assert set(C.campaign_info("cp:04")) >= {"name", "text"}
    assert C.campaign_info(None)["name"] == "nothing"


def test_the_rules_page_lists_every_card_and_decision() -> None:
    text = DOC.read_text(encoding="utf-8")
    for e in C.EVENTS:
        assert f"| {e.id} | {e.name} | {e.date} |" in text
    for c in C.FIRST_CARDS + C.REVISED_CARDS:
        assert f"| {c.id} | {c.name} | {c.date} | {c.text}" in text
    assert text.count("- **Rulebook says:**") >= 10
    decisions = text.split("## Decisions", 1)[1]
    assert decisions.count("- **Cabinet does:**") >= 20
    for v in GAME.variants:  # every variant and each of its choices is explained
        assert f"`{v.key}`" in text and all(f"`{choice}`" in text for choice in v.choices)
    assert "### Solo: the difficulty" in text and "solo=hard" in text


# -- setup ------------------------------------------------------------------------------------------


def test_setup_four_to_the_discard_ten_to_each_pile_media_to_mitterrand() -> None:
    orders = set()
    for seed in range(5):
        m = new_match(seed=seed, cards="second")
        (setup,) = of(m.events, "GameSetUp")
        piles = setup["piles"]
        assert len(setup["discard"]) == 4 and len(piles["chirac"]) == len(piles["mitterrand"]) == 10
        assert sorted(setup["discard"] + piles["chirac"] + piles["mitterrand"]) == sorted(C.EVENT_IDS)
        assert sorted(setup["campaign"]) == sorted(C.CAMPAIGN_IDS) and setup["media"] == "mitterrand"
        orders.add(tuple(piles["chirac"]))
        v = view(m, 0)
        assert v["rows"] == {"charisma": 0, "courage": 0, "integrity": 0} and v["row_length"] == 4
        assert v["media"] == "mitterrand" and v["discard"] == setup["discard"]
        assert v["hand"] == piles["chirac"][:3] and v["piles"] == {"chirac": 7, "mitterrand": 10}
        assert v["campaign"]["pile"] == 9
        # the shuffled order is in the log, hidden from the players
        assert GAME.redact(setup, 0)["piles"] is None and GAME.redact(setup, PUBLIC)["piles"] is None
        assert GAME.redact(setup, 0)["pile_counts"] == {"chirac": 10, "mitterrand": 10}
    assert len(orders) == 5


def test_chirac_always_plays_first() -> None:
    m = new_match(seats=[{"candidate": "mitterrand"}, {"candidate": "chirac"}])
    assert m.active() == (1,)
    v = view(m, 1)
    assert v["to_move"] == "chirac" and v["seats"] == {"chirac": 1, "mitterrand": 0} and v["you"] == "chirac"
    assert len(v["hand"]) == 3 and view(m, 0)["hand"] == []


def test_view_has_the_screens_shape() -> None:
    m = new_match(arranged())
    v = view(m, 0)
    assert set(v) >= {
        "seat", "solo", "turn", "phase", "active", "to_move", "seats", "names", "row_length", "rows", "media",
        "veto_used", "piles", "known_bottom", "discard", "erosion", "hand", "campaign", "final_turn",
        "last_turn", "winner", "reason",
    }  # fmt: skip
    assert (v["seat"], v["solo"], v["turn"], v["phase"], v["active"]) == (0, False, 1, "play", [0])
    assert v["names"] == {"chirac": "Jacques", "mitterrand": "François"}
    assert v["seats"] == {"chirac": 0, "mitterrand": 1}
    assert v["known_bottom"] == {"chirac": [], "mitterrand": []}
    assert v["erosion"] == {"chirac": [], "mitterrand": []}
    assert set(v["campaign"]) >= {"pile", "removed", "applied"} and "drawn" not in v["campaign"]
    assert (v["final_turn"], v["last_turn"], v["winner"], v["reason"]) == (False, None, None, None)
    assert v["veto_used"] is False
    full = view(m, ALL)
    assert full["hands"]["chirac"] == v["hand"] and full["hands"]["mitterrand"] == []
    assert full["pile_cards"]["chirac"] == arranged()["chirac"][3:]
    assert view(m, PUBLIC)["hand"] is None and "hands" not in v and "pile_cards" not in v


# -- a turn ------------------------------------------------------------------------------------------


def test_tokens_move_right_for_chirac_and_left_for_mitterrand() -> None:
    m = scripted()
    events = play(m, "ev:01", 1, ["ev:08", "ev:10"])
    moves = of(events, "TokenMoved")
    assert [(e["quality"], e["from"], e["to"]) for e in moves] == [
        ("charisma", 0, 1),
        ("courage", 0, 1),
        ("courage", 1, 2),
    ]
    events = play(m, "ev:04", 0, ["ev:03", "ev:13"])
    assert [(e["quality"], e["from"], e["to"]) for e in of(events, "TokenMoved")] == [("charisma", 1, 0)]
    assert push(4, CHIRAC, 4) is None and push(4, MITTERRAND, 4) == 3 and push(-4, MITTERRAND, 4) is None


def test_a_coloured_action_belongs_to_its_candidate() -> None:
    m = new_match(arranged(chirac=["ev:05", "ev:08", "ev:10"], mitterrand=["ev:13", "ev:11", "ev:16"]))
    with pytest.raises(IllegalCommand, match="Mitterrand's own: only Mitterrand"):
        play(m, "ev:05", 1, ["ev:08", "ev:10"])
    play(m, "ev:05", 0, ["ev:08", "ev:10"])  # the blue one is his
    with pytest.raises(IllegalCommand, match="Chirac's own: only Chirac"):
        play(m, "ev:13", 0, ["ev:11", "ev:16"])
    assert all(C.may_use("mitterrand", C.actions(c["card"])[c["action"]]) for c in GAME.legal(m.state, 1))


def test_a_neutral_card_goes_to_the_discard_an_own_card_in_front_of_you() -> None:
    m = scripted()
    events = play(m, "ev:01", 1, ["ev:08", "ev:10"])
    (taken,) = of(events, "ErosionTaken")
    assert (taken["by"], taken["card"], taken["count"]) == ("chirac", "ev:01", 1)
    assert view(m)["erosion"]["chirac"] == ["ev:01"] and "ev:01" not in view(m)["discard"]
    events = play(m, "ev:04", 0, ["ev:03", "ev:13"])
    assert of(events, "CardDiscarded")[0]["card"] == "ev:04" and view(m)["discard"][-1] == "ev:04"
    assert view(m)["erosion"]["mitterrand"] == []


def test_the_two_other_cards_go_under_the_opponents_pile_in_the_order_chosen() -> None:
    m = scripted()
    # after a neutral action too (a documented decision)
    events = play(m, "ev:08", 0, ["ev:10", "ev:01"])
    (slid,) = of(events, "CardsSlid")
    assert (slid["onto"], slid["cards"]) == ("mitterrand", ["ev:10", "ev:01"])
    assert view(m)["pile_cards"]["mitterrand"][-2:] == ["ev:10", "ev:01"]
    # the slider knows them, in drawing order; the pile's owner and a spectator do not
    assert view(m, 0)["known_bottom"] == {"chirac": [], "mitterrand": ["ev:10", "ev:01"]}
    assert view(m, 1)["known_bottom"] == {"chirac": [], "mitterrand": []}
    assert view(m, PUBLIC)["known_bottom"]["mitterrand"] == []
    assert GAME.redact(slid, 1)["cards"] is None and GAME.redact(slid, 0)["cards"] == ["ev:10", "ev:01"]
    assert "2 cards under Mitterrand's pile" in GAME.describe(GAME.redact(slid, 1), 1)
    play(m, "ev:04", 0, ["ev:03", "ev:13"])
    assert view(m, 1)["known_bottom"]["chirac"] == ["ev:03", "ev:13"]
    assert view(m, 0)["known_bottom"]["mitterrand"] == ["ev:10", "ev:01"]  # still there


def test_known_cards_are_forgotten_once_drawn() -> None:
    m = scripted()
    play(m, "ev:01", 1, ["ev:08", "ev:10"])
    play(m, "ev:04", 0, ["ev:03", "ev:13"])
    play(m, "ev:02", 1, ["ev:11", "ev:16"])
    campaign(m, "cp:07", "cp:03")
    play(m, "ev:07", 0, ["ev:06", "ev:19"])
    play(m, "ev:05", 0, ["ev:21", "ev:22"])
    campaign(m, "cp:08", "cp:01", "courage")
    assert view(m, 1)["known_bottom"]["chirac"] == ["ev:03", "ev:13", "ev:06", "ev:19"]
    # Mitterrand's turn ends with Chirac drawing his next three cards: two of them were known
    play(m, "ev:14", 0, ["ev:12", "ev:18"])
    assert view(m, 0)["hand"] == ["ev:09", "ev:03", "ev:13"]
    assert view(m, 1)["known_bottom"]["chirac"] == ["ev:06", "ev:19", "ev:12", "ev:18"]
    assert view(m, 1)["piles"]["chirac"] == 4


def test_the_choice_icon_lets_the_player_pick_the_quality() -> None:
    m = new_match(arranged(chirac=["ev:16", "ev:08", "ev:10"]))
    legal = [c for c in GAME.legal(m.state, 0) if c["card"] == "ev:16" and c["action"] == 1]
    # 3 qualities; the first turn's two other cards come up in one hand of Mitterrand's: one order
    assert sorted(c["choices"][0] for c in legal) == sorted(C.QUALITIES)
    with pytest.raises(IllegalCommand, match="Choose a quality"):
        play(m, "ev:16", 1, ["ev:08", "ev:10"])
    with pytest.raises(IllegalCommand, match="no quality called"):
        play(m, "ev:16", 1, ["ev:08", "ev:10"], ["wisdom"])
    with pytest.raises(IllegalCommand, match="choose no quality"):
        play(m, "ev:16", 0, ["ev:08", "ev:10"], ["courage"])
    events = play(m, "ev:16", 1, ["ev:08", "ev:10"], ["integrity"])
    assert of(events, "CardPlayed")[0]["choices"] == ["integrity"]
    assert [(e["quality"], e["to"]) for e in of(events, "TokenMoved")] == [("integrity", 1)]


# -- the end of a row ---------------------------------------------------------------------------


def test_at_the_end_of_a_row_the_media_token_then_power_erosion() -> None:
    stack = arranged(
        chirac=["ev:23", "ev:08", "ev:10", "ev:17", "ev:11", "ev:16", "ev:21", "ev:22", "ev:24", "ev:01"],
        mitterrand=["ev:04", "ev:03", "ev:13", "ev:14", "ev:07", "ev:12", "ev:06", "ev:05", "ev:09", "ev:18"],
        discard=["ev:02", "ev:15", "ev:19", "ev:20"],
        campaign=[["cp:06", "cp:03", "cp:04"], ["cp:09", "cp:05", "cp:01"]],
    )
    m = new_match(stack)
    play(m, "ev:23", 1, ["ev:08", "ev:10"])  # courage 3
    play(m, "ev:04", 0, ["ev:03", "ev:13"])  # charisma -1
    play(m, "ev:17", 0, ["ev:11", "ev:16"])  # courage 4: Chirac's end
    play(m, "ev:14", 0, ["ev:07", "ev:12"])  # integrity -1
    events = play(m, "ev:21", 0, ["ev:22", "ev:24"])  # blocked: the Media token
    assert [e["t"] for e in events[:3]] == ["CardPlayed", "MediaTaken", "CardDiscarded"]
    assert events[1] == {"t": "MediaTaken", "by": "chirac", "name": "Jacques", "quality": "courage"}
    assert view(m)["media"] == "chirac" and view(m)["rows"]["courage"] == 4
    play(m, "ev:06", 0, ["ev:05", "ev:09"], ["charisma"])  # charisma -2
    # two blocked icons, Media in hand: two Power Erosion cards drawn at random from the discard pile
    discard = list(view(m)["discard"])
    events = play(m, "ev:01", 1, ["ev:03", "ev:13"])  # charisma, courage, courage
    hits = of(events, "ErosionInflicted")
    assert [(h["on"], h["quality"], h["count"]) for h in hits] == [
        ("mitterrand", "courage", 1),
        ("mitterrand", "courage", 2),
    ]
    assert all(h["card"] in discard and h["card"] not in view(m)["discard"] for h in hits)
    assert view(m)["erosion"]["mitterrand"] == [h["card"] for h in hits]
    # two draws due at once: Chirac's first (Mitterrand's erosion came first), then Mitterrand's
    assert [e["t"] for e in events[-3:]] == ["ErosionTaken", "CardsSlid", "CampaignDrawn"]
    assert events[-1]["by"] == "chirac" and m.active() == (0,)
    events = campaign(m, "cp:06", "cp:03")
    assert events[-1]["t"] == "CampaignDrawn" and events[-1]["by"] == "mitterrand" and m.active() == (1,)
    events = campaign(m, "cp:09", "cp:05", "integrity")
    assert of(events, "TurnStarted")[0]["by"] == "mitterrand"


def test_an_empty_discard_pile_loses_the_bonus() -> None:
    # solo: the discard pile starts empty, and own actions and removed cards never fill it
    theirs = ["ev:13", "ev:14", "ev:05", "ev:03", "ev:08", "ev:10", "ev:15", "ev:24"]
    mine = ["ev:23", "ev:04", "ev:06", "ev:17", "ev:07", "ev:12", "ev:19", "ev:18", "ev:20"]
    mine += [c for c in C.EVENT_IDS if c not in theirs + mine]
    stack = {"chirac": mine, "mitterrand": theirs, "campaign": [["cp:09", "cp:01", "cp:02"]]}
    m = Match.new(
        GAME,
        make_header(GAME, GAME.make_config(1, [{"candidate": "chirac"}], {"campaign": "first"}), 5, arranged=stack),
    )
    m.submit(0, {"t": "PlayCard", "card": "ev:23", "action": 1, "remove": "ev:04", "under": ["ev:06"]})
    m.submit(0, {"t": "PlayCard", "card": "ev:17", "action": 1, "remove": "ev:07", "under": ["ev:12"]})
    assert view(m)["media"] == "chirac" and view(m)["rows"]["courage"] == 4
    m.submit(0, {"t": "Allow"})  # the automaton's Malik Oussekine card: its 2nd erosion, we draw
    m.submit(0, {"t": "Campaign", "apply": "cp:09", "remove": "cp:01", "quality": "charisma"})
    assert view(m)["discard"] == []
    events = m.submit(0, {"t": "PlayCard", "card": "ev:19", "action": 0, "remove": "ev:18", "under": ["ev:20"]})
    lost = of(events, "BonusLost")
    assert [(b["by"], b["on"], b["quality"]) for b in lost] == [("chirac", "mitterrand", "courage")] * 2
    assert "discard pile is empty" in GAME.describe(lost[0], 0)


# -- the Electoral Campaign ------------------------------------------------------------------


def test_scripted_two_player_game_second_and_fourth_erosion_then_sixth() -> None:
    m = scripted()
    play(m, "ev:01", 1, ["ev:08", "ev:10"])
    play(m, "ev:04", 0, ["ev:03", "ev:13"])
    events = play(m, "ev:02", 1, ["ev:11", "ev:16"])
    # Chirac's second Power Erosion: Mitterrand draws three campaign cards, after the turn is complete
    assert [e["t"] for e in events[-3:]] == ["ErosionTaken", "CardsSlid", "CampaignDrawn"]
    drawn = events[-1]
    assert (drawn["by"], drawn["cards"]) == ("mitterrand", ["cp:07", "cp:03", "cp:06"])
    assert m.active() == (1,) and view(m, 1)["phase"] == "campaign"
    assert view(m, 1)["campaign"]["drawn"] == ["cp:07", "cp:03", "cp:06"]
    assert "drawn" not in view(m, 0)["campaign"] and view(m, 0)["campaign"]["drawn_count"] == 3
    assert GAME.redact(drawn, 0)["cards"] is None and GAME.redact(drawn, PUBLIC)["cards"] is None
    assert view(m, 0)["hand"] == [] and view(m, 1)["hand"] == []
    with pytest.raises(IllegalCommand):
        play(m, "ev:06", 0, ["ev:07", "ev:19"])
    # Le Pen: a random card of the discard pile in front of Chirac; one removed, one back, shuffled
    events = campaign(m, "cp:07", "cp:03")
    applied, hit = events[0], events[1]
    assert applied["returned"] == ["cp:06"] and GAME.redact(applied, 0)["returned"] is None
    assert GAME.redact(applied, 0)["applied"] == "cp:07" and GAME.redact(applied, 0)["removed"] == "cp:03"
    assert "returns the third card" in GAME.describe(GAME.redact(applied, 0), 0)
    assert (hit["t"], hit["on"], hit["count"], hit["quality"]) == ("ErosionInflicted", "chirac", 3, None)
    c = view(m, 0)["campaign"]
    assert (c["pile"], c["removed"], c["applied"]) == (7, ["cp:03"], ["cp:07"])
    assert events[2]["t"] == "TurnStarted" and events[2]["by"] == "mitterrand"
    play(m, "ev:07", 0, ["ev:06", "ev:19"])
    events = play(m, "ev:05", 0, ["ev:21", "ev:22"])
    # the fourth: a second draw
    assert eroded(m)["chirac"] == 4 and events[-1]["t"] == "CampaignDrawn"
    assert events[-1]["cards"] == ["cp:08", "cp:01", "cp:05"]
    campaign(m, "cp:08", "cp:01", "courage")  # two steps back; Mitterrand already holds the Media token
    assert view(m)["rows"]["courage"] == 2 and view(m)["media"] == "mitterrand"
    play(m, "ev:14", 0, ["ev:12", "ev:18"])
    play(m, "ev:09", 0, ["ev:03", "ev:13"])  # fifth: no draw
    assert eroded(m)["chirac"] == 5 and view(m)["phase"] == "play"
    play(m, "ev:08", 0, ["ev:20", "ev:10"])
    # the sixth: the game stops at once, even before the two other cards are passed on
    events = play(m, "ev:19", 0, ["ev:06", "ev:12"])
    assert [e["t"] for e in events] == ["CardPlayed", "TokenMoved", "MediaTaken", "ErosionTaken", "GameEnded"]
    end = events[-1]
    assert (end["by"], end["winner"], end["loser"]) == ("erosion", "mitterrand", "chirac")
    reason = "François Mitterrand wins: Jacques Chirac suffered a sixth Power Erosion."
    assert m.outcome == Outcome((1,), reason, (1, 0))
    assert m.active() == () and view(m)["phase"] == "over" and view(m)["winner"] == "mitterrand"
    with pytest.raises(IllegalCommand, match="over"):
        m.submit(0, {"t": "PlayCard", "card": "ev:06", "action": 0, "under": ["ev:12"]})


@pytest.mark.parametrize(
    "card, quality, rows, media, chirac_erosion",
    [
        ("cp:01", None, {"charisma": -1, "courage": 3, "integrity": 1}, "mitterrand", 2),  # holds it already
        ("cp:02", None, {"charisma": 0, "courage": 2, "integrity": 1}, "mitterrand", 2),  # no erosion of his own
        ("cp:03", None, {"charisma": -2, "courage": 3, "integrity": 1}, "mitterrand", 2),
        ("cp:04", None, {"charisma": 0, "courage": 2, "integrity": 0}, "mitterrand", 2),
        ("cp:05", "charisma", {"charisma": -1, "courage": 3, "integrity": 0}, "mitterrand", 2),
        ("cp:06", None, {"charisma": -1, "courage": 2, "integrity": 1}, "mitterrand", 2),
        ("cp:07", None, {"charisma": 0, "courage": 3, "integrity": 1}, "mitterrand", 3),
        ("cp:08", "courage", {"charisma": 0, "courage": 1, "integrity": 1}, "mitterrand", 2),
        ("cp:09", "integrity", {"charisma": 0, "courage": 3, "integrity": 0}, "mitterrand", 2),
    ],
)
def test_each_campaign_card_for_mitterrand(card, quality, rows, media, chirac_erosion) -> None:
    others = [c for c in C.campaign_set("first") if c != card][:2]
    m = to_first_campaign((card, *others))
    campaign(m, card, others[0], quality)
    assert view(m)["rows"] == rows and view(m)["media"] == media
    assert eroded(m) == {"chirac": chirac_erosion, "mitterrand": 0}
    c = view(m)["campaign"]
    if card == "cp:09":  # Les sondages goes back into the pile
        assert c["applied"] == [] and c["pile"] == 8
    else:
        assert c["applied"] == [card] and c["pile"] == 7


def test_campaign_cards_for_chirac() -> None:
    m = to_chirac_campaign([["cp:01", "cp:02", "cp:04"]])
    events = campaign(m, "cp:01", "cp:04")  # Génération Mitterrand: Chirac takes the Media token
    assert of(events, "MediaTaken")[0]["by"] == "chirac" and view(m)["media"] == "chirac"
    m = to_chirac_campaign([["cp:02", "cp:01", "cp:04"]])
    events = campaign(m, "cp:02", "cp:04")  # Barre: his own last Power Erosion goes to the discard pile
    (relieved,) = of(events, "ErosionRelieved")
    assert relieved["card"] == "ev:15" and eroded(m) == {"chirac": 0, "mitterrand": 2}
    assert view(m)["discard"][-1] == "ev:15"
    m = to_chirac_campaign([["cp:04", "cp:01", "cp:02"]])
    campaign(m, "cp:04", "cp:01")  # La France unie: the tokens on Mitterrand's side come back one step
    assert view(m)["rows"] == {"charisma": 0, "courage": 2, "integrity": -1}
    m = to_chirac_campaign([["cp:08", "cp:01", "cp:02"]])
    campaign(m, "cp:08", "cp:01", "integrity")  # the debate: two steps, then the Media token
    assert view(m)["rows"]["integrity"] == 0 and view(m)["media"] == "chirac"


def test_each_erosion_threshold_gives_one_draw_only() -> None:
    stack = arranged(
        chirac=["ev:15", "ev:08", "ev:10", "ev:02", "ev:21", "ev:22", "ev:17", "ev:11", "ev:16"],
        mitterrand=["ev:04", "ev:06", "ev:07", "ev:03", "ev:12", "ev:14"],
        discard=["ev:05", "ev:09", "ev:13", "ev:18"],
        campaign=[["cp:03", "cp:05", "cp:06"], ["cp:02", "cp:01", "cp:04"]],
    )
    m = new_match(stack)
    play(m, "ev:15", 1, ["ev:08", "ev:10"])  # Chirac 1
    play(m, "ev:04", 1, ["ev:06", "ev:07"])  # Mitterrand 1
    play(m, "ev:02", 1, ["ev:21", "ev:22"])  # Chirac 2: Mitterrand draws
    campaign(m, "cp:03", "cp:05")
    play(m, "ev:03", 1, ["ev:12", "ev:14"])  # Mitterrand 2: Chirac draws Barre
    campaign(m, "cp:02", "cp:01")
    assert eroded(m) == {"chirac": 1, "mitterrand": 2}
    events = play(m, "ev:17", 1, ["ev:11", "ev:16"])  # Chirac's second erosion again
    assert eroded(m)["chirac"] == 2
    assert not of(events, "CampaignDrawn") and view(m)["phase"] == "play"
    assert view(m)["erosion_thresholds"] == {"chirac": [2], "mitterrand": [2]}


def test_campaign_commands_are_checked() -> None:
    m = to_first_campaign(("cp:05", "cp:07", "cp:01"))
    with pytest.raises(IllegalCommand, match="you drew"):
        campaign(m, "cp:02", "cp:07")
    with pytest.raises(IllegalCommand, match="other"):
        campaign(m, "cp:05", "cp:05", "courage")
    with pytest.raises(IllegalCommand, match="needs a quality"):
        campaign(m, "cp:05", "cp:07")
    with pytest.raises(IllegalCommand, match="no quality"):
        campaign(m, "cp:07", "cp:05", "courage")
    with pytest.raises(IllegalCommand, match="choosing an Electoral Campaign card"):
        GAME.decide(m.state, 0, {"t": "Campaign", "apply": "cp:05", "remove": "cp:07", "quality": "courage"}, m.rng())
    legal = GAME.legal(m.state, 1)
    # cp:05 needs a quality: 2 removes x 3 qualities; the two others: 2 removes each
    assert len(legal) == 6 + 2 + 2
    assert GAME.legal(m.state, 0) == []


# -- the final turn and the election ----------------------------------------------------------


def neutral_first(match: Match, seat: int) -> dict:
    """A plain chooser: the first neutral action offered, else the first command."""
    legal = GAME.legal(match.state, seat)
    for command in legal:
        if command["t"] == "PlayCard" and C.actions(command["card"])[command["action"]].colour == "white":
            return command
    return legal[0]


def test_the_final_round_starts_when_both_piles_hold_three_cards() -> None:
    m = new_match(seed=4)
    piles_at_start = []
    while m.outcome is None:
        (seat,) = m.active()
        v = view(m)
        if v["phase"] == "play":
            piles_at_start.append((v["turn"], v["to_move"], v["piles"][v["to_move"]] + 3, v["final_turn"]))
        m.submit(seat, neutral_first(m, seat))
    starts = of(m.events, "TurnStarted")
    assert len(starts) == 16 and [s["by"] for s in starts] == ["chirac", "mitterrand"] * 8
    assert [s["turn"] for s in starts if s["final"]] == [15, 16]
    # each round takes one card from each pile: 10, 9, ... 3 when the final round begins
    chirac_piles = [p for _, who, p, _ in piles_at_start if who == "chirac"]
    assert chirac_piles == [10, 9, 8, 7, 6, 5, 4, 3]
    assert of(m.events, "GameEnded")[0]["by"] == "election"
    assert m.events[-1]["t"] == "GameEnded"


def test_who_is_ahead_and_the_media_tiebreak() -> None:
    assert ahead((1, 0, -2)) == (1, 1) and ahead((0, 0, 0)) == (0, 0) and ahead((4, 1, -1)) == (2, 1)
    assert election_winner((1, 0, -2), MITTERRAND) == MITTERRAND
    assert election_winner((1, 0, -2), CHIRAC) == CHIRAC
    assert election_winner((0, 0, 0), CHIRAC) == CHIRAC
    assert election_winner((1, 1, -4), MITTERRAND) == CHIRAC
    assert election_winner((-1, 0, 0), CHIRAC) == MITTERRAND


def test_elections_decided_by_qualities_then_by_the_media_token() -> None:
    ties = {"chirac": 0, "mitterrand": 0}
    for seed in range(300):
        m = new_match(seed=seed)
        chooser = random.Random(seed)
        while m.outcome is None:
            (seat,) = m.active()
            m.submit(seat, chooser.choice(GAME.legal(m.state, seat)))
        (end,) = of(m.events, "GameEnded")
        if end["by"] != "election":
            continue
        rows = tuple(view(m)["rows"].values())
        chirac, mitterrand = ahead(rows)
        assert end["ahead"] == {"chirac": chirac, "mitterrand": mitterrand}
        if chirac != mitterrand:
            assert end["winner"] == ("chirac" if chirac > mitterrand else "mitterrand") and not end["tie"]
        else:
            assert end["tie"] and end["winner"] == end["media"] == view(m)["media"]
            assert "Media token" in m.outcome.reason
            ties[end["winner"]] += 1
        seat = {"chirac": 0, "mitterrand": 1}[end["winner"]]
        assert m.outcome.winners == (seat,) and m.outcome.scores == (chirac, mitterrand)
        if min(ties.values()) >= 2:
            break
    assert min(ties.values()) >= 2, ties


# -- commands refused, commands offered ------------------------------------------------------------


def test_illegal_commands_give_a_sentence() -> None:
    m = scripted()
    bad = [
        (1, {"t": "PlayCard", "card": "ev:03", "action": 0, "under": ["ev:04", "ev:13"]}, "turn to play"),
        (0, "PlayCard", "not a move"),
        (0, {"t": "Campaign", "apply": "cp:01"}, "Not now"),
        (0, {"t": "PlayCard", "card": "ev:99", "action": 0, "under": []}, "no Event card"),
        (0, {"t": "PlayCard", "card": "ev:03", "action": 0, "under": ["ev:08", "ev:10"]}, "not in your hand"),
        (0, {"t": "PlayCard", "card": "ev:01", "action": 2, "under": ["ev:08", "ev:10"]}, "first or second"),
        (0, {"t": "PlayCard", "card": "ev:01", "action": True, "under": ["ev:08", "ev:10"]}, "first or second"),
        (0, {"t": "PlayCard", "card": "ev:01", "action": 0}, "which order"),
        (0, {"t": "PlayCard", "card": "ev:01", "action": 0, "under": [8, "ev:10"]}, "which order"),
        (0, {"t": "PlayCard", "card": ["ev:01"], "action": 0, "under": ["ev:08", "ev:10"]}, "'card' must be text"),
        (0, {"t": "PlayCard", "card": "ev:01", "action": 0, "under": ["ev:08"]}, "Both of your other cards"),
        (0, {"t": "PlayCard", "card": "ev:01", "action": 0, "under": ["ev:08", "ev:08"]}, "Both of your other cards"),
        (0, {"t": "PlayCard", "card": "ev:01", "action": 0, "under": ["ev:08", "ev:01"]}, "Both of your other cards"),
        (0, {"t": "Veto", "action": 0}, "Not now"),
    ]
    for seat, command, words in bad:
        with pytest.raises(IllegalCommand) as err:
            GAME.decide(m.state, seat, command, m.rng())
        sentence = str(err.value)
        assert words in sentence, (command, sentence)
        assert sentence[0].isupper() and sentence.endswith("."), sentence
    with pytest.raises(IllegalCommand):
        m.submit(0, {"t": "PlayCard", "card": "ev:01", "action": 0, "under": ["ev:08"]})
    assert len(m.events) == len(scripted().events)  # nothing was played


def test_legal_offers_every_card_action_order_and_choice() -> None:
    m = new_match(arranged(chirac=["ev:16", "ev:05", "ev:13"]))
    legal = GAME.legal(m.state, 0)
    # ev:16: two neutral actions, one with a choice icon; ev:05 and ev:13: one blue action each;
    # the other two cards in one order only, as Mitterrand will draw them in one hand
    assert len(legal) == 1 + 3 + 1 + 1
    assert GAME.legal(m.state, 1) == []
    for command in legal:
        events = GAME.decide(m.state, 0, command, m.rng())
        assert events[0]["t"] == "CardPlayed"


# -- history, replays, take-backs ---------------------------------------------------------------


def test_describe_mark_and_reveals() -> None:
    m = scripted()
    play(m, "ev:01", 1, ["ev:08", "ev:10"])
    for ev in m.events:
        for seat in (0, 1, PUBLIC, ALL):
            line = GAME.describe(GAME.redact(ev, seat), seat)
            assert isinstance(line, str) and line and not line.startswith(ev["t"]), line
    starts = of(m.events, "TurnStarted")
    assert [GAME.mark(s) for s in starts] == ["round", "turn"]
    assert GAME.mark(m.events[0]) is None
    drawn = of(m.events, "CardsDrawn")
    assert GAME.reveals(drawn[1], 1) and not GAME.reveals(drawn[1], 0)
    played = of(m.events, "CardPlayed")[0]
    assert GAME.reveals(played, 1) and not GAME.reveals(played, 0)
    assert not GAME.reveals(of(m.events, "TokenMoved")[0], 1)
    assert GAME.describe(drawn[0], 0) == (
        "Chirac (Jacques) draws Législatives du 16 mars, Attentats de Paris and Affaire du Carrefour du développement."
    )
    assert GAME.describe(GAME.redact(drawn[0], 1), 1) == "Chirac (Jacques) draws 3 cards."


def test_a_move_can_be_taken_back_until_something_is_revealed() -> None:
    header = make_header(
        GAME,
        GAME.make_config(2),
        11,
        controllers=[{"kind": "human"}, {"kind": "bot", "level": "easy"}],
        arranged={"chirac": CH, "mitterrand": MI, "discard": DI, "campaign": []},
    )
    m = Match.new(GAME, header)
    play(m, "ev:08", 0, ["ev:10", "ev:01"])
    assert Table(m).takeback_point(0) == 1  # nothing new for Chirac: Mitterrand's draw is hidden from him
    bot = make_bot(GAME, "easy", 1)

    m.submit(1, Table(m).bot_move(1, bot))
    assert Table(m).takeback_point(0) is None  # the bot's card and Chirac's new hand are news


def test_replaying_the_log_gives_the_same_state() -> None:
    m = scripted()
    play(m, "ev:01", 1, ["ev:08", "ev:10"])
    play(m, "ev:04", 0, ["ev:03", "ev:13"])
    play(m, "ev:02", 1, ["ev:11", "ev:16"])
    campaign(m, "cp:07", "cp:03")
    state = GAME.initial(m.config)
    for ev in m.events:
        state = GAME.evolve(state, ev)
    assert GAME.canonical(state) == GAME.canonical(m.state)


# -- the bots ------------------------------------------------------------------------------------


def test_heuristic_bot_beats_the_random_bot() -> None:
    wins = 0
    games = 200
    for i in range(games):
        smart = i % 2  # alternate the candidates
        m = new_match(seed=1000 + i)
        Table(m).play_out(bots={s: make_bot(GAME, "easy" if s == smart else "random", 97 * i + s) for s in range(2)})
        wins += m.outcome.winners == (smart,)
    assert wins / games >= 0.7, wins


def test_equal_heuristic_bots_give_both_candidates_a_fair_game() -> None:
    games = 300
    chirac = 0
    for i in range(games):
        m = new_match(seed=5000 + i)
        Table(m).play_out(bots={s: make_bot(GAME, "easy", 31 * i + s) for s in range(2)})
        chirac += m.outcome.winners == (0,)
    assert 0.4 <= chirac / games <= 0.6, chirac


def test_the_heuristic_bot_sees_only_its_view() -> None:
    m = to_first_campaign(("cp:05", "cp:07", "cp:01"))
    seen = GAME.view(m.state, 1)
    command = make_bot(GAME, "easy", 3).choose(GAME, seen, GAME.legal(m.state, 1))
    assert command in GAME.legal(m.state, 1)
    assert re.fullmatch(r"cp:0\d", command["apply"])


def test_the_view_keeps_the_last_turn_and_the_last_campaign_apart() -> None:
    m = to_first_campaign(("cp:06", "cp:07", "cp:01"))
    last = view(m, 1)["last_turn"]
    assert (last["by"], last["card"], last["action"]) == ("chirac", "ev:02", 1)
    assert last["moves"] == [
        {"quality": "courage", "from": 2, "to": 3, "by": "chirac"},
        {"quality": "integrity", "from": 0, "to": 1, "by": "chirac"},
    ]
    assert view(m, 1)["last_campaign"] is None
    campaign(m, "cp:06", "cp:07")
    v = view(m, 0)
    assert v["last_turn"]["card"] == "ev:02" and len(v["last_turn"]["moves"]) == 2
    assert (v["last_campaign"]["by"], v["last_campaign"]["card"]) == ("mitterrand", "cp:06")
    assert [mv["quality"] for mv in v["last_campaign"]["moves"]] == ["courage", "charisma"]
