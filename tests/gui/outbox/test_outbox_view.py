"""The outbox pane and the conflict dialog, over a real Outbox file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import qasync
from PySide6.QtCore import QItemSelection, QItemSelectionModel, Qt, QTimer
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from app.api.governor import GovernorState
from app.api.registry import default_registry
from app.sim import SimServer, generate_show
from app.store.cache import Cache
from app.store.changes import Change
from app.store.outbox import NewChange, Outbox
from app.ui.common.palette import Hue, background, text
from app.ui.outbox.conflict_dialog import ConflictDialog, conflict_fields
from app.ui.outbox.outbox_view import (
    COLUMNS,
    OutboxModel,
    OutboxView,
    diff_text,
    record_text,
    record_tip,
)
from app.wording.references import ReferenceNames
from tests.gui.conftest import Opener, config, profile_for, until, wait_synced

REGISTRY = default_registry()
BASE = {
    "id": "c1",
    "customerID": "CU1",
    "city": "Paris",
    "priceZone": 2,
    "phone": "1",
    "modifiedDate": "2025-05-01",
}
THEIRS = {**BASE, "city": "Madrid", "phone": "999", "modifiedDate": "2025-05-03"}


def edit(record_id: str = "c1", **fields: Any) -> NewChange:
    fields = fields or {"city": "Lyon"}
    return NewChange(
        resource="customers",
        op="update",
        record_id=record_id,
        payload={**BASE, "id": record_id, **fields},
        changed_fields=tuple(fields),
        base={**BASE, "id": record_id},
        key_value="CU1",
    )


@pytest.fixture
def outbox(tmp_path: Path) -> Iterator[Outbox]:
    with Outbox(tmp_path / "outbox.sqlite") as box:
        yield box


def failed(outbox: Outbox, error: str = "Customers update: HTTP 400: bad city") -> int:
    seq = outbox.add(edit(city="Nice"))
    outbox.mark_sending([seq])
    outbox.mark_failed(seq, error)
    return seq


def conflict(outbox: Outbox) -> int:
    seq = outbox.add(edit(city="Lyon", priceZone=3))
    outbox.mark_conflict(seq, THEIRS)
    return seq


def get(outbox: Outbox, seq: int) -> Change:
    change = outbox.get(seq)
    assert change is not None
    return change


@pytest.fixture
def view(qtbot: QtBot, outbox: Outbox) -> OutboxView:
    widget = OutboxView(outbox, REGISTRY, confirm=lambda question: True)
    qtbot.addWidget(widget)
    return widget


# ------------------------------------------------------------------------------------ model


def test_values_read_in_words_in_the_list_and_the_detail(
    qtbot: QtBot, outbox: Outbox, tmp_path: Path
) -> None:
    """Issue 30: the outbox showed "W1", raw JSON (`[{"id": "kqj19r", …`) and "EmailAndSms";
    now a reference by name and code, a nested object by its label, an enumeration in words."""
    groups = [{"id": "kqj19r", "orderingGroupName": "Summer"}]
    outbox.add(edit(warehouseID="W2", orderingGroups=groups))
    outbox.add(
        NewChange(
            resource="attendees",
            op="update",
            record_id="at1",
            payload={"id": "at1", "arrivalNotificationBehavior": "EmailAndSms"},
            changed_fields=("arrivalNotificationBehavior",),
            base={"id": "at1", "arrivalNotificationBehavior": "Sms"},
        )
    )
    with Cache(tmp_path / "cache.db", REGISTRY) as cache:
        cache.upsert("warehouses", [{"id": "w2", "warehouseID": "W2", "description": "South DC"}])
        view = OutboxView(outbox, REGISTRY, names=ReferenceNames(cache))
        qtbot.addWidget(view)
        model, column = view.model, COLUMNS.index("Changes")
        qtbot.waitUntil(lambda: model.rowCount() == 2)
        texts = [model.index(r, column).data() for r in range(2)]
        assert texts == [
            "Warehouse ID: — → South DC (W2); Ordering groups: — → Summer",
            "Arrival notification behavior: Sms → Email and sms",
        ]
        view.table.setCurrentIndex(model.index(0, 0))
        qtbot.waitUntil(lambda: "South DC (W2)" in view.detail.toPlainText())
        assert "kqj19r" not in view.detail.toPlainText()


def test_the_model_passes_the_model_tester(qtmodeltester: ModelTester, outbox: Outbox) -> None:
    outbox.add(edit(city="Lyon", priceZone=3))
    failed(outbox)
    conflict(outbox)
    model = OutboxModel(outbox, REGISTRY)
    qtmodeltester.check(model)
    outbox.add(edit("c2"))
    model.refresh()
    qtmodeltester.check(model)
    assert model.rowCount() == 2  # one row per record: c1 (three changes inside) and c2
    assert model.rowCount(model.index(0, 0)) == 3


def test_a_row_per_record_with_its_changes_attempts_and_reasons_inside(outbox: Outbox) -> None:
    first = outbox.add(edit(city="Lyon", priceZone=3))
    failed(outbox)
    outbox.add(edit("c2", city="Rome"))
    done = outbox.add(edit("c3"))
    outbox.mark_sending([done])
    outbox.mark_done(done, {"id": "c3"})
    model = OutboxModel(outbox, REGISTRY)
    rows = [[model.index(r, c).data() for c in range(7)] for r in range(model.rowCount())]
    error = "Customers update: HTTP 400: bad city"
    net = "City: Paris → Nice; Price zone: 2 → 3 (2 changes)"
    assert rows == [
        ["failed", "Customers", "CU1", "update", net, "1", error],
        ["pending", "Customers", "CU1", "update", "City: Paris → Rome", "0", ""],
    ]
    c1 = model.index(0, 0)
    inside = [[model.index(r, c, c1).data() for c in range(7)] for r in range(model.rowCount(c1))]
    assert inside == [
        ["pending", "", f"#{first}", "update", "City: Paris → Lyon; Price zone: 2 → 3", "0", ""],
        ["failed", "", f"#{first + 1}", "update", "City: Paris → Nice", "1", error],
    ]
    assert model.index(0, 0).data(Qt.ItemDataRole.ForegroundRole).name() == text(Hue.ERROR).name()


def test_the_reason_column_shows_only_with_errors_and_columns_fit(
    view: OutboxView, outbox: Outbox
) -> None:
    outbox.add(edit(city="Lyon"))
    view.refresh()
    reason = COLUMNS.index("Last error")
    assert view.table.isColumnHidden(reason)
    record = COLUMNS.index("Record")
    assert view.table.columnWidth(record) >= view.table.sizeHintForColumn(record)
    seq = failed(outbox)
    view.refresh()
    assert not view.table.isColumnHidden(reason)
    view.select_seqs([seq])  # one change of a record with two: its own row, the record opened
    assert [c.seq for c in view.selected()] == [seq]
    assert view.table.isExpanded(view.model.index(0, 0))
    assert view.table.columnWidth(0) >= view.table.sizeHintForColumn(0)  # indented rows fit too
    assert view.buttons["Retry"].isEnabled() and view.detail.toPlainText().splitlines()[0].endswith(
        " · 1 attempt"
    )
    view.table.selectionModel().select(
        view.model.index(0, 0),
        QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows,
    )
    assert [c.seq for c in view.selected()] == [seq - 1, seq]  # the record: all its changes


def test_creates_deletes_and_local_ids_read_plainly(outbox: Outbox) -> None:
    seq = outbox.add(
        NewChange("customers", "create", payload={"customerID": "CU9", "city": "Lyon"})
    )
    create = get(outbox, seq)
    customers = REGISTRY["customers"]
    assert record_text(create, customers) == "CU9"  # a record by its code, no internal id
    assert record_tip(create) == "not on the show yet"
    assert diff_text(create) == "Customer ID: CU9; City: Lyon"
    named = get(outbox, outbox.add(NewChange("customers", "create", payload={
        "customerID": "CU8", "customerName": "Ann's Hardware"})))  # fmt: skip
    assert record_text(named, customers) == "Ann's Hardware (CU8)"
    blank = get(outbox, outbox.add(NewChange("customers", "create", payload={"city": "Oslo"})))
    assert record_text(blank, customers) == "new customer"
    delete = get(outbox, outbox.add(NewChange("customers", "delete", record_id="c7")))
    assert record_text(delete, customers) == "c7" and diff_text(delete) == ""  # nothing else
    assert record_tip(delete) == "id c7"


# ------------------------------------------------------------------------------------- view


def test_push_all_and_push_selected(qtbot: QtBot, view: OutboxView, outbox: Outbox) -> None:
    first = outbox.add(edit())
    failed(outbox)
    view.refresh()
    with qtbot.waitSignal(view.push_requested, timeout=1000) as blocker:
        qtbot.mouseClick(view.buttons["Push all"], Qt.MouseButton.LeftButton)
    assert blocker.args == [None]
    view.table.selectAll()
    with qtbot.waitSignal(view.push_requested, timeout=1000) as blocker:
        qtbot.mouseClick(view.buttons["Push selected"], Qt.MouseButton.LeftButton)
    assert blocker.args == [[first]]  # only the pending one


def test_buttons_follow_the_selection(view: OutboxView, outbox: Outbox) -> None:
    outbox.add(edit())
    failed_seq = failed(outbox)
    view.refresh()
    assert not view.buttons["Retry"].isEnabled() and view.buttons["Push all"].isEnabled()
    view.select_seqs([failed_seq])
    assert view.buttons["Retry"].isEnabled()
    assert not view.buttons["Push selected"].isEnabled()
    assert not view.buttons["Resolve conflict…"].isEnabled()
    assert "Error: Customers update: HTTP 400: bad city" in view.detail.toPlainText()


def test_retry_moves_failed_to_pending(qtbot: QtBot, view: OutboxView, outbox: Outbox) -> None:
    seq = failed(outbox)
    view.refresh()
    view.select_seqs([seq])
    with qtbot.waitSignal(view.changed, timeout=1000):
        qtbot.mouseClick(view.buttons["Retry"], Qt.MouseButton.LeftButton)
    assert get(outbox, seq).state == "pending"
    assert view.model.index(0, 0).data() == "pending"
    assert [c.seq for c in view.selected()] == [seq]  # still selected after the reload


def test_discard_asks_first(qtbot: QtBot, outbox: Outbox) -> None:
    questions: list[str] = []
    answers = iter([False, True])

    def confirm(question: str) -> bool:
        questions.append(question)
        return next(answers)

    view = OutboxView(outbox, REGISTRY, confirm=confirm)
    qtbot.addWidget(view)
    seqs = [outbox.add(edit()), outbox.add(edit("c2"))]
    view.refresh()
    view.select_seqs(seqs)
    with qtbot.assertNotEmitted(view.changed):
        view.on_discard_clicked()
    assert [get(outbox, s).state for s in seqs] == ["pending", "pending"]
    with qtbot.waitSignal(view.changed, timeout=1000):
        view.on_discard_clicked()
    assert [get(outbox, s).state for s in seqs] == ["discarded", "discarded"]
    assert questions[0].startswith("Discard these 2 changes?")
    assert view.model.rowCount() == 0


def test_resolve_opens_the_resolver_and_reports(qtbot: QtBot, outbox: Outbox) -> None:
    seen: list[int] = []

    def resolver(change: Change) -> bool:
        seen.append(change.seq)
        outbox.resolve(change.seq, "mine")
        return True

    view = OutboxView(outbox, REGISTRY, resolver=resolver)
    qtbot.addWidget(view)
    seq = conflict(outbox)
    view.refresh()
    view.select_seqs([seq])
    assert view.buttons["Resolve conflict…"].isEnabled()
    assert "The server's record now:" in view.detail.toPlainText()
    with qtbot.waitSignal(view.changed, timeout=1000):
        qtbot.mouseClick(view.buttons["Resolve conflict…"], Qt.MouseButton.LeftButton)
    assert seen == [seq] and get(outbox, seq).state == "pending"


# ---------------------------------------------------------------------------------- dialog


@pytest.fixture
def dialog(qtbot: QtBot, outbox: Outbox) -> ConflictDialog:
    change = get(outbox, conflict(outbox))
    widget = ConflictDialog(outbox, change, REGISTRY)
    qtbot.addWidget(widget)
    return widget


def test_dialog_rows_are_my_fields_then_theirs(dialog: ConflictDialog) -> None:
    assert dialog.fields == ["city", "priceZone", "phone"]
    assert conflict_fields(dialog.change) == dialog.fields
    table = dialog.table
    assert [table.item(0, c).text() for c in range(2)] == ["City", "Paris"]
    assert table.cellWidget(0, 2).text() == "Lyon" and table.cellWidget(0, 3).text() == "Madrid"
    assert [dialog.choice(f) for f in dialog.fields] == ["mine", "mine", "theirs"]
    assert dialog.differs("city") and dialog.differs("phone")
    clash = background(Hue.ERROR).name()
    assert table.item(0, 3).background().color().name() == clash  # both moved: a clash


def test_keep_mine(dialog: ConflictDialog, outbox: Outbox) -> None:
    dialog.buttons["Keep mine"].click()
    change = get(outbox, dialog.change.seq)
    assert dialog.result() == ConflictDialog.DialogCode.Accepted and dialog.resolution == "mine"
    assert change.state == "pending"
    assert change.payload == {**THEIRS, "city": "Lyon", "priceZone": 3}  # their phone kept


def test_take_theirs(dialog: ConflictDialog, outbox: Outbox) -> None:
    dialog.buttons["Take theirs"].click()
    assert get(outbox, dialog.change.seq).state == "discarded"
    assert dialog.resolution == "theirs"


def test_apply_choices_merges_per_field(dialog: ConflictDialog, outbox: Outbox) -> None:
    dialog.choose("city", "theirs")
    dialog.choose("phone", "mine")
    assert dialog.choices() == {"city": "Madrid", "priceZone": 3, "phone": "1"}
    dialog.buttons["Apply choices"].click()
    change = get(outbox, dialog.change.seq)
    assert change.state == "pending"
    assert change.payload == {**THEIRS, "priceZone": 3, "phone": "1"}
    assert set(change.changed_fields) == {"priceZone", "phone"}


def test_cancel_leaves_the_conflict(dialog: ConflictDialog, outbox: Outbox) -> None:
    dialog.reject()
    assert get(outbox, dialog.change.seq).state == "conflict" and dialog.resolution is None


@pytest.mark.qt_log_ignore("propagateSizeHints")  # the offscreen platform's note on any exec()
def test_the_view_uses_the_dialog_by_default(qtbot: QtBot, outbox: Outbox) -> None:
    view = OutboxView(outbox, REGISTRY)
    qtbot.addWidget(view)

    def take_theirs() -> None:
        dialog = view.findChild(ConflictDialog)
        assert dialog is not None and dialog.isVisible()
        dialog.buttons["Take theirs"].click()

    seq = conflict(outbox)
    view.refresh()
    view.select_seqs([seq])
    QTimer.singleShot(0, take_theirs)
    with qtbot.waitSignal(view.changed, timeout=3000):
        view.on_resolve_clicked()
    assert get(outbox, seq).state == "discarded"


# ------------------------------------------------------------------- review: what a push costs


def test_the_review_line_tells_requests_and_time(
    qtbot: QtBot, view: OutboxView, outbox: Outbox
) -> None:
    assert view.summary.text() == "Nothing pending to push"
    outbox.add_many([edit(f"c{n}", city=f"City {n}") for n in range(30)])
    view.refresh()
    assert view.summary.text().startswith(
        "30 pending changes · 31 requests (30 sends, 1 listing) · under a second"
    )
    view.on_governor_changed(
        GovernorState(used=270, limit=300, span=60.0, paused_until=None, attempt=0, max_attempts=8)
    )
    assert view.summary.text().endswith("· about 7 s at 270/300 per 60 s")


def test_review_of_one_resource_pushes_and_discards_only_its_changes(
    qtbot: QtBot, outbox: Outbox
) -> None:
    asked: list[str] = []
    view = OutboxView(outbox, REGISTRY, confirm=lambda q: asked.append(q) or True)
    qtbot.addWidget(view)
    mine = [outbox.add(edit("c1")), outbox.add(edit("c2"))]
    other = outbox.add(NewChange("warehouses", "update", "w1", payload={"warehouseID": "W1"}))
    view.set_scope("customers")
    assert view.model.rowCount() == 2 and not view.scope_label.isHidden()
    assert view.scope_label.text() == "Changes of Customers"
    with qtbot.waitSignal(view.push_requested, timeout=1000) as blocker:
        qtbot.mouseClick(view.buttons["Push all"], Qt.MouseButton.LeftButton)
    assert blocker.args == [mine]
    with qtbot.waitSignal(view.changed, timeout=1000):
        qtbot.mouseClick(view.buttons["Discard all…"], Qt.MouseButton.LeftButton)
    assert asked == [
        "Discard all 2 changes of Customers? They are removed from the outbox and never sent "
        "to the show."
    ]
    assert [get(outbox, s).state for s in [*mine, other]] == ["discarded", "discarded", "pending"]
    assert not view.buttons["Discard all…"].isEnabled()
    qtbot.mouseClick(view.show_all_button, Qt.MouseButton.LeftButton)
    assert view.model.rowCount() == 1 and view.scope_label.isHidden()
    assert view.buttons["Discard all…"].isEnabled()


def test_a_tabs_badge_opens_its_review_and_push_sends_it(
    open_window: Opener, loop: qasync.QEventLoop, qtbot: QtBot
) -> None:
    with SimServer(generate_show("tiny", seed=3), config()) as server:
        opened = open_window(profile_for(server))
        wait_synced(loop, opened.session)
        window, outbox = opened.window, opened.session.outbox
        tab = window.open_resource("customers")
        assert tab is not None and tab.grid is not None
        column = tab.model.column_of("city")
        tab.table.selectionModel().select(
            QItemSelection(tab.model.index(0, column), tab.model.index(4, column)),
            QItemSelectionModel.SelectionFlag.ClearAndSelect,
        )
        tab.grid.paste("Lyon")
        assert tab.pending_label.text() == "5 unsaved changes"
        qtbot.mouseClick(tab.pending_label, Qt.MouseButton.LeftButton)
        view = window.outbox_view
        assert view is not None and window.tabs.currentWidget() is view
        assert view.model.scope == "customers" and view.model.rowCount() == 5
        rate = opened.session.client.governor.state()
        assert view.summary.text() == (
            "5 pending changes · 6 requests (5 sends, 1 listing) · under a second"
            f" at {rate.used}/{rate.limit} per {rate.span:g} s"
        )
        qtbot.mouseClick(view.buttons["Push all"], Qt.MouseButton.LeftButton)

        async def pushed() -> None:
            await until(lambda: outbox.counts()["pending"] == 0 and not opened.session.tasks.busy)

        loop.run_until_complete(pushed())
        assert outbox.counts()["done"] == 5
        assert view.summary.text() == "Nothing pending to push"
        assert tab.pending_label.isHidden()


def test_the_dialog_reads_in_words_only_what_differs(
    qtbot: QtBot, outbox: Outbox, tmp_path: Path
) -> None:
    """Issue 30, item 6: field titles, not API names; a reference by its name; a nested object by
    its label; a long value cut at a word, whole on hovering; a field where mine and theirs are
    the same not listed; the record by its key, never its internal id."""
    long = "Deliveries to the loading dock at the back, ring twice, " * 4
    groups = [{"id": "kqj19r", "orderingGroupName": "Frozen aisle"}]
    with Cache(tmp_path / "cache.sqlite", REGISTRY) as cache:
        cache.upsert("warehouses", [{"id": "w1", "warehouseID": "WH01", "description": "Akron"},
                                    {"id": "w2", "warehouseID": "WH02",
                                     "description": "Dayton distribution center"}])  # fmt: skip
        seq = outbox.add(edit(warehouseID="WH02", extra1=long, phone="999"))
        outbox.mark_conflict(seq, {**THEIRS, "warehouseID": "WH01", "extra1": "Front door",
                                   "orderingGroups": groups})  # fmt: skip
        dialog = ConflictDialog(outbox, get(outbox, seq), REGISTRY, names=ReferenceNames(cache))
        qtbot.addWidget(dialog)
        rows = {dialog.table.item(r, 0).text(): r for r in range(dialog.table.rowCount())}

        assert "Phone" not in rows  # mine is theirs: nothing to choose
        assert {"Warehouse", "Extra1", "City", "Ordering groups"} <= set(rows)  # by what it shows
        warehouse = rows["Warehouse"]
        mine, theirs = (dialog.table.cellWidget(warehouse, c) for c in (2, 3))
        assert (mine.text(), theirs.text()) == ("Dayton distribution center", "Akron")
        extra = dialog.table.cellWidget(rows["Extra1"], 2)
        assert extra.text().endswith("…") and len(extra.text()) <= 40
        assert extra.text()[:-1] == long[: len(extra.text()) - 1].rstrip(" ,;")  # cut at a word
        assert long[len(extra.text()) - 1] in " ,;"
        assert extra.toolTip() == long  # whole on hovering
        nested = dialog.table.cellWidget(rows["Ordering groups"], 3)
        assert nested.text() == "Frozen aisle" and "kqj19r" not in nested.text()
        assert dialog.windowTitle() == "Resolve conflict — Customers CU1"
