"""L'Agent Jean!: one test per rule and per documented decision.

Positions are built by playing commands through a Match, with decks stacked
through the header's ``arranged`` key.
"""

from __future__ import annotations

import pytest

from core.bots import make_bot
from core.bots.random_bot import RandomBot
from core.engine import ALL, PUBLIC, ConfigError, IllegalCommand, Match, make_header
from core.games import get_game
from core.games.agent_jean import GAME
from core.games.agent_jean import cards as C
from core.games.agent_jean.bot import HeuristicBot
from core.games.agent_jean.rules import bonus_amount, next_round_leader, score_round, trick_winner
from table import Table

AGENT_ORDER = ("jean", "bulle", "wxt", "henry", "martha")


# -- building positions ------------------------------------------------------------


def deal(*seats: list[str], players: int | None = None) -> list[str]:
    """The 60 Action cards in deal order: each seat's given cards first (hand
    then reserve), topped up to 12 with cards nobody named."""
    players = players or len(seats)
    named = {c for s in seats for c in s}
    rest = [c for c in C.ACTION_CARDS if c not in named]
    order: list[str] = []
    for i in range(players):
        cards = list(seats[i]) if i < len(seats) else []
        while len(cards) < 12:
            cards.append(rest.pop(0))
        order += cards
    return order + rest


def pile(agents: tuple[str, ...], *top: str, young: bool = False) -> list[str]:
    cards = list(C.PLAN_IDS) + ([] if young else [C.power_card(a) for a in agents])
    return list(top) + [c for c in cards if c not in top]


def new_match(
    players: int = 3,
    agents: tuple[str, ...] | None = None,
    hands: tuple[list[str], ...] = (),
    top: tuple[str, ...] = (),
    leader: int = 0,
    variants: dict | None = None,
    later: list | None = None,
    seed: int = 1,
) -> Match:
    agents = agents or AGENT_ORDER[:players]
    young = (variants or {}).get("young") == "on"
    seats = [{"name": f"P{i}", "agent": a} for i, a in enumerate(agents)]
    config = GAME.make_config(players, seats, variants)
    arranged = {"actions": deal(*hands, players=players), "plans": pile(agents, *top, young=young), "leader": leader}
    if later is not None:
        arranged["later"] = later
    return Match.new(GAME, make_header(GAME, config, seed, arranged=arranged))


def play(match: Match, *cards: str) -> list[dict]:
    """Each card played by whoever must play next; all the events caused."""
    events: list[dict] = []
    for card in cards:
        (seat,) = match.active()
        events += match.submit(seat, {"t": "PlayCard", "card": card})
    return events


def won(events: list[dict]) -> dict:
    (ev,) = [e for e in events if e["t"] == "TurnWon"]
    return ev


def of(events: list[dict], t: str) -> list[dict]:
    return [e for e in events if e["t"] == t]


# -- registry, table ----------------------------------------------------------------


def test_registered_with_its_options() -> None:
    game = get_game("agent-jean")
    assert game is GAME
    assert (game.title, game.min_players, game.max_players) == ("L'Agent Jean!", 2, 5)
    assert {v.key: v.choices for v in game.variants} == {
        "young": ("off", "on"),
        "bonus": ("rulebook", "board"),
        "counts": ("hidden", "open"),
        "no_yellows": ("penalty", "none"),
    }
    assert game.seat_options[0].key == "agent" and game.seat_options[0].unique
    assert game.bot_levels == ("random", "easy", "normal", "hard")
    assert isinstance(make_bot(game, "easy", 1), HeuristicBot)
    assert isinstance(make_bot(game, "random", 1), RandomBot)
    with pytest.raises(ConfigError):
        make_bot(game, "genius", 1)


def test_two_seats_cannot_play_the_same_agent() -> None:
    with pytest.raises(ConfigError):
        GAME.make_config(2, [{"agent": "bulle"}, {"agent": "bulle"}])
    config = GAME.make_config(3, [{"agent": "martha"}])
    assert [s["agent"] for s in config["seats"]] == ["martha", "jean", "bulle"]


def test_components() -> None:
    assert len(C.ACTION_CARDS) == 60
    counts = {letter: sum(1 for c in C.ACTION_CARDS if c[0] == letter) for letter in "PBGY"}
    assert counts == {"P": 10, "B": 18, "G": 16, "Y": 16}
    assert len(C.PLAN_IDS) == 20 and sorted({p.value for p in C.PLANS}) == [1, 2, 3, 4, 5, 6]
    accomplices = {p.name: (p.value, p.accomplice) for p in C.PLANS if p.accomplice}
    assert accomplices["Farine"] == (5, "farine")
    assert len(accomplices) == 5
    assert (C.colour("G8"), C.value("G8"), C.card_label("G8")) == ("green", 8, "G8")
    assert C.plan_info("plan:18")["name"] == "Farine" and C.plan_info("power:wxt")["value"] == 0
    assert C.power_info("henry")["name"] == "Henry B. Belton"


def test_setup_deals_six_in_hand_and_six_face_down() -> None:
    for players in (2, 3, 4, 5):
        match = Match.new(GAME, make_header(GAME, GAME.make_config(players), seed=players))
        s = match.state
        assert all(len(h) == 6 for h in s.hands) and all(len(r) == 6 for r in s.reserves)
        assert len(s.set_aside) == 60 - 12 * players
        assert len(s.pile) == 20 + players
        view = GAME.view(s, 0)
        assert len(view["hand"]) == 6
        assert view["players"][0]["reserve"] == 6
        assert "reserve_cards" not in view["players"][0]  # not even its owner sees it


def test_first_leader_is_drawn_at_random_and_recorded() -> None:
    leaders = set()
    for seed in range(12):
        match = Match.new(GAME, make_header(GAME, GAME.make_config(4, variants={"young": "on"}), seed=seed))
        (chosen,) = of(match.events, "LeaderChosen")
        assert chosen["reason"] == "draw"
        assert GAME.view(match.state, PUBLIC)["leader"] == chosen["seat"]
        leaders.add(chosen["seat"])
    assert len(leaders) > 1


def test_seat_options_and_table_in_view() -> None:
    match = new_match(3, hands=(["G8"], ["Y12"], ["G11"]))
    view = GAME.view(match.state, 1)
    assert set(view) >= {
        "seat",
        "round",
        "turn",
        "phase",
        "active",
        "leader",
        "order",
        "plan_top",
        "plan_count",
        "effects",
        "table",
        "hand",
        "players",
        "last_round",
        "winners",
    }
    assert (view["seat"], view["round"], view["turn"], view["phase"]) == (1, 1, 1, "play")
    assert view["plan_count"] == 23
    assert view["hand"] == sorted(view["hand"], key=C.hand_order)
    play(match, "G8")
    table = GAME.view(match.state, PUBLIC)["table"]
    assert table == [{"seat": 0, "card": "G8", "value": 8}]
    assert GAME.view(match.state, PUBLIC)["hand"] is None


# -- winning a turn ---------------------------------------------------------------------


def test_highest_card_of_the_first_colour_wins() -> None:
    match = new_match(3, hands=(["G8"], ["Y12"], ["G11"]), variants={"young": "on"})
    assert won(play(match, "G8", "Y12", "G11"))["seat"] == 2


def test_a_higher_card_of_another_colour_does_not_win() -> None:
    match = new_match(3, hands=(["B3"], ["B18"], ["B2"]), variants={"young": "on"})
    assert won(play(match, "B3", "B18", "B2"))["seat"] == 1
    match = new_match(3, hands=(["Y3"], ["B18"], ["G16"]), variants={"young": "on"})
    assert won(play(match, "Y3", "B18", "G16"))["seat"] == 0


def test_purple_beats_the_first_colour_and_the_highest_purple_wins() -> None:
    match = new_match(3, hands=(["B18"], ["P2"], ["P7"]), variants={"young": "on"})
    assert won(play(match, "B18", "P2", "P7"))["seat"] == 2
    match = new_match(2, hands=(["G16"], ["P1"]), variants={"young": "on"})
    assert won(play(match, "G16", "P1"))["seat"] == 1


def test_winner_takes_the_cards_and_the_plan_and_leads_next() -> None:
    match = new_match(3, hands=(["G8"], ["Y12"], ["G11"]), top=("plan:07", "plan:19"), variants={"young": "on"})
    ev = won(play(match, "G8", "Y12", "G11"))
    assert ev["plan"] == "plan:07" and ev["revealed"] == "plan:19"
    view = GAME.view(match.state, 2)
    assert view["players"][2]["plans"] == ["plan:07"]
    assert (view["players"][2]["won"], view["players"][2]["greens"], view["players"][2]["yellows"]) == (3, 2, 1)
    assert view["plan_top"] == "plan:19"
    assert (view["turn"], view["leader"], view["active"]) == (2, 2, [2])
    assert view["table"] == []
    assert view["last_turn"] == {"seat": 2, "cards": ["G8", "Y12", "G11"], "plans": ["plan:07"]}


def test_trick_winner_function() -> None:
    assert trick_winner([(0, "G8", 8), (1, "Y12", 12), (2, "G11", 11)]) == 2
    assert trick_winner([(0, "G8", 8), (1, "P1", 1), (2, "P2", 2)]) == 2
    # a card at 0 or below is out: the sabotaged lead no longer sets the colour
    assert trick_winner([(0, "G8", -91), (1, "Y2", 2), (2, "G11", 11)]) == 1


# -- the reserve -------------------------------------------------------------------------


def test_reserve_is_taken_up_after_six_turns() -> None:
    hands = (
        ["B1", "B2", "B3", "B4", "B5", "B6", "G1", "G2", "G3", "G4", "G5", "G6"],
        ["Y1", "Y2", "Y3", "Y4", "Y5", "Y6", "G7", "G8", "G9", "G10", "G11", "G12"],
    )
    match = new_match(2, hands=hands, variants={"young": "on"})
    view = GAME.view(match.state, 0)
    assert view["players"][0]["reserve"] == 6 and "G1" not in str(view)
    for k in range(1, 6):
        assert not of(play(match, f"B{k}", f"Y{k}"), "ReserveTakenUp")
    events = play(match, "B6", "Y6")
    (taken,) = of(events, "ReserveTakenUp")
    assert taken["reserves"] == [hands[0][6:], hands[1][6:]]
    view = GAME.view(match.state, 0)
    assert view["hand"] == hands[0][6:]
    assert view["players"][0]["reserve"] == 0 and view["turn"] == 7
    # others see only that it happened
    assert GAME.redact(taken, 1)["reserves"] == [None, hands[1][6:]]
    assert GAME.redact(taken, PUBLIC)["reserves"] == [None, None]
    assert "You take up G7 G8 G9 G10 G11 G12." in GAME.describe(taken, 1)


def test_a_card_of_the_reserve_cannot_be_played_before_turn_seven() -> None:
    match = new_match(2, hands=(["B1", "B2", "B3", "B4", "B5", "B6", "P10"],), variants={"young": "on"})
    with pytest.raises(IllegalCommand, match=r"You do not have P10 in your hand\."):
        match.submit(0, {"t": "PlayCard", "card": "P10"})


def test_deal_is_redacted_to_the_own_hand() -> None:
    match = new_match(3)
    dealt = match.events[0]
    assert dealt["t"] == "RoundDealt" and GAME.mark(dealt) == "round"
    mine = GAME.redact(dealt, 1)
    assert mine["hands"][1] == dealt["hands"][1]
    assert mine["hands"][0] is None and mine["hands"][2] is None
    assert mine["reserves"] == [None, None, None] and mine["reserve_counts"] == [6, 6, 6]
    assert mine["plans"] is None and mine["top"] == dealt["plans"][0]
    assert mine["set_aside"] is None and mine["set_aside_count"] == 24
    assert GAME.redact(dealt, ALL) == dealt


# -- powers -------------------------------------------------------------------------------


def test_bulle_adds_99_to_her_own_card() -> None:
    agents = ("jean", "bulle", "wxt")
    match = new_match(3, agents, hands=(["B10"], ["B2"], ["B11"]), top=("power:bulle", "plan:01"))
    (used,) = of(match.events, "PowerUsed")
    assert (used["seat"], used["agent"], used["revealed"]) == (1, "bulle", "plan:01")
    assert any("Bulle" in e for e in GAME.view(match.state, 0)["effects"])
    events = play(match, "B10", "B2")
    assert GAME.view(match.state, 0)["table"][1]["value"] == 101
    assert won(events + play(match, "B11"))["seat"] == 1


def test_bulle_off_colour_card_still_cannot_win() -> None:
    agents = ("jean", "bulle", "wxt")
    match = new_match(3, agents, hands=(["B10"], ["Y2"], ["B11"]), top=("power:bulle", "plan:01"))
    assert won(play(match, "B10", "Y2", "B11"))["seat"] == 2


def test_power_cards_go_to_the_owners_pile_worth_nothing() -> None:
    agents = ("jean", "bulle", "wxt")
    match = new_match(3, agents, top=("power:bulle", "plan:01"))
    view = GAME.view(match.state, 1)
    assert view["players"][1]["plans"] == ["power:bulle"]
    assert view["players"][1]["points"] == 0
    assert view["plan_top"] == "plan:01"


def test_wxt_takes_99_off_another_players_card_before_the_winner_is_found() -> None:
    agents = ("jean", "bulle", "wxt")
    match = new_match(3, agents, hands=(["G8"], ["G12"], ["G3"]), top=("power:wxt", "plan:05"))
    events = play(match, "G8", "G12", "G3")
    assert not of(events, "TurnWon")
    assert match.state.phase == "sabotage" and match.active() == (2,)
    assert GAME.legal(match.state, 2) == [{"t": "Sabotage", "seat": 0}, {"t": "Sabotage", "seat": 1}]
    with pytest.raises(IllegalCommand, match="another player"):
        match.submit(2, {"t": "Sabotage", "seat": 2})
    events = match.submit(2, {"t": "Sabotage", "seat": 1})
    assert events[0]["t"] == "CardSabotaged" and events[0]["card"] == "G12"
    assert won(events)["seat"] == 0  # G12 is worth -87 and out of the contest


def test_wxt_knocks_out_purple() -> None:
    agents = ("jean", "bulle", "wxt")
    match = new_match(3, agents, hands=(["G8"], ["P1"], ["G3"]), top=("power:wxt", "plan:05"))
    play(match, "G8", "P1", "G3")
    assert won(match.submit(2, {"t": "Sabotage", "seat": 1}))["seat"] == 0


def test_wxt_on_the_lead_card_passes_the_first_colour_on() -> None:
    agents = ("jean", "bulle", "wxt")
    match = new_match(3, agents, hands=(["G8"], ["Y2"], ["G3"]), top=("power:wxt", "plan:05"))
    play(match, "G8", "Y2", "G3")
    # G8 is out: the first card still in the contest is Y2, so yellow is the first colour
    assert won(match.submit(2, {"t": "Sabotage", "seat": 0}))["seat"] == 1


def test_wxt_and_bulle_cancel_out() -> None:
    agents = ("jean", "bulle", "wxt")
    match = new_match(3, agents, hands=(["B10"], ["B2"], ["B5"]), top=("power:bulle", "power:wxt", "plan:05"))
    play(match, "B10", "B2", "B5")
    events = match.submit(2, {"t": "Sabotage", "seat": 1})
    assert GAME.view(match.state, PUBLIC)["last_turn"]["seat"] == 0
    assert won(events)["seat"] == 0  # B2 + 99 - 99 = 2


def test_henry_chooses_who_leads_and_may_choose_himself() -> None:
    agents = ("jean", "bulle", "henry")
    match = new_match(3, agents, top=("power:henry", "plan:01"), leader=0)
    assert match.state.phase == "leader" and match.active() == (2,)
    assert GAME.legal(match.state, 2) == [{"t": "ChooseLeader", "seat": i} for i in range(3)]
    assert GAME.legal(match.state, 0) == []
    with pytest.raises(IllegalCommand, match="Choose one of the players"):
        match.submit(2, {"t": "ChooseLeader", "seat": 3})
    match.submit(2, {"t": "ChooseLeader", "seat": 1})
    assert GAME.view(match.state, 0)["order"] == [1, 2, 0]
    assert match.active() == (1,)

    match = new_match(3, agents, top=("power:henry", "plan:01"), leader=0)
    events = match.submit(2, {"t": "ChooseLeader", "seat": 2})
    assert GAME.describe(events[0], 0) == "P2 (Henry B. Belton) chooses to lead this turn."
    assert match.active() == (2,)


def test_martha_may_take_a_second_plan_when_she_wins() -> None:
    agents = ("jean", "martha")
    match = new_match(2, agents, hands=(["B2"], ["B9"]), top=("power:martha", "plan:03", "plan:19"))
    events = play(match, "B2", "B9")
    assert won(events)["seat"] == 1
    assert match.state.phase == "second_plan" and match.active() == (1,)
    events = match.submit(1, {"t": "TakeSecondPlan"})
    assert events[0]["plan"] == "plan:19"
    assert GAME.view(match.state, 1)["players"][1]["plans"] == ["power:martha", "plan:03", "plan:19"]
    assert match.active() == (1,)  # she won: she leads


def test_martha_may_leave_the_second_plan() -> None:
    agents = ("jean", "martha")
    match = new_match(2, agents, hands=(["B2"], ["B9"]), top=("power:martha", "plan:03", "plan:19"))
    play(match, "B2", "B9")
    events = match.submit(1, {"t": "DeclineSecondPlan"})
    assert events[0]["t"] == "SecondPlanDeclined"
    assert GAME.view(match.state, 1)["plan_top"] == "plan:19"
    assert GAME.view(match.state, 1)["players"][1]["plans"] == ["power:martha", "plan:03"]


def test_martha_gets_nothing_more_when_she_loses() -> None:
    agents = ("jean", "martha")
    match = new_match(2, agents, hands=(["B9"], ["B2"]), top=("power:martha", "plan:03", "plan:19"))
    play(match, "B9", "B2")
    assert match.state.phase == "play" and GAME.view(match.state, 0)["plan_top"] == "plan:19"


def test_martha_cannot_take_a_power_card_as_her_second_plan() -> None:
    agents = ("jean", "martha")
    match = new_match(2, agents, hands=(["B2", "B1"], ["B9", "B8"]), top=("power:martha", "plan:03", "power:jean"))
    events = play(match, "B2", "B9")
    assert won(events)["seat"] == 1
    # no choice: the next turn begins and Jean's power resolves as usual
    assert match.state.phase == "play"
    assert [e["agent"] for e in of(events, "PowerUsed")] == ["jean"]


def test_jean_plays_last() -> None:
    agents = ("jean", "bulle", "wxt")
    match = new_match(3, agents, hands=(["G5"], ["G8"], ["G4"]), top=("power:jean", "plan:01"), leader=2)
    assert GAME.view(match.state, 0)["order"] == [2, 1, 0]
    assert any("plays last" in e for e in GAME.view(match.state, 0)["effects"])
    # Jean leads: the next player leads in his place and sets the colour
    match = new_match(3, agents, hands=(["Y16"], ["G8"], ["G4"]), top=("power:jean", "plan:01"), leader=0)
    view = GAME.view(match.state, 0)
    assert view["order"] == [1, 2, 0] and view["leader"] == 1
    assert won(play(match, "G8", "G4", "Y16"))["seat"] == 1


def test_powers_resolve_in_the_order_they_are_revealed() -> None:
    agents = ("jean", "henry", "martha")
    match = new_match(3, agents, top=("power:henry", "power:jean", "power:martha", "plan:01"))
    assert [e["agent"] for e in of(match.events, "PowerUsed")] == ["henry"]
    events = match.submit(1, {"t": "ChooseLeader", "seat": 0})
    assert [e["t"] for e in events] == ["LeaderChosen", "PowerUsed", "PowerUsed"]
    assert [e["agent"] for e in of(events, "PowerUsed")] == ["jean", "martha"]
    view = GAME.view(match.state, 0)
    assert view["powers"] == ["henry", "jean", "martha"]
    assert view["order"] == [1, 2, 0]  # Henry named Jean to lead, but Jean plays last


def test_a_power_revealed_by_the_last_turn_resolves_at_the_next_round() -> None:
    """The power card on top when a round ends stays on top; its owner uses it
    at the start of the next round's first turn."""
    agents = ("jean", "bulle")
    match = new_match(2, agents, top=(*C.PLAN_IDS[:12], "power:bulle"), seed=3)
    play_out_round(match)
    first_turn = [e for e in match.events if e["t"] == "RoundDealt"][-1]
    assert first_turn["round"] == 2
    idx = match.events.index(first_turn)
    assert [e["agent"] for e in of(match.events[idx:], "PowerUsed")][:1] == ["bulle"]


def play_out_round(match: Match) -> None:
    """Play the lowest legal card (or the first legal command) until the round changes."""
    start = match.state.round
    while match.state.round == start and match.outcome is None:
        (seat,) = match.active()
        match.submit(seat, GAME.legal(match.state, seat)[0])


# -- accomplices -----------------------------------------------------------------------------


def test_farine_blue_beats_everything() -> None:
    match = new_match(3, hands=(["G8"], ["P10"], ["B1"]), top=("plan:18",), variants={"young": "on"})
    assert "Farine: blue cards beat all the others this turn." in GAME.view(match.state, 0)["effects"]
    assert won(play(match, "G8", "P10", "B1"))["seat"] == 2
    # without blue, the usual rule
    match = new_match(3, hands=(["G8"], ["P10"], ["G9"]), top=("plan:18",), variants={"young": "on"})
    assert won(play(match, "G8", "P10", "G9"))["seat"] == 1


def test_grumeau_purple_is_an_ordinary_colour() -> None:
    match = new_match(3, hands=(["G8"], ["P10"], ["G9"]), top=("plan:14",), variants={"young": "on"})
    assert won(play(match, "G8", "P10", "G9"))["seat"] == 2
    # led, purple is the first colour like any other
    match = new_match(3, hands=(["P2"], ["B18"], ["P5"]), top=("plan:14",), variants={"young": "on"})
    assert won(play(match, "P2", "B18", "P5"))["seat"] == 2


def test_levure_highest_card_of_any_colour_and_first_played_on_equals() -> None:
    match = new_match(3, hands=(["G8"], ["B18"], ["Y16"]), top=("plan:10",), variants={"young": "on"})
    assert won(play(match, "G8", "B18", "Y16"))["seat"] == 1
    match = new_match(3, hands=(["G8"], ["B8"], ["Y7"]), top=("plan:10",), variants={"young": "on"})
    assert won(play(match, "G8", "B8", "Y7"))["seat"] == 0
    match = new_match(3, hands=(["G8"], ["B18"], ["P1"]), top=("plan:10",), variants={"young": "on"})
    assert won(play(match, "G8", "B18", "P1"))["seat"] == 2


def test_miette_lowest_card_wins() -> None:
    match = new_match(3, hands=(["G8"], ["Y1"], ["G3"]), top=("plan:06",), variants={"young": "on"})
    assert won(play(match, "G8", "Y1", "G3"))["seat"] == 2
    match = new_match(3, hands=(["G8"], ["P9"], ["P4"]), top=("plan:06",), variants={"young": "on"})
    assert won(play(match, "G8", "P9", "P4"))["seat"] == 2


def test_miette_a_card_knocked_out_by_wxt_is_not_the_lowest() -> None:
    agents = ("jean", "bulle", "wxt")
    match = new_match(3, agents, hands=(["G8"], ["G2"], ["G5"]), top=("power:wxt", "plan:06"))
    play(match, "G8", "G2", "G5")
    assert won(match.submit(2, {"t": "Sabotage", "seat": 1}))["seat"] == 2


def test_brioche_play_goes_counter_clockwise() -> None:
    match = new_match(4, top=("plan:02",), leader=1, variants={"young": "on"})
    view = GAME.view(match.state, 0)
    assert view["order"] == [1, 0, 3, 2] and match.active() == (1,)


def test_brioche_with_jean_still_last() -> None:
    agents = ("jean", "bulle", "wxt", "henry")
    match = new_match(4, agents, top=("power:jean", "plan:02"), leader=1)
    assert GAME.view(match.state, 0)["order"] == [1, 3, 2, 0]


def test_accomplice_rule_lasts_one_turn() -> None:
    match = new_match(
        3, hands=(["G8", "G1"], ["Y1", "G2"], ["G3", "G16"]), top=("plan:06", "plan:07"), variants={"young": "on"}
    )
    assert won(play(match, "G8", "Y1", "G3"))["seat"] == 2
    assert GAME.view(match.state, 0)["effects"] == []
    assert won(play(match, "G16", "G1", "G2"))["seat"] == 2  # highest again


# -- scoring --------------------------------------------------------------------------------


def test_score_round_bonus_penalty_and_ties() -> None:
    # fewest greens: seats 1 and 2 tie; most yellows: seat 0 alone
    bonus, penalty, scores, medals = score_round([10, 6, 4], [3, 1, 1], [5, 2, 0], 8)
    assert bonus == [0, 8, 8] and penalty == [8, 0, 0]
    assert scores == [2, 14, 12] and medals == [1]
    # ties for the most yellows are all penalised; tied best scores all take a medal
    bonus, penalty, scores, medals = score_round([6, 6, 0], [2, 2, 2], [3, 3, 1], 5)
    assert bonus == [5, 5, 5] and penalty == [5, 5, 0] and scores == [6, 6, 5] and medals == [0, 1]


def test_when_nobody_won_a_yellow_everyone_is_tied_for_the_most() -> None:
    # the rulebook's tie rule (the default): all tied on none, all pay
    assert score_round([3, 2], [0, 1], [0, 0], 8, penalise_none=True)[1] == [8, 8]
    # the no_yellows=none variant (and older saves): nobody does
    assert score_round([3, 2], [0, 1], [0, 0], 8)[1] == [0, 0]


def test_bonus_amounts_of_both_variants() -> None:
    assert [bonus_amount("rulebook", n) for n in (2, 3, 4, 5)] == [8, 8, 5, 5]
    assert [bonus_amount("board", n) for n in (2, 3, 4, 5)] == [10, 10, 10, 10]


# A scripted 2-player round (young players): the follower always wins with the
# higher card of the leader's colour, so the winners alternate and both
# players end with no green, no yellow and the same plan points: both get the
# green bonus and, tied for the most yellows with none, both the penalty.
TIE_PILE = [
    "plan:01",
    "plan:02",
    "plan:07",
    "plan:08",
    "plan:11",
    "plan:12",
    "plan:15",
    "plan:16",
    "plan:19",
    "plan:20",
    "plan:05",
    "plan:06",  # Miette is turn 12
    "plan:03",
    "plan:04",
    "plan:09",
    "plan:10",
    "plan:13",
    "plan:14",
    "plan:17",
    "plan:18",
]


def tie_cards(miette_last: bool) -> tuple[list[str], list[str]]:
    """Cards of seat 0 and seat 1, in the order they play them."""
    seat0, seat1 = [], []
    for k in range(1, 10):
        low, high = f"B{2 * k - 1}", f"B{2 * k}"
        lead, follow = (seat0, seat1) if k % 2 else (seat1, seat0)
        lead.append(low)
        follow.append(high)
    for k, (low, high) in zip((10, 11, 12), (("P1", "P2"), ("P3", "P4"), ("P5", "P6")), strict=True):
        lead, follow = (seat0, seat1) if k % 2 else (seat1, seat0)
        if k == 12 and miette_last:
            low, high = high, low  # under Miette the lowest card wins
        lead.append(low)
        follow.append(high)
    return seat0, seat1


def play_script(match: Match, cards: tuple[list[str], list[str]]) -> list[dict]:
    events: list[dict] = []
    start = match.state.round
    while match.state.round == start and match.outcome is None:
        (seat,) = match.active()
        events += match.submit(seat, {"t": "PlayCard", "card": cards[seat][match.state.turn - 1]})
    return events


def new_tie_match(bonus: str = "rulebook") -> Match:
    agents = ("jean", "bulle")
    later = [{"actions": deal(*tie_cards(False)), "plans": TIE_PILE}]
    return new_match(
        2,
        agents,
        hands=tie_cards(True),
        top=tuple(TIE_PILE),
        leader=0,
        later=later,
        variants={"young": "on", "bonus": bonus},
    )


def test_tied_round_gives_both_a_medal_and_the_next_round_to_the_last_turn_winner() -> None:
    match = new_tie_match()
    events = play_script(match, tie_cards(True))
    (scored,) = of(events, "RoundScored")
    assert scored["plan_points"] == [21, 21]
    assert scored["greens"] == [0, 0] and scored["yellows"] == [0, 0]
    assert scored["bonus"] == [8, 8] and scored["penalty"] == [8, 8]
    assert scored["scores"] == [21, 21] and scored["medals"] == [0, 1]
    assert GAME.view(match.state, 0)["last_round"] == {"round": 1, "scores": [21, 21], "medals": [0, 1]}
    # seat 0 won the 12th turn and is among the round's winners: seat 0 leads
    (chosen,) = [e for e in events if e["t"] == "LeaderChosen"]
    assert chosen == {"t": "LeaderChosen", "seat": 0, "name": "P0", "reason": "round"}
    assert [p["medals"] for p in GAME.view(match.state, 1)["players"]] == [1, 1]


def test_new_round_puts_won_plans_under_the_pile_and_deals_all_action_cards() -> None:
    match = new_tie_match()
    events = play_script(match, tie_cards(True))
    (dealt,) = of(events, "RoundDealt")
    assert dealt["round"] == 2
    assert sorted(dealt["plans"]) == sorted(TIE_PILE[:12])  # the plans won in round 1
    assert match.state.pile == tuple(TIE_PILE[12:]) + tuple(TIE_PILE[:12])
    assert sorted(dealt["set_aside"] + [c for h in dealt["hands"] + dealt["reserves"] for c in h]) == sorted(
        C.ACTION_CARDS
    )
    view = GAME.view(match.state, 0)
    assert (view["round"], view["turn"]) == (2, 1)
    assert all(p["won"] == 0 and p["plans"] == [] for p in GAME.view(match.state, ALL)["players"])
    assert all(p["won"] in (0, None) and p["plans"] in (None, []) for p in view["players"])


def test_random_new_round_reshuffles_from_the_rng_and_records_it() -> None:
    match = Match.new(GAME, make_header(GAME, GAME.make_config(3), seed=5))
    play_out_round(match)
    dealt = of(match.events, "RoundDealt")[-1]
    assert dealt["round"] == 2 and len(dealt["plans"]) >= 12
    # replaying the log alone gives the same state
    state = GAME.initial(match.config)
    for ev in match.events:
        state = GAME.evolve(state, ev)
    assert GAME.canonical(state) == GAME.canonical(match.state)


def test_second_medals_in_the_same_round_share_the_victory() -> None:
    match = new_tie_match("board")
    play_script(match, tie_cards(True))
    events = play_script(match, tie_cards(False))
    (scored,) = of(events, "RoundScored")
    assert scored["plan_points"] == [18, 18] and scored["bonus"] == [10, 10]
    (over,) = of(events, "GameWon")
    assert over["seats"] == [0, 1]
    outcome = match.outcome
    assert outcome.winners == (0, 1) and outcome.scores == (2, 2)
    assert "share the victory" in outcome.reason
    view = GAME.view(match.state, 0)
    assert view["phase"] == "over" and view["winners"] == [0, 1] and view["active"] == []
    with pytest.raises(IllegalCommand, match=r"The game is over\."):
        GAME.decide(match.state, 0, {"t": "PlayCard", "card": "B1"}, match.rng())


def test_a_single_second_medal_wins_the_game() -> None:
    # round 1 is tied (a medal each); in round 2 turn 1 is played in green, so
    # seat 1 takes two greens and seat 0 alone gets the bonus
    seat0, seat1 = tie_cards(False)
    seat0[0], seat1[0] = "G1", "G2"
    later = [{"actions": deal(seat0, seat1), "plans": TIE_PILE}]
    match = new_match(
        2,
        ("jean", "bulle"),
        hands=tie_cards(True),
        top=tuple(TIE_PILE),
        leader=0,
        later=later,
        variants={"young": "on"},
    )
    play_script(match, tie_cards(True))
    events = play_script(match, (seat0, seat1))
    (scored,) = of(events, "RoundScored")
    assert scored["greens"] == [0, 2] and scored["bonus"] == [8, 0]
    assert scored["penalty"] == [8, 8]  # no yellow again: both tied for the most
    assert scored["scores"] == [18, 10] and scored["medals"] == [0]
    (over,) = of(events, "GameWon")
    assert over["seats"] == [0]
    assert match.outcome.winners == (0,) and match.outcome.scores == (2, 1)
    assert match.outcome.reason == "P0 won a second medal: the best agent of the Agency."
    assert GAME.describe(over, 1) == "P0 wins a second medal and the game!"


def test_next_round_leader_ties() -> None:
    # the last turn's winner is among the tied winners: he leads
    assert next_round_leader([1, 3], 3, 4) == 3
    # otherwise the first tied winner clockwise from him
    assert next_round_leader([0, 2], 3, 4) == 0
    assert next_round_leader([0, 2], 1, 4) == 2


# -- young players ------------------------------------------------------------------------------


def test_young_players_leave_the_power_cards_in_the_box() -> None:
    match = Match.new(GAME, make_header(GAME, GAME.make_config(5, variants={"young": "on"}), seed=2))
    assert len(match.state.pile) == 20 and not any(C.is_power(c) for c in match.state.pile)


def test_only_the_powers_of_agents_at_the_table_are_in_the_pile() -> None:
    match = Match.new(GAME, make_header(GAME, GAME.make_config(2, [{"agent": "wxt"}, {"agent": "martha"}]), seed=2))
    powers = sorted(c for c in match.state.pile + sum(match.state.won_plans, ()) if C.is_power(c))
    assert powers == ["power:martha", "power:wxt"]


# -- illegal commands ---------------------------------------------------------------------------


def test_illegal_commands_give_a_sentence() -> None:
    match = new_match(3, hands=(["G8"], ["Y12"], ["G11"]), variants={"young": "on"})
    state, rng = match.state, match.rng()
    cases = [
        (1, {"t": "PlayCard", "card": "Y12"}, "It is P0's turn to play a card."),
        (0, {"t": "PlayCard", "card": "Y12"}, "You do not have Y12 in your hand."),
        (0, {"t": "PlayCard", "card": "Z3"}, "There is no Action card called 'Z3'."),
        (0, {"t": "PlayCard"}, "A PlayCard move needs a field 'card'."),
        (0, {"t": "ChooseLeader", "seat": 1}, "Not now: Play a card from your hand."),
        (0, {"t": "Dance"}, "L'Agent Jean! has no move called 'Dance'."),
        (0, {"card": "G8"}, "That is not a move of L'Agent Jean!."),
    ]
    for seat, command, sentence in cases:
        with pytest.raises(IllegalCommand) as err:
            GAME.decide(state, seat, command, rng)
        assert str(err.value) == sentence
    with pytest.raises(IllegalCommand):
        match.submit(2, {"t": "PlayCard", "card": "G11"})
    assert GAME.legal(state, 1) == [] and GAME.legal(state, 2) == []
    assert {"t": "PlayCard", "card": "G8"} in GAME.legal(state, 0)


def test_wrong_choice_in_a_power_phase() -> None:
    agents = ("jean", "bulle", "henry")
    match = new_match(3, agents, top=("power:henry", "plan:01"))
    with pytest.raises(IllegalCommand, match="Choose who leads"):
        match.submit(2, {"t": "PlayCard", "card": "B1"})
    with pytest.raises(IllegalCommand, match="Choose one of the players"):
        match.submit(2, {"t": "ChooseLeader", "seat": True})


# -- history helpers ------------------------------------------------------------------------------


def test_describe_mark_and_reveals() -> None:
    match = new_match(3, hands=(["G8"], ["Y12"], ["G11"]), top=("plan:07",), variants={"young": "on"})
    events = play(match, "G8", "Y12", "G11")
    played = events[0]
    assert GAME.describe(played, 1) == "P0 plays G8."
    assert GAME.reveals(played, 0) is False and GAME.reveals(played, 1) is True
    turn_won = won(events)
    assert GAME.describe(turn_won, 0).startswith("P2 wins the turn: 3 cards and plan Le Casse (3).")
    assert GAME.reveals(turn_won, 2) is True  # a plan card is turned
    started = of(events, "TurnStarted")[0]
    assert GAME.mark(started) == "turn" and GAME.mark(played) is None
    assert GAME.describe(started, 0) == "Turn 2 of round 1: P2 leads."
    for ev in match.events:
        for seat in (0, 1, 2, ALL, PUBLIC):
            assert isinstance(GAME.describe(GAME.redact(ev, seat), seat), str)


# -- the heuristic bot ------------------------------------------------------------------------------


def test_heuristic_bot_beats_the_random_bot() -> None:
    games, wins = 200, 0
    for i in range(games):
        smart = i % 2
        header = make_header(GAME, GAME.make_config(2), seed=10_000 + i)
        match = Match.new(GAME, header)
        bots = {s: make_bot(GAME, "easy" if s == smart else "random", 97 * i + s) for s in range(2)}
        Table(match).play_out(bots=bots)
        if match.outcome.winners == (smart,):
            wins += 1
    assert wins / games >= 0.70
