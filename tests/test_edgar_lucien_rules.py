"""Edgar & Lucien: one test per rule of the rulebook, its Compendium and FAQ.

Positions are built by playing commands through a Match from a fixed seed,
the Manigance deck stacked through the header's ``arranged`` key.  A few
positions that take a whole game to reach (a city with no neutral district
left, a victory during the Tax Collection) come from random legal play from
a fixed seed, stopped when the position arises.

The 4-player positions are written on the first drawing of Fosko (variant
``map=1``), which every test here plays on: the rules are the same on both
drawings, and tests/test_edgar_lucien_balance.py covers the metro of today's.
The 2-3 player side of Fosko (the same in both), for reading the tests (S Steel, I Ivory, A
Administration; metro pink: Forges, Drunken Pig Square, Tram Sheds; brown:
Docks, City Hall)::

    forges S     opera I       archives A   docks S
    promenade I  bank A        rivets S     lilacs I
    foundry S    belvedere I   gasworks S   pig A
    hall A       tramsheds S   salons I     conservatory I
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable

import pytest

from core.bots import make_bot
from core.bots.random_bot import RandomBot
from core.engine import ALL, PUBLIC, ConfigError, IllegalCommand, Match, make_header
from core.games import get_game
from core.games.edgar_lucien import GAME
from core.games.edgar_lucien import cards as C
from core.games.edgar_lucien.fosko import ADMIN_DISTRICTS, side_for
from core.games.edgar_lucien.rules import robbery_amount, turn_order
from tests.random_games import play_random

NAMES = ("Ann", "Bob", "Cyd", "Dee")


# -- building positions ---------------------------------------------------------------------


def new_match(players: int = 2, stack: tuple[str, ...] = (), seed: int = 5, **variants: str) -> Match:
    """A match; ``stack``: the top cards of the Manigance deck, top first."""
    variants = {"map": "1", **variants}
    config = GAME.make_config(players, [{"name": n} for n in NAMES[:players]], variants)
    extra = {"arranged": {"deck": list(stack)}} if stack else {}
    return Match.new(GAME, make_header(GAME, config, seed, **extra))


def place(match: Match, *districts: str) -> list[dict]:
    """Each player in turn places on the next district given."""
    events: list[dict] = []
    for d in districts:
        (seat,) = match.active()
        events += match.submit(seat, {"t": "Place", "district": d})
    return events


def start(*districts: str, stack: tuple[str, ...] = (), **variants: str) -> Match:
    """A match of len(districts) players, placed: seat i on districts[i]."""
    match = new_match(len(districts), stack, **variants)
    place(match, *districts)
    return match


def way(match: Match, here: str, there: str | None) -> str:
    """The wheel setting that takes a character from here to there (one move)."""
    if there is None or there == here:
        return "stay"
    fosko = side_for(match.header["players"], match.header["variants"]["map"])
    for move, dest in fosko.moves(here).items():
        if dest == there and move != "stay":
            return move
    raise AssertionError(f"{there} is not one move away from {here}")


def move(match: Match, plan: dict[int, tuple[str | None, str | None]] | None = None) -> list[dict]:
    """Every seat programs its wheel: (Edgar's destination, Lucien's), one
    move each, None staying; the events of the last program (the reveal)."""
    plan = plan or {}
    s = match.state
    events: list[dict] = []
    for seat in range(s.players):
        e, lu = plan.get(seat, (None, None))
        command = {"t": "Program", "edgar": way(match, s.edgar[seat], e), "lucien": way(match, s.lucien[seat], lu)}
        events = match.submit(seat, command)
    return events


def act(match: Match, command: dict, seat: int | None = None) -> list[dict]:
    (active,) = match.active()
    if seat is not None:
        assert active == seat, f"seat {active} is to act, not {seat}"
    return match.submit(active, command)


def done(match: Match, seat: int | None = None) -> list[dict]:
    return act(match, {"t": "Done"}, seat)


def finish(match: Match, seat: int) -> list[dict]:
    """End that seat's action step if it has not ended by itself."""
    if match.state.phase == "act" and match.active() == (seat,):
        return done(match, seat)
    return []


def end_actions(match: Match) -> list[dict]:
    """Everyone left ends their action phase."""
    events: list[dict] = []
    while match.state.phase == "act":
        events += done(match)
    return events


def next_turn(match: Match, plan: dict | None = None) -> list[dict]:
    return end_actions(match) + move(match, plan)


def pass_turns(match: Match, turns: int) -> list[dict]:
    """Whole turns where nobody moves nor acts."""
    events: list[dict] = []
    for _ in range(turns):
        events += next_turn(match)
    return events


def of(events: list[dict], t: str) -> list[dict]:
    return [e for e in events if e["t"] == t]


def one(events: list[dict], t: str) -> dict:
    (ev,) = of(events, t)
    return ev


def player(match: Match, seat: int, viewer=ALL) -> dict:
    return GAME.view(match.state, viewer)["players"][seat]


def cogs(match: Match, seat: int) -> int:
    return player(match, seat)["cogs"]


def pop(match: Match, seat: int) -> int:
    return player(match, seat)["popularity"]


def refused(match: Match, command: dict, text: str, seat: int | None = None) -> None:
    """The command is refused with that sentence, and legal does not offer it."""
    seat = match.active()[0] if seat is None else seat
    with pytest.raises(IllegalCommand, match=text):
        match.submit(seat, command)
    assert command not in GAME.legal(match.state, seat)


def offered(match: Match, command: dict, seat: int | None = None) -> bool:
    seat = match.active()[0] if seat is None else seat
    return command in GAME.legal(match.state, seat)


def random_until(players: int, seeds: range, stop: Callable[[Match], bool]) -> Match:
    """Random legal play from the first seed of ``seeds`` whose game reaches ``stop``.

    The seeds were found when starts were on Steel and Ivory districts by default; the
    positions they reach are about later rules, so those games keep that start."""
    for seed in seeds:
        config = GAME.make_config(players, (), {"map": "1", "start": "outskirts"})
        match = Match.new(GAME, make_header(GAME, config, seed))
        chooser = random.Random(seed)
        while match.outcome is None:
            if stop(match):
                return match
            seat = chooser.choice(match.active())
            match.submit(seat, chooser.choice(GAME.legal(match.state, seat)))
        if stop(match):
            return match
    raise AssertionError("no game of these seeds reaches the position")


# -- registry, components, setup ---------------------------------------------------------------


def test_registered_with_its_variants_and_bots() -> None:
    game = get_game("edgar-lucien")
    assert game is GAME
    assert (game.title, game.min_players, game.max_players) == ("Edgar & Lucien", 2, 4)
    assert {v.key: (v.choices, v.default) for v in game.variants} == {
        "fortunes": (("hidden", "open"), "hidden"),
        "deck": (("15", "20"), "15"),
        "map": (("2", "1"), "2"),
        "start": (("anywhere", "outskirts"), "anywhere"),
    }
    assert game.bot_levels == ("random", "easy", "normal", "hard")
    assert isinstance(make_bot(game, "random", 1), RandomBot)
    with pytest.raises(ConfigError):
        game.make_config(5)


def test_the_manigance_deck_and_the_words() -> None:
    assert Counter(C.deck(15)) == {
        "plan-b": 2,
        "trafficking": 2,
        "discredit": 2,
        "certification": 1,
        "backer": 2,
        "popular": 2,
        "extortion": 1,
        "remote": 2,
        "coup": 1,
    }
    extra = Counter(C.deck(20)) - Counter(C.deck(15))
    assert extra == {"plan-b": 1, "discredit": 1, "certification": 1, "extortion": 1, "coup": 1}
    assert C.title("trafficking") == "Influence Trafficking" and C.card("trafficking").french == "Trafic d'influence"
    assert all(c.effect and c.condition for c in C.CARDS)
    assert C.CERTIFICATES == ("dandy", "collector", "bureaucrat", "zealot")
    assert [C.admin_district(a) for a in C.EDGAR_ACTIONS] == ["pig", "archives", "bank", "hall"]
    assert [C.admin_district(a) for a in C.LUCIEN_ACTIONS] == ["pig", "archives", "bank", "hall"]
    assert C.COLOURS == ("red", "yellow", "blue", "white")
    assert (C.districts_needed(2), C.districts_needed(3), C.districts_needed(4)) == (7, 6, 7)
    assert (C.admin_needed(2), C.admin_needed(3), C.admin_needed(4)) == (3, 3, 2)


def test_setup_fortunes_popularity_bank_and_a_shuffled_deck() -> None:
    match = new_match(3)
    s = match.state
    view = GAME.view(s, ALL)
    assert [p["cogs"] for p in view["players"]] == [50_000] * 3
    assert [p["popularity"] for p in view["players"]] == [50] * 3
    assert [p["supply"] for p in view["players"]] == [16] * 3
    assert [p["colour"] for p in view["players"]] == ["red", "yellow", "blue"]
    assert view["bank"] == 1_200_000 - 150_000
    assert (view["deck"], view["discard"], view["side"]) == (15, 0, "2-3")
    assert view["needs"] == {"cogs": 150_000, "districts": 6, "admin": 3, "popularity": 100}
    shuffled = one(match.events, "DeckShuffled")
    assert Counter(shuffled["cards"]) == Counter(C.deck(15))
    assert GAME.redact(shuffled, 0)["cards"] is None and GAME.redact(shuffled, PUBLIC)["cards"] is None
    assert GAME.redact(shuffled, ALL) == shuffled
    assert GAME.view(new_match(4).state, 0)["side"] == "4"  # the first drawing: the tests play on it


def test_a_stacked_deck_puts_its_cards_on_top() -> None:
    match = new_match(2, stack=("coup", "plan-b"))
    assert one(match.events, "DeckShuffled")["cards"][:2] == ["coup", "plan-b"]
    with pytest.raises(ConfigError):
        new_match(2, stack=("coup", "coup"))  # one Coup d'Etat in the 15 cards
    twenty = one(new_match(2, stack=("coup", "coup"), deck="20").events, "DeckShuffled")
    assert twenty["cards"][:2] == ["coup", "coup"] and Counter(twenty["cards"]) == Counter(C.deck(20))


# -- placement ------------------------------------------------------------------------------------


def test_placement_in_order_on_any_neutral_district_as_the_rulebook_says() -> None:
    match = new_match(3)
    view = GAME.view(match.state, PUBLIC)
    assert (view["phase"], view["to_act"], view["first"]) == ("place", 0, 0)
    assert match.active() == (0,)
    # every district of the city is offered, the four Administration districts too
    assert {c["district"] for c in GAME.legal(match.state, 0)} == set(match.state.board.ids)
    refused(match, {"t": "Place", "district": "nowhere"}, "There is no district called 'nowhere'")
    place(match, "bank")
    refused(match, {"t": "Place", "district": "bank"}, "Central Bank is Ann's starting district: choose a neutral one")
    assert {"t": "Place", "district": "bank"} not in GAME.legal(match.state, 1)
    assert match.active() == (1,)
    events = place(match, "opera", "docks")
    view = GAME.view(match.state, PUBLIC)
    assert view["owners"] == {"bank": 0, "opera": 1, "docks": 2}
    assert view["players"][0]["districts"] == {"steel": 0, "ivory": 0, "admin": 1}
    bob = view["players"][1]
    assert (bob["edgar"], bob["lucien"], bob["supply"]) == ("opera", "opera", 15)
    started = one(events, "TurnStarted")
    assert (started["period"], started["turn"], started["order"]) == (1, 1, [0, 1, 2])
    assert GAME.mark(started) == "round"
    assert view["phase"] == "program" and match.active() == (0, 1, 2)
    placed = of(events, "Placed")[0]
    assert GAME.describe(placed, PUBLIC) == "Bob places Edgar, Lucien and an influence token on Opera."
    setup = match.events[0]
    assert setup["start"] == "anywhere" and "Steel or Ivory" not in GAME.describe(setup, PUBLIC)


def test_the_outskirts_variant_keeps_administration_districts_for_later() -> None:
    match = new_match(3, start="outskirts")
    assert {c["district"] for c in GAME.legal(match.state, 0)} == set(match.state.board.ids) - set(ADMIN_DISTRICTS)
    refused(match, {"t": "Place", "district": "bank"}, "Administration district: start on a Steel or Ivory")
    place(match, "forges")
    refused(match, {"t": "Place", "district": "forges"}, "Forges is Ann's starting district")
    setup = match.events[0]
    assert GAME.describe(setup, PUBLIC).endswith("Players start on Steel or Ivory districts only.")


def test_a_save_from_before_the_variant_starts_on_the_outskirts_as_it_was_played() -> None:
    """A header without the key was written when only Steel and Ivory starts were allowed:
    it opens as it was played, whatever the default is now."""
    config = GAME.make_config(2, [{"name": n} for n in NAMES[:2]], {"map": "1"})
    del config["variants"]["start"]
    match = Match.new(GAME, make_header(GAME, config, 5))
    assert not match.state.anywhere
    refused(match, {"t": "Place", "district": "hall"}, "Administration district: start on a Steel or Ivory")
    assert "start" not in match.header["variants"]


# -- programming and movement --------------------------------------------------------------------


def test_programming_is_simultaneous_and_secret_until_the_reveal() -> None:
    match = start("forges", "docks")
    assert GAME.legal(match.state, 0)[0] == {"t": "Program", "edgar": "stay", "lucien": "stay"}
    assert len(GAME.legal(match.state, 0)) == 5 * 5  # Forges: stay, green, violet, two pink exits
    (programmed,) = match.submit(1, {"t": "Program", "edgar": "green", "lucien": "stay"})
    assert match.active() == (0,)
    assert GAME.redact(programmed, 0) == {"t": "Programmed", "seat": 1, "name": "Bob"}
    assert "green" not in GAME.describe(programmed, 0) and "green" in GAME.describe(programmed, 1)
    # Ann learns only that Bob laid his wheel: nothing hidden is shown (what it says waits for the reveal)
    assert not GAME.reveals(programmed, 1) and not GAME.reveals(programmed, 0)
    view = GAME.view(match.state, 0)
    assert view["players"][1]["programmed"] and view["players"][1]["program"] is None
    assert GAME.view(match.state, 1)["players"][1]["program"] == {"edgar": "green", "lucien": "stay"}
    refused(
        match,
        {"t": "Program", "edgar": "purple", "lucien": "stay"},
        "not a setting of the wheel for Edgar",
        seat=0,
    )
    with pytest.raises(IllegalCommand):
        match.submit(1, {"t": "Program", "edgar": "stay", "lucien": "stay"})  # already programmed
    events = match.submit(0, {"t": "Program", "edgar": "violet", "lucien": "green"})
    assert [e["t"] for e in events[:3]] == ["Programmed", "ProgramsRevealed", "Moved"]
    moved = of(events, "Moved")
    assert [(e["seat"], e["pawn"], e["to"]) for e in moved] == [
        (0, "edgar", "promenade"),
        (0, "lucien", "opera"),
        (1, "edgar", "lilacs"),
        (1, "lucien", "docks"),
    ]
    view = GAME.view(match.state, 0)
    assert view["phase"] == "act" and view["to_act"] == 0
    assert view["players"][1]["program"] == {"edgar": "green", "lucien": "stay"}
    first = {"seat": 0, "pawn": "edgar", "from": "forges", "to": "promenade", "move": "violet"}
    assert view["last_moves"][0] == first
    assert GAME.describe(moved[0], 1) == "Ann's Edgar crosses the violet border from Forges to Promenade."


def test_an_invalid_colour_leaves_the_character_in_place() -> None:
    match = start("promenade", "docks")
    match.submit(0, {"t": "Program", "edgar": "green", "lucien": "cyan"})  # Promenade has no green border
    events = match.submit(1, {"t": "Program", "edgar": "stay", "lucien": "stay"})
    edgar, lucien = of(events, "Moved")[:2]
    assert (edgar["to"], edgar["valid"]) == ("promenade", False)
    assert (lucien["to"], lucien["valid"]) == ("bank", True)
    assert GAME.describe(edgar, 1) == "Ann's Edgar stays on Promenade: the green border does not leave from there."


def test_the_metro_exits_through_another_entrance_of_the_same_line() -> None:
    match = start("forges", "docks")
    legal = {c["edgar"] for c in GAME.legal(match.state, 0)}
    assert {"pink>pig", "pink>tramsheds"} <= legal and "pink>forges" not in legal and "brown>hall" not in legal
    match.submit(0, {"t": "Program", "edgar": "pink>tramsheds", "lucien": "brown>hall"})
    events = match.submit(1, {"t": "Program", "edgar": "brown>hall", "lucien": "pink>pig"})
    moved = {(e["seat"], e["pawn"]): e for e in of(events, "Moved")}
    assert moved[0, "edgar"]["to"] == "tramsheds"
    assert moved[0, "lucien"]["to"] == "forges" and not moved[0, "lucien"]["valid"]  # not on the brown line
    assert moved[1, "edgar"]["to"] == "hall"
    assert moved[1, "lucien"]["to"] == "docks"
    assert GAME.describe(moved[0, "edgar"], 0) == "Ann's Edgar takes the pink metro (M1) from Forges to Tram Sheds."


# -- robbery ------------------------------------------------------------------------------------


def test_rulebook_example_30000_robbed_twice_in_one_turn() -> None:
    match = start("promenade", "forges", "belvedere")
    # turn 1: Cyd's Lucien buys Foundry and is down to 30,000; Bob's Edgar comes to Promenade
    events = move(match, {1: ("promenade", None), 2: (None, "foundry")})
    # Ann and Bob have nothing they could do: their steps end by themselves
    assert [(e["seat"], e["why"]) for e in of(events, "StepEnded")] == [(0, "nothing"), (1, "nothing")]
    events = act(match, {"t": "Buy"}, 2)
    assert one(events, "DistrictBought")["price"] == 20_000 and cogs(match, 2) == 30_000
    # turn 2: both Edgars reach Foundry, where Cyd's Lucien stands alone
    move(match, {0: ("foundry", None), 1: ("foundry", None)})
    first = one(act(match, {"t": "Rob", "victim": 2}, 0), "Robbed")
    assert first["amount"] == 20_000
    finish(match, 0)
    second = one(act(match, {"t": "Rob", "victim": 2}, 1), "Robbed")
    assert second["amount"] == 10_000
    assert [cogs(match, i) for i in range(3)] == [70_000, 60_000, 0]
    assert (robbery_amount(30_000), robbery_amount(10_000), robbery_amount(50_000), robbery_amount(0)) == (
        20_000,
        10_000,
        30_000,
        0,
    )


def test_an_edgar_guards_his_own_lucien() -> None:
    match = start("promenade", "foundry")
    move(match, {0: ("foundry", "bank")})  # Ann's Lucien could buy the Central Bank: her step goes on
    refused(match, {"t": "Rob", "victim": 1}, "Bob's Edgar is on Foundry guarding their Lucien")
    refused(match, {"t": "Rob", "victim": 0}, "does not rob your own Lucien")
    next_turn(match, {1: ("belvedere", None)})  # the bodyguard leaves
    assert offered(match, {"t": "Rob", "victim": 1}, 0)


def test_one_victim_and_one_edgar_action_a_turn() -> None:
    match = start("promenade", "foundry", "belvedere")
    move(match, {0: ("foundry", "bank"), 1: ("hall", None), 2: (None, "foundry")})
    legal = GAME.legal(match.state, 0)
    assert {"t": "Rob", "victim": 1} in legal and {"t": "Rob", "victim": 2} in legal
    act(match, {"t": "Rob", "victim": 1}, 0)
    refused(match, {"t": "Rob", "victim": 2}, "Your Edgar has already acted this turn", seat=0)


def test_a_hidden_fortune_decides_nothing_and_what_a_robbery_took_stays_hidden() -> None:
    match = start("promenade", "foundry", "belvedere")
    move(match, {0: ("foundry", None), 1: ("hall", None)})
    view = GAME.view(match.state, 0)
    assert view["players"][1]["cogs"] is None and view["players"][0]["cogs"] == 50_000
    assert view["bank"] is None and view["players"][1]["conditions"]["dandy"] is None
    robbed = one(act(match, {"t": "Rob", "victim": 1}, 0), "Robbed")
    assert GAME.redact(robbed, 0)["amount"] == GAME.redact(robbed, 1)["amount"] == 30_000
    assert GAME.redact(robbed, 2)["amount"] is None and GAME.redact(robbed, PUBLIC)["amount"] is None
    assert "30,000" not in GAME.describe(robbed, 2)
    assert GAME.describe(robbed, 1) == "Ann's Edgar robs Bob's Lucien on Foundry: 30,000 Cogs."


def test_an_empty_purse_can_be_robbed_of_nothing() -> None:
    match = start("promenade", "forges", "belvedere")
    move(match, {1: ("promenade", None), 2: (None, "foundry")})
    act(match, {"t": "Buy"}, 2)
    move(match, {0: ("foundry", None), 1: ("foundry", None)})
    act(match, {"t": "Rob", "victim": 2}, 0)
    finish(match, 0)
    act(match, {"t": "Rob", "victim": 2}, 1)
    next_turn(match, {0: (None, None)})
    # Cyd has nothing left: a robbery is still offered, and takes nothing
    assert offered(match, {"t": "Rob", "victim": 2}, 0)
    robbed = one(act(match, {"t": "Rob", "victim": 2}, 0), "Robbed")
    assert robbed["amount"] == 0


def test_open_fortunes_are_seen_by_all() -> None:
    match = start("promenade", "foundry", "belvedere", fortunes="open")
    move(match, {0: ("foundry", None), 1: ("hall", None)})
    assert GAME.view(match.state, 2)["players"][1]["cogs"] == 50_000
    assert GAME.view(match.state, PUBLIC)["bank"] == 1_200_000 - 150_000
    robbed = one(act(match, {"t": "Rob", "victim": 1}, 0), "Robbed")
    assert GAME.redact(robbed, 2)["amount"] == 30_000


# -- buying districts -----------------------------------------------------------------------------


def test_lucien_buys_from_the_city_and_from_another_player() -> None:
    match = start("promenade", "foundry")
    bank = GAME.view(match.state, ALL)["bank"]
    move(match, {0: (None, "bank"), 1: ("promenade", "promenade")})
    bought = one(act(match, {"t": "Buy"}, 0), "DistrictBought")
    assert (bought["district"], bought["owner"], bought["price"]) == ("bank", None, 20_000)
    assert GAME.describe(bought, 1) == "Ann's Lucien buys Central Bank from the city for 20,000 Cogs."
    finish(match, 0)
    assert GAME.view(match.state, ALL)["bank"] == bank + 20_000
    assert (cogs(match, 0), player(match, 0)["supply"]) == (30_000, 14)
    bought = one(act(match, {"t": "Buy"}, 1), "DistrictBought")
    assert (bought["owner"], bought["price"]) == (0, 30_000)
    assert GAME.describe(bought, 0) == "Bob's Lucien buys Promenade from Ann for 30,000 Cogs."
    assert (cogs(match, 0), cogs(match, 1)) == (60_000, 20_000)
    assert GAME.view(match.state, PUBLIC)["owners"] == {"bank": 0, "promenade": 1, "foundry": 1}
    assert player(match, 0)["supply"] == 15  # the token comes back to its owner
    # Bob cannot afford the Central Bank from Ann
    next_turn(match, {1: ("bank", "bank")})
    finish(match, 0)
    assert offered(match, {"t": "Rob", "victim": 0}, 1)
    refused(match, {"t": "Buy"}, "Buying Central Bank from Ann costs 30,000 Cogs and you have less", seat=1)


def test_heritage_protection_shields_from_purchase_and_trafficking_not_from_intimidation() -> None:
    match = start("opera", "forges", stack=("trafficking", "plan-b"))
    move(match, {0: (None, "archives"), 1: ("pig", "opera")})
    events = act(match, {"t": "LucienAdmin", "action": "heritage"}, 0)
    taken = one(events, "HeritageTaken")
    assert taken["from"] is None and GAME.view(match.state, 1)["heritage"] == 0
    finish(match, 0)
    refused(match, {"t": "Buy"}, "Ann holds the Heritage Protection: their districts cannot be bought", seat=1)
    act(match, {"t": "EdgarAdmin", "action": "draw"}, 1)
    next_turn(match, {1: ("forges", None)})
    finish(match, 0)
    refused(match, {"t": "PlayCard", "card": "trafficking"}, "You already control Forges", seat=1)
    next_turn(match, {1: ("opera", None)})
    finish(match, 0)
    refused(
        match,
        {"t": "PlayCard", "card": "trafficking"},
        "Ann holds the Heritage Protection: their districts cannot be bought back",
        seat=1,
    )
    # Intimidation reaches padlocked districts; then Bob takes the Heritage Protection away
    next_turn(match, {1: ("archives", "archives")})
    finish(match, 0)
    events = act(match, {"t": "EdgarAdmin", "action": "intimidate"}, 1)
    assert one(events, "Asked")["asks"] == [{"kind": "intimidate", "seat": 1, "by": 1, "left": 1}]
    assert GAME.legal(match.state, 1) == [{"t": "Intimidate", "district": "opera"}]
    refused(match, {"t": "Intimidate", "district": "forges"}, "Choose one of Ann's districts", seat=1)
    events = act(match, {"t": "Intimidate", "district": "opera"}, 1)
    assert GAME.describe(one(events, "Intimidated"), 0) == "Bob's Edgar intimidates Ann: Opera becomes neutral."
    assert "opera" not in GAME.view(match.state, 0)["owners"]
    taken = one(act(match, {"t": "LucienAdmin", "action": "heritage"}, 1), "HeritageTaken")
    assert taken["from"] == 0 and GAME.view(match.state, 0)["heritage"] == 1


# -- administration actions ------------------------------------------------------------------------


def test_each_administration_action_once_a_period_then_available_again() -> None:
    match = start("rivets", "docks")
    move(match, {0: ("bank", None)})
    refused(match, {"t": "EdgarAdmin", "action": "draw"}, "Your Edgar is not on Drunken Pig Square", seat=0)
    events = act(match, {"t": "EdgarAdmin", "action": "heist"}, 0)
    assert one(events, "AdminActionTaken")["cost"] == 20 and one(events, "BankPaid")["amount"] == 50_000
    assert (cogs(match, 0), pop(match, 0), player(match, 0, 1)["used"]) == (100_000, 30, ["heist"])
    next_turn(match, {0: (None, "bank")})
    refused(
        match,
        {"t": "EdgarAdmin", "action": "heist"},
        "You have already performed the Bank Robbery this Electoral Period",
        seat=0,
    )
    events = pass_turns(match, 3)
    assert one(events, "PeriodEnded")["period"] == 1
    view = GAME.view(match.state, 0)
    assert (view["period"], view["turn"], view["players"][0]["used"]) == (2, 1, [])
    assert offered(match, {"t": "EdgarAdmin", "action": "heist"}, 0)


def test_popularity_costs_floor_and_the_lucien_first_faq() -> None:
    match = start("gasworks", "lilacs", stack=("remote", "remote", "discredit", "discredit"))
    move(match, {0: ("pig", "pig"), 1: ("pig", None)})
    drawn = one(act(match, {"t": "EdgarAdmin", "action": "draw"}, 0), "CardsDrawn")
    assert drawn["cards"] == ["remote", "remote"] and GAME.redact(drawn, 1)["cards"] is None
    assert "Remote" not in GAME.describe(drawn, 1)
    assert GAME.describe(drawn, 0) == "Ann draws Remote Action and Remote Action."
    assert player(match, 0, 1)["cards"] is None and player(match, 0, 1)["hand"] == 2
    finish(match, 0)
    act(match, {"t": "EdgarAdmin", "action": "draw"}, 1)
    # turn 2: a Remote Action robs the bank from Drunken Pig Square; Ann is down to 10 popularity
    next_turn(match)
    events = act(match, {"t": "PlayCard", "card": "remote", "action": "heist"}, 0)
    assert one(events, "CardPlayed")["cost"] == 20 and one(events, "BankPaid")["amount"] == 50_000
    assert pop(match, 0) == 10
    finish(match, 0)
    act(match, {"t": "PlayCard", "card": "discredit"}, 1)
    assert match.active() == (0,)
    assert GAME.view(match.state, 0)["ask"] == {"kind": "yield", "seat": 0, "by": 1, "left": 1}
    yielded = one(act(match, {"t": "Yield", "pay": "popularity"}, 0), "Yielded")
    assert yielded["amount"] == 10 and pop(match, 0) == 0  # never below 0
    # turn 3: with no popularity left Ann can only pay in Cogs
    next_turn(match)
    finish(match, 0)
    act(match, {"t": "PlayCard", "card": "discredit"}, 1)
    assert GAME.legal(match.state, 0) == [{"t": "Yield", "pay": "cogs"}]
    refused(match, {"t": "Yield", "pay": "popularity"}, "You have no popularity left to lose", seat=0)
    act(match, {"t": "Yield", "pay": "cogs"}, 0)
    assert cogs(match, 1) == 60_000
    # turn 4: Edgar cannot pay for an administration action; a Populist Speech first, and he can
    next_turn(match)
    refused(
        match,
        {"t": "PlayCard", "card": "remote", "action": "heist"},
        "You have already performed the Bank Robbery this Electoral Period",
        seat=0,
    )
    refused(
        match,
        {"t": "PlayCard", "card": "remote", "action": "intimidate"},
        "That costs 20 popularity and you have only 0",
        seat=0,
    )
    speech = one(act(match, {"t": "LucienAdmin", "action": "speech"}, 0), "PopularityGained")
    assert (speech["amount"], speech["now"]) == (50, 50)
    act(match, {"t": "PlayCard", "card": "remote", "action": "intimidate"}, 0)
    assert pop(match, 0) == 30


def test_popularity_never_exceeds_100_and_the_most_popular_becomes_governor() -> None:
    match = start("lilacs", "docks")
    move(match, {0: (None, "pig")})
    speech = one(act(match, {"t": "LucienAdmin", "action": "speech"}, 0), "PopularityGained")
    assert speech["now"] == 100
    events = pass_turns(match, 3) + end_actions(match)
    taxes = of(events, "TaxesCollected")
    assert [(t["seat"], t["ivory"], t["popularity"]) for t in taxes] == [(0, 1, 0), (1, 0, 0)]
    assert pop(match, 0) == 100
    elected = one(events, "GovernorElected")
    assert (elected["seat"], elected["bid"]) == (0, None)
    ended = one(events, "PeriodEnded")
    assert (ended["first"], ended["passed"]) == (1, True)
    view = GAME.view(match.state, 1)
    assert (view["governor"], view["first"], view["order"]) == (0, 1, [1, 0])  # the Governor plays last
    assert view["players"][0]["conditions"]["zealot"] is True
    started = of(events, "TurnStarted")[-1]
    assert GAME.mark(started) == "round" and GAME.describe(started, 0).endswith("Ann is Governor and plays last.")


# -- Political Support -------------------------------------------------------------------------------


def test_rulebook_example_the_doubled_bank_robbery() -> None:
    match = start("promenade", "docks")
    move(match, {0: ("bank", "foundry")})
    end_actions(match)
    move(match, {0: (None, "hall")})
    refused(
        match,
        {"t": "LucienAdmin", "action": "support", "edgar": "draw", "remote": False},
        "Your Edgar is not on Drunken Pig Square; only a Remote Action card",
        seat=0,
    )
    refused(
        match,
        {"t": "LucienAdmin", "action": "support", "edgar": "heist", "remote": True},
        "he needs no Remote Action card",
        seat=0,
    )
    events = act(match, {"t": "LucienAdmin", "action": "support", "edgar": "heist", "remote": False}, 0)
    supported = one(events, "Supported")
    assert supported["cost"] == 30 and one(events, "BankPaid")["amount"] == 100_000
    assert (cogs(match, 0), pop(match, 0)) == (150_000, 20)
    assert sorted(player(match, 0)["used"]) == ["heist", "support"]
    assert of(events, "StepEnded")[0] == {"t": "StepEnded", "seat": 0, "name": "Ann", "why": "both"}
    assert player(match, 0)["conditions"]["dandy"] is True


def test_political_support_draws_four_cards() -> None:
    match = start("tramsheds", "docks")
    move(match, {0: ("pig", "hall")})
    events = act(match, {"t": "LucienAdmin", "action": "support", "edgar": "draw", "remote": False}, 0)
    assert one(events, "CardsDrawn")["count"] == 4 and player(match, 0)["hand"] == 4
    assert GAME.view(match.state, 0)["deck"] == 11


def test_political_support_with_a_remote_action_card() -> None:
    match = start("tramsheds", "docks", stack=("remote", "backer"))
    move(match, {0: ("pig", "hall")})
    act(match, {"t": "EdgarAdmin", "action": "draw"}, 0)
    next_turn(match)
    refused(
        match,
        {"t": "LucienAdmin", "action": "support", "edgar": "heist", "remote": False},
        "Your Edgar is not on the Central Bank",
        seat=0,
    )
    assert not offered(match, {"t": "LucienAdmin", "action": "support", "edgar": "draw", "remote": True}, 0)  # used
    events = act(match, {"t": "LucienAdmin", "action": "support", "edgar": "heist", "remote": True}, 0)
    assert one(events, "BankPaid")["amount"] == 100_000
    assert (pop(match, 0), player(match, 0)["cards"], GAME.view(match.state, 0)["discard"]) == (0, ["backer"], 1)
    assert "with a Remote Action card" in GAME.describe(one(events, "Supported"), 1)


def test_political_support_requisitions_twice() -> None:
    match = start("tramsheds", "docks")
    move(match, {0: ("hall", "hall")})
    act(match, {"t": "LucienAdmin", "action": "support", "edgar": "requisition", "remote": False}, 0)
    view = GAME.view(match.state, 1)
    assert (view["phase"], view["supported"]) == ("ask", True)
    assert view["ask"] == {"kind": "requisition", "seat": 0, "by": 0, "left": 2}
    refused(
        match,
        {"t": "Requisition", "district": "docks"},
        "belongs to Bob: another player's district may be requisitioned only when none is neutral",
        seat=0,
    )
    refused(match, {"t": "Requisition", "district": "tramsheds"}, "You already control Tram Sheds", seat=0)
    act(match, {"t": "Requisition", "district": "bank"}, 0)
    assert GAME.view(match.state, 1)["ask"]["left"] == 1
    events = act(match, {"t": "Requisition", "district": "archives"}, 0)
    assert GAME.describe(one(events, "Requisitioned"), 1) == "Ann's Edgar requisitions Archives."
    view = GAME.view(match.state, 1)
    assert {d for d, o in view["owners"].items() if o == 0} == {"tramsheds", "bank", "archives"}
    assert view["players"][0]["supply"] == 13 and view["phase"] == "program"


def test_political_support_intimidates_twice_and_a_player_without_district_loses_nothing() -> None:
    match = start("docks", "rivets", "lilacs")
    move(match, {0: ("archives", "hall")})
    act(match, {"t": "LucienAdmin", "action": "support", "edgar": "intimidate", "remote": False}, 0)
    assert GAME.legal(match.state, 0) == [{"t": "Intimidate", "players": [1, 2]}]
    refused(
        match,
        {"t": "Intimidate", "players": [0, 1]},
        "Designate two different players other than yourself",
        seat=0,
    )
    events = act(match, {"t": "Intimidate", "players": [2, 1]}, 0)
    assert one(events, "Intimidated")["players"] == [1, 2]
    assert match.active() == (1,) and GAME.view(match.state, 0)["ask"]["kind"] == "surrender"
    assert GAME.view(match.state, 0)["to_act"] == 0  # still Ann's action step
    assert GAME.legal(match.state, 1) == [{"t": "Surrender", "district": "rivets"}]
    refused(match, {"t": "Surrender", "district": "lilacs"}, "Choose one of your own districts", seat=1)
    act(match, {"t": "Surrender", "district": "rivets"}, 1)
    act(match, {"t": "Surrender", "district": "lilacs"}, 2)
    assert GAME.view(match.state, 0)["ask"] == {"kind": "intimidate", "seat": 0, "by": 0, "left": 1}
    events = act(match, {"t": "Intimidate", "players": [1, 2]}, 0)
    second = one(events, "Intimidated")
    assert second["empty"] == [1, 2] and not of(events, "Asked")
    assert GAME.describe(second, 1) == "Ann's Edgar intimidates Bob and Cyd. Bob and Cyd have no district to lose."
    assert GAME.view(match.state, 0)["owners"] == {"docks": 0}


def test_requisition_takes_a_neutral_district_anywhere_for_free() -> None:
    match = start("tramsheds", "docks")
    move(match, {0: ("hall", None)})
    events = act(match, {"t": "EdgarAdmin", "action": "requisition"}, 0)
    assert one(events, "AdminActionTaken")["cost"] == 20
    legal = GAME.legal(match.state, 0)
    assert {"t": "Requisition", "district": "conservatory"} in legal  # far from City Hall
    assert {"t": "Requisition", "district": "docks"} not in legal
    act(match, {"t": "Requisition", "district": "conservatory"}, 0)
    assert (cogs(match, 0), GAME.view(match.state, 1)["owners"]["conservatory"]) == (50_000, 0)


def test_requisition_of_another_players_district_only_when_none_is_neutral() -> None:
    def full_city_requisition(match: Match) -> bool:
        s = match.state
        return (
            s.phase == "ask"
            and s.asks[0][0] == "requisition"
            and all(o is not None for o in s.owners)
            and s.heritage not in (None, s.asks[0][1])
        )

    match = random_until(3, range(40), full_city_requisition)
    view = GAME.view(match.state, ALL)
    seat, holder = view["ask"]["seat"], view["heritage"]
    targets = {c["district"] for c in GAME.legal(match.state, seat)}
    assert targets == {d for d, o in view["owners"].items() if o not in (seat, holder)}
    protected = next(d for d, o in view["owners"].items() if o == holder)
    refused(
        match,
        {"t": "Requisition", "district": protected},
        "Heritage Protection: their districts cannot be requisitioned",
        seat=seat,
    )
    target = sorted(targets)[0]
    owner = view["owners"][target]
    events = match.submit(seat, {"t": "Requisition", "district": target})
    taken = one(events, "Requisitioned")
    assert taken["owner"] == owner and GAME.view(match.state, ALL)["owners"][target] == seat


# -- Manigance cards -----------------------------------------------------------------------------------


def test_plan_b_and_financial_backer() -> None:
    match = start("gasworks", "docks", stack=("plan-b", "backer"))
    move(match, {0: ("pig", "belvedere")})
    act(match, {"t": "EdgarAdmin", "action": "draw"}, 0)
    next_turn(match)
    refused(
        match,
        {"t": "PlayCard", "card": "backer"},
        "Financial Backer needs your Edgar on one of your Steel districts",
        seat=0,
    )
    refused(
        match,
        {"t": "PlayCard", "card": "plan-b", "district": "belvedere"},
        "Your Lucien is already on Belvedere",
        seat=0,
    )
    assert offered(match, {"t": "PlayCard", "card": "plan-b", "district": "conservatory"}, 0)
    events = act(match, {"t": "PlayCard", "card": "plan-b", "district": "bank"}, 0)
    sent = one(events, "LucienSent")
    assert (sent["from"], sent["to"]) == ("belvedere", "bank")
    assert GAME.describe(one(events, "CardPlayed"), 1) == "Ann's Edgar plays Plan B."
    act(match, {"t": "Buy"}, 0)  # Lucien acts where Plan B took him
    assert GAME.view(match.state, 1)["owners"]["bank"] == 0
    next_turn(match, {0: ("gasworks", None)})
    events = act(match, {"t": "PlayCard", "card": "backer"}, 0)
    assert one(events, "BankPaid")["amount"] == 40_000 and cogs(match, 0) == 70_000
    assert GAME.view(match.state, 0)["discard"] == 2


def test_popular_support_and_the_discredit_threat_in_turn_order() -> None:
    match = start("lilacs", "forges", "docks", stack=("popular", "discredit"))
    move(match, {0: ("pig", None)})
    act(match, {"t": "EdgarAdmin", "action": "draw"}, 0)
    next_turn(match)
    refused(
        match,
        {"t": "PlayCard", "card": "popular"},
        "Popular Support needs your Edgar on one of your Ivory districts",
        seat=0,
    )
    events = act(match, {"t": "PlayCard", "card": "discredit"}, 0)
    asked = one(events, "Asked")
    assert [a["seat"] for a in asked["asks"]] == [1, 2]
    assert GAME.describe(asked, 2) == "Bob and Cyd must each lose 20 popularity or give Ann 10,000 Cogs."
    assert match.active() == (1,)
    assert GAME.legal(match.state, 1) == [{"t": "Yield", "pay": "popularity"}, {"t": "Yield", "pay": "cogs"}]
    act(match, {"t": "Yield", "pay": "cogs"}, 1)
    act(match, {"t": "Yield", "pay": "popularity"}, 2)
    assert (cogs(match, 0), cogs(match, 1), pop(match, 2)) == (60_000, 40_000, 30)
    next_turn(match, {0: ("lilacs", None)})
    gained = one(act(match, {"t": "PlayCard", "card": "popular"}, 0), "PopularityGained")
    assert (gained["amount"], gained["now"]) == (40, 70)


def test_influence_trafficking() -> None:
    match = start("gasworks", "rivets", stack=("trafficking", "trafficking"))
    move(match, {0: ("pig", "belvedere")})
    act(match, {"t": "EdgarAdmin", "action": "draw"}, 0)
    next_turn(match)
    refused(match, {"t": "PlayCard", "card": "trafficking"}, "Nobody owns Drunken Pig Square", seat=0)
    next_turn(match, {0: ("gasworks", None)})
    refused(match, {"t": "PlayCard", "card": "trafficking"}, "You already control Gasworks", seat=0)
    next_turn(match, {0: ("rivets", None)})
    events = act(match, {"t": "PlayCard", "card": "trafficking"}, 0)
    bought = one(events, "DistrictBought")
    assert (bought["district"], bought["owner"], bought["price"]) == ("rivets", 1, 30_000)
    assert bought["via"] == "trafficking"
    assert (cogs(match, 0), cogs(match, 1)) == (20_000, 80_000)
    assert GAME.view(match.state, 1)["owners"]["rivets"] == 0
    assert not player(match, 0)["acted"]["lucien"]  # an Edgar action: Lucien may still act
    assert GAME.describe(bought, 1) == "Ann buys Rivet Row back from Bob for 30,000 Cogs."


def test_extortion_takes_a_card_at_random_seen_only_by_the_two_players() -> None:
    match = start("gasworks", "lilacs", "conservatory", stack=("extortion", "plan-b", "coup", "remote"))
    move(match, {0: ("pig", None), 1: ("pig", None)})
    act(match, {"t": "EdgarAdmin", "action": "draw"}, 0)
    finish(match, 0)
    act(match, {"t": "EdgarAdmin", "action": "draw"}, 1)
    next_turn(match)
    refused(
        match,
        {"t": "PlayCard", "card": "extortion", "target": 2},
        "Neither of Cyd's characters is on Drunken Pig Square",
        seat=0,
    )
    events = act(match, {"t": "PlayCard", "card": "extortion", "target": 1}, 0)
    taken = one(events, "CardExtorted")
    assert taken["card"] in ("coup", "remote")
    assert sorted(player(match, 0)["cards"]) == sorted(["plan-b", taken["card"]])
    assert player(match, 1)["hand"] == 1
    assert GAME.redact(taken, 1)["card"] == taken["card"] and GAME.redact(taken, 2)["card"] is None
    assert GAME.describe(taken, 2) == "Ann takes a Manigance card at random from Bob's hand."
    assert GAME.reveals(taken, 0)


def test_extortion_needs_a_card_to_take() -> None:
    match = start("gasworks", "lilacs", stack=("extortion", "plan-b"))
    move(match, {0: ("pig", None), 1: ("pig", None)})
    act(match, {"t": "EdgarAdmin", "action": "draw"}, 0)
    next_turn(match)
    refused(match, {"t": "PlayCard", "card": "extortion", "target": 1}, "Bob has no Manigance card", seat=0)


def test_coup_d_etat_changes_the_turn_order_from_the_next_turn() -> None:
    match = start("tramsheds", "docks", "forges", stack=("coup", "plan-b"))
    move(match, {0: ("pig", "salons")})
    act(match, {"t": "EdgarAdmin", "action": "draw"}, 0)  # Ann is down to 30 popularity
    next_turn(match, {0: ("tramsheds", None)})
    next_turn(match, {0: ("hall", None)})
    refused(match, {"t": "PlayCard", "card": "coup"}, "Nobody holds the Governor token", seat=0)
    next_turn(match)
    end_actions(match)
    # Bob and Cyd are tied at 50: Bob bids, Cyd drops out
    assert GAME.view(match.state, 0)["bidding"]["tied"] == [1, 2]
    act(match, {"t": "Bid", "amount": 10_000}, 1)
    act(match, {"t": "Drop"}, 2)
    view = GAME.view(match.state, 0)
    assert (view["governor"], view["first"], view["order"]) == (1, 1, [2, 0, 1])
    move(match)
    finish(match, 2)
    events = act(match, {"t": "PlayCard", "card": "coup"}, 0)
    stolen = one(events, "GovernorStolen")
    assert (stolen["from"], stolen["first"]) == (1, 1)
    view = GAME.view(match.state, 0)
    assert (view["governor"], view["first"], view["order"]) == (0, 1, [2, 0, 1])  # this turn's order stands
    started = one(next_turn(match), "TurnStarted")
    assert started["order"] == [1, 2, 0] and GAME.mark(started) == "turn"
    assert turn_order(3, 1, 0) == (1, 2, 0)


def test_coup_d_etat_needs_city_hall_and_another_governor() -> None:
    match = start("tramsheds", "docks", stack=("coup", "plan-b"))
    move(match, {0: ("pig", "salons")})
    act(match, {"t": "EdgarAdmin", "action": "draw"}, 0)
    next_turn(match)
    refused(match, {"t": "PlayCard", "card": "coup"}, "Your Edgar is not on City Hall", seat=0)


# -- certificates --------------------------------------------------------------------------------------


def test_certificates_condition_stealing_one_a_period_and_no_dispossessing_by_card() -> None:
    match = start("gasworks", "foundry", stack=("certification", "certification"), deck="20")
    # Ann draws both Certification cards; Bob walks to the Central Bank and City Hall
    move(match, {0: ("pig", "belvedere"), 1: ("belvedere", "hall")})
    act(match, {"t": "EdgarAdmin", "action": "draw"}, 0)
    next_turn(match, {0: ("gasworks", "tramsheds"), 1: ("bank", None)})
    finish(match, 0)
    act(match, {"t": "LucienAdmin", "action": "support", "edgar": "heist", "remote": False}, 1)
    assert cogs(match, 1) == 150_000
    next_turn(match, {0: ("belvedere", "hall"), 1: (None, "foundry")})
    next_turn(match, {0: ("bank", None), 1: (None, "belvedere")})
    refused(
        match,
        {"t": "PlayCard", "card": "certification", "certificate": "dandy"},
        "You do not meet the Wealthy Dandy condition",
        seat=0,
    )
    act(match, {"t": "LucienAdmin", "action": "support", "edgar": "heist", "remote": False}, 0)
    assert cogs(match, 0) == 150_000
    events = end_actions(match)
    assert one(events, "GovernorElected")["seat"] == 1  # 20 popularity against Ann's 0
    # period 2: Ann certifies her fortune with the card; Bob, as rich, takes the certificate from her
    move(match, {0: (None, "foundry"), 1: (None, "bank")})
    events = act(match, {"t": "PlayCard", "card": "certification", "certificate": "dandy"}, 0)
    taken = one(events, "CertificateTaken")
    assert (taken["certificate"], taken["from"]) == ("dandy", None)
    view = GAME.view(match.state, 1)
    assert view["certificates"]["dandy"] == 0 and view["players"][0]["certified_this_period"]
    assert view["players"][0]["conditions"]["dandy"] is True  # a certificate is public
    finish(match, 0)
    events = act(match, {"t": "LucienAdmin", "action": "certificate", "certificate": "dandy"}, 1)
    taken = one(events, "CertificateTaken")
    assert (taken["from"], GAME.describe(taken, 0)) == (0, "Bob takes the Wealthy Dandy certificate from Ann.")
    # one certificate a period, whatever the way
    next_turn(match)
    refused(
        match,
        {"t": "PlayCard", "card": "certification", "certificate": "dandy"},
        "already taken a certificate this Electoral Period",
        seat=0,
    )
    # next period: the card still cannot take a certificate another player holds
    pass_turns(match, 2)
    assert one(end_actions(match), "GovernorElected")["seat"] == 1
    move(match)
    assert GAME.view(match.state, 0)["order"] == [0, 1]
    refused(
        match,
        {"t": "PlayCard", "card": "certification", "certificate": "dandy"},
        "Bob holds the Wealthy Dandy certificate: Certification cannot take it from them",
        seat=0,
    )
    refused(
        match,
        {"t": "PlayCard", "card": "certification", "certificate": "collector"},
        "You do not meet the High Tax Collector condition",
        seat=0,
    )


# -- end of the period ---------------------------------------------------------------------------------


def test_tax_collection_steel_pays_cogs_ivory_popularity_administration_nothing() -> None:
    match = start("gasworks", "docks")
    move(match, {0: (None, "belvedere")})
    act(match, {"t": "Buy"}, 0)
    next_turn(match, {0: (None, "bank")})
    act(match, {"t": "Buy"}, 0)
    events = pass_turns(match, 2) + end_actions(match)
    taxes = of(events, "TaxesCollected")
    assert [t["seat"] for t in taxes] == [0, 1]
    assert {k: taxes[0][k] for k in ("steel", "ivory", "cogs", "popularity")} == {
        "steel": 1,
        "ivory": 1,
        "cogs": 20_000,
        "popularity": 20,
    }
    assert (cogs(match, 0), pop(match, 0)) == (30_000, 70)
    line = "Tax Collection: Ann collects 20,000 Cogs (1 Steel) and 20 popularity (1 Ivory)."
    assert GAME.describe(taxes[0], 1) == line


def test_rulebook_example_the_governor_bidding() -> None:
    match = start("forges", "quay", "docks", "gasworks")
    move(match, {1: (None, "pig"), 3: (None, "pig")})
    finish(match, 0)
    act(match, {"t": "LucienAdmin", "action": "speech"}, 1)
    finish(match, 1)
    finish(match, 2)
    act(match, {"t": "LucienAdmin", "action": "speech"}, 3)
    events = pass_turns(match, 3) + end_actions(match)
    opened = one(events, "BiddingOpened")
    assert (opened["tied"], opened["popularity"]) == ([1, 3], 100)
    view = GAME.view(match.state, 0)
    assert view["phase"] == "bid"
    assert view["bidding"] == {"tied": [1, 3], "bid": 0, "bidder": None, "dropped": [], "to_bid": 1}
    assert match.active() == (1,)
    act(match, {"t": "Bid", "amount": 20_000}, 1)
    refused(match, {"t": "Bid", "amount": 20_000}, "The bid is already 20,000 Cogs", seat=3)
    refused(match, {"t": "Bid", "amount": 25_000}, "Bid a whole number of 10,000 Cogs", seat=3)
    refused(match, {"t": "Bid", "amount": 80_000}, "You do not have that many Cogs", seat=3)
    assert GAME.legal(match.state, 3)[0] == {"t": "Bid", "amount": 30_000}
    act(match, {"t": "Bid", "amount": 30_000}, 3)
    events = act(match, {"t": "Drop"}, 1)
    elected = one(events, "GovernorElected")
    assert (elected["seat"], elected["bid"]) == (3, 30_000)
    assert GAME.describe(elected, 0) == "Dee wins the bidding, pays 30,000 Cogs to the Bank and becomes Governor."
    assert (cogs(match, 3), cogs(match, 1)) == (40_000, 50_000)  # Gasworks paid 20,000 in taxes
    view = GAME.view(match.state, 0)
    assert (view["governor"], view["first"], view["order"]) == (3, 1, [1, 2, 0, 3])


def test_without_a_bid_no_governor_and_the_first_player_stays() -> None:
    match = start("forges", "docks")
    events = pass_turns(match, 4)  # nobody can do anything: each action phase ends by itself
    assert one(events, "BiddingOpened")["tied"] == [0, 1]
    act(match, {"t": "Drop"}, 0)
    events = act(match, {"t": "Drop"}, 1)
    assert of(events, "NoGovernor") and one(events, "PeriodEnded")["passed"] is False
    view = GAME.view(match.state, 0)
    assert (view["governor"], view["first"], view["order"], view["period"]) == (None, 0, [0, 1], 2)


def test_the_last_player_in_the_bidding_may_still_bid() -> None:
    match = start("forges", "docks")
    pass_turns(match, 4)
    act(match, {"t": "Drop"}, 0)
    assert match.active() == (1,) and {"t": "Bid", "amount": 10_000} in GAME.legal(match.state, 1)
    events = act(match, {"t": "Bid", "amount": 10_000}, 1)
    assert one(events, "GovernorElected")["seat"] == 1
    view = GAME.view(match.state, 0)
    assert (view["governor"], view["first"], view["order"]) == (1, 1, [0, 1])


# -- the end of the game ---------------------------------------------------------------------------------


def test_victory_with_a_certificate() -> None:
    def won_thanks_to_a_certificate(match: Match) -> bool:
        view = GAME.view(match.state, ALL)
        w = view["winner"]
        return w is not None and view["certificates"]["dandy"] == w and view["players"][w]["cogs"] < 150_000

    match = random_until(2, range(60), won_thanks_to_a_certificate)
    view = GAME.view(match.state, ALL)
    w = view["winner"]
    won = one(match.events[match.moves[-1].start :], "GameWon")
    assert won["seat"] == w and "dandy" in won["conditions"] and won["cogs"] < 150_000
    assert GAME.describe(won, PUBLIC).startswith(f"Player {w + 1} is the Grand Triumphant: Wealthy Dandy")
    titles = [C.CERTIFICATE_NAMES[c] for c in won["conditions"]]
    assert match.outcome.winners == (w,)
    listed = ", ".join(titles[:-1]) + " and " + titles[-1]
    assert match.outcome.reason == f"Player {w + 1} is the Grand Triumphant: {listed}"
    assert GAME.legal(match.state, 0) == [] and match.active() == ()
    with pytest.raises(IllegalCommand, match="The game is over"):
        GAME.decide(match.state, 0, {"t": "Done"}, random.Random(0))


def test_a_victory_during_the_tax_collection_goes_to_the_first_in_turn_order() -> None:
    def both_would_win(match: Match) -> bool:
        if match.outcome is None:
            return False
        last = match.events[match.moves[-1].start :]
        won = one(last, "GameWon")
        if last[last.index(won) - 1]["t"] != "TaxesCollected":
            return False
        view = GAME.view(match.state, ALL)
        order = view["order"]
        for q in order[order.index(won["seat"]) + 1 :]:
            p = view["players"][q]
            conds = dict(p["conditions"])
            conds["dandy"] = conds["dandy"] or p["cogs"] + 20_000 * p["districts"]["steel"] >= 150_000
            if sum(conds.values()) >= 3:
                return True
        return False

    match = random_until(2, range(260, 300), both_would_win)
    last = match.events[match.moves[-1].start :]
    won = one(last, "GameWon")
    taxed = [e["seat"] for e in of(last, "TaxesCollected")]
    assert taxed[-1] == won["seat"]  # the later player never collects
    order = GAME.view(match.state, ALL)["order"]
    assert order.index(won["seat"]) < len(order) - 1


def test_reshuffle_the_discard_pile_when_the_deck_is_empty() -> None:
    def reshuffled(match: Match) -> bool:
        last = match.moves[-1]
        return last.seat is not None and any(e["t"] == "DeckShuffled" for e in match.events[last.start :])

    match = random_until(3, range(60), reshuffled)
    shuffle = next(e for e in match.events if e["t"] == "DeckShuffled" and e["reason"] == "reshuffle")
    i = match.events.index(shuffle)
    before = match.state_at(i)
    assert before.deck == () and Counter(shuffle["cards"]) == Counter(before.discard)
    after = match.state_at(i + 2)
    assert after.discard == () and match.events[i + 1]["t"] == "CardsDrawn"
    assert GAME.redact(shuffle, 0)["cards"] is None
    assert GAME.describe(shuffle, 0).startswith("The Manigance deck is empty")
    view = GAME.view(match.state, ALL)
    assert view["deck"] + view["discard"] + sum(p["hand"] for p in view["players"]) == 15


# -- variants, views, history ------------------------------------------------------------------------------


def test_the_twenty_card_deck() -> None:
    assert GAME.view(new_match(2, deck="20").state, 0)["deck"] == 20


def test_hidden_fortunes_never_reach_another_seats_view() -> None:
    match = start("promenade", "docks", "forges")
    move(match, {0: ("bank", None)})
    act(match, {"t": "EdgarAdmin", "action": "heist"}, 0)
    for viewer in (1, 2, PUBLIC):
        view = GAME.view(match.state, viewer)
        assert view["players"][0]["cogs"] is None and view["bank"] is None
        assert 100_000 not in [p["cogs"] for p in view["players"]]
        assert view["players"][0]["cards"] is None
    assert GAME.view(match.state, 0)["players"][0]["cogs"] == 100_000
    assert GAME.view(match.state, 0)["players"][1]["cogs"] is None
    assert GAME.view(match.state, ALL)["players"][1]["cogs"] == 50_000


def test_every_fortune_is_shown_once_the_game_is_over() -> None:
    config = GAME.make_config(3, variants={"fortunes": "hidden"})
    match = play_random(Match.new(GAME, make_header(GAME, config, 7)), 7, deep=False)
    assert match.outcome is not None
    for viewer in (0, 1, 2, PUBLIC):
        view = GAME.view(match.state, viewer)
        assert [p["cogs"] for p in view["players"]] == list(match.state.cogs)
        assert view["bank"] == match.state.bank


def test_the_view_has_the_shape_the_screen_draws() -> None:
    match = start("promenade", "docks")
    view = GAME.view(match.state, 0)
    assert set(view) == {
        "seat",
        "side",
        "phase",
        "period",
        "turn",
        "order",
        "to_act",
        "first",
        "governor",
        "heritage",
        "owners",
        "certificates",
        "deck",
        "discard",
        "bank",
        "needs",
        "players",
        "ask",
        "supported",
        "bidding",
        "last_moves",
        "winner",
        "reason",
    }
    assert set(view["players"][0]) == {
        "name",
        "colour",
        "cogs",
        "popularity",
        "supply",
        "districts",
        "edgar",
        "lucien",
        "hand",
        "cards",
        "used",
        "certified_this_period",
        "acted",
        "programmed",
        "program",
        "conditions",
    }
    assert view["seat"] == 0 and GAME.view(match.state, PUBLIC)["seat"] is None
    assert GAME.view(match.state, ALL)["seat"] is None
    assert view["players"][0]["conditions"] == dict.fromkeys(C.CERTIFICATES, False)


def test_describe_reveals_and_marks() -> None:
    match = start("promenade", "docks")
    (setup, shuffled) = match.events[:2]
    assert GAME.describe(setup, PUBLIC).startswith("Fosko (2-3-player side)")
    assert not GAME.reveals(setup, 0) and GAME.reveals(shuffled, 0)
    events = move(match, {0: ("bank", None)})
    assert GAME.mark(match.events[2]) is None
    assert all(isinstance(GAME.describe(e, s), str) for e in match.events for s in (0, 1, PUBLIC, ALL))
    heist = act(match, {"t": "EdgarAdmin", "action": "heist"}, 0)
    assert not GAME.reveals(heist[0], 0) and GAME.reveals(heist[0], 1)
    assert GAME.describe(heist[0], 1) == "Ann's Edgar performs the Bank Robbery on the Central Bank (-20 popularity)."
    assert events


# -- random legal games --------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_legal_games_end_and_legal_agrees_with_decide(players: int) -> None:
    for seed in range(3):
        variants = {"fortunes": ("hidden", "open")[seed % 2], "start": ("outskirts", "anywhere")[seed // 2]}
        config = GAME.make_config(players, variants=variants)
        match = play_random(Match.new(GAME, make_header(GAME, config, seed)), seed, deep=True)
        assert match.outcome is not None and len(match.outcome.winners) == 1
