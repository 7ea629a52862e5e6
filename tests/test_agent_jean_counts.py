"""L'Agent Jean!: who sees the counts of the won piles (issue 17).

The rulebook lets you look at your own won pile, not at the others'.  By
default (``counts=hidden``) a seat's view, its history, and what its bots
are given hold its own won pile only, and of the others the cards of this
turn and the last turn's take; ``counts=open`` puts everyone's counts on the
table as before.  Saves made before the variant (a header without the key)
replay as they were played: with open counts, and with no penalty when
nobody won a yellow.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from core.bots import bot_inputs
from core.bots.search import SearchBot
from core.engine import ALL, PUBLIC, UNSEEN, Match, make_header
from core.games.agent_jean import GAME
from core.games.agent_jean import cards as C
from core.games.agent_jean.bot import HeuristicBot
from saves import load, verify
from table import Table
from tests.random_games import strings
from tests.test_agent_jean_knowledge import move_won_turn
from tests.test_agent_jean_properties import check_cards
from tests.test_agent_jean_rules import TIE_PILE, new_match, new_tie_match, of, play, play_script, tie_cards

DATA = Path(__file__).parent / "data"
COUNTS = ("won", "greens", "yellows")


def after_two_turns(counts: str | None = None) -> Match:
    """Three players, no powers; P0 wins turn 1 with G9 over Y1 and B1, then
    P1 wins turn 2 (led by P0) with G12 over G2 and Y3; turn 3 waits for P1."""
    hands = (["G9", "G2"], ["Y1", "G12"], ["B1", "Y3"])
    variants = {"young": "on"} | ({"counts": counts} if counts else {})
    match = new_match(3, hands=hands, top=("plan:07", "plan:11"), leader=0, variants=variants)
    play(match, "G9", "Y1", "B1", "G2", "G12", "Y3")
    assert match.active() == (1,)
    return match


# -- the view ------------------------------------------------------------------------


def test_counts_are_hidden_by_default_and_the_variant_is_offered() -> None:
    (variant,) = [v for v in GAME.variants if v.key == "counts"]
    assert variant.choices == ("hidden", "open") and variant.default == "hidden"
    assert GAME.make_config(3)["variants"]["counts"] == "hidden"
    assert GAME.make_config(3, variants={"counts": "open"})["variants"]["counts"] == "open"


def test_a_seat_sees_its_own_counts_and_not_the_others() -> None:
    match = after_two_turns()
    view = GAME.view(match.state, 0)
    me, p1, p2 = view["players"]
    assert (me["won"], me["greens"], me["yellows"]) == (3, 1, 1)
    assert me["won_cards"] == ["B1", "G9", "Y1"]  # it may look at its own pile
    for other in (p1, p2):
        assert all(other[k] is None for k in COUNTS)
        assert "won_cards" not in other and other["plans"] is None
    # nothing else in the view tells them: the cards of earlier turns are
    # not listed, only the last turn's take
    assert view["played"] is None
    assert view["last_turn"] == {"seat": 1, "cards": ["G2", "G12", "Y3"], "plans": ["plan:11"]}
    # P2 knows the cards it played itself, wherever they went, not the others'
    p2 = GAME.view(match.state, 2)
    assert p2["players"][2]["played_cards"] == ["B1", "Y3"]
    assert not {"G9", "Y1"} & strings(p2)
    # P1's own view has its counts, not P0's
    seen_by_p1 = GAME.view(match.state, 1)["players"]
    assert (seen_by_p1[1]["won"], seen_by_p1[1]["greens"], seen_by_p1[1]["yellows"]) == (3, 2, 1)
    assert all(seen_by_p1[0][k] is None for k in COUNTS)


def test_the_public_view_has_no_counts_and_everything_revealed_has_all() -> None:
    match = after_two_turns()
    public = GAME.view(match.state, PUBLIC)
    assert all(p[k] is None for p in public["players"] for k in COUNTS)
    assert public["played"] is None
    everything = GAME.view(match.state, ALL)
    assert [[p[k] for k in COUNTS] for p in everything["players"]] == [[3, 1, 1], [3, 2, 1], [0, 0, 0]]
    assert len(everything["played"]) == 6


def test_open_counts_show_everyones_as_before() -> None:
    match = after_two_turns("open")
    for viewer in (0, 2, PUBLIC):
        view = GAME.view(match.state, viewer)
        assert [[p[k] for k in COUNTS] for p in view["players"]] == [[3, 1, 1], [3, 2, 1], [0, 0, 0]]
        assert view["played"] == sorted(["G9", "Y1", "B1", "G2", "G12", "Y3"], key=C.hand_order)
        assert all("won_cards" not in p for p in view["players"])


def test_the_round_end_still_reveals_the_scoring() -> None:
    match = new_tie_match()
    play_script(match, tie_cards(True))
    scoring = GAME.view(match.state, 1)["scoring"]
    assert scoring["greens"] == [0, 0] and scoring["yellows"] == [0, 0] and scoring["plan_points"] == [21, 21]


def test_once_the_game_is_over_everyones_counts_are_shown() -> None:
    """The last round scored and the game over, how many cards, greens and yellows each seat
    won in it is in every view, the public's too: the scoring made the colours public, and
    the number of cards was no secret (a card a player for each turn won, whose winner is)."""
    seats = [{"agent": a} for a in C.AGENTS[:3]]
    match = Match.new(GAME, make_header(GAME, GAME.make_config(3, seats), 7))
    assert match.state.counts == "hidden"
    Table(match).play_out(bots={i: HeuristicBot(i) for i in range(3)})
    s = match.state
    assert match.outcome is not None and s.phase == "over"
    piles = [(len(w), sum(c[0] == "G" for c in w), sum(c[0] == "Y" for c in w)) for w in s.won_cards]
    scoring = GAME.view(s, PUBLIC)["scoring"]
    assert [g for _, g, _ in piles] == scoring["greens"] and [y for _, _, y in piles] == scoring["yellows"]
    assert sum(n for n, _, _ in piles) == 12 * 3
    for viewer in (0, 1, 2, PUBLIC, ALL):
        shown = [tuple(p[k] for k in COUNTS) for p in GAME.view(s, viewer)["players"]]
        assert shown == piles, viewer
        # what a seat may not look at stays out: the others' plans, and their cards
        if isinstance(viewer, int):
            others = [p for i, p in enumerate(GAME.view(s, viewer)["players"]) if i != viewer]
            assert all(p["plans"] is None and "won_cards" not in p for p in others)


# -- the history ---------------------------------------------------------------------


def history(match: Match, viewer) -> list[str]:
    return [GAME.describe(GAME.redact(e, viewer), viewer) for e in match.events]


def test_the_history_does_not_keep_what_went_to_the_others_piles() -> None:
    match = after_two_turns()
    lines = history(match, 2)
    # P2 sees its own cards, and who won each turn, not the cards the others
    # played nor what the winner took
    assert "P2 plays B1." in lines and "P2 plays Y3." in lines
    assert "P0 plays a card." in lines and "P1 plays a card." in lines
    assert not any(c in line for line in lines for c in ("G9", "Y1", "G2", "G12"))
    assert "P0 wins the turn and takes the cards and the plan." in lines
    assert not any("plan Le Casse" in line or "plan Le Barrage" in line for line in lines)
    # nor does what a remote seat is sent: not even the plan each taking
    # turned up, which would tell what the next winner took
    sent = [GAME.redact(e, 2) for e in match.events if e["t"] in ("CardPlayed", "TurnWon")]
    assert not {"G9", "Y1", "G2", "G12", "plan:07", "plan:11"} & strings(sent)
    assert all(e["plan"] is None and e["cards"] is None for e in sent if e["t"] == "TurnWon")
    # the winner reads its own take in full; everything revealed shows all
    assert any(line.startswith("P0 wins the turn: 3 cards and plan Le Casse") for line in history(match, 0))
    assert "P0 plays G9." in history(match, ALL)


def test_open_counts_keep_the_whole_history() -> None:
    match = after_two_turns("open")
    lines = history(match, 2)
    assert "P0 plays G9." in lines and "P1 plays G12." in lines
    assert any(line.startswith("P0 wins the turn: 3 cards and plan Le Casse") for line in lines)
    assert not any(e.get("hidden") for e in match.events)


# -- the bots ------------------------------------------------------------------------


def other_counts_in_inputs(match: Match, seat: int) -> None:
    """The view and the observation a bot of ``seat`` is given hold none of
    the other seats' won cards but the last turn's take, nor their counts."""
    view, _, known = bot_inputs(GAME, match.state, seat)
    for i, p in enumerate(view["players"]):
        if i != seat:
            assert all(p[k] is None for k in COUNTS)
    last = known.last_turn
    for i, won in enumerate(known.won_cards):
        if i != seat:
            assert set(won) <= (set(last[1]) if last and last[0] == i else set())
    for i, plans in enumerate(known.won_plans):
        if i != seat:
            assert UNSEEN not in plans  # not even how many turns it won


def test_the_bots_inputs_hold_no_other_seats_counts() -> None:
    match = after_two_turns()
    for seat in range(3):
        other_counts_in_inputs(match, seat)
    # P2 is given the same whoever of P0 and P1 won turn 1
    twin = move_won_turn(match.state, 2)
    assert twin is not None and twin.won_cards != match.state.won_cards
    assert bot_inputs(GAME, twin, 2)[0] == bot_inputs(GAME, match.state, 2)[0]
    assert GAME.observe(twin, 2) == GAME.observe(match.state, 2)


def test_with_open_counts_the_bots_are_given_them() -> None:
    match = after_two_turns("open")
    view, _, known = bot_inputs(GAME, match.state, 2)
    assert [p["greens"] for p in view["players"]] == [1, 2, 0]
    assert sum(map(len, known.won_cards)) == 6


def test_the_easy_bot_plays_the_same_whoever_won_the_hidden_turns() -> None:
    """Two positions that differ only in who of the others won a turn: the
    easy bot of the third seat is given the same, and plays the same."""
    checked = 0
    for seed in range(1, 9):
        match = Match.new(GAME, make_header(GAME, GAME.make_config(3), seed))
        rng = random.Random(seed)
        bot = HeuristicBot(0)
        while match.outcome is None and checked < 12:
            (seat,) = match.active()
            twin = move_won_turn(match.state, seat)
            if twin is not None and GAME.legal(match.state, seat):
                inputs = bot_inputs(GAME, match.state, seat)
                assert bot_inputs(GAME, twin, seat)[:2] == inputs[:2]
                assert bot.choose(GAME, *inputs) == bot.choose(GAME, *bot_inputs(GAME, twin, seat))
                checked += 1
            match.submit(seat, rng.choice(GAME.legal(match.state, seat)))
    assert checked == 12


@pytest.mark.parametrize("players", [2, 3, 5])
def test_easy_bots_play_whole_games_with_hidden_counts(players: int) -> None:
    seats = [{"agent": a} for a in C.AGENTS[:players]]
    match = Match.new(GAME, make_header(GAME, GAME.make_config(players, seats), 3 + players))
    bots = {i: HeuristicBot(i) for i in range(players)}
    moves = 0
    while match.outcome is None:
        (seat,) = match.active()
        other_counts_in_inputs(match, seat)
        view, legal, known = bot_inputs(GAME, match.state, seat)
        command = bots[seat].choose(GAME, view, legal, known)
        assert command in legal
        match.submit(seat, command)
        moves += 1
    assert match.outcome.winners and moves > 24


def test_the_search_bot_determinizes_the_hidden_piles_and_plays_legal_moves() -> None:
    """The search bot deals the others' won piles from the cards it has not
    seen, consistent with what its seat knows, and chooses legal moves."""
    seats = [{"agent": a} for a in ("martha", "wxt", "henry")]
    match = Match.new(GAME, make_header(GAME, GAME.make_config(3, seats), 12))
    bot = SearchBot(1, 60, "test")
    rng = random.Random(12)
    decided = 0
    while match.outcome is None and match.state.round == 1:
        (seat,) = match.active()
        view, legal, known = bot_inputs(GAME, match.state, seat)
        for k in range(3):
            d = GAME.determinize(known, seat, random.Random(k))
            assert GAME.view(d, seat) == view and GAME.observe(d, seat) == known
            check_cards(d)
            assert sum(map(len, d.won_cards)) == sum(map(len, match.state.won_cards))
        if decided < 6 and seat == 0:
            assert bot.choose(GAME, view, legal, known) in legal
            decided += 1
        match.submit(seat, rng.choice(legal))
    assert decided == 6


def test_the_search_bot_draws_who_won_the_hidden_turns() -> None:
    """With hidden counts, how the others' turns are shared between them is
    drawn: different seeds share them differently."""
    match = after_two_turns()
    seat = 1  # P1 won turn 2: turn 1 went to P0 or P2, as far as it knows
    known = GAME.observe(match.state, seat)
    splits = {tuple(len(w) for w in GAME.determinize(known, seat, random.Random(k)).won_cards) for k in range(20)}
    assert len(splits) > 1


def test_the_search_bot_knows_where_its_own_cards_are_not() -> None:
    """P2 played B1 in turn 1, which another seat won: every deal puts it in
    P0's or P1's won pile, with one turn's worth of cards, never in a hand."""
    match = after_two_turns()
    known = GAME.observe(match.state, 2)
    assert known.played == ((), (), ("B1", "Y3"))
    sizes = set()
    for k in range(10):
        d = GAME.determinize(known, 2, random.Random(k))
        (holder,) = [i for i, w in enumerate(d.won_cards) if "B1" in w]
        assert holder in (0, 1) and not any("B1" in h for h in d.hands)
        sizes.add(tuple(map(len, d.won_cards)))
    # turn 1 went to P0 or to P1 (who won turn 2 as well): both are drawn
    assert sizes == {(3, 3, 0), (0, 6, 0)}


# -- older saves ------------------------------------------------------------------------


def old_header_match() -> Match:
    """A match whose header is as the code before the variant wrote it: the
    variants dict without ``counts`` nor ``no_yellows``."""
    header = make_header(GAME, GAME.make_config(3), 4)
    for key in ("counts", "no_yellows"):
        del header["variants"][key]
    return Match.new(GAME, header)


def test_a_header_without_the_keys_plays_with_open_counts_and_no_penalty() -> None:
    match = old_header_match()
    assert (match.state.counts, match.state.no_yellows) == ("open", "none")
    Table(match).play_out(bots={i: HeuristicBot(i) for i in range(3)})
    assert not any(e.get("hidden") for e in match.events)
    view = GAME.view(match.state, 0)
    assert all(p["won"] is not None for p in view["players"])


@pytest.mark.parametrize("name", ["agent-jean-main-bots.cab", "agent-jean-main-tie.cab"])
def test_saves_made_before_the_variants_verify_and_replay_as_played(tmp_path: Path, name: str) -> None:
    """Two saves written by the code before these variants (main at 5cfdc17,
    through tui.session.start_save: easy bots at three players, seed 11 and
    bot seed 11; the scripted tied round of new_tie_match, where nobody wins
    a yellow): every move decided again gives the same events."""
    path = tmp_path / name
    shutil.copy(DATA / name, path)
    line = verify(path)
    assert line.startswith("L'Agent Jean!")
    match = load(path).match
    assert "counts" not in match.header["variants"] and "no_yellows" not in match.header["variants"]
    assert match.state.counts == "open"
    assert not any(e.get("hidden") for e in match.events)
    others = GAME.view(match.state, 1)["players"]
    assert all(p["greens"] is not None for p in others)
    if "tie" in name:
        (scored,) = of(match.events, "RoundScored")
        assert scored["yellows"] == [0, 0] and scored["penalty"] == [0, 0] and scored["scores"] == [29, 29]


# -- nobody won a yellow ------------------------------------------------------------------


@pytest.mark.parametrize("no_yellows,penalty", [(None, [8, 8]), ("penalty", [8, 8]), ("none", [0, 0])])
def test_when_nobody_won_a_yellow(no_yellows: str | None, penalty: list[int]) -> None:
    """The scripted tied round: both win no yellow, so both are tied for the
    most; by default (the rulebook's tie rule) both pay, with the variant
    ``none`` neither does.  The medal goes to both either way."""
    variants = {"young": "on"} | ({"no_yellows": no_yellows} if no_yellows else {})
    match = new_match(2, ("jean", "bulle"), hands=tie_cards(True), top=tuple(TIE_PILE), leader=0, variants=variants)
    (scored,) = of(play_script(match, tie_cards(True)), "RoundScored")
    assert scored["yellows"] == [0, 0] and scored["penalty"] == penalty
    assert scored["scores"] == [21 + 8 - penalty[0]] * 2 and scored["medals"] == [0, 1]


# -- the rules text ------------------------------------------------------------------------


def test_the_rules_text_tells_both_variants() -> None:
    text = (Path(__file__).parent.parent / "core/games/agent_jean/rules.md").read_text()
    assert "counts=open" in text and "Counts of the others' won cards" in text
    assert "When nobody won a yellow" in text


# -- where a table is chosen -------------------------------------------------------------


def test_the_command_line_takes_counts_open() -> None:
    from tui.cli import build_parser, match_from_args

    parser = build_parser()
    for flags, counts in (([], "hidden"), (["--variant", "counts=open"], "open")):
        args = parser.parse_args(["play", "agent-jean", "--players", "3", "--bots", "2,3", "--seed", "1", *flags])
        match = match_from_args(parser.commands["play"], args)
        assert match.header["variants"]["counts"] == counts and match.state.counts == counts


def test_the_new_game_screen_offers_both_variants(tmp_path: Path) -> None:
    from screens.app import CabinetApp
    from tests.tui_helpers import run_async, screen_text, settle

    @run_async
    async def check() -> None:
        app = CabinetApp(save_dir=tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("enter")  # New game: L'Agent Jean! is the first game
            await settle(pilot)
            text = screen_text(app)
            assert "L'Agent Jean!" in text
            assert "Counts of the others' won cards  hidden" in text
            assert "When nobody won a yellow         penalty" in text

    check()


@pytest.mark.parametrize("counts", ["hidden", "open"])
def test_every_viewer_can_see_the_table_before_the_deal(counts: str) -> None:
    """The state before the first event (a remote player's view_at 0)."""
    config = GAME.make_config(3, variants={"counts": counts})
    state = GAME.initial(config)
    for viewer in (0, 1, 2, PUBLIC, ALL):
        view = GAME.view(state, viewer)
        assert view["players"][0]["won"] == (None if counts == "hidden" and viewer not in (0, ALL) else 0)
