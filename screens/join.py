"""Join a game hosted elsewhere, from the menu: the address and your seat's code."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from net.client import RemoteTable
from net.protocol import DEFAULT_PORT, parse_address
from tui.widgets import plain


class JoinScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss", "Back")]

    def compose(self) -> ComposeResult:
        with Vertical(id="join-box"):
            yield Static("Join a game", id="join-title")
            yield Static("The address and the code the host printed for your seat; no code: watch.", id="join-help")
            yield Input(value=f"127.0.0.1:{DEFAULT_PORT}", placeholder="HOST:PORT or socket path", id="join-address")
            yield Input(placeholder="join code (xxxx-xxxx-xxxx), or empty to watch", id="join-code")
            yield Static("", id="join-error")
            yield Static("Enter joins · Tab: the other field · Esc: back", id="join-keys")

    def on_mount(self) -> None:
        # the address first, as the form reads: its default (a host on this machine) all
        # selected, so that a host's address typed replaces it, and Tab goes on to the code (a
        # player who began in the code field typed the address there)
        self.query_one("#join-address", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        address_text = self.query_one("#join-address", Input).value
        code = self.query_one("#join-code", Input).value.strip() or None
        try:
            address = parse_address(address_text)
        except ValueError as exc:
            self.query_one("#join-error", Static).update(plain(str(exc)))
            return
        self.query_one("#join-error", Static).update(plain(f"Joining {address}…"))
        self.run_worker(self.join(RemoteTable(address, code)), exclusive=True)

    async def join(self, remote: RemoteTable) -> None:
        from net.client import JoinError

        try:
            await remote.connect()
        except JoinError as exc:
            self.query_one("#join-error", Static).update(plain(str(exc)))
            return
        self.dismiss(None)
        from net.client import RemoteFeed
        from screens.play import PlayScreen

        self.app.push_screen(PlayScreen(RemoteFeed(remote)))

    def action_dismiss(self, result: None = None) -> None:  # type: ignore[override]
        self.dismiss(None)
