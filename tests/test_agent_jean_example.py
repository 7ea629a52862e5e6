"""The rulebook's Example of Play, move by move, with a stacked deck.

Seats, clockwise: Maëlys (Martha), Nathaniel (Henry B. Belton), Mathis
(Jean).  Turn 1 is arranged so that Maëlys wins it, as the example assumes;
turns 2 and 3 are the example's own.
"""

from __future__ import annotations

from core.engine import Match, make_header
from core.games.agent_jean import GAME
from core.games.agent_jean import cards as C

MAELYS, NATHANIEL, MATHIS = 0, 1, 2

HANDS = {
    MAELYS: ["P10", "G8", "P3", "B2", "B3", "B4"],
    NATHANIEL: ["B1", "Y12", "B7", "B5", "B6", "B8"],
    MATHIS: ["G1", "G11", "Y6", "G2", "G3", "G4"],
}
TOUR_EIFFEL, LE_CASSE, SIESTE, HOLD_UP = "plan:12", "plan:07", "plan:04", "plan:19"


def _arranged() -> dict:
    used = [c for h in HANDS.values() for c in h]
    rest = [c for c in C.ACTION_CARDS if c not in used]
    actions = []
    for seat in (MAELYS, NATHANIEL, MATHIS):
        actions += HANDS[seat] + rest[:6]  # six face-down cards each
        rest = rest[6:]
    actions += rest
    top = [TOUR_EIFFEL, LE_CASSE, "power:henry", "power:martha", SIESTE, HOLD_UP]
    pile = top + [p for p in C.PLAN_IDS if p not in top] + ["power:jean"]
    return {"actions": actions, "plans": pile, "leader": MAELYS}


def _match() -> Match:
    config = GAME.make_config(
        3,
        [
            {"name": "Maëlys", "agent": "martha"},
            {"name": "Nathaniel", "agent": "henry"},
            {"name": "Mathis", "agent": "jean"},
        ],
    )
    return Match.new(GAME, make_header(GAME, config, seed=7, arranged=_arranged()))


def _play(match: Match, seat: int, card: str) -> list[dict]:
    assert match.active() == (seat,)
    return match.submit(seat, {"t": "PlayCard", "card": card})


def _won(match: Match, events: list[dict]) -> dict:
    (won,) = [e for e in events if e["t"] == "TurnWon"]
    return won


def test_example_of_play() -> None:
    match = _match()
    assert match.state.phase == "play"
    assert GAME.view(match.state, MAELYS)["plan_top"] == TOUR_EIFFEL

    # Turn 1: Maëlys wins it, and with it the first plan card.
    _play(match, MAELYS, "P10")
    _play(match, NATHANIEL, "B1")
    won = _won(match, _play(match, MATHIS, "G1"))
    assert (won["seat"], won["plan"]) == (MAELYS, TOUR_EIFFEL)
    assert won["revealed"] == LE_CASSE

    # Turn 2: Maëlys leads because she won turn 1.
    view = GAME.view(match.state, MAELYS)
    assert (view["turn"], view["leader"], view["order"]) == (2, MAELYS, [MAELYS, NATHANIEL, MATHIS])
    _play(match, MAELYS, "G8")
    _play(match, NATHANIEL, "Y12")  # no need to follow green
    events = _play(match, MATHIS, "G11")
    won = _won(match, events)
    # no purple: the highest green, the first colour played, wins
    assert won["seat"] == MATHIS
    assert won["cards"] == ["G8", "Y12", "G11"]
    assert won["plan"] == LE_CASSE
    assert GAME.describe(won, MATHIS) == (
        "Mathis wins the turn: 3 cards and plan Le Casse (3). Now on the pile: Henry B. Belton's Power card."
    )
    # the won piles are not to be looked at: each sees its own, and of the
    # others only the take of the turn just won, not what they won before
    views = {seat: GAME.view(match.state, seat) for seat in (MAELYS, NATHANIEL, MATHIS)}
    assert all(v["played"] is None for v in views.values())
    assert views[MAELYS]["players"][MAELYS]["won_cards"] == sorted(["P10", "B1", "G1"], key=C.hand_order)
    assert views[MATHIS]["players"][MAELYS]["won"] is None
    assert views[MAELYS]["last_turn"]["cards"] == ["G8", "Y12", "G11"]

    # Turn 3 starts: Henry B. Belton's Power card is on top; Nathaniel carries it out.
    used = [e for e in events if e["t"] == "PowerUsed"]
    assert [(e["seat"], e["agent"]) for e in used] == [(NATHANIEL, "henry")]
    assert used[0]["revealed"] == "power:martha"
    assert match.state.phase == "leader"
    assert match.active() == (NATHANIEL,)
    events = match.submit(NATHANIEL, {"t": "ChooseLeader", "seat": NATHANIEL})  # he picks himself
    chosen = [e for e in events if e["t"] == "LeaderChosen"]
    assert chosen[0]["seat"] == NATHANIEL and chosen[0]["by"] == NATHANIEL

    # Taking Henry's card revealed Martha's: Maëlys carries it out in turn.
    used = [e for e in events if e["t"] == "PowerUsed"]
    assert [(e["seat"], e["agent"]) for e in used] == [(MAELYS, "martha")]
    view = GAME.view(match.state, MAELYS)
    assert view["plan_top"] == SIESTE and C.plan_value(SIESTE) == 2
    assert view["order"] == [NATHANIEL, MATHIS, MAELYS]
    assert view["powers"] == ["henry", "martha"]

    _play(match, NATHANIEL, "B7")
    _play(match, MATHIS, "Y6")
    events = _play(match, MAELYS, "P3")
    won = _won(match, events)
    # the only purple card wins
    assert won["seat"] == MAELYS
    assert won["cards"] == ["B7", "Y6", "P3"]
    assert won["plan"] == SIESTE

    # Martha's power: she may take the plan card underneath as well.
    assert match.state.phase == "second_plan"
    assert GAME.legal(match.state, MAELYS) == [{"t": "TakeSecondPlan"}, {"t": "DeclineSecondPlan"}]
    events = match.submit(MAELYS, {"t": "TakeSecondPlan"})
    assert events[0]["t"] == "SecondPlanTaken" and events[0]["plan"] == HOLD_UP

    mine = GAME.view(match.state, MAELYS)["players"][MAELYS]
    assert mine["plans"] == [TOUR_EIFFEL, "power:martha", SIESTE, HOLD_UP]
    assert mine["points"] == 4 + 0 + 2 + 6
    assert mine["won"] == 6
    nathaniel = GAME.view(match.state, MAELYS)["players"][NATHANIEL]
    assert nathaniel["plans"] is None and nathaniel["points"] is None
    assert GAME.view(match.state, NATHANIEL)["players"][NATHANIEL]["plans"] == ["power:henry"]

    # The game can continue: Maëlys leads turn 4.
    assert match.state.phase == "play"
    assert GAME.view(match.state, MATHIS)["leader"] == MAELYS
    assert match.active() == (MAELYS,)
