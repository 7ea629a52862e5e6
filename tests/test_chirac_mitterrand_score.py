"""1988: the final score sheet, read from a view: the three qualities, the Media
token, each side's Power Erosion, the winner and why.

Positions are built by playing commands through a Match from fixed seeds: a
scripted game that ends by a sixth Power Erosion, and whole games of random
legal moves that end at the election (with and without a tie) and in solo.
"""

from __future__ import annotations

import random

import pytest

from core.engine import ALL, PUBLIC, Match, ScoreSheet, make_header
from core.games.chirac_mitterrand import GAME

# the scripted game of the rules tests: Chirac plays his own actions until the sixth erosion
CH = ["ev:01", "ev:08", "ev:10", "ev:02", "ev:11", "ev:16", "ev:05", "ev:21", "ev:22", "ev:09"]
MI = ["ev:03", "ev:04", "ev:13", "ev:06", "ev:07", "ev:19", "ev:12", "ev:14", "ev:18", "ev:20"]
DI = ["ev:15", "ev:17", "ev:23", "ev:24"]
DRAWS = [["cp:07", "cp:03", "cp:06"], ["cp:08", "cp:01", "cp:05"]]
COLUMNS = ("Candidate", "Charisma", "Courage", "Integrity", "Media", "Erosion")


def sheet(match: Match, seat=0) -> ScoreSheet | None:
    return GAME.score_sheet(GAME.view(match.state, seat))


def play(match: Match, card: str, action: int, under: list[str]) -> None:
    (seat,) = match.active()
    match.submit(seat, {"t": "PlayCard", "card": card, "action": action, "under": under})


def campaign(match: Match, apply: str, remove: str, quality: str | None = None) -> None:
    (seat,) = match.active()
    command = {"t": "Campaign", "apply": apply, "remove": remove}
    if quality:
        command["quality"] = quality
    match.submit(seat, command)


def scripted_to_fifth_erosion() -> Match:
    config = GAME.make_config(2, [{"name": "Jacques"}, {"name": "François"}], {"campaign": "first"})
    stack = {"chirac": CH, "mitterrand": MI, "discard": DI, "campaign": DRAWS}
    m = Match.new(GAME, make_header(GAME, config, 11, arranged=stack))
    play(m, "ev:01", 1, ["ev:08", "ev:10"])
    play(m, "ev:04", 0, ["ev:03", "ev:13"])
    play(m, "ev:02", 1, ["ev:11", "ev:16"])
    campaign(m, "cp:07", "cp:03")
    play(m, "ev:07", 0, ["ev:06", "ev:19"])
    play(m, "ev:05", 0, ["ev:21", "ev:22"])
    campaign(m, "cp:08", "cp:01", "courage")
    play(m, "ev:14", 0, ["ev:12", "ev:18"])
    play(m, "ev:09", 0, ["ev:03", "ev:13"])
    play(m, "ev:08", 0, ["ev:20", "ev:10"])
    return m


def random_game(seed: int, players: int = 2, candidate: str = "chirac") -> Match:
    """A whole game of random legal moves (every seat), from a fixed seed."""
    seats = [{"name": "Jacques"}, {"name": "François"}] if players == 2 else [{"name": "Ann", "candidate": candidate}]
    m = Match.new(GAME, make_header(GAME, GAME.make_config(players, seats, {"campaign": "first"}), seed))
    chooser = random.Random(seed)
    while m.outcome is None:
        (seat,) = m.active()
        m.submit(seat, chooser.choice(GAME.legal(m.state, seat)))
    return m


def ended(match: Match) -> dict:
    return next(e for e in match.events if e["t"] == "GameEnded")


def fits_80x24(s: ScoreSheet) -> None:
    assert len(s.columns) <= 6 and all(len(c) <= 10 for c in s.columns)
    assert all(len(cell) <= 10 for row in s.rows for cell in row)
    assert len(s.notes) <= 6 and all(len(n) <= 74 for n in s.notes), s.notes


def test_no_sheet_before_the_game_is_over() -> None:
    m = scripted_to_fifth_erosion()
    assert m.outcome is None
    assert all(sheet(m, seat) is None for seat in (0, 1, PUBLIC, ALL))


def test_a_sixth_power_erosion_wins_though_the_loser_led_the_qualities() -> None:
    m = scripted_to_fifth_erosion()
    play(m, "ev:19", 0, ["ev:06", "ev:12"])  # Chirac's own action again: his sixth Power Erosion
    assert ended(m)["by"] == "erosion"
    s = sheet(m)
    assert (s.title, s.key, s.columns) == ("Final score", "final", COLUMNS)
    # seat 0 plays Chirac, seat 1 Mitterrand; Chirac leads Courage to the end of its row and holds the Media
    assert s.rows == (
        ("Chirac", "level", "ahead 4", "level", "holds", "6 of 6"),
        ("Mitterrand", "level", "behind 4", "level", "-", "0 of 6"),
    )
    assert s.notes == (
        "Winner: Mitterrand.",
        "Why: Chirac received a sixth Power Erosion; the game stopped at once.",
        "Charisma level, Courage Chirac +4, Integrity level",
        "Media token: Chirac (no election was held).",
    )
    fits_80x24(s)


def test_an_election_won_on_more_qualities() -> None:
    m = random_game(0)
    end = ended(m)
    assert (end["by"], end["winner"], end["tie"]) == ("election", "mitterrand", False)
    s = sheet(m)
    rows = GAME.view(m.state, ALL)["rows"]
    for row, side in zip(s.rows, ("chirac", "mitterrand"), strict=True):
        assert row[0] == side.capitalize()
        for cell, quality in zip(row[1:4], ("charisma", "courage", "integrity"), strict=True):
            pos = rows[quality] if side == "chirac" else -rows[quality]
            assert cell == ("level" if pos == 0 else f"ahead {pos}" if pos > 0 else f"behind {-pos}")
    lead = end["ahead"]["mitterrand"]
    assert s.notes[0] == "Winner: Mitterrand."
    assert s.notes[1] == f"Why: ahead in {lead} {'quality' if lead == 1 else 'qualities'} to {end['ahead']['chirac']}."
    assert s.notes[3].endswith("not needed, there was no tie.")
    fits_80x24(s)


def test_a_level_election_goes_to_the_media_token() -> None:
    m = random_game(1)
    end = ended(m)
    assert (end["by"], end["winner"], end["tie"], end["media"]) == ("election", "mitterrand", True, "mitterrand")
    s = sheet(m)
    level = end["ahead"]["mitterrand"]
    assert s.notes[1] == f"Why: level in qualities ({level} to {level}); the Media token breaks the tie."
    assert s.notes[3] == "Media token: Mitterrand."  # said once that it broke the tie, by the Why line
    assert [row[4] for row in s.rows] == ["-", "holds"]


def test_every_viewer_gets_the_same_sheet() -> None:
    """Computed from the view alone, and nothing in it is private: both seats, a watcher, a replay."""
    m = random_game(3)
    assert len({sheet(m, seat) for seat in (0, 1, PUBLIC, ALL)}) == 1


def test_solo_one_row_for_the_seat_the_automaton_in_the_notes() -> None:
    m = random_game(0, players=1, candidate="chirac")
    end = ended(m)
    assert (end["by"], end["winner"], end["automaton"]) == ("election", "mitterrand", True)
    assert m.outcome.winners == ()
    s = sheet(m)
    assert len(s.rows) == 1 and s.rows[0][0] == "Chirac"
    assert s.notes[0] == "Winner: Mitterrand (the automated opponent)."
    erosion = len(GAME.view(m.state, 0)["erosion"]["mitterrand"])
    lead = end["ahead"]["mitterrand"]
    assert s.notes[-1] == (
        f"The automated Mitterrand: {erosion} of 6 Power Erosion, "
        f"ahead in {lead} {'quality' if lead == 1 else 'qualities'}."
    )
    fits_80x24(s)


def test_solo_as_mitterrand_against_an_automaton_worn_out() -> None:
    m = random_game(0, players=1, candidate="mitterrand")
    end = ended(m)
    assert (end["by"], end["winner"], end["loser"]) == ("erosion", "chirac", "mitterrand")
    s = sheet(m)
    assert s.rows[0][0] == "Mitterrand" and s.rows[0][5] == "6 of 6"
    assert s.notes[:2] == (
        "Winner: Chirac (the automated opponent).",
        "Why: Mitterrand received a sixth Power Erosion; the game stopped at once.",
    )


@pytest.mark.parametrize("players, candidate", [(2, "chirac"), (1, "chirac"), (1, "mitterrand")])
def test_every_sheet_fits_the_game_over_dialog_at_80x24(players: int, candidate: str) -> None:
    for seed in range(30):
        m = random_game(seed, players, candidate)
        s = sheet(m)
        fits_80x24(s)
        assert len(s.rows) == players
        winner = ended(m)["winner"]
        assert s.notes[0].startswith(f"Winner: {winner.capitalize()}")
