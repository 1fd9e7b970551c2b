"""What the window's own commands do (declared in app/ui/window/actions.py): File ▸ Profiles,
Export, Import, Close tab, Quit; Edit ▸ Undo, Redo, Revert on show, Find; Show ▸ Sync, Full sync,
Push, Outbox; Help ▸ About — with the Show and View menus' lists (app/ui/window/show_lists.py,
team_view.py) — and the start page's buttons, which are the same commands. Undo and Redo follow
the window's undo stack (`wire_undo`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QMessageBox

from app import APP_NAME
from app.profile.settings import ProfileStore
from app.ui.table.resource_tab import ResourceTab
from app.ui.window import show_lists, team_view
from app.ui.window.actions import ACTIONS

if TYPE_CHECKING:
    from app.ui.window.window_parts import ShowWindow


def handlers(window: ShowWindow) -> dict[str, Callable[[], None]]:
    """Each window command by its action's name."""

    def close_tab() -> None:
        window.on_tabs_tab_close_requested(window.tabs.currentIndex())

    def quit_() -> None:
        window.window().close()

    def push() -> None:
        window.request_push()

    def outbox() -> None:
        window.show_outbox()

    def about() -> None:
        QMessageBox.about(window.window(), f"About {APP_NAME}", window.about_text())

    return {
        "profiles": lambda: open_profiles(window),
        "export": lambda: window.export_resource(None),
        "import": lambda: import_into_current(window),
        "close_tab": close_tab,
        "quit": quit_,
        "undo": window.undo_stack.undo,
        "redo": window.undo_stack.redo,
        "revert_on_show": lambda: revert_on_show(window),
        "find": lambda: find(window),
        "sync": lambda: sync(window),
        "full_sync": lambda: sync(window, full=True),
        "push": push,
        "outbox": outbox,
        **show_lists.handlers(window),  # Show ▸ Orders, Show ▸ History of pushes
        **team_view.handlers(window),  # View ▸ Team
        "about": about,
    }


def wire_undo(window: ShowWindow) -> None:
    """Undo and Redo enabled and named as the undo stack allows; Revert on show off until an
    undo is refused."""
    undo, redo = window.actions_["undo"], window.actions_["redo"]
    undo.setEnabled(False)
    redo.setEnabled(False)
    window.actions_["revert_on_show"].setEnabled(False)
    stack = window.undo_stack
    stack.canUndoChanged.connect(undo.setEnabled)
    stack.canRedoChanged.connect(redo.setEnabled)
    stack.undoTextChanged.connect(lambda t: undo.setText(f"&Undo {t}".strip()))
    stack.redoTextChanged.connect(lambda t: redo.setText(f"&Redo {t}".strip()))


def wire_start_page(window: ShowWindow) -> None:
    """The start page's buttons: a resource opened, a file imported into one, sync, push
    (reviewed first when large, as Ctrl+S), the outbox."""
    page = window.start_page
    page.open_requested.connect(window.open_resource)
    page.import_requested.connect(lambda slug: import_into(window, slug))
    page.sync_requested.connect(lambda: sync(window))
    page.push_requested.connect(window.request_push)
    page.outbox_requested.connect(window.show_outbox)


def sync(window: ShowWindow, full: bool = False) -> None:
    if window.session is not None:
        window.session.sync(full=full)


def revert_on_show(window: ShowWindow) -> None:
    """Queue the old values of the pushed edit whose undo was refused (a new change)."""
    edits = window.undoable_edits
    if edits is not None and edits.revert_on_show() is not None:
        text = window.undo_stack.undoText()
        window.status.show_message(f"Queued: {text} (pending until Push)")
    refresh_revert(window)


REVERT_TEXT = next(a.text for a in ACTIONS if a.name == "revert_on_show")


def refresh_revert(window: ShowWindow) -> None:
    """Edit ▸ Revert on the show enabled only while it can do something, and named for what it
    reverts ("Revert city on C10010 in Customers on the show"), as Undo is."""
    edits = window.undoable_edits
    name = edits.revert_name() if edits is not None else None
    action = window.actions_["revert_on_show"]
    action.setEnabled(name is not None)
    action.setText(f"Re&vert {name} on the show" if name else REVERT_TEXT)


def import_into_current(window: ShowWindow) -> None:
    """File ▸ Import: a CSV/XLSX file into the current tab, as pending changes."""
    tab = window.tabs.currentWidget()
    if isinstance(tab, ResourceTab) and tab.importer is not None:
        tab.importer.start()


def import_into(window: ShowWindow, slug: str) -> None:
    """The start page's "Import a file…": that resource's tab, then its import."""
    tab = window.open_resource(slug)
    if tab is not None and tab.importer is not None:
        tab.importer.start()


def find(window: ShowWindow) -> None:
    tab = window.tabs.currentWidget()
    if isinstance(tab, ResourceTab):
        tab.focus_filter()


def open_profiles(window: ShowWindow) -> None:
    from app.ui.window.profile_manager import ProfileManager  # its dialog checks a show

    manager = ProfileManager(ProfileStore(), window.window())
    manager.open_requested.connect(window.profile_requested)
    manager.open()
