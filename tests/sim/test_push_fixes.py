"""Fix and push again: an edit of a record whose change the server refused supersedes it, so
the next push sends exactly one request for it and no failed change is left (simulator)."""

from __future__ import annotations

import pytest

from app.api.client import ShowClient
from app.sim import SimServer
from app.store.changes import NewChange
from app.sync.edit.editor import Editor, FieldEdit
from app.sync.pull.puller import Puller
from app.sync.push.pusher import Pusher
from tests.sim.test_bulk_push import client, editor, orderable, sent, server, show

__all__ = ["client", "editor", "server", "show"]  # fixtures


@pytest.mark.asyncio
async def test_a_fixed_update_is_sent_once_and_the_failed_row_clears(
    server: SimServer, client: ShowClient, editor: Editor
) -> None:
    await Puller(client, editor.cache).sync(["customers"], full=True)
    bad, good = (r["id"] for r in server.show.records("customers")[:2])
    # The Editor refuses to clear a key (issue 14): the change comes as another client could
    # have queued it, and the server refuses it.
    blank = {**(editor.current("customers", bad) or {}), "customerID": None}
    base = editor.cache.get("customers", bad)
    fields = ("customerID",)
    refused = NewChange("customers", "update", bad, blank, changed_fields=fields, base=base)
    first = editor.outbox.add(refused)
    editor.stage("customers", [FieldEdit(good, "city", "Lyon")])
    report = await Pusher(client, editor.cache, editor.outbox).push()
    assert (report.done, report.failed) == (1, 1)
    failed = editor.outbox.get(first)
    assert failed is not None and failed.state == "failed"
    assert failed.response["fields"] == {"customerID": ["must not be empty"]}
    view = editor.current("customers", bad)
    assert view is not None and view["customerID"] is None  # the refused value still shows

    fix = editor.stage("customers", [FieldEdit(bad, "customerID", "C-FIXED")])

    assert fix.seqs == [failed.seq]  # the failed change itself takes the fixed record
    assert editor.outbox.counts()["failed"] == 0 and editor.outbox.counts()["pending"] == 1
    puts = sent(server, "PUT", "/Customer/{id}")
    report = await Pusher(client, editor.cache, editor.outbox).push()
    assert (report.done, report.failed) == (1, 0)
    assert sent(server, "PUT", "/Customer/{id}") == puts + 1
    assert server.show.get("customers", bad)["customerID"] == "C-FIXED"  # type: ignore[index]
    assert editor.outbox.changes(("pending", "sending", "failed")) == []


@pytest.mark.asyncio
async def test_a_fixed_bulk_line_goes_alone_in_one_bulk_request(
    server: SimServer, client: ShowClient, editor: Editor
) -> None:
    await Puller(client, editor.cache).sync(["product-inventory"], full=True)
    row = next(iter(editor.cache.records("product-inventory")))
    editor.stage("product-inventory", [FieldEdit(row["id"], "warehouseID", "NOWHERE")])
    await Pusher(client, editor.cache, editor.outbox).push()
    assert editor.outbox.counts()["failed"] == 1

    other = next(w for w in server.show.records("warehouses") if w["warehouseID"] != "NOWHERE")
    editor.stage("product-inventory", [FieldEdit(row["id"], "warehouseID", other["warehouseID"])])
    report = await Pusher(client, editor.cache, editor.outbox).push()

    assert (report.done, report.failed) == (1, 0)
    assert sent(server, "PUT", "/ProductInventory") == 2
    assert editor.outbox.counts()["failed"] == 0


@pytest.mark.asyncio
async def test_a_refused_order_line_fixed_in_place_is_created_once(
    server: SimServer, client: ShowClient, editor: Editor
) -> None:
    product = orderable(server.show)
    seq, _ = editor.create(
        "orders",
        {"customer": {"id": "C-NOBODY"}, "product": {"id": product["productID"]}, "quantity": 6},
    )
    assert seq is not None
    await Pusher(client, editor.cache, editor.outbox).push()
    change = editor.outbox.get(seq)
    assert change is not None and change.state == "failed"

    customer = server.show.records("customers")[0]["customerID"]
    fix = editor.stage("orders", [FieldEdit(change.record_id, "customer", {"id": customer})])
    assert fix.seqs == [seq]
    before = server.show.count("orders")
    report = await Pusher(client, editor.cache, editor.outbox).push()

    assert (report.done, report.failed) == (1, 0)  # refused before: no look-up, sent again
    assert server.show.count("orders") == before + 1
    assert sent(server, "POST", "/Order") == 2
    done = editor.outbox.get(seq)
    assert done is not None and done.state == "done" and done.server_id
