"""1988: the second set of Electoral Campaign cards (variant ``campaign``) and old saves.

Each redesigned card is played in a position where its condition matters,
and the first set stays what games saved before the second set replay.
"""

from __future__ import annotations

import hashlib
import json

import pytest

from core.engine import IllegalCommand, Match, make_header, revise, to_plain
from core.games.chirac_mitterrand import GAME
from core.games.chirac_mitterrand import cards as C
from core.games.chirac_mitterrand.bot import HeuristicBot
from core.games.chirac_mitterrand.rules import DIGESTED_FIELDS
from saves import SaveWriter, load, new_save_path, verify
from table import Table
from tests.test_chirac_mitterrand_rules import CH, DI, MI, arranged, campaign, eroded, of, play, view

GEN, BARRE, UNITE, LEPEN, DEBATE, POLLS = "cp:10", "cp:11", "cp:12", "cp:13", "cp:14", "cp:15"
#: cards of the second set that were not redesigned, to fill a draw
PLAIN = ["cp:03", "cp:05", "cp:06"]


def second_match(stack: dict, seed: int = 11) -> Match:
    config = GAME.make_config(2, [{"name": "Jacques"}, {"name": "François"}])
    assert config["variants"] == {"campaign": "second", "solo": "standard"}  # the defaults
    return Match.new(GAME, make_header(GAME, config, seed, arranged=stack))


def mitterrand_draws(card: str) -> Match:
    """Turns 1-3 of the scripted game: Chirac's second Power Erosion gives Mitterrand a draw.
    Chirac leads in courage (3) and integrity (1), charisma is level; Mitterrand holds the Media token."""
    m = second_match({"chirac": CH, "mitterrand": MI, "discard": DI, "campaign": [[card, *PLAIN[:2]]]})
    play(m, "ev:01", 1, ["ev:08", "ev:10"])
    play(m, "ev:04", 0, ["ev:03", "ev:13"])
    play(m, "ev:02", 1, ["ev:11", "ev:16"])
    v = view(m)
    assert v["phase"] == "campaign" and v["campaign"]["drawer"] == "mitterrand"
    assert v["rows"] == {"charisma": 0, "courage": 3, "integrity": 1} and v["media"] == "mitterrand"
    assert eroded(m) == {"chirac": 2, "mitterrand": 0}
    return m


def chirac_draws(card: str) -> Match:
    """Mitterrand's second Power Erosion gives Chirac a draw after turn 4.  Mitterrand leads in
    charisma (-1) and integrity (-2), Chirac in courage (2); Chirac has one Power Erosion."""
    stack = arranged(
        chirac=["ev:15", "ev:08", "ev:10", "ev:21", "ev:22", "ev:24"],
        mitterrand=["ev:04", "ev:11", "ev:16", "ev:03", "ev:06", "ev:07"],
        discard=["ev:02", "ev:05", "ev:09", "ev:13"],
        campaign=[[card, *PLAIN[:2]], PLAIN[1:]],
    )
    m = second_match(stack, seed=1)
    play(m, "ev:15", 1, ["ev:08", "ev:10"])
    play(m, "ev:04", 1, ["ev:11", "ev:16"])
    play(m, "ev:21", 0, ["ev:22", "ev:24"])
    play(m, "ev:03", 1, ["ev:06", "ev:07"])
    v = view(m)
    assert v["phase"] == "campaign" and v["campaign"]["drawer"] == "chirac"
    assert v["rows"] == {"charisma": -1, "courage": 2, "integrity": -2} and v["media"] == "mitterrand"
    assert eroded(m) == {"chirac": 1, "mitterrand": 2}
    return m


# -- the two sets -------------------------------------------------------------------------------------


def test_the_two_sets() -> None:
    first, second = C.campaign_set("first"), C.campaign_set("second")
    assert first == tuple(f"cp:{i:02d}" for i in range(1, 10))
    assert len(second) == 9 and set(first) & set(second) == set(PLAIN)
    assert {C.campaign(c).name for c in first} == {C.campaign(c).name for c in second}
    assert C.debate_of(first) == "cp:08" and C.debate_of(second) == DEBATE == C.DEBATE
    assert [C.campaign(c).name for c in second if C.campaign(c).returns] == ["Les sondages"]
    assert C.set_of(list(first)) == "first" and C.set_of(list(second)) == "second"


def test_new_games_lay_out_the_second_set_solo_without_its_debate() -> None:
    m = second_match(arranged())
    (setup,) = of(m.events, "GameSetUp")
    assert sorted(setup["campaign"]) == sorted(C.campaign_set("second")) and setup["campaign_removed"] == []
    solo = Match.new(GAME, make_header(GAME, GAME.make_config(1, [{"candidate": "mitterrand"}]), 3))
    (setup,) = of(solo.events, "GameSetUp")
    assert setup["campaign_removed"] == [DEBATE] and DEBATE not in setup["campaign"]
    assert len(setup["campaign"]) == 8


# -- each redesigned card ------------------------------------------------------------------------------


def test_generation_mitterrand_takes_the_media_token_or_moves_charisma_two_steps() -> None:
    m = mitterrand_draws(GEN)  # Mitterrand already holds the token: charisma two steps instead
    events = campaign(m, GEN, PLAIN[0])
    assert [e["to"] for e in of(events, "TokenMoved")] == [-1, -2]
    assert view(m)["media"] == "mitterrand"
    m = chirac_draws(GEN)  # Chirac lacks it: he takes it, no token moves
    events = campaign(m, GEN, PLAIN[0])
    assert view(m)["media"] == "chirac" and of(events, "TokenMoved") == []
    assert view(m)["rows"] == {"charisma": -1, "courage": 2, "integrity": -2}


def test_barre_discards_your_last_power_erosion_and_moves_a_quality() -> None:
    m = chirac_draws(BARRE)  # Chirac has one Power Erosion: it goes, and integrity moves a step
    before = view(m)["erosion"]["chirac"]
    events = campaign(m, BARRE, PLAIN[0], "integrity")
    (relieved,) = of(events, "ErosionRelieved")
    assert relieved["card"] == before[-1] and eroded(m)["chirac"] == 0
    assert before[-1] in view(m)["discard"]
    assert view(m)["rows"]["integrity"] == -1
    m = mitterrand_draws(BARRE)  # Mitterrand has none: only the step
    events = campaign(m, BARRE, PLAIN[0], "courage")
    assert of(events, "ErosionRelieved") == [] and view(m)["rows"]["courage"] == 2
    with pytest.raises(IllegalCommand, match="quality"):
        campaign(mitterrand_draws(BARRE), BARRE, PLAIN[0])


def test_la_france_unie_pulls_each_token_on_the_opponents_side_two_steps_back_to_the_centre() -> None:
    m = chirac_draws(UNITE)  # charisma -1 stops on the centre, integrity -2 comes back to it; courage 2 stays
    events = campaign(m, UNITE, PLAIN[0])
    assert [(e["quality"], e["to"]) for e in of(events, "TokenMoved")] == [
        ("charisma", 0),
        ("integrity", -1),
        ("integrity", 0),
    ]
    assert view(m)["rows"] == {"charisma": 0, "courage": 2, "integrity": 0}
    m = mitterrand_draws(UNITE)
    m.state = revise(m.state, rows=(0, 4, 1))  # courage at Chirac's end: two steps, integrity one
    campaign(m, UNITE, PLAIN[0])
    assert view(m)["rows"] == {"charisma": 0, "courage": 2, "integrity": 0}


def test_le_pen_gives_a_second_power_erosion_to_an_opponent_who_leads() -> None:
    m = mitterrand_draws(LEPEN)  # Chirac leads 2 qualities to 0: two cards, his 3rd and 4th
    events = campaign(m, LEPEN, PLAIN[0])
    assert [e["count"] for e in of(events, "ErosionInflicted")] == [3, 4]
    assert eroded(m)["chirac"] == 4
    # his fourth Power Erosion gives Mitterrand another draw at once
    assert view(m)["phase"] == "campaign" and view(m)["campaign"]["drawer"] == "mitterrand"


def test_le_pen_gives_one_power_erosion_to_an_opponent_who_does_not_lead() -> None:
    m = mitterrand_draws(LEPEN)
    # the same draw with the qualities level (1 to 1): one card only
    m.state = revise(m.state, rows=(-1, 3, 0))
    events = campaign(m, LEPEN, PLAIN[0])
    assert [e["count"] for e in of(events, "ErosionInflicted")] == [3]
    assert view(m)["phase"] == "play"


def test_the_debate_gives_the_media_token_to_whoever_comes_out_behind() -> None:
    # Chirac lifts integrity from -2 to 0: level 1-1, so the drawer takes the token
    m = chirac_draws(DEBATE)
    campaign(m, DEBATE, PLAIN[0], "integrity")
    assert view(m)["rows"] == {"charisma": -1, "courage": 2, "integrity": 0} and view(m)["media"] == "chirac"
    # Chirac lifts charisma from -1 to 1: he leads 2-1, the token stays with Mitterrand
    m = chirac_draws(DEBATE)
    campaign(m, DEBATE, PLAIN[0], "charisma")
    assert view(m)["rows"] == {"charisma": 1, "courage": 2, "integrity": -2} and view(m)["media"] == "mitterrand"
    # Mitterrand, behind 0-2 even after the debate, keeps it
    m = mitterrand_draws(DEBATE)
    campaign(m, DEBATE, PLAIN[0], "courage")
    assert view(m)["rows"]["courage"] == 1 and view(m)["media"] == "mitterrand"


def test_the_debate_can_hand_the_media_token_to_the_opponent() -> None:
    m = mitterrand_draws(DEBATE)
    m.state = revise(m.state, rows=(-1, 1, 0))  # Mitterrand 1, Chirac 1
    campaign(m, DEBATE, PLAIN[0], "courage")  # courage 1 -> -1: Mitterrand leads 2-0
    assert view(m)["rows"] == {"charisma": -1, "courage": -1, "integrity": 0} and view(m)["media"] == "chirac"


def test_the_polls_move_every_token_near_the_centre_and_go_back() -> None:
    m = mitterrand_draws(POLLS)  # charisma 0 and integrity 1 are within a step of the centre; courage 3 is not
    legal = [c for c in GAME.legal(m.state, 1) if c["apply"] == POLLS]
    assert legal and all("quality" not in c for c in legal)
    campaign(m, POLLS, PLAIN[0])
    assert view(m)["rows"] == {"charisma": -1, "courage": 3, "integrity": 0}
    c = view(m)["campaign"]
    assert c["applied"] == [] and c["pile"] == 8  # back into the pile


def test_the_polls_move_a_quality_of_your_choice_when_no_token_is_near_the_centre() -> None:
    m = mitterrand_draws(POLLS)
    m.state = revise(m.state, rows=(2, 3, -2))
    legal = [c for c in GAME.legal(m.state, 1) if c["apply"] == POLLS]
    assert sorted(c["quality"] for c in legal if c["remove"] == PLAIN[0]) == sorted(C.QUALITIES)
    with pytest.raises(IllegalCommand, match="quality"):
        campaign(m, POLLS, PLAIN[0])
    campaign(m, POLLS, PLAIN[0], "charisma")
    assert view(m)["rows"] == {"charisma": 1, "courage": 3, "integrity": -2}


# -- the bot ----------------------------------------------------------------------------------------------


def test_the_bot_applies_le_pen_when_it_wins_the_game() -> None:
    # Chirac leads 2-0 with four Power Erosion: Le Pen's two cards are his sixth
    m = mitterrand_draws(LEPEN)
    s = m.state
    m.state = revise(s, erosion=(s.erosion[0] + s.discard[:2], s.erosion[1]), discard=s.discard[2:])
    command = HeuristicBot(1).choose(GAME, GAME.view(m.state, 1), GAME.legal(m.state, 1))
    assert command["apply"] == LEPEN
    m.submit(1, command)
    assert m.outcome is not None and view(m)["winner"] == "mitterrand"


# -- old saves ------------------------------------------------------------------------------------------------

#: a game played by main's code before the second set (seed 61, easy bots, bot seed 5): its header
#: had no variants at all; the commands, and a digest of the events main's code gave them
OLD_GAME_SEED = 61
OLD_GAME_DIGEST = "61b9438f3b0b50fdfae543dddc999fed16baa38463766920d2b2215770a65ac9"
OLD_GAME_COMMANDS = json.loads(
    r"""[[0, {"t": "PlayCard", "card": "ev:07", "action": 0, "under": ["ev:11", "ev:05"]}], [1, {"t": "PlayCard", "card": "ev:17", "action": 0, "under": ["ev:03", "ev:15"]}], [0, {"t": "PlayCard", "card": "ev:14", "action": 0, "under": ["ev:24", "ev:13"]}], [1, {"t": "PlayCard", "card": "ev:01", "action": 0, "under": ["ev:19", "ev:18"]}], [0, {"t": "PlayCard", "card": "ev:16", "action": 1, "under": ["ev:04", "ev:10"], "choices": ["courage"]}], [1, {"t": "PlayCard", "card": "ev:06", "action": 1, "under": ["ev:02", "ev:12"]}], [0, {"t": "PlayCard", "card": "ev:22", "action": 1, "under": ["ev:03", "ev:15"]}], [1, {"t": "PlayCard", "card": "ev:21", "action": 0, "under": ["ev:11", "ev:05"]}], [0, {"t": "PlayCard", "card": "ev:19", "action": 0, "under": ["ev:18", "ev:02"]}], [1, {"t": "PlayCard", "card": "ev:24", "action": 0, "under": ["ev:13", "ev:04"]}], [0, {"t": "PlayCard", "card": "ev:12", "action": 0, "under": ["ev:11", "ev:05"], "choices": ["integrity"]}], [1, {"t": "PlayCard", "card": "ev:03", "action": 1, "under": ["ev:10", "ev:15"]}], [0, {"t": "Campaign", "apply": "cp:01", "remove": "cp:06"}], [0, {"t": "PlayCard", "card": "ev:10", "action": 0, "under": ["ev:13", "ev:04"]}], [1, {"t": "PlayCard", "card": "ev:18", "action": 1, "under": ["ev:02", "ev:11"]}], [0, {"t": "PlayCard", "card": "ev:02", "action": 0, "under": ["ev:15", "ev:11"]}], [1, {"t": "PlayCard", "card": "ev:13", "action": 1, "under": ["ev:05", "ev:04"]}], [1, {"t": "Campaign", "apply": "cp:08", "remove": "cp:05", "quality": "charisma"}], [0, {"t": "Campaign", "apply": "cp:09", "remove": "cp:04", "quality": "integrity"}], [1, {"t": "Campaign", "apply": "cp:03", "remove": "cp:07"}]]"""
)


#: the position after each of those commands, as main's code recorded it (a save's checkpoints
#: hold such positions: a field added to the state would make every old save diverge at once)
OLD_GAME_STATES = [
    "6390031f772e0ed1",
    "0934653958c2f815",
    "243bf77ff6014fcd",
    "dcb4ea223028ab42",
    "e6f04bb11874d671",
    "c312d8044d44698c",
    "533ecbf71df7a8ff",
    "9e5f5f244e3c7d82",
    "e2771d4aeec685fb",
    "527aec2f54012bed",
    "e067b2331e895321",
    "cd47fe450dfe573e",
    "623a1ceb9d8f03ec",
    "b61cdccb68191c11",
    "9909bffd7c215def",
    "4f5fc2f54cecee33",
    "b8db651069f908e3",
    "9eafcafadc47ab09",
    "bc018d207604b227",
    "da7dd1635f059476",
]


def digested(state) -> dict:
    """The state's fields a checkpoint digests (``GAME.canonical``), by name: the
    fields the state had when those positions were recorded."""
    return {name: to_plain(getattr(state, name)) for name in DIGESTED_FIELDS}


def replay_as_recorded(header: dict, commands: list, states: list[str]) -> Match:
    """Play an old game's commands again under today's rules, checking each position against
    the one the old code recorded (the fields a checkpoint digests, hashed)."""
    m = Match.new(GAME, header)
    for (seat, command), expected in zip(commands, states, strict=True):
        m.submit(seat, command)
        plain = json.dumps(digested(m.state), sort_keys=True, ensure_ascii=False)
        assert hashlib.sha256(plain.encode()).hexdigest()[:16] == expected
    assert m.outcome is not None
    return m


def events_digest(m: Match) -> str:
    return hashlib.sha256(json.dumps(m.events, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def old_header(seed: int = OLD_GAME_SEED) -> dict:
    config = GAME.make_config(2, [{"name": "Jacques"}, {"name": "François"}])
    header = make_header(GAME, config, seed, controllers=[{"kind": "bot", "level": "easy"}] * 2, bot_seed=5)
    header["variants"] = {}  # what main wrote: the game had no variants
    return header


def test_an_old_header_plays_the_first_set_exactly_as_before() -> None:
    m = replay_as_recorded(old_header(), OLD_GAME_COMMANDS, OLD_GAME_STATES)
    applied = [e["applied"] for e in of(m.events, "CampaignApplied")]
    assert applied == ["cp:01", "cp:08", "cp:09", "cp:03"]
    (setup,) = of(m.events, "GameSetUp")
    assert sorted(setup["campaign"]) == list(C.campaign_set("first"))
    assert events_digest(m) == OLD_GAME_DIGEST


def test_an_old_save_loads_verifies_and_replays(tmp_path) -> None:
    for header in (old_header(7), old_header(8)):
        m = Match.new(GAME, header)
        path = new_save_path(tmp_path, GAME.id)
        with SaveWriter(path, m, durable=False) as writer:
            Table(m, writer).play_out()
        assert "cp:01" in of(m.events, "GameSetUp")[0]["campaign"] + of(m.events, "GameSetUp")[0]["campaign_removed"]
        verify(path)  # every move decided again from the seed: raises on the first that differs
        loaded = load(path)
        assert loaded.match.header["variants"] == {}
        assert loaded.match.events == m.events and loaded.match.state == m.state


def test_the_first_set_is_still_a_choice() -> None:
    config = GAME.make_config(2, variants={"campaign": "first"})
    m = Match.new(GAME, make_header(GAME, config, 4))
    (setup,) = of(m.events, "GameSetUp")
    assert sorted(setup["campaign"]) == list(C.campaign_set("first"))
