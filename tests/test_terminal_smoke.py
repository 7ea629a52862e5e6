"""Smoke tests through a real terminal: ``cabinet`` in an 80x24 pseudo-terminal,
driven by the keys a player presses, read from the screen a player sees.

Before the app starts, the save directory holds a finished game of each of the
four games (played by random bots with ``cabinet simulate``) and one unfinished
game of L'Agent Jean! (started with ``cabinet play`` in a terminal, one move
played, then ``q``).  Each test walks one part of the menu and ends as a player
does, with Quit, which must end the program with status 0.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.terminal import CABINET, Terminal

pytestmark = pytest.mark.skipif(not CABINET.exists(), reason=f"no console script at {CABINET}")

MENU = ["New game", "Continue", "Load a game", "Replay a game", "Join a hosted game", "Rules", "Quit"]
MENU_SUBTITLE = "Games of politics and intrigue"

TITLES = {
    "agent-jean": "L'Agent Jean!",
    "chirac-mitterrand": "1988: Chirac contre Mitterrand",
    "edgar-lucien": "Edgar & Lucien",
    "ministeres": "Ministères",
}

#: how a player starts each game from the New game form and plays its first move.
#: index: the game's place in the Game list; shown: what the form shows once the game is chosen; move: the first move, as
#: (what the screen asks, the keys that answer); played: the history line it
#: leaves; bot: the level chosen for seat 2 (else the form's default bot).
#: Seed 4 gives Ada (seat 1) the first move in every game.
NEW_GAMES = [
    dict(
        game="agent-jean",
        index=0,
        shown="Young players",
        bot="random",
        move=[("Your hand", ["enter"])],
        played="Ada plays ",
    ),
    dict(
        game="chirac-mitterrand",
        index=1,
        shown="Jacques Chirac",
        # the order of the two cards slid under the opponent's pile is asked only where it matters
        move=[("Play which card?", ["1"]), ("which action?", ["enter"])],
        played="Chirac (Ada) plays",
    ),
    dict(
        game="edgar-lucien",
        index=2,
        shown="Fortunes",
        move=[("Where do Edgar and Lucien start?", ["enter"])],
        played="Ada places Edgar",
    ),
    dict(
        game="ministeres",
        index=3,
        shown="Bids beyond your gold",
        move=[("Place the card you drew", ["enter"])],
        played="Ada places ",
    ),
]
SEED = "4"


# -- the saves a player already has ---------------------------------------------


@pytest.fixture(scope="module")
def saves(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A save directory with a finished game of each game, then an unfinished one."""
    folder = tmp_path_factory.mktemp("saves")
    runs = [
        subprocess.Popen(
            [
                str(CABINET),
                "simulate",
                game,
                "--players",
                "2",
                "--games",
                "1",
                "--seed",
                str(seed),
                "--bot-level",
                "random",
                "--save-dir",
                str(folder),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for seed, game in enumerate(TITLES, start=3)
    ]
    for run in runs:
        out, _ = run.communicate(timeout=120)
        assert run.returncode == 0, f"{' '.join(run.args)} failed:\n{out}"
    assert len(list(folder.glob("*.cab"))) == 4, sorted(p.name for p in folder.iterdir())

    # An unfinished game: one move by keyboard, then q back to the menu, then Quit.
    with Terminal(["play", "agent-jean", "--bots", "2", "--bot-level", "random", "--seed", SEED], folder) as term:
        term.wait_line("L'Agent Jean!", "Player 1, your move.")
        term.wait_for("Your hand")
        term.press("enter")
        term.wait_for("Player 1 plays ")
        term.press("q")
        at_menu(term)
        quit_app(term)
    assert len(list(folder.glob("agent-jean-*.cab"))) == 2
    return folder


@pytest.fixture
def save_dir(saves: Path, tmp_path: Path) -> Path:
    """A copy of the prepared saves, for one test to change as it likes."""
    return Path(shutil.copytree(saves, tmp_path / "saves"))


@pytest.fixture
def cabinet(save_dir: Path):
    """``cabinet`` (the main menu) in an 80x24 terminal over ``save_dir``."""
    with Terminal([], save_dir) as term:
        at_menu(term)
        yield term


# -- what a player does over and over ---------------------------------------------


def at_menu(term: Terminal) -> None:
    term.wait_for(MENU_SUBTITLE)
    term.wait_for("Join a hosted game")


def choose(term: Terminal, option: str) -> None:
    """From the main menu, highlight ``option`` with the arrows and press Enter."""
    at_menu(term)
    term.press("home", *["down"] * MENU.index(option), "enter")


def quit_app(term: Terminal) -> None:
    """Quit from the main menu: the program ends with status 0."""
    choose(term, "Quit")
    status = term.wait_exit()
    assert status == 0, term.report(f"Quit ended the program with status {status}")


def status_line(term: Terminal) -> str:
    return term.lines()[0].strip()


# -- the walks ---------------------------------------------------------------------


def test_ctrl_q_at_a_table_ends_and_leaves_the_terminal_saying_where_the_game_is(tmp_path: Path) -> None:
    with Terminal(["play", "agent-jean", "--bots", "2", "--bot-level", "random", "--seed", SEED], tmp_path) as term:
        term.wait_line("L'Agent Jean!", "Player 1, your move.")
        term.press("ctrl+q")
        assert term.wait_exit() == 0
        (save,) = tmp_path.glob("agent-jean-*.cab")
        said = "".join(line.ljust(80) for line in term.lines())  # (the words wrap at 80 columns, anywhere)
        words = f"Your game is saved: cabinet load {save} takes it up again (or Continue in the menu)."
        assert words in said, term.report("the words")


def test_main_menu_shows_every_choice_and_quit_ends_with_status_0(cabinet: Terminal) -> None:
    cabinet.wait_for("C A B I N E T")
    for option in MENU:
        cabinet.wait_line("▊ " + option)
    for title in TITLES.values():
        cabinet.wait_for(title)
    cabinet.wait_line("q Quit", "palette")  # the footer
    quit_app(cabinet)


def test_new_game_of_each_game_from_the_form(tmp_path: Path) -> None:
    """An empty save directory: Continue says there is nothing; then a game of each
    game against a bot through the New game form, a move by keyboard in each,
    q back to the menu; then Continue resumes the last one."""
    folder = tmp_path / "fresh"
    with Terminal([], folder) as term:
        choose(term, "Continue")
        term.wait_for("no unfinished game to continue")
        last = NEW_GAMES[0]  # the form opens on the game last played: the first, before any
        for spec in NEW_GAMES:
            game, title = spec["game"], TITLES[spec["game"]]
            choose(term, "New game")
            term.wait_line("Seat 2", "Bastien")
            term.wait_for("Start  (ctrl+s)")
            term.wait_line("Game", TITLES[last["game"]][:19])
            if spec["index"] != last["index"]:
                term.press("enter")  # open the Game list, at the game shown
                term.wait_for("Ministères")
                step = spec["index"] - last["index"]
                term.press(*["down" if step > 0 else "up"] * abs(step), "enter")
                term.wait_line("Game", title[:19])
            last = spec
            if spec["shown"]:
                term.wait_for(spec["shown"])
            if "bot" in spec:
                term.tab_to(
                    lambda line, text: "Seat 2" in line and text.startswith(("Human", "Bot")), "seat 2's player"
                )
                term.press("enter")  # seat 2: Human or which bot
                term.wait_for("Bot: easy")
                term.press(*["up"] * 2, "enter")  # from the default, normal, up to random
                term.wait_line("Bastien", "Bot: " + spec["bot"])
                term.wait_gone("Bot: easy")
                term.tab_to(lambda line, text: line.strip().startswith("Seed"), "the Seed field")
            else:
                assert term.line_with("Bot: normal"), term.report("Seat 2 is not a bot by default")
                term.tab_to(lambda line, text: line.strip().startswith("Seed"), "the Seed field", key="shift+tab")
            term.type(SEED)
            term.wait_line("Seed", SEED)
            term.press("ctrl+s")
            line = term.wait_line(title, "You: Ada", "Ada, your move.")
            assert line.strip() == status_line(term), term.report("The status line is not at the top")
            for question, keys in spec["move"]:
                term.wait_for(question)
                term.press(*keys)
            # (a bot's move drawn at once after it may push the line out of the history's view)
            played = spec["played"]
            term.wait_until(lambda played=played: term.showed(played), f"the history to show {played!r}")
            term.press("q")
            at_menu(term)
            saved = list(folder.glob(f"{game}-*.cab"))
            assert len(saved) == 1, term.report(
                f"After a game of {title}, the saves are {sorted(p.name for p in folder.iterdir())}"
            )
        choose(term, "Continue")
        term.wait_line("Ministères", "You: Ada")
        term.wait_for("Ada places ")
        term.press("q")
        quit_app(term)


def test_continue_resumes_the_unfinished_game(cabinet: Terminal) -> None:
    choose(cabinet, "Continue")
    cabinet.wait_line("L'Agent Jean!", "You: Player 1")
    cabinet.wait_for("Player 1 plays ")  # the move played before, in the history
    cabinet.wait_line("L'Agent Jean!", "Player 1, your move.")
    cabinet.wait_for("Your hand")
    cabinet.press("q")
    quit_app(cabinet)


def test_save_lists_name_each_game_and_its_state(cabinet: Terminal) -> None:
    for option in ("Load a game", "Replay a game"):
        choose(cabinet, option)
        cabinet.wait_for(f"{option}   (Enter opens")
        cabinet.wait_for("Last played")
        for title in TITLES.values():
            # at 80 columns a long title may be cut, but never below a recognisable start
            assert cabinet.line_with(title[:12]), cabinet.report(f"The {option!r} list does not name {title!r}")
        # whose move it is in the unfinished game (worked out once the list is shown), who won the others
        cabinet.wait_for("Player 2* to play")
        assert cabinet.line_with("won by"), cabinet.report(
            f"The {option!r} list does not say who won the finished games"
        )
        assert cabinet.line_with("P1-random*"), cabinet.report(f"The {option!r} list does not name the bot seats")
        cabinet.press("escape")
        at_menu(cabinet)
    quit_app(cabinet)


def test_load_opens_the_board_of_an_unfinished_and_of_a_finished_game(cabinet: Terminal) -> None:
    choose(cabinet, "Load a game")
    cabinet.wait_for("Load a game   (Enter opens")
    cabinet.press("enter")  # the newest save: the unfinished game
    cabinet.wait_line("L'Agent Jean!", "You: Player 1")
    cabinet.wait_for("Your hand")
    cabinet.wait_for("Player 1 plays ")
    cabinet.press("q")
    at_menu(cabinet)

    choose(cabinet, "Load a game")
    cabinet.wait_for("Load a game   (Enter opens")
    cabinet.press("down", "enter")  # the next one: a finished game
    cabinet.wait_for("Game over")
    cabinet.wait_for("main menu")
    cabinet.press("enter")  # look at the table
    cabinet.wait_until(lambda: status_line(cabinet).count("Game over") == 1, "the status line to say Game over")
    assert any(title in status_line(cabinet) for title in TITLES.values()), cabinet.report(
        "No game's title on the status line"
    )
    cabinet.press("q")
    quit_app(cabinet)


MOVE = re.compile(r"move (\d+)/(\d+)")


def replay_position(term: Terminal) -> tuple[int, int]:
    found = MOVE.search(status_line(term))
    assert found, term.report("The replay's status line does not say which move it shows")
    return int(found.group(1)), int(found.group(2))


def wait_position(term: Terminal, position: int) -> None:
    term.wait_until(
        lambda: (MOVE.search(status_line(term)) or [None, None])[1] == str(position),
        f"the replay to show move {position}",
    )


def test_replay_steps_through_each_finished_game(cabinet: Terminal) -> None:
    """Each finished game opens at its end with everything revealed; in the first,
    → ← Home End step and jump; Esc (or q, the last time) goes back to the list."""
    choose(cabinet, "Replay a game")
    cabinet.wait_for("Replay a game   (Enter opens")
    seen, problems = [], []
    for row in range(1, 5):  # row 0 is the unfinished game; then the four finished ones
        cabinet.wait_for("Last played")
        cabinet.press("ctrl+home", *["down"] * row, "enter")
        cabinet.wait_until(lambda: status_line(cabinet).startswith("Replay · "), "the replay to open")
        cabinet.wait_for("History")
        status = status_line(cabinet)
        title = next((t for t in TITLES.values() if f"Replay · {t} · " in status), None)
        assert title, cabinet.report("The replay's status line names no game")
        seen.append(title)
        assert "everything revealed" in status, cabinet.report(
            "A finished game is not replayed with everything revealed"
        )
        cabinet.wait_until(
            lambda: "wins" in cabinet.screen_text() or "share" in cabinet.screen_text(),
            "the end of the replay to say who won",
        )
        now, last = replay_position(cabinet)
        assert now == last > 1, cabinet.report("A replay does not open at the end of the game")
        if row == 1:
            cabinet.press("left")
            wait_position(cabinet, last - 1)
            cabinet.press("right")
            wait_position(cabinet, last)
        cabinet.press("home")
        cabinet.wait_until(lambda last=last: replay_position(cabinet)[0] < last - 1, "Home to go to the start")
        first = replay_position(cabinet)[0]
        if row == 1:
            cabinet.press("right")
            wait_position(cabinet, first + 1)
            cabinet.press("left")
            wait_position(cabinet, first)
            cabinet.press("left")  # nothing before the start
        cabinet.press("end")
        wait_position(cabinet, last)
        key = "q" if row == 4 else "escape"
        cabinet.press(key)
        try:
            cabinet.wait_for("Replay a game   (Enter opens", timeout=10)
        except AssertionError as failure:  # noted, and the walk goes on with q
            problems.append(f"{key} did not leave the replay of {title}:\n{failure}")
            cabinet.press("q")
            cabinet.wait_for("Replay a game   (Enter opens")
    assert not problems, "\n".join(problems)
    assert sorted(seen) == sorted(TITLES.values()), cabinet.report(f"Replayed {seen}")
    cabinet.press("escape")
    quit_app(cabinet)


def heading(term: Terminal, title: str) -> bool:
    """The rules document's own heading (not the tab) shows ``title``."""
    return any(line.strip() == title for line in term.lines()[2:])


def test_rules_open_switch_game_and_go_back(cabinet: Terminal) -> None:
    choose(cabinet, "Rules")
    cabinet.wait_line(*TITLES.values())  # the tabs, one a game
    cabinet.wait_until(lambda: heading(cabinet, TITLES["agent-jean"]), "the rules of L'Agent Jean!")
    cabinet.wait_line("Back")  # the footer
    cabinet.press("shift+tab", "right")  # to the tabs, then the next game
    cabinet.wait_until(lambda: heading(cabinet, TITLES["chirac-mitterrand"]), "the rules of 1988")
    assert not heading(cabinet, TITLES["agent-jean"]), cabinet.report("Both games' rules are shown")
    cabinet.press("escape")
    at_menu(cabinet)
    quit_app(cabinet)


def test_join_form_opens_and_esc_goes_back(cabinet: Terminal) -> None:
    choose(cabinet, "Join a hosted game")
    cabinet.wait_for("Join a game")
    cabinet.wait_for("127.0.0.1:")
    cabinet.wait_for("join code")
    cabinet.press("escape")
    cabinet.wait_gone("join code")
    at_menu(cabinet)
    quit_app(cabinet)


def test_behind_the_too_small_notice_keys_play_nothing_in_a_real_terminal(tmp_path: Path) -> None:
    """In a real terminal: Ada's first choice open, the window shrunk to 40x12 shows the notice;
    arrows, Enter, Space and digits there play nothing; back at 80x24 the same choice waits, and
    the save holds no move of Ada's."""
    from saves import load

    args = ["play", "edgar-lucien", "--bots", "2", "--seed", "3", "--names", "Ada,Bot"]
    # the size read from the pty, as a terminal's shell leaves it (COLUMNS and LINES unexported)
    with Terminal(args, tmp_path, env={"COLUMNS": "", "LINES": ""}) as term:
        term.wait_for("Where do Edgar and Lucien start?")
        term.resize(12, 40)
        term.wait_for("80x24")
        term.press("down", "down", "enter", "space", "1", "enter")
        term.resize(24, 80)
        term.wait_for("Where do Edgar and Lucien start?")
        term.press("q")
        term.wait_for("New game")
    (saved,) = tmp_path.glob("edgar-lucien-*.cab")
    match = load(saved).match
    assert not [move for move in match.moves if move.seat == 0], "a key played behind the notice"
