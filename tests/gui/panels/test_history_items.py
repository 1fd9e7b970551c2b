"""Order history on a simulated show: a bucket's items listed under it, new items sent as one
bulk-create, a refused one kept with the reason, corrected and sent again."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import qasync

from app.sim import SimServer, generate_show
from app.store.changes import State
from app.ui.panels.history_items import HistoryItemsPanel
from app.ui.session.session import ShowSession
from tests.gui.conftest import Opener, config, profile_for, until, wait_synced


@pytest.fixture
def server() -> Iterator[SimServer]:
    with SimServer(generate_show("tiny", seed=17), config(rate_limit=300)) as running:
        yield running


def settled(loop: qasync.QEventLoop, session: ShowSession, state: State, count: int) -> None:
    session.push()  # issue 14: a panel's changes wait for Push like a cell edit

    async def wait() -> None:
        await until(lambda: session.outbox.counts()[state] == count)
        await until(lambda: not session.tasks.busy and not session.syncing)

    loop.run_until_complete(wait())


def test_items_of_a_bucket_and_new_ones_in_one_upload(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    opened = open_window(profile_for(server))
    session = opened.session
    wait_synced(loop, session)
    tab = opened.window.open_resource("order-history-buckets")
    assert tab is not None
    tab.table.setCurrentIndex(tab.model.index(0, 0))
    bucket = server.show.get("order-history-buckets", tab.model.record_id(0))
    assert bucket is not None
    panel = tab.findChild(HistoryItemsPanel, "history-items")
    assert isinstance(panel, HistoryItemsPanel) and panel.key == bucket["bucket"]
    theirs = server.show.find("order-history-items", "bucket", bucket["bucket"])
    assert sorted(i["mainNumber"] for i in panel.listed()) == sorted(
        i["mainNumber"] for i in theirs
    )

    customer = server.show.records("customers")[0]["customerID"]
    product = server.show.records("products")[0]
    for number, who in (("M-NEW-1", customer), ("M-NEW-2", "NO-SUCH-CUSTOMER")):
        row = panel.new_items.add_row()
        for column, text in (
            ("customerid", who),
            ("productid", product["productID"]),
            ("orderUnit", product["orderUnit"]),
            ("mainNumber", number),
        ):
            panel.new_items.set_cell(row, column, text)  # fmt: skip
    [seq] = panel.send()
    change = session.outbox.get(seq)
    assert change is not None and change.op == "bulk-create"
    assert [i["bucket"] for i in change.payload["body"]["history"]] == [bucket["bucket"]] * 2

    settled(loop, session, "failed", 1)
    stored = {
        i["mainNumber"] for i in server.show.find("order-history-items", "bucket", bucket["bucket"])
    }
    assert "M-NEW-1" in stored and "M-NEW-2" not in stored
    assert "M-NEW-1" in {i["mainNumber"] for i in panel.listed()}  # listed again from the show
    assert panel.new_items.table.rowCount() == 1
    assert panel.new_items.row_problem(0) == "Customer not found"

    panel.new_items.set_cell(0, "customerid", customer)
    panel.send()
    settled(loop, session, "done", 1)
    stored = {
        i["mainNumber"] for i in server.show.find("order-history-items", "bucket", bucket["bucket"])
    }
    assert {"M-NEW-1", "M-NEW-2"} <= stored
    assert (
        len([i for i in server.show.records("order-history-items") if i["mainNumber"] == "M-NEW-1"])
        == 1
    )
    assert panel.new_items.table.rowCount() == 0
