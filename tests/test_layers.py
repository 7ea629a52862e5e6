"""The house's layers: no package imports one above it, at the top of a module or inside a
function (a late import is an import all the same).

    core  <-  saves  <-  table  <-  net, tui  <-  screens  <-  cabinet

``core`` holds the rules, ``saves`` the logs, ``table`` runs a table, ``net`` and ``tui`` are the
wire and the terminal's parts, ``screens`` the screens and the app composed from them, and
``cabinet`` the program.  ``net`` and ``tui`` stand side by side: either may use the other.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LEVEL = {"core": 0, "saves": 1, "table": 2, "net": 3, "tui": 3, "screens": 4, "cabinet": 5}


def imports_of(path: Path) -> list[tuple[int, str]]:
    """Every package of ours a module imports, with the line, wherever the import is."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name.split(".")[0]) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module.split(".")[0]))
    return [(line, package) for line, package in found if package in LEVEL]


@pytest.mark.parametrize("package", sorted(LEVEL))
def test_no_package_imports_one_above_it(package: str) -> None:
    above = []
    for path in sorted((ROOT / package).rglob("*.py")):
        for line, other in imports_of(path):
            if LEVEL[other] > LEVEL[package]:
                above.append(f"{path.relative_to(ROOT)}:{line} imports {other}")
    assert not above, "\n".join(above)


def test_every_package_of_the_project_has_its_layer() -> None:
    packages = {p.parent.name for p in ROOT.glob("*/__init__.py")} - {"tests", "bench"}
    assert packages == set(LEVEL)
