"""What the window's errands (menus, lists, forms, the session's events) use of the main window.

`MainWindow` (app/ui/window/main_window.py) imports the modules that run them; they name the
window by `ShowWindow` below, never by importing main_window back.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from PySide6.QtCore import QMetaObject, SignalInstance
    from PySide6.QtGui import QAction, QUndoStack
    from PySide6.QtWidgets import QTabWidget, QWidget

    from app.ui.outbox.outbox_view import OutboxView
    from app.ui.session.session import ShowSession
    from app.ui.session.tasks import TaskRunner
    from app.ui.table.resource_tab import ResourceTab
    from app.ui.table.undo_commands import UndoableEdits
    from app.ui.window.resource_tree import ResourceTree
    from app.ui.window.start_page import StartPage
    from app.ui.window.status_bar import ShowStatusBar
    from app.wording.references import ReferenceNames

Ask = Callable[[str], bool]  # a yes/no question to the user
AskPath = Callable[[str, str], Path | None]  # a file to save (title, suggested name); None: no


class PushOnSave(Protocol):
    """The window's answer to a form's Save when the profile pushes a record as it is saved."""

    def on_form_push_requested(self, seqs: list[int]) -> None: ...


class ShowWindow(Protocol):
    """The main window as its errands see it: the show it is on, its tabs and status bar, its
    questions to the user, its undo stack and actions, and the doors it keeps (push, outbox)."""

    session: ShowSession | None
    references: ReferenceNames | None
    tabs: QTabWidget
    tree: ResourceTree | None
    status: ShowStatusBar
    start_page: StartPage
    outbox_view: OutboxView | None
    tasks: TaskRunner
    ask: Ask
    ask_path: AskPath
    undo_stack: QUndoStack
    undoable_edits: UndoableEdits | None
    actions_: dict[str, QAction]

    @property
    def events(self) -> PushOnSave | None: ...

    @property
    def profile_requested(self) -> SignalInstance: ...

    def window(self) -> QWidget:
        """The window as a widget (Qt's own): the parent of what its errands open."""
        ...

    def open_resource(self, slug: str, new_tab: bool = False) -> ResourceTab | None: ...

    def show_outbox(self, slug: str | None = None) -> OutboxView | None: ...

    def show_failures(self) -> None: ...

    def request_push(self, seqs: list[int] | None = None) -> None: ...

    def follow(self, *links: QMetaObject.Connection) -> None: ...

    def update_title(self) -> None: ...

    def about_text(self) -> str: ...

    def export_resource(self, slug: str | None) -> None: ...

    def on_tabs_tab_close_requested(self, index: int) -> None: ...
