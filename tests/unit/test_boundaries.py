"""The layer rules of docs/ARCHITECTURE.md as a failing check."""

from __future__ import annotations

import ast
import graphlib
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
    "profile": QT,
    "wording": QT,
    "commands": QT,  # the headless commands run where no display is
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
    assert target.is_dir(), f"app/{part} is not a package: the rule guards nothing"
    return sorted(target.rglob("*.py"))


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


# ---- the house (issue 27): packages in layers, app/sync by concern, no loose rooms, no cycles --

# Which package of app/ may import which: a package imports its own modules and packages of a
# lower rank, never one of its own rank or above (store and sim side by side). The app package's
# own `__init__` (APP_NAME, __version__) is below everything; cli and __main__ above everything.
APP_LAYERS: dict[str, int] = {
    "api": 0,
    "store": 1,
    "sim": 1,
    "wording": 2,
    "sync": 3,
    "team": 4,
    "profile": 5,
    "commands": 6,
    "ui": 7,
}
# app/sync's own modules (the rules of changes both sides share) under its sub-packages.
SYNC_LAYERS: dict[str, int] = {
    "": 0,
    "pull": 1,
    "push": 2,
    "edit": 2,
    "files": 3,
    "reports": 4,
}
TOP_MODULES = {"__init__.py", "__main__.py", "cli.py"}


def module_name(root: Path, path: Path) -> str:
    """`app.sync.pull.puller` for app/sync/pull/puller.py (a package by its folder's name)."""
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(root: Path) -> dict[str, set[str]]:
    """Every module of the package at `root` and the modules of it that it imports: at any depth
    of the module, under `if TYPE_CHECKING:` and in functions too, relative imports resolved."""
    paths = {module_name(root, p): p for p in sorted(root.rglob("*.py"))}

    def known(name: str) -> str | None:
        while name and name not in paths:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets: list[str] = []
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if isinstance(node, ast.Import):
                targets.extend(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join(up + ([node.module] if node.module else []))
                targets.append(base)
                targets.extend(f"{base}.{alias.name}" for alias in node.names)
        found = {known(t) for t in targets if t.split(".")[0] == root.name}
        graph[name] = {
            t
            for t in found
            if t and t != name and not name.startswith(t + ".") and not t.startswith(name + ".")
        }
    return graph


def a_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle of `graph` (its modules in order, the first again at the end), or []."""
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as exc:
        return list(reversed(exc.args[1]))
    return []


def upward_imports(
    graph: dict[str, set[str]], prefix: str, layers: dict[str, int]
) -> dict[str, list[str]]:
    """Modules under `prefix` importing a part of `prefix` at their own rank or above (another
    part than their own): the part is the first name after `prefix`, "" for its own modules."""

    def part(name: str) -> str | None:
        if not name.startswith(prefix + "."):
            return "" if name == prefix else None
        rest = name[len(prefix) + 1 :].split(".")
        return rest[0] if len(rest) > 1 or rest[0] in layers else ""

    offences: dict[str, list[str]] = {}
    for name, targets in sorted(graph.items()):
        own = part(name)
        if own is None or own not in layers:
            continue
        bad = sorted(
            t
            for t in targets
            if (other := part(t)) is not None
            and other != own
            and other in layers
            and layers[other] >= layers[own]
        )
        if bad:
            offences[name] = bad
    return offences


def test_no_import_cycle_anywhere_in_app() -> None:
    assert a_cycle(imports_of(APP)) == []


def test_the_cycle_check_sees_a_cycle_even_behind_type_checking(tmp_path: Path) -> None:
    root = tmp_path / "app"
    (root / "sync").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "sync" / "__init__.py").write_text("")
    (root / "sync" / "editor.py").write_text("from app.sync.undo import Steps\n")
    (root / "sync" / "undo.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .editor import Editor\n"
    )
    (root / "sync" / "alone.py").write_text("import app.sync.editor\n")
    cycle = a_cycle(imports_of(root))
    assert sorted(set(cycle)) == ["app.sync.editor", "app.sync.undo"]
    (root / "sync" / "undo.py").write_text("X = 1\n")
    assert a_cycle(imports_of(root)) == []


def test_app_packages_import_only_packages_below_them() -> None:
    graph = imports_of(APP)
    packages = {p.name for p in APP.iterdir() if p.is_dir() and not p.name.startswith("__")}
    assert packages == set(APP_LAYERS)
    assert upward_imports(graph, "app", APP_LAYERS) == {}


def test_sync_packages_import_only_packages_below_them() -> None:
    graph = imports_of(APP)
    sync = APP / "sync"
    folders = {p.name for p in sync.iterdir() if p.is_dir() and not p.name.startswith("__")}
    assert folders == set(SYNC_LAYERS) - {""}
    assert upward_imports(graph, "app.sync", SYNC_LAYERS) == {}


def test_the_layer_checks_see_an_upward_import(tmp_path: Path) -> None:
    root = tmp_path / "app"
    for folder in ("team", "profile", "sync", "sync/pull", "sync/push", "sync/edit"):
        (root / folder).mkdir(parents=True)
        (root / folder / "__init__.py").write_text("")
    (root / "__init__.py").write_text("APP_NAME = 'x'\n")
    (root / "team" / "status.py").write_text("def f():\n    from app.profile.connect import g\n")
    (root / "profile" / "connect.py").write_text(
        "from app import APP_NAME\nimport app.team.status\n"
    )
    (root / "sync" / "rules.py").write_text("X = 1\n")
    (root / "sync" / "pull" / "puller.py").write_text("from app.sync.push import pusher\n")
    (root / "sync" / "push" / "pusher.py").write_text("from app.sync.pull.puller import P\n")
    (root / "sync" / "edit" / "editor.py").write_text("from app.sync.push.pusher import Q\n")
    (root / "sync" / "push" / "verdicts.py").write_text("from ..rules import X\n")
    graph = imports_of(root)
    assert upward_imports(graph, "app", APP_LAYERS) == {"app.team.status": ["app.profile.connect"]}
    assert upward_imports(graph, "app.sync", SYNC_LAYERS) == {
        "app.sync.edit.editor": ["app.sync.push.pusher"],
        "app.sync.pull.puller": ["app.sync.push", "app.sync.push.pusher"],
    }


def test_no_loose_rooms() -> None:
    """app/ holds at most `__init__`, `__main__` and `cli` at its top, app/sync at most eight
    modules of its own; every package of app/ and of app/sync says its rule in its docstring's
    first line (what it holds may follow)."""
    assert {p.name for p in APP.glob("*.py")} <= TOP_MODULES
    assert len([p for p in (APP / "sync").glob("*.py") if p.name != "__init__.py"]) <= 8
    for folder in [*(APP / p for p in APP_LAYERS), *(APP / "sync" / p for p in SYNC_LAYERS if p)]:
        doc = ast.get_docstring(ast.parse((folder / "__init__.py").read_text(encoding="utf-8")))
        assert doc, f"{folder.relative_to(APP.parent)}/__init__.py says nothing of its rule"
        rule, *details = doc.splitlines()
        assert len(rule) <= 96, f"{folder.name}/__init__.py: its rule in one line"
        assert not details or details[0] == "", f"{folder.name}/__init__.py: the rule, then details"
