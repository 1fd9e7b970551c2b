"""Records read by their name and code in the outbox, the review before a push and the history of
pushes (issue 30, point 5): they read "C10128 · 2cuesj", the business key beside the internal
id. Now, in the real window over the simulator, a record reads as a show administrator knows it —
"Cornerstone Market #128 (C10128)" — and its internal id is only in the tooltip."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest
import qasync
from PySide6.QtCore import QModelIndex, Qt

from app.profile.settings import ProfileStore
from app.sim import SimServer, generate_show
from app.store.changes import ACTIVE
from app.ui.outbox.outbox_view import COLUMNS
from app.ui.window.show_lists import open_history, open_outbox
from tests.gui.conftest import Opened, Opener, config, profile_for, wait_synced
from tests.gui.form.test_own_push import settled
from tests.gui.session.test_push_said import edit_cities


@pytest.fixture
def opened(loop: qasync.QEventLoop, open_window: Opener) -> Iterator[Opened]:
    with SimServer(generate_show("tiny", seed=6), config(rate_limit=300)) as server:
        profile = replace(profile_for(server), review_push_over=1)
        ProfileStore().save(profile)
        window = open_window(profile)
        wait_synced(loop, window.session)
        yield window


def named(opened: Opened, record_id: str) -> str:
    record = opened.session.cache.get("customers", record_id)
    assert record is not None
    return f"{record['customerName']} ({record['customerID']})"


def test_the_outbox_the_review_and_the_history_name_records_as_people_know_them(
    opened: Opened, loop: qasync.QEventLoop
) -> None:
    ids = edit_cities(opened, ["Alpha", "Beta"])
    names = [named(opened, rid) for rid in ids]

    view = open_outbox(opened.window)
    assert view is not None
    model, record = view.model, COLUMNS.index("Record")
    rows = [model.index(r, record, QModelIndex()) for r in range(model.rowCount())]
    assert [i.data(Qt.ItemDataRole.DisplayRole) for i in rows] == names
    assert [i.data(Qt.ItemDataRole.ToolTipRole) for i in rows] == [f"id {rid}" for rid in ids]
    assert not any(rid in str(i.data(Qt.ItemDataRole.DisplayRole)) for i in rows for rid in ids)

    opened.window.actions_["push"].trigger()  # Ctrl+S: reviewed first (more than 1 change)
    gate = opened.window.push_gate
    assert gate is not None and gate.dialog is not None and gate.dialog.isVisible()
    tree = gate.dialog.tree
    items = [tree.topLevelItem(n) for n in range(tree.topLevelItemCount())]
    assert [i.text(0) for i in items if i is not None] == [f"Customers · {n}" for n in names]
    assert [i.toolTip(0) for i in items if i is not None] == [f"id {rid}" for rid in ids]
    gate.dialog.push_button.click()
    settled(loop, opened, 2)
    assert opened.session.outbox.changes(ACTIVE) == []

    history = open_history(opened.window)
    assert history is not None
    shown = history.model
    column = list(shown.columns).index("Record")
    cells = [shown.index(r, column) for r in range(shown.rowCount())]
    assert sorted(str(c.data(Qt.ItemDataRole.DisplayRole)) for c in cells) == sorted(names)
    assert sorted(str(c.data(Qt.ItemDataRole.ToolTipRole)) for c in cells) == sorted(
        f"id {rid}" for rid in ids
    )
