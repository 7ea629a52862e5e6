"""Ministères: who wins a tie on points, bids on an Or card beyond one's cards,
and saves made before either was a choice.

Endings are played through a Match: two players whose hands are dealt card
by card from a stacked deck, every auction passed, so the hands at the end
are the hands dealt and the tokens are those the Roi cards of the gifts
moved.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from core.engine import PUBLIC, IllegalCommand, Match, make_header
from core.games.ministeres import GAME
from core.games.ministeres import cards as C
from core.games.ministeres.rules import decided_by, final_scores, game_winners, letters_apart
from saves import SaveWriter, load, verify
from tests.test_ministeres_rules import auction_match, bid, finish_gifts, of, two_player_gifts

FIXTURES = Path(__file__).parent / "ministeres_data"


def cards_of(ministry: str, letters: str) -> list[str]:
    return [f"{ministry}-{x}" for x in letters]


ALL_LETTERS = "ABCDEFGHI"


def ending(ann: list[str], bob: list[str], variants: dict | None = None) -> Match:
    """Ann's and Bob's game to its end: they are dealt ``ann`` and ``bob``
    (Roi cards among them applied as they come), then Or cards, nothing
    else; every other card waits on the Favours pile and nobody bids."""
    golds = list(C.OR_CARDS)
    ann, bob = list(ann), list(bob)
    while len(ann) < 36:
        ann.append(golds.pop(0))
    while len(bob) < 36:
        bob.append(golds.pop(0))
    favours = [c for c in C.ALL_CARDS if c not in ann and c not in bob]
    assert len(favours) == 36, "the hands need 33 Gouvernement or Roi cards between them"
    match = auction_match(ann, bob, favours, variants)
    while match.outcome is None:
        bid(match, None)
    return match


def summary(match: Match) -> str:
    """The score sheet's first note, its wrapped lines joined."""
    notes = GAME.score_sheet(GAME.view(match.state, PUBLIC)).notes
    lines = [notes[0]]
    for note in notes[1:]:
        if not note.startswith("  "):
            break
        lines.append(note.strip())
    return " ".join(lines)


# Ann takes Diplomatie and Armée, Bob Architecture and Animaux: 8 points and
# 2 Primaire tokens each.
#  - GOVERNMENT: Ann also holds the A of Architecture, so her cards add up to
#    45 against Bob's 43 (his Architecture without the A is 21).
#  - LETTERS: Ann gives Bob her Diplomatie E for his Architecture A: 44 each,
#    but Ann holds three A cards to Bob's one.
#  - SAME: each holds two whole ministries: the same letters, a true tie.
GOVERNMENT = (
    cards_of("diplomatie", ALL_LETTERS) + cards_of("armee", ALL_LETTERS) + ["architecture-A"],
    cards_of("architecture", "BCDEFGHI") + cards_of("animaux", ALL_LETTERS),
)
LETTERS = (
    cards_of("diplomatie", "ABCDFGHI") + cards_of("armee", ALL_LETTERS) + ["architecture-A"],
    cards_of("architecture", "BCDEFGHI") + cards_of("animaux", ALL_LETTERS) + ["diplomatie-E"],
)
SAME = (
    cards_of("diplomatie", ALL_LETTERS) + cards_of("armee", ALL_LETTERS),
    cards_of("architecture", ALL_LETTERS) + cards_of("animaux", ALL_LETTERS),
)
# TOKENS: the Roi cards of the gifts leave Diplomatie at 6, Armée 5,
# Architecture and Animaux 3 (Divertissement goes up and down again).  Bob
# takes Diplomatie alone, 6 points, one token; Ann Architecture and Animaux
# (14 to Bob's 8 in each), 6 points, two tokens.  Nobody holds Armée.  Bob's
# cards add up to more (38 to 28): the tokens come first.
TOKENS = (
    cards_of("architecture", "CDGH") + cards_of("animaux", "CDGH") + ["roi-09", "roi-10", "roi-05"],
    cards_of("diplomatie", ALL_LETTERS)
    + cards_of("architecture", "ABEFI")
    + cards_of("animaux", "ABEFI")
    + ["roi-01", "roi-13", "roi-11"],
)


def test_equal_points_and_tokens_go_to_the_higher_gouvernement_total() -> None:
    match = ending(*GOVERNMENT)
    s = match.state
    assert s.scores == (8, 8) and match.outcome.winners == (0,)
    assert summary(match) == (
        "Ann wins: tied on 8 points and 2 Primaire tokens, Gouvernement cards worth 45 to Bob's 43."
    )
    assert match.outcome.reason == (
        "Ann and Bob tie on 8 points; Ann wins with the stronger government (Gouvernement cards worth 45)."
    )
    assert of(match.events, "GameScored")[0]["winners"] == [0]


def test_then_the_most_cards_lettered_a_then_b_and_so_on() -> None:
    match = ending(*LETTERS)
    s = match.state
    assert s.scores == (8, 8) and match.outcome.winners == (0,)
    assert summary(match) == (
        "Ann wins: tied on 8 points, 2 Primaire tokens and Gouvernement cards worth 44; letters nearest A "
        "AA to Bob's AB."
    )
    assert match.outcome.reason == "Ann and Bob tie on 8 points; Ann wins on the letters nearest A."
    # the same hands with Bob's B letters, not his A, short: one card more decides
    assert letters_apart("AABC", "AAB") == ("AABC", "AAB")


def test_the_same_letters_share_the_victory() -> None:
    match = ending(*SAME)
    assert match.state.scores == (8, 8) and match.outcome.winners == (0, 1)
    assert summary(match) == (
        "Ann and Bob share the victory: 8 points, 2 Primaire tokens, Gouvernement cards worth 44 and the "
        "same letters each."
    )
    assert "share" in GAME.describe(of(match.events, "GameScored")[0], PUBLIC)


def test_more_primaire_tokens_come_before_the_gouvernement_total() -> None:
    match = ending(*TOKENS)
    s = match.state
    assert s.primaire == (6, 5, 3, 3, 4, 4) and s.scores == (6, 6)
    assert [sum(C.value(c) for c in h if C.is_gouvernement(c)) for h in s.hands] == [28, 38]
    assert match.outcome.winners == (0,)
    assert summary(match) == "Ann wins: tied on 6 points, 2 Primaire tokens to Bob's 1."
    assert match.outcome.reason == "Ann and Bob tie on 6 points; Ann wins with more Primaire tokens."


@pytest.mark.parametrize("hands", [GOVERNMENT, LETTERS, SAME], ids=["government", "letters", "same"])
def test_the_share_variant_shares_a_tie_on_points_and_tokens(hands) -> None:
    match = ending(*hands, variants={"tiebreak": "share"})
    assert match.outcome.winners == (0, 1)
    assert summary(match) == "Ann and Bob share the victory (8 points, 2 Primaire tokens each)."
    assert match.outcome.reason == "Ann and Bob tie on 8 points and Primaire tokens, and share the victory."


def test_the_share_variant_still_counts_the_tokens() -> None:
    match = ending(*TOKENS, variants={"tiebreak": "share"})
    assert match.outcome.winners == (0,)


def test_three_players_the_ranking_step_by_step() -> None:
    """The steps in order, among three players with a Secondaire: a seat
    left behind at one step is out of the later ones."""
    a = cards_of("armee", "D")  # 4 in Armée
    b = cards_of("armee", "H") + cards_of("animaux", "ABCD")  # 4 in Armée, 10 in Animaux
    c = cards_of("armee", "A") + cards_of("animaux", "E")  # 1 and 1
    hands = (tuple(a), tuple(b), tuple(c))
    scores, tokens, _ = final_scores(hands, (4,) * 6)
    # Armée: a's D beats b's H for the Primaire (4), b takes the Secondaire (2); Animaux: b, then c
    assert scores == [4, 6, 2] and tokens == [1, 1, 0]
    assert decided_by(scores, tokens, hands, [1]) == "points"
    # a tie on points among three: the tokens leave c out, the total then decides
    scores, tokens = [6, 6, 6], [1, 1, 0]
    assert game_winners(scores, tokens, hands, "letters") == [1]
    assert decided_by(scores, tokens, hands, [1]) == "government"
    assert game_winners(scores, tokens, hands, "share") == [0, 1]
    assert game_winners(scores, [0, 0, 1], hands, "letters") == [2]
    assert decided_by(scores, [0, 0, 1], hands, [2]) == "tokens"


# -- bids on an Or card -----------------------------------------------------------------


def test_bluff_an_or_card_takes_bids_beyond_the_cards_in_hand() -> None:
    match = auction_match([], [], ["or3-09"])
    n = len(match.state.hands[0])
    bids = [c["amount"] for c in GAME.legal(match.state, 0) if c["t"] == "Bid"]
    assert bids == list(range(1, 3 * n + 1))  # as high as on any other card
    assert GAME.view(match.state, 0)["auction"]["max_bid"] == 3 * n
    with pytest.raises(IllegalCommand, match=f"more than {3 * n} with {n} cards"):
        match.submit(0, {"t": "Bid", "amount": 3 * n + 1})


def test_a_winner_of_an_or_card_with_too_few_cards_pays_nothing_and_loses_a_card() -> None:
    match = auction_match([], [], ["or3-09"])
    hand = match.state.hands[0]
    n = len(hand)
    bid(match, n + 1)  # one card more than Ann holds: everyone can see she cannot pay
    events = bid(match, None)
    (won,) = of(events, "AuctionWon")
    assert (won["seat"], won["amount"], won["kind"]) == (0, n + 1, "cards")
    (defaulted,) = of(events, "PaymentDefaulted")
    assert (defaulted["seat"], defaulted["taker"], defaulted["lot"], defaulted["owed"]) == (0, 1, "or3-09", n + 1)
    assert not of(events, "CardPaid")
    # she spends nothing, the Or card is discarded, Bob takes one of her cards at random
    assert len(match.state.hands[0]) == n - 1 and defaulted["card"] in hand
    assert defaulted["card"] in match.state.hands[1] and "or3-09" not in match.state.hands[0]
    assert match.state.discard[-1] == "or3-09" and match.state.face_down == ()
    assert GAME.describe(defaulted, PUBLIC).startswith(f"Ann cannot pay {n + 1}: Or 3 is discarded")


def test_covered_an_or_card_takes_no_bid_beyond_the_cards_in_hand() -> None:
    match = auction_match([], [], ["or3-09"], variants={"bids": "covered"})
    n = len(match.state.hands[0])
    bids = [c["amount"] for c in GAME.legal(match.state, 0) if c["t"] == "Bid"]
    assert bids == list(range(1, n + 1))
    with pytest.raises(IllegalCommand, match=f"more than you can pay \\({n}\\)"):
        match.submit(0, {"t": "Bid", "amount": n + 1})


def test_or_bids_cards_caps_an_or_card_at_the_cards_in_hand_under_bluff() -> None:
    match = auction_match([], [], ["or3-09", "armee-D"], variants={"or_bids": "cards"})
    n = len(match.state.hands[0])
    assert [c["amount"] for c in GAME.legal(match.state, 0) if c["t"] == "Bid"] == list(range(1, n + 1))
    with pytest.raises(IllegalCommand, match=f"more cards than the {n} in your hand"):
        match.submit(0, {"t": "Bid", "amount": n + 1})
    bid(match, None)
    bid(match, None)
    # the other lots keep the bluff cap
    assert GAME.legal(match.state, 1)[-2] == {"t": "Bid", "amount": 3 * len(match.state.hands[1])}


# -- saves made before the two keys ------------------------------------------------------------


def old_header_match(deck: list[str], favours: list[str]) -> Match:
    """A match whose header is what the code before these keys wrote: the
    variants it knew, no ``tiebreak``, no ``or_bids``."""
    config = GAME.make_config(2, [{"name": "Ann"}, {"name": "Bob"}])
    for key in ("tiebreak", "or_bids"):
        del config["variants"][key]
    header = make_header(GAME, config, 1, arranged={"deck": deck, "dealer": 0, "favours": favours})
    assert set(header["variants"]) == {"bids", "unsold", "dealer_roi"}
    return Match.new(GAME, header)


def test_a_header_without_the_keys_plays_the_old_rules() -> None:
    # the old tie rule: equal points and tokens share, whatever the cards
    ann, bob = GOVERNMENT
    golds = list(C.OR_CARDS)
    ann, bob = ann + golds[: 36 - len(ann)], bob + golds[36 - len(ann) : 72 - len(ann) - len(bob)]
    favours = [c for c in C.ALL_CARDS if c not in ann and c not in bob]
    deck = two_player_gifts(ann, bob, favours)
    match = old_header_match(deck, [deck[3 * k + 2] for k in range(36)])
    finish_gifts(match)
    while match.outcome is None:
        bid(match, None)
    assert match.outcome.winners == (0, 1)
    assert match.outcome.reason == "Ann and Bob tie on 8 points and Primaire tokens, and share the victory."
    assert summary(match) == "Ann and Bob share the victory (8 points, 2 Primaire tokens each)."
    # the old Or cap: never more cards than the hand holds
    deck = two_player_gifts([], [], ["or3-09"])
    match = old_header_match(deck, [deck[3 * k + 2] for k in range(36)])
    finish_gifts(match)
    n = len(match.state.hands[0])
    assert [c["amount"] for c in GAME.legal(match.state, 0) if c["t"] == "Bid"] == list(range(1, n + 1))
    with pytest.raises(IllegalCommand, match="more cards than"):
        match.submit(0, {"t": "Bid", "amount": n + 1})


def fixture(tmp_path: Path, name: str) -> Path:
    """A copy of a fixture save, private as a save is (a checkout gives its files 0644,
    and verify would warn that other users can read it)."""
    path = tmp_path / name
    path.write_bytes((FIXTURES / name).read_bytes())
    path.chmod(0o600)
    return path


def test_a_save_without_the_keys_verifies_and_replays_as_it_was_played(tmp_path: Path) -> None:
    """A save written by the code before these keys (``ministeres-before-keys.cab``:
    two easy bots, seed 21's second table of ``cabinet simulate``, a tie on
    15 points and 2 Primaire tokens, shared) still verifies move by move,
    checkpoint digests and recorded result included, and ends as it did: shared."""
    path = fixture(tmp_path, "ministeres-before-keys.cab")
    assert verify(path).endswith("finished, won by Ann and Bob.")
    match = load(path).match
    assert "tiebreak" not in match.header["variants"] and "or_bids" not in match.header["variants"]
    assert match.outcome.winners == (0, 1) and match.outcome.scores == (15, 15)
    scored = of(match.events, "GameScored")[0]
    assert scored["winners"] == [0, 1]
    # under the new default the same hands would not have been shared
    s = match.state
    assert len(game_winners(scored["scores"], scored["tokens"], s.hands, "letters")) == 1
    # written again by this code, it still verifies
    copy = tmp_path / "copy.cab"
    SaveWriter(copy, match, durable=False).close()
    assert verify(copy).endswith("finished, won by Ann and Bob.")


def test_a_save_without_the_keys_won_on_the_tokens_keeps_its_recorded_reason(tmp_path: Path) -> None:
    """Three easy bots, written by the code before these keys
    (``ministeres-before-keys-tokens.cab``): Ann and Bob tie on 15 points,
    Bob wins with more Primaire tokens; the result recorded then, reason
    included, is the one replayed."""
    path = fixture(tmp_path, "ministeres-before-keys-tokens.cab")
    assert verify(path).endswith("finished, won by Bob.")
    outcome = load(path).match.outcome
    assert outcome.winners == (1,) and outcome.scores == (15, 15, 11)
    assert outcome.reason == "Bob holds the most valuable posts in the government: 15 points."


def test_a_new_game_writes_the_new_defaults_in_its_header() -> None:
    config = GAME.make_config(2)
    assert config["variants"]["tiebreak"] == "letters" and config["variants"]["or_bids"] == "bluff"
    match = Match.new(GAME, make_header(GAME, config, 1))
    assert (match.state.tiebreak, match.state.or_bids) == ("letters", "bluff")
