"""Playing together from separate terminals, on loopback: whole games of every
game through ``cabinet host``'s server, a player who drops and joins again, a
server stopped and resumed from its save, and the join screen driven by keys.

Every test is bounded: each client gives up after ``LIMIT`` seconds without
the game ending, and plays at most ``MOVES`` commands.
"""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path

import pytest

from core.engine import PUBLIC
from core.games import get_game
from net.client import JoinError, RemoteTable
from net.protocol import Address
from net.server import GameServer, load_or_make_codes
from saves import SaveWriter, load
from screens.app import CabinetApp
from screens.play import PlayScreen
from tests.test_remote_robustness import norm
from tests.tui_helpers import run_async, screen_text
from tui.session import new_match, start_save
from tui.widgets import GameOver, ScoreSheetDialog

LIMIT = 30.0
MOVES = 3000
NAMES = ["Ada", "Bastien", "Chloé", "Denis", "Eve"]


def hosted(tmp_path: Path, game_id: str, players: int, humans: int, seed: int, **variants: str):
    game = get_game(game_id)
    controllers = [{"kind": "human"}] * humans + [{"kind": "bot", "level": "easy"}] * (players - humans)
    seats = [{"name": n} for n in NAMES[:players]]
    match = new_match(game, players, seats, controllers, seed=seed, bot_seed=seed, variants=variants or None)
    writer = start_save(tmp_path, match, durable=False)
    return writer, load_or_make_codes(writer.path, match)


async def serve(writer: SaveWriter, codes: dict[int, str], address: Address | None = None) -> GameServer:
    server = GameServer(writer, codes, bot_delay=0)
    await server.start(address or Address(host="127.0.0.1", port=0))
    return server


async def play_client(remote: RemoteTable, seed: int, stop_after: int | None = None) -> int:
    """Play random legal commands for the seat until the game ends (or ``stop_after``
    commands); the number of commands sent."""
    rng = random.Random(seed)
    sent = 0
    while True:
        message = await remote.receive()
        if message is None:
            return sent
        if message["t"] != "update":
            continue  # an error (a command overtaken by another move): the next update tells
        remote.apply(message)
        if remote.outcome is not None:
            return sent
        if remote.legal:
            if stop_after is not None and sent >= stop_after:
                return sent
            assert sent < MOVES
            remote.command(rng.choice(remote.legal))
            sent += 1


async def until(ready, pilot=None, tries: int = 100, pause: float = 0.02) -> None:
    """Let the loop (and the app under ``pilot``) run until ``ready()``, looked at every 5 ms (and
    the app let run after each look); the caller asserts what it waited for. It waits at most
    twice ``tries`` pauses of ``pause`` seconds, four times with an app (a loaded machine's)."""
    deadline = time.monotonic() + tries * pause * (4 if pilot is not None else 2)
    while not ready() and time.monotonic() < deadline:
        await asyncio.sleep(0.005)
        if pilot is not None:
            await pilot.pause()


async def join(server: GameServer, seat: int | None) -> RemoteTable:
    remote = RemoteTable(server.address, None if seat is None else server.codes[seat])
    await remote.connect()
    return remote


@pytest.mark.parametrize(
    "game_id, players, humans",
    [("agent-jean", 3, 3), ("chirac-mitterrand", 2, 2), ("ministeres", 5, 5), ("edgar-lucien", 4, 3)],
)
@run_async
async def test_whole_games_through_the_server(tmp_path: Path, game_id: str, players: int, humans: int) -> None:
    writer, codes = hosted(tmp_path, game_id, players, humans, seed=11)
    server = await serve(writer, codes)
    try:
        clients = [await join(server, seat) for seat in range(humans)]
        watcher = await join(server, None)
        assert [c.seat for c in clients] == list(range(humans)) and watcher.seat == PUBLIC
        await asyncio.wait_for(asyncio.gather(*(play_client(c, 100 + i) for i, c in enumerate(clients))), LIMIT)
        match = server.match
        assert match.outcome is not None
        # each client saw the whole game, in its seat's words, and the end
        for client in clients:
            assert len(client.events) == len(match.events)
            assert client.outcome == {"winners": list(match.outcome.winners), "reason": match.outcome.reason}
        # the save holds every move
        assert load(writer.path).match.events == match.events
        for client in clients + [watcher]:
            await client.close()
    finally:
        await server.close()


@run_async
async def test_edgar_lucien_programs_are_given_at_once_by_every_player(tmp_path: Path) -> None:
    writer, codes = hosted(tmp_path, "edgar-lucien", 3, 3, seed=4)
    server = await serve(writer, codes)
    try:
        clients = [await join(server, seat) for seat in range(3)]
        game = server.game
        # place the pawns in turn
        for client in clients:
            while True:
                message = await asyncio.wait_for(client.receive(), 5)
                client.apply(message)
                if client.legal:
                    break
            client.command(client.legal[0])
        # every player programs: all three are asked at once
        for client in clients:
            while not (client.view and client.view["phase"] == "program" and client.legal):
                client.apply(await asyncio.wait_for(client.receive(), 5))
            assert client.active == [0, 1, 2]
        for client in clients:  # all three send before any answer is read
            client.command(client.legal[0])
        await asyncio.sleep(0.2)
        assert any(e["t"] == "ProgramsRevealed" for e in server.match.events)
        assert server.match.state.phase != "program" or server.match.state.turn > 1
        assert game.id == "edgar-lucien"
        for client in clients:
            await client.close()
    finally:
        await server.close()


@run_async
async def test_a_player_who_drops_joins_again_and_the_game_finishes(tmp_path: Path) -> None:
    writer, codes = hosted(tmp_path, "agent-jean", 3, 2, seed=5)
    server = await serve(writer, codes)
    try:
        ada, bastien = await join(server, 0), await join(server, 1)
        playing = asyncio.ensure_future(play_client(bastien, 3))
        # Ada plays a few moves, then her connection dies
        await asyncio.wait_for(play_client(ada, 1, stop_after=3), LIMIT)
        seen = len(ada.events)
        ada.writer.transport.abort()
        await ada.close()
        # Bastien is told that Ada is away, and the game waits for her
        await until(lambda: 0 in bastien.away, tries=500, pause=0.01)
        assert 0 in bastien.away and server.match.outcome is None
        # Ada joins again with her code: she is told the whole history again
        again = await join(server, 0)
        assert again.seat == 0
        await asyncio.wait_for(asyncio.gather(play_client(again, 2), playing), LIMIT)
        assert server.match.outcome is not None
        assert len(again.events) == len(server.match.events) > seen
        assert 0 not in bastien.away
        for client in (again, bastien):
            await client.close()
    finally:
        await server.close()


@run_async
async def test_a_player_at_the_table_is_told_when_another_leaves_and_comes_back(tmp_path: Path) -> None:
    """The status line's "(away)" alone was all a player saw of an opponent's dropped connection."""
    writer, codes = hosted(tmp_path, "chirac-mitterrand", 2, 2, seed=2)
    server = await serve(writer, codes)
    try:
        app = CabinetApp(save_dir=tmp_path / "client", bot_delay=0)
        async with app.run_test(size=(80, 24)) as pilot:
            other = await join(server, 1)
            screen = await seated(app, pilot, server, codes[0])
            name = screen.knows.name(1)
            said = lambda text: any(n.message == text for n in app._notifications)  # noqa: E731
            assert not said(f"{name} left the table; their seat waits for them.")  # (there at the start)
            other.writer.transport.abort()
            await other.close()
            await until(lambda: said(f"{name} left the table; their seat waits for them."), pilot, tries=300)
            assert said(f"{name} left the table; their seat waits for them.")
            again = await join(server, 1)
            await until(lambda: said(f"{name} is back at the table."), pilot, tries=300)
            assert said(f"{name} is back at the table.")
            await again.close()
    finally:
        await server.close()


async def seated(app: CabinetApp, pilot, server: GameServer, code: str) -> PlayScreen:
    """``app`` joined at ``server``'s table with ``code``: its play screen, its first choices in."""
    assert await app.join(RemoteTable(server.address, code))
    screen = app.screen
    assert isinstance(screen, PlayScreen)
    await until(lambda: bool(screen.remote.legal), pilot)
    return screen


async def next_of(remote: RemoteTable, kind: str) -> dict:
    """The next message of ``kind`` (updates on the way are taken in)."""
    for _ in range(50):
        message = await asyncio.wait_for(remote.receive(), LIMIT)
        assert message is not None, f"closed while waiting for {kind}"
        if message["t"] == "update":
            remote.apply(message)
        if message["t"] == kind:
            return message
    raise AssertionError(f"no {kind} in 50 messages")


@run_async
async def test_browsing_the_history_asks_the_server_once_a_position_one_question_at_a_time(tmp_path: Path) -> None:
    """Steps through the history while a question is on its way ask nothing more; its answer
    asks for where the player has got to by then; a position once seen is never asked again;
    a take-back forgets the positions past the cut."""
    writer, codes = hosted(tmp_path, "agent-jean", 2, 1, seed=5)
    server = GameServer(writer, codes, bot_delay=LIMIT)  # the bot waits: the take-back comes first
    await server.start(Address(host="127.0.0.1", port=0))
    try:
        ada = await join(server, 0)
        sent: list[dict] = []
        send = ada.send
        ada.send = lambda message: (sent.append(message), send(message))[1]  # type: ignore[method-assign]
        while not ada.legal:
            await next_of(ada, "update")
        ada.command(ada.legal[0])
        await next_of(ada, "update")
        game, match, n = server.game, server.match, len(ada.events)
        assert n == len(match.events) and n in ada.past

        def asked() -> list[int]:
            return [m["n"] for m in sent if m["t"] == "view_at"]

        def seen(k: int) -> dict:
            return norm(game.view(match.state_at(k), 0))

        # the views of the updates are kept: those positions are never asked
        assert all(ada.past[k] == seen(k) for k in ada.past)
        a, b, c = sorted((k for k in range(n) if k not in ada.past), reverse=True)[:3]
        # a burst of steps: the first asks, the others wait for its answer
        for k in (a, b, c, b, c):
            assert ada.look_back(k) is None
        assert asked() == [a]
        assert ada.answered(await next_of(ada, "view_at")) is None  # not where the player is now...
        assert asked() == [a, c]  # ...which is asked for in turn
        assert ada.answered(await next_of(ada, "view_at")) == seen(c)
        # back and forth over positions seen: nothing asked
        for k in (a, c, a, c, *(k for k in ada.past if k < n)):
            assert ada.look_back(k) == seen(k)
        assert ada.look_back(None) is None and ada.look_back(n) is None  # now: the live view
        assert asked() == [a, c]
        # a take-back cuts the log: what was seen past the cut is forgotten
        ada.takeback()
        await next_of(ada, "info")
        cut = len(ada.events)
        assert cut < n and cut == len(match.events)
        assert all(k <= cut for k in ada.past) and ada.past[cut] == seen(cut)
        await ada.close()
    finally:
        await server.close()


@run_async
async def test_a_wrong_code_cannot_join(tmp_path: Path) -> None:
    writer, codes = hosted(tmp_path, "chirac-mitterrand", 2, 2, seed=1)
    server = await serve(writer, codes)
    try:
        with pytest.raises(JoinError, match="not one of this game's"):
            await RemoteTable(server.address, "abcd-efgh-jkmn").connect()
    finally:
        await server.close()
    with pytest.raises(JoinError, match="No game is hosted"):
        await RemoteTable(server.address, codes[0]).connect(timeout=2)


@run_async
async def test_an_ssh_server_or_a_stranger_given_as_a_hosts_address_is_said_in_a_sentence() -> None:
    """Join pointed at an SSH server (a cabinet serve's port, say) says what it is and how to
    play there, not the size of a frame its banner would make; any other stranger's answer is
    one sentence with one full stop."""
    answers = [b"SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n", b"HTTP/1.1 400 Bad Request\r\n\r\n"]

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(answers.pop(0))
        await writer.drain()
        await reader.read(100)
        writer.close()

    stranger = await asyncio.start_server(answer, "127.0.0.1", 0)
    port = stranger.sockets[0].getsockname()[1]
    try:
        with pytest.raises(JoinError) as said:
            await RemoteTable(Address(port=port), None).connect(timeout=5)
        assert str(said.value) == (
            f"127.0.0.1:{port} is an SSH server, not a hosted game: "
            f"if it is a cabinet serve, play there with ssh -p {port} NAME@127.0.0.1."
        )
        with pytest.raises(JoinError) as said:
            await RemoteTable(Address(port=port), None).connect(timeout=5)
        sentence = str(said.value)
        assert sentence.startswith(f"The host at 127.0.0.1:{port} did not answer as a Cabinet game: a frame of ")
        assert sentence.endswith(".") and not sentence.endswith("..")
    finally:
        stranger.close()
        await stranger.wait_closed()


@run_async
async def test_a_server_stopped_mid_game_and_resumed_from_its_save_finishes_the_same_game(tmp_path: Path) -> None:
    socket = tmp_path / "cabinet.sock"  # a Unix socket this time
    writer, codes = hosted(tmp_path, "ministeres", 3, 3, seed=8)
    server = await serve(writer, codes, Address(path=socket))
    clients = [await join(server, seat) for seat in range(3)]
    playing = [asyncio.ensure_future(play_client(c, 10 + i)) for i, c in enumerate(clients)]
    await until(lambda: len(server.match.moves) > 12, tries=1000, pause=0.01)  # a dozen moves into the game
    for task in playing:
        task.cancel()
    assert server.match.outcome is None
    before = list(server.match.events)
    await server.close()  # the host is stopped
    for client in clients:
        await client.close()
    # started again from the save: the same codes, the same game
    loaded = load(writer.path)
    assert loaded.match.events == before
    again = SaveWriter.resume(loaded)
    assert load_or_make_codes(again.path, again.match) == codes
    server = await serve(again, load_or_make_codes(again.path, again.match), Address(path=socket))
    try:
        clients = [await join(server, seat) for seat in range(3)]
        await asyncio.wait_for(asyncio.gather(*(play_client(c, 20 + i) for i, c in enumerate(clients))), LIMIT)
        assert server.match.outcome is not None
        assert server.match.events[: len(before)] == before
        assert load(writer.path).match.events == server.match.events
        for client in clients:
            await client.close()
    finally:
        await server.close()


@run_async
async def test_the_join_screen_plays_a_whole_game_by_keys(tmp_path: Path) -> None:
    writer, codes = hosted(tmp_path, "edgar-lucien", 2, 1, seed=5)
    server = await serve(writer, codes)
    try:
        app = CabinetApp(save_dir=tmp_path / "client", bot_delay=0)
        async with app.run_test(size=(80, 24)) as pilot:
            assert await app.join(RemoteTable(server.address, codes[0]))
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, PlayScreen)
            match = server.match
            periods_read = 0
            for _ in range(4000):
                await asyncio.sleep(0.01)
                await pilot.pause()
                if match.outcome is not None:
                    break
                if isinstance(app.screen, ScoreSheetDialog):  # a period scored: read, then on
                    periods_read += 1
                    await pilot.press("enter")
                    continue
                if 0 in match.active() and screen.remote.legal and len(screen.remote.events) == len(match.events):
                    before = len(match.events)
                    for _ in range(3):  # Edgar's move, then Lucien's; a card, then its target
                        await pilot.press("enter")
                        await asyncio.sleep(0.02)
                        await pilot.pause()
                        if len(match.events) > before:
                            break
                    assert len(match.events) > before, "three key presses of the player did nothing"
            assert match.outcome is not None
            await until(lambda: isinstance(app.screen, GameOver), pilot, tries=50)
            assert isinstance(app.screen, GameOver)
            await pilot.pause()
            assert "Final score" in screen_text(app)  # the conditions each player met, as at home
            assert periods_read >= 1
            status = str(screen.query_one("#status").render())
            assert "Game over" in status
            # joined with a code, the save and its replay are on the host's machine: the dialog
            # and the table offer no replay, and r does nothing
            dialog = app.screen
            assert "replay" not in screen_text(app).lower()
            await pilot.press("r")
            await pilot.pause()
            assert app.screen is dialog
            await pilot.press("enter")  # to the table
            await pilot.pause()
            assert app.screen is screen and "Replay" not in screen_text(app).splitlines()[-1]
            # the host stops: the game was over, so nothing is joined again; the table says so
            await server.close()
            await until(lambda: screen.over, pilot, tries=200)
            assert screen.feed.over and "No more moves here" in str(screen.query_one("#status").render())
            assert not screen.connected or "joining again" not in str(screen.query_one("#status").render())
    finally:
        await server.close()


@run_async
async def test_joining_from_the_menu(tmp_path: Path) -> None:
    writer, codes = hosted(tmp_path, "agent-jean", 3, 2, seed=6)
    server = await serve(writer, codes)
    try:
        app = CabinetApp(save_dir=tmp_path / "client", bot_delay=0)
        async with app.run_test(size=(80, 24)) as pilot:
            menu = app.screen.query_one("#menu-options")
            menu.highlighted = next(i for i in range(menu.option_count) if menu.get_option_at_index(i).id == "join")
            await pilot.press("enter")
            await pilot.pause()
            # the address first, its default replaced by what is typed; Tab to the code
            assert app.screen.query_one("#join-address").has_focus
            await pilot.press(*str(server.address), "tab")
            assert app.screen.query_one("#join-address").value == str(server.address)
            assert app.screen.query_one("#join-code").has_focus
            await pilot.press(*"nope-nope-nope", "enter")
            await until(lambda: "not one of this game's" in str(app.screen.query_one("#join-error").render()), pilot)
            assert "not one of this game's" in str(app.screen.query_one("#join-error").render())
            app.screen.query_one("#join-code").value = codes[1]
            await pilot.press("enter")
            await until(lambda: isinstance(app.screen, PlayScreen), pilot)
            assert isinstance(app.screen, PlayScreen) and app.screen.remote.seat == 1
            await until(lambda: "away" in str(app.screen.query_one("#status").render()).lower(), pilot)
            status = str(app.screen.query_one("#status").render())
            assert "You: Bastien" in status and "away" in status.lower()
    finally:
        await server.close()


@run_async
async def test_cabinet_host_in_its_own_process_serves_a_whole_game_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    import os
    import signal
    import sys

    env = {**os.environ, "CABINET_SAVE_DIR": str(tmp_path)}
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "cabinet",
        "host",
        "chirac-mitterrand",
        "--players",
        "2",
        "--names",
        "Ada,Bastien",
        "--listen",
        "127.0.0.1:0",
        "--seed",
        "3",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
        cwd=Path(__file__).resolve().parent.parent,
    )
    try:
        lines = []
        while not any(line.startswith("  spectators:") for line in lines):
            raw = await asyncio.wait_for(process.stdout.readline(), 20)
            assert raw, (await process.stderr.read()).decode()
            lines.append(raw.decode().rstrip("\n"))
        joins = [line.split() for line in lines if "cabinet join" in line and "--watch" not in line]
        assert [j[0] for j in joins] == ["Ada:", "Bastien:"]
        address = Address(host="127.0.0.1", port=int(joins[0][3].rpartition(":")[2]))
        clients = [RemoteTable(address, j[4]) for j in joins]
        for client in clients:
            await client.connect()
        await asyncio.wait_for(asyncio.gather(*(play_client(c, 30 + i) for i, c in enumerate(clients))), LIMIT)
        assert all(c.outcome is not None for c in clients)
        for client in clients:
            await client.close()
    finally:
        process.send_signal(signal.SIGINT)
        out, err = await asyncio.wait_for(process.communicate(), 20)
    assert process.returncode == 0 and b"Traceback" not in err
    assert b"The game is saved" in out
    (save,) = tmp_path.glob("*.cab")
    assert load(save).match.outcome is not None


@run_async
async def test_the_host_keeps_serving_while_a_bot_thinks(tmp_path: Path) -> None:
    """A bot thinks in a thread of the server: while it does, a spectator can
    still join and is told the table; the bot's move reaches everyone after."""
    from tests.test_tui import HeldBot

    writer, codes = hosted(tmp_path, "agent-jean", 2, 1, seed=11)
    server = await serve(writer, codes)
    held = HeldBot()
    try:
        assert server.runner is not None
        server.runner.think = held
        ada = await join(server, 0)
        while not ada.legal:
            ada.apply(await asyncio.wait_for(ada.receive(), 5))
        moves = len(server.match.moves)
        ada.command(ada.legal[0])
        await until(lambda: len(server.match.moves) > moves and 1 in server.match.active(), tries=250)
        assert 1 in server.match.active()
        watcher = await join(server, None)  # the server answers while the bot is held
        assert watcher.seat == PUBLIC and len(server.match.moves) == moves + 1
        held.go.set()
        await until(lambda: len(server.match.moves) > moves + 1, tries=500)
        assert server.match.moves[moves + 1].seat == 1
        await ada.close()
        await watcher.close()
    finally:
        held.go.set()
        await server.close()


@run_async
async def test_a_screen_displaced_by_another_terminal_takes_no_more_moves(tmp_path: Path) -> None:
    """The same code used from a second terminal: the first screen closes its open dialog,
    draws the board without moves, says so, and keeps only leave, history and rules."""
    from textual.screen import ModalScreen
    from textual.widgets import OptionList

    from tui.widgets import Board

    class MovesDialog(ModalScreen):
        """A board's dialog of moves (as 1988's campaign draw): Enter picks one."""

        def __init__(self, commands):
            super().__init__()
            self.commands = commands

        def compose(self):
            yield OptionList(*(str(c) for c in self.commands))

        def on_option_list_option_selected(self, event) -> None:
            self.dismiss(self.commands[event.option_index])

    writer, codes = hosted(tmp_path, "chirac-mitterrand", 2, 2, seed=2)
    server = await serve(writer, codes)
    try:
        app = CabinetApp(save_dir=tmp_path / "client", bot_delay=0)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await seated(app, pilot, server, codes[0])
            board = screen.query_one("#board")
            assert board.shown is not None and board.shown[1]  # Chirac plays first: moves on offer
            app.push_screen(MovesDialog(screen.remote.legal), lambda c: board.post_message(Board.Chosen(c)))
            await pilot.pause()
            assert isinstance(app.screen, MovesDialog)
            moves = len(server.match.moves)

            second = await join(server, 0)  # the same code, from another terminal
            await until(lambda: screen.over, pilot, tries=200)
            await pilot.pause()
            assert screen.over
            assert app.screen is screen  # the dialog is gone
            assert board.shown[1] is None  # the board offers nothing
            status = str(screen.query_one("#status").render())
            assert "No more moves here (q: menu)" in status and "another terminal" in status
            shown = {b.binding.description for b in screen.active_bindings.values() if b.binding.show and b.enabled}
            assert shown <= {"History", "Rules", "Menu"} and {"History", "Rules", "Menu"} <= shown
            assert not screen.check_action("takeback", ())
            # a move that still reaches the screen (a key pressed at that moment) is refused aloud
            screen.post_message(Board.Chosen(second.legal[0] if second.legal else {"t": "x"}))
            await pilot.press("1", "enter", "enter")
            await pilot.pause()
            assert any("no more moves" in n.message for n in app._notifications)
            await asyncio.sleep(0.1)
            assert len(server.match.moves) == moves  # nothing was played from the displaced screen
            await pilot.press("q")
            await pilot.pause()
            assert not isinstance(app.screen, PlayScreen)
            # not "You left; the game waits for you": the seat is played on at the other terminal
            assert not any("You left" in n.message for n in app._notifications)
            await second.close()
    finally:
        await server.close()
