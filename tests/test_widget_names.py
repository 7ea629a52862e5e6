"""Our widgets' class names are their own.

A Textual style's type selector matches a widget by its class's name, whatever module the
class is in: a widget of ours named as one of Textual's takes that widget's default style
once Textual has loaded it. 1988's list of cards was a ``CommandList``, as the command
palette's own list is, whose style hides it: after a player opened the palette (Ctrl-P, for
its Keys), 1988's card choice was gone for the rest of the session.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import textual
from textual.widget import Widget

#: the packages whose widgets the app draws
OURS = ("screens", "tui")


def our_widgets() -> dict[str, str]:
    """Every Widget subclass defined in our packages: name -> module."""
    for package in OURS:
        root = importlib.import_module(package)
        for info in pkgutil.walk_packages(root.__path__, f"{package}."):
            importlib.import_module(info.name)
    found: dict[str, str] = {}
    stack = [Widget]
    while stack:
        cls = stack.pop()
        for sub in cls.__subclasses__():
            stack.append(sub)
            if sub.__module__.split(".")[0] in OURS:
                found[sub.__name__] = sub.__module__
    return found


def textuals_class_names() -> set[str]:
    """Every class Textual's own code defines, read from its source (imported or not)."""
    names: set[str] = set()
    for path in Path(textual.__file__).parent.rglob("*.py"):
        names.update(re.findall(r"^\s*class (\w+)\b", path.read_text(encoding="utf-8"), flags=re.M))
    return names


def test_no_widget_of_ours_is_named_as_a_class_of_textual() -> None:
    ours = our_widgets()
    assert "CMChoiceList" in ours and "Board" in ours  # (the walk found the boards' widgets)
    shared = {name: module for name, module in ours.items() if name in textuals_class_names()}
    assert not shared, f"named as Textual's classes, so styled as them: {shared}"
