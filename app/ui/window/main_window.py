"""The main window: resource tree │ one tab per opened resource (and the outbox) │ status bar.

The window holds no data of its own: tables read the cache, edits go to the outbox, and the
`ShowSession` does every network call. State that outlives the window — geometry, the open tabs
of each profile — is kept in the QSettings passed in.

Edits: one `QUndoStack` per window, cleared when a show is shown or let go — so it is in effect
per open show: Edit ▸ Undo lives on the window, and an undo must never replay a command on
another show's outbox. `UndoableEdits` (app/ui/table/undo_commands.py) pushes every table edit
on it, through the session's `Editor` (an Editor over the same cache and outbox until then).

What its menus, toolbar and start page do: app/ui/window/menu_commands.py. The modules it hands
itself to see it as a `ShowWindow` (app/ui/window/window_parts.py): none imports this one.

The start (issue 17): `show_local` paints the show from disk — tree, restored tabs — before
anything that talks to the show is imported; `attach` then wires the session over it.

The outbox: the window does not fan refreshes out. Whatever writes the outbox tells the session
(`ShowSession.outbox_written` / `changes_written`), and the views of the outbox — each resource
tab's model (`ShowSession.watch_outbox`), the outbox view, the status bar's counts — subscribe to
its one `outbox_changed(slugs)` signal; forms and panels follow the push's results.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QMetaObject, QObject, QSettings, Qt, Signal
from PySide6.QtGui import QCloseEvent, QUndoStack
from PySide6.QtWidgets import QMainWindow, QSplitter, QTabWidget, QWidget

from app import APP_NAME
from app.profile.local_show import LocalShow
from app.sync.edit.editor import Editor
from app.ui.common.files import ask_save_path
from app.ui.session.tasks import TaskRunner
from app.ui.table.resource_tab import ResourceTab
from app.ui.table.undo_commands import UNDO_LIMIT, Outcome, UndoableEdits
from app.ui.window import (
    actions,
    layout_memory,
    menu_commands,
    navigation,
    record_forms,
    show_lists,
    show_tabs,
    team_view,
)
from app.ui.window.asking import ask_user
from app.ui.window.centre import ShowCentre
from app.ui.window.focus_keeper import FocusKeeper
from app.ui.window.resource_tree import ResourceTree
from app.ui.window.status_bar import ShowStatusBar
from app.ui.window.window_parts import Ask, AskPath
from app.wording.references import ReferenceNames

if TYPE_CHECKING:
    from app.ui.outbox.outbox_view import OutboxView
    from app.ui.session.session import ShowSession
    from app.ui.window.push_review import PushGate
    from app.ui.window.session_events import SessionEvents


class MainWindow(QMainWindow):
    """ShowDesk's window on one show at a time (`attach` a session, `detach` it).

    Signals: `profile_requested(str)` — the user chose another saved profile to open.
    """

    profile_requested = Signal(str)

    def __init__(
        self,
        settings: QSettings,
        tasks: TaskRunner,
        *,
        ask: Ask | None = None,
        ask_path: AskPath | None = None,
    ) -> None:
        super().__init__()
        self.settings = settings
        self.tasks = tasks
        self.session: ShowSession | None = None
        self.local: LocalShow | None = None  # the show shown from disk (attached or not yet)
        self.offline_note: str | None = None  # why the shown show has no session (not signed in)
        self.references: ReferenceNames | None = None
        self.ask: Ask = ask or self._ask_user
        self.ask_path: AskPath = ask_path or self._ask_save_path
        self.tabs = QTabWidget(self, tabsClosable=True, movable=True, documentMode=True)
        self.tabs.tabCloseRequested.connect(self.on_tabs_tab_close_requested)
        self.tabs.currentChanged.connect(self.on_tabs_current_changed)
        self.status = ShowStatusBar(self)
        self.setStatusBar(self.status)
        self.tree: ResourceTree | None = None
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.centre = ShowCentre(self.tabs, self)  # the start page when no tab is open
        self.start_page = self.centre.start_page
        menu_commands.wire_start_page(self)
        self.splitter.addWidget(self.centre)
        self.splitter.setCollapsible(0, False)  # the centre (the tree goes in before it)
        self.setCentralWidget(self.splitter)
        self.outbox_view: OutboxView | None = None
        self._links: list[QMetaObject.Connection] = []
        self.undo_stack = QUndoStack(self)
        self.undo_stack.setUndoLimit(UNDO_LIMIT)
        self.undoable_edits: UndoableEdits | None = None
        self.events: SessionEvents | None = None  # the attached session's signals, its pushes
        handlers = {**menu_commands.handlers(self), **navigation.install(self)}
        self.actions_ = actions.render(self, handlers)  # File, Edit, Show… (menu_commands.py)
        menu_commands.wire_undo(self)
        tasks.on_error = self.on_tasks_error
        self.focus_keeper = FocusKeeper(self, self._keyboard_home)  # back after a dialog
        self.setWindowTitle(APP_NAME)
        self.resize(1280, 800)
        layout_memory.restore_window(self, settings)

    # ------------------------------------------------------------------------------ session

    def show_local(self, local: LocalShow) -> None:
        """Show this show from disk: tree, tabs restored — before any connection (first paint).

        Editing works at once (edits go to the outbox); forms, the status bar's connection and
        everything that needs the show follow when its session is attached (`attach`)."""
        self.local = local
        self.offline_note = None
        profile = local.profile  # never another's
        self.status.set_profile(profile.name, profile.show_id, push_on_save=profile.push_on_save)
        self.references = ReferenceNames(local.cache)
        self.undo_stack.clear()
        self.undoable_edits = UndoableEdits(
            Editor(local.cache, local.outbox, local.registry), self.undo_stack, self
        )
        self.undoable_edits.applied.connect(self.on_edits_applied)
        self.undoable_edits.refused.connect(self.status.show_message)  # issue 14 (k6): undo
        # Edit ▸ Revert on the show: enabled, and named, only while it can do something
        self.undoable_edits.revertible_changed.connect(self.on_revert_state_changed)
        self.undoable_edits.applied.connect(self.on_revert_state_changed)
        self.undoable_edits.stepped.connect(self.status.show_message)  # "Undone: …" (issue 30)
        self.tree = ResourceTree(local.registry, owner=self)  # counts: with the session
        self.tree.set_not_offered(local.cache.not_offered())
        self.tree.open_requested.connect(self.open_resource)
        self.tree.sync_requested.connect(self.on_tree_sync_requested)
        self.tree.export_requested.connect(self.export_resource)
        self.splitter.insertWidget(0, self.tree)
        layout_memory.restore_tree_width(self.splitter, self.settings)
        self.update_title()
        for slug in layout_memory.saved_tabs(self.settings, local.profile.name):
            if slug in local.registry:
                self.open_resource(slug, True)

    def on_tree_sync_requested(self, slug: str) -> None:
        if self.session is not None:
            self.session.sync([slug])

    def first_painted(self) -> list[QWidget]:
        """What the first paint shows of the show: its tree and the current tab's table."""
        tab = self.tabs.currentWidget()
        table = [tab.table] if isinstance(tab, ResourceTab) else []
        return [self.tree, *table] if self.tree is not None else []

    def attach(self, session: ShowSession) -> None:
        """Connect the shown show to its session: forms, status bar, title, start page.

        The show is first shown from the session's cache (`show_local`) unless it already is."""
        if self.local is None or self.local.cache is not session.cache:
            parts = (session.profile, session.registry, session.cache, session.outbox)
            self.show_local(LocalShow(*parts))
        from app.ui.window.session_events import SessionEvents  # the network's side: after paint

        self.session = session
        if self.undoable_edits is not None:  # one Editor per show: the session's from now on
            self.undoable_edits.editor = session.editor
        self.events = SessionEvents(self, session)  # its signals → status bar, title, pushes
        self.follow(*self.centre.follow(session))
        self.follow(*team_view.follow(self, session))  # issue 15: the team
        for tab in self.resource_tabs():
            self._connect_tab(tab, session)
        revert_follows = self.on_revert_state_changed  # a push, a sync: old values may be back
        self.follow(session.outbox_changed.connect(revert_follows))
        self.follow(session.data_changed.connect(revert_follows))
        self.update_title()
        self.events.show_counts()  # the tabs shown already read the cache: no refresh
        self.events.on_outbox_changed([])

    def _connect_tab(self, tab: ResourceTab, session: ShowSession) -> None:
        """What a tab needs of the session: its outbox's changes, its form and panels."""
        slug = tab.resource.slug
        session.watch_outbox(slug, tab).changed.connect(tab.model.refresh_pending)
        record_forms.attach_form(self, tab, session)  # the form beside it, and its panels
        navigation.follow_references(self, tab)  # Ctrl+click on a reference opens its record

    def follow(self, *links: QMetaObject.Connection) -> None:
        """Connections of the window's views to the attached session: cut when it is detached."""
        self._links += links

    def detach(self) -> None:
        """Let go of the session: state saved, tabs and tree removed, signals disconnected."""
        self.save_state()
        for link in self._links:
            QObject.disconnect(link)
        self._links = []
        while self.tabs.count():
            widget = self.tabs.widget(0)
            self.tabs.removeTab(0)
            if widget is not None:
                widget.deleteLater()
        self.outbox_view = None
        if self.events is not None:
            self.events.close()
            self.events = None
        self.undo_stack.clear()
        if self.undoable_edits is not None:
            self.undoable_edits.deleteLater()
            self.undoable_edits = None
        self.on_revert_state_changed()  # the closed show's pushed edit is not revertible here
        if self.tree is not None:
            self.tree.hide()
            self.tree.setParent(None)  # out of the splitter now: the next show's tree goes in
            self.tree.deleteLater()
            self.tree = None
        self.session = None
        self.local = None
        self.offline_note = None
        self.status.set_profile("", "")
        self.status.forget_show()
        self.status.clearMessage()
        self.references = None
        self.centre.forget()
        self.update_title()

    def work_offline(self, why: str) -> None:
        """The shown show stays without a session (no secret was given): said in the title, the
        status bar's connection and a message that stays until the show is closed."""
        self.offline_note = why
        self.status.set_online(False)
        self.status.connection.setToolTip(why)
        self.status.show_message(why, 0)
        self.update_title()

    def update_title(self) -> None:
        """The show's profile, and whether it is offline, in the window's title."""
        if self.local is None:
            self.setWindowTitle(APP_NAME)
            return
        session_offline = self.session is not None and self.session.online is False
        offline = " (offline)" if session_offline or self.offline_note else ""
        self.setWindowTitle(f"{self.local.profile.name}{offline} — {APP_NAME}")

    # -------------------------------------------------------------------------------- tabs

    def open_resource(self, slug: str, new_tab: bool = False) -> ResourceTab | None:
        local = self.local
        if local is None or self.references is None:
            return None
        existing = self.tab_for(slug)
        if existing is not None and not new_tab:
            self.tabs.setCurrentWidget(existing)
            return existing
        res = local.registry[slug]
        tab = ResourceTab(
            local.cache,
            res,
            self.references,
            self.settings,
            outbox=local.outbox,
            edits=self.undoable_edits,
            profile=local.profile.name,  # its filters are this show's
        )
        tab.selection_summary.connect(self.on_tab_selection_summary)
        tab.model.set_background(show_tabs.in_background(self.tasks))
        tab.model.query_running.connect(self.on_model_query_running)
        tab.message.connect(self.status.show_message)
        tab.review_requested.connect(self.show_outbox)
        if self.session is not None:  # else when it is attached
            self._connect_tab(tab, self.session)
        self.tabs.setCurrentIndex(self.tabs.addTab(tab, res.title))
        return tab

    def on_model_query_running(self, running: bool) -> None:
        self.status.show_busy("Sorting and filtering…" if running else None)

    def tab_for(self, slug: str) -> ResourceTab | None:
        return show_tabs.tab_for(self.tabs, slug)

    def resource_tabs(self) -> list[ResourceTab]:
        return show_tabs.resource_tabs(self.tabs)

    def show_outbox(self, slug: str | None = None) -> OutboxView | None:
        """The outbox tab, reviewing every change (or one resource's: a tab's badge)."""
        return show_lists.open_outbox(self, slug)

    def show_failures(self) -> None:
        """The outbox on the changes the last push did not get through (the push summary)."""
        view = self.show_outbox()
        if view is not None:
            view.show_failures()

    @property
    def push_gate(self) -> PushGate | None:
        """The door every push of this window goes through (None with no show attached)."""
        return self.events.gate if self.events is not None else None

    def request_push(self, seqs: list[int] | None = None) -> None:
        """Push (these changes only, when given): through the review when it is large."""
        if self.events is not None:
            self.events.request_push(seqs)

    def _keyboard_home(self) -> QWidget | None:
        """Where the keyboard goes when the widget that had it is gone: the table, the tree."""
        tab = self.tabs.currentWidget()
        return tab.table if isinstance(tab, ResourceTab) else self.tree

    def on_tabs_tab_close_requested(self, index: int) -> None:
        show_tabs.close_tab(self.tabs, index)

    def on_tabs_current_changed(self, _index: int) -> None:
        """Another tab on screen: its count in the status bar, its resource the tree's highlight
        (the outbox's: none)."""
        tab = self.tabs.currentWidget()
        if not isinstance(tab, ResourceTab):
            self.status.set_selection_summary("")
            if self.tree is not None:
                self.tree.clearSelection()
            return
        self.status.set_selection_summary(tab.summary())
        if self.tree is not None:
            self.tree.select_resource(tab.resource.slug)

    def on_tab_selection_summary(self, text: str) -> None:
        """A tab's rows or selection changed: said if it is the tab on screen (a tab behind it,
        refreshed by a sync, never writes its count over the shown tab's)."""
        if self.sender() is self.tabs.currentWidget():
            self.status.set_selection_summary(text)

    # ------------------------------------------------------------------------------ events

    def on_edits_applied(self, outcome: Outcome) -> None:
        """An edit or undo of a table wrote the outbox: the session tells the views."""
        if self.session is not None:
            self.session.outbox_written([outcome.slug])

    def on_revert_state_changed(self, *_args: object) -> None:
        menu_commands.refresh_revert(self)

    def on_tasks_error(self, what: str, exc: BaseException) -> None:
        message = getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}"
        self.status.show_message(f"{what} failed: {message}")

    # ------------------------------------------------------------------------------ actions

    def about_text(self) -> str:
        """The version, and where settings, the cache and outbox, and the log file live."""
        from app.ui.window.about_export import about_text

        return about_text(self.session)

    def export_resource(self, slug: str | None) -> None:
        """Export from the cache to a file: the current tab's view (its filters, sort and shown
        columns) when `slug` is None (File ▸ Export), else the whole resource (the tree)."""
        from app.ui.window.about_export import export_resource  # the exporter: when asked

        export_resource(self, slug)

    # ---------------------------------------------------------------------- asking the user

    def _ask_user(self, question: str) -> bool:
        return ask_user(self, question)  # titled with the question, never a bare "ShowDesk"

    def _ask_save_path(self, title: str, suggested: str) -> Path | None:
        return ask_save_path(self, title, suggested, "CSV (*.csv);;Excel (*.xlsx);;JSON (*.json)")

    # --------------------------------------------------------------------------- persistence

    def save_state(self) -> None:
        layout_memory.save_window(self, self.settings)
        if self.tree is not None:
            layout_memory.save_tree_width(self.splitter, self.settings)
        if self.local is not None:
            tabs = [t.resource.slug for t in self.resource_tabs()]
            layout_memory.save_tabs(self.settings, self.local.profile.name, tabs)
        for tab in self.resource_tabs():
            tab.save_state()
        self.settings.sync()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.save_state()
        super().closeEvent(event)
