"""1988: Chirac contre Mitterrand: public opinion, the piles, erosion, your three cards.

A turn is one command (card, action, quality of a choice icon, order of the two
cards passed on), chosen on the screen in up to three short steps so that every
option of a step fits on the line and differs from the others at its start:
the card, then the action, then what becomes of the other two cards.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from core.engine import Command
from core.games.chirac_mitterrand import cards
from tui.widgets import Board, BoardPart, BoardScroll, ChoiceList, KeysFooter, TableDialog

SIDE_STYLE = {"chirac": "bold #5FAFFF", "mitterrand": "bold #DC70A8"}
SIDE_LETTER = {"chirac": "C", "mitterrand": "M"}
#: each tag a badge, its letter on its own background, readable on the selection bar too
ACTION_STYLE = {
    "white": "bold #121212 on #D7D7D7",
    "blue": "bold #121212 on #5FAFFF",
    "pink": "bold #121212 on #DC70A8",
}
#: a colour is also a letter: W neutral, C Chirac's own (blue), M Mitterrand's own (pink)
ACTION_LETTER = {"white": "W", "blue": "C", "pink": "M"}
QUALITY_SHORT = {"charisma": "Cha", "courage": "Cou", "integrity": "Int", cards.CHOICE: "Choice"}
#: the room an option line of the choice box has at 80 columns: the board is 52 wide, its
#: padding, the box's border and the option's padding leave 46 (one more is kept spare)
NARROW_ROOM = 45
#: shorter titles for the long Event card names, used where a line has no room for the whole name
SHORT_NAME = {
    "ev:01": "Législatives 16 mars",
    "ev:03": "Peine de mort",
    "ev:05": "Refus des ordonnances",
    "ev:07": "Suppression de l'IGF",
    "ev:09": "Les 101 Maliens",
    "ev:10": "Affaire Carrefour",
    "ev:11": "Assassinat de Besse",
    "ev:12": "L'Acte unique",
    "ev:13": "Loi Devaquet",
    "ev:14": "Malik Oussekine",
    "ev:15": "Saint-Gobain",
    "ev:17": "Action directe",
    "ev:20": "Nouvelle-Calédonie",
    "ev:22": "Retour de Mafart",
    "ev:24": "Otages du Liban",
}

#: the shortest forms, a word or two of the name, for a list of many cards in little room
TAG = {
    "ev:01": "Législatives",
    "ev:02": "Dévaluation",
    "ev:03": "Peine de mort",
    "ev:04": "G7 à Tokyo",
    "ev:05": "Ordonnances",
    "ev:06": "Moscou",
    "ev:07": "IGF",
    "ev:08": "Attentats",
    "ev:09": "101 Maliens",
    "ev:10": "Carrefour",
    "ev:11": "Besse",
    "ev:12": "Acte unique",
    "ev:13": "Devaquet",
    "ev:14": "Oussekine",
    "ev:15": "Saint-Gobain",
    "ev:16": "Luchaire",
    "ev:17": "Action directe",
    "ev:18": "TF1",
    "ev:19": "Gordji",
    "ev:20": "Calédonie",
    "ev:21": "Krach",
    "ev:22": "Mafart",
    "ev:23": "Ouvéa",
    "ev:24": "Otages",
}


def forms(card: str) -> list[str]:
    """An Event card's names, longest first: its name, its short form, its tag."""
    name = cards.event_info(card)["name"]
    out = [name]
    for form in (SHORT_NAME.get(card), TAG.get(card)):
        if form and form not in out:
            out.append(form)
    return out


def names_in_lines(heads: list[str], items: list[str], width: int, lines: int, indent: str = "   ") -> list[str]:
    """``items`` (cards) after the first of ``heads`` with which all of them fit in ``lines``
    lines of ``width``, in the longest form of their names that does; a line breaks between
    two cards, never inside one, and goes on after ``indent``. Where nothing fits, the tags
    after the last head, in as many lines as they need."""
    for level in range(3):
        for head in heads:
            out = wrap_names(head, [forms(c)[min(level, len(forms(c)) - 1)] for c in items], width, indent)
            if len(out) <= lines:
                return out
    return wrap_names(heads[-1], [forms(c)[-1] for c in items], width, indent)


def wrap_names(head: str, names: list[str], width: int, indent: str) -> list[str]:
    lines: list[str] = []
    line = head
    for i, name in enumerate(names):
        piece = name + ("," if i < len(names) - 1 else "")
        fresh = line in (head, indent)  # nothing after the head yet: no space before the name
        if len(line) + (0 if fresh else 1) + len(piece) <= width or line == indent:
            line += ("" if fresh else " ") + piece
        else:
            lines.append(line)
            line = indent + piece
    lines.append(line)
    return lines


def icons_text(icons: list[str]) -> str:
    return " ".join(QUALITY_SHORT.get(i, i.capitalize()) for i in icons)


def action_text(
    action: dict[str, Any], index: int, choices: list[str] | None = None, pick: str = " (your pick)"
) -> Text:
    """``a) [W] Cou  The old debate returns``; with ``choices``, each choice icon is the quality picked."""
    colour = action["colour"]
    text = Text(f"{'ab'[index]}) ")
    text.append(f"[{ACTION_LETTER[colour]}]", style=ACTION_STYLE[colour])
    if choices:
        picks = iter(choices)
        words = [
            Text(cards.QUALITY_NAMES[next(picks)] + pick, style="bold")
            if icon == cards.CHOICE
            else Text(QUALITY_SHORT.get(icon, icon))
            for icon in action["icons"]
        ]
        text.append(" ")
        text.append_text(Text(" ").join(words))
    else:
        text.append(f" {icons_text(action['icons'])}")
    if action.get("text"):
        text.append(f"  {action['text']}", style="dim")
    return text


def one_line(text: Text) -> Text:
    """Each line of ``text`` cut with an ellipsis rather than wrapped."""
    text.no_wrap = True
    text.overflow = "ellipsis"
    return text


def title(card: str, room: int = 24) -> str:
    """An Event card's name, or its short form, or its tag: the longest that fits in ``room``."""
    names = forms(card)
    name = next((n for n in names if len(n) <= room), names[-1])
    return name if len(name) <= room else name[: max(1, room - 1)] + "…"


def card_lines(card: str, caption: str = "", room: int = NARROW_ROOM) -> Text:
    """An Event card in three lines: name and date, then each action.  Where the
    whole name and the date do not fit in ``room``, the date goes, then the name is shortened."""
    info = cards.event_info(card)
    text = Text()
    if caption:
        text.append(caption + " ", style="bold")
    name, date = info["name"], "  " + info["date"]
    left = room - text.cell_len
    if len(name) + len(date) > left:
        if len(name) > left:
            name = title(card, left)
        if len(name) + len(date) > left:
            date = ""
    text.append(name, style="bold")
    text.append(date, style="dim")
    for i, action in enumerate(info["actions"]):
        text.append("\n   ")
        text.append_text(action_text(action, i))
    return one_line(text)


def numbered(n: int, text: Text) -> Text:
    """An option of the choices with the digit key that picks it, as the cards have theirs."""
    out = Text(f"{n}. ", style="bold")
    out.append_text(text)
    return out


def opponent_of(view: dict[str, Any]) -> str:
    mover = view.get("to_move") or view.get("you") or "chirac"
    return "mitterrand" if mover == "chirac" else "chirac"


def fate_label(command: Command, view: dict[str, Any], room: int = NARROW_ROOM) -> Text:
    """What becomes of the two cards not played, in two lines, the card that differs first;
    ``room``: the columns of each line, three of which go before its first (a number, an indent).

    Two players: the order they go under the opponent's pile, told as the
    order he will draw them in.  Solo: which one leaves the game, which one
    goes under your own pile."""
    under = list(command.get("under") or [])
    text = Text()
    if view.get("solo"):
        removed = command.get("remove")
        fit = room - 24
        if removed:
            text.append("Remove ")
            text.append(title(removed, fit), style="bold")
            text.append(" from the game")
        if under:
            text.append("\n   " if removed else "")
            text.append("keep ", style="dim")
            text.append(title(under[0], fit), style="dim")
            text.append(" under your pile", style="dim")
        return one_line(text)
    name = view["names"].get(opponent_of(view), "your opponent")
    draws = view.get("slid_draws")
    if len(under) > 1 and draws and draws[0] == draws[1]:
        # the rules ask no order: say why, where the two cards will come up
        text.append("the other two: ", style="dim")
        if draws[0] is None:
            text.append("never drawn, the game ends")
        elif draws[0] == 1:
            text.append(f"in {name}'s next hand")
        else:
            text.append(f"drawn together by {name}")
        return one_line(text)
    # both lines name the cards alike, in the room of the tighter line (the first, after the
    # three columns of its number or its indent)
    fit = room - len(name) - 16
    if under:
        text.append(f"{name} draws ")
        text.append(title(under[0], fit), style="bold")
        text.append(" first")
    if len(under) > 1:
        text.append("\n   then ", style="dim")
        text.append(title(under[1], fit), style="dim")
    return one_line(text)


def command_label(command: Command, view: dict[str, Any], room: int = NARROW_ROOM) -> Text:
    """A legal command in words; the core decided it is legal, the screen names it."""
    kind = command.get("t")
    if kind == "PlayCard":
        info = cards.event_info(command["card"])
        text = action_text(info["actions"][command["action"]], command["action"], command.get("choices"))
        fate = fate_label(command, view, room)
        if fate:
            text.append("\n   ")
            text.append_text(fate)
        return one_line(text)
    if kind == "Campaign":
        text = Text("Apply ")
        text.append(cards.campaign_info(command["apply"])["name"], style="bold")
        if command.get("quality"):
            text.append(f", choosing {cards.QUALITY_NAMES[command['quality']]}", style="bold")
        if command.get("remove"):
            text.append("\n   remove ")
            text.append(cards.campaign_info(command["remove"])["name"], style="bold")
        return one_line(text)
    if kind == "Veto":
        text = Text("Veto (once a game): ")
        card = view.get("automaton_card")
        if card and isinstance(command.get("action"), int):
            action = cards.event_info(card)["actions"][command["action"]]
            text.append_text(action_text(action, command["action"]))
        return one_line(text)
    if kind == "Allow":
        return Text("Let the automated opponent's card apply")
    return Text(" · ".join([str(kind)] + [f"{k}: {v}" for k, v in command.items() if k != "t"]))


def opinion_group(view: dict[str, Any]) -> Group:
    """The Public Opinion rows, who leads each, the Media token and who is ahead in how many."""
    length = view["row_length"]
    # the rows of six of the hard solo game keep the width of the usual rows of four
    gap = 2 if length <= 4 else 1
    width = (2 * length + 1) * (gap + 1) - gap
    grid = Table.grid(padding=(0, 1))
    grid.add_column(width=9)
    grid.add_column(width=width, no_wrap=True, overflow="ellipsis")
    grid.add_column(justify="right")
    left, right = Text("◀ Mitterrand", style=SIDE_STYLE["mitterrand"]), Text("Chirac ▶", style=SIDE_STYLE["chirac"])
    header = Text.assemble(left, " " * max(1, width - left.cell_len - right.cell_len), right)
    grid.add_row(Text("Opinion", style="dim"), header, Text("Lead", style="dim"))
    ahead = {"chirac": 0, "mitterrand": 0}
    for quality in cards.QUALITIES:
        pos = view["rows"][quality]
        row = Text()
        for square in range(-length, length + 1):
            if square == pos:
                row.append("●", style="bold #FFD75F")
            elif square == 0:
                row.append("┼", style="dim")
            else:
                row.append("·", style="dim")
            if square != length:
                row.append(" " * gap)
        side = "chirac" if pos > 0 else "mitterrand" if pos < 0 else None
        if side:
            ahead[side] += 1
            lead = Text(f"{SIDE_LETTER[side]}+{abs(pos)}", style=SIDE_STYLE[side])
        else:
            lead = Text("=", style="dim")
        grid.add_row(quality.capitalize(), row, lead)
    media = view["media"]
    names = view["names"]

    def footer(indent: int, ahead_words: str) -> Text:
        return Text.assemble(
            " " * indent,
            ("Media ", "dim"),
            (f"{names[media]} ({SIDE_LETTER[media]})", SIDE_STYLE[media]),
            (" (face down)" if view.get("veto_used") else "", "dim"),
            (f"  {ahead_words} ", "dim"),
            (f"C {ahead['chirac']}", SIDE_STYLE["chirac"]),
            (" · ", "dim"),
            (f"M {ahead['mitterrand']}", SIDE_STYLE["mitterrand"]),
        )

    # under the rows where it fits in 80 columns' board; else from the left, then in fewer words
    # (solo, "Player 1 (C) (face down)" ran past the edge: "ahead i…")
    tries = [footer(10, "ahead in"), footer(1, "ahead in"), footer(1, "ahead")]
    line = next((t for t in tries if t.cell_len <= NARROW_ROOM + 3), tries[-1])
    return Group(grid, one_line(line))


def erosion_line(view: dict[str, Any]) -> Text:
    """Each candidate's Power Erosion: ``Power Erosion: Jacques (C) 2/6 · François (M) 0/6``."""
    text = Text.assemble(("Power Erosion: ", "dim"))  # (a Text's own style would dim the names too)
    for i, side in enumerate(("chirac", "mitterrand")):
        count = len(view["erosion"][side])
        if i:
            text.append(" · ", style="dim")
        text.append(f"{view['names'][side]} ({SIDE_LETTER[side]})", style=SIDE_STYLE[side])
        text.append(f" {count}/6", style="bold #F89884" if count >= 4 else "")
    return text


class CMChoiceList(ChoiceList):
    """A list of legal commands, each in words.  (Not named CommandList: a style's type
    selector goes by the class's name, and Textual's command palette has a CommandList
    whose style hides it; tests/test_widget_names.py.)"""


class CampaignDialog(TableDialog):
    """The electoral campaign draw, in up to three steps: the card to apply, the quality it
    moves (where it lets you choose one), the card to remove; the third goes back.

    The Public Opinion rows, the Media token and the Power Erosion counts it is about are
    drawn in the dialog itself, above the question: at 80x24 it covers the board."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back"),
        Binding("q", "leave", "Menu"),
        # (system: the Keys panel leaves the digits out, one row each; the choices say them)
        *(Binding(str(n), f"pick({n - 1})", show=False, system=True) for n in range(1, 10)),
    ]
    SMALL_KEEPS = frozenset({"leave"})

    def __init__(self, drawn: list[str], commands: list[Command], view: dict[str, Any]) -> None:
        super().__init__()
        self.drawn = drawn
        self.commands = commands
        self.view = view
        #: the card to apply, once chosen
        self.card: str | None = None
        #: its quality, once chosen (None: the card names its qualities itself)
        self.quality: str | None = None
        self.quality_chosen = False
        self.listed: list[Any] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="campaign-box", classes="dialog-box"):
            yield Static("Electoral campaign: apply one card, remove one, the third goes back", id="campaign-title")
            yield Static(opinion_group(self.view), id="campaign-opinion")
            yield Static(one_line(erosion_line(self.view)), id="campaign-erosion")
            yield CMChoiceList(id="campaign-options")
        yield KeysFooter(show_command_palette=False)

    def on_mount(self) -> None:
        self.fill()
        self.query_one(CMChoiceList).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "pick":
            index = parameters[0]
            return isinstance(index, int) and index < len(self.listed)
        return True

    def action_leave(self) -> None:
        """Back to the menu: the draw waits in the save for the player's return."""
        self.dismiss("menu")

    def options_for(self, card: str, quality: str | None = None, any_quality: bool = True) -> list[Command]:
        return [c for c in self.commands if c["apply"] == card and (any_quality or c.get("quality") == quality)]

    def fill(self) -> None:
        options = self.query_one(CMChoiceList)
        options.clear_options()
        self.listed = []
        prompts: list[Text] = []
        if self.card is None:
            options.border_title = "Apply which card? (Esc: later)"
            for card in dict.fromkeys(c["apply"] for c in self.commands):
                info = cards.campaign_info(card)
                label = Text.assemble(("Apply ", ""), (info["name"], "bold"), f": {info['text']}")
                self.listed.append(("card", card))
                prompts.append(label)
        elif not self.quality_chosen:
            name = cards.campaign_info(self.card)["name"]
            options.border_title = f"Applying {name}: which quality? (Esc: back)"
            for quality in dict.fromkeys(c.get("quality") for c in self.options_for(self.card)):
                self.listed.append(("quality", quality))
                prompts.append(Text(cards.QUALITY_NAMES[quality or ""], style="bold"))
        else:
            name = cards.campaign_info(self.card)["name"]
            choosing = f", choosing {cards.QUALITY_NAMES[self.quality]}" if self.quality else ""
            options.border_title = f"{name}{choosing}: remove which? (Esc: back)"
            for command in self.options_for(self.card, self.quality, any_quality=False):
                self.listed.append(("command", command))
                prompts.append(self.remove_label(command))
        # each with the digit that picks it, as the choices of a turn have theirs
        options.add_options([Option(numbered(i + 1, p)) for i, p in enumerate(prompts)])
        options.highlighted = 0
        self.refresh_bindings()

    def remove_label(self, command: Command) -> Text:
        label = Text("Remove ")
        label.append(cards.campaign_info(command["remove"])["name"], style="bold")
        kept = [c for c in self.drawn if c not in (command["apply"], command["remove"])]
        if kept:
            label.append(f"; {cards.campaign_info(kept[0])['name']} goes back", style="dim")
        return label

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.choose(event.option_index)

    def action_pick(self, index: int) -> None:
        if index < len(self.listed):
            self.choose(index)

    def choose(self, index: int) -> None:
        kind, what = self.listed[index]
        if kind == "card":
            self.card, self.quality, self.quality_chosen = what, None, False
            qualities = {c.get("quality") for c in self.options_for(what)}
            if qualities == {None}:
                self.quality_chosen = True
        elif kind == "quality":
            self.quality, self.quality_chosen = what, True
        else:
            self.dismiss(what)
            return
        if self.quality_chosen:
            only = self.options_for(self.card or "", self.quality, any_quality=False)
            if len(only) == 1 and only[0].get("remove") is None:  # one card drawn: nothing to remove
                self.dismiss(only[0])
                return
        self.fill()

    def action_back(self) -> None:
        if self.card is None:
            self.dismiss(None)
            return
        needs_quality = {c.get("quality") for c in self.options_for(self.card)} != {None}
        if self.quality_chosen and needs_quality:
            self.quality, self.quality_chosen = None, False
        else:
            self.card, self.quality, self.quality_chosen = None, None, False
        self.fill()


class ChiracMitterrandBoard(Board):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back a step"),
        Binding("c", "campaign", "Campaign"),
        # (system: the Keys panel leaves the digits out, one row each; the choices say them)
        *(Binding(str(n), f"pick({n - 1})", show=False, system=True) for n in range(1, 10)),
    ]

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.legal: list[Command] = []
        self.card: str | None = None  # the card being played, once chosen
        #: its action and the qualities of its choice icons, once chosen
        self.action: tuple[int, tuple[str, ...]] | None = None
        #: the action step was passed over (the card had one action to offer): Esc goes back to the cards
        self.action_skipped = False
        self.listed: list[Any] = []  # what each option of the list stands for
        self.dialog_open = False

    def compose(self) -> ComposeResult:
        # the turn line stays put; the rest scrolls only in a terminal smaller than 80x24
        yield BoardPart("", id="cm-turn")
        with BoardScroll(id="cm-table"):
            yield BoardPart("", id="cm-opinion")
            yield BoardPart("", id="cm-piles")
            yield BoardPart("", id="cm-hand")
            yield CMChoiceList(id="cm-choices")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "back":
            return self.card is not None
        if action == "campaign":  # offered while the campaign draw is a move (the footer shows it then only)
            return any(c.get("t") == "Campaign" for c in self.legal)
        return True

    def room(self) -> int:
        """The width an option line has in the choice box."""
        width = self.content_size.width
        return max(NARROW_ROOM, width - 5) if width else NARROW_ROOM

    # -- drawing ------------------------------------------------------------

    def draw(self, view: dict[str, Any], legal: list[Command] | None) -> None:
        self.shown = (view, legal)
        self.view = view
        self.legal = list(legal or [])
        if self.card is not None and not any(c.get("card") == self.card for c in self.legal):
            self.card, self.action = None, None
        names = view["names"]
        seat = view.get("seat")
        you = next((side for side, s in view["seats"].items() if s == seat and isinstance(seat, int)), None)

        # the turn, whether it is the final one, who plays; what may be cut at 80 columns comes last
        turn = Text.assemble(("Turn ", "dim"), (str(view["turn"]), "bold"))
        mover = view.get("to_move")
        if view.get("final_turn") and view.get("phase") != "over":
            turn.append("  FINAL TURN", style="bold reverse")
        if view.get("phase") == "over":
            winner = view.get("winner")
            turn.append("  Game over: ", style="bold")
            turn.append(
                f"{names.get(winner, 'nobody')} wins" if winner else "no winner", style=SIDE_STYLE.get(winner or "", "")
            )
        elif view.get("phase") == "campaign" and (view.get("campaign") or {}).get("drawer") in names:
            # the campaign draw is the drawer's move, whoever's turn it is
            drawer = view["campaign"]["drawer"]
            turn.append("  Campaign draw: ", style="dim")
            turn.append(f"{names[drawer]} ({SIDE_LETTER[drawer]})", style=SIDE_STYLE[drawer])
            if drawer == you:
                turn.append(", you", style="bold")
            mover = drawer
        elif mover:
            turn.append("  To play: ", style="dim")
            turn.append(f"{names[mover]} ({SIDE_LETTER[mover]})", style=SIDE_STYLE[mover])
            if mover == you:
                turn.append(", you", style="bold")
        if you and (mover != you or view.get("phase") == "over"):
            turn.append("  You: ", style="dim")
            turn.append(f"{names[you]} ({SIDE_LETTER[you]})", style=SIDE_STYLE[you])
        self.paint("#cm-turn", one_line(turn))
        opinion = [view.get(k) for k in ("row_length", "rows", "media", "names", "veto_used")]
        self.paint("#cm-opinion", opinion_group(view), same_as=opinion)  # (a Rich group: what it is drawn from)
        self.paint("#cm-piles", one_line(self.piles(view)))
        self.fill_choices(view)
        hand = self.hand(view)
        self.paint("#cm-hand", hand)
        self.query_one("#cm-hand", Static).display = bool(hand.plain)
        self.refresh_bindings()

    def known_lines(self, view: dict[str, Any], side: str, known: list[str], width: int) -> list[str]:
        """The cards slid under ``side``'s pile, nearest the top first (the order they will be
        drawn in), in two lines where they fit: two players, the opponent slid them there; solo,
        the owner kept them. In the last turn of the final round, and once the game is over,
        nobody draws again."""
        solo = view.get("solo")
        keeper = side if solo else ("mitterrand" if side == "chirac" else "chirac")
        who = "you" if keeper == view.get("you") else view["names"][keeper]
        verb = "kept" if solo else "slid"
        last = view.get("final_turn") and view.get("to_move") == "mitterrand" and view.get("phase") == "play"
        if last or view.get("phase") == "over":  # (the game over: nobody draws them either)
            heads = [f"   {who} {verb}, never drawn: ", f"   {who} {verb} (never drawn): "]
        elif len(known) == 1:
            heads = [f"   {who} {verb} under it: ", f"   {who} {verb}: "]
        else:
            # one wording, where it fits (two lines of one screen said it two ways)
            heads = [f"   {who} {verb}, in draw order: ", f"   {who} {verb}: "]
        return names_in_lines(heads, known, width, 2)

    def piles(self, view: dict[str, Any]) -> Text:
        names = view["names"]
        width = self.content_size.width or NARROW_ROOM + 5
        text = Text()
        for side in ("chirac", "mitterrand"):
            erosion = view["erosion"][side]
            text.append(f"{names[side]} ({SIDE_LETTER[side]})", style=SIDE_STYLE[side])
            text.append(f": pile {view['piles'][side]}", style="")
            text.append("  erosion ")
            text.append(
                "▮" * len(erosion) + "▯" * max(0, 6 - len(erosion)), style="#F89884" if len(erosion) >= 4 else ""
            )
            text.append(f" {len(erosion)}/6")
            known = view.get("known_bottom", {}).get(side) or []
            if known:
                text.append("\n")
                text.append("\n".join(self.known_lines(view, side, known, width)), style="dim")
            text.append("\n")
        discard = view["discard"]
        campaign = view.get("campaign") or {}
        counts = f"Campaign cards {campaign.get('pile', 0)} · discard {len(discard)}"
        if discard:
            # the top card's whole name where it fits, else a shorter form: never cut
            top = f", top: {title(discard[-1], width - len(counts) - 7)}"
            if top[7:] != cards.event_info(discard[-1])["name"]:  # a shorter line, a longer name
                counts = f"Campaign {campaign.get('pile', 0)} · discard {len(discard)}"
                top = f", top: {title(discard[-1], width - len(counts) - 7)}"
            counts += top
        text.append(counts, style="dim")
        last = view.get("last_turn")
        if last and last.get("card") and self.screen.has_class("-tall"):
            who = last.get("by")
            text.append("\nLast: ", style="dim")
            text.append(names.get(who, "?"), style=SIDE_STYLE.get(who, ""))
            text.append(f" played {cards.event_info(last['card'])['name']}")
            actions = cards.event_info(last["card"])["actions"]
            if isinstance(last.get("action"), int) and last["action"] < len(actions):
                text.append(" ")
                text.append_text(action_text(actions[last["action"]], last["action"]))
        return text

    def hand(self, view: dict[str, Any]) -> Text:
        text = Text()
        choosing = any(c.get("t") == "PlayCard" for c in self.legal)
        if view.get("automaton_card"):
            text.append_text(card_lines(view["automaton_card"], "The automaton plays:", self.room() + 4))
        if choosing and self.card is not None and self.action is not None:
            # the last step: say what is being played, the box below asks about the other two
            index, choices = self.action
            action = dict(cards.event_info(self.card)["actions"][index], text="")
            played = action_text(action, index, list(choices), pick="")
            text.append("You play ", style="dim")
            text.append(title(self.card, self.room() + 4 - 11 - played.cell_len), style="bold")
            text.append(": ")
            text.append_text(played)
        elif view.get("hand") and not choosing:
            for i, card in enumerate(view["hand"]):
                if text:
                    text.append("\n")
                text.append_text(card_lines(card, f"{i + 1}.", self.room() + 4))
        elif "hands" in view:
            for side, hand in view["hands"].items():
                if hand:
                    if text:
                        text.append("\n")
                    text.append(f"{view['names'][side]}: ", style=SIDE_STYLE[side])
                    text.append(", ".join(cards.event_info(c)["name"] for c in hand))
        return one_line(text)

    def fill_choices(self, view: dict[str, Any]) -> None:
        options = self.query_one("#cm-choices", CMChoiceList)
        self.listed = []
        prompts: list[Any] = []
        heading = ""
        campaign = [c for c in self.legal if c.get("t") == "Campaign"]
        plays = [c for c in self.legal if c.get("t") == "PlayCard"]
        others = [c for c in self.legal if c.get("t") not in ("Campaign", "PlayCard")]
        if campaign:
            self.open_campaign(view, campaign)
        elif plays:
            heading = self.fill_plays(view, plays, prompts)
        elif others:
            # the automated opponent's card (solo): letting it apply first, the default an Enter
            # takes; a veto, once a game, is chosen on purpose (Enter, or a list gone round, spent it)
            others.sort(key=lambda c: c.get("t") != "Allow")
            vetoes = any(c.get("t") == "Veto" for c in others)
            heading = f"Automaton's card: apply, or veto? (1-{len(others)})" if vetoes else "Your choice"
            for command in others:
                self.listed.append(("command", command))
                prompts.append(numbered(len(self.listed), command_label(command, view, self.room())))
        # between two of the seat's choices (the other side's turn) the list waits, greyed
        if options.list_choices(prompts, heading, live=view.get("phase") != "over" and not campaign):
            self.take_focus(options)

    def fill_plays(self, view: dict[str, Any], plays: list[Command], prompts: list[Any]) -> str:
        """The step the player is at: the card, its action, then the fate of the other two
        cards; their lines put in ``prompts``, the step's title returned."""
        room = self.room()
        if self.card is None:
            hand = view.get("hand") or []
            playable = [c for c in hand if any(p["card"] == c for p in plays)]
            for card in playable:
                self.listed.append(("card", card))
                prompts.append(card_lines(card, f"{hand.index(card) + 1}.", room))
            return "Play which card? (1-3, Enter)"
        mine = [p for p in plays if p["card"] == self.card]
        actions: list[tuple[int, tuple[str, ...]]] = []
        for p in mine:
            key = (p["action"], tuple(p.get("choices") or ()))
            if key not in actions:
                actions.append(key)
        fates = {key: [p for p in mine if (p["action"], tuple(p.get("choices") or ())) == key] for key in actions}
        if self.action not in fates:
            self.action, self.action_skipped = None, False
        if self.action is None and len(actions) == 1 and len(fates[actions[0]]) > 1:
            self.action, self.action_skipped = actions[0], True
        info = cards.event_info(self.card)
        # each option with the digit that picks it (a) and b) are the card's actions, not keys)
        if self.action is None:
            for key in actions:
                if len(fates[key]) == 1:  # nothing left to choose: this option plays
                    self.listed.append(("command", fates[key][0]))
                    prompts.append(numbered(len(self.listed), command_label(fates[key][0], view, room)))
                else:
                    self.listed.append(("action", key))
                    action = action_text(info["actions"][key[0]], key[0], list(key[1]))
                    prompts.append(numbered(len(self.listed), one_line(action)))
            if len(actions) == 1:  # one option, which plays: nothing to pick between
                return f"{title(self.card, room - 17)}: its only action"
            return f"{title(self.card, room - 16)}: which action?"
        for command in fates[self.action]:
            self.listed.append(("command", command))
            prompts.append(numbered(len(self.listed), fate_label(command, view, room)))
        if view.get("solo"):
            return "Remove one card, keep the other"
        name = view["names"].get(opponent_of(view), "your opponent")
        return f"Under {name}'s pile: which comes up first?"

    def open_campaign(self, view: dict[str, Any], commands: list[Command]) -> None:
        if self.dialog_open:
            return
        self.dialog_open = True
        drawn = (view.get("campaign") or {}).get("drawn") or []

        def chosen(command: Command | str | None) -> None:
            self.dialog_open = False
            if command == "menu":
                leave = getattr(self.screen, "action_menu", None)  # the table's own way out: saved
                if leave is not None:
                    leave()
                return
            if isinstance(command, dict):
                self.post_message(Board.Chosen(command))
            else:
                self.notify("The campaign draw waits for you: press c to open it again.")

        self.app.push_screen(CampaignDialog(drawn, commands, view), chosen)

    # -- input --------------------------------------------------------------

    def pick(self) -> Any:
        return (self.card, self.action, self.action_skipped) if self.card is not None else None

    def resume_pick(self, pick: Any) -> None:
        card, action, skipped = pick
        if self.card is None and any(c.get("card") == card for c in self.legal):
            self.card, self.action, self.action_skipped = card, action, skipped
            self.refresh_view()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option_list.id != "cm-choices":
            return
        event.stop()
        if event.option_index >= len(self.listed):
            return
        self.choose(*self.listed[event.option_index])

    def choose(self, kind: str, what: Any) -> None:
        if kind == "card":
            self.card, self.action = what, None
            self.refresh_view()
        elif kind == "action":
            self.action, self.action_skipped = what, False
            self.refresh_view()
        else:
            self.card, self.action = None, None
            self.post_message(Board.Chosen(what))

    def action_campaign(self) -> None:
        campaign = [c for c in self.legal if c.get("t") == "Campaign"]
        if campaign and self.view is not None:
            self.open_campaign(self.view, campaign)

    def action_pick(self, index: int) -> None:
        """A number key: the card of that number in your hand, or that option of a later step
        (or of the automaton's card, solo: let it apply, or veto)."""
        if not any(c.get("t") == "PlayCard" for c in self.legal):
            if any(c.get("t") in ("Allow", "Veto") for c in self.legal) and index < len(self.listed):
                self.choose(*self.listed[index])
            return
        if self.card is None:
            hand = (self.view or {}).get("hand") or []
            if index < len(hand) and any(c.get("card") == hand[index] for c in self.legal):
                self.choose("card", hand[index])
        elif index < len(self.listed):
            self.choose(*self.listed[index])

    def action_back(self) -> None:
        if self.action is not None and not self.action_skipped:
            self.action = None
        elif self.card is not None:
            self.card, self.action = None, None
        self.refresh_view()
