"""1988: Chirac contre Mitterrand, solo mode.

One scripted game with stacked piles (the header's ``arranged`` key) plays
every solo rule in turn: the automaton's turns, the veto, the automaton's
end-of-row bonus, its erosion exception, the campaign draws it gives away,
and the two-card final turn.  Each automaton turn is also checked against
the solo rules by ``check_automaton_turn``.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from core.bots import make_bot
from core.engine import ALL, PUBLIC, IllegalCommand, Match, make_header
from core.games.chirac_mitterrand import GAME
from core.games.chirac_mitterrand import cards as C
from core.games.chirac_mitterrand.rules import DIRECTION, SIDES
from saves import SaveWriter, load, new_save_path, verify
from table import Table
from tests.test_chirac_mitterrand_campaign import events_digest, replay_as_recorded

#: the automated Mitterrand's pile: two cards of each kind, its own actions early
AUTOMATON = ["ev:03", "ev:13", "ev:14", "ev:10", "ev:20", "ev:21", "ev:15", "ev:24"]
#: the human Chirac's sixteen cards, top first
HUMAN = [
    "ev:23", "ev:08", "ev:22",
    "ev:17", "ev:11", "ev:16",
    "ev:05", "ev:01", "ev:02",
    "ev:19", "ev:04", "ev:06",
    "ev:09", "ev:07", "ev:12", "ev:18",
]  # fmt: skip
CAMPAIGN = [["cp:07", "cp:03", "cp:06"], ["cp:09", "cp:01", "cp:05"]]


def solo_match(candidate: str = "chirac", seed: int = 3, arranged: dict | None = None) -> Match:
    config = GAME.make_config(1, [{"candidate": candidate, "name": "Alice"}], {"campaign": "first"})
    return Match.new(GAME, make_header(GAME, config, seed, arranged=arranged))


def scripted() -> Match:
    return solo_match(arranged={"chirac": HUMAN, "mitterrand": AUTOMATON, "campaign": CAMPAIGN})


def play(match: Match, card: str, action: int, remove: str, under: list[str], choices: list[str] | None = None):
    command = {"t": "PlayCard", "card": card, "action": action, "remove": remove, "under": under}
    if choices:
        command["choices"] = choices
    return match.submit(0, command)


def of(events: list[dict], t: str) -> list[dict]:
    return [e for e in events if e["t"] == t]


def rows(match: Match) -> dict:
    return GAME.view(match.state, 0)["rows"]


def eroded(match: Match) -> dict:
    return {side: len(cards) for side, cards in GAME.view(match.state, 0)["erosion"].items()}


def check_automaton_turn(events: list[dict]) -> None:
    """Every AutomatonPlayed in ``events`` follows the solo rules: neutral and
    own actions (minus a vetoed one), in order, the random choices filled in,
    then the card placed."""
    for i, ev in enumerate(events):
        if ev["t"] != "AutomatonPlayed":
            continue
        side = ev["by"]
        card = C.actions(ev["card"])
        own = C.OWN_COLOUR[side]
        expected = [j for j, a in enumerate(card) if a.colour == "white" or (a.colour == own and not ev["skipped_own"])]
        assert ev["actions"] == [j for j in expected if j != ev["vetoed"]]
        picks = iter(ev["choices"])
        qualities = [next(picks) if icon == C.CHOICE else icon for j in ev["actions"] for icon in card[j].icons]
        assert next(picks, None) is None
        follow = events[i + 1 : i + 1 + len(qualities)]
        for q, step in zip(qualities, follow, strict=True):
            assert step["t"] in ("TokenMoved", "MediaTaken", "ErosionInflicted", "BonusLost")
            assert step["quality"] == q and step["by"] == side
            if step["t"] == "TokenMoved":
                assert step["to"] - step["from"] == DIRECTION[SIDES.index(side)]
        placed = events[i + 1 + len(qualities)]
        used_own = any(card[j].colour == own for j in expected)
        assert placed["t"] == ("ErosionTaken" if used_own else "CardDiscarded")
        assert placed["card"] == ev["card"]


# -- the scripted game ---------------------------------------------------------------------


def test_scripted_solo_game() -> None:
    m = scripted()
    (setup,) = of(m.events, "GameSetUp")
    assert setup["solo"] and setup["automaton"] == "mitterrand"
    assert setup["discard"] == [] and setup["campaign_removed"] == ["cp:08"]
    view = GAME.view(m.state, 0)
    assert view["solo"] and view["seats"] == {"chirac": 0, "mitterrand": None}
    assert view["names"]["mitterrand"] == "Automaton"
    assert view["piles"] == {"chirac": 13, "mitterrand": 8} and view["hand"] == ["ev:23", "ev:08", "ev:22"]
    assert view["campaign"]["pile"] == 8 and view["campaign"]["removed"] == ["cp:08"]

    # Turn 1: a neutral action; one card removed, the last under our own pile, where we know it
    events = play(m, "ev:08", 0, remove="ev:22", under=["ev:23"])
    assert [e["t"] for e in events[:5]] == ["CardPlayed", "TokenMoved", "CardDiscarded", "CardRemoved", "CardsSlid"]
    assert of(events, "CardsSlid")[0]["onto"] == "chirac"
    view = GAME.view(m.state, 0)
    assert view["removed"] == ["ev:22"] and view["known_bottom"]["chirac"] == ["ev:23"]
    assert view["known_bottom"]["mitterrand"] == []
    # Turn 2: the automaton turns over its top card; its neutral action could be vetoed
    assert view["phase"] == "veto" and view["automaton_card"] == "ev:03" and view["active"] == [0]
    assert GAME.legal(m.state, 0) == [{"t": "Veto", "action": 0}, {"t": "Allow"}]
    events = m.submit(0, {"t": "Allow"})
    check_automaton_turn(events)
    (auto,) = of(events, "AutomatonPlayed")
    assert auto["actions"] == [0, 1] and auto["vetoed"] is None
    assert rows(m) == {"charisma": 0, "courage": 0, "integrity": -2}
    assert eroded(m) == {"chirac": 0, "mitterrand": 1}
    assert not GAME.view(m.state, 0)["veto_used"]  # allowing does not spend the veto

    # Turn 3: a choice icon; turn 4: the automaton's own action gives it a 2nd erosion: we draw
    events = play(m, "ev:16", 1, remove="ev:11", under=["ev:17"], choices=["courage"])
    check_automaton_turn(events)
    assert GAME.view(m.state, 0)["phase"] == "campaign"
    (drawn,) = of(events, "CampaignDrawn")
    assert drawn["by"] == "chirac" and drawn["cards"] == CAMPAIGN[0]
    assert events[-1] is drawn  # right after the automaton's turn, before ours
    # Le Pen: the automaton takes a random card of the discard pile as Power Erosion
    discard = list(GAME.view(m.state, 0)["discard"])
    events = m.submit(0, {"t": "Campaign", "apply": "cp:07", "remove": "cp:03"})
    (hit,) = of(events, "ErosionInflicted")
    assert hit["on"] == "mitterrand" and hit["card"] in discard and hit["count"] == 3
    assert GAME.view(m.state, 0)["campaign"]["removed"] == ["cp:08", "cp:03"]
    assert GAME.view(m.state, 0)["campaign"]["applied"] == ["cp:07"]

    # Turn 5: our own action gives us Power Erosion, but the automaton never draws campaign cards
    events = play(m, "ev:01", 1, remove="ev:02", under=["ev:05"])
    assert of(events, "ErosionTaken")[0]["by"] == "chirac"
    assert rows(m)["courage"] == 3
    # Turn 6: allowed again; its 4th erosion gives us a second draw: we take the Media token
    events = m.submit(0, {"t": "Allow"})
    check_automaton_turn(events)
    assert eroded(m) == {"chirac": 1, "mitterrand": 4}
    assert of(events, "CampaignDrawn")[0]["cards"] == CAMPAIGN[1]
    events = m.submit(0, {"t": "Campaign", "apply": "cp:01", "remove": "cp:05"})
    assert of(events, "MediaTaken")[0]["by"] == "chirac"

    # Turn 7: courage reaches our end; the next icon, Media in hand, erodes the automaton (5th)
    events = play(m, "ev:19", 0, remove="ev:04", under=["ev:06"])
    assert [e["t"] for e in events[1:3]] == ["TokenMoved", "ErosionInflicted"]
    assert eroded(m) == {"chirac": 2, "mitterrand": 5}
    assert not of(events, "CampaignDrawn")  # our 2nd erosion: the automaton draws nothing

    # Turn 8: the veto on one of its two neutral actions; the other one meets the end of the row
    view = GAME.view(m.state, 0)
    assert view["automaton_card"] == "ev:10"
    assert GAME.legal(m.state, 0) == [{"t": "Veto", "action": 0}, {"t": "Veto", "action": 1}, {"t": "Allow"}]
    events = m.submit(0, {"t": "Veto", "action": 0})
    check_automaton_turn(events)
    assert events[0]["t"] == "VetoUsed"
    (auto,) = of(events, "AutomatonPlayed")
    assert auto["actions"] == [1] and auto["vetoed"] == 0
    (media,) = of(events, "MediaTaken")  # integrity was already at Mitterrand's end
    assert media["by"] == "mitterrand" and media["quality"] == "integrity"
    assert GAME.view(m.state, 0)["veto_used"] and GAME.view(m.state, 0)["media"] == "mitterrand"

    # Turn 10: five erosions: its own action would be the sixth, so it is skipped; no neutral action
    events = play(m, "ev:12", 0, remove="ev:07", under=["ev:09"], choices=["charisma"])
    (auto,) = of(events, "AutomatonPlayed")
    assert auto["card"] == "ev:20" and auto["skipped_own"] and auto["actions"] == []
    check_automaton_turn(events)
    assert eroded(m)["mitterrand"] == 5
    assert "ev:20" in GAME.view(m.state, 0)["discard"]

    # Turns 11-14: the veto is spent: no more questions
    events = play(m, "ev:18", 0, remove="ev:17", under=["ev:23"])
    assert not any(e["t"] in ("VetoUsed", "VetoDeclined") for e in events)
    events = play(m, "ev:06", 0, remove="ev:05", under=["ev:09"], choices=["courage"])
    check_automaton_turn(events)

    # Turn 15: the final round: two cards for us, one left for the automaton
    view = GAME.view(m.state, 0)
    assert view["final_turn"] and view["turn"] == 15
    assert view["hand"] == ["ev:23", "ev:09"] and view["piles"] == {"chirac": 0, "mitterrand": 1}
    legal = GAME.legal(m.state, 0)
    assert {"t": "PlayCard", "card": "ev:23", "action": 0, "under": [], "remove": "ev:09"} in legal
    assert all(c["under"] == [] for c in legal)
    events = play(m, "ev:23", 0, remove="ev:09", under=[])
    check_automaton_turn(events)
    starts = of(events, "TurnStarted")
    assert [s["turn"] for s in starts] == [16] and starts[0]["final"]
    (end,) = of(events, "GameEnded")
    assert end["by"] == "election" and end["winner"] == "mitterrand" and end["automaton"]
    outcome = m.outcome
    assert outcome is not None and outcome.winners == ()
    assert "automated opponent" in outcome.reason and outcome.scores == (1,)
    assert m.active() == ()
    # the whole game, checked turn by turn
    check_automaton_turn(m.events)
    assert len(of(m.events, "AutomatonPlayed")) == 8
    assert len(of(m.events, "TurnStarted")) == 16


def test_the_automaton_plays_first_when_you_are_mitterrand() -> None:
    theirs = ["ev:08", "ev:10", "ev:01", "ev:02", "ev:03", "ev:04", "ev:05", "ev:09"]
    mine = [c for c in C.EVENT_IDS if c not in theirs]
    m = solo_match("mitterrand", arranged={"chirac": theirs, "mitterrand": mine})
    (first,) = of(m.events, "TurnStarted")
    assert first["by"] == "chirac" and first["name"] == "Automaton"
    # its first card has two neutral actions, one with a choice icon: we are asked first
    view = GAME.view(m.state, 0)
    assert view["phase"] == "veto" and view["automaton_card"] == "ev:08" and view["to_move"] == "chirac"
    events = m.submit(0, {"t": "Allow"})
    (auto,) = of(events, "AutomatonPlayed")
    assert len(auto["choices"]) == 1 and auto["choices"][0] in C.QUALITIES  # drawn at random
    check_automaton_turn(events)
    moved = of(events, "TokenMoved")
    assert [e["quality"] for e in moved] == ["courage", auto["choices"][0]]
    assert all(e["to"] == e["from"] + 1 for e in moved)  # the automaton is Chirac: rightwards
    assert GAME.view(m.state, 0)["phase"] == "play" and GAME.view(m.state, 0)["to_move"] == "mitterrand"


def test_random_solo_setup_gives_the_automaton_two_cards_of_each_kind() -> None:
    seen = set()
    for seed in range(6):
        for candidate in ("chirac", "mitterrand"):
            m = solo_match(candidate, seed=seed)
            (setup,) = of(m.events, "GameSetUp")
            automaton = "mitterrand" if candidate == "chirac" else "chirac"
            theirs = setup["piles"][automaton]
            assert Counter(C.kind(c) for c in theirs) == Counter({"NN": 2, "NC": 2, "NM": 2, "CM": 2})
            assert len(setup["piles"][candidate]) == 16
            assert sorted(theirs + setup["piles"][candidate]) == sorted(C.EVENT_IDS)
            assert setup["discard"] == [] and "cp:08" not in setup["campaign"] and len(setup["campaign"]) == 8
            seen.add(tuple(theirs))
    assert len(seen) > 1


def test_solo_commands_name_the_card_removed_and_the_card_kept() -> None:
    m = scripted()
    with pytest.raises(IllegalCommand, match="remove"):
        m.submit(0, {"t": "PlayCard", "card": "ev:08", "action": 0, "under": ["ev:23"]})
    with pytest.raises(IllegalCommand, match="own pile"):
        m.submit(0, {"t": "PlayCard", "card": "ev:08", "action": 0, "remove": "ev:22", "under": ["ev:22"]})
    legal = GAME.legal(m.state, 0)
    # 3 cards, their usable actions, and which of the two others is removed
    hand = ["ev:23", "ev:08", "ev:22"]
    usable = sum(1 for card in hand for a in C.actions(card) if C.may_use("chirac", a))
    choice_actions = sum(1 for card in hand for a in C.actions(card) if C.may_use("chirac", a) and C.CHOICE in a.icons)
    assert len(legal) == 2 * (usable - choice_actions) + 2 * 3 * choice_actions
    for command in legal:
        assert command["remove"] not in command["under"] and command["remove"] != command["card"]


def test_the_veto_is_refused_for_the_automatons_own_action() -> None:
    m = scripted()
    play(m, "ev:08", 0, remove="ev:22", under=["ev:23"])
    with pytest.raises(IllegalCommand, match="neutral"):
        m.submit(0, {"t": "Veto", "action": 1})  # ev:03's second action is Mitterrand's own
    with pytest.raises(IllegalCommand, match="Not now"):
        m.submit(0, {"t": "PlayCard", "card": "ev:17", "action": 0, "remove": "ev:11", "under": ["ev:16"]})


def test_what_the_solo_player_and_a_spectator_see() -> None:
    m = scripted()
    play(m, "ev:08", 0, remove="ev:22", under=["ev:23"])
    mine = GAME.view(m.state, 0)
    public = GAME.view(m.state, PUBLIC)
    assert mine["automaton_card"] == public["automaton_card"] == "ev:03"  # turned face up for all
    assert public["hand"] is None and public["known_bottom"]["chirac"] == []
    assert "pile_cards" not in mine and "pile_cards" in GAME.view(m.state, ALL)
    drawn = [e for e in m.events if e["t"] == "CardsDrawn"]
    assert GAME.redact(drawn[-1], PUBLIC)["cards"] == ["ev:03"]  # the automaton's card is public
    assert GAME.redact(drawn[0], PUBLIC)["cards"] is None  # our hand is not
    assert GAME.redact(drawn[0], 0)["cards"] == ["ev:23", "ev:08", "ev:22"]
    slid = next(e for e in m.events if e["t"] == "CardsSlid")
    assert GAME.redact(slid, 0)["cards"] == ["ev:23"] and GAME.redact(slid, PUBLIC)["cards"] is None


def test_solo_games_with_bots_end() -> None:

    for seed in range(12):
        for candidate in ("chirac", "mitterrand"):
            m = solo_match(candidate, seed=seed)
            Table(m).play_out(bots={0: make_bot(GAME, "easy" if seed % 2 else "random", seed)})
            assert m.outcome is not None
            assert m.outcome.winners in ((), (0,))
            assert len(of(m.events, "TurnStarted")) <= 16


def test_when_the_automaton_wins_the_game_says_so_and_the_save_keeps_it(tmp_path, monkeypatch) -> None:
    from core.engine import outcome_text
    from net.server import outcome_text as served_text

    for seed in range(40):
        m = solo_match("chirac", seed=seed)
        Table(m).play_out(bots={0: make_bot(GAME, "random", seed)})
        if m.outcome.winners == ():
            break
    else:
        pytest.fail("the random player beat the automaton forty times")
    assert m.outcome.victor == "The automated opponent (François Mitterrand)"
    text = outcome_text(m)
    assert text.startswith("The automated opponent (François Mitterrand) wins. ") and "Nobody" not in text
    assert served_text(m) == text  # what a served table's lobby says
    path = new_save_path(tmp_path, GAME.id)
    SaveWriter(path, m).close()
    again = load(path).match
    assert again.outcome == m.outcome and outcome_text(again) == text
    # a save whose result was written before results named the automaton loads as well
    from core.engine import Outcome

    older = new_save_path(tmp_path, GAME.id)
    with monkeypatch.context() as patch:
        patch.setattr(
            Outcome, "to_plain", lambda o: {"winners": list(o.winners), "reason": o.reason, "scores": list(o.scores)}
        )
        SaveWriter(older, m).close()
    assert load(older).match.outcome == m.outcome
    assert "does not follow" not in verify(older) and "diverges" not in verify(older)
    # and a game the player wins names the player, not the automaton
    for seed in range(40):
        won = solo_match("chirac", seed=seed)
        Table(won).play_out(bots={0: make_bot(GAME, "easy", seed)})
        if won.outcome.winners == (0,):
            assert won.outcome.victor == "" and outcome_text(won).startswith("Alice wins. ")
            break
    else:
        pytest.fail("the easy bot never beat the automaton in forty games")


# -- the hard automaton (variant solo=hard, a house rule) -----------------------------------------


def hard_match(candidate: str = "chirac", seed: int = 3, arranged: dict | None = None) -> Match:
    config = GAME.make_config(1, [{"candidate": candidate, "name": "Alice"}], {"solo": "hard"})
    return Match.new(GAME, make_header(GAME, config, seed, arranged=arranged))


def test_the_rulebooks_automaton_is_the_default() -> None:
    config = GAME.make_config(1, [{"candidate": "chirac"}])
    assert config["variants"]["solo"] == "standard"
    m = Match.new(GAME, make_header(GAME, config, 3))
    (setup,) = of(m.events, "GameSetUp")
    assert setup["row_length"] == 4 and "hard" not in setup
    assert GAME.view(m.state, 0)["solo_level"] == "standard"


def test_the_hard_automaton_draws_campaign_cards_face_up_and_you_have_no_veto() -> None:
    stack = [["cp:06", "cp:13", "cp:05"], ["cp:10", "cp:03", "cp:05"]]
    m = hard_match(arranged={"chirac": HUMAN, "mitterrand": AUTOMATON, "campaign": stack})
    (setup,) = of(m.events, "GameSetUp")
    assert setup["row_length"] == 6 and "no veto" in GAME.describe(setup, 0)
    assert GAME.view(m.state, 0)["row_length"] == 6 and GAME.view(m.state, 0)["solo_level"] == "hard"

    # Turn 1: our own action, a first Power Erosion; courage three squares our way
    play(m, "ev:23", 1, remove="ev:22", under=["ev:08"])
    # Turn 2: the automaton's card has a neutral action, and nobody is asked about a veto
    assert not any(e["t"] in ("VetoUsed", "VetoDeclined") for e in m.events)
    view = GAME.view(m.state, 0)
    assert view["phase"] == "play" and view["hand"] == ["ev:17", "ev:11", "ev:16"]
    with pytest.raises(IllegalCommand, match="Not now"):
        m.submit(0, {"t": "Veto", "action": 0})
    assert eroded(m) == {"chirac": 1, "mitterrand": 1}

    # Turn 3: our second Power Erosion: the automaton draws three, face up, before its turn
    events = play(m, "ev:17", 1, remove="ev:11", under=["ev:16"])
    (drawn, *_) = of(events, "CampaignDrawn")
    assert drawn["by"] == "mitterrand" and drawn["seat"] is None and drawn["cards"] == stack[0]
    (applied,) = of(events, "CampaignApplied")
    # it applies the first card drawn, removes the second, puts the third back
    assert (applied["applied"], applied["removed"], applied["returned"]) == ("cp:06", "cp:13", ["cp:05"])
    after = events[events.index(applied) + 1 : events.index(applied) + 3]
    assert [(e["t"], e["quality"], e["by"]) for e in after] == [
        ("TokenMoved", "courage", "mitterrand"),
        ("TokenMoved", "charisma", "mitterrand"),
    ]
    assert events.index(applied) < events.index(of(events, "TurnStarted")[0])
    # everybody sees its cards, the one put back too
    for seat in (0, PUBLIC):
        assert GAME.redact(drawn, seat)["cards"] == stack[0]
        assert GAME.redact(applied, seat)["returned"] == ["cp:05"]
    assert "returns Lettre à tous les Français to the pile" in GAME.describe(GAME.redact(applied, PUBLIC), PUBLIC)
    assert GAME.reveals(drawn, 0)
    # Turn 4: its own action, its second Power Erosion: our draw, ours alone to see
    view = GAME.view(m.state, 0)
    assert eroded(m) == {"chirac": 2, "mitterrand": 2}
    assert view["phase"] == "campaign" and view["campaign"]["drawer"] == "chirac"
    assert view["campaign"]["drawn"] == stack[1] and "drawn" not in GAME.view(m.state, PUBLIC)["campaign"]
    assert view["campaign"]["applied"] == ["cp:06"] and view["campaign"]["removed"] == ["cp:14", "cp:13"]


def automaton_draws_follow_your_erosion(m: Match) -> int:
    """Each automaton draw comes right after the human's second or fourth Power Erosion,
    and each of those gives one; returns how many it made."""
    human = GAME.view(m.state, 0)["you"]
    count, owed, reached = 0, [], set()
    for e in m.events:
        if (
            e["t"] in ("ErosionTaken", "ErosionInflicted")
            and e.get("on", e["by"]) == human
            and e["count"] in (2, 4)
            and e["count"] not in reached  # after Barre, once only
        ):
            reached.add(e["count"])
            owed.append(e["count"])
        if e["t"] == "CampaignDrawn" and e["by"] != human:
            assert owed, "the automaton drew with no draw owed"
            owed.pop(0)
            count += 1
    assert m.outcome is not None
    if m.state.ended_by != "erosion":
        assert not owed
    return count


def test_the_hard_automaton_draws_at_your_second_and_fourth_erosion_only() -> None:

    draws = 0
    for seed in range(10):
        for candidate in ("chirac", "mitterrand"):
            m = hard_match(candidate, seed=seed)
            Table(m).play_out(bots={0: make_bot(GAME, "easy" if seed % 2 else "random", seed)})
            assert not any(e["t"] in ("VetoUsed", "VetoDeclined") for e in m.events)
            draws += automaton_draws_follow_your_erosion(m)
            standard = solo_match(candidate, seed=seed)
            Table(standard).play_out(bots={0: make_bot(GAME, "random", seed)})
            assert all(e["by"] == candidate for e in of(standard.events, "CampaignDrawn"))
    assert draws > 10


def test_against_the_hard_automaton_the_bot_weighs_the_draw_its_own_action_gives_away() -> None:
    # seed 2, Chirac: on its sixth turn the bot holds Législatives du 16 mars with one Power Erosion;
    # its own action (three icons) would be its second and hand the automaton a campaign draw
    m = hard_match("chirac", seed=2)
    bot = make_bot(GAME, "easy", 1)
    turns = 0
    while True:
        view, legal = GAME.view(m.state, 0), GAME.legal(m.state, 0)
        command = bot.choose(GAME, view, legal)
        if command["t"] == "PlayCard":
            turns += 1
            if turns == 6:
                break
        m.submit(0, command)
    assert len(view["erosion"]["chirac"]) == 1 and command["card"] == "ev:01"
    assert C.actions("ev:01")[command["action"]].colour == "white"
    # against the rulebook's automaton, which never draws, the same position calls for the own action
    rulebook = bot.choose(GAME, dict(view, solo_level="standard"), legal)
    assert rulebook["card"] == "ev:01" and C.actions("ev:01")[rulebook["action"]].colour == "blue"


# -- old saves ----------------------------------------------------------------------------------

#: a solo game played by the code before the variant solo existed (seed 71, as Chirac, the easy
#: bot, bot seed 5): its header had no ``solo`` key; the commands, the position after each as the
#: old code recorded it, and a digest of all its events
OLD_SOLO_COMMANDS = json.loads(
    r"""[[0, {"t": "PlayCard", "card": "ev:15", "action": 0, "under": ["ev:17"], "remove": "ev:04"}], [0, {"t": "Allow"}], [0, {"t": "PlayCard", "card": "ev:12", "action": 0, "under": ["ev:08"], "remove": "ev:07", "choices": ["integrity"]}], [0, {"t": "Allow"}], [0, {"t": "PlayCard", "card": "ev:23", "action": 1, "under": ["ev:01"], "remove": "ev:22"}], [0, {"t": "Allow"}], [0, {"t": "Campaign", "apply": "cp:11", "remove": "cp:06", "quality": "courage"}], [0, {"t": "PlayCard", "card": "ev:09", "action": 0, "under": ["ev:16"], "remove": "ev:10"}], [0, {"t": "Allow"}], [0, {"t": "PlayCard", "card": "ev:19", "action": 0, "under": ["ev:20"], "remove": "ev:14"}], [0, {"t": "Allow"}], [0, {"t": "PlayCard", "card": "ev:17", "action": 1, "under": ["ev:08"], "remove": "ev:13"}], [0, {"t": "Campaign", "apply": "cp:15", "remove": "cp:12", "quality": "courage"}], [0, {"t": "PlayCard", "card": "ev:16", "action": 1, "under": ["ev:01"], "remove": "ev:20", "choices": ["courage"]}]]"""
)
OLD_SOLO_STATES = [
    "7a6c7716e67a38c6",
    "460496440d787d52",
    "44f085be6127739e",
    "421bb47c49792f7d",
    "a1a7329b257e4792",
    "9f6719ba76b70c17",
    "e940a3b30ad516af",
    "86645babf68382ce",
    "8e1ea6755f69abef",
    "cb84fdce55e90209",
    "370e6ee6bbb5b29a",
    "a3b449ecae85afd4",
    "e76c51809352bfe9",
    "86b6315b5b7074b0",
]
OLD_SOLO_DIGEST = "33d0816dba58751545649ae803208f5c777f6ed88502b8f3229c691bd95b24a9"


def old_solo_header(seed: int = 71) -> dict:
    config = GAME.make_config(1, [{"candidate": "chirac", "name": "Alice"}])
    header = make_header(GAME, config, seed, controllers=[{"kind": "bot", "level": "easy"}], bot_seed=5)
    header["variants"] = {"campaign": "second"}  # what the old code wrote
    return header


def test_an_old_solo_header_replays_exactly_as_before() -> None:
    m = replay_as_recorded(old_solo_header(), OLD_SOLO_COMMANDS, OLD_SOLO_STATES)
    assert m.outcome.winners == (0,) and events_digest(m) == OLD_SOLO_DIGEST
    assert GAME.view(m.state, 0)["solo_level"] == "standard"


def test_an_old_solo_save_loads_verifies_and_replays(tmp_path) -> None:

    m = Match.new(GAME, old_solo_header(9))
    path = new_save_path(tmp_path, GAME.id)
    with SaveWriter(path, m, durable=False) as writer:
        Table(m, writer).play_out()
    verify(path)  # every move decided again from the seed: raises on the first that differs
    loaded = load(path)
    assert loaded.match.header["variants"] == {"campaign": "second"}
    assert loaded.match.events == m.events and loaded.match.state == m.state
    assert GAME.canonical(loaded.match.state) == GAME.canonical(m.state)


def test_the_status_line_says_who_won_whole_at_80_columns(tmp_path) -> None:
    """A long victor's name is read whole on the status line: the game's title is shortened
    and gives way first, then the eyes are shortened, and they come back where there is room."""
    import asyncio

    from core.engine import ALL
    from screens.app import CabinetApp
    from screens.replay import ReplayScreen
    from tests.tui_helpers import screen_text
    from tui.session import start_save
    from tui.start import Start

    for seed in range(40):
        m = solo_match("chirac", seed=seed)
        Table(m).play_out(bots={0: make_bot(GAME, "random", seed)})
        if m.outcome.winners == ():
            break
    writer = start_save(tmp_path, m, durable=False)
    writer.close()

    async def status_at(size: tuple[int, int], then: tuple[int, int]) -> tuple[str, str]:
        """The status line at ``size``, and after the terminal is resized to ``then``."""
        app = CabinetApp(
            save_dir=tmp_path, start=Start(mode="replay", match=m, path=writer.path, viewer=ALL, locked=True)
        )
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            assert isinstance(app.screen, ReplayScreen)
            before = screen_text(app).splitlines()[0].strip()
            await pilot.resize_terminal(*then)
            await pilot.pause()
            return before, screen_text(app).splitlines()[0].strip()

    narrow, widened = asyncio.run(status_at((80, 24), (120, 40)))
    wide, narrowed = asyncio.run(status_at((120, 40), (80, 24)))
    assert (widened, narrowed) == (wide, narrow)  # a resize fits the line again
    assert narrow.endswith("The automated opponent (François Mitterrand) wins."), narrow
    assert "move " in narrow, narrow  # the title gives way first, shortened before it goes
    # with 40 columns more the title comes back, its start at least, and the eyes whole
    assert wide.startswith("Replay · 1988"), wide
    assert wide.endswith(
        f"move {m.move_count}/{m.move_count} · everything revealed · The automated opponent (François Mitterrand) wins."
    ), wide


@pytest.mark.parametrize("keys", [("enter",), ("1",), ("2",)])
def test_the_automatons_card_is_let_apply_by_enter_and_vetoed_on_purpose(tmp_path, keys) -> None:
    """Solo, the automaton's card turned up: the box asks "apply, or veto?", its lines
    numbered; Enter (or 1) lets it apply, 2 vetoes it. A play-test's Enter spent the one veto
    of the game (the veto was first and the lines had no number, nor did digits pick them)."""
    import asyncio

    from tests.tui_helpers import app_for, screen_text, settle
    from tui.session import start_save

    m = scripted()
    play(m, "ev:08", 0, remove="ev:22", under=["ev:23"])
    assert GAME.legal(m.state, 0) == [{"t": "Veto", "action": 0}, {"t": "Allow"}]
    app = app_for(tmp_path, start_save(tmp_path, m))

    async def run() -> list[str]:
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            text = screen_text(app)
            assert "Automaton's card: apply, or veto? (1-2)" in text, text
            assert "1. Let the automated opponent's card apply" in text and "2. Veto (once a game)" in text, text
            before = len(m.events)
            await pilot.press(*keys)
            await settle(pilot)
            return [e["t"] for e in m.events[before:]]

    made = asyncio.run(run())
    if keys == ("2",):
        assert made[0] == "VetoUsed", made
    else:
        assert "VetoUsed" not in made and made, made
