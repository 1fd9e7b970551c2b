"""What the window remembers of its layout, in the QSettings passed in.

Geometry, toolbars and the tree's width are the window's own (`window/…`): they stay as the user
left them when another profile's show is opened. The open tabs belong to a profile
(`tabs/<profile>`). Tables remember their columns, and forms their side panel, themselves
(app/ui/table/view_state.py, form_side.py).
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QSettings
from PySide6.QtWidgets import QMainWindow, QSplitter

TREE_WIDTH = 260


def saved_tabs(settings: QSettings, profile: str) -> list[str]:
    value = settings.value(f"tabs/{profile}", [])
    if isinstance(value, str):
        return [value] if value else []
    return [str(v) for v in value] if isinstance(value, list) else []


def save_tabs(settings: QSettings, profile: str, slugs: list[str]) -> None:
    settings.setValue(f"tabs/{profile}", slugs)


def restore_window(window: QMainWindow, settings: QSettings) -> None:
    geometry = settings.value("window/geometry")
    if isinstance(geometry, QByteArray):
        window.restoreGeometry(geometry)
    state = settings.value("window/state")
    if isinstance(state, QByteArray):
        window.restoreState(state)


def save_window(window: QMainWindow, settings: QSettings) -> None:
    settings.setValue("window/geometry", window.saveGeometry())
    settings.setValue("window/state", window.saveState())


def restore_tree_width(splitter: QSplitter, settings: QSettings) -> None:
    """The tree as wide as the user left it (whichever show was open), the centre the rest."""
    value = settings.value("window/tree_width", TREE_WIDTH)
    try:
        width = max(int(str(value)), 120)
    except ValueError:
        width = TREE_WIDTH
    splitter.setStretchFactor(0, 0)
    splitter.setStretchFactor(1, 1)  # a wider window widens the centre, not the tree
    splitter.setSizes([width, max(splitter.width() - width, 600)])


def save_tree_width(splitter: QSplitter, settings: QSettings) -> None:
    sizes = splitter.sizes()
    if splitter.count() == 2 and sizes[0] > 0:
        settings.setValue("window/tree_width", sizes[0])
