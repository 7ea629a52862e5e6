"""The search bot: information-set Monte Carlo tree search, for any game.

It works through the game contract alone.  Each iteration it

1. *determinizes*: deals the cards its seat cannot see at random among those
   unaccounted for (:meth:`Game.determinize` of what :meth:`Game.observe`
   gave it: it is never handed the true state), withdrawing the hidden
   choices other seats have made but not shown, so that they make them again;
2. *selects* down a tree of its own decisions: at each of its moves, among
   the commands legal in this deal, the one with the best upper confidence
   bound, counted over the iterations in which it was available (the
   "availability" UCB of Cowling, Powley and Whitehouse's ISMCTS);
3. *expands* one command not tried yet, the heuristic bot's choice first,
   and more only as the node's visits grow (progressive widening: a budget
   smaller than the number of possible bids is not spread thin over them),
   among the commands the game says are worth weighing
   (:meth:`Game.search_moves`: not two Or cards that pay the same);
4. *plays out* to the end of the game, or to where the game judges the
   position instead (:meth:`Game.search_cutoff` and :meth:`Game.estimate`:
   the end of the round in L'Agent Jean!, a horizon in the longer games),
   every seat played by the game's heuristic bot (or at random where the
   game has none), with a little randomness so that one line is not all it
   ever sees;
5. *backs up* its share of the win, or the chance the game gave it.

A game of many small decisions, where the cards dealt matter more than any
one move (Ministères, :attr:`Game.search_paired`), is searched flat instead:
each deal is drawn once and every move weighed is played out on it with the
same random numbers, so that two moves are compared on the same luck.

Other seats' moves and chance are not branched on in the tree: they are drawn
from the same heuristic model of the other players, each from its own
seat's view.  This is what makes hidden and simultaneous choices honest: an
opponent programming Edgar & Lucien's pawns at the same time as the bot does
so from its own view, which does not show the bot's program, and nothing the
bot does in the tree depends on cards it has not seen.  (A tree node for an
opponent's decision, as in multiple-observer ISMCTS, would have to be keyed by
what that opponent sees; with this budget the heuristic model plays those
moves better than a thin tree would.)

The thinking budget is counted in moves simulated (in the tree and in
play-outs, every seat's), not in seconds: iterations run until the budget is
spent.  A move costs about the same time wherever it is played, so a budget
of moves keeps the time a decision takes steady from the first turn, where
play-outs are long, to the last, and from two players to five; and it keeps
the search a function of the seat's observation, the seed and the budget
alone: the random numbers come from an RNG derived from the seed and a digest
of the observation, never from the match, so the same position gives the same
move on every machine and a bot game replays.
"""

from __future__ import annotations

import json
import math
import random
from typing import Any

from core.bots import make_bot
from core.engine import Bot, Command, Game, derive_rng, digest, to_plain

#: exploration constant of the UCB, for rewards between 0 and 1
EXPLORATION = 0.7
#: in play-outs, the share of moves played at random instead of by the model
NOISE = 0.1
#: how many standard errors the search's best must beat the model's choice by, at the root
MARGIN = 1.5
#: the fewest deals on which a paired comparison may overrule the model's choice
MIN_DEALS = 8
#: a node tries 1 + WIDENING * sqrt(visits) commands at most (progressive widening)
WIDENING = 1.0


class Node:
    """One of the bot's own decisions, reached by a sequence of its commands."""

    __slots__ = ("available", "children", "command", "reward", "square", "visits")

    def __init__(self, command: Command | None = None) -> None:
        self.command = command
        self.children: dict[str, Node] = {}
        self.visits = 0
        self.available = 0
        self.reward = 0.0
        self.square = 0.0  # of the rewards, for their spread

    @property
    def move(self) -> Command:
        """The command that reaches this node (every node but the root has one)."""
        if self.command is None:
            raise ValueError("the root of the tree is reached by no command")
        return self.command

    def score(self) -> float:
        return self.reward / self.visits + EXPLORATION * math.sqrt(math.log(self.available) / self.visits)


def command_key(command: Command) -> str:
    """A command as a string: the same command, the same key, whatever its dict order."""
    return json.dumps(command, sort_keys=True, separators=(",", ":"))


class SearchBot(Bot):
    """ISMCTS with heuristic play-outs; ``moves`` is its thinking budget, in moves simulated."""

    def __init__(self, seed: int, moves: int, level: str = "search") -> None:
        self.seed = seed
        self.moves = moves
        self.level = level
        #: what the last search found, for ``cabinet simulate`` and the tests
        self.last: dict[str, Any] = {}

    def choose(self, game: Game, view: dict[str, Any], legal: list[Command], known: Any = None) -> Command:
        if len(legal) == 1:
            return legal[0]
        if known is None:
            raise ValueError("the search bot needs what its seat knows (Game.observe)")
        seat = view["seat"]
        legal = game.search_moves(known, seat, legal)
        if len(legal) == 1:
            self.last = {"iterations": 0, "moves": [], "chosen": legal[0]}
            return legal[0]
        rng = derive_rng(self.seed, "search", digest(to_plain(known)))
        model = Model(game, rng)
        default = model.choose(game, seat, None, legal, noise=False, view=view)
        if game.search_paired:
            return self._choose_paired(game, known, seat, rng, legal, default)
        root, iterations = self.search(game, known, seat, rng, model)
        offered = {command_key(c): c for c in legal}
        ranked = sorted(
            (child for key, child in root.children.items() if key in offered),
            key=lambda child: (child.visits, child.reward),
            reverse=True,
        )
        best = ranked[0]
        # The model's own choice stands unless the search found better beyond
        # the noise of its play-outs: a small budget must not turn the
        # heuristic's sound move into a coin toss among moves it cannot tell apart.
        fallback = root.children.get(command_key(default))
        if fallback is not None and best is not fallback and not _clearly_better(best, fallback):
            best = fallback
        self.last = {
            "iterations": iterations,
            "moves": [(child.command, child.visits, child.reward / max(1, child.visits)) for child in ranked],
            "chosen": best.command,
        }
        return offered[command_key(best.move)]

    def search(self, game: Game, known: Any, seat: int, rng: random.Random, model: Model) -> tuple[Node, int]:
        """The tree of the seat's decisions, and the iterations it took (one at least)."""
        root = Node()
        spent = iterations = 0
        while spent < self.moves or not iterations:
            iterations += 1
            state = game.determinize(known, seat, rng, redo=True)
            path = [root]
            node: Node | None = root
            reward = None
            # down the tree: the seat's own decisions, the model's for the others
            while node is not None:
                reward = _result(game, known, state, seat, 0)
                if reward is not None:
                    break
                active = game.active(state)
                if seat in active:
                    commands = game.search_moves(state, seat, game.legal(state, seat))
                    node, state = self._descend(game, node, commands, state, seat, rng, model)
                    path.append(node)
                    if node.visits == 0:
                        node = None  # expanded: play out from here
                else:
                    mover = active[0]
                    state = play_command(
                        game, state, mover, model.choose(game, mover, state, game.legal(state, mover)), rng
                    )
                spent += 1
            if reward is None:
                reward, played = _play_out(game, known, state, seat, rng, model)
                spent += played
            for n in path:
                n.visits += 1
                n.reward += reward
                n.square += reward * reward
        return root, iterations

    def _choose_paired(
        self, game: Game, known: Any, seat: int, rng: random.Random, legal: list[Command], default: Command
    ) -> Command:
        """Every move played out on the same deals with the same random numbers
        after it (a flat Monte Carlo of paired comparisons), and the best kept
        only if it beats the model's choice beyond the spread of their differences."""
        results: dict[str, list[float]] = {command_key(c): [] for c in legal}
        spent = deals = 0
        while spent < self.moves or not deals:
            deals += 1
            state = game.determinize(known, seat, rng, redo=True)
            seed = rng.getrandbits(64)
            for command in legal:
                same = random.Random(seed)
                after = play_command(game, state, seat, command, same)
                reward, played = _play_out(game, known, after, seat, same, Model(game, same))
                results[command_key(command)].append(reward)
                spent += played + 1
        means = {key: sum(r) / deals for key, r in results.items()}
        keep = command_key(default)
        best = max(means, key=lambda key: (means[key], key == keep))
        if best != keep:
            gains = [b - d for b, d in zip(results[best], results[keep], strict=True)]
            mean = sum(gains) / deals
            spread = sum((g - mean) ** 2 for g in gains) / max(1, deals - 1)
            if deals < MIN_DEALS or mean <= MARGIN * math.sqrt(spread / deals + 1e-6):
                best = keep
        chosen = next(c for c in legal if command_key(c) == best)
        self.last = {
            "iterations": deals * len(legal),  # play-outs
            "deals": deals,
            "moves": sorted(((c, deals, means[command_key(c)]) for c in legal), key=lambda m: -m[2]),
            "chosen": chosen,
        }
        return chosen

    @staticmethod
    def _descend(
        game: Game, node: Node, commands: list[Command], state: Any, seat: int, rng: random.Random, model: Model
    ) -> tuple[Node, Any]:
        """The child to follow from ``node``: the best bound among the commands
        tried, or a new one while the node may widen."""
        fresh = []
        best, best_score = None, -1.0
        for command in commands:
            key = command_key(command)
            child = node.children.get(key)
            if child is None:
                fresh.append(command)
                continue
            child.available += 1
            if child.visits:
                score = child.score()
                if score > best_score:
                    best, best_score = child, score
        # Progressive widening: a node tries one more command each time its
        # visits pass a square, the model's choice first, so that a budget
        # smaller than the number of bids is not spread one play-out a bid.
        if fresh and (best is None or len(node.children) < 1 + WIDENING * math.sqrt(node.visits)):
            pick = model.choose(game, seat, state, commands, noise=False)
            if command_key(pick) in node.children:
                pick = fresh[rng.randrange(len(fresh))]
            best = node.children[command_key(pick)] = Node(pick)
            best.available = 1
        assert best is not None
        return best, play_command(game, state, seat, best.move, rng)


class Model:
    """How the search expects every seat to play: the game's heuristic bot,
    each seat from its own view, with a little noise."""

    def __init__(self, game: Game, rng: random.Random) -> None:
        self.rng = rng
        level = game.rollout_level
        self.bots: dict[int, Bot] = {}
        self.make = (lambda seat: make_bot(game, level, rng.randrange(1 << 30))) if level else None

    def choose(
        self, game: Game, seat: int, state: Any, legal: list[Command], noise: bool = True, view: Any = None
    ) -> Command:
        if len(legal) == 1:
            return legal[0]
        if self.make is None or (noise and self.rng.random() < NOISE):
            # a slip among the moves worth weighing: not a bid of ninety gold
            options = legal if state is None else game.search_moves(state, seat, legal)
            return options[self.rng.randrange(len(options))]
        bot = self.bots.get(seat)
        if bot is None:
            bot = self.bots[seat] = self.make(seat)
        return bot.choose(game, game.view(state, seat) if view is None else view, legal)


def _clearly_better(best: Node, default: Node) -> bool:
    """Is ``best``'s mean reward above ``default``'s by more than MARGIN standard errors?"""
    return best.reward / best.visits - default.reward / default.visits > MARGIN * math.sqrt(
        _variance(best) / best.visits + _variance(default) / default.visits + 1e-6
    )


def _variance(node: Node) -> float:
    """The spread of a move's rewards, with two imagined play-outs (a win and a
    loss) so that two losses in two play-outs are not a certainty of losing."""
    n = node.visits + 2
    mean = (node.reward + 1) / n
    return max(0.0, (node.square + 1) / n - mean * mean)


def _result(game: Game, known: Any, state: Any, seat: int, played: int) -> float | None:
    """The seat's reward where a simulation stops (None: it goes on): its
    share of the win at the end of the game, or the game's estimate where
    the game cuts it short."""
    if game.search_cutoff(known, state, played):
        return game.estimate(state)[seat]
    outcome = game.outcome(state)
    if outcome is None:
        return None
    return 1.0 / len(outcome.winners) if seat in outcome.winners else 0.0


def _play_out(game: Game, known: Any, state: Any, seat: int, rng: random.Random, model: Model) -> tuple[float, int]:
    """Every seat played by the model until the simulation stops: (reward, moves played)."""
    played = 0
    while True:
        reward = _result(game, known, state, seat, played)
        if reward is not None:
            return reward, played
        active = game.active(state)
        mover = seat if seat in active else active[0]
        state = play_command(game, state, mover, model.choose(game, mover, state, game.legal(state, mover)), rng)
        played += 1


def play_command(game: Game, state: Any, seat: int, command: Command, rng: random.Random) -> Any:
    """The state once ``seat`` has played ``command`` (decided with ``rng``, and folded)."""
    for event in game.decide(state, seat, command, rng):
        state = game.evolve(state, event)
    return state
