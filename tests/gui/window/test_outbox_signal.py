"""The session owns the Editor and says `outbox_changed(slugs)` once per write of the outbox;
the views of the outbox (the tab of that resource, the outbox view, the status bar's counts)
follow that one signal, and a tab of another resource is left alone."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import qasync
from PySide6.QtWidgets import QMessageBox

from app.sim import SimServer, generate_show
from app.store.changes import ACTIVE
from tests.gui.conftest import Opened, Opener, config, profile_for, until, wait_synced

pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")


@pytest.fixture
def server() -> Iterator[SimServer]:
    with SimServer(generate_show("tiny", seed=2), config(rate_limit=300)) as running:
        yield running


def test_each_outbox_write_is_one_signal_that_the_views_follow(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    yes = QMessageBox.StandardButton.Yes
    monkeypatch.setattr(QMessageBox, "question", lambda *_args: yes)  # the user confirms
    opened: Opened = open_window(profile_for(server))
    window, session = opened.window, opened.session
    wait_synced(loop, session)
    customers = window.open_resource("customers")
    warehouses = window.open_resource("warehouses")
    outbox_view = window.show_outbox()
    assert customers is not None and warehouses is not None and outbox_view is not None
    assert window.undoable_edits is not None and window.undoable_edits.editor is session.editor
    said: list[list[str]] = []
    session.outbox_changed.connect(said.append)
    pending = window.status.outbox_buttons["pending"]
    ids = [r["id"] for r in session.cache.records("customers", limit=2)]

    window.undoable_edits.edit_cells("customers", [(i, "city", "Signal City") for i in ids], "Edit")
    assert said == [["customers"]]  # one write, one signal, one resource
    assert customers.model.pending_count == 2 and warehouses.model.pending_count == 0
    assert outbox_view.model.rowCount() == 2 and pending.text() == "2 pending"

    window.undo_stack.undo()
    assert said[1:] == [["customers"]]
    assert customers.model.pending_count == 0 and outbox_view.model.rowCount() == 0
    assert not pending.isVisible()

    window.undo_stack.redo()
    outbox_view.select_seqs([c.seq for c in session.outbox.changes(ACTIVE)][:1])
    outbox_view.on_discard_clicked()  # the view does not know which resources: all of them
    assert "customers" in said[-1] and "warehouses" in said[-1]
    assert customers.model.pending_count == 1 and pending.text() == "1 pending"

    session.push()
    loop.run_until_complete(until(lambda: session.outbox.counts()["done"] == 1, within=30))
    loop.run_until_complete(until(lambda: not session.tasks.busy, within=30))
    assert ["customers"] in said[-3:]  # the push's results, for what it sent
    assert customers.model.pending_count == 0 and outbox_view.model.rowCount() == 0
    assert not pending.isVisible()
