"""A heuristic bot for 1988: Chirac contre Mitterrand: it reads only its seat's view.

For every legal command it works out the position the command leads to
(token moves, the Media token, Power Erosion on either side, campaign draws
given away) and scores it as a chance of winning:

- each quality row is won, lost or left at the centre with a probability
  that depends on where its token stands and how many turns remain (the
  fewer the turns, the surer a lead);
- those three chances make the chance of being ahead in more qualities,
  the Media token deciding a tie;
- Power Erosion near six is a risk of losing outright, a second and a
  fourth one hand the opponent a campaign draw;
- the cards slid under the opponent's pile are worth what the opponent
  could do with them, if the opponent will still draw them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from itertools import product
from typing import Any

from core.engine import Bot, Command, Game

from . import cards as C
from .rules import CAMPAIGN_AT, DIRECTION, EROSION_LIMIT, SIDES, action_qualities, automaton_actions

#: turns in a game: eight each, two players or solo
TOTAL_TURNS = 16
#: how far a token wanders, per turn still to play, in steps
DRIFT = 0.55
#: about how many pushes a candidate can give one row in a turn
PUSHES_PER_TURN = 1.6
#: the share of pushes past the end that really happen (the other side pulls back)
BONUS_SHARE = 0.35
#: solo: the automaton benefits from every neutral and own icon of its card
AUTOMATON_PUSHES = 3.0
#: what a campaign draw is worth, in chance of winning
CAMPAIGN_VALUE = 0.25
#: what one step of a card handed to the opponent is worth to them, in chance of winning
GIFT_VALUE = 0.012
#: how much of what a Campaign card put back would bring the opponent counts against putting it back
#: (he may never draw it: the pile holds several cards and he draws at most twice)
RETURN_SHARE = 0.3


def _phi(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


class Position:
    """What the bot needs of a position, from one candidate's point of view."""

    __slots__ = ("discard", "erosion", "length", "media", "rows", "thresholds")

    def __init__(
        self, rows: list[int], media: int, erosion: list[int], discard: int, length: int, thresholds: list[set[int]]
    ) -> None:
        self.rows = rows
        self.media = media
        self.erosion = erosion
        self.discard = discard
        self.length = length
        self.thresholds = thresholds

    @classmethod
    def of(cls, view: dict[str, Any]) -> Position:
        return cls(
            [view["rows"][q] for q in C.QUALITIES],
            SIDES.index(view["media"]),
            [len(view["erosion"][s]) for s in SIDES],
            len(view["discard"]),
            view["row_length"],
            [set(view.get("erosion_thresholds", {}).get(s, ())) for s in SIDES],
        )

    # -- the rules, light --------------------------------------------------------------

    def push(self, c: int, q: str) -> None:
        i = C.QUALITIES.index(q)
        to = self.rows[i] + DIRECTION[c]
        if -self.length <= to <= self.length:
            self.rows[i] = to
        elif self.media != c:
            self.media = c
        else:
            self.inflict(c)

    def inflict(self, c: int) -> None:
        if self.discard > 0:
            self.discard -= 1
            self.erode(1 - c)

    def erode(self, c: int) -> None:
        self.erosion[c] += 1
        n = self.erosion[c]
        if n in CAMPAIGN_AT:
            self.thresholds[c].add(n)

    def centre(self, c: int) -> None:
        d = DIRECTION[c]
        self.rows = [p + d if p * d < 0 else p for p in self.rows]


class HeuristicBot(Bot):
    level = "easy"

    def __init__(self, seed: int) -> None:
        self.seed = seed  # the bot is deterministic: the same view gives the same move

    def choose(self, game: Game, view: dict[str, Any], legal: list[Command], known: Any = None) -> Command:
        if len(legal) == 1:
            return legal[0]
        kinds = {c["t"] for c in legal}
        me = SIDES.index(view["you"])
        if "PlayCard" in kinds:
            return self._best(legal, lambda c: self._play_value(view, me, c))
        if "Campaign" in kinds:
            return self._best(legal, lambda c: self._campaign_value(view, me, c))
        if "Veto" in kinds or "Allow" in kinds:
            return self._veto(view, me, legal)
        return legal[0]

    @staticmethod
    def _best(legal: list[Command], score: Callable[[Command], float]) -> Command:
        best, best_score = legal[0], float("-inf")
        for command in legal:
            value = score(command)
            if value > best_score + 1e-12:
                best, best_score = command, value
        return best

    # -- how good a position is -------------------------------------------------------------

    def remaining(self, view: dict[str, Any]) -> int:
        """Turns still to play after the current one."""
        return max(0, TOTAL_TURNS - view["turn"])

    @staticmethod
    def rival_draw(view: dict[str, Any]) -> float:
        """What a campaign draw that our second or fourth Power Erosion gives the
        other side is worth to it: nothing against the rulebook's automaton.  The
        hard automaton applies one of its three cards at random where a player
        would choose, but valuing its draw at 0, 0.1 or 0.4 instead won fewer
        games (500 games a side, seed 3)."""
        if not view["solo"] or view.get("solo_level") == "hard":
            return CAMPAIGN_VALUE
        return 0.0

    def value(self, pos: Position, me: int, remaining: int, solo: bool, rival_draw: float) -> float:
        """A chance of winning, for ``me``, in this position with ``remaining`` turns to go;
        ``rival_draw`` is what a campaign draw given away costs (see :meth:`rival_draw`)."""
        opp = 1 - me
        if pos.erosion[me] >= EROSION_LIMIT:
            return 0.0
        if pos.erosion[opp] >= EROSION_LIMIT:
            return 1.0
        d = DIRECTION[me]
        spread = max(0.05, DRIFT * math.sqrt(remaining))
        chances = []
        for p in pos.rows:
            x = p * d
            mine = _phi((x - 0.5) / spread)
            theirs = _phi((-x - 0.5) / spread)
            chances.append((mine, theirs, max(0.0, 1.0 - mine - theirs)))
        election = 0.0
        for combo in product(range(3), repeat=3):
            prob = 1.0
            score = 0
            for row, outcome in zip(chances, combo, strict=True):
                prob *= row[outcome]
                score += (1, -1, 0)[outcome]
            if score > 0 or (score == 0 and pos.media == me):
                election += prob
        # Power Erosion: the chance that the other side pushes enough tokens past
        # its end, Media token in hand, to hand out what is missing up to six
        theirs_left = (remaining + 1) // 2  # the other side moves next
        mine_left = remaining - theirs_left
        lose = self.erosion_risk(pos, opp, me, theirs_left, AUTOMATON_PUSHES if solo else PUSHES_PER_TURN)
        win = self.erosion_risk(pos, me, opp, mine_left, PUSHES_PER_TURN)
        v = election * (1.0 - lose - win) + win
        # the campaign draws each side has earned: 2nd and 4th erosions of the other
        v -= rival_draw * len(pos.thresholds[me])
        v += CAMPAIGN_VALUE * len(pos.thresholds[opp])
        return v

    @staticmethod
    def erosion_risk(pos: Position, pusher: int, victim: int, turns: int, rate: float) -> float:
        """The chance that ``pusher`` gives ``victim`` the Power Erosion it still lacks to reach six."""
        need = EROSION_LIMIT - pos.erosion[victim]
        if turns <= 0 or need <= 0:
            return 0.0 if need > 0 else 1.0
        d = DIRECTION[pusher]
        pushes = rate * turns
        expected = 0.0
        for p in pos.rows:
            to_end = pos.length - p * d
            expected += max(0.0, pushes - to_end) * BONUS_SHARE
        if pos.media != pusher:
            expected = max(0.0, expected - BONUS_SHARE)
        if pos.discard <= 0:
            expected *= 0.3
        # Poisson tail: at least ``need`` erosions
        term = math.exp(-expected)
        below = 0.0
        for k in range(need):
            below += term
            term *= expected / (k + 1)
        return max(0.0, 1.0 - below)

    @staticmethod
    def card_worth(card: str, c: int) -> float:
        """About how many steps a candidate gets out of a card."""
        best = 0.0
        for action in C.actions(card):
            if not C.may_use(SIDES[c], action):
                continue
            steps = len(action.icons) + 0.2 * sum(1 for i in action.icons if i == C.CHOICE)
            if action.colour != "white":
                steps -= 0.8  # the Power Erosion it costs
            best = max(best, steps)
        return best

    # -- playing a card ----------------------------------------------------------------------

    def _play_value(self, view: dict[str, Any], me: int, command: Command) -> float:
        card = command["card"]
        action = C.actions(card)[command["action"]]
        pos = Position.of(view)
        for q in action_qualities(action, command.get("choices") or []):
            pos.push(me, q)
        if action.colour != "white":
            pos.erode(me)
        remaining = self.remaining(view)
        solo = bool(view["solo"])
        v = self.value(pos, me, remaining, solo, self.rival_draw(view))
        under = command.get("under") or []
        if solo:
            # the card kept under our own pile comes back if we still draw that deep
            depth = view["piles"][SIDES[me]]
            if under and depth < 2 * ((remaining + 1) // 2):
                v += GIFT_VALUE * 0.8 * self.card_worth(under[0], me)
        else:
            opp = 1 - me
            depth = view["piles"][SIDES[opp]]
            their_turns = (remaining + 1) // 2
            for k, gift in enumerate(under):
                if depth + k < 3 * their_turns:
                    v -= GIFT_VALUE * self.card_worth(gift, opp)
        return v

    # -- campaign cards -----------------------------------------------------------------------

    def _campaign_value(self, view: dict[str, Any], me: int, command: Command) -> float:
        pos = Position.of(view)
        self.apply_campaign(pos, me, command["apply"], command.get("quality") or "charisma")
        remaining = self.remaining(view)
        solo = bool(view["solo"])
        rival = self.rival_draw(view)
        v = self.value(pos, me, remaining, solo, rival)
        if not rival:
            return v  # the rulebook's automaton never draws: what goes back cannot be turned against us
        # a card returned to the pile may come back to the opponent's hand: give away the one
        # that would help him least, judged as he would judge it in today's position
        removed = command.get("remove")
        returned = [c for c in (view["campaign"].get("drawn") or []) if c not in (command["apply"], removed)]
        if returned:
            opp = 1 - me
            base = self.value(Position.of(view), opp, remaining, solo, rival)
            for c in returned:
                gain = max(
                    self.value(self._after(view, opp, c, q), opp, remaining, solo, rival) - base
                    for q in (C.QUALITIES if C.campaign(c).choice else (None,))
                )
                v -= RETURN_SHARE * max(0.0, gain)
        return v

    def _after(self, view: dict[str, Any], c: int, card: str, q: str | None) -> Position:
        pos = Position.of(view)
        self.apply_campaign(pos, c, card, q or "charisma")
        return pos

    @staticmethod
    def apply_campaign(pos: Position, me: int, card_id: str, q: str) -> None:
        """Carry out a Campaign card on the light position (as rules.campaign_steps).
        ``q``: the quality chosen, read only by a card that has one chosen (any other
        quality stands in for a card that has none)."""
        card = C.campaign(card_id)
        effect = card.effect
        if effect == "media":
            if pos.media != me:
                pos.media = me
            else:
                pos.push(me, "charisma")
        elif effect == "media2":
            if pos.media != me:
                pos.media = me
            else:
                pos.push(me, "charisma")
                pos.push(me, "charisma")
        elif effect == "relief":
            if pos.erosion[me]:
                pos.erosion[me] -= 1
                pos.discard += 1
            else:
                pos.push(me, "courage")
        elif effect == "relief_step":
            if pos.erosion[me]:
                pos.erosion[me] -= 1
                pos.discard += 1
            pos.push(me, q)
        elif effect == "charisma2":
            pos.push(me, "charisma")
            pos.push(me, "charisma")
        elif effect == "unite":
            pos.centre(me)
        elif effect == "unite2":
            pos.centre(me)
            pos.centre(me)
        elif effect == "letter":
            pos.push(me, "integrity")
            pos.push(me, q)
        elif effect == "first_round":
            pos.push(me, "courage")
            pos.push(me, "charisma")
        elif effect == "erosion":
            pos.inflict(me)
        elif effect == "lepen":
            d = DIRECTION[me]
            mine = sum(1 for p in pos.rows if p * d > 0)
            theirs = sum(1 for p in pos.rows if p * d < 0)
            for _ in range(2 if theirs > mine else 1):
                pos.inflict(me)
        elif effect == "debate":
            pos.push(me, q)
            pos.push(me, q)
            pos.media = me
        elif effect == "debate_even":
            pos.push(me, q)
            pos.push(me, q)
            chirac = sum(1 for p in pos.rows if p > 0)
            mitterrand = sum(1 for p in pos.rows if p < 0)
            pos.media = me if chirac == mitterrand else (0 if chirac < mitterrand else 1)
        elif effect == "poll":
            pos.push(me, q)
        elif effect == "poll_centre":
            centre = [quality for quality, p in zip(C.QUALITIES, pos.rows, strict=True) if abs(p) <= 1]
            for quality in centre or [q]:
                pos.push(me, quality)

    # -- the solo veto --------------------------------------------------------------------------

    def _veto(self, view: dict[str, Any], me: int, legal: list[Command]) -> Command:
        card = view["automaton_card"]
        a = 1 - me
        remaining = self.remaining(view)
        used, _ = automaton_actions(card, a, len(view["erosion"][SIDES[a]]))

        def after(vetoed: int | None) -> float:
            total = 0.0
            samples = 0
            actions = [i for i in used if i != vetoed]
            icons = [icon for i in actions for icon in C.actions(card)[i].icons]
            n_choice = sum(1 for i in icons if i == C.CHOICE)
            for picks in product(C.QUALITIES, repeat=n_choice):
                pos = Position.of(view)
                it = iter(picks)
                for icon in icons:
                    pos.push(a, next(it) if icon == C.CHOICE else icon)
                if any(C.actions(card)[i].colour != "white" for i in used):
                    pos.erode(a)
                total += self.value(pos, me, remaining, True, self.rival_draw(view))
                samples += 1
            return total / samples

        allow = after(None)
        best, gain = {"t": "Allow"}, 0.0
        for command in legal:
            if command["t"] == "Veto":
                g = after(command["action"]) - allow
                if g > gain:
                    best, gain = command, g
        # the veto is spent once: keep it for a neutral action that really hurts, or for the end
        threshold = 0.06 if remaining > 4 else 0.0
        return best if gain > threshold else {"t": "Allow"}
