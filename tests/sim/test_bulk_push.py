"""Bulk endpoints in the Pusher, against the simulator over loopback on real SQLite files:
changes batched into bulk requests, each settled on its own, per-line refusals on their line."""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from app.api.client import ShowClient
from app.sim import SimServer, generate_show
from app.sim.show import Show
from app.store.cache import Cache
from app.store.outbox import Outbox
from app.store.table_query import TableQuery
from app.sync.edit.editor import Editor, FieldEdit
from app.sync.pull.puller import Puller
from app.sync.push.prepush import UNKNOWN_OUTCOME
from app.sync.push.pusher import Pusher
from tests.sim.test_sync import REGISTRY, _config, connect


@pytest.fixture
def show(request: pytest.FixtureRequest) -> Show:
    return generate_show(getattr(request, "param", "tiny"), seed=3)


@pytest.fixture
def server(show: Show) -> Iterator[SimServer]:
    with SimServer(show, _config()) as running:
        yield running


@pytest_asyncio.fixture
async def client(server: SimServer) -> AsyncIterator[ShowClient]:
    async with connect(server) as running:
        yield running


@pytest.fixture
def editor(tmp_path: Path) -> Iterator[Editor]:
    with (
        Cache(tmp_path / "cache.sqlite", REGISTRY) as cache,
        Outbox(tmp_path / "outbox.sqlite") as outbox,
    ):
        yield Editor(cache, outbox, REGISTRY)


def sent(server: SimServer, method: str, path: str) -> int:
    return server.stats.by_operation[(method, path)]


def orderable(show: Show) -> dict[str, Any]:
    return next(
        p
        for p in show.records("products")
        if p.get("isOrderable", True) and p.get("active", True) and not p.get("test")
    )


@pytest.mark.asyncio
@pytest.mark.parametrize("show", ["demo"], indirect=True)  # thousands of inventory rows
async def test_250_inventory_edits_go_in_ceil_250_over_batch_requests(
    server: SimServer, client: ShowClient, editor: Editor
) -> None:
    await Puller(client, editor.cache).sync(["product-inventory"], full=True)
    rows = list(editor.cache.records("product-inventory"))[:250]
    staged = editor.stage(
        "product-inventory",
        [FieldEdit(r["id"], "inventory", int(r["inventory"]) + 1) for r in rows],
    )
    assert len(staged.seqs) == 250 and not staged.rejected

    report = await Pusher(client, editor.cache, editor.outbox, bulk_size=100).push()

    assert (report.done, report.failed, report.conflicts) == (250, 0, 0)
    assert sent(server, "PUT", "/ProductInventory") == math.ceil(250 / 100)
    for r in rows:
        assert server.show.get("product-inventory", r["id"])["inventory"] == r["inventory"] + 1  # type: ignore[index]
        assert editor.cache.get("product-inventory", r["id"])["inventory"] == r["inventory"] + 1  # type: ignore[index]
    assert editor.outbox.counts()["done"] == 250
    audit = editor.outbox.audit_rows("product-inventory")
    assert len(audit) == 250 and {a.result for a in audit} == {"applied"}


@pytest.mark.asyncio
async def test_a_refused_line_fails_only_its_change_with_the_message_at_its_field(
    server: SimServer, client: ShowClient, editor: Editor
) -> None:
    await Puller(client, editor.cache).sync(["orders", "product-inventory"], full=True)
    lines = list(editor.cache.records("orders"))[:3]
    bad_line = lines[1]["id"]
    staged = editor.stage(
        "orders",
        [
            FieldEdit(lines[0]["id"], "quantity", 7),
            FieldEdit(bad_line, "quantity", 0),
            FieldEdit(lines[2]["id"], "quantity", 9),
        ],
    )
    stock = list(editor.cache.records("product-inventory"))[:2]
    editor.stage(
        "product-inventory",
        [
            FieldEdit(stock[0]["id"], "warehouseID", "NOWHERE"),
            FieldEdit(stock[1]["id"], "inventory", 5),
        ],
    )

    report = await Pusher(client, editor.cache, editor.outbox).push()

    assert (report.done, report.failed) == (3, 2)
    assert sent(server, "PUT", "/Order") == 1 and sent(server, "PUT", "/ProductInventory") == 1
    failed = {c.record_id: c for c in editor.outbox.changes(("failed",))}
    assert set(failed) == {bad_line, stock[0]["id"]}
    order = failed[bad_line]
    assert order.last_error == "Order quantity must be greater than zero"
    assert order.response["lines"] == [
        {"line": 0, "field": "quantity", "message": order.last_error}
    ]
    assert order.response["fields"] == {"quantity": [order.last_error]}
    assert failed[stock[0]["id"]].response["fields"] == {"warehouseID": ["Warehouse not found"]}
    assert server.show.get("orders", lines[0]["id"])["quantity"] == 7  # type: ignore[index]
    assert server.show.get("orders", lines[2]["id"])["quantity"] == 9  # type: ignore[index]
    assert staged.seqs[1] in {c.seq for c in failed.values()}
    results = {a.record_id: a.result for a in editor.outbox.audit_rows("orders")}
    assert results[bad_line].startswith("failed: Order quantity")


@pytest.mark.asyncio
async def test_order_lines_created_in_one_request_each_settled_on_its_own(
    server: SimServer, client: ShowClient, editor: Editor
) -> None:
    await Puller(client, editor.cache).sync(["orders"], full=True)
    product = orderable(server.show)
    customer = server.show.records("customers")[0]["customerID"]
    line = {"product": {"id": product["productID"]}, "orderUnit": product["orderUnit"]}
    good, _ = editor.create("orders", {**line, "customer": {"id": customer}, "quantity": 2})
    bad, _ = editor.create("orders", {**line, "customer": {"id": "C-NOBODY"}, "quantity": 3})
    assert good is not None and bad is not None

    report = await Pusher(client, editor.cache, editor.outbox).push()

    assert (report.done, report.failed) == (1, 1) and sent(server, "POST", "/Order") == 1
    made = editor.outbox.get(good)
    assert made is not None and made.state == "done" and made.server_id
    assert server.show.get("orders", made.server_id)["quantity"] == 2  # type: ignore[index]
    assert editor.cache.get("orders", made.server_id) is not None
    refused = editor.outbox.get(bad)
    assert refused is not None and refused.last_error == "Customer ID not found"
    assert refused.response["fields"] == {"customer": ["Customer ID not found"]}

    server.show.add("customers", {"customerID": "C-NOBODY", "customerName": "Late"})
    report = await Pusher(client, editor.cache, editor.outbox).push(retry_failed=True)
    assert report.done == 1 and sent(server, "POST", "/Order") == 2  # refused: no look-up needed
    assert len(server.show.find("orders", "quantity", 3)) >= 1


@pytest.mark.asyncio
async def test_a_multi_line_special_change_resends_only_its_refused_lines(
    server: SimServer, client: ShowClient, editor: Editor
) -> None:
    customer = server.show.records("customers")[0]["customerID"]
    product = orderable(server.show)
    item = {"productid": product["productID"], "orderUnit": product["orderUnit"], "bucket": None}
    body = [
        {**item, "customerid": customer, "mainNumber": "M-1"},
        {**item, "customerid": "C-LATE", "mainNumber": "M-2"},
        {**item, "customerid": customer, "mainNumber": "M-3"},
    ]
    seq = editor.special("order-history-items", "bulk-create", body=body)
    before = server.show.count("order-history-items")

    report = await Pusher(client, editor.cache, editor.outbox).push()

    change = editor.outbox.get(seq)
    assert report.failed == 1 and change is not None and change.state == "failed"
    assert change.response["lines"] == [
        {"line": 1, "field": "customerid", "message": "Customer not found"}
    ]
    assert change.response["sent_lines"] == [0, 2]
    assert server.show.count("order-history-items") == before + 2

    server.show.add("customers", {"customerID": "C-LATE", "customerName": "Late"})
    report = await Pusher(client, editor.cache, editor.outbox).push(retry_failed=True)
    assert report.done == 1 and editor.outbox.get(seq).state == "done"  # type: ignore[union-attr]
    numbers = [r["mainNumber"] for r in server.show.records("order-history-items")]
    assert sorted(n for n in numbers if n.startswith("M-")) == ["M-1", "M-2", "M-3"]
    assert sent(server, "POST", "/OrderHistory") == 2


@pytest.mark.asyncio
async def test_associations_of_one_booth_go_as_one_associate_many(
    server: SimServer, client: ShowClient, editor: Editor
) -> None:
    await Puller(client, editor.cache).sync(["booths"], full=True)
    first, second = (b["boothID"] for b in server.show.records("booths")[:2])
    products = [p["productID"] for p in server.show.records("products")]
    for pid in products[:3]:
        editor.special("booth-products", "associate", params={"boothID": first, "productID": pid})
    for pid in products[3:5]:
        editor.special("booth-products", "associate", params={"boothID": second, "productID": pid})
    alone = editor.special(
        "booth-vendors", "associate", params={"boothID": first, "vendorID": "V1001"}
    )

    report = await Pusher(client, editor.cache, editor.outbox).push()

    assert (report.done, report.failed) == (6, 0)
    assert sent(server, "PUT", "/BoothProduct?boothID={boothID}") == 2
    assert sent(server, "POST", "/BoothProduct?boothID={boothID}&productID={productID}") == 0
    assert sent(server, "POST", "/BoothVendor?boothID={boothID}&vendorID={vendorID}") == 1
    cached = {
        r["productID"] for r in editor.cache.records("booth-products", TableQuery(parent=first))
    }
    assert set(products[:3]) <= cached  # the booth's products were listed again
    assert editor.outbox.get(alone).response[0]["vendorID"] == "V1001"  # type: ignore[union-attr]
    grouped = editor.outbox.changes(("done",), resource="booth-products")[0]
    assert [r["productID"] for r in grouped.response] == [products[0]]


@pytest.mark.asyncio
async def test_a_refused_associate_many_falls_back_so_only_the_bad_one_fails(
    server: SimServer, client: ShowClient, editor: Editor
) -> None:
    booth = server.show.records("booths")[0]["boothID"]
    products = [p["productID"] for p in server.show.records("products")[:2]]
    seqs = [
        editor.special("booth-products", "associate", params={"boothID": booth, "productID": p})
        for p in [products[0], "P-NONE", products[1]]
    ]

    report = await Pusher(client, editor.cache, editor.outbox).push()

    assert (report.done, report.failed) == (2, 1)
    states = [editor.outbox.get(s).state for s in seqs]  # type: ignore[union-attr]
    assert states == ["done", "failed", "done"]
    assert sent(server, "PUT", "/BoothProduct?boothID={boothID}") == 1


@pytest.mark.asyncio
async def test_a_bulk_create_of_unknown_outcome_is_never_sent_again_blindly(
    server: SimServer, client: ShowClient, editor: Editor
) -> None:
    await Puller(client, editor.cache).sync(["orders"], full=True)
    product = orderable(server.show)
    customer = server.show.records("customers")[0]["customerID"]
    seq, _ = editor.create(
        "orders",
        {"customer": {"id": customer}, "product": {"id": product["productID"]}, "quantity": 4},
    )
    assert seq is not None
    editor.outbox.mark_sending([seq])  # sent, then the process died before the answer came

    report = await Pusher(client, editor.cache, editor.outbox).push()

    change = editor.outbox.get(seq)
    assert report.failed == 1 and change is not None and change.last_error == UNKNOWN_OUTCOME
    assert sent(server, "POST", "/Order") == 0
