"""L'Agent Jean!: the score sheet of each round and of the game's end.

Positions are played through a Match from fixed seeds: whole random games,
and the scripted tied round of the rules tests.
"""

from __future__ import annotations

import json
import random

import pytest

from core.engine import ALL, PUBLIC, Match, make_header
from core.games.agent_jean import GAME
from core.games.agent_jean import cards as C
from tests.test_agent_jean_rules import new_tie_match, play_script, tie_cards

NAMES = ["Ada", "Bastien", "Chloé", "Denis", "Elsa"]


def random_match(players: int, seed: int, bonus: str = "rulebook") -> Match:
    agents = random.Random(seed).sample(C.AGENTS, players)
    seats = [{"name": NAMES[i], "agent": a} for i, a in enumerate(agents)]
    config = GAME.make_config(players, seats, variants={"bonus": bonus})
    return Match.new(GAME, make_header(GAME, config, seed))


def play_until_scored(match: Match, rng: random.Random) -> dict | None:
    """Random legal moves until a round is scored; its RoundScored event
    (None if the game was already over)."""
    while match.outcome is None:
        seat = rng.choice(match.active())
        events = match.submit(seat, rng.choice(GAME.legal(match.state, seat)))
        scored = [e for e in events if e["t"] == "RoundScored"]
        if scored:
            return scored[0]
    return None


def sheets_of_every_viewer(match: Match) -> list:
    viewers = [*range(match.state.players), PUBLIC, ALL]
    return [GAME.score_sheet(GAME.view(match.state, v)) for v in viewers]


def fits(sheet) -> None:
    """What the shared dialogs can draw at 80x24."""
    assert len(sheet.columns) <= 6 and all(len(c) <= 10 for c in sheet.columns)
    assert all(len(cell) <= 10 for row in sheet.rows for cell in row)
    assert len(sheet.notes) <= 6 and all(len(n) <= 74 for n in sheet.notes)


def test_no_sheet_before_the_first_round_is_scored() -> None:
    match = random_match(3, seed=4)
    rng = random.Random(4)
    for _ in range(20):
        (seat,) = match.active()
        match.submit(seat, rng.choice(GAME.legal(match.state, seat)))
        assert sheets_of_every_viewer(match) == [None] * 5


def test_a_tied_round_gives_both_players_the_bonus_and_a_medal() -> None:
    match = new_tie_match()
    play_script(match, tie_cards(True))
    sheet = GAME.score_sheet(GAME.view(match.state, 0))
    assert sheet.key == "round-1" and sheet.title == "Round 1 scored"
    assert sheet.columns == ("Plans", "Greens", "Yellows", "Round", "Medals")
    # 21 points of plans each, no green (both get +8), no yellow (both tied
    # for the most with none: both -8)
    assert sheet.rows == (("21", "+8 (0)", "-8 (0)", "21", "1 (+1)"),) * 2
    assert sheet.notes == (
        "Fewest green cards (0): +8 to P0 and P1.",
        "Nobody won a yellow card, so all are tied for the most: -8 to P0 and P1.",
        "Medals of round 1: P0 and P1, tied on 21 points.",
    )
    # the next round is under way: its sheet is still the one of round 1
    assert match.state.round == 2
    assert sheets_of_every_viewer(match) == [sheet] * 4


def test_the_board_variant_scores_ten_points() -> None:
    match = new_tie_match(bonus="board")
    play_script(match, tie_cards(True))
    sheet = GAME.score_sheet(GAME.view(match.state, 1))
    assert [row[1] for row in sheet.rows] == ["+10 (0)"] * 2
    assert [row[2] for row in sheet.rows] == ["-10 (0)"] * 2
    assert [row[3] for row in sheet.rows] == ["21"] * 2


@pytest.mark.parametrize("players,seed", [(2, 3), (3, 8), (4, 5), (5, 11)])
def test_each_round_sheet_is_the_rules_sum_and_the_last_is_final(players: int, seed: int) -> None:
    match = random_match(players, seed)
    rng = random.Random(seed)
    medals = [0] * players
    penalised = False
    rounds = 0
    while match.outcome is None:
        scored = play_until_scored(match, rng)
        rounds += 1
        for i in scored["medals"]:
            medals[i] += 1
        sheets = sheets_of_every_viewer(match)
        sheet = sheets[0]
        # every seat, a spectator and a replay see the same sheet, and the
        # view alone gives it (a remote player gets the view as plain data)
        assert sheets == [sheet] * len(sheets)
        assert GAME.score_sheet(json.loads(json.dumps(GAME.view(match.state, 0)))) == sheet
        fits(sheet)
        assert len(sheet.rows) == players
        amount = 8 if players <= 3 else 5
        for i, (plans, greens, yellows, total, medal) in enumerate(sheet.rows):
            assert plans == str(scored["plan_points"][i])
            bonus = amount if scored["greens"][i] == min(scored["greens"]) else 0
            penalty = amount if scored["yellows"][i] == max(scored["yellows"]) > 0 else 0
            assert greens == (f"+{bonus}" if bonus else "0") + f" ({scored['greens'][i]})"
            assert yellows == (f"-{penalty}" if penalty else "0") + f" ({scored['yellows'][i]})"
            assert int(total) == int(plans) + bonus - penalty == scored["scores"][i]
            assert medal == (f"{medals[i]} (+1)" if i in scored["medals"] else str(medals[i]))
            penalised = penalised or penalty > 0
        taken = [NAMES[i] for i in scored["medals"]]
        assert any(note.startswith("Medal") and all(n in note for n in taken) for note in sheet.notes)
        if match.outcome is None:
            assert (sheet.key, sheet.title) == (f"round-{scored['round']}", f"Round {scored['round']} scored")
    # the end: the last round's sheet, named final, with who holds two medals
    assert (sheet.key, sheet.title) == ("final", f"Final score (round {rounds})")
    winners = [NAMES[i] for i in match.outcome.winners]
    assert all(medals[i] >= 2 for i in match.outcome.winners)
    assert sheet.notes[-1].startswith("Two medals") and all(n in sheet.notes[-1] for n in winners)
    assert penalised  # these games have someone losing points for yellows


def test_a_yellow_penalty_names_who_pays_it() -> None:
    match = random_match(2, seed=3)
    scored = play_until_scored(match, random.Random(3))
    sheet = GAME.score_sheet(GAME.view(match.state, 1))
    most = max(scored["yellows"])
    assert most > 0
    paying = " and ".join(NAMES[i] for i, q in enumerate(scored["penalty"]) if q)
    assert f"Most yellow cards ({most}): -8 to {paying}." in sheet.notes


def test_the_game_end_makes_every_seats_plan_points_public() -> None:
    """Once the game is over the last round's plans of every seat are in the
    view of each seat (as the scoring), while its won piles stay private."""
    match = random_match(3, seed=8)
    rng = random.Random(8)
    while play_until_scored(match, rng) is not None:
        pass
    for seat in range(3):
        view = GAME.view(match.state, seat)
        assert view["phase"] == "over"
        points = view["scoring"]["plan_points"]
        assert points[seat] == view["players"][seat]["points"]
        assert points == [sum(C.plan_value(p) for p in plans) for plans in match.state.won_plans]


def test_checkpoint_digests_are_those_of_saves_made_before_the_scoring_was_kept() -> None:
    """The state now keeps the last round's scoring; the digests written in
    saves leave it out, so a game saved before still verifies (these values
    were taken with the rules as they were before the field existed)."""
    from core.engine import digest

    match = random_match(3, seed=8)
    rng = random.Random(8)
    digests = []
    while play_until_scored(match, rng) is not None:
        assert match.state.last_scoring is not None
        digests.append(digest(GAME.canonical(match.state)))
    assert digests == ["91ce7e8044c158b367095ad9b859ecf9", "00eacde0c213ef2a28d9dd96a167a645"]
