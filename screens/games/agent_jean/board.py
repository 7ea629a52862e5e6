"""L'Agent Jean!: the plan pile, the turn's cards, the agents, your hand."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.events import Click
from textual.widget import Widget
from textual.widgets import OptionList, Static

from core.engine import Command
from core.games.agent_jean import cards
from tui.widgets import Board, BoardPart, BoardScroll, ChoiceList

#: (colours that keep 4.5:1 on the board, the selection and the greys of NO_COLOR, in 16 colours too)
COLOUR_STYLE = {"purple": "bold #B48CFF", "blue": "bold #5FAFFF", "green": "bold #5FD75F", "yellow": "bold #FFD75F"}


def card_text(card: str, value: int | None = None) -> Text:
    """'G8' in green; a changed value shows as 'G8=107'."""
    label = cards.card_label(card)
    if value is not None and value != cards.value(card):
        label += f"={value}"
    return Text(label, style=COLOUR_STYLE.get(cards.colour(card), ""))


def card_boxes(items: list[tuple[str, str, int | None, bool]], width: int = 0) -> Text:
    """(caption, card, value, highlighted) as boxed cards side by side, caption
    above; a box widens for its caption as far as ``width`` (if given) lets
    every box do so, and a caption still too long ends with …."""
    rows = [Text(), Text(), Text(), Text()]
    share = max(4, width // max(1, len(items)) - 3) if width else 4
    for caption, card, value, highlighted in items:
        label = card_text(card, value)
        inner = max(4, label.cell_len + 2, min(len(caption) - 2, share))
        style = COLOUR_STYLE.get(cards.colour(card), "")
        frame = style + (" reverse" if highlighted else "")
        if len(caption) > inner + 2:
            caption = caption[: inner + 1] + "…"
        rows[0].append(caption.center(inner + 2), style="dim")
        rows[1].append("╭" + "─" * inner + "╮", style=frame)
        body = label.copy()
        body.pad_left((inner - label.cell_len) // 2)
        body.pad_right(inner - body.cell_len)
        if highlighted:
            body.stylize("reverse")
        rows[2].append("│", style=frame)
        rows[2].append_text(body)
        rows[2].append("│", style=frame)
        rows[3].append("╰" + "─" * inner + "╯", style=frame)
        for row in rows:
            row.append(" ")
    return Text("\n").join(rows)


def pile_card_text(card: str | None, details: bool = True) -> Text:
    """The top card of the plan pile; ``details``: with its accomplice's rule
    in full, or its story (left out where rows are few)."""
    if card is None:
        return Text("(the pile is empty)", style="dim")
    if card.startswith("power:"):
        agent = card.split(":", 1)[1]
        info = cards.power_info(agent)
        return Text.assemble(("Power ", "bold"), (info["name"], "bold cyan"), f": {info['text']}")
    info = cards.plan_info(card)
    head = Text.assemble(
        ("Plan ", "bold"), (info["name"], "bold"), f" ({info['value']} pt{'' if info['value'] == 1 else 's'})"
    )
    if not details:
        return head
    if info["accomplice"]:
        head.append(f"\nAccomplice: {info['text']}", style="bold cyan")
    elif info.get("text"):
        head.append(f"\n{info['text']}", style="italic dim")
    return head


def command_label(command: Command, view: dict[str, Any]) -> str:
    """A choice's words; the core decided it is legal, the screen only names it."""
    names = [p["name"] for p in view["players"]]
    kind = command.get("t")
    seat = command.get("seat")
    if kind == "ChooseLeader" and isinstance(seat, int):
        return f"{names[seat]} leads this turn"
    if kind == "Sabotage" and isinstance(seat, int):
        played = next((t for t in view["table"] if t["seat"] == seat), None)
        card = f" {cards.card_label(played['card'])}" if played else ""
        return f"Subtract 99 from {names[seat]}'s{card}"
    if kind == "TakeSecondPlan":
        return "Martha: also take the next plan card"
    if kind == "DeclineSecondPlan":
        return "Martha: leave the next plan card"
    words = [str(kind)]
    for key, value in command.items():
        if key == "t":
            continue
        if key == "seat" and isinstance(value, int):
            value = names[value]
        elif isinstance(value, bool):
            value = "yes" if value else "no"
        words.append(f"{key}: {value}")
    return " · ".join(words)


def append_cards(text: Text, held: list[str]) -> None:
    """``held`` at the end of ``text``, each card followed by a space."""
    for card in held:
        text.append_text(card_text(card))
        text.append(" ")


def last_turn_text(last: dict[str, Any], names: list[str]) -> Text:
    """Who won the last turn, and what they took."""
    text = Text()
    text.append("Last turn: ", style="dim")
    text.append(names[last["seat"]], style="bold")
    text.append(" won ")
    append_cards(text, last["cards"])
    if last["plans"]:
        text.append("and " + ", ".join(cards.plan_label(p) for p in last["plans"]))
    return text


def _shown(count: int | None) -> str:
    """A count of the players' grid; ``?`` for one the view does not give
    (another's won pile with hidden counts, another's plan points)."""
    return "?" if count is None else str(count)


def choice_title(choices: list[Command]) -> str:
    kinds = {c.get("t") for c in choices}
    if "ChooseLeader" in kinds:
        return "Henry B. Belton: who leads this turn?"
    if "Sabotage" in kinds:
        return "WXT: whose card loses 99?"
    if kinds & {"TakeSecondPlan", "DeclineSecondPlan"}:
        return "Martha: a second plan?"
    return "Your choice"


class HandRow(Widget, can_focus=True):
    """Your hand as cards: ←/→ choose, Enter plays, or the card's number."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "move(-1)", "◀", show=False),
        Binding("right", "move(1)", "▶", show=False),
        Binding("enter,space", "play", "Play card"),
        # (system: the Keys panel leaves the digits out, one row each; the choices say them)
        *(Binding(str(n), f"pick({n - 1})", show=False, system=True) for n in range(1, 10)),
    ]

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.hand: list[str] = []
        self.playable: set[str] = set()
        self.cursor = 0
        self.can_play = False
        self.border_title = "Your hand"

    def set_hand(self, hand: list[str], playable: set[str], can_play: bool) -> None:
        self.hand, self.playable, self.can_play = hand, playable, can_play
        self.cursor = min(self.cursor, max(0, len(hand) - 1))
        self.refresh()
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Play card is offered only when this seat may play now: not while
        another player acts, nor in a replay, nor once the game is over."""
        if action in ("play", "pick", "move"):
            return self.can_play and bool(self.hand)
        return True

    def render(self) -> Text:
        if not self.hand:
            return Text("(no cards in hand)", style="dim")
        if self.screen.has_class("-tall"):
            return self.render_boxes()
        text = Text()
        if self.has_class("-compact"):
            # a choice is open: the hand only to look at, on one line
            text.append("Your hand", style="dim")
            for i, card in enumerate(self.hand):
                text.append(f" {i + 1}:" if i < 9 else " ", style="dim")
                text.append_text(card_text(card))
            return text
        for i, card in enumerate(self.hand):
            label = card_text(card)
            label.pad_left(1)
            label.pad_right(1)
            if i == self.cursor and self.has_focus and self.can_play:
                label.stylize("reverse")
            if self.can_play and card not in self.playable:
                label.stylize("dim")
            text.append(f"{i + 1}:" if i < 9 else "  ", style="dim")
            text.append_text(label)
            text.append(" ")
        return text

    def render_boxes(self) -> Text:
        """Cards drawn as cards, when the terminal has room."""
        chosen = [i == self.cursor and self.has_focus and self.can_play for i in range(len(self.hand))]
        keys = [f"{i + 1}" if i < 9 else "" for i in range(len(self.hand))]
        return card_boxes(list(zip(keys, self.hand, [None] * len(self.hand), chosen, strict=True)))

    def action_move(self, step: int) -> None:
        if self.hand:
            self.cursor = (self.cursor + step) % len(self.hand)
            self.refresh()

    def action_pick(self, index: int) -> None:
        if index < len(self.hand):
            self.cursor = index
            self.action_play()

    def action_play(self) -> None:
        if not self.can_play or not self.hand:
            return
        self.post_message(Board.Chosen({"t": "PlayCard", "card": self.hand[self.cursor]}))

    def on_click(self, event: Click) -> None:
        # Find the card under the pointer: the widths are those render() draws.
        boxed = self.screen.has_class("-tall")
        x = 0
        for i, card in enumerate(self.hand):
            label = len(cards.card_label(card))
            width = max(4, label + 2) + 3 if boxed else 2 + label + 3
            if x <= event.x < x + width:
                self.cursor = i
                self.refresh()
                return
            x += width

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()


class TableScroll(BoardScroll, can_focus=False):
    """The table above the hand and the choices: it scrolls only when a long
    choice meets five players in 24 rows; the keys stay with the hand and the
    choices, which are never in it."""


class AgentJeanBoard(Board):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.choices: list[Command] = []

    def compose(self) -> ComposeResult:
        # the table scrolls only if a tall choice meets five players at 80x24; the hand and the
        # choices stay below it, whole, whatever its height (a choice is never cut off)
        with TableScroll():
            yield BoardPart("", id="aj-round")
            yield BoardPart("", id="aj-plan")
            yield BoardPart("", id="aj-table")
            yield BoardPart("", id="aj-players")
            yield BoardPart("", id="aj-hands")
        yield HandRow(id="aj-hand")
        yield ChoiceList(id="aj-choices")

    def draw(self, view: dict[str, Any], legal: list[Command] | None) -> None:
        self.shown = (view, legal)
        self.view = view
        players = view["players"]
        names = [p["name"] for p in players]
        seat = view.get("seat")
        over = view.get("phase") == "over"
        # the last round scored, public to all (the shared screens show its breakdown)
        scoring = view.get("scoring")

        lead = names[view["leader"]] if isinstance(view.get("leader"), int) else "?"
        round_line = Text.assemble(
            ("Round ", "dim"),
            (str(view["round"]), "bold"),
            ("  Turn ", "dim"),
            (f"{view['turn']}/12", "bold"),
            ("  Plan pile ", "dim"),
            (str(view["plan_count"]), "bold"),
        )
        if not over:  # nobody leads once the game is over
            round_line.append_text(Text.assemble(("  Lead ", "dim"), (lead, "bold")))
        self.paint("#aj-round", round_line)

        tall = self.screen.has_class("-tall")
        effects = [] if over else view.get("effects", [])  # nothing is in force once the game is over
        self.choices = [c for c in (legal or []) if c.get("t") != "PlayCard"]
        # short of rows (many players, a choice open, 24 rows) the plan's
        # story and an accomplice's rule in full go: its effect line stays
        roomy = tall or len(players) + len(self.choices) <= 5
        # once the game is over no plan is played: the card the rules turned up after the last
        # turn is not shown as if it were at stake
        if over:
            plan = Text("No plan is played: the game is over.", style="dim")
        elif view.get("turn_over") == "round":
            # the round's last turn won (looked back at): its scoring comes, no plan is at stake
            plan = Text(f"Turn {view['turn']} is won: the round is over.", style="dim")
        elif view.get("turn_over") == "next" and view.get("plan_top") is not None:
            # between two turns (looked back at): the card on top is the coming turn's, not
            # the one turn N (still the round line's number) was played for
            plan = Text.assemble((f"Turn {view['turn']} is won. Next: ", "dim"))
            plan.append_text(pile_card_text(view.get("plan_top"), details=roomy))
        else:
            plan = pile_card_text(view.get("plan_top"), details=roomy)
        for effect in effects:
            plan.append(f"\n» {effect}", style="cyan")
        self.paint("#aj-plan", plan)

        table = Text()
        if view["table"] and self.screen.has_class("-tall"):
            boxes = [(names[t["seat"]], t["card"], t.get("value"), False) for t in view["table"]]
            table = card_boxes(boxes, width=self.size.width - 5)  # the board's and the line's padding, a scrollbar
        elif view["table"]:
            for i, played in enumerate(view["table"]):
                if i:
                    table.append("  → ", style="dim")
                table.append(names[played["seat"]] + " ")
                table.append_text(card_text(played["card"], played.get("value")))
        elif view.get("last_turn"):
            table.append_text(last_turn_text(view["last_turn"], names))
        else:
            table.append("No card played yet this turn.", style="dim")
        # with hidden counts the history keeps no record of the others'
        # takes: while there is room, the last one stays in sight as the next
        # turn is played
        if (
            view["table"]
            and view.get("last_turn")
            and view.get("counts") == "hidden"
            and (tall or len(players) + len(self.choices) <= 4)
        ):
            table.append("\n")
            table.append_text(last_turn_text(view["last_turn"], names))
        waiting = [names[s] for s in view.get("active", [])]
        if waiting and not over:
            table.append(f"\nTo act: {', '.join(waiting)}", style="italic")
        if over and scoring:
            totals = ", ".join(f"{names[i]} {score}" for i, score in enumerate(scoring["scores"]))
            table.append(f"\nGame over. Round {scoring['round']}: {totals}.", style="bold")
        self.paint("#aj-table", table)

        # (a Rich table cannot be compared: what it is drawn from can)
        drawn_from = (players, seat, view.get("phase"), view.get("active"), scoring)
        self.paint(
            "#aj-players",
            self.players_grid(view, scoring),
            same_as=(drawn_from, self.screen.has_class("-wide"), self.size.width),
        )

        hand_row = self.query_one(HandRow)
        hand = view.get("hand") or []
        plays = [c for c in (legal or []) if c.get("t") == "PlayCard"]
        hand_row.set_hand(list(hand), {c["card"] for c in plays}, bool(plays))
        hand_row.can_focus = bool(plays)
        hand_row.display = isinstance(seat, int) and not over

        # Everything revealed (replays): every hand and reserve, one line each.
        hands = Text()
        for p in players:
            if p.get("hand_cards") or p.get("reserve_cards"):  # (none once the game is over: no line)
                if hands:
                    hands.append("\n")
                hands.append(f"{p['name']}: ", style="bold")
                append_cards(hands, p["hand_cards"])
                if p.get("reserve_cards"):  # the face-down six, taken up later: shown too
                    hands.append("| reserve ", style="dim")
                    append_cards(hands, p["reserve_cards"])
        all_hands = self.query_one("#aj-hands", Static)
        self.paint("#aj-hands", hands)
        all_hands.display = bool(hands)

        hand_row.set_class(not roomy and bool(self.choices), "-compact")
        options = self.query_one("#aj-choices", ChoiceList)
        # between two of the seat's choices the list waits, greyed; it goes for a card to play
        prompts = [command_label(c, view) for c in self.choices]
        if options.list_choices(prompts, choice_title(self.choices), live=not over and not plays):
            self.take_focus(options)
        elif plays and not hand_row.has_focus:
            self.take_focus(hand_row)

    def players_grid(self, view: dict[str, Any], scoring: dict[str, Any] | None) -> Table:
        """A row a player: cards in hand (+ face down), cards won and their
        greens and yellows, plan points, the last round's score, medals.

        Plan points of the others are private while a round is played, and
        so, with hidden counts, are their cards won, greens and yellows
        (``?``); once the game is over the last round's points, greens and
        yellows are public (the scoring lists them), and so are its cards won
        (the view gives everyone's then).
        """
        players = view["players"]
        seat = view.get("seat")
        over = view.get("phase") == "over"
        wide = self.screen.has_class("-wide")
        last = f"R{scoring['round']}" if scoring else None
        heads = ["", "Player", "Hand", "Won", "G", "Y", "Pts"] + ([last] if last else []) + ["Medals"]
        # every column but the player's is as wide as its widest possible
        # cell; the player's name and agent take the rest, cut with … if long
        widths = {"": 1, "Hand": 4, "Won": 3, "G": 2, "Y": 2, "Pts": 3, "Medals": 6}
        fixed = [widths.get(h, 3) for h in heads if h != "Player"]
        room = self.size.width - 3 - sum(fixed) - (len(heads) - 1)  # padding, scrollbar, gaps
        grid = Table.grid(padding=(0, 1))
        for head in heads:
            grid.add_column(head, no_wrap=True, min_width=None if head == "Player" else widths.get(head, 3))
        grid.add_row(*(Text(c, style="dim") for c in heads))
        active = set(view.get("active", []))
        for i, p in enumerate(players):
            marker = "▶" if i in active and not over else ("●" if i == seat else " ")
            agent = cards.AGENT_NAMES.get(p["agent"], p["agent"])
            if not wide:
                agent = agent.split(" ")[0]  # Henry B. Belton: Henry
            who = Text.assemble((p["name"], "bold" if i == seat else ""), (f" {agent}", "dim"))
            if self.size.width and who.cell_len > room:
                who.truncate(max(6, room), overflow="ellipsis")
            points, greens, yellows = p.get("points"), p.get("greens"), p.get("yellows")
            if over and scoring:  # the last round's scoring made them public
                points = scoring["plan_points"][i] if points is None else points
                greens = scoring["greens"][i] if greens is None else greens
                yellows = scoring["yellows"][i] if yellows is None else yellows
            hand = str(p["hand"]) + (f"+{p['reserve']}" if p["reserve"] else "")
            row = [
                Text(marker, style="bold #FFD75F"),
                who,
                hand,
                _shown(p.get("won")),
                Text(_shown(greens), style="#5FD75F"),
                Text(_shown(yellows), style="#FFD75F"),
                _shown(points),
            ]
            if scoring:
                row.append(Text(str(scoring["scores"][i]), style="bold" if i in scoring["medals"] else ""))
            row.append("★" * p["medals"] or "-")
            grid.add_row(*row)
        return grid

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option_list.id != "aj-choices":
            return
        event.stop()
        if event.option_index < len(self.choices):
            self.post_message(Board.Chosen(self.choices[event.option_index]))
