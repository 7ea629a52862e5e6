"""Edgar & Lucien: the map of Fosko, the players, the programming and action dialogs."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import OptionList, Static

from core.engine import Command
from core.games.edgar_lucien import cards, fosko
from core.games.edgar_lucien.fosko import ADMIN, IVORY, STEEL, Fosko
from tui.widgets import Board, BoardPart, BoardScroll, ChoiceList

#: how each seat's colour is drawn, and its letter for monochrome terminals
#: (colours that keep 4.5:1 on the board, the selection and the greys of NO_COLOR, in 16 colours too)
SEAT_STYLE = {"red": "bold #F89884", "yellow": "bold #FFD75F", "blue": "bold #5FAFFF", "white": "bold #E4E4E4"}
SEAT_LETTER = {"red": "R", "yellow": "Y", "blue": "B", "white": "W"}
BORDER_STYLE = {
    "green": "bold #98E024",
    "orange": "bold #FFAF5F",
    "violet": "bold #AF87FF",
    "cyan": "bold #58D1EB",
}
LINE_STYLE = {"pink": "bold #DC70A8", "brown": "bold #D0A070", "grey": "bold #B2B2B2"}
KIND_STYLE = {STEEL: "#5FAFFF", IVORY: "#FFD7AF", ADMIN: "bold #B48CFF"}
OWNED, PADLOCKED = "■", "▣"
CONDITIONS = ("dandy", "collector", "bureaucrat", "zealot")
CONDITION_NAME = {
    "dandy": "Wealthy Dandy",
    "collector": "High Tax Collector",
    "bureaucrat": "Influential Bureaucrat",
    "zealot": "Grand Zealot",
}
#: a certificate as the goals table heads it, for the narrow "you" panel
CONDITION_SHORT = {"dandy": "Dandy", "collector": "Tax", "bureaucrat": "Bureau", "zealot": "Zealot"}
#: and in a choice at 80 columns
CERTIFICATE_NARROW = {"dandy": "Dandy", "collector": "Tax Collector", "bureaucrat": "Bureaucrat", "zealot": "Zealot"}
ADMIN_ORDER = tuple(a.key for a in cards.ADMIN_ACTIONS)
PROMPTS = {
    "place": "Where do Edgar and Lucien start?",
    "requisition": "Requisition: take which district?",
    "intimidate": "Intimidation: whom?",
    "surrender": "Intimidated: give up which district?",
    "yield": "Discredit Threat: pay with?",
    "bid": "Governor election: your bid",
}


def cogs(amount: int | None) -> str:
    """50,000 Cogs as ``50k``; a hidden fortune as ``?``."""
    if amount is None:
        return "?"
    return "0" if amount == 0 else (f"{amount // 1000}k" if amount % 1000 == 0 else f"{amount:,}")


def card_title(card: str) -> str:
    return cards.title(card)


def seat_text(view: dict[str, Any], seat: int | None, name: bool = True) -> Text:
    if seat is None:
        return Text("nobody", style="dim")
    player = view["players"][seat]
    colour = player["colour"]
    text = Text()  # (a style given to Text() would be the whole line's, the caller's words too)
    text.append(SEAT_LETTER[colour], style=SEAT_STYLE[colour] + " reverse")
    if name:
        text.append(" " + player["name"], style=SEAT_STYLE[colour])
    return text


def district_text(place: Fosko, district: str | None, short: bool = False) -> Text:
    """A district's name and kind; ``short``, its code as the narrow map shows it."""
    if district is None or not place.has(district):
        return Text("off the board", style="dim")
    d = place.district(district)
    return Text.assemble(
        (d.code if short else d.name, "bold"), (f" ({fosko.KIND_LETTERS[d.kind]})", KIND_STYLE[d.kind])
    )


def move_text(place: Fosko, where: str | None, move: str) -> Text:
    """A programmed move and where it leads from ``where``."""
    text = Text()
    if move == fosko.STAY:
        text.append("Immobile", style="bold")
    elif move in fosko.BORDER_COLOURS:
        # the letter the map writes on such borders, after the colour as the history has it
        # ("[G] green border" read as a key to press: a play-test pressed g)
        text.append(f"{move} border ({fosko.COLOUR_LETTERS[move]})", style=BORDER_STYLE[move])
    else:
        line = move.partition(">")[0]
        text.append(f"{line} metro ({fosko.LINE_NAMES.get(line, '?')})", style=LINE_STYLE.get(line, "bold"))
    if where is not None and place.has(where):
        text.append(" → ")
        text.append_text(district_text(place, place.destination(where, move)))
    return text


def move_brief(place: Fosko, where: str | None, move: str) -> str:
    """A programmed move in a few words, where a title has room for them: ``violet → B3``."""
    if move == fosko.STAY:
        return "immobile"
    what = move if move in fosko.BORDER_COLOURS else fosko.LINE_NAMES.get(move.partition(">")[0], "metro")
    if where is None or not place.has(where):
        return what
    return f"{what} → {place.district(place.destination(where, move)).code}"


# -- the map ------------------------------------------------------------------


def map_text(place: Fosko, view: dict[str, Any], wide: bool) -> Text:
    """The city as a grid of squares: names, kinds, owners, metro entrances, pawns;
    each border drawn in its colour with its letter."""
    # five narrow squares of 9 fill the 51 columns the board has at 80 (its scrollbar aside)
    width, height = ((13 if place.cols > 4 else 16), 3) if wide else ((9 if place.cols > 4 else 10), 2)
    lead = " " if width > 9 else ""
    owners: dict[str, int] = view.get("owners") or {}
    heritage = view.get("heritage")
    players = view["players"]
    pawns: dict[str, list[tuple[int, str]]] = {}
    for seat, player in enumerate(players):
        for pawn in ("edgar", "lucien"):
            where = player.get(pawn)
            if where is not None:
                pawns.setdefault(where, []).append((seat, pawn))

    def cell_lines(district: fosko.District) -> list[Text]:
        kind = fosko.KIND_LETTERS[district.kind]
        top = Text()
        owner = owners.get(district.id)
        mark = Text()
        if owner is not None:
            colour = players[owner]["colour"]
            mark = Text(f"{PADLOCKED if owner == heritage else OWNED}{SEAT_LETTER[colour]}", style=SEAT_STYLE[colour])
        metro = Text()
        for line in place.stations(district.id):
            metro.append(fosko.LINE_NAMES[line], style=LINE_STYLE[line])
        here = Text()
        for seat, who in _pawn_groups(pawns.get(district.id, [])):
            colour = players[seat]["colour"]
            letter = SEAT_LETTER[colour]
            if wide:  # RE red Edgar, RL red Lucien, RE+L both: never three letters, like a district's code
                here.append(" " if here else "")
                here.append(letter + ("E+L" if who == "EL" else who), style=SEAT_STYLE[colour])
            else:  # R red Edgar, r red Lucien: four players' pawns fit a narrow square
                here.append(("E" in who) * letter + ("L" in who) * letter.lower(), style=SEAT_STYLE[colour])
        if wide:
            name = district.name if len(district.name) < width else district.name[: width - 2] + "…"
            top.append(" " + name, style="bold")
            second = Text(" ")
            second.append(
                fosko.KIND_NAMES[district.kind] if district.kind != ADMIN else "Admin", style=KIND_STYLE[district.kind]
            )
            if metro:
                second.append(" ")
                second.append_text(metro)
            if mark:  # a space on each side: a border letter may stand right after it
                second.append(" " * max(1, width - second.cell_len - mark.cell_len - 1))
                second.append_text(mark)
            return [top, second, Text(" ") + here]
        top.append(lead + district.code, style="bold")
        top.append(" " + kind, style=KIND_STYLE[district.kind])
        if mark:  # kept off the border on its right
            top.append(" " * max(1, width - top.cell_len - mark.cell_len - 1))
            top.append_text(mark)
        second = Text(" ")  # apart from the border letter on its left
        if metro:
            second.append_text(metro)
            second.append(" ")
        second.append_text(here)
        return [top, second]

    out = Text(no_wrap=True, overflow="crop")
    rule = "─"
    for r in range(place.rows):
        # the line above row r: outer edge, or the borders between row r-1 and row r
        line = Text.assemble(("┌" if r == 0 else "├", "dim"))  # the rules dim, not the border letters
        for c in range(place.cols):
            colour = None
            if r > 0:
                colour = place.border(place.at(r - 1, c).id, place.at(r, c).id)
            if colour:
                left = (width - 3) // 2
                line.append(rule * left, style="dim")
                line.append(f" {fosko.COLOUR_LETTERS[colour]} ", style=BORDER_STYLE[colour] + " reverse")
                line.append(rule * (width - left - 3), style="dim")
            else:
                line.append(rule * width, style="dim")
            last = c == place.cols - 1
            line.append(("┐" if last else "┬") if r == 0 else ("┤" if last else "┼"), style="dim")
        out.append_text(line)
        out.append("\n")
        cells = [cell_lines(place.at(r, c)) for c in range(place.cols)]
        for k in range(height):
            line = Text.assemble(("│", "dim"))  # the rules dim, not the districts
            for c in range(place.cols):
                content = cells[c][k]
                content.truncate(width, overflow="ellipsis")
                line.append_text(content)
                line.append(" " * (width - content.cell_len))
                if c < place.cols - 1:
                    colour = place.border(place.at(r, c).id, place.at(r, c + 1).id)
                    if colour and k == height // 2:
                        line.append(fosko.COLOUR_LETTERS[colour], style=BORDER_STYLE[colour] + " reverse")
                    elif colour:
                        line.append("┃", style=BORDER_STYLE[colour])
                    else:
                        line.append("│", style="dim")
                else:
                    line.append("│", style="dim")
            out.append_text(line)
            out.append("\n")
    bottom = Text("└", style="dim")
    for c in range(place.cols):
        bottom.append(rule * width, style="dim")
        bottom.append("┘" if c == place.cols - 1 else "┴", style="dim")
    out.append_text(bottom)
    return out


def _pawn_groups(pawns: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Pawns of one district by seat: ``EL`` both, ``E`` Edgar, ``L`` Lucien."""
    seats: dict[int, str] = {}
    for seat, pawn in pawns:
        seats[seat] = seats.get(seat, "") + ("E" if pawn == "edgar" else "L")
    return [(seat, "".join(sorted(who))) for seat, who in sorted(seats.items())]


def legend(wide: bool) -> Text:
    text = Text(style="dim")
    text.append("Borders ")
    for colour in fosko.BORDER_COLOURS:
        text.append(fosko.COLOUR_LETTERS[colour], style=BORDER_STYLE[colour] + " reverse")
        text.append(f"{colour} " if wide else " ")
    text.append(" Metro ")
    for line in fosko.METRO_COLOURS:
        text.append(fosko.LINE_NAMES[line], style=LINE_STYLE[line])
        text.append(f" {line} " if wide else " ")
    text.append("\nKinds " if wide else "\n")
    text.append(f"S steel I ivory A admin · {OWNED} owner {PADLOCKED} padlocked")
    text.append("\nPawns RE red Edgar · RL red Lucien · RE+L both" if wide else "\nPawns R red Edgar · r red Lucien")
    return text


# -- players -------------------------------------------------------------------


def tally(view: dict[str, Any]) -> Text:
    turn = view.get("turn") or 1
    text = Text.assemble(("Period ", "dim"), (str(view.get("period", 1)), "bold"), ("  Turn ", "dim"))
    text.append("●" * turn + "○" * (4 - turn), style="bold")
    text.append(f" {turn}/4", style="dim")
    phase = {
        "place": "placing the pawns",
        "program": "programming",
        "act": "actions",
        "ask": "a choice",
        "bid": "Governor election",
        "over": "game over",
    }.get(view.get("phase", ""), "")
    text.append(f"  · {phase}", style="italic")
    if view.get("supported"):
        text.append("  Political Support!", style="bold #B48CFF")
    text.no_wrap = True
    text.overflow = "ellipsis"
    return text


def popularity_track(view: dict[str, Any]) -> Text:
    """0 to 100 in steps of 10, each player's marker where it stands."""
    slots: dict[int, list[int]] = {}
    for seat, player in enumerate(view["players"]):
        slots.setdefault(max(0, min(100, player["popularity"])) // 10, []).append(seat)
    text = Text.assemble(("Pop 0 ", "dim"))  # as the players table heads it (a Text's own style would dim the markers)
    for slot in range(11):
        seats = slots.get(slot, [])
        if not seats:
            text.append("·", style="dim")
        for seat in seats:
            colour = view["players"][seat]["colour"]
            text.append(SEAT_LETTER[colour], style=SEAT_STYLE[colour])
    text.append(" 100", style="dim")
    text.append(f"  Deck {view.get('deck', 0)} · discard {view.get('discard', 0)}", style="dim")
    text.no_wrap = True
    text.overflow = "ellipsis"
    return text


def players_table(view: dict[str, Any], place: Fosko, wide: bool) -> Table:
    """A row per player in turn order: tokens, Cogs, popularity, districts, cards,
    administration actions used, where the pawns stand."""
    table = Table(box=None, padding=(0, 1, 0, 0), header_style="dim", pad_edge=False)
    table.add_column("", no_wrap=True)
    table.add_column("Player", no_wrap=True, overflow="ellipsis", max_width=18 if wide else 12)
    table.add_column("Cogs", justify="right")
    table.add_column("Pop", justify="right")
    table.add_column("S I A", no_wrap=True)
    table.add_column("Cards" if wide else "Crd", justify="right")
    table.add_column("Adm", justify="right")
    table.add_column("Edgar" if wide else "E", no_wrap=True)
    table.add_column("Lucien" if wide else "L", no_wrap=True)
    program = view.get("phase") == "program"
    for seat in _order(view):
        player = view["players"][seat]
        name = Text(player["name"], style=SEAT_STYLE[player["colour"]])
        if view.get("first") == seat:
            name.append(" ▶", style="bold")
        if view.get("governor") == seat:
            name.append(" ★", style="bold #FFD75F")
        if view.get("heritage") == seat:
            name.append(" " + PADLOCKED, style="bold")
        d = player.get("districts") or {}
        where = []
        for pawn in ("edgar", "lucien"):
            district = player.get(pawn)
            code = place.district(district).code if district and place.has(district) else "—"
            where.append(Text(code, style="dim italic" if program and not player.get("programmed") else ""))
        table.add_row(
            seat_text(view, seat, name=False),
            name,
            cogs(player.get("cogs")),
            str(player["popularity"]),
            f"{d.get('steel', 0)} {d.get('ivory', 0)} {d.get('admin', 0)}",
            str(player.get("hand", 0)),
            f"{len(player.get('used') or [])}/8",
            *where,
        )
    return table


def goals_table(view: dict[str, Any], wide: bool) -> Table:
    """Each player's progress towards the four conditions: ✓ met, © certified."""
    needs = view.get("needs") or {}
    table = Table(box=None, padding=(0, 1, 0, 0), header_style="dim", pad_edge=False)
    table.add_column("", no_wrap=True)
    table.add_column(
        "Goals, 3 of 4" if wide else "Goals", no_wrap=True, overflow="ellipsis", max_width=18 if wide else 12
    )
    gap = " " if wide else ""
    heads = {
        "dandy": f"Dandy{gap}≥{cogs(needs.get('cogs', 150000))}",
        "collector": f"Tax{gap}≥{needs.get('districts', 7)}",
        "bureaucrat": f"{'Bureau' if wide else 'Bur'}{gap}≥{needs.get('admin', 3)}A",
        "zealot": f"{'Zealot' if wide else 'Zeal'}{gap}★{needs.get('popularity', 100)}",
    }
    for condition in CONDITIONS:
        table.add_column(heads[condition], no_wrap=True)
    certificates = view.get("certificates") or {}
    for seat in _order(view):
        player = view["players"][seat]
        d = player.get("districts") or {}
        conditions = player.get("conditions") or {}
        cells = []
        for condition in CONDITIONS:
            if condition == "dandy":
                detail = cogs(player.get("cogs"))
            elif condition == "collector":
                detail = str(sum(d.values()))
            elif condition == "bureaucrat":
                detail = str(d.get("admin", 0))
            else:
                detail = ("★ " if view.get("governor") == seat else "") + str(player["popularity"])
            certified = certificates.get(condition) == seat
            met = bool(conditions.get(condition)) or certified
            mark = "©" if certified else ("✓" if met else " ")
            cells.append(Text(f"{mark}{detail}", style="bold green" if met else ""))
        table.add_row(
            seat_text(view, seat, name=False), Text(player["name"], style=SEAT_STYLE[player["colour"]]), *cells
        )
    return table


#: the Administration districts in the order the table of used actions heads them
ADMIN_PLACES = (fosko.PIG, fosko.ARCHIVES, fosko.BANK, fosko.HALL)


def _marked(value: str, met: bool, certified: bool) -> Text:
    """A condition's value: ``✓`` met, ``©`` kept by a certificate (green either way)."""
    mark = "©" if certified else ("✓" if met else "")
    return Text(mark + value, style="bold green" if met or certified else "")


def standings_table(view: dict[str, Any], wide: bool) -> Table:
    """A row per player in turn order, each value with its condition: Cogs (Wealthy Dandy),
    popularity (Grand Zealot, with the Governor's ★), districts by kind, Administration
    districts (Influential Bureaucrat), all districts (High Tax Collector), cards in hand and
    how many conditions are met (three win)."""
    certificates = view.get("certificates") or {}
    table = Table(box=None, padding=(0, 1, 0, 0), header_style="dim", pad_edge=False)
    table.add_column("", no_wrap=True)
    table.add_column("Player", no_wrap=True, overflow="ellipsis", max_width=18 if wide else 12)
    table.add_column("Cogs", justify="right", no_wrap=True)
    table.add_column("Pop", justify="right", no_wrap=True)
    table.add_column("Steel" if wide else "S", justify="right", no_wrap=True)
    table.add_column("Ivory" if wide else "I", justify="right", no_wrap=True)
    table.add_column("Admin" if wide else "A", justify="right", no_wrap=True)
    table.add_column("Districts" if wide else "Dist", justify="right", no_wrap=True)
    table.add_column("Cards" if wide else "Crd", justify="right", no_wrap=True)
    table.add_column("Met", justify="right", no_wrap=True)
    for seat in _order(view):
        player = view["players"][seat]
        name = Text(player["name"], style=SEAT_STYLE[player["colour"]])
        marks = Text()
        if view.get("first") == seat:
            marks.append("▶", style="bold")
        if view.get("governor") == seat:
            marks.append("★", style="bold yellow")
        if view.get("heritage") == seat:
            marks.append(PADLOCKED, style="bold")
        if marks:  # the marks never cut off: the name gives way
            room = (18 if wide else 12) - marks.cell_len - 1
            name.truncate(max(1, room), overflow="ellipsis")
            name.append(" ")
            name.append_text(marks)
        d = player.get("districts") or {}
        conditions = player.get("conditions") or {}

        def cell(condition: str, value: str, conditions: dict[str, Any] = conditions, seat: int = seat) -> Text:
            certified = certificates.get(condition) == seat
            return _marked(value, bool(conditions.get(condition)) and not certified, certified)

        known = [bool(conditions.get(c)) or certificates.get(c) == seat for c in CONDITIONS]
        met = str(sum(known))
        if conditions.get("dandy") is None and certificates.get("dandy") != seat:  # a hidden fortune
            met = f"{sum(known)}–{sum(known) + 1}"
        table.add_row(
            seat_text(view, seat, name=False),
            name,
            cell("dandy", cogs(player.get("cogs"))),
            cell("zealot", str(player["popularity"])),
            str(d.get(STEEL, 0)),
            str(d.get(IVORY, 0)),
            cell("bureaucrat", str(d.get(ADMIN, 0))),
            cell("collector", str(sum(d.values()))),
            str(player.get("hand", 0)),
            Text(met, style="bold" if sum(known) >= 2 else ""),
        )
    return table


def turn_cell(view: dict[str, Any], seat: int) -> Text:
    """Where a player stands in this turn: orders given or not; acting now, done or to come."""
    phase = view.get("phase")
    player = view["players"][seat]
    if phase == "program":
        return Text("ready", style="dim") if player.get("programmed") else Text("orders…", style="bold")
    if phase == "place":
        placed = player.get("edgar") is not None
        return (
            Text("placed", style="dim")
            if placed
            else Text("to place", style="bold" if view.get("to_act") == seat else "")
        )
    if phase in ("act", "ask", "bid"):
        order = list(view.get("order") or [])
        now = view.get("to_act")
        ask = view.get("ask") or {}
        if phase == "ask" and ask.get("seat") == seat:
            return Text("choosing", style="bold")
        if phase == "bid":
            bidding = view.get("bidding") or {}
            if bidding.get("bidder") == seat:
                return Text("bidding", style="bold")
            return Text("out" if seat in (bidding.get("dropped") or []) else "", style="dim")
        if now == seat:
            return Text("acting", style="bold")
        if now in order and seat in order:
            return Text("done", style="dim") if order.index(seat) < order.index(now) else Text("to act")
    return Text("")


def pawns_table(view: dict[str, Any], place: Fosko, wide: bool) -> Table:
    """A row per player: where Edgar and Lucien stand (✓ acted this turn), the player's part of
    the turn, which administration actions are used this period at each Administration
    district (E Edgar's, L Lucien's) and whether a certificate was taken this period."""
    table = Table(box=None, padding=(0, 1, 0, 0), header_style="dim", pad_edge=False)
    table.add_column("", no_wrap=True)
    table.add_column("Player", no_wrap=True, overflow="ellipsis", max_width=18 if wide else 9)
    table.add_column("Edgar" if wide else "E", no_wrap=True)
    table.add_column("Lucien" if wide else "L", no_wrap=True)
    table.add_column("This turn" if wide else "Turn", no_wrap=True)
    for district in ADMIN_PLACES:
        table.add_column(place.district(district).code, no_wrap=True)
    table.add_column("©", no_wrap=True)
    program = view.get("phase") == "program"
    for seat in _order(view):
        player = view["players"][seat]
        acted = player.get("acted") or {}
        where = []
        for pawn in ("edgar", "lucien"):
            district = player.get(pawn)
            code = Text(place.district(district).code if district and place.has(district) else "—")
            if program and not player.get("programmed"):
                code.stylize("dim italic")
            if acted.get(pawn) and view.get("phase") in ("act", "ask"):
                code.append("✓", style="bold")
            where.append(code)
        used = set(player.get("used") or [])
        cells = []
        for district in ADMIN_PLACES:
            edgar, lucien = (
                any(cards.admin_district(a) == district for a in used & set(actions))
                for actions in (cards.EDGAR_ACTIONS, cards.LUCIEN_ACTIONS)
            )
            mark = ("E" if edgar else "") + ("L" if lucien else "")
            cells.append(Text(mark or "·", style="bold" if mark else "dim"))
        table.add_row(
            seat_text(view, seat, name=False),
            Text(player["name"], style=SEAT_STYLE[player["colour"]]),
            *where,
            turn_cell(view, seat),
            *cells,
            Text("©", style="bold") if player.get("certified_this_period") else Text("·", style="dim"),
        )
    return table


def election_text(view: dict[str, Any]) -> Text | None:
    """The Governor election under way: who is tied, the bid to beat, who dropped out."""
    bidding = view.get("bidding")
    if not bidding:
        return None
    text = Text("Election: ", style="bold")
    for k, seat in enumerate(bidding.get("tied") or []):
        text.append(", " if k else "")
        text.append_text(seat_text(view, seat))
    text.append(" tied · ")
    bid = bidding.get("bid") or 0
    if bid:
        text.append(f"top bid {cogs(bid)}", style="bold")
    else:
        text.append("no bid yet", style="dim")
    dropped = bidding.get("dropped") or []
    if dropped:
        text.append(" · out: ")
        text.append(", ".join(view["players"][s]["name"] for s in dropped))
    return text


def table_view(view: dict[str, Any], place: Fosko, wide: bool) -> Group:
    """Every public fact of the table but the map, in one screen: the standings (each
    condition's value, met or certified), the pawns and the turn, the administration actions
    used this period, the deck; the seat's own cards; an election under way."""
    needs = view.get("needs") or {}
    parts: list[Any] = [standings_table(view, wide)]
    # narrow, each line of the key fits the 50 columns of the pane
    key = Text(style="dim")
    key.append("Win with 3 of 4: " if wide else "Win with 3: ")
    key.append(
        f"Cogs ≥{cogs(needs.get('cogs', 150000))}, {'districts' if wide else 'Dist'} ≥{needs.get('districts', 7)}, "
        f"A ≥{needs.get('admin', 3)}, ★ Governor with Pop {needs.get('popularity', 100)}"
        if wide
        else f"Cogs ≥{cogs(needs.get('cogs', 150000))}, Dist ≥{needs.get('districts', 7)}, "
        f"A ≥{needs.get('admin', 3)}, ★ Pop {needs.get('popularity', 100)}"
    )
    key.append(
        f"\n✓ met  © certificate  ▶ first player  ★ Governor  {PADLOCKED} Heritage Protection"
        if wide
        else f"\n✓ met © certificate ▶ first ★ Governor {PADLOCKED} Heritage"
    )
    parts.append(key)
    parts.append(pawns_table(view, place, wide))
    used = Text(style="dim")
    used.append(
        "Used this period: E Edgar's, L Lucien's action · © a certificate taken"
        if wide
        else "Used this period: E Edgar, L Lucien · © certified"
    )
    parts.append(used)
    extra = Text()
    me = view.get("seat")
    for seat, player in enumerate(view["players"]):
        if player.get("cards") is not None and (player.get("cards") or seat == me):
            extra.append("\n" if extra else "")
            extra.append("Your cards: " if seat == me else f"{player['name']}'s cards: ", style="bold")
            extra.append(", ".join(card_title(c) for c in player["cards"]) or "none")
    election = election_text(view)
    if election is not None:
        extra.append("\n" if extra else "")
        extra.append_text(election)
    if view.get("reason"):
        extra.append("\n" if extra else "")
        extra.append(view["reason"], style="bold")
    if extra:
        parts.append(extra)
    return Group(*parts)


def me_text(view: dict[str, Any], wide: bool) -> Text | None:
    """The seat's own situation, kept in sight under the map whatever dialog is open:
    Cogs, popularity, who is Governor, Heritage Protection, certificates, cards."""
    me = view.get("seat")
    if not isinstance(me, int):
        return None
    player = view["players"][me]
    style = SEAT_STYLE[player["colour"]]
    text = seat_text(view, me)
    fortune = player.get("cogs")
    text.append(" · ")
    text.append(f"{fortune:,} Cogs" if wide and fortune is not None else f"{cogs(fortune)} Cogs", style="bold")
    text.append(" · ")
    text.append(f"popularity {player['popularity']}" if wide else f"Pop {player['popularity']}", style="bold")
    governor = view.get("governor")
    text.append(" · ")
    if governor == me:
        text.append("★ you are Governor" if wide else "★ Governor", style="bold #FFD75F")
    elif governor is None:
        text.append("no Governor", style="dim")
    else:
        text.append("Governor: ", style="dim")
        text.append(view["players"][governor]["name"], style=SEAT_STYLE[view["players"][governor]["colour"]])
    if view.get("heritage") == me:
        text.append(" · ")
        text.append(f"{PADLOCKED} Heritage Protection" if wide else f"{PADLOCKED} Heritage", style="bold")
    held = [c for c in CONDITIONS if (view.get("certificates") or {}).get(c) == me]
    text.append("\n")
    if held:
        text.append("© ", style="bold")
        names = CONDITION_NAME if wide else CONDITION_SHORT
        text.append(", ".join(names[c] for c in held), style=style)
        text.append(" certificate" + ("s" if len(held) > 1 else ""), style="dim")
    else:
        text.append("No certificate", style="dim")
    text.append(" · ")
    hand = player.get("cards") or []
    if hand:
        text.append("Your cards: " if wide else "Cards: ", style="bold")
        text.append(", ".join(card_title(c) for c in hand))
    else:
        text.append("No card", style="dim")
    return text


def _order(view: dict[str, Any]) -> list[int]:
    order = list(view.get("order") or [])
    return order + [s for s in range(len(view["players"])) if s not in order]


# -- what a command is, in words --------------------------------------------------


def head_of(command: Command) -> tuple[str, ...]:
    """Commands that share a head are offered together under one entry."""
    kind = command["t"]
    if kind == "PlayCard":
        return (kind, command["card"])
    if kind in ("EdgarAdmin", "LucienAdmin"):
        return (kind, command["action"])
    if kind in ("Place", "Requisition", "Surrender", "Bid"):
        return (kind,)
    return (kind, repr(sorted(command.items())))


def command_label(command: Command, view: dict[str, Any], place: Fosko, wide: bool = True) -> Text:
    """A legal command in words, with what it costs; the core decided it is legal.

    Narrow, the costs are abbreviated so that a line fits the dialog at 80 columns.
    """
    pop = "popularity" if wide else "pop."
    kind = command["t"]
    me = view.get("seat")
    player = view["players"][me] if isinstance(me, int) else None
    here = lambda pawn: player.get(pawn) if player else None  # noqa: E731
    if kind == "Place":
        return Text.assemble("Start on ", district_text(place, command["district"]))
    if kind == "Rob":
        return Text.assemble(
            ("Edgar: ", "bold"),
            "rob ",
            seat_text(view, command["victim"]),
            "'s Lucien",
            (" (half the fortune, rounded up)" if wide else " (half their Cogs)", "dim"),
        )
    if kind == "PlayCard":
        card = command["card"]
        text = Text.assemble(("Edgar: ", "bold"), "play " if wide else "", (card_title(card), "bold italic"))
        if "district" in command:
            text.append(" → Lucien to ")
            text.append_text(district_text(place, command["district"], short=not wide))
        if "certificate" in command:
            text.append(f" → {CONDITION_NAME[command['certificate']]} certificate")
        if "target" in command:
            text.append(" → from ")
            text.append_text(seat_text(view, command["target"]))
        if "action" in command:
            text.append(" → ")
            text.append_text(admin_label(command["action"], doubled=False))
        effect = cards.card(card).effect if card in ("trafficking", "discredit", "backer", "popular", "coup") else ""
        if effect and wide:  # narrow, one line a choice: the card's effect is in the rules (?)
            text.append(f"  ({effect})", style="dim")
        return text
    if kind == "EdgarAdmin":
        return Text.assemble(
            ("Edgar: ", "bold"), admin_label(command["action"], doubled=False), (f" · −20 {pop}", "dim")
        )
    if kind == "Buy":
        where = here("lucien")
        owner = (view.get("owners") or {}).get(where)
        # narrow, the district by its code on the map, so that the line fits
        text = Text.assemble(("Lucien: ", "bold"), "buy ", district_text(place, where, short=not wide))
        if owner is None:
            text.append(" · 20,000 to the bank", style="dim")
        elif wide:
            text.append(" from ")
            text.append_text(seat_text(view, owner))
            text.append(" · 30,000 to them", style="dim")
        else:
            text.append(" · 30,000 to ", style="dim")
            text.append_text(seat_text(view, owner))
        return text
    if kind == "LucienAdmin":
        action = command["action"]
        if not wide and action == "certificate":  # one line at 80 columns
            text = Text.assemble(
                ("Lucien: ", "bold"), (CERTIFICATE_NARROW[command["certificate"]], "bold"), " certificate"
            )
            holder = (view.get("certificates") or {}).get(command["certificate"])
            if holder is not None:
                text.append(", from ")
                text.append_text(seat_text(view, holder))
            return text
        if not wide and action == "support":
            text = Text.assemble(("Lucien+Edgar: ", "bold"), (cards.admin_name(command["edgar"]) + " ×2", "bold"))
            text.append(" · −30 pop." + (" (Remote)" if command.get("remote") else ""), style="dim")
            return text
        text = Text.assemble(("Lucien: ", "bold"), admin_label(action, doubled=False))
        if action == "certificate":
            text.append(f" → {CONDITION_NAME[command['certificate']]}")
            holder = (view.get("certificates") or {}).get(command["certificate"])
            if holder is not None:
                text.append(" (taken from ")
                text.append_text(seat_text(view, holder))
                text.append(")")
        elif action == "support":
            text.append(" + Edgar: ")
            text.append_text(admin_label(command["edgar"], doubled=True))
            text.append(f" · −30 {pop}" + (", plays Remote Action" if command.get("remote") else ""), style="dim")
        elif action == "speech":
            text.append(f" · +50 {pop}" + (", 100 at most" if wide else ""), style="dim")
        elif action == "heritage":
            holder = view.get("heritage")
            if holder is not None:
                text.append(" (taken from ")
                text.append_text(seat_text(view, holder))
                text.append(")")
        return text
    if kind == "Done":
        return Text("Done: end my actions for this turn", style="italic")
    if kind == "Requisition":
        owner = (view.get("owners") or {}).get(command["district"])
        text = Text.assemble("Requisition ", district_text(place, command["district"]))
        if owner is not None:
            text.append(" from ")
            text.append_text(seat_text(view, owner))
        return text
    if kind == "Intimidate":
        if "players" in command:
            return Text.assemble(
                "Intimidate ", seat_text(view, command["players"][0]), " and ", seat_text(view, command["players"][1])
            )
        owner = (view.get("owners") or {}).get(command["district"])
        return Text.assemble(
            "Make ", district_text(place, command["district"]), " neutral (", seat_text(view, owner), ")"
        )
    if kind == "Surrender":
        return Text.assemble("Give up ", district_text(place, command["district"]))
    if kind == "Yield":
        return Text("Lose 20 popularity" if command["pay"] == "popularity" else "Give 10,000 Cogs")
    if kind == "Bid":
        return Text(f"Bid {command['amount']:,} Cogs")
    if kind == "Drop":
        return Text("Drop out of the bidding", style="italic")
    return Text(" · ".join([str(kind)] + [f"{k}: {v}" for k, v in command.items() if k != "t"]))


def admin_label(action: str, doubled: bool) -> Text:
    words = cards.admin_name(action)
    if action == "heist":
        words += " (+100,000)" if doubled else " (+50,000)"
    elif action == "draw":
        words += " 4 cards" if doubled else " 2 cards"
    elif action == "requisition":
        words += " of 2 districts" if doubled else " of a district"
    elif action == "intimidate" and doubled:
        words += " twice"
    return Text(words, style="bold")


def head_label(head: tuple[str, ...], members: list[Command], view: dict[str, Any], place: Fosko, wide: bool) -> Text:
    kind = head[0]
    if kind == "PlayCard":
        text = Text.assemble(("Edgar: ", "bold"), "play " if wide else "", (card_title(head[1]), "bold italic"))
        if wide:
            text.append(f"  ({cards.card(head[1]).effect})", style="dim")
        return text
    if kind == "LucienAdmin":
        return Text.assemble(("Lucien: ", "bold"), admin_label(head[1], doubled=False), ("  …", "dim"))
    return command_label(members[0], view, place, wide)


# -- the board -----------------------------------------------------------------------


class EdgarLucienBoard(Board):
    """The map, the tally and popularity, a panel per player, and the dialog of the moment."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back"),
        Binding("d", "done", "Done"),
        # one key, shown as what it brings up: the table of every player, or the map again
        Binding("t", "pane('table')", "Table"),
        Binding("t", "pane('map')", "Map"),
    ]

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.legal: list[Command] = []
        #: programming: Edgar's move once chosen; actions: the head opened
        self.edgar_move: str | None = None
        self.opened: tuple[str, ...] | None = None
        self.listed: list[tuple[str, Any]] = []
        #: what the left pane shows: the map ("map") or the table of every player ("table")
        self.pane = "map"

    def compose(self) -> ComposeResult:
        with BoardScroll(id="el-scroll"):
            yield BoardPart("", id="el-tally")
            yield BoardPart("", id="el-map")
            yield BoardPart("", id="el-players")
            table = BoardPart("", id="el-table")
            table.display = False
            yield table
        yield BoardPart("", id="el-me")
        yield ChoiceList(id="el-choices")

    def pick(self) -> Any:
        if self.edgar_move is None and self.opened is None:
            return None
        return self.edgar_move, self.opened, list(self.legal)

    def resume_pick(self, pick: Any) -> None:
        edgar_move, opened, legal = pick
        if legal == self.legal and self.edgar_move is None and self.opened is None:  # the same choice
            self.edgar_move, self.opened = edgar_move, opened
            self.refresh_view()

    def draw(self, view: dict[str, Any], legal: list[Command] | None) -> None:
        if list(legal or []) != self.legal:  # a new choice: start from the top of the dialog
            self.edgar_move = None
            self.opened = None
        self.shown = (view, legal)
        self.view = view
        self.legal = list(legal or [])
        place = fosko.SIDES[view["side"]]
        wide = self.screen.has_class("-wide")
        self.paint_pane(view, place, wide)
        mine = me_text(view, wide)
        panel = self.query_one("#el-me", Static)
        # the table has the seat's own row and cards: the line under it would say them twice
        panel.display = mine is not None and self.pane == "map"
        self.paint("#el-me", mine or "")
        self.fill_choices(view, place)
        self.fit_choices(view, place, wide, mine)

    def paint_pane(self, view: dict[str, Any], place: Fosko, wide: bool) -> None:
        """The left pane as chosen: the map (with, below it, what scrolls), or the table."""
        on_map = self.pane == "map"
        for selector in ("#el-map", "#el-players"):
            self.query_one(selector, Static).display = on_map
        self.query_one("#el-table", Static).display = not on_map
        track = popularity_track(view)
        if not on_map:  # the tally and the popularity track head the table
            self.paint("#el-tally", Group(tally(view), track), same_as=(wide, view, "table"))
            self.paint("#el-table", table_view(view, place, wide), same_as=(wide, view))
            return
        # Narrow, the tally is one line and the popularity track goes under the map, so that
        # at 80x24 the whole map, the seat's own panel and the dialog fit together.
        self.paint("#el-tally", Group(tally(view), track) if wide else tally(view), same_as=(wide, view))
        city = map_text(place, view, wide)
        self.paint("#el-map", city if wide else Group(city, track), same_as=(wide, view))
        # the goals first: who is near victory matters more than where the pawns stand
        parts: list[Any] = [goals_table(view, wide), players_table(view, place, wide)]
        me = view.get("seat")
        extra = Text()
        for seat, player in enumerate(view["players"]):
            if player.get("cards") and seat != me:  # the seat's own cards are in its panel
                extra.append("\n" if extra else "")
                extra.append(f"{player['name']}'s cards: ", style="bold")
                extra.append(", ".join(card_title(c) for c in player["cards"]))
        if isinstance(me, int) and view["players"][me].get("used"):
            extra.append("\n" if extra else "")
            extra.append("Used this period: ", style="dim")
            extra.append(
                ", ".join(cards.admin_name(a) for a in ADMIN_ORDER if a in view["players"][me]["used"]), style="dim"
            )
        if view.get("reason"):
            extra.append("\n" if extra else "")
            extra.append(view["reason"], style="bold")
        if extra:
            parts.append(extra)
        parts.append(legend(wide))
        self.paint("#el-players", Group(*parts), same_as=(wide, view))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "pane":  # the key offers the pane not shown
            return bool(parameters) and parameters[0] != self.pane
        if action == "back":  # offered while a choice is half made (Lucien's order after Edgar's)
            return self.edgar_move is not None or self.opened is not None
        if action == "done":  # offered where a move may end with it (the footer shows it then only)
            return any(c["t"] in ("Done", "Drop") for c in self.legal or ())
        return True

    def action_pane(self, pane: str) -> None:
        """Show the map or the table of every player. Only the left pane changes: the
        dialog keeps its choices, its step and its highlighted line."""
        if pane == self.pane or self.shown is None:
            return
        self.pane = pane
        view = self.view
        assert view is not None
        place = fosko.SIDES[view["side"]]
        wide = self.screen.has_class("-wide")
        self.paint_pane(view, place, wide)
        mine = me_text(view, wide)
        self.query_one("#el-me", Static).display = mine is not None and pane == "map"
        self.query_one("#el-scroll", VerticalScroll).scroll_home(animate=False)
        self.fit_choices(view, place, wide, mine)
        self.refresh_bindings()

    def fit_choices(self, view: dict[str, Any], place: Fosko, wide: bool, mine: Text | None) -> None:
        """As many lines of choices as leave in sight the tally, the whole map and (where
        there is room) the goals, or the whole table: never fewer than three choices, never
        more than twelve."""
        height = self.size.height or max(0, self.app.size.height - 2)
        width = self.size.width or 50
        if self.pane == "table":
            console = self.app.console
            table = Group(tally(view), popularity_track(view), table_view(view, place, wide))
            keep = len(console.render_lines(table, console.options.update_width(max(1, width - 1)), pad=False))
            self.query_one("#el-choices", OptionList).styles.max_height = max(5, min(14, height - keep))
            return
        panel = len(mine.wrap(self.app.console, width)) if mine is not None else 0
        rows = place.rows * (4 if wide else 3) + 1  # each row of squares and the line above it
        keep = rows + (2 if wide else 1)
        if self.screen.has_class("-tall"):
            keep += 1 + len(view["players"])  # the goals table
        self.query_one("#el-choices", OptionList).styles.max_height = max(5, min(14, height - panel - keep))

    # -- the dialog ---------------------------------------------------------------------

    def fill_choices(self, view: dict[str, Any], place: Fosko) -> None:
        options = self.query_one("#el-choices", ChoiceList)
        self.listed = []
        prompts: list[Any] = []
        heading = ""
        wide = self.screen.has_class("-wide")
        me = view.get("seat")
        player = view["players"][me] if isinstance(me, int) else None
        programs = [c for c in self.legal if c["t"] == "Program"]
        if programs and player is not None:
            if self.edgar_move is None:
                heading = "Program Edgar (E)"
                for move in dict.fromkeys(c["edgar"] for c in programs):
                    self.listed.append(("edgar", move))
                    prompts.append(move_text(place, player.get("edgar"), move))
            else:  # Edgar's move in sight while Lucien's is chosen (Esc goes back to it)
                heading = f"Program Lucien (L) · Edgar: {move_brief(place, player.get('edgar'), self.edgar_move)}"
                for command in programs:
                    if command["edgar"] == self.edgar_move:
                        self.listed.append(("command", command))
                        prompts.append(move_text(place, player.get("lucien"), command["lucien"]))
        elif self.legal:
            groups: dict[tuple[str, ...], list[Command]] = {}
            for command in self.legal:
                groups.setdefault(head_of(command), []).append(command)
            if self.opened is not None and self.opened in groups:
                heading = "Which one? · Esc: back"
                for command in groups[self.opened]:
                    self.listed.append(("command", command))
                    prompts.append(command_label(command, view, place, wide))
            else:
                self.opened = None
                heading = self.prompt(view)
                for head, members in groups.items():
                    if len(members) == 1 or head[0] in ("Place", "Requisition", "Surrender", "Bid"):
                        for command in members:
                            self.listed.append(("command", command))
                            prompts.append(command_label(command, view, place, wide))
                    else:
                        self.listed.append(("head", head))
                        prompts.append(head_label(head, members, view, place, wide))
        # narrow, a choice a line, its end cut visibly where it is longer; wide, whole
        options.styles.text_wrap = "wrap" if wide else "nowrap"
        options.styles.text_overflow = "ellipsis"
        # between two of the seat's choices (the others programming, say) the list waits, greyed
        if options.list_choices(prompts, heading, live=view.get("phase") != "over"):
            self.take_focus(options)

    def prompt(self, view: dict[str, Any]) -> str:
        ask = view.get("ask")
        if view.get("phase") == "ask" and ask:
            return PROMPTS.get(ask.get("kind", ""), "Your choice")
        if view.get("phase") == "act":
            return "Your actions (d: done)"
        return PROMPTS.get(view.get("phase", ""), "Your choice")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option_list.id != "el-choices":
            return
        event.stop()
        if event.option_index >= len(self.listed):
            return
        kind, what = self.listed[event.option_index]
        if kind == "edgar":
            self.edgar_move = what
            self.refresh_view()
        elif kind == "head":
            self.opened = what
            self.refresh_view()
        else:
            self.edgar_move = None
            self.opened = None
            self.post_message(Board.Chosen(what))

    def action_back(self) -> None:
        if self.edgar_move is None and self.opened is None:
            return
        # back a step, on the choice made there (Edgar's move, the action opened): to change it
        # or take it again, not from the top of the list
        made = ("edgar", self.edgar_move) if self.edgar_move is not None else ("head", self.opened)
        self.edgar_move = None
        self.opened = None
        self.refresh_view()
        if made in self.listed:
            self.query_one("#el-choices", ChoiceList).highlighted = self.listed.index(made)

    def action_done(self) -> None:
        done = next((c for c in self.legal if c["t"] in ("Done", "Drop")), None)
        if done is not None:
            self.post_message(Board.Chosen(done))
