"""The layer rules of shared/DESIGN.md as a failing check (STYLE.md §1)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

APP = Path(__file__).resolve().parents[2] / "app"
QT = {"PySide6", "qasync", "shiboken6"}
FORBIDDEN: dict[str, set[str]] = {
    "api": QT | {"sqlite3"},
    "store": QT | {"httpx"},
    "sync": QT,
    "sim": QT,
    "settings.py": QT,
}
# The profile's API state file (api-state.sqlite: what is learned about the show, the shared
# request history) is the one place app/api keeps data of its own (issue 12).
API_STATE = {"app/api/learned.py", "app/api/history.py"}


def imported_roots(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    roots: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def modules_of(part: str) -> list[Path]:
    target = APP / part
    return [target] if target.is_file() else sorted(target.rglob("*.py"))


def forbidden(part: str, path: Path) -> set[str]:
    if str(path.relative_to(APP.parent)) in API_STATE:
        return FORBIDDEN[part] - {"sqlite3"}
    return FORBIDDEN[part]


@pytest.mark.parametrize("part", sorted(FORBIDDEN))
def test_core_packages_keep_to_their_imports(part: str) -> None:
    offences = {
        str(path.relative_to(APP.parent)): sorted(imported_roots(path) & forbidden(part, path))
        for path in modules_of(part)
    }
    assert {k: v for k, v in offences.items() if v} == {}


def test_the_check_sees_an_offending_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from PySide6.QtCore import QObject\nimport sqlite3\n", encoding="utf-8")
    assert imported_roots(bad) == {"PySide6", "sqlite3"}


def test_nothing_outside_app_ui_imports_qt() -> None:
    """The command line, the demo and every other top-level module stay Qt-free too."""
    outside = [p for p in sorted(APP.rglob("*.py")) if "ui" not in p.relative_to(APP).parts[:1]]
    offences = {
        str(path.relative_to(APP.parent)): sorted(imported_roots(path) & QT) for path in outside
    }
    assert len(outside) > 50
    assert {k: v for k, v in offences.items() if v} == {}
