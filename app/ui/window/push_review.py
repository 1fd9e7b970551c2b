"""The review before a push, and the one door every push of the window goes through.

Ctrl+S, the outbox's Push buttons and a form's Save (when the profile pushes a record when it is
saved) all call `PushGate.request(seqs)`. A push of more changes than the profile's
`review_push_over` (app/sync/reports/push_review.py `needs_review`) first opens `PushReviewDialog`:
the
changes per record, each field before → after, and the requests and time the push takes at the
current rate budget (app/sync/push/cost.py); with a V2 base URL whose bulk upserts would carry
some of it, both costs and a choice between them (`bulk()`: with the upserts, the default, or one
request per record), passed to the push. "Don't ask again under N changes" raises the
profile's threshold and saves the profile. The dialog opens window-modal with `open()` — never a
nested event loop — and the push starts when it is accepted.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QRadioButton,
    QSpinBox,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.api.registry import Registry
from app.profile.settings import ProfileStore
from app.store.changes import Change
from app.sync.push.cost import BulkChoice, cost_text, push_plan
from app.sync.push.v2_push import Upserts
from app.sync.reports.push_review import needs_review, per_record
from app.ui.outbox.outbox_view import diff_text, record_text, record_tip
from app.wording.references import ReferenceNames
from app.wording.values import ValueWords
from app.wording.words import count

if TYPE_CHECKING:
    from app.ui.session.session import ShowSession

STEPS = (10, 20, 50, 100, 200, 500, 1000, 5000, 10_000)


def suggested_threshold(size: int) -> int:
    """The "don't ask again under N" offered: the next round number above this push's size."""
    return next((n for n in STEPS if n > size), size + 1)


def change_lines(change: Change, words: ValueWords | None = None) -> list[str]:
    """One line per field (before → after, values in `words`), or what the change does."""
    if change.op == "delete":
        return ["delete the record"]
    text = diff_text(change, separator="\n", words=words)
    lines = text.splitlines() if text else [change.op]
    return [f"new · {line}" for line in lines] if change.is_create else lines


class PushReviewDialog(QDialog):
    """What a push will send: per record, each field before → after; its requests and time.

    Signals: only QDialog's (`accepted`, `rejected`, `finished`).
    """

    def __init__(
        self,
        changes: Sequence[Change],
        registry: Registry,
        cost: str,
        parent: QWidget | None = None,
        words: ValueWords | None = None,
        choice: BulkChoice | None = None,
    ) -> None:
        super().__init__(parent)
        n = len(changes)
        self.setWindowTitle(f"Review the push — {count(n, 'change')}")
        self.heading = QLabel(f"<b>Push {count(n, 'change')} to the show?</b>", self)
        both = "" if choice is None else f"\n{choice.text()}"
        self.cost = QLabel(cost + both, self, wordWrap=True)
        self.cost.setObjectName("push-cost")
        # The choice, when V2's bulk upserts would carry some of the push.
        self.with_bulk: QRadioButton | None = None
        self.one_by_one: QRadioButton | None = None
        if choice is not None:
            self.with_bulk = QRadioButton(choice.label(True), self)
            self.with_bulk.setChecked(True)
            self.one_by_one = QRadioButton(choice.label(False), self)
        self.tree = QTreeWidget(self)
        self.tree.setHeaderLabels(["Record", "Change (before → after)"])
        self.tree.setAccessibleName("Changes to push")
        self.tree.setAccessibleDescription("Per record, each field's value before → after")
        self._fill(changes, registry, words or ValueWords(registry))
        self.dont_ask = QCheckBox("Don't ask again under", self)
        self.threshold = QSpinBox(self, minimum=1, maximum=1_000_000, suffix=" changes")
        self.threshold.setValue(suggested_threshold(n))
        self.threshold.setAccessibleName("Don't ask again under this many changes")
        self.threshold.setAccessibleDescription("A smaller push goes without this review")
        self.buttons = QDialogButtonBox(self)
        self.push_button = self.buttons.addButton(
            f"Push {count(n, 'change')}", QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        self.push_button.setDefault(True)
        self._lay_out()
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.resize(760, 520)

    def _fill(self, changes: Sequence[Change], registry: Registry, words: ValueWords) -> None:
        for record in per_record(changes):
            first = record[0]
            res = registry.resources.get(first.resource)
            title = res.title if res is not None else first.resource
            item = QTreeWidgetItem([f"{title} · {record_text(first, res)}", ""])
            item.setToolTip(0, record_tip(first))  # the internal id: only here
            for change in record:
                for line in change_lines(change, words):
                    item.addChild(QTreeWidgetItem(["", line]))
            self.tree.addTopLevelItem(item)
        self.tree.expandAll()
        self.tree.resizeColumnToContents(0)

    def _lay_out(self) -> None:
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(self.cost)
        for choice in (self.with_bulk, self.one_by_one):
            if choice is not None:
                layout.addWidget(choice)
        layout.addWidget(self.tree, 1)
        row = QHBoxLayout()
        row.addWidget(self.dont_ask)
        row.addWidget(self.threshold)
        row.addStretch(1)
        layout.addLayout(row)
        layout.addWidget(self.buttons)

    def bulk(self) -> bool:
        """Whether the push goes through V2's bulk upserts (False: one request per record)."""
        return self.one_by_one is None or not self.one_by_one.isChecked()

    def never_under(self) -> int | None:
        """The N of "don't ask again under N changes" when ticked."""
        return self.threshold.value() if self.dont_ask.isChecked() else None


class PushGate(QObject):
    """Every push the window starts: straight to the session, or after the review.

    Signals: `reviewing(PushReviewDialog)` — a review opened (the push waits for it).
    """

    reviewing = Signal(object)

    def __init__(self, session: ShowSession, parent: QWidget) -> None:
        super().__init__(parent)
        self.session = session
        self._parent = parent
        self.dialog: PushReviewDialog | None = None
        session.push_requester = _requester(weakref.ref(self))  # panels' forms: same rules

    def request(self, seqs: Sequence[int] | None = None) -> None:
        """Push the pending changes (these `seqs` only, when given), reviewed first when there
        are more than the profile's `review_push_over`."""
        chosen = None if seqs is None else set(seqs)
        pending = [
            c
            for c in self.session.outbox.changes(("pending",))
            if chosen is None or c.seq in chosen
        ]
        if not needs_review(len(pending), self.session.profile.review_push_over):
            self.session.push(None if seqs is None else list(seqs))
            return
        if self.dialog is not None:  # one review at a time
            self.dialog.raise_()
            return
        self._review(pending, None if seqs is None else list(seqs))

    def _review(self, pending: list[Change], seqs: list[int] | None) -> None:
        session = self.session
        client, state = session.client, session.governor.state()
        upserts = Upserts(client.learned) if client.connection.v2_base_url else None
        push, choice = push_plan(pending, session.registry, upserts, state)
        cost = cost_text(push, state, session.profile.interactive_reserve)
        words = ValueWords(session.registry, ReferenceNames(session.cache))
        dialog = PushReviewDialog(pending, session.registry, cost, self._parent, words, choice)
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.dialog = dialog

        def finished(result: int) -> None:
            self.dialog = None
            if result != QDialog.DialogCode.Accepted:
                return
            under = dialog.never_under()
            if under is not None:
                self._never_ask_under(under)
            session.push(seqs, bulk=dialog.bulk())

        dialog.finished.connect(finished)
        dialog.open()
        self.reviewing.emit(dialog)

    def _never_ask_under(self, under: int) -> None:
        """Raise the profile's threshold: pushes of fewer than `under` changes go straight."""
        profile = self.session.profile
        profile.review_push_over = max(under - 1, 0)
        store = ProfileStore()
        if store.get(profile.name) is not None:
            store.save(profile)


def _requester(gate: weakref.ref[PushGate]) -> Callable[[list[int] | None], bool]:
    """The session's way to this gate, holding it weakly (no reference cycle between two
    QObjects for another thread's garbage collection to break); False once the gate is gone."""

    def request(seqs: list[int] | None) -> bool:
        found = gate()
        if found is None:
            return False
        found.request(seqs)
        return True

    return request
