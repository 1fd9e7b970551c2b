"""The history of pushed changes: pushed on a simulated show, then listed (when, who, what,
result), filtered by text and result, exported as CSV in a worker thread."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path

import pytest
import qasync
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from app.api.registry import default_registry
from app.sim import SimServer, generate_show
from app.store.outbox import NewChange, Outbox
from app.ui.outbox.history_view import COLUMNS, EVERY_RESULT, HistoryView
from tests.gui.conftest import Opener, config, profile_for, until, wait_synced

REGISTRY = default_registry()


@pytest.fixture
def outbox(tmp_path: Path) -> Iterator[Outbox]:
    with Outbox(tmp_path / "outbox.sqlite") as box:
        yield box


def settle(outbox: Outbox, record_id: str, city: str, result: str) -> None:
    base = {"id": record_id, "customerID": f"CU-{record_id}", "city": "Paris"}
    seq = outbox.add(
        NewChange("customers", "update", record_id, payload={**base, "city": city},
                  changed_fields=("city",), base=base)
    )  # fmt: skip
    change = outbox.get(seq)
    assert change is not None
    outbox.audit(change, result)


def rows(view: HistoryView) -> list[list[str]]:
    model = view.model
    return [[model.index(r, c).data() for c in range(3, 7)] for r in range(model.rowCount())]


def test_pushed_changes_are_listed_with_when_who_what_and_result(
    loop: qasync.QEventLoop, open_window: Opener, tmp_path: Path, qtbot: QtBot
) -> None:
    target = tmp_path / "history.csv"
    with SimServer(generate_show("tiny", seed=3), config()) as server:
        opened = open_window(profile_for(server), export_to=target)
        wait_synced(loop, opened.session)
        window, session = opened.window, opened.session
        assert window.undoable_edits is not None
        edited = list(session.cache.records("customers", limit=2))
        ids = [str(r["id"]) for r in edited]
        keys = [f"{r['customerName']} ({r['customerID']})" for r in edited]  # what a person reads
        window.undoable_edits.edit_cells("customers", [(i, "city", "Oslo") for i in ids], "Edit")
        window.actions_["history"].trigger()
        view = window.tabs.currentWidget()
        assert isinstance(view, HistoryView) and view.model.rowCount() == 0
        session.push()
        pushed = lambda: session.outbox.counts()["done"] == 2 and not session.tasks.busy  # noqa: E731
        loop.run_until_complete(until(pushed, within=30))  # the whole push in one loop run
        assert view.model.rowCount() == 2  # followed the push
        first = [view.model.index(0, c).data() for c in range(len(COLUMNS))]
        assert first[1:3] == ["Test show", "Customers"] and first[6] == "applied"
        assert first[5].endswith("→ Oslo") and first[5].startswith("City: ")
        assert {r[0] for r in rows(view)} == set(keys)

        window.open_resource("customers")  # behind another tab: read when shown again
        window.undoable_edits.edit_cells("customers", [(ids[0], "city", "Bergen")], "Edit")
        session.push()
        pushed = lambda: session.outbox.counts()["done"] == 3 and not session.tasks.busy  # noqa: E731
        loop.run_until_complete(until(pushed, within=30))
        assert view.model.rowCount() == 2
        window.tabs.setCurrentWidget(view)
        assert view.model.rowCount() == 3
        assert view.model.index(0, 5).data() == "City: Oslo → Bergen"  # newest first

        view.filter_edit.setText(str(edited[1]["customerID"]))  # found by its business key
        assert [r[0] for r in rows(view)] == [keys[1]]
        assert view.count_label.text() == "1 of 3 shown: 1 applied"
        qtbot.mouseClick(view.export_button, Qt.MouseButton.LeftButton)
        loop.run_until_complete(until(lambda: "History exported" in window.status.currentMessage()))
        with open(target, encoding="utf-8", newline="") as written:
            exported = list(csv.DictReader(written))
        assert [(r["record_id"], r["field"], r["after"], r["result"]) for r in exported] == [
            (ids[1], "city", "Oslo", "applied")
        ]
        assert window.status.currentMessage() == f"History exported: 1 row written to {target}"


def test_the_result_filter_offers_the_outcomes_present(qtbot: QtBot, outbox: Outbox) -> None:
    settle(outbox, "c1", "Lyon", "applied")
    settle(outbox, "c2", "Oslo", "failed: HTTP 400: bad city")
    settle(outbox, "c3", "Rome", "conflict")
    view = HistoryView(outbox, REGISTRY, "Ann")
    qtbot.addWidget(view)
    box = view.result_box
    assert [box.itemText(i) for i in range(box.count())] == [
        EVERY_RESULT,
        "applied",
        "conflict",
        "failed",
    ]
    assert [r[0] for r in rows(view)] == ["c3", "c2", "c1"]  # newest first
    box.setCurrentText("failed")
    assert rows(view) == [["c2", "update", "City: Paris → Oslo", "failed: HTTP 400: bad city"]]
    view.filter_edit.setText("lyon")
    assert rows(view) == [] and not view.export_button.isEnabled()
    box.setCurrentText(EVERY_RESULT)
    assert [r[0] for r in rows(view)] == ["c1"]
    settle(outbox, "c4", "Nice", "applied")
    view.refresh()  # the chosen filters stay
    assert box.currentText() == EVERY_RESULT and [r[0] for r in rows(view)] == ["c1"]


def test_the_history_counts_applied_failed_and_conflicts_apart(
    loop: qasync.QEventLoop, open_window: Opener
) -> None:
    """Issue 30, item 5: a push with a conflict was counted among "13 pushed changes". The
    history says how many were applied, failed and are in conflict, each apart, and of the
    entries a filter shows."""
    from tests.gui.form.test_form_sim import queue_blank_key
    from tests.gui.session.test_push_said import edit_cities

    with SimServer(generate_show("tiny", seed=3), config()) as server:
        opened = open_window(profile_for(server))
        wait_synced(loop, opened.session)
        window, session = opened.window, opened.session
        ids = edit_cities(opened, ["Oslo", "Bergen", "Tromsø"])
        theirs = server.show.get("customers", ids[2])
        assert theirs is not None  # changed on the show meanwhile: a conflict
        server.show.replace("customers", ids[2], {**theirs, "city": "Theirs"})
        others = [r["id"] for r in session.cache.records("customers") if r["id"] not in ids]
        queue_blank_key(session.editor, others[0])  # refused by the show: failed
        window.actions_["history"].trigger()
        view = window.tabs.currentWidget()
        assert isinstance(view, HistoryView) and view.count_label.text() == "Nothing pushed yet"
        session.push()
        counts = session.outbox.counts
        loop.run_until_complete(until(lambda: counts()["done"] == 2 and not session.tasks.busy))
        assert (counts()["failed"], counts()["conflict"]) == (1, 1)

        assert view.model.rowCount() == 4
        assert view.count_label.text() == "2 applied, 1 failed, 1 in conflict"
        view.result_box.setCurrentText("applied")
        assert view.count_label.text() == "2 of 4 shown: 2 applied"
        view.result_box.setCurrentText(EVERY_RESULT)
        view.filter_edit.setText("Tromsø")
        assert view.count_label.text() == "1 of 4 shown: 1 in conflict"
