"""Ministères: the six ministries, the centre, your hand by ministry, the auction."""

from __future__ import annotations

import time
from typing import Any, ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import OptionList, Static

from core.engine import Command
from core.games.ministeres import cards
from core.games.ministeres.rules import card_name, lot_kind, means
from tui.widgets import KEEP, Board, BoardPart, BoardScroll, ChoiceList, kept_together

KIND_STYLE = {"gouvernement": "bold", "roi": "bold #B48CFF", "or": "bold #FFD75F"}
KIND_MARK = {"gouvernement": "", "roi": "♛", "or": "¤"}


#: in a terminal shorter than this, the choices show four lines at a time (``crowd``)
CROWD_HEIGHT = 32


def whole(words: str) -> str:
    """``words`` never broken across two rows of the table (``kept_together``)."""
    return words.replace(" ", KEEP)


def card_text(card: str) -> Text:
    info = cards.card_info(card)
    return Text(KIND_MARK[info["kind"]] + card_name(card), style=KIND_STYLE[info["kind"]])


def cards_text(items: list[str], empty: str = "none") -> Text:
    """Cards in a line that may wrap: between two cards, never inside one."""
    if not items:
        return Text(empty, style="dim")
    return Text(", ").join(Text(whole(t.plain), style=t.style) for t in map(card_text, items))


def cards_in_brief(items: list[str], empty: str = "none") -> Text:
    """Many cards in little room: ``Armée 3·C 1·E, Animaux 4·D, ¤Or 3 3 2``.

    Gouvernement cards grouped by ministry, the Or cards as their values;
    each Roi card in full, being each one of a kind."""
    if not items:
        return Text(empty, style="dim")
    ordered = sorted(items, key=cards.hand_order)
    groups: list[Text] = []
    for ministry in cards.MINISTRIES:
        mine = [c for c in ordered if cards.is_gouvernement(c) and cards.ministry(c) == ministry]
        if mine:
            values = " ".join(f"{cards.value(c)}·{cards.letter(c)}" for c in mine)
            groups.append(Text(whole(f"{cards.MINISTRY_NAMES[ministry]} {values}"), style=KIND_STYLE["gouvernement"]))
    groups += [Text(whole(t.plain), style=t.style) for t in (card_text(c) for c in ordered if cards.is_roi(c))]
    golds = [str(cards.value(c)) for c in ordered if cards.is_or(c)]
    if golds:
        groups.append(Text(whole(KIND_MARK["or"] + "Or " + " ".join(reversed(golds))), style=KIND_STYLE["or"]))
    return Text(", ").join(groups)


#: where a drawn card may go, as the choice says it (short enough for 80 columns)
PLACES = {
    "hand": "Keep: your hand, face down",
    "centre": "Give: the centre, face up",
    "favours": "Favours pile: face down, auctioned",
}


def bid_means(view: dict[str, Any]) -> tuple[int, str] | None:
    """What the seat can pay for the card on offer, and in what: its gold, or (an Or card,
    paid in cards face down) its number of cards; None where the screen cannot tell."""
    auction, hand = view.get("auction"), view.get("hand")
    if not auction or hand is None:
        return None
    kind = lot_kind(auction["card"])
    return means(tuple(hand), kind), ("gold" if kind == "gold" else "cards")


def pay_cost(card: str, view: dict[str, Any]) -> tuple[tuple[int, int, tuple[int, int, str]], str]:
    """Paying for an Or card with ``card``, face down: what the player gives up, as a sort
    key (cheapest first: a card that counts for nothing, then by value, an Or card before a
    Gouvernement card of the same value) and in words."""
    if cards.is_roi(card):
        return (0, 0, cards.hand_order(card)), "counts for nothing"
    value = cards.value(card)
    if cards.is_or(card):
        gold = view["players"][view["seat"]].get("gold") or 0
        return (value, 1, cards.hand_order(card)), f"gold {gold} → {gold - value}"
    ministry = cards.ministry(card)
    held = [c for c in view.get("hand") or [] if cards.is_gouvernement(c) and cards.ministry(c) == ministry]
    total = sum(cards.value(c) for c in held)
    return (value, 2, cards.hand_order(card)), f"sum {total} → {total - value}"


def first_choice(choices: list[Command], view: dict[str, Any]) -> int:
    """The choice highlighted at first, what an Enter pressed at once takes: in an auction the
    lowest bid the seat can pay, or Pass when it can pay none (a bid it cannot pay costs it a
    card: it is listed, marked, never the default); else the first."""
    have = bid_means(view)
    if have is None or not any(c.get("t") == "Bid" for c in choices):
        return 0
    payable = (i for i, c in enumerate(choices) if c.get("t") == "Bid" and c["amount"] <= have[0])
    passing = (i for i, c in enumerate(choices) if c.get("t") == "Pass")
    return next(payable, next(passing, 0))


def command_label(command: Command, view: dict[str, Any]) -> Text:
    """A legal command in words; the core decided it is legal, the screen only names it."""
    kind = command.get("t")
    limits = view.get("limits") or {}
    if kind == "Place":
        where = command["where"]
        return Text(f"{PLACES[where]}  ({limits.get(where, '?')} left)")
    if kind == "Take":
        return Text.assemble("Take ", card_text(command["card"]))
    if kind == "Bid":
        text = Text(f"Bid {command['amount']}")
        have = bid_means(view)
        if have is not None and command["amount"] > have[0]:
            # allowed (the rulebook's "if he cannot pay"): a winner who cannot pay loses a card
            text.append(f"  more than your {have[0]} {have[1]}: unpaid", style="bold red")
        return text
    if kind == "Pass":
        return Text("Pass")
    if kind == "Pay":
        text = Text.assemble("Pay with ", card_text(command["card"]))
        payment = view.get("payment") or {}
        if payment.get("kind") == "cards":
            text.append(f"  ({pay_cost(command['card'], view)[1]})", style="dim")
        elif payment.get("kind") == "gold" and cards.is_or(command["card"]):
            over = cards.value(command["card"]) - (payment.get("owed", 0) - payment.get("paid", 0))
            if over > 0:  # the rulebook: no change is given
                text.append(f"  ({over} too many)", style="bold")
        return text
    text = Text(str(kind))
    for key, value in command.items():
        if key == "t":
            continue
        if key == "ministry":
            value = cards.MINISTRY_NAMES.get(value, value)
        text.append(f" · {key}: {value}")
    return text


#: seconds without a digit after which the next digit typed in an auction starts a new number
TYPING_PAUSE = 1.5
clock = time.monotonic  # (a test turns it)


class MinisteresBoard(Board):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("p", "pass_bid", "Pass"),
        # (system: the Keys panel leaves the digits out, one row each; the choices say them)
        *(Binding(str(n), f"type_bid({n})", show=False, system=True) for n in range(10)),
    ]

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.choices: list[Command] = []
        self.prompts: list[Text] = []  # the choices' lines as listed
        #: the digits of a bid being typed, and when the last was (``clock``)
        self.typed = ""
        self.typed_at = 0.0
        #: the table's lines and the long lists, as made for the last view (``paint_long_lines``)
        self.long_lines: tuple[Text, Text] | None = None

    def compose(self) -> ComposeResult:
        # the choices below the table, never in its scrolling part: five players' long lines
        # may fill 24 rows, and a choice must be whole on screen
        with BoardScroll():
            yield BoardPart("", id="mi-status")
            yield BoardPart("", id="mi-ministries")
            yield BoardPart("", id="mi-table")
            yield BoardPart("", id="mi-more")
        yield ChoiceList(id="mi-choices")

    def paint_long_lines(self) -> None:
        """The table's lines and the long lists under the choices, in rows of the board's
        width that keep a name and its count, a card's name, whole (``whole``)."""
        room = self.query_one(BoardScroll).scrollable_content_region.width  # (0 before the first layout)
        table, more = self.long_lines
        self.paint("#mi-table", kept_together(table, room))
        self.paint("#mi-more", kept_together(more, room))

    def on_resize(self) -> None:
        # the rows again at the board's new width (the history beside it widens at 100
        # columns after the screen's own resize: the rows were made for the old width)
        if self.long_lines is not None:
            self.paint_long_lines()

    def draw(self, view: dict[str, Any], legal: list[Command] | None) -> None:
        self.shown = (view, legal)
        self.view = view
        names = [p["name"] for p in view["players"]]
        self.crowd()

        if view["phase"] in ("auction", "pay"):
            status = Text.assemble(("Enchères ", "bold"), ("(auctions)", "dim"))
        elif view["phase"] == "over":
            status = Text("Game over", style="bold")
        else:
            status = Text.assemble(("Deal ", "dim"), (str(view.get("deal", "?")), "bold"))
        if view.get("dealer") is not None:
            status.append("  Donneur ", style="dim")
            status.append(names[view["dealer"]], style="bold")
        if view["deck"]:
            status.append(f"  Deck {view['deck']}", style="dim")
        if view["phase"] == "over" and view.get("scores"):
            status.append(
                "  Final: " + ", ".join(f"{names[i]} {s}" for i, s in enumerate(view["scores"])), style="bold"
            )
        self.paint("#mi-status", status)
        self.paint("#mi-ministries", self.ministries(view), same_as=(view["ministries"], view.get("hand")))
        table, more = self.table(view, names)
        # a name and its count, a card's name, never broken across two rows (``whole``)
        self.long_lines = (table, more)
        self.paint_long_lines()
        self.query_one("#mi-more", Static).display = bool(more)

        # Cards alike (three Or 1, say) are one choice: which of them goes
        # makes no difference to the game, so the list names each once.
        alike: dict[str, list] = {}  # label's text -> [first command, label, how many]
        for command in legal or []:
            label = command_label(command, view)
            alike.setdefault(label.plain, [command, label, 0])[2] += 1
        if any(command.get("t") == "Bid" for command, _, _ in alike.values()):
            # an auction: Pass first, the bids after it from the lowest, so that Pass and the
            # lowest bids are in sight together (the list opened at its foot, on Pass, when
            # no bid could be paid: bids of 22 to 24 shown, 7 fifteen rows up)
            alike = dict(sorted(alike.items(), key=lambda item: item[1][0].get("t") != "Pass"))
        elif view["phase"] == "pay" and (view.get("payment") or {}).get("kind") == "cards":
            # paying for an Or card: the card that costs least first, the highlighted default
            alike = dict(sorted(alike.items(), key=lambda item: pay_cost(item[1][0]["card"], view)[0]))
        choices = [command for command, _, _ in alike.values()]
        options = self.query_one("#mi-choices", ChoiceList)
        where = {"Pay": "in hand", "Take": "in the centre"}
        prompts = [
            label + Text(f"  ({count} {where.get(command['t'], 'alike')})", style="dim") if count > 1 else label
            for command, label, count in alike.values()
        ]
        same = (choices, prompts) == (self.choices, self.prompts)
        if choices or view["phase"] == "over":
            self.choices, self.prompts = choices, prompts
        # another's move, or the history looked back at: the choices stay, greyed
        live = view["phase"] != "over"
        if options.list_choices(prompts, self.prompt(view), live=live, same=same, first=first_choice(choices, view)):
            self.take_focus(options)

    def ministries(self, view: dict[str, Any]) -> Table:
        """Each ministry's tokens, and your Gouvernement cards in it with their sum.

        A spectator (and a replay showing everything) has no hand of its own, and the
        hands are hidden: the table then has the tokens only, not a column of zeros."""
        hand = view.get("hand")
        heads = ("Ministère", "Prim", "Sec") + (() if hand is None else ("Your cards (sum)",))
        grid = Table.grid(padding=(0, 1))
        for _ in heads:
            grid.add_column()
        grid.add_row(*(Text(c, style="dim") for c in heads))
        for ministry in view["ministries"]:
            secondaire = ministry.get("secondaire")
            row: list[str | Text] = [
                ministry["name"],
                str(ministry["primaire"]),
                "-" if secondaire is None else str(secondaire),
            ]
            if hand is not None:
                mine = [
                    c
                    for c in hand
                    if cards.card_info(c)["ministry"] == ministry["id"] and cards.card_info(c)["kind"] == "gouvernement"
                ]
                total = sum(cards.card_info(c)["value"] for c in mine)
                yours = Text(f"{total:>2} ", style="bold" if mine else "dim")
                yours.append(
                    " ".join(f"{cards.card_info(c)['value']}·{cards.card_info(c)['letter']}" for c in mine), style="dim"
                )
                row.append(yours)
            grid.add_row(*row)
        return grid

    def table(self, view: dict[str, Any], names: list[str]) -> tuple[Text, Text]:
        """What the choice needs, above it; the long lists (your cards on the
        Favours pile, the hands shown at the end), below it, so that at 80x24
        they never push the choice off the screen."""
        text = Text()
        hand = view.get("hand")
        if hand is not None:
            me = view["players"][view["seat"]]
            golds = sorted(cards.card_info(c)["value"] for c in hand if cards.card_info(c)["kind"] == "or")
            text.append("Or in hand: ", style="dim")
            text.append(str(me.get("gold") or 0), style="bold #FFD75F")
            if golds:
                counts = ", ".join(f"{golds.count(v)}×{v}" for v in sorted(set(golds)))
                text.append(f" ({counts})", style="#FFD75F")
            rois = [c for c in hand if cards.card_info(c)["kind"] == "roi"]
            if rois:
                text.append("  ")
                text.append_text(cards_text(rois))
            text.append("\n")
        text.append("Hands: ", style="dim")
        text.append(", ".join(whole(f"{names[i]} {p['hand']}") for i, p in enumerate(view["players"])))
        known = view.get("favours_known") or []
        # a seat's eyes say "you"; a replay's that see everything name the players
        a_seat = isinstance(view.get("seat"), int)
        if view["phase"] != "over":
            text.append("\nFavours pile: ", style="dim")
            text.append(f"{view['favours']} card{'' if view['favours'] == 1 else 's'}")
            if known and a_seat:
                text.append(f" ({len(known)} put there by you)", style="dim")
        if view.get("drawn"):
            dealer = view.get("dealer")
            if a_seat:
                label = "You drew: "
            elif isinstance(dealer, int):
                label = f"{whole(names[dealer])} drew: "
            else:
                label = "Drawn: "
            text.append("\n" + label, style="bold")
            text.append_text(cards_text([view["drawn"]]))
        if view.get("centre"):
            text.append("\nCentre: ", style="dim")
            text.append_text(cards_text(view["centre"]))
        auction = view.get("auction")
        if auction:
            text.append("\nOn offer: ", style="bold")
            text.append_text(cards_text([auction["card"]]))
            if auction.get("bidder") is not None:
                text.append(f"; bid {auction['bid']} by {whole(names[auction['bidder']])}")
            else:
                text.append("; no bid yet", style="dim")
            if auction.get("passed"):
                text.append("; passed: " + ", ".join(whole(names[s]) for s in auction["passed"]), style="dim")
        payment = view.get("payment")
        if payment and payment["payer"] != view.get("seat"):  # your own payment is the choice's title
            what = "Or" if payment["kind"] == "gold" else "cards, face down"
            text.append(
                f"\n{names[payment['payer']]} pays {payment['paid']}/{payment['owed']} in {what}", style="italic"
            )

        more = Text()
        if known:
            more.append("Yours on the Favours pile: " if a_seat else "On the Favours pile: ", style="dim")
            more.append_text(cards_in_brief(known))
        # every hand: at the end (the scoring shows them), or in a replay that reveals all;
        # one per player, as the names are
        shown = view.get("hands_revealed") or [p.get("hand_cards") for p in view["players"]]
        for name, held in zip(names, shown, strict=True):
            if held is not None:
                if more:
                    more.append("\n")
                more.append(f"{name}: ", style="bold")
                more.append_text(cards_in_brief(held))
        return text, more

    def prompt(self, view: dict[str, Any]) -> str:
        phase = view["phase"]
        payment = view.get("payment")
        if phase == "pay" and payment:
            left = payment["owed"] - payment["paid"]
            if payment["kind"] == "gold":
                return f"Pay {left} more gold in Or cards"
            return f"Pay {left} more card{'s' if left > 1 else ''}, face down"
        return {
            "gifts": "Place the card you drew",
            "take": "Take a card from the centre",
            "auction": "Your bid: type it, or ↑↓ (p: pass)",
        }.get(phase, "Your choice")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option_list.id != "mi-choices":
            return
        event.stop()
        if event.option_index < len(self.choices):
            self.post_message(Board.Chosen(self.choices[event.option_index]))

    def action_type_bid(self, digit: int) -> None:
        """A digit typed in an auction: the highlight goes to the bid typed so far (Enter
        makes it); a digit that makes no bid on offer starts a new number."""
        options = self.query_one("#mi-choices", ChoiceList)
        bids = [c["amount"] for c in self.choices if c.get("t") == "Bid"]
        if not bids or options.waiting:
            return
        now = clock()
        if now - self.typed_at > TYPING_PAUSE:
            self.typed = ""  # a pause: a new number (7, a pause, 12 made 712, then 2)
        self.typed_at = now
        for typed in (self.typed + str(digit), str(digit)):
            exact = [i for i, c in enumerate(self.choices) if c.get("t") == "Bid" and str(c["amount"]) == typed]
            longer = [
                i for i, c in enumerate(self.choices) if c.get("t") == "Bid" and str(c["amount"]).startswith(typed)
            ]
            if exact or longer:
                self.typed = typed
                options.highlighted = (exact or longer)[0]
                return
        self.typed = ""
        self.notify(f"You can bid from {min(bids)} to {max(bids)}.", severity="warning")

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        # the arrows move on from what was typed: the next digit starts a new number
        index = event.option_index
        if index is None or index >= len(self.choices) or str(self.choices[index].get("amount")) != self.typed:
            prefix = self.typed and index is not None and index < len(self.choices)
            if not (prefix and str(self.choices[index].get("amount", "")).startswith(self.typed)):
                self.typed = ""

    def crowd(self) -> None:
        """A short terminal: the choices show four lines at a time (the rest by ↑↓ or a typed
        bid), so that the table above them, what is on offer and who passed, and your cards on
        the Favours pile below them, are not pushed out of sight (at 80x24 five players'
        auctions hid the offer; three players' hid your Favours, which only the mouse could
        scroll to).  Looked at as the board is drawn, which a new size of the terminal does too
        (``RoomyScreen.on_resize``)."""
        self.set_class(self.app.size.height < CROWD_HEIGHT, "-crowded")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "pass_bid":  # offered while passing is a move (the footer shows it then only)
            return not self.query_one("#mi-choices", ChoiceList).waiting and any(
                c.get("t") == "Pass" for c in self.choices
            )
        return True

    def action_pass_bid(self) -> None:
        if self.query_one("#mi-choices", ChoiceList).waiting:
            return
        passing = next((c for c in self.choices if c.get("t") == "Pass"), None)
        if passing is not None:
            self.post_message(Board.Chosen(passing))
