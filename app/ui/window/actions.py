"""The window's commands, declared once and rendered into menus, the toolbar and shortcuts.

`ACTIONS` are the window's own commands. The grid's gestures (`GRID_COMMANDS`, declared in
app/ui/table/grid_keys.py) are listed in the Edit menu with their keys too: the table owns those
keys while it has focus (so Ctrl+C in a text box still copies its text), and the menu entry runs
the gesture on the current tab's table. `KEYS_ELSEWHERE` names keys no menu holds (Enter moves
down, Ctrl+click opens a reference). Help ▸ Keyboard shortcuts lists all three from this data.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from PySide6.QtCore import QKeyCombination, Qt
from PySide6.QtGui import QAction, QIcon, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu, QToolBar

from app.api.registry import RESOURCES_DIR
from app.ui.table.grid_keys import GRID_COMMANDS

Key = QKeySequence.StandardKey | str | tuple[str, ...] | None
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
    ActionSpec("redo", "&Redo", "&Edit", ("Ctrl+Y", "Ctrl+Shift+Z"), "Redo the edit just undone"),
    ActionSpec(
        "revert_on_show",
        "Re&vert on the show",
        "&Edit",
        None,
        "Queue the old values of a pushed edit (whose undo was refused) as a new change",
    ),
    ActionSpec("find", "&Filter…", "&Edit", QKeySequence.StandardKey.Find, "Filter the table"),
    ActionSpec("next_tab", "&Next tab", "&View", ("Ctrl+Tab", "Ctrl+PgDown"), "Show the next tab"),
    ActionSpec(
        "previous_tab",
        "P&revious tab",
        "&View",
        ("Ctrl+Shift+Tab", "Ctrl+PgUp"),
        "Show the previous tab",
    ),
    ActionSpec(
        "next_pane",
        "&Move focus: tree → table → form",
        "&View",
        "F6",
        "Move the keyboard focus to the next part of the window",
    ),
    ActionSpec(
        "previous_pane",
        "Move focus &back",
        "&View",
        "Shift+F6",
        "Move the keyboard focus to the previous part of the window",
    ),
    ActionSpec("team", "&Team", "&View", None, "Who is in the team: online or not, last seen"),
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
    ActionSpec("orders", "O&rders", "&Show", None, "Orders: PO, customer, delivery date, totals"),
    ActionSpec(
        "history", "&History of pushes", "&Show", None, "Every change pushed and its result"
    ),
    ActionSpec(
        "shortcuts",
        "&Keyboard shortcuts",
        "&Help",
        "F1",
        "Every command and its keys, in one list",
    ),
    ActionSpec("about", "&About ShowDesk", "&Help", None, "Version and where files live"),
)

# Keys that no menu entry holds, for the shortcuts list: (keys, what they do, where).
KEYS_ELSEWHERE: tuple[tuple[str, str, str], ...] = (
    ("Enter", "Move down to the next row (after committing an edit)", "Table"),
    ("F2", "Edit the current cell", "Table"),
    ("Escape", "Cancel the edit of a cell", "Table"),
    ("Tab / Shift+Tab", "Next / previous cell; leaves a list inside a form", "Table, form"),
    ("Ctrl+click", "Open the record a reference cell names (a customer in an order line)", "Table"),
    ("Ctrl+Return", "Open the record the current reference cell names", "Table"),
    ("Single click", "Open a resource from the tree", "Tree"),
)


def grid_entry(name: str) -> str:
    """The window's action name for a grid command (its Edit menu entry)."""
    return f"grid_{name}"


def key_text(key: Key) -> str:
    """The keys of a command as the user reads them ("Ctrl+Y, Ctrl+Shift+Z"): the keys of a
    keyboard, not the platform's extra media keys (a "Copy" or "Close" key) also bound."""
    native = QKeySequence.SequenceFormat.NativeText
    typed = [seq for seq in shortcuts(key) if seq.count() and _on_a_keyboard(seq)]
    return ", ".join(seq.toString(native) for seq in typed)


def _on_a_keyboard(seq: QKeySequence) -> bool:
    first: QKeyCombination = seq[0]  # type: ignore[index]  # the stubs miss operator[]
    return int(first.key().value) < int(Qt.Key.Key_Back.value)  # from Key_Back: media keys


def render(window: QMainWindow, handlers: Mapping[str, Callable[[], None]]) -> dict[str, QAction]:
    """Create every action with its shortcut, put it in its menu (and the toolbar), connect it."""
    actions: dict[str, QAction] = {}
    menus: dict[str, QMenu] = {}
    toolbar = QToolBar("Main", window)
    toolbar.setObjectName("main-toolbar")
    toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)  # words, not riddles
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
        if spec.name == "find":
            _add_grid_entries(window, menus[spec.menu], handlers, actions)
    return actions


def _add_grid_entries(
    window: QMainWindow,
    menu: QMenu,
    handlers: Mapping[str, Callable[[], None]],
    actions: dict[str, QAction],
) -> None:
    """The grid's gestures in the Edit menu, their keys shown (the table owns them: see above)."""
    menu.addSeparator()
    for command in GRID_COMMANDS:
        name = grid_entry(command.name)
        keys = key_text(command.key or None)
        action = QAction(f"{command.text}\t{keys}" if keys else command.text, window)
        action.setObjectName(f"action-{name}")
        action.setStatusTip(f"{command.text.rstrip('…')} in the current table")
        action.triggered.connect(handlers[name])
        menu.addAction(action)
        actions[name] = action


def shortcuts(key: Key) -> list[QKeySequence]:
    """The key sequences for a declared key: the expected one first, then the platform's."""
    if key is None:
        return []
    if isinstance(key, str):
        return [QKeySequence(key)]
    if isinstance(key, tuple):
        return [QKeySequence(k) for k in key]
    found = [QKeySequence(_EXPECTED[key])] if key in _EXPECTED else []
    found += [seq for seq in QKeySequence.keyBindings(key) if seq not in found]
    return found
