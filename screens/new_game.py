"""The new-game dialog: game, seats (human or bot, name, options), seed, variants."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.cells import cell_len
from textual import events
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button, Input, Label, Select, Static

from core.engine import ConfigError, Game
from core.games import all_games
from table.spec import BOT, HUMAN, SeatSpec, TableSpec, usual_players
from tui.session import start_save
from tui.widgets import KeysFooter

DEFAULT_NAMES = ["Ada", "Bastien", "Chloé", "Denis", "Elsa"]
#: the columns a compact Select takes besides its value's text (its padding and its ▼)
GAME_SELECT_FRAME = 5


def who_choices(game: Game) -> list[tuple[str, str]]:
    return [("Human", "human")] + [(f"Bot: {level}", f"bot:{level}") for level in game.bot_levels]


class NewGameScreen(Screen):
    #: the seed is asked (a served table's is the server's to draw)
    ASK_SEED = True
    #: the columns the widest row needs on one line (a variant's label and its choice, a seat's
    #: name, who plays it and its option): under them, each row takes two lines (``fit``)
    NARROW = 66
    BINDINGS: ClassVar[list[BindingType]] = [
        ("escape", "app.pop_screen", "Back"),
        ("ctrl+s", "start", "Start"),
    ]

    def __init__(self, game_id: str | None = None) -> None:
        """``game_id``: the game chosen at first (the one last played, say), else the first."""
        super().__init__()
        self.games = all_games()
        self.game: Game = self.games.get(game_id or "") or next(iter(self.games.values()))
        self.players = usual_players(self.game)

    def player_choices(self) -> list[tuple[str, int]]:
        return [(str(n), n) for n in range(self.game.min_players, self.game.max_players + 1)]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="newgame"):
            yield Static("New game", classes="title")
            with Horizontal(classes="field"):
                yield Label("Game", classes="label")
                yield Select(
                    [(g.title, gid) for gid, g in self.games.items()],
                    value=self.game.id,
                    allow_blank=False,
                    compact=True,
                    id="game",
                )
            with Horizontal(classes="field"):
                yield Label("Players", classes="label")
                yield Select(self.player_choices(), value=self.players, allow_blank=False, compact=True, id="players")
            yield Vertical(id="seats")
            yield Vertical(id="variants")
            # what the variant being chosen means: shown while one has the keys
            variant_help = Static("", id="variant-help", markup=False)
            variant_help.display = False
            variant_help.styles.margin = (0, 0, 1, 0)
            yield variant_help
            if self.ASK_SEED:
                with Horizontal(classes="field"):
                    yield Label("Seed", classes="label")
                    yield Input(placeholder="random", id="seed", type="integer", compact=True)
            yield Button("Start  (ctrl+s)", id="start", variant="primary", compact=True)
        yield KeysFooter()

    async def on_mount(self) -> None:
        # what the menu said of the game left ("Saved: ... Continue it from the menu") is not
        # about this form, nor about the game it starts: not carried over it to the new table
        self.app.clear_notifications()
        game = self.query_one("#game", Select)
        # as wide as the longest title, with room for the arrow: every title shown whole
        game.styles.width = max(cell_len(g.title) for g in self.games.values()) + GAME_SELECT_FRAME
        await self.rebuild(players_too=True)
        game.focus()

    async def rebuild(self, players_too: bool = False) -> None:
        game = self.game
        if players_too:
            players = self.query_one("#players", Select)
            players.set_options(self.player_choices())
            self.players = max(game.min_players, min(self.players, game.max_players))
            players.value = self.players
            variants = self.query_one("#variants", Vertical)
            await variants.remove_children()
            for v in game.variants:
                if not v.listed:
                    continue
                await variants.mount(
                    Horizontal(
                        Label(v.label, classes="label variant"),
                        Select(
                            [(c, c) for c in v.choices],
                            value=v.default,
                            allow_blank=False,
                            compact=True,
                            id=f"variant-{v.key}",
                        ),
                        classes="field",
                        id=f"variant-row-{v.key}",
                    )
                )
        for v in game.variants:  # a choice that changes nothing for this many players is not offered
            if v.listed:
                self.query_one(f"#variant-row-{v.key}").display = v.offered(self.players)
        seats = self.query_one("#seats", Vertical)
        await seats.remove_children()
        for i in range(self.players):
            row = [Label(f"Seat {i + 1}", classes="label"), *self.seat_widgets(i)]
            for opt in game.seat_options:
                default = opt.choices[i % len(opt.choices)]
                row.append(
                    Select(
                        [(opt.label_of(c), c) for c in opt.choices],
                        value=default,
                        allow_blank=False,
                        compact=True,
                        id=f"opt-{opt.key}-{i}",
                        classes="opt",
                    )
                )
            await seats.mount(Horizontal(*row, classes="field seat"))
        self.fit()

    def fit(self) -> None:
        """The choices' rows close up (no blank line between them) where the form is taller
        than the screen with them apart: at 80x24, five seats put Start below the screen.
        Narrower than a row of choices (``NARROW``), each row is put on two lines, its label
        over its choices, so that none is cut off at the right."""
        self.set_class(self.app.size.width < self.NARROW, "-narrow")
        self.remove_class("-tight")
        self.call_after_refresh(self.tighten)

    def tighten(self) -> None:
        if self.is_attached and self.query_one("#newgame", VerticalScroll).max_scroll_y > 0:
            self.add_class("-tight")

    def on_resize(self, event: events.Resize) -> None:
        self.fit()

    def seat_widgets(self, i: int) -> list[Widget]:
        """Seat ``i``'s name and who plays it."""
        game = self.game
        return [
            Input(DEFAULT_NAMES[i % len(DEFAULT_NAMES)], id=f"name-{i}", classes="name", compact=True),
            Select(
                who_choices(game),
                value="human" if i == 0 else f"bot:{game.default_bot_level}",
                allow_blank=False,
                compact=True,
                id=f"who-{i}",
                classes="who",
            ),
        ]

    def seat_choices(self, i: int) -> dict[str, Any]:
        """Seat ``i``'s options as chosen (the agent, the side)."""
        return {opt.key: self.query_one(f"#opt-{opt.key}-{i}", Select).value for opt in self.game.seat_options}

    def chosen_variants(self) -> dict[str, str]:
        return {
            v.key: str(self.query_one(f"#variant-{v.key}", Select).value) if v.offered(self.players) else v.default
            for v in self.game.variants
            if v.listed
        }

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """While a variant's choice has the keys, what its choices mean is written under the
        variants (why a variant is there, or what it keeps from the rulebook)."""
        variant = None
        for node in event.widget.ancestors_with_self:
            if isinstance(node, Select) and (node.id or "").startswith("variant-"):
                variant = next((v for v in self.game.variants if f"variant-{v.key}" == node.id), None)
                break
        line = self.query_one("#variant-help", Static)
        line.update(f"{variant.label}: {variant.help}" if variant is not None and variant.help else "")
        line.display = variant is not None and bool(variant.help)

    async def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "game" and event.value != self.game.id:
            self.game = self.games[str(event.value)]
            await self.rebuild(players_too=True)
        elif event.select.id == "players" and event.value != self.players and isinstance(event.value, int):
            self.players = event.value
            await self.rebuild()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "start":
            self.action_start()

    def action_start(self) -> None:
        game = self.game
        seats = []
        for i in range(self.players):
            name = self.query_one(f"#name-{i}", Input).value.strip() or f"Player {i + 1}"
            who = str(self.query_one(f"#who-{i}", Select).value)
            kind, level = (BOT, who[4:]) if who.startswith("bot:") else (HUMAN, None)
            seats.append(SeatSpec(kind, level, name, self.seat_choices(i)))
        variants = self.chosen_variants()
        seed_text = self.query_one("#seed", Input).value.strip()
        try:
            seed = int(seed_text) if seed_text else None
        except ValueError:
            self.notify("The seed must be a whole number.", severity="error")
            return
        try:
            match = TableSpec(game.id, self.players, seats, variants, seed).build()
        except ConfigError as exc:
            self.notify(str(exc), severity="error")
            return
        try:
            writer = start_save(self.app.save_dir, match)
        except OSError as exc:
            self.notify(f"Could not create a save in {self.app.save_dir}: {exc.strerror or exc}.", severity="error")
            return
        self.app.pop_screen()
        self.app.open_game(writer)
