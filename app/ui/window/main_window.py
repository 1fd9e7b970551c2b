"""The main window: resource tree │ one tab per opened resource (and the outbox) │ status bar.

The window holds no data of its own: tables read the cache, edits go to the outbox, and the
`ShowSession` does every network call. State that outlives the window — geometry, the open tabs
of each profile — is kept in the QSettings passed in.

Edits: one `QUndoStack` per window, cleared when a session is attached or detached — so it is
in effect per open show: Edit ▸ Undo lives on the window, and an undo must never replay a
command on another show's outbox. `UndoableEdits` (app/ui/table/undo_commands.py) pushes every
table edit on it, through the session's `Editor`.

The outbox: the window does not fan refreshes out. Whatever writes the outbox tells the session
(`ShowSession.outbox_written` / `changes_written`), and the views of the outbox — each resource
tab's model (`ShowSession.watch_outbox`), the outbox view, the status bar's counts — subscribe to
its one `outbox_changed(slugs)` signal; forms and panels follow the push's results.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QMetaObject, QObject, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QUndoStack
from PySide6.QtWidgets import QMainWindow, QMessageBox, QSplitter, QTabWidget

from app import APP_NAME
from app.settings import ProfileStore
from app.sync.puller import SyncReport
from app.sync.push_review import summarize
from app.sync.pusher import PushReport
from app.ui.common.files import ask_save_path
from app.ui.common.references import ReferenceNames
from app.ui.form.record_form import RecordForm
from app.ui.outbox.outbox_view import OutboxView
from app.ui.panels.attach import attach_panels
from app.ui.panels.record_panel import PanelContext
from app.ui.session.session import ShowSession
from app.ui.session.tasks import TaskRunner
from app.ui.table.resource_tab import ResourceTab
from app.ui.table.undo_commands import UNDO_LIMIT, Outcome, UndoableEdits
from app.ui.table.view_export import view_options
from app.ui.window import actions, layout_memory, navigation, show_lists, show_tabs, team_view
from app.ui.window.about_export import about_text, export_to_file
from app.ui.window.centre import ShowCentre
from app.ui.window.profile_manager import ProfileManager
from app.ui.window.push_review import PushGate
from app.ui.window.resource_tree import ResourceTree
from app.ui.window.status_bar import ShowStatusBar

Ask = Callable[[str], bool]
AskPath = Callable[[str, str], Path | None]


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
        self.references: ReferenceNames | None = None
        self._ask = ask or self._ask_user
        self._ask_path = ask_path or self._ask_save_path
        self.tabs = QTabWidget(self, tabsClosable=True, movable=True, documentMode=True)
        self.tabs.tabCloseRequested.connect(self.on_tabs_tab_close_requested)
        self.tabs.currentChanged.connect(self.on_tabs_current_changed)
        self.status = ShowStatusBar(self)
        self.setStatusBar(self.status)
        self.tree: ResourceTree | None = None
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.centre = ShowCentre(self.tabs, self)  # the start page when no tab is open
        self.start_page = self.centre.start_page
        self._wire_start_page()
        self.splitter.addWidget(self.centre)
        self.splitter.setCollapsible(0, False)  # the centre (the tree goes in before it)
        self.setCentralWidget(self.splitter)
        self.outbox_view: OutboxView | None = None
        self._links: list[QMetaObject.Connection] = []
        self.undo_stack = QUndoStack(self)
        self.undo_stack.setUndoLimit(UNDO_LIMIT)
        self.undoable_edits: UndoableEdits | None = None
        self.push_gate: PushGate | None = None  # every push: reviewed first when large
        self.actions_ = actions.render(self, {**self._handlers(), **navigation.install(self)})
        self._wire_undo()
        tasks.on_error = self.on_tasks_error
        self.setWindowTitle(APP_NAME)
        self.resize(1280, 800)
        layout_memory.restore_window(self, settings)

    # ------------------------------------------------------------------------------ session

    def attach(self, session: ShowSession) -> None:
        """Show this session's show: tree, tabs restored, status bar wired."""
        self.session = session
        self.references = ReferenceNames(session.cache)
        self.undo_stack.clear()
        self.undoable_edits = UndoableEdits(session.editor, self.undo_stack, self)
        self.undoable_edits.applied.connect(self.on_edits_applied)
        self.undoable_edits.refused.connect(self.status.show_message)  # issue 14 (k6): undo
        self.undoable_edits.revertible_changed.connect(self.actions_["revert_on_show"].setEnabled)
        self.push_gate = PushGate(session, self)
        self.tree = ResourceTree(session.registry, counts=session.cache.counts(), owner=self)
        self.tree.set_not_offered(session.cache.not_offered())
        self.tree.open_requested.connect(self.open_resource)
        self.tree.sync_requested.connect(lambda slug: session.sync([slug]))
        self.tree.export_requested.connect(self.export_resource)
        self.splitter.insertWidget(0, self.tree)
        layout_memory.restore_tree_width(self.splitter, self.settings)
        self._wire_status(session)
        self._links += self.centre.follow(session)
        self._links += team_view.follow(self, session)  # issue 15: the team
        self._update_title()
        self.on_session_data_changed([])
        self.on_session_outbox_changed([])
        for slug in layout_memory.saved_tabs(self.settings, session.profile.name):
            if slug in session.registry:
                self.open_resource(slug, True)

    def _wire_status(self, session: ShowSession) -> None:
        profile = session.profile
        self.status.set_profile(profile.name, profile.show_id)
        links = [
            (self.status.cancel_sync_requested, session.cancel_sync),
            (self.status.outbox_requested, self.show_outbox),
            (self.status.failures_requested, self.show_failures),
            (session.governor.changed, self.status.on_governor_changed),
            (session.sync_progress, self.status.on_sync_progress),
            (session.sync_finished, self.on_session_sync_finished),
            (session.push_progress, self.status.on_push_progress),
            (session.push_finished, self.on_session_push_finished),
            (session.online_changed, self.on_session_online_changed),
            (session.reconnected, self.on_session_reconnected),
            (session.data_changed, self.on_session_data_changed),
            (session.outbox_changed, self.on_session_outbox_changed),
            (session.problem, self.status.show_message),
        ]
        self._links = [signal.connect(slot) for signal, slot in links]
        self.status.set_online(bool(session.online), session.data_as_of())

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
        if self.push_gate is not None:
            self.push_gate.session.push_requester = None
            self.push_gate.deleteLater()
            self.push_gate = None
        self.undo_stack.clear()
        if self.undoable_edits is not None:
            self.undoable_edits.deleteLater()
            self.undoable_edits = None
        if self.tree is not None:
            self.tree.hide()
            self.tree.setParent(None)  # out of the splitter now: the next show's tree goes in
            self.tree.deleteLater()
            self.tree = None
        self.session = None
        self.references = None
        self.centre.forget()
        self._update_title()

    def _update_title(self) -> None:
        if self.session is None:
            self.setWindowTitle(APP_NAME)
            return
        offline = " (offline)" if self.session.online is False else ""
        self.setWindowTitle(f"{self.session.profile.name}{offline} — {APP_NAME}")

    # -------------------------------------------------------------------------------- tabs

    def open_resource(self, slug: str, new_tab: bool = False) -> ResourceTab | None:
        session = self.session
        if session is None or self.references is None:
            return None
        existing = self.tab_for(slug)
        if existing is not None and not new_tab:
            self.tabs.setCurrentWidget(existing)
            return existing
        res = session.registry[slug]
        tab = ResourceTab(
            session.cache,
            res,
            self.references,
            self.settings,
            outbox=session.outbox,
            edits=self.undoable_edits,
            profile=session.profile.name,  # its filters are this show's
        )
        tab.selection_summary.connect(self.status.set_selection_summary)
        tab.model.set_background(show_tabs.in_background(self.tasks))
        tab.model.query_running.connect(self.on_model_query_running)
        tab.message.connect(self.status.show_message)
        tab.review_requested.connect(self.show_outbox)
        session.watch_outbox(slug, tab).changed.connect(tab.model.refresh_pending)
        self._attach_form(tab, session)
        navigation.follow_references(self, tab)  # Ctrl+click on a reference opens its record
        self.tabs.setCurrentIndex(self.tabs.addTab(tab, res.title))
        return tab

    # --------------------------------------------------------------- record forms (issue 5)

    def _attach_form(self, tab: ResourceTab, session: ShowSession) -> None:
        """The record form beside the tab's table: its saves go through the session's Editor."""
        if self.references is None:
            return
        form = RecordForm(
            session.editor,
            tab.resource,
            self.references,
            confirm=self._ask,
            push_on_save=session.profile.push_on_save,
        )
        form.saved.connect(session.changes_written)
        if self.undoable_edits is not None:  # issue 14 (k6): a Save is an undo step until pushed
            form.saved.connect(lambda seqs, s=tab.resource.slug: self._form_saved(s, seqs))
        form.push_requested.connect(self.on_form_push_requested)
        form.message.connect(self.status.show_message)
        session.data_changed.connect(form.on_session_data_changed)
        session.push_finished.connect(form.refresh)  # follow what the push settled
        tab.attach_form(form)
        context = PanelContext(
            session.editor, session, self.references, self._ask, self.undoable_edits
        )
        for panel in attach_panels(tab, form, context):  # per resource: app/ui/panels/attach.py
            panel.queued.connect(session.changes_written)
            panel.message.connect(self.status.show_message)

    def on_form_push_requested(self, seqs: list[int]) -> None:
        if self.session is not None and self.session.online:
            self.session.request_push(seqs)

    def on_model_query_running(self, running: bool) -> None:
        self.status.show_busy("Sorting and filtering…" if running else None)

    def tab_for(self, slug: str) -> ResourceTab | None:
        return show_tabs.tab_for(self.tabs, slug)

    def resource_tabs(self) -> list[ResourceTab]:
        return show_tabs.resource_tabs(self.tabs)

    def show_outbox(self, slug: str | None = None) -> OutboxView | None:
        """The outbox tab, reviewing every change (or one resource's: a tab's badge)."""
        session = self.session
        if session is None:
            return None
        if self.outbox_view is None:
            self.outbox_view = OutboxView(
                session.outbox, session.registry, reserve=session.profile.interactive_reserve
            )
            self.outbox_view.push_requested.connect(self.request_push)
            self.outbox_view.changed.connect(session.outbox_written)
            self.outbox_view.on_governor_changed(session.client.governor.state())
            self._links += [
                session.governor.changed.connect(self.outbox_view.on_governor_changed),
                session.outbox_changed.connect(self.outbox_view.refresh),
            ]
        if self.tabs.indexOf(self.outbox_view) < 0:
            self.tabs.addTab(self.outbox_view, "Outbox")
        self.outbox_view.set_scope(slug)
        self.tabs.setCurrentWidget(self.outbox_view)
        return self.outbox_view

    def show_failures(self) -> None:
        """The outbox on the changes the last push did not get through (the push summary)."""
        view = self.show_outbox()
        if view is not None:
            view.show_failures()

    def request_push(self, seqs: list[int] | None = None) -> None:
        """Push (these changes only, when given): through the review when it is large."""
        if self.push_gate is not None:
            self.push_gate.request(seqs)

    def on_tabs_tab_close_requested(self, index: int) -> None:
        show_tabs.close_tab(self.tabs, index)

    def on_tabs_current_changed(self, _index: int) -> None:
        tab = self.tabs.currentWidget()
        self.status.set_selection_summary(tab.summary() if isinstance(tab, ResourceTab) else "")

    # ------------------------------------------------------------------------------ events

    def on_session_sync_finished(self, report: SyncReport) -> None:
        self.status.sync_finished()
        if report.cancelled:
            self.status.show_message("Sync cancelled: what was fetched is kept.")
        elif report.not_offered and self.session is not None:
            titles = ", ".join(self.session.registry[slug].title for slug, _ in report.not_offered)
            self.status.show_message(f"Not offered by this show (skipped, greyed): {titles}")

    def on_session_push_finished(self, report: PushReport) -> None:
        self.status.push_finished(summarize(report))

    def on_session_online_changed(self, online: bool) -> None:
        assert self.session is not None
        self.status.set_online(online, self.session.data_as_of())
        self._update_title()

    def on_session_reconnected(self) -> None:
        # Asked from the event loop, not inside the task that signed in: a question's nested
        # event loop inside a task's step would hold that task until it is answered.
        QTimer.singleShot(0, self, self._offer_push)

    def _offer_push(self) -> None:
        if self.session is None:
            return
        pending = self.session.outbox.counts()["pending"]
        if pending and self._ask(f"The show answers again. Push {pending} pending change(s) now?"):
            self.session.push()

    def on_session_data_changed(self, slugs: list[str]) -> None:
        if self.session is None:
            return
        if self.references is not None:
            self.references.refresh()
        show_tabs.refresh_tabs(self.tabs, slugs)
        if self.tree is not None:
            counts = self.session.cache.counts()
            self.tree.set_counts({r.slug: counts.get(r.slug, 0) for r in self.session.registry})
            self.tree.set_not_offered(self.session.cache.not_offered())

    def on_edits_applied(self, outcome: Outcome) -> None:
        """An edit or undo of a table wrote the outbox: the session tells the views."""
        if self.session is not None:
            self.session.outbox_written([outcome.slug])

    def on_session_outbox_changed(self, _slugs: list[str]) -> None:
        """The status bar's counts of pending, failed and conflicting changes."""
        if self.session is not None:
            counts = self.session.outbox.counts()
            self.status.set_outbox_counts({str(k): n for k, n in counts.items()})

    def on_tasks_error(self, what: str, exc: BaseException) -> None:
        message = getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}"
        self.status.show_message(f"{what} failed: {message}")

    # ------------------------------------------------------------------------------ actions

    def _handlers(self) -> dict[str, Callable[[], None]]:
        return {
            "profiles": self.on_profiles_triggered,
            "export": lambda: self.export_resource(None),
            "import": self.on_import_triggered,
            "close_tab": lambda: self.on_tabs_tab_close_requested(self.tabs.currentIndex()),
            "quit": self.on_quit_triggered,
            "undo": self.undo_stack.undo,
            "redo": self.undo_stack.redo,
            "revert_on_show": self.on_revert_on_show_triggered,
            "find": self.on_find_triggered,
            "sync": lambda: self.session.sync() if self.session else None,
            "full_sync": lambda: self.session.sync(full=True) if self.session else None,
            "push": lambda: self.request_push(),
            "outbox": self.on_outbox_triggered,
            **show_lists.handlers(self),  # Show ▸ Orders, Show ▸ History of pushes
            **team_view.handlers(self),  # View ▸ Team
            "about": self.on_about_triggered,
        }

    def _wire_undo(self) -> None:
        undo, redo = self.actions_["undo"], self.actions_["redo"]
        undo.setEnabled(False)
        redo.setEnabled(False)
        self.actions_["revert_on_show"].setEnabled(False)
        self.undo_stack.canUndoChanged.connect(undo.setEnabled)
        self.undo_stack.canRedoChanged.connect(redo.setEnabled)
        self.undo_stack.undoTextChanged.connect(lambda t: undo.setText(f"&Undo {t}".strip()))
        self.undo_stack.redoTextChanged.connect(lambda t: redo.setText(f"&Redo {t}".strip()))

    def _form_saved(self, slug: str, seqs: list[int]) -> None:
        if self.undoable_edits is not None:
            self.undoable_edits.saved(slug, seqs)

    def on_revert_on_show_triggered(self) -> None:
        """Queue the old values of the pushed edit whose undo was refused (a new change)."""
        if self.undoable_edits is not None and self.undoable_edits.revert_on_show() is not None:
            self.status.show_message(f"Queued: {self.undo_stack.undoText()} (pending until Push)")

    def on_quit_triggered(self) -> None:
        self.close()

    def on_outbox_triggered(self) -> None:
        self.show_outbox()

    def on_import_triggered(self) -> None:
        """File ▸ Import: a CSV/XLSX file into the current tab, as pending changes."""
        tab = self.tabs.currentWidget()
        if isinstance(tab, ResourceTab) and tab.importer is not None:
            tab.importer.start()

    def on_find_triggered(self) -> None:
        tab = self.tabs.currentWidget()
        if isinstance(tab, ResourceTab):
            tab.focus_filter()

    def on_profiles_triggered(self) -> None:
        manager = ProfileManager(ProfileStore(), self)
        manager.open_requested.connect(self.profile_requested)
        manager.open()

    def on_about_triggered(self) -> None:
        QMessageBox.about(self, f"About {APP_NAME}", self.about_text())

    def about_text(self) -> str:
        """The version, and where settings, the cache and outbox, and the log file live."""
        return about_text(self.session)

    def export_resource(self, slug: str | None) -> None:
        """Export from the cache to a file: the current tab's view (its filters, sort and shown
        columns) when `slug` is None (File ▸ Export), else the whole resource (the tree)."""
        session = self.session
        tab = self.tabs.currentWidget()
        view = tab if slug is None and isinstance(tab, ResourceTab) else None
        slug = slug or (view.resource.slug if view is not None else None)
        if session is None or slug is None:
            return
        options = view_options(view, session.outbox) if view is not None else {}
        path = self._ask_path(f"Export {session.registry[slug].title}", f"{slug}.csv")
        if path is not None:
            say = self.status.show_message
            work = export_to_file(session, slug, path, options, say, owner=self)
            self.tasks.start(work, what="Export")

    # -------------------------------------------------------------------------- start page

    def _wire_start_page(self) -> None:
        page = self.start_page
        page.open_requested.connect(self.open_resource)
        page.import_requested.connect(self.import_into)
        page.sync_requested.connect(lambda: self.session.sync() if self.session else None)
        page.push_requested.connect(lambda: self.session.push() if self.session else None)
        page.outbox_requested.connect(self.show_outbox)

    def import_into(self, slug: str) -> None:
        """The start page's "Import a file…": that resource's tab, then its import."""
        tab = self.open_resource(slug)
        if tab is not None and tab.importer is not None:
            tab.importer.start()

    # ---------------------------------------------------------------------- asking the user

    def _ask_user(self, question: str) -> bool:
        answer = QMessageBox.question(self, APP_NAME, question)
        return answer == QMessageBox.StandardButton.Yes

    def _ask_save_path(self, title: str, suggested: str) -> Path | None:
        return ask_save_path(self, title, suggested, "CSV (*.csv);;Excel (*.xlsx);;JSON (*.json)")

    # --------------------------------------------------------------------------- persistence

    def save_state(self) -> None:
        layout_memory.save_window(self, self.settings)
        if self.tree is not None:
            layout_memory.save_tree_width(self.splitter, self.settings)
        if self.session is not None:
            tabs = [t.resource.slug for t in self.resource_tabs()]
            layout_memory.save_tabs(self.settings, self.session.profile.name, tabs)
        for tab in self.resource_tabs():
            tab.save_state()
        self.settings.sync()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.save_state()
        super().closeEvent(event)
