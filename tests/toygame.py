"""A tiny deterministic game for the save tests (not a real Cabinet game).

Two players, a shuffled deck of numbered cards, a hidden hand of two.  On
your turn you play a card from your hand (adding it to your score) and draw
the top card of the deck; or you gamble: the match's RNG rolls a bonus of
0 to 2 points.  After ``rounds`` turns each, the higher score wins.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Any

from core.engine import Command, Event, Game, IllegalCommand, Outcome, SeatOption, Variant, Viewer


@dataclass(frozen=True)
class ToyState:
    rounds: int
    deck: tuple[int, ...] = ()
    hands: tuple[tuple[int, ...], ...] = ((), ())
    scores: tuple[int, ...] = (0, 0)
    turn: int = 0
    played: int = 0  # turns taken, both seats together


def _set(t: tuple, i: int, v: Any) -> tuple:
    return t[:i] + (v,) + t[i + 1 :]


class ToyGame(Game):
    id = "toy"
    title = "Toy Cards"
    min_players = 2
    max_players = 2
    rules_version = 1
    variants = (Variant("rounds", "Rounds", ("3", "30"), "3"),)
    seat_options = (SeatOption("colour", "Colour", ("red", "blue")),)

    def initial(self, config: dict[str, Any]) -> ToyState:
        return ToyState(rounds=int(config["variants"]["rounds"]))

    def setup(self, config: dict[str, Any], rng: random.Random) -> list[Event]:
        rounds = int(config["variants"]["rounds"])
        deck = list(range(1, 2 * rounds + 5))
        rng.shuffle(deck)
        events: list[Event] = [{"t": "DeckShuffled", "order": deck}]
        for _ in range(2):
            for seat in range(2):
                events.append({"t": "CardDrawn", "seat": seat, "card": deck.pop(0)})
        return events

    def decide(self, state: ToyState, seat: int, command: Command, rng: random.Random) -> list[Event]:
        if command.get("t") == "Gamble":
            return [{"t": "BonusRolled", "seat": seat, "bonus": rng.randint(0, 2)}, {"t": "TurnEnded", "seat": seat}]
        if command.get("t") == "Play":
            card = command.get("card")
            if card not in state.hands[seat]:
                raise IllegalCommand("You do not hold that card.")
            events: list[Event] = [{"t": "CardPlayed", "seat": seat, "card": card}]
            if state.deck:
                events.append({"t": "CardDrawn", "seat": seat, "card": state.deck[0]})
            events.append({"t": "TurnEnded", "seat": seat})
            return events
        raise IllegalCommand("Play a card or gamble.")

    def evolve(self, state: ToyState, event: Event) -> ToyState:
        t = event["t"]
        if t == "DeckShuffled":
            return replace(state, deck=tuple(event["order"]))
        if t == "CardDrawn":
            seat, card = event["seat"], event["card"]
            return replace(state, deck=state.deck[1:], hands=_set(state.hands, seat, state.hands[seat] + (card,)))
        if t == "CardPlayed":
            seat, card = event["seat"], event["card"]
            hand = list(state.hands[seat])
            hand.remove(card)
            return replace(
                state,
                hands=_set(state.hands, seat, tuple(hand)),
                scores=_set(state.scores, seat, state.scores[seat] + card),
            )
        if t == "BonusRolled":
            seat = event["seat"]
            return replace(state, scores=_set(state.scores, seat, state.scores[seat] + event["bonus"]))
        if t == "TurnEnded":
            return replace(state, turn=1 - event["seat"], played=state.played + 1)
        raise ValueError(f"unknown event {t!r}")

    def active(self, state: ToyState) -> tuple[int, ...]:
        return () if state.played >= 2 * state.rounds else (state.turn,)

    def legal(self, state: ToyState, seat: int) -> list[Command]:
        if seat not in self.active(state):
            return []
        return [{"t": "Play", "card": c} for c in sorted(state.hands[seat])] + [{"t": "Gamble"}]

    def view(self, state: ToyState, seat: Viewer) -> dict[str, Any]:
        return {
            "hand": list(state.hands[seat]) if isinstance(seat, int) else None,
            "hand_sizes": [len(h) for h in state.hands],
            "scores": list(state.scores),
            "deck": len(state.deck),
            "turn": state.turn,
        }

    def redact(self, event: Event, seat: Viewer) -> Event:
        if event["t"] == "DeckShuffled" and seat != "all":
            return {"t": "DeckShuffled", "order": None}
        if event["t"] == "CardDrawn" and seat not in ("all", event["seat"]):
            return {"t": "CardDrawn", "seat": event["seat"], "card": None}
        return event

    def describe(self, event: Event, seat: Viewer) -> str:
        e = self.redact(event, seat)
        t = e["t"]
        if t == "DeckShuffled":
            return "The deck is shuffled."
        if t == "CardDrawn":
            return f"Seat {e['seat'] + 1} draws {e['card'] if e['card'] is not None else 'a card'}."
        if t == "CardPlayed":
            return f"Seat {e['seat'] + 1} plays {e['card']}."
        if t == "BonusRolled":
            return f"Seat {e['seat'] + 1} gambles and gains {e['bonus']}."
        return f"Seat {e['seat'] + 1} ends the turn."

    def outcome(self, state: ToyState) -> Outcome | None:
        if state.played < 2 * state.rounds:
            return None
        best = max(state.scores)
        winners = tuple(i for i, s in enumerate(state.scores) if s == best)
        return Outcome(winners, "higher sum", tuple(state.scores))

    def reveals(self, event: Event, seat: int) -> bool:
        if event["t"] == "CardDrawn":
            return event["seat"] == seat
        return event["t"] in ("CardPlayed", "BonusRolled")


GAME = ToyGame()
GAMES = {GAME.id: GAME}
