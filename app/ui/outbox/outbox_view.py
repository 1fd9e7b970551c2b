"""The outbox as a window pane: every change not yet settled, what it changes, and what went wrong.

`OutboxModel` (app/ui/outbox/change_list_model.py) is a change list over
`Outbox.changes(ACTIVE)` (all resources, or one: `set_scope`): one row per record with the
fields it changes summed up, its changes inside (each with its attempts and the show's last
reason), grouped by app/sync/reports/change_list.py and reloaded by `refresh()`; columns fit their
content and the reason column shows only when there is one.
`OutboxView` is also the review before a push: a line says how many requests the push will
make and how long that takes at the current rate budget
(app/sync/push/cost.py; `on_governor_changed` keeps it current), a detail pane shows the full diff
and the server's answer in words (app/wording/answers.py), and the actions: push (all or
selected — emitted, the session does the network work), retry, discard selected or all (after
a confirmation) and resolve a conflict (the ConflictDialog). Rows are kept selected by their
changes' `seq` across reloads.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import (
    QItemSelectionModel,
    QModelIndex,
    Qt,
    Signal,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from app.api.governor import GovernorState
from app.api.registry import Registry
from app.store.changes import Change
from app.store.outbox import Outbox
from app.sync.push.cost import PushCost, cost_text, push_plan, without_bulk_text
from app.sync.push.v2_push import Upserts
from app.sync.reports.change_list import diff_text, record_text, record_tip
from app.ui.outbox.change_list_model import COLUMNS, ERROR_COLUMN, OutboxModel
from app.ui.outbox.conflict_dialog import ConflictDialog
from app.wording.answers import answer_lines
from app.wording.references import ReferenceNames
from app.wording.values import ValueWords
from app.wording.words import count, title_of

Selection = QItemSelectionModel.SelectionFlag
Confirm = Callable[[str], bool]
Resolver = Callable[[Change], bool]
__all__ = [
    "COLUMNS",
    "OutboxModel",
    "OutboxView",
    "detail_text",
    "diff_text",
    "record_text",
    "record_tip",
]


def detail_text(change: Change, words: ValueWords | None = None) -> str:
    """Everything known about one change, for the detail pane (values in `words`)."""
    words = words or ValueWords()
    lines = [f"#{change.seq} {change.op} · {change.state} · {count(change.attempts, 'attempt')}"]
    lines += [f"  {line}" for line in diff_text(change, "\n", words).splitlines()]
    if change.last_error:
        lines += ["", f"Error: {change.last_error}"]
    if change.state == "conflict" and change.theirs:
        lines += ["", "The server's record now:"]
        theirs = change.theirs.items()
        lines += [f"  {title_of(k)}: {words.text(change.resource, k, v)}" for k, v in theirs]
    answer = answer_lines(change, words)
    if answer:
        lines += ["", "Server answer:", *(f"  {line}" for line in answer)]
    return "\n".join(lines)


class OutboxView(QWidget):
    """Pending changes and what to do with them.

    Signals: `push_requested(object)` — None to push everything pending, or a list of seqs;
    `changed()` — after a retry, discard or resolve wrote the outbox (refresh the counts).
    """

    push_requested = Signal(object)
    changed = Signal()

    def __init__(
        self,
        outbox: Outbox,
        registry: Registry,
        parent: QWidget | None = None,
        *,
        confirm: Confirm | None = None,
        resolver: Resolver | None = None,
        reserve: float = 0.1,
        names: ReferenceNames | None = None,
        upserts: Callable[[], Upserts | None] | None = None,
    ) -> None:
        super().__init__(parent)
        self._outbox = outbox
        self._upserts = upserts  # V2's bulk upserts as learned now, when offered: both costs
        self._registry = registry
        self.names = names  # references read by their names in the conflict dialog
        self.reserve = reserve  # the profile's share of the rate kept for interactive requests
        self.rate: GovernorState | None = None
        self.cost = PushCost()
        self._without_bulk = ""  # " · without bulk: …" when the upserts carry some of it
        self._scope_note = ""  # " · 2 of them in Customers": the view shows one resource's
        # Kept as given (None: the default): a bound method of self here would be a reference
        # cycle, freed by whichever thread's garbage collection finds it — not safe for QObjects.
        self._confirm = confirm
        self._resolver = resolver
        self.model = OutboxModel(outbox, registry, self, ValueWords(registry, names))
        self.table = QTreeView(self)
        self.detail = QPlainTextEdit(self, readOnly=True)
        self.scope_label = QLabel(self)
        self.show_all_button = QPushButton("Show all resources", self)
        self.summary = QLabel(self)
        self.summary.setObjectName("push-summary")
        texts = (
            "Push all",
            "Push selected",
            "Retry",
            "Discard selected…",
            "Discard all…",
            "Resolve conflict…",
        )
        self.buttons = {text: QPushButton(text, self) for text in texts}
        self._set_up_table()
        self._lay_out()
        self._connect()
        self.on_selection_changed()
        self._review()

    # ------------------------------------------------------------------------------- API

    def refresh(self) -> None:
        """Reload from the outbox, keeping the same changes selected."""
        keep = [c.seq for c in self.selected()]
        self.model.refresh()
        self.select_seqs(keep)
        self.on_selection_changed()
        self._review()
        self._fit_columns()

    def set_scope(self, resource: str | None) -> None:
        """Review one resource's changes (None: every resource's)."""
        self.model.set_scope(resource)
        res = self._registry.resources.get(resource) if resource else None
        self.scope_label.setText(f"Changes of {res.title if res else resource}" if resource else "")
        self.scope_label.setVisible(resource is not None)
        self.show_all_button.setVisible(resource is not None)
        self.refresh()

    def show_failures(self) -> None:
        """Only the changes that did not go through, every resource's (the push summary)."""
        self.set_scope(None)
        self.model.failures_only = True
        self.scope_label.setText("Changes that did not go through")
        self.scope_label.setVisible(True)
        self.show_all_button.setVisible(True)
        self.refresh()

    def on_governor_changed(self, state: GovernorState) -> None:
        """The rate budget moved: the push's time is told anew."""
        self.rate = state
        self.summary.setText(self._summary_text())

    def pending_seqs(self) -> list[int]:
        return [c.seq for c in self.model.changes() if c.state == "pending"]

    def selected(self) -> list[Change]:
        """The changes of the selected rows: a record row stands for all of its changes."""
        found: dict[int, Change] = {}
        for index in self.table.selectionModel().selectedRows():
            found.update((c.seq, c) for c in self.model.changes_at(index))
        return [found[seq] for seq in sorted(found)]

    def select_seqs(self, seqs: Sequence[int]) -> None:
        """Select these changes: a record's row when all its changes are meant, else its
        changes' rows (the record opened to show them)."""
        selection = self.table.selectionModel()
        selection.clearSelection()
        flags = Selection.Select | Selection.Rows
        wanted = set(seqs)
        for row, record in enumerate(self.model.records()):
            parent = self.model.index(row, 0)
            mine = wanted.intersection(record.seqs)
            if mine and mine == set(record.seqs):
                selection.select(parent, flags)
                continue
            for child, change in enumerate(record.changes):
                if change.seq in mine:
                    self.table.expand(parent)
                    selection.select(self.model.index(child, 0, parent), flags)

    # ------------------------------------------------------------------------------ slots

    def on_push_all_clicked(self) -> None:
        """Everything pending (only this resource's while the view is scoped to one)."""
        if self.model.scope is None:
            self.push_requested.emit(None)
        elif seqs := self.pending_seqs():
            self.push_requested.emit(seqs)

    def on_push_selected_clicked(self) -> None:
        seqs = [c.seq for c in self.selected() if c.state == "pending"]
        if seqs:
            self.push_requested.emit(seqs)

    def on_retry_clicked(self) -> None:
        self._apply(self._outbox.retry, [c for c in self.selected() if c.state == "failed"])

    def on_discard_clicked(self) -> None:
        self._discard([c for c in self.selected() if c.state != "sending"])

    def on_discard_all_clicked(self) -> None:
        self._discard([c for c in self.model.changes() if c.state != "sending"], every=True)

    def on_show_all_button_clicked(self) -> None:
        self.set_scope(None)

    def on_resolve_clicked(self) -> None:
        conflicts = [c for c in self.selected() if c.state == "conflict"]
        if len(conflicts) == 1 and (self._resolver or self._resolve_in_dialog)(conflicts[0]):
            self.refresh()
            self.changed.emit()

    def on_table_expanded(self, _index: QModelIndex) -> None:
        """A record opened or closed: its changes' rows are indented, so fit the columns again."""
        self._fit_columns()

    def on_selection_changed(self) -> None:
        chosen = self.selected()
        states = {c.state for c in chosen}
        self.detail.setPlainText("\n\n".join(detail_text(c, self.model.words) for c in chosen))
        self.buttons["Push all"].setEnabled(bool(self._outbox.pending_for_push()))
        self.buttons["Push selected"].setEnabled("pending" in states)
        self.buttons["Retry"].setEnabled("failed" in states)
        self.buttons["Discard selected…"].setEnabled(bool(states - {"sending"}))
        self.buttons["Discard all…"].setEnabled(
            any(c.state != "sending" for c in self.model.changes())
        )
        self.buttons["Resolve conflict…"].setEnabled(
            sum(c.state == "conflict" for c in chosen) == 1
        )

    # -------------------------------------------------------------------------- internals

    def _review(self) -> None:
        """Count the push's requests again (the outbox changed): the whole outbox's pending
        changes, whatever the view shows (one resource's, the failures), so the summary never
        says "Nothing pending to push" beside the status bar's "1 pending" — the same figure,
        from the same outbox, refreshed on the same `outbox_changed`."""
        pending = self._outbox.changes(("pending", "sending"))
        upserts = self._upserts() if self._upserts is not None else None
        self.cost, choice = push_plan(pending, self._registry, upserts, self.rate)
        self._without_bulk = without_bulk_text(choice)
        scope, self._scope_note = self.model.scope, ""
        if scope is not None and self.cost.changes:
            here = len(self._outbox.changes(("pending",), scope))
            res = self._registry.resources.get(scope)
            if here != self.cost.changes:  # Push all here sends these only
                self._scope_note = f" · {here:,} of them in {res.title if res else scope}"
        self.summary.setText(self._summary_text())

    def _summary_text(self) -> str:
        said = cost_text(self.cost, self.rate, self.reserve)
        return said + (self._without_bulk if self.cost.changes else "") + self._scope_note

    def _fit_columns(self) -> None:
        """Columns as wide as their content; the reason column only when a change has one."""
        self.table.setColumnHidden(ERROR_COLUMN, not self.model.has_errors())
        for column in range(len(COLUMNS)):
            if column != ERROR_COLUMN:
                self.table.resizeColumnToContents(column)

    def _discard(self, doomed: Sequence[Change], every: bool = False) -> None:
        if not doomed:
            return
        n = len(doomed)
        what = "this change" if n == 1 else f"these {count(n, 'change')}"
        if every:
            res = self._registry.resources.get(self.model.scope or "")
            where = res.title if res else "the outbox"
            what = f"all {n} change{'' if n == 1 else 's'} of {where}"
        question = f"Discard {what}? They are removed from the outbox and never sent to the show."
        if (self._confirm or self._ask)(question):
            self._apply(self._outbox.discard, doomed)

    def _apply(self, action: Callable[[int], None], changes: Sequence[Change]) -> None:
        for change in changes:
            action(change.seq)
        if changes:
            self.refresh()
            self.changed.emit()

    def _ask(self, question: str) -> bool:
        answer = QMessageBox.question(self, "Discard changes", question)
        return answer == QMessageBox.StandardButton.Yes

    def _resolve_in_dialog(self, change: Change) -> bool:
        dialog = ConflictDialog(self._outbox, change, self._registry, self, names=self.names)
        try:
            return dialog.exec() == ConflictDialog.DialogCode.Accepted
        finally:
            dialog.deleteLater()

    def _set_up_table(self) -> None:
        table = self.table
        table.setAccessibleName("Changes in the outbox")
        table.setAccessibleDescription("Pending, failed and conflicting changes, per resource")
        self.detail.setAccessibleName("The selected change")
        self.detail.setAccessibleDescription("What the selected change sends, and its result")
        table.setModel(self.model)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setUniformRowHeights(True)
        table.setAllColumnsShowFocus(True)
        table.header().setStretchLastSection(True)
        self._fit_columns()

    def _lay_out(self) -> None:
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.table)
        split.addWidget(self.detail)
        split.setStretchFactor(0, 3)
        row = QHBoxLayout()
        for button in self.buttons.values():
            row.addWidget(button)
        row.addStretch(1)
        top = QHBoxLayout()
        top.addWidget(self.scope_label)
        top.addWidget(self.show_all_button)
        top.addStretch(1)
        self.scope_label.hide()
        self.show_all_button.hide()
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(split)
        layout.addWidget(self.summary)
        layout.addLayout(row)

    def _connect(self) -> None:
        slots = (
            self.on_push_all_clicked,
            self.on_push_selected_clicked,
            self.on_retry_clicked,
            self.on_discard_clicked,
            self.on_discard_all_clicked,
            self.on_resolve_clicked,
        )
        for button, slot in zip(self.buttons.values(), slots, strict=True):
            button.clicked.connect(slot)
        self.table.selectionModel().selectionChanged.connect(self.on_selection_changed)
        self.table.expanded.connect(self.on_table_expanded)
        self.table.collapsed.connect(self.on_table_expanded)
        self.model.modelReset.connect(self.on_selection_changed)
        self.show_all_button.clicked.connect(self.on_show_all_button_clicked)
