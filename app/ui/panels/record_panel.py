"""Panels under a record form for what the API edits through special operations: a booth's
products, a product's price lists and inventory, an order's lines, the sales-rep hierarchy…

A `RecordPanel` follows the record the form shows (`show_record`) and queues the user's gesture
through the window's `Editor` (the one path into the outbox) like any cell edit: the gesture is
ONE undo step on the window's stack (`UndoableEdits.queued`: "Undo Patch 7 moved under North in
Sales rep groups") and reaches the show only with the next Push, whose outcome the panel then
shows (`after_push`). A panel redraws when what is queued for its resources changes
(`ShowSession.outbox_changed`, the one signal views follow), whoever wrote it. The Pusher does
not refresh the cache after
a special operation, so a panel asks the session to re-sync what the operation changed
(`resync`) and redraws when the new data arrives (`on_session_data_changed`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QTableWidget,
    QVBoxLayout,
    QWidget,
)

from app.api.registry import Resource
from app.store.changes import Change
from app.store.table_query import TableQuery
from app.sync.edit.editor import Editor, UnknownOperation
from app.sync.edit.overlay import PendingOverlay
from app.sync.push.pusher import PushReport
from app.ui.session.session import ShowSession
from app.ui.table.undo_commands import UndoableEdits
from app.wording.references import ReferenceNames

Confirm = Callable[[str], bool]


@dataclass(frozen=True)
class PanelContext:
    """What a panel works with: the window's Editor, the open show, labels of references, and
    the window's undo steps (`edits`: None only where there is no window stack)."""

    editor: Editor
    session: ShowSession
    references: ReferenceNames
    confirm: Confirm
    edits: UndoableEdits | None = None


class RecordPanel(QWidget):
    """Base of the panels: the record followed, queued changes pushed and their outcome heard.

    Signals: `queued(list[int])` — outbox seqs the panel wrote (`queue`), before they are sent;
    `message(str)` — what the panel did or why it could not (`say`: sending, queued offline,
    saved, refused), for the status bar; `record_chosen(str)` — the user picked a record of the
    form's resource in the panel (the table and form go to it).
    """

    title = "Details"
    queued = Signal(list)
    message = Signal(str)
    record_chosen = Signal(str)

    def __init__(
        self, context: PanelContext, resource: Resource, owner: QWidget | None = None
    ) -> None:
        super().__init__(owner)
        self.context = context
        self.editor = context.editor
        self.session = context.session
        self.resource = resource
        self.record_id: str | None = None
        self.record: dict[str, Any] | None = None
        self.status = QLabel(self)
        self.status.setWordWrap(True)
        self._awaited: set[int] = set()
        self._said_of: list[int] = []  # the changes queued the status line speaks of (`queue`)
        self._resync_after_sync: set[str] = set()
        self.session.push_finished.connect(self.on_session_push_finished)
        self.session.sync_finished.connect(self.on_session_sync_finished)
        self.session.outbox_changed.connect(self.on_session_outbox_changed)

    # ------------------------------------------------------------------------------ public

    def show_record(self, record_id: str | None) -> None:
        """Follow the form's record (None: nothing selected)."""
        self.record_id = record_id
        slug = self.resource.slug
        self.record = self.editor.current(slug, record_id) if record_id else None
        self.load()

    @property
    def key(self) -> str | None:
        """The business key of the record followed (`boothID`, `productID`…)."""
        value = (self.record or {}).get(self.resource.key)
        return None if value in (None, "") else str(value)

    def load(self) -> None:
        """Redraw from the cache and the outbox (subclasses)."""

    def dirty(self) -> bool:
        """The panel holds edits not queued yet (subclasses that edit in place)."""
        return False

    def reload(self) -> None:
        """Redraw after new data or outbox changes, unless it would lose the user's edits."""
        if not self.dirty():
            self.load()

    def after_push(self, changes: Sequence[Change]) -> None:
        """The panel's changes settled (done or failed): re-sync, show outcomes (subclasses)."""

    def watched(self) -> Iterable[str]:
        """The resources whose new data redraw the panel."""
        return (self.resource.slug,)

    # ------------------------------------------------------------------------------- slots

    def on_form_record_shown(self, record_id: str) -> None:
        self.show_record(record_id or None)

    def on_session_data_changed(self, slugs: list[str]) -> None:
        if not slugs or set(slugs) & set(self.watched()):
            if self.record_id is not None:
                self.record = self.editor.current(self.resource.slug, self.record_id)
            self.reload()

    def on_session_outbox_changed(self, slugs: list[str]) -> None:
        """What is queued for the panel's resources changed (a gesture, an undo or redo, the
        outbox view, a push settling it): redraw, and clear a status line about changes
        withdrawn since (`queue`). The one signal views follow; a push's outcome messages come
        from `push_finished` (`after_push`)."""
        if self._said_of:
            self._unsay_withdrawn()
        if set(slugs) & set(self.watched()):
            self.reload()

    def on_session_push_finished(self, _report: PushReport) -> None:
        if not self._awaited:
            return
        outbox = self.editor.outbox
        changes = [c for seq in sorted(self._awaited) if (c := outbox.get(seq)) is not None]
        gone = {c.seq for c in changes if c.state == "discarded"}  # withdrawn: no outcome
        settled = [c for c in changes if c.state in ("done", "failed", "conflict")]
        self._awaited -= {c.seq for c in settled} | gone
        if settled:
            self.after_push(settled)

    def on_session_sync_finished(self, _report: object) -> None:
        if self._resync_after_sync:
            slugs, self._resync_after_sync = sorted(self._resync_after_sync), set()
            self.session.sync(slugs)

    # ----------------------------------------------------------------------------- helpers

    def queue(self, seqs: Sequence[int], what: str) -> None:
        """Announce changes written to the outbox as one undo step; they wait for Push like a
        cell edit (the panel hears their outcome after the push that sends them)."""
        if not seqs:
            return
        if self.context.edits is not None:
            slugs = {c.resource for s in seqs if (c := self.editor.outbox.get(s)) is not None}
            self.context.edits.queued(sorted(slugs), seqs, f"{what} in {self.resource.title}")
        self._awaited.update(seqs)
        self.queued.emit(list(seqs))
        self.say(f"{what}: queued — sent to the show with the next Push (Ctrl+Z takes it back).")
        self._said_of = list(seqs)  # cleared with them if they are withdrawn (an undo)
        self.load()

    def special(self, slug: str, op: str, **given: Any) -> int | None:
        """`Editor.special`, its refusal said on the panel instead of raised (None then)."""
        try:
            return self.editor.special(slug, op, **given)
        except UnknownOperation as exc:
            self.say(str(exc))
            return None

    def replace_failed(self, failed: Iterable[int], slug: str, op: str, **given: Any) -> int | None:
        """Queue a special change that sends again (corrected) the refused lines of `failed`
        changes, and discard those: their other lines are on the show already."""
        seq = self.special(slug, op, **given)
        if seq is not None:
            for old in failed:
                self.editor.outbox.discard(old)
        return seq

    def resync(self, slugs: Iterable[str]) -> None:
        """Ask the session to re-sync resources (after the sync under way, if any)."""
        wanted = list(slugs)
        if self.session.syncing:
            self._resync_after_sync.update(wanted)
        else:
            self.session.sync(wanted)

    def lay_out(self, body: QWidget, buttons: Iterable[QWidget] = ()) -> None:
        """The panel's body, a row of buttons under it, the status line last."""
        row = QHBoxLayout()
        for button in buttons:
            row.addWidget(button)
        row.addStretch(1)
        column = QVBoxLayout(self)
        column.addWidget(body, 1)
        column.addLayout(row)
        column.addWidget(self.status)

    def say(self, text: str) -> None:
        self.status.setText(text)
        self._said_of = []
        self.message.emit(text)

    def _unsay_withdrawn(self) -> None:
        """The status line spoke of changes queued that are withdrawn now (Ctrl+Z): no longer
        true, it is cleared (the window says what was undone)."""
        found = self.editor.outbox.states_of(self._said_of)
        if all(found.get(seq, "discarded") == "discarded" for seq in self._said_of):
            self._said_of = []
            self.status.setText("")
        elif not any(found.get(seq) in ("pending", "sending") for seq in self._said_of):
            self._said_of = []  # pushed: what the push settled is said after it (`after_push`)

    def pending(self, op: str | None = None, record_id: str | None = None) -> list[Change]:
        """This resource's unsettled changes (of one op, under one record id)."""
        changes = self.editor.outbox.changes(("pending", "sending"), self.resource.slug)
        return [
            c
            for c in changes
            if (op is None or c.op == op) and (record_id is None or c.record_id == record_id)
        ]


def listing_table(owner: QWidget, headers: Sequence[str]) -> QTableWidget:
    """A read-only list of records under a form: whole rows, columns sharing the width."""
    table = QTableWidget(0, len(headers), owner)
    table.setTabKeyNavigation(False)  # Tab leaves a panel's list (issue 14: no focus trap)
    table.setHorizontalHeaderLabels(list(headers))
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
    table.verticalHeader().setVisible(False)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    return table


def records_where(editor: Editor, slug: str, field: str, value: str) -> list[dict[str, Any]]:
    """The records of `slug` whose `field` is `value`, as the user sees them: cached ones and
    those created here, with their queued changes laid over them by the one overlay (deleted ones
    left out)."""
    overlay = PendingOverlay.read(editor.outbox, slug)
    cached = editor.cache.records(slug, TableQuery().with_filter(field, value))
    found = [
        (str(r["id"]), r) for r in cached if r.get("id") is not None and str(r.get(field)) == value
    ]
    shown = [(i, overlay.current(i, r)) for i, r in found]
    created = ((i, overlay.current(i, None)) for i in overlay.created)
    shown += [(i, r) for i, r in created if r is not None and str(r.get(field)) == value]
    return [{**record, "id": i} for i, record in shown if record is not None]


def refused_lines(change: Change) -> dict[int, str]:
    """The lines of a failed multi-line change the server refused: line → its reason."""
    response = change.response if isinstance(change.response, dict) else {}
    lines = [ln for ln in response.get("lines") or () if isinstance(ln, dict) and "line" in ln]
    return {int(ln["line"]): str(ln.get("message") or "refused") for ln in lines}


def body_items(change: Change, wrapper: str | None = None) -> list[dict[str, Any]]:
    """The elements of a special change's list body (`{"items": [...]}` unwrapped)."""
    body = change.payload.get("body")
    items = body.get(wrapper) if isinstance(body, dict) and wrapper else body
    return [i if isinstance(i, dict) else {} for i in items] if isinstance(items, list) else []


def failure_text(change: Change) -> str:
    """Why a change failed, as the user reads it."""
    return change.last_error or "refused by the server"
