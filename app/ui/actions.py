"""The window's commands, declared once and rendered into menus, the toolbar and shortcuts."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu, QToolBar

Key = QKeySequence.StandardKey | str | None


@dataclass(frozen=True)
class ActionSpec:
    name: str
    text: str
    menu: str
    key: Key
    tip: str
    toolbar: bool = False


ACTIONS: tuple[ActionSpec, ...] = (
    ActionSpec("profiles", "&Profiles…", "&File", None, "Connect to a show, or manage profiles"),
    ActionSpec("export", "&Export…", "&File", "Ctrl+E", "Export the current table", True),
    ActionSpec("close_tab", "&Close tab", "&File", QKeySequence.StandardKey.Close, "Close tab"),
    ActionSpec("quit", "&Quit", "&File", QKeySequence.StandardKey.Quit, "Quit ShowDesk"),
    ActionSpec("undo", "&Undo", "&Edit", "Ctrl+Z", "Undo the last edit (before it is pushed)"),
    ActionSpec("redo", "&Redo", "&Edit", "Ctrl+Shift+Z", "Redo the edit just undone"),
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
        if spec.key is not None:
            action.setShortcut(QKeySequence(spec.key))
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
