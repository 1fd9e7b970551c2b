"""The layer rules of docs/ARCHITECTURE.md as a failing check."""

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
    "team": QT,
    "settings.py": QT,
    "commands": QT,  # the headless commands run where no display is
    "output_file.py": QT,
    "formula_guard.py": QT,
}


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


@pytest.mark.parametrize("part", sorted(FORBIDDEN))
def test_core_packages_keep_to_their_imports(part: str) -> None:
    offences = {
        str(path.relative_to(APP.parent)): sorted(imported_roots(path) & FORBIDDEN[part])
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


# ---- app/ui: a folder imports only the folders below it (issue 13) ----------------------------

UI_LAYERS: dict[str, int] = {
    "common": 0,
    "session": 1,
    "form": 2,
    "table": 3,
    "panels": 4,
    "outbox": 4,  # beside panels: neither imports the other
    "window": 5,
    "launch": 6,
}


def ui_folders_imported(path: Path) -> set[str]:
    """The `app.ui.<folder>` names a module imports (at any depth of the module)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
            if node.module == "app.ui":
                names.extend(f"app.ui.{alias.name}" for alias in node.names)
    return {n.split(".")[2] for n in names if n.startswith("app.ui.") and len(n.split(".")) > 2}


def layer_offences(ui: Path) -> dict[str, list[str]]:
    """Modules of `ui` importing a folder at their own level or above (their own folder allowed)."""
    offences: dict[str, list[str]] = {}
    for path in sorted(ui.rglob("*.py")):
        parts = path.relative_to(ui).parts
        if len(parts) < 2:
            continue
        own = parts[0]
        bad = sorted(
            folder
            for folder in ui_folders_imported(path)
            if folder != own and UI_LAYERS.get(folder, 99) >= UI_LAYERS[own]
        )
        if bad:
            offences[str(path.relative_to(ui))] = bad
    return offences


def test_every_ui_module_lives_in_a_layer_folder() -> None:
    ui = APP / "ui"
    loose = [p.name for p in ui.glob("*.py") if p.name != "__init__.py"]
    folders = {p.name for p in ui.iterdir() if p.is_dir() and not p.name.startswith("__")}
    assert loose == []
    assert folders == set(UI_LAYERS)
    for folder in folders:
        doc = ast.get_docstring(ast.parse((ui / folder / "__init__.py").read_text()))
        assert doc and len(doc.splitlines()) == 1, f"{folder}/__init__.py needs a one-line rule"


def test_ui_folders_import_only_folders_below_them() -> None:
    assert layer_offences(APP / "ui") == {}


def test_the_layer_check_sees_a_lower_folder_importing_a_higher_one(tmp_path: Path) -> None:
    for folder in ("common", "table", "outbox"):
        (tmp_path / folder).mkdir()
    (tmp_path / "common" / "bad.py").write_text("from app.ui.table.table_model import X\n")
    (tmp_path / "table" / "ok.py").write_text("from app.ui.common import palette\n")
    (tmp_path / "outbox" / "side.py").write_text("import app.ui.panels.attach\n")
    assert layer_offences(tmp_path) == {"common/bad.py": ["table"], "outbox/side.py": ["panels"]}


def test_the_qt_check_sees_a_core_module_importing_qt(tmp_path: Path) -> None:
    core = tmp_path / "sync"
    core.mkdir()
    (core / "leak.py").write_text("import PySide6.QtWidgets\n")
    assert imported_roots(core / "leak.py") & FORBIDDEN["sync"] == {"PySide6"}
