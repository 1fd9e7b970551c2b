"""The window's commands, declared once and rendered into menus, the toolbar and shortcuts."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from PySide6.QtGui import QAction, QIcon, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu, QToolBar

from app.api.registry import RESOURCES_DIR

Key = QKeySequence.StandardKey | str | None
ACTION_ICONS = RESOURCES_DIR / "icons" / "actions"

# The key every user expects for a standard command, shown first in the menu. A platform's own
# bindings come after it (e.g. Ctrl+F4 for Close); some platforms bind nothing (Quit on Linux).
_EXPECTED = {
    QKeySequence.StandardKey.Close: "Ctrl+W",
    QKeySequence.StandardKey.Quit: "Ctrl+Q",
    QKeySequence.StandardKey.Find: "Ctrl+F",
    QKeySequence.StandardKey.Save: "Ctrl+S",
}


@dataclass(frozen=True)
class ActionSpec:
    name: str
    text: str
    menu: str
    key: Key
    tip: str
    toolbar: bool = False

    @property
    def icon_path(self) -> str:
        return str(ACTION_ICONS / f"{self.name}.svg")


ACTIONS: tuple[ActionSpec, ...] = (
    ActionSpec("profiles", "&Profiles…", "&File", None, "Connect to a show, or manage profiles"),
    ActionSpec("export", "&Export…", "&File", "Ctrl+E", "Export the current table", True),
    ActionSpec(
        "import", "&Import…", "&File", "Ctrl+I", "Import a CSV or XLSX file into the current table"
    ),
    ActionSpec("close_tab", "&Close tab", "&File", QKeySequence.StandardKey.Close, "Close tab"),
    ActionSpec("quit", "&Quit", "&File", QKeySequence.StandardKey.Quit, "Quit ShowDesk"),
    ActionSpec("undo", "&Undo", "&Edit", "Ctrl+Z", "Undo the last edit (before it is pushed)"),
    ActionSpec("redo", "&Redo", "&Edit", "Ctrl+Shift+Z", "Redo the edit just undone"),
    ActionSpec(
        "revert_on_show",
        "Re&vert on the show",
        "&Edit",
        None,
        "Queue the old values of a pushed edit (whose undo was refused) as a new change",
    ),
    ActionSpec("find", "&Filter…", "&Edit", QKeySequence.StandardKey.Find, "Filter the table"),
    ActionSpec("sync", "&Sync", "&Show", "F5", "Fetch what changed on the server", True),
    ActionSpec("full_sync", "&Full sync", "&Show", "Shift+F5", "Fetch everything again"),
    ActionSpec(
        "push", "&Push changes", "&Show", QKeySequence.StandardKey.Save, "Send the outbox", True
    ),
    ActionSpec(
        "outbox",
        "&Outbox",
        "&Show",
        "Ctrl+Shift+O",
        "Pending, failed and conflicting changes",
        True,
    ),
    ActionSpec("about", "&About ShowDesk", "&Help", None, "Version and where files live"),
)


def render(window: QMainWindow, handlers: Mapping[str, Callable[[], None]]) -> dict[str, QAction]:
    """Create every action with its shortcut, put it in its menu (and the toolbar), connect it."""
    actions: dict[str, QAction] = {}
    menus: dict[str, QMenu] = {}
    toolbar = QToolBar("Main", window)
    toolbar.setObjectName("main-toolbar")
    window.addToolBar(toolbar)
    for spec in ACTIONS:
        action = QAction(spec.text, window)
        action.setObjectName(f"action-{spec.name}")
        action.setShortcuts(shortcuts(spec.key))
        if spec.toolbar:
            action.setIcon(QIcon(spec.icon_path))
        action.setStatusTip(spec.tip)
        action.setToolTip(spec.tip)
        action.triggered.connect(handlers[spec.name])
        if spec.menu not in menus:
            menus[spec.menu] = window.menuBar().addMenu(spec.menu)
        menus[spec.menu].addAction(action)
        if spec.toolbar:
            toolbar.addAction(action)
        actions[spec.name] = action
    return actions


def shortcuts(key: Key) -> list[QKeySequence]:
    """The key sequences for a declared key: the expected one first, then the platform's."""
    if key is None:
        return []
    if isinstance(key, str):
        return [QKeySequence(key)]
    found = [QKeySequence(_EXPECTED[key])] if key in _EXPECTED else []
    found += [seq for seq in QKeySequence.keyBindings(key) if seq not in found]
    return found
