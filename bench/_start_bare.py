"""Child process for bench/run.py: the yardstick, a bare Textual app with one Label.

Run as a fresh interpreter: pushes one screen holding a Label, and exits once
that screen is mounted and its first refresh is done, headless.  Exactly the
mechanism of bench/_start_cabinet.py, so the two are comparable.  Prints the
app's return value so the parent can check the screen really came up.
"""

from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import Label


class First(Screen):
    def compose(self) -> ComposeResult:
        yield Label("Hello")

    def on_mount(self) -> None:
        self.call_after_refresh(self.app.exit, "shown")


class Bare(App[str]):
    def on_mount(self) -> None:
        self.push_screen(First())


if __name__ == "__main__":
    app = Bare()
    app.run(headless=True)
    print(app.return_value)
