"""Every text on every screen is readable: at least 4.5:1 contrast (WCAG 2, 1.4.3) between a
cell's foreground and background, as a terminal shows them, in every colour mode Cabinet meets:
full colour (truecolor and 256 colours), 16 colours, and ``NO_COLOR`` in each of these.

Measured from the rendered colours.  How Textual 8.2 gets colours to a terminal
(``textual/app.py``, ``textual/filter.py``, ``textual/strip.py``):

- Every widget's lines pass the app's line filters.  ``ANSIToTruecolor`` (on unless the theme
  is an ANSI one) turns the 16 ANSI colours ("red", "magenta") into the RGB of the app's ANSI
  theme (``App.ansi_theme``: Monokai under a dark theme), and a ``dim`` style into a colour
  blended towards the background.  With ``NO_COLOR`` set when the app is made, ``Monochrome``
  follows: every colour becomes the grey of its luminance (``Color.monochrome``).
- The filtered strips are written by ``Strip.render``, which downgrades each colour to the
  console's colour system (``TEXTUAL_COLOR_SYSTEM``, else Rich's reading of ``COLORTERM`` and
  ``TERM``): truecolor as it is; 256 colours to the nearest entry of the cube or the grey ramp;
  16 colours to the nearest of Rich's standard palette, which the terminal shows in its own
  ANSI palette (taken here to be the app's ANSI theme).

So one render of a screen, with or without ``NO_COLOR``, gives its colours in every colour
system: ``Color.downgrade(system).get_truecolor(app.ansi_theme)`` is what the terminal shows.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import pytest
from rich.cells import cell_len
from rich.color import Color, ColorSystem
from rich.segment import Segment
from rich.terminal_theme import TerminalTheme
from rich.text import Text
from textual.app import App
from textual.pilot import Pilot
from textual.screen import ModalScreen
from textual.widgets import Static

from core.bots import make_bot
from core.games import get_game
from core.games.chirac_mitterrand import cards as CM
from saves import load
from screens.app import CabinetApp
from screens.join import JoinScreen
from screens.new_game import NewGameScreen
from screens.save_list import SaveListScreen
from table import Table
from tests.tui_helpers import NAMES, agent_jean_match, app_for, play_app, settle
from tui.session import new_match, start_save
from tui.start import Start
from tui.widgets import ScoreSheetDialog

#: the colour systems a terminal may have
SYSTEMS = {"truecolor": ColorSystem.TRUECOLOR, "256": ColorSystem.EIGHT_BIT, "16": ColorSystem.STANDARD}

#: WCAG 2, 1.4.3: the contrast of text against its background
MINIMUM = 4.5

#: drawing characters (box drawing, block elements: borders, rules, scrollbars), not text
GRAPHICS = range(0x2500, 0x25A0)

RGB = tuple[int, int, int]


def luminance(rgb: RGB) -> float:
    """WCAG 2 relative luminance of an sRGB colour."""

    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = rgb
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(one: RGB, other: RGB) -> float:
    high, low = sorted((luminance(one), luminance(other)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def shown(color: Color | None, system: ColorSystem, theme: TerminalTheme, foreground: bool) -> RGB:
    """The RGB a terminal of ``system`` shows for ``color`` (None: the terminal's default)."""
    r, g, b = (color or Color.default()).downgrade(system).get_truecolor(theme, foreground=foreground)
    return r, g, b


def is_text(char: str) -> bool:
    return not char.isspace() and ord(char) not in GRAPHICS


@dataclass(frozen=True)
class Run:
    """A run of text drawn in one style, as a terminal of one colour system shows it."""

    row: int
    column: int
    text: str
    fg: RGB
    bg: RGB

    @property
    def contrast(self) -> float:
        return contrast(self.fg, self.bg)

    def __str__(self) -> str:
        fg, bg = ("#{:02x}{:02x}{:02x}".format(*rgb) for rgb in (self.fg, self.bg))
        return f"{self.text!r} (row {self.row}, column {self.column}): {fg} on {bg}, {self.contrast:.2f}:1"


def rendered_lines(app: App) -> list[list[Segment]]:
    """The top screen as the terminal is sent it, line by line, any screen below a modal one
    showing through (as ``App.export_screenshot`` renders it)."""
    update = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)
    return [[segment for strip in line for segment in strip] for line in update.strips]  # type: ignore[union-attr]


def veiled(app: App) -> Callable[[int, int], bool]:
    """Whether the cell at (row, column) is of a screen below a modal one: the table set aside
    behind the veil of a dialog (``background: $background 70%``), there to be recognised, not
    read, while the dialog asks.  Not measured; the dialog's own text is."""
    if not isinstance(app.screen, ModalScreen):
        return lambda row, column: False
    regions = [
        geometry.region.intersection(geometry.clip)
        for widget, geometry in app.screen._compositor.full_map.items()
        if widget is not app.screen
    ]
    return lambda row, column: not any(region.contains(column, row) for region in regions)


def runs(app: App, system: ColorSystem) -> Iterable[Run]:
    """Every run of text on the top screen, in the colours a terminal of ``system`` shows."""
    theme = app.ansi_theme
    behind = veiled(app)
    for row, line in enumerate(rendered_lines(app)):
        column = 0
        for text, style, control in line:
            if control:
                continue
            if style is not None and any(map(is_text, text)) and not behind(row, column):
                fg = shown(style.color, system, theme, foreground=True)
                bg = shown(style.bgcolor, system, theme, foreground=False)
                if style.reverse:
                    fg, bg = bg, fg
                if style.dim:  # a dim the filters left to the terminal, which halves it
                    fg = ((fg[0] + bg[0]) // 2, (fg[1] + bg[1]) // 2, (fg[2] + bg[2]) // 2)
                words = "".join(c if is_text(c) else " " for c in text).strip()
                yield Run(row, column + cell_len(text) - cell_len(text.lstrip()), words, fg, bg)
            column += cell_len(text)


def too_faint(app: App, system: ColorSystem) -> list[Run]:
    """The runs of text below ``MINIMUM`` on the top screen, one of each text and colours."""
    seen: dict[tuple[str, RGB, RGB], Run] = {}
    for run in runs(app, system):
        if run.contrast < MINIMUM:
            seen.setdefault((run.text, run.fg, run.bg), run)
    return sorted(seen.values(), key=lambda r: r.contrast)


# -- the screens -------------------------------------------------------------------------------

Scene = Callable[[Path], tuple[App, Callable[[Pilot], Awaitable[None]]]]
SCENES: dict[str, Scene] = {}


def scene(name: str) -> Callable[[Scene], Scene]:
    def register(make: Scene) -> Scene:
        SCENES[name] = make
        return make

    return register


async def still(pilot: Pilot) -> None:
    await settle(pilot)


def menu_app(tmp_path: Path) -> CabinetApp:
    return CabinetApp(save_dir=tmp_path)


@scene("menu, with a notification of each kind")
def _menu(tmp_path: Path):
    async def before(pilot: Pilot) -> None:
        await pilot.pause()
        for severity in ("information", "warning", "error"):
            pilot.app.notify(f"A notification: {severity}.", title=severity.capitalize(), severity=severity)
        await pilot.pause()

    return menu_app(tmp_path), before


@scene("new game")
def _new_game(tmp_path: Path):
    async def before(pilot: Pilot) -> None:
        await pilot.pause()
        pilot.app.push_screen(NewGameScreen())
        await pilot.pause()

    return menu_app(tmp_path), before


def some_saves(save_dir: Path) -> None:
    """Saves to list: a game in play, a finished one."""
    for players, finish in ((3, False), (2, True)):
        match = agent_jean_match(humans=1, players=players, seed=3)
        writer = start_save(save_dir, match, durable=False)
        if finish:
            Table(match, writer).play_out()
        writer.close()


def save_list(mode: str) -> Scene:
    def make(tmp_path: Path):
        some_saves(tmp_path)

        async def before(pilot: Pilot) -> None:
            await pilot.pause()
            pilot.app.push_screen(SaveListScreen(mode=mode))
            await pilot.pause()

        return menu_app(tmp_path), before

    return make


scene("load list")(save_list("load"))
scene("replay list")(save_list("replay"))


@scene("join")
def _join(tmp_path: Path):
    async def before(pilot: Pilot) -> None:
        await pilot.pause()
        pilot.app.push_screen(JoinScreen())
        await pilot.pause()

    return menu_app(tmp_path), before


def rules(game_id: str) -> Scene:
    def make(tmp_path: Path):
        async def before(pilot: Pilot) -> None:
            await pilot.pause()
            pilot.app.open_rules(game_id)
            await pilot.pause()

        return menu_app(tmp_path), before

    return make


for _game in ("agent-jean", "chirac-mitterrand", "edgar-lucien", "ministeres"):
    scene(f"rules of {_game}")(rules(_game))


def bots_play(match, moves: int, seats: Iterable[int] | None = None, bot_seed: int = 100):
    """``match`` after ``moves`` commands chosen by easy bots (for ``seats``: every seat)."""
    game = match.game
    players = match.header["players"]
    bots = {seat: make_bot(game, "easy", bot_seed + seat) for seat in range(players)}
    for _ in range(moves):
        active = match.active()
        if not active or (seats is not None and active[0] not in seats):
            break
        match.submit(active[0], Table(match).bot_move(active[0], bots[active[0]]))
    return match


def seated(game_id: str, players: int, humans: int = 1, seed: int = 3, **extra):
    controllers = [{"kind": "human"}] * humans + [{"kind": "bot", "level": "easy"}] * (players - humans)
    seats = [{"name": n} for n in NAMES[:players]]
    return new_match(get_game(game_id), players, seats, controllers, seed=seed, bot_seed=seed, **extra)


def at_table(match) -> Scene:
    def make(tmp_path: Path):
        return app_for(tmp_path, start_save(tmp_path, match)), still

    return make


@scene("L'Agent Jean!, 5 players, cards of every colour, news in the history")
def _agent_jean(tmp_path: Path):
    return play_app(tmp_path, humans=1, players=5, seed=3), still


@scene("Edgar & Lucien, 4 players, districts of every owner")
def _edgar_lucien(tmp_path: Path):
    return at_table(bots_play(seated("edgar-lucien", 4, seed=13), 40))(tmp_path)


@scene("Edgar & Lucien, 4 players, an action to choose")
def _edgar_lucien_acting(tmp_path: Path):
    return at_table(bots_play(seated("edgar-lucien", 4, seed=2), 27, bot_seed=200))(tmp_path)


def cm_match(stack: dict | None = None, **variants: str):
    seats = [{"name": "Jacques", "candidate": "chirac"}, {"name": "François", "candidate": "mitterrand"}]
    controllers = [{"kind": "human"}, {"kind": "bot", "level": "easy"}]
    extra = {"arranged": stack} if stack else {}
    return new_match(
        get_game("chirac-mitterrand"), 2, seats, controllers, seed=21, bot_seed=21, variants=variants, **extra
    )


def erosion(match, turns: int):
    """Both candidates play their own actions for ``turns`` turns: their piles wear out."""
    game = match.game
    for _ in range(turns):
        (seat,) = match.active()
        view = game.view(match.state, seat)
        if view["phase"] != "play":
            break
        own = "blue" if view["you"] == "chirac" else "pink"
        legal = game.legal(match.state, seat)
        mine = [c for c in legal if "action" in c and CM.actions(c["card"])[c["action"]].colour == own]
        match.submit(seat, (mine or legal)[0])
    return match


@scene("1988, an action to choose, piles worn out")
def _chirac_mitterrand(tmp_path: Path):
    async def before(pilot: Pilot) -> None:
        await settle(pilot)
        await pilot.press("1")
        await pilot.pause()

    app, _ = at_table(erosion(cm_match(), 8))(tmp_path)
    return app, before


@scene("1988, the campaign draw")
def _campaign(tmp_path: Path):
    rest = [c for c in CM.EVENT_IDS if c not in ("ev:01", "ev:02")]
    stack = {
        "chirac": ["ev:01"] + rest[:2] + ["ev:02"] + rest[2:8],
        "mitterrand": rest[8:18],
        "discard": rest[18:],
        "campaign": [["cp:05", "cp:09", "cp:02"]],
    }
    seats = [{"name": "François", "candidate": "mitterrand"}, {"name": "Jacques", "candidate": "chirac"}]
    controllers = [{"kind": "human"}, {"kind": "bot", "level": "easy"}]
    match = new_match(get_game("chirac-mitterrand"), 2, seats, controllers, seed=3, bot_seed=3, arranged=stack)
    game = match.game
    while game.view(match.state, 0)["phase"] != "campaign":  # Chirac wears his pile out with his own actions
        (seat,) = match.active()
        own = "blue" if game.view(match.state, seat)["you"] == "chirac" else "white"
        legal = game.legal(match.state, seat)
        match.submit(seat, next(c for c in legal if CM.actions(c["card"])[c["action"]].colour == own))
    return at_table(match)(tmp_path)


def ministeres(players: int, seed: int, stop) -> Scene:
    """Ministères played with seeded random commands until ``stop(state)`` holds with Ada to move."""

    def make(tmp_path: Path):
        match = seated("ministeres", players, seed=seed)
        rng = random.Random(seed)
        game = match.game
        while not (match.active() == (0,) and stop(match.state)):
            (seat,) = match.active()
            legal = game.legal(match.state, seat)
            if match.state.phase == "auction":
                match.submit(seat, legal[-1] if rng.random() < 0.5 else legal[0])
            else:
                match.submit(seat, rng.choice(legal))
        return at_table(match)(tmp_path)

    return make


scene("Ministères, 5 players, a drawn card to place")(
    ministeres(5, 2, lambda s: s.phase == "gifts" and s.deal > 5 and s.limits == (1, 4, 1))
)
scene("Ministères, 3 players, a bid to make")(
    ministeres(3, 4, lambda s: s.phase == "auction" and s.bidder is not None and s.passed and s.auction_no > 3)
)


@scene("the curtain between two players")
def _curtain(tmp_path: Path):
    return play_app(tmp_path, humans=2, players=2, seed=5), still


def finished(tmp_path: Path, players: int = 3):
    match = agent_jean_match(humans=1, players=players, seed=3)
    writer = start_save(tmp_path, match, durable=False)
    Table(match, writer).play_out()
    writer.close()
    return match, writer.path


@scene("game over")
def _game_over(tmp_path: Path):
    match, _ = finished(tmp_path)
    return at_table(match)(tmp_path)


@scene("a round's score sheet")
def _score_sheet(tmp_path: Path):
    async def before(pilot: Pilot) -> None:
        await settle(pilot)
        await pilot.press("enter")  # the game over dialog goes: the table, and its last sheet
        screen = pilot.app.screen
        pilot.app.push_screen(ScoreSheetDialog(screen.score_sheet(), screen.knows.names()))
        await pilot.pause()

    match, _ = finished(tmp_path)
    return at_table(match)(tmp_path)[0], before


def replay(keys: tuple[str, ...]) -> Scene:
    def make(tmp_path: Path):
        _, path = finished(tmp_path)

        async def before(pilot: Pilot) -> None:
            await pilot.pause()
            pilot.app.open_replay(load(path).match, path, at=40)
            await pilot.pause()
            await pilot.press(*keys)
            await pilot.pause()

        return menu_app(tmp_path), before

    return make


scene("a replay, its history browsed")(replay(("h", "up", "up")))
scene("a replay, going to a move")(replay(("g", "1")))


def analysed(keys: tuple[str, ...], at: int) -> Scene:
    """A replay with its analysis (made by hand, kept beside the save), after ``keys``."""

    def make(tmp_path: Path):
        from saves.analyses import keep_analysis
        from tests.test_replay_analysis import by_hand

        match, path = finished(tmp_path)
        keep_analysis(path, match, by_hand(match))

        async def before(pilot: Pilot) -> None:
            await pilot.pause()
            pilot.app.open_replay(load(path).match, path, at=at)
            await pilot.pause()
            await pilot.press(*keys)
            await pilot.pause()

        return menu_app(tmp_path), before

    return make


scene("a replay, its analysis's chart")(analysed(("a",), 5))
scene("a replay, its analysis's scores")(analysed(("a", "a"), 30))
scene("a replay, the history's marks and what was better")(analysed(("a", "a", "a"), 9))


@scene("a terminal too small")
def _too_small(tmp_path: Path):
    async def before(pilot: Pilot) -> None:
        await settle(pilot)
        await pilot.resize_terminal(60, 20)
        await pilot.pause()

    return play_app(tmp_path, humans=1, players=2, seed=9), before


class Hall:
    """A served session's hall, as the lobby reads it: who, and the tables."""

    user = "ann"

    def __init__(self) -> None:
        bot = {"kind": "bot", "name": "Bot", "level": "easy"}
        ann, bea = {"kind": "human", "user": "ann", "name": "ann"}, {"kind": "human", "user": "bea", "name": "bea"}
        self.tables = [
            {
                "id": "t1",
                "game": "agent-jean",
                "title": "L'Agent Jean!",
                "state": "playing",
                "seats": [ann, bot],
                "active": [0],
                "moves": 4,
                "updated": 3,
            },
            {
                "id": "t2",
                "game": "ministeres",
                "title": "Ministères",
                "state": "waiting",
                "seats": [bea, {"kind": "human"}, bot],
                "updated": 2,
            },
            {
                "id": "t3",
                "game": "edgar-lucien",
                "title": "Edgar & Lucien",
                "state": "finished",
                "seats": [ann, bea],
                "outcome": "bea wins",
                "updated": 1,
            },
        ]

    async def connect(self) -> None:
        return None

    async def listen(self, listed, gone) -> None:
        listed()


@scene("the lobby of a served session")
def _lobby(tmp_path: Path):
    async def before(pilot: Pilot) -> None:
        await pilot.pause()
        await pilot.pause()

    return CabinetApp(tmp_path, Start(mode="lobby", remote=Hall())), before


# -- the tests ---------------------------------------------------------------------------------


@pytest.mark.parametrize("colours", ["colour", "NO_COLOR"])
@pytest.mark.parametrize("name", list(SCENES))
def test_every_text_keeps_its_contrast_in_every_colour_mode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, colours: str
) -> None:
    if colours == "NO_COLOR":
        monkeypatch.setenv("NO_COLOR", "1")
    else:
        monkeypatch.delenv("NO_COLOR", raising=False)
    app, before = SCENES[name](tmp_path)

    async def measure() -> dict[str, list[Run]]:
        async with app.run_test(size=(80, 24)) as pilot:
            await before(pilot)
            assert any(run.text for run in runs(app, ColorSystem.TRUECOLOR)), "nothing was drawn"
            return {system: too_faint(app, SYSTEMS[system]) for system in SYSTEMS}

    faint = asyncio.run(measure())
    said = [f"{system} colours: {run}" for system, found in faint.items() for run in found]
    assert not said, f"{name} ({colours}): text below {MINIMUM}:1\n" + "\n".join(said)


class Sample(App[None]):
    """One line in a colour of the boards before this test (L'Agent Jean!'s purple cards)."""

    def compose(self):
        yield Static(Text.assemble(("P4", "bold magenta"), " ", ("Y9", "bold #FFD75F")))


@pytest.mark.parametrize(
    ("colours", "system", "shown"),
    [
        ("colour", "truecolor", "#f4005f on #121212"),  # magenta is Monokai's crimson
        ("colour", "16", "#f4005f on #1a1a1a"),
        ("NO_COLOR", "256", "#3a3a3a on #121212"),  # grey 237 on 233, as seen in a terminal
    ],
)
def test_the_measure_sees_a_colour_as_the_terminal_shows_it(
    monkeypatch: pytest.MonkeyPatch, colours: str, system: str, shown: str
) -> None:
    if colours == "NO_COLOR":
        monkeypatch.setenv("NO_COLOR", "1")
    else:
        monkeypatch.delenv("NO_COLOR", raising=False)

    async def measure() -> list[Run]:
        app = Sample()
        async with app.run_test(size=(20, 3)) as pilot:
            await pilot.pause()
            return too_faint(app, SYSTEMS[system])

    faint = asyncio.run(measure())
    assert [run.text for run in faint] == ["P4"]  # and Y9, in the new yellow, reads in every mode
    assert str(faint[0]).endswith(f"{shown}, {faint[0].contrast:.2f}:1") and faint[0].contrast < MINIMUM


def test_the_luminance_ratio_is_wcags() -> None:
    assert contrast((0, 0, 0), (255, 255, 255)) == pytest.approx(21)
    assert contrast((118, 118, 118), (255, 255, 255)) == pytest.approx(
        4.54, abs=0.01
    )  # #767676: the lightest grey on white that passes
    assert contrast((18, 18, 18), (18, 18, 18)) == 1


# -- snapshots: the boards whose colours changed, with and without colours -----------------------

SNAPSHOTS = [
    "L'Agent Jean!, 5 players, cards of every colour, news in the history",
    "Edgar & Lucien, 4 players, districts of every owner",
]


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
@pytest.mark.parametrize("colours", ["colour", "NO_COLOR"])
@pytest.mark.parametrize("name", SNAPSHOTS, ids=["agent-jean", "edgar-lucien"])
def test_snapshot_boards_in_colour_and_without(snap_compare, tmp_path: Path, monkeypatch, name, colours, size) -> None:
    if colours == "NO_COLOR":
        monkeypatch.setenv("NO_COLOR", "1")
    else:
        monkeypatch.delenv("NO_COLOR", raising=False)
    app, before = SCENES[name](tmp_path)
    assert snap_compare(app, terminal_size=size, run_before=before)
