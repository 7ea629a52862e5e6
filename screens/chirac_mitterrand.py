"""1988: Chirac contre Mitterrand: public opinion, the piles, erosion, your three cards."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from core.engine import Command
from core.games.chirac_mitterrand import cards
from tui.widgets import Board

SIDE_STYLE = {"chirac": "bold dodger_blue1", "mitterrand": "bold hot_pink"}
SIDE_LETTER = {"chirac": "C", "mitterrand": "M"}
ACTION_STYLE = {"white": "bold white", "blue": "bold dodger_blue1", "pink": "bold hot_pink"}
#: a colour is also a letter: W neutral, C Chirac's own (blue), M Mitterrand's own (pink)
ACTION_LETTER = {"white": "W", "blue": "C", "pink": "M"}
QUALITY_SHORT = {"charisma": "Cha", "courage": "Cou", "integrity": "Int"}


def icons_text(icons: list[str]) -> str:
    return " ".join(QUALITY_SHORT.get(i, i.capitalize()) for i in icons)


def action_text(action: dict[str, Any], index: int) -> Text:
    colour = action["colour"]
    text = Text(f"{'ab'[index]}) ")
    text.append(f"[{ACTION_LETTER[colour]}]", style=ACTION_STYLE[colour])
    text.append(f" {icons_text(action['icons'])}")
    if action.get("text"):
        text.append(f"  {action['text']}", style="dim")
    return text


def one_line(text: Text) -> Text:
    """Each line of ``text`` cut with an ellipsis rather than wrapped."""
    text.no_wrap = True
    text.overflow = "ellipsis"
    return text


def short(name: str, width: int = 18) -> str:
    return name if len(name) <= width else name[: width - 1] + "…"


def event_name(card: str) -> str:
    info = cards.event_info(card)
    return f"{info['name']} ({info['date']})"


def card_lines(card: str, caption: str = "") -> Text:
    """An Event card in three lines: name and date, then each action."""
    info = cards.event_info(card)
    text = Text()
    if caption:
        text.append(caption + " ", style="bold")
    text.append(info["date"], style="dim")
    text.append(" " + info["name"], style="bold")
    for i, action in enumerate(info["actions"]):
        text.append("\n   ")
        text.append_text(action_text(action, i))
    return one_line(text)


def command_label(command: Command, view: dict[str, Any], wide: bool = False) -> Text:
    """A legal command in words; the core decided it is legal, the screen names it."""
    kind = command.get("t")
    names = view["names"]
    width = 30 if wide else 15
    if kind == "PlayCard":
        info = cards.event_info(command["card"])
        text = action_text(info["actions"][command["action"]], command["action"])
        if command.get("choices"):
            text.append(" choosing " + ", ".join(q.capitalize() for q in command["choices"]), style="bold")
        under = command.get("under") or []
        if command.get("remove"):
            text.append("\n   remove: ", style="dim")
            text.append(short(cards.event_info(command["remove"])["name"], width), style="dim")
            if under:
                text.append(" · keep: ", style="dim")
                text.append(short(cards.event_info(under[0])["name"], width), style="dim")
        elif under:
            mover = view.get("to_move") or ""
            other = "mitterrand" if mover == "chirac" else "chirac"
            target = f"{names.get(other, other)}'s"
            text.append(f"\n   under {target} pile: " if wide else "\n   then under: ", style="dim")
            text.append(" ▸ ".join(short(cards.event_info(c)["name"], width) for c in under), style="dim")
        return text
    if kind == "Campaign":
        text = Text("Apply ")
        text.append(cards.campaign_info(command["apply"])["name"], style="bold")
        if command.get("quality"):
            text.append(f" ({str(command['quality']).capitalize()})", style="bold")
        text.append(", remove ")
        text.append(cards.campaign_info(command["remove"])["name"], style="bold")
        return text
    if kind == "Veto":
        text = Text("Veto (once a game): ")
        card = view.get("automaton_card")
        if card and isinstance(command.get("action"), int):
            action = cards.event_info(card)["actions"][command["action"]]
            text.append_text(action_text(action, command["action"]))
        return text
    if kind == "Allow":
        return Text("Let the automated opponent's card apply")
    return Text(" · ".join([str(kind)] + [f"{k}: {v}" for k, v in command.items() if k != "t"]))


class CommandList(OptionList):
    """A list of legal commands, each in words."""


class CampaignDialog(ModalScreen[Command | None]):
    """The electoral campaign draw: three cards, apply one, remove one."""

    BINDINGS = [Binding("escape", "dismiss(None)", "Later")]

    def __init__(self, drawn: list[str], commands: list[Command], view: dict[str, Any]) -> None:
        super().__init__()
        self.drawn = drawn
        self.commands = commands
        self.view = view

    def compose(self) -> ComposeResult:
        with Vertical(id="campaign-box"):
            yield Static("Electoral campaign: apply one card, remove one; the third goes back.", id="campaign-title")
            text = Text()
            for card in self.drawn:
                info = cards.campaign_info(card)
                if text:
                    text.append("\n")
                text.append(info["name"], style="bold")
                text.append(f": {info['text']}")
            yield Static(text, id="campaign-cards")
            yield CommandList(*(Option(command_label(c, self.view)) for c in self.commands), id="campaign-options")

    def on_mount(self) -> None:
        self.query_one(CommandList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.commands[event.option_index])


class ChiracMitterrandBoard(Board):
    BINDINGS = [
        Binding("escape", "back", "Other card", show=False),
        Binding("c", "campaign", "Campaign", show=False),
        *(Binding(str(n), f"pick({n - 1})", show=False) for n in (1, 2, 3)),
    ]

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.legal: list[Command] = []
        self.card: str | None = None  # the card being played, once chosen
        self.listed: list[Any] = []  # what each option of the list stands for
        self.dialog_open = False

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static("", id="cm-turn")
            yield Static("", id="cm-opinion")
            yield Static("", id="cm-piles")
            yield Static("", id="cm-hand")
            yield CommandList(id="cm-choices")

    # -- drawing ------------------------------------------------------------

    def show(self, view: dict[str, Any], legal: list[Command] | None) -> None:
        self.shown = (view, legal)
        self.view = view
        self.legal = list(legal or [])
        if self.card is not None and not any(c.get("card") == self.card for c in self.legal):
            self.card = None
        names = view["names"]
        seat = view.get("seat")
        you = next((side for side, s in view["seats"].items() if s == seat and isinstance(seat, int)), None)

        turn = Text.assemble(("Turn ", "dim"), (str(view["turn"]), "bold"))
        mover = view.get("to_move")
        if view.get("phase") == "over":
            winner = view.get("winner")
            turn.append("  Game over: ", style="bold")
            turn.append(f"{names.get(winner, 'nobody')} wins" if winner else "no winner", style=SIDE_STYLE.get(winner or "", ""))
        elif mover:
            turn.append("  To play: ", style="dim")
            turn.append(names[mover], style=SIDE_STYLE[mover])
        if view.get("final_turn"):
            turn.append("  FINAL TURN", style="bold reverse")
        if you:
            turn.append("  You: ", style="dim")
            turn.append(f"{names[you]} ({SIDE_LETTER[you]})", style=SIDE_STYLE[you])
        self.query_one("#cm-turn", Static).update(turn)
        self.query_one("#cm-opinion", Static).update(self.opinion(view))
        self.query_one("#cm-piles", Static).update(one_line(self.piles(view)))
        self.query_one("#cm-hand", Static).update(self.hand(view))
        self.fill_choices(view)

    def opinion(self, view: dict[str, Any]) -> Group:
        length = view["row_length"]
        width = (2 * length + 1) * 3 - 2
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
                    row.append("●", style="bold yellow")
                elif square == 0:
                    row.append("┼", style="dim")
                else:
                    row.append("·", style="dim")
                if square != length:
                    row.append("  ")
            side = "chirac" if pos > 0 else "mitterrand" if pos < 0 else None
            if side:
                ahead[side] += 1
                lead = Text(f"{SIDE_LETTER[side]}+{abs(pos)}", style=SIDE_STYLE[side])
            else:
                lead = Text("=", style="dim")
            grid.add_row(quality.capitalize(), row, lead)
        media = view["media"]
        names = view["names"]
        footer = Text.assemble(
            ("Media ", "dim"), (f"{names[media]} ({SIDE_LETTER[media]})", SIDE_STYLE[media]),
            (" (face down)" if view.get("veto_used") else "", "dim"),
            ("  ahead in ", "dim"),
            (f"C {ahead['chirac']}", SIDE_STYLE["chirac"]), (" · ", "dim"), (f"M {ahead['mitterrand']}", SIDE_STYLE["mitterrand"]),
        )
        return Group(grid, Text.assemble(" " * 10, footer))

    def piles(self, view: dict[str, Any]) -> Text:
        names = view["names"]
        text = Text()
        for side in ("chirac", "mitterrand"):
            erosion = view["erosion"][side]
            text.append(f"{names[side]} ({SIDE_LETTER[side]})", style=SIDE_STYLE[side])
            text.append(f": pile {view['piles'][side]}", style="")
            text.append("  erosion ")
            text.append("▮" * len(erosion) + "▯" * max(0, 6 - len(erosion)), style="red" if len(erosion) >= 4 else "")
            text.append(f" {len(erosion)}/6")
            known = view.get("known_bottom", {}).get(side) or []
            if known:
                text.append(f"\n   you slid under it: {' ▸ '.join(cards.event_info(c)['name'] for c in known)}", style="dim")
            text.append("\n")
        discard = view["discard"]
        campaign = view.get("campaign") or {}
        text.append(f"Campaign cards {campaign.get('pile', 0)} · discard {len(discard)}", style="dim")
        if discard:
            text.append(f", top: {cards.event_info(discard[-1])['name']}", style="dim")
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
            text.append_text(card_lines(view["automaton_card"], "Automated opponent plays:"))
        if view.get("hand") and not choosing:
            for i, card in enumerate(view["hand"]):
                if text:
                    text.append("\n")
                text.append_text(card_lines(card, f"{i + 1}."))
        elif "hands" in view:
            for side, hand in view["hands"].items():
                if hand:
                    if text:
                        text.append("\n")
                    text.append(f"{view['names'][side]}: ", style=SIDE_STYLE[side])
                    text.append(", ".join(cards.event_info(c)["name"] for c in hand))
        return text

    def fill_choices(self, view: dict[str, Any]) -> None:
        options = self.query_one("#cm-choices", CommandList)
        options.clear_options()
        self.listed = []
        campaign = [c for c in self.legal if c.get("t") == "Campaign"]
        plays = [c for c in self.legal if c.get("t") == "PlayCard"]
        others = [c for c in self.legal if c.get("t") not in ("Campaign", "PlayCard")]
        if campaign:
            self.open_campaign(view, campaign)
        elif plays and self.card is None:
            hand = view.get("hand") or []
            playable = [c for c in hand if any(p["card"] == c for p in plays)]
            options.border_title = "Play which card? (1-3, Enter)"
            for card in playable:
                self.listed.append(("card", card))
                options.add_option(Option(card_lines(card, f"{hand.index(card) + 1}.")))
        elif plays:
            options.border_title = f"{cards.event_info(self.card)['name']}: which action? (Esc: other card)"
            for command in plays:
                if command["card"] == self.card:
                    self.listed.append(("command", command))
                    options.add_option(Option(command_label(command, view, self.screen.has_class("-wide"))))
        elif others:
            options.border_title = "Your choice"
            for command in others:
                self.listed.append(("command", command))
                options.add_option(Option(command_label(command, view, self.screen.has_class("-wide"))))
        options.display = bool(self.listed)
        if self.listed:
            self.take_focus(options)
            options.highlighted = 0

    def open_campaign(self, view: dict[str, Any], commands: list[Command]) -> None:
        if self.dialog_open:
            return
        self.dialog_open = True
        drawn = (view.get("campaign") or {}).get("drawn") or []

        def chosen(command: Command | None) -> None:
            self.dialog_open = False
            if command is not None:
                self.post_message(Board.Chosen(command))
            else:
                self.notify("The campaign draw waits for you: press c to open it again.")

        self.app.push_screen(CampaignDialog(drawn, commands, view), chosen)

    # -- input --------------------------------------------------------------

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option_list.id != "cm-choices":
            return
        event.stop()
        if event.option_index >= len(self.listed):
            return
        kind, what = self.listed[event.option_index]
        if kind == "card":
            self.card = what
            self.refresh_view()
        else:
            self.card = None
            self.post_message(Board.Chosen(what))

    def action_campaign(self) -> None:
        campaign = [c for c in self.legal if c.get("t") == "Campaign"]
        if campaign and self.view is not None:
            self.open_campaign(self.view, campaign)

    def action_pick(self, index: int) -> None:
        if self.card is None and self.view and index < len(self.view.get("hand") or []):
            card = self.view["hand"][index]
            if any(c.get("card") == card for c in self.legal):
                self.card = card
                self.refresh_view()

    def action_back(self) -> None:
        if self.card is not None:
            self.card = None
            self.refresh_view()
