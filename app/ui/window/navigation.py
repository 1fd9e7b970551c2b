"""Getting around the window by keyboard: tabs, the parts of the window, the grid's commands.

The handlers `actions.render` connects for the commands that act on whatever is current:
Ctrl+Tab / Ctrl+PgDn and Ctrl+Shift+Tab / Ctrl+PgUp switch tabs from anywhere (a window
shortcut, so a focused grid does not keep them); F6 / Shift+F6 move the focus between the
resource tree, the current table and its record form; the Edit menu's grid entries run the
gesture on the current tab's table; Help ▸ Keyboard shortcuts opens the list. A reference
followed from a grid (Ctrl+click) opens its resource's tab on that record.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from PySide6.QtWidgets import QApplication, QMainWindow, QTabWidget, QWidget

from app.ui.form.pickers import ReferencePicker
from app.ui.table.grid_keys import GRID_COMMANDS
from app.ui.table.resource_tab import ResourceTab
from app.ui.window.actions import grid_entry
from app.ui.window.shortcuts_dialog import ShortcutsDialog


class Window(Protocol):
    """What navigation needs of the main window."""

    tabs: QTabWidget
    session: ShowSession | None

    @property
    def tree(self) -> QWidget | None: ...

    def open_resource(self, slug: str, new_tab: bool = False) -> ResourceTab | None: ...


# Where the keyboard is must show at a glance: a clear frame on the focused list, table or box.
FOCUS_STYLE = (
    "QAbstractItemView:focus, QLineEdit:focus, QComboBox:focus, QAbstractSpinBox:focus,"
    " QPlainTextEdit:focus { border: 2px solid palette(highlight); }"
)

if TYPE_CHECKING:
    from app.ui.session.session import ShowSession


def install(window: Window) -> dict[str, Callable[[], None]]:
    """Set the window up for the keyboard (focus clearly visible) and answer the handlers of
    its navigation commands, for `actions.render`."""
    if isinstance(window, QWidget):
        window.setStyleSheet(FOCUS_STYLE)
    return handlers(window)


def handlers(window: Window) -> dict[str, Callable[[], None]]:
    """The window's navigation commands, by action name (see app/ui/window/actions.py)."""
    found: dict[str, Callable[[], None]] = {
        "next_tab": lambda: switch_tab(window.tabs, +1),
        "previous_tab": lambda: switch_tab(window.tabs, -1),
        "next_pane": lambda: _ignore(move_focus(window, +1)),
        "previous_pane": lambda: _ignore(move_focus(window, -1)),
        "shortcuts": lambda: _ignore(show_shortcuts(window)),
    }
    for command in GRID_COMMANDS:
        found[grid_entry(command.name)] = _on_grid(window, command.name)
    return found


def _ignore(_result: object) -> None:
    """A menu's handler answers nothing; the functions answer what they did, for tests."""


def _on_grid(window: Window, name: str) -> Callable[[], None]:
    def run() -> None:
        tab = window.tabs.currentWidget()
        if isinstance(tab, ResourceTab) and tab.grid is not None:
            tab.table.setFocus()
            tab.grid.actions[name].trigger()

    return run


def switch_tab(tabs: QTabWidget, step: int) -> None:
    """The next (or previous) tab, round the end."""
    if tabs.count():
        tabs.setCurrentIndex((tabs.currentIndex() + step) % tabs.count())
        current = tabs.currentWidget()
        if isinstance(current, ResourceTab):
            current.table.setFocus()


def panes(window: Window) -> list[QWidget]:
    """The parts F6 visits, in order: the tree, the current table, its record form."""
    found: list[QWidget | None] = [window.tree]
    tab = window.tabs.currentWidget()
    if isinstance(tab, ResourceTab):
        found += [tab.table, tab.form]
    elif tab is not None:
        found.append(tab)
    return [p for p in found if p is not None and p.isVisible() and p.isEnabled()]


def move_focus(window: Window, step: int) -> QWidget | None:
    """Focus the next (or previous) part of the window; answer the one now focused."""
    found = panes(window)
    if not found:
        return None
    focused = QApplication.focusWidget()
    here = next(
        (i for i, p in enumerate(found) if focused is not None and p.isAncestorOf(focused)),
        next((i for i, p in enumerate(found) if p is focused), -1 if step > 0 else 0),
    )
    target = found[(here + step) % len(found)]
    _focus_inside(target)
    return target


def _focus_inside(pane: QWidget) -> None:
    """A pane that takes focus itself gets it; else its first child that does (a form's field)."""
    pane.setFocus()
    if not pane.hasFocus() or QApplication.focusWidget() is pane:
        inner = pane.nextInFocusChain()
        if inner is not None and pane.isAncestorOf(inner):
            inner.setFocus()


def show_shortcuts(window: Window) -> ShortcutsDialog:
    parent = window if isinstance(window, QMainWindow) else None
    dialog = ShortcutsDialog(parent)
    dialog.show()  # a new window: on top already
    dialog.activateWindow()  # it takes the keyboard: Escape closes it
    return dialog


def open_reference(window: Window, target: str, key: str) -> ResourceTab | None:
    """Open the `target` resource's tab on the record keyed `key` (a followed reference)."""
    if window.session is None or target not in window.session.registry:
        current = window.tabs.currentWidget()
        if isinstance(current, ResourceTab):
            current.message.emit(f"{key} is not a record ShowDesk can open")
        return None
    tab = window.open_resource(target)
    if tab is None:
        return None
    record_id = _record_id(window, tab, key)
    row = tab.model.row_of(record_id) if record_id is not None else -1
    if row < 0 and record_id is not None and tab.model.query.text:
        tab.filter_edit.clear()
        tab.model.set_text_filter("")
        row = tab.model.row_of(record_id)
    if row < 0:
        tab.message.emit(f"{tab.resource.title}: no record {key} in the cache (sync it?)")
        return tab
    index = tab.model.index(row, max(tab.model.column_of(tab.resource.key), 0))
    tab.table.setCurrentIndex(index)
    tab.table.scrollTo(index)
    tab.table.setFocus()
    return tab


def _record_id(window: Window, tab: ResourceTab, key: str) -> str | None:
    if window.session is None:
        return None
    cache = window.session.cache
    found = cache.find_by_key(tab.resource.slug, key)
    if found:
        return str(found[0]["id"])
    return key if cache.get(tab.resource.slug, key) is not None else None


def follow_references(window: Window, tab: ResourceTab) -> None:
    """Ctrl+click on a reference cell of `tab`, or Open beside a reference field of its form,
    opens the record it names."""

    def follow(target: str, key: str) -> None:
        open_reference(window, target, key)

    if tab.grid is not None:
        tab.grid.keys.reference_requested.connect(follow)
    if tab.form is not None:
        for picker in tab.form.findChildren(ReferencePicker):
            picker.open_requested.connect(follow)
