"""Revert on the show for panel gestures, over the simulator on real SQLite files: a booth
product added and pushed is removed by the revert's own push; a pushed inventory save gets its
old quantity back; level names never read before stay as they are, with the reason."""

from __future__ import annotations

import pytest

from app.api.client import ShowClient
from app.sim import SimServer
from app.store.changes import ACTIVE
from app.store.table_query import TableQuery
from app.sync.edit.editor import Editor, FieldEdit
from app.sync.edit.revert import CannotRevert
from app.sync.pull.puller import Puller
from app.sync.push.pusher import Pusher
from tests.sim.test_bulk_push import client, editor, orderable, server, show

__all__ = ["client", "editor", "server", "show"]  # fixtures


@pytest.mark.asyncio
async def test_a_pushed_booth_product_is_removed_by_pushing_its_revert(
    server: SimServer, client: ShowClient, editor: Editor
) -> None:
    first = server.show.records("booths")[0]
    booth, listed = first["boothID"], server.show.booth_products.get(first["id"], [])
    products = server.show.records("products")
    product = next(p["productID"] for p in products if p["productID"] not in listed)
    params = {"boothID": booth, "productID": product}
    seq = editor.special("booth-products", "associate", params=params)
    await Pusher(client, editor.cache, editor.outbox).push()
    assert product in server.show.booth_products[first["id"]]

    reverted = editor.revert_queued(editor.queued_step([seq]))
    [change] = editor.outbox.changes(ACTIVE)
    assert change.seq in reverted.seqs and change.op == "remove" and change.state == "pending"
    report = await Pusher(client, editor.cache, editor.outbox).push()

    assert (report.done, report.failed) == (1, 0)
    assert product not in server.show.booth_products[first["id"]]
    cached = {
        r["productID"] for r in editor.cache.records("booth-products", TableQuery(parent=booth))
    }
    assert product not in cached


@pytest.mark.asyncio
async def test_a_pushed_inventory_save_gets_its_old_quantity_back(
    server: SimServer, client: ShowClient, editor: Editor
) -> None:
    row = dict(server.show.records("product-inventory")[0])
    line = {k: row[k] for k in ("productID", "warehouseID", "orderUnit")}
    old = row["inventory"]
    seq = editor.special(
        "product-inventory",
        "bulk-update",
        body=[{**line, "inventory": old + 7}],
        before=[{**line, "inventory": old}],
        record_id=f"productID={line['productID']}",
    )
    await Pusher(client, editor.cache, editor.outbox).push()
    assert _inventory(server, line) == old + 7

    editor.revert_queued(editor.queued_step([seq]))
    report = await Pusher(client, editor.cache, editor.outbox).push()

    assert (report.done, report.failed) == (1, 0)
    assert _inventory(server, line) == old


@pytest.mark.asyncio
async def test_level_names_never_read_before_are_refused_with_the_reason(
    server: SimServer, client: ShowClient, editor: Editor
) -> None:
    await Puller(client, editor.cache).sync(["sales-rep-groups"], full=True)
    seq = editor.special("sales-rep-groups", "define-levels", body=[{"level": 1, "name": "Tier"}])
    await Pusher(client, editor.cache, editor.outbox).push()
    with pytest.raises(CannotRevert, match="no way to read them"):
        editor.revert_queued(editor.queued_step([seq]))
    assert editor.outbox.changes(ACTIVE) == []
    assert [lv["name"] for lv in server.show.levels][:1] == ["Tier"]


def _inventory(server: SimServer, line: dict[str, object]) -> object:
    rows = server.show.records("product-inventory")
    found = [r for r in rows if all(r.get(k) == v for k, v in line.items())]
    return found[0]["inventory"]


@pytest.mark.asyncio
async def test_a_pushed_order_line_save_is_taken_back_by_pushing_its_revert(
    server: SimServer, client: ShowClient, editor: Editor
) -> None:
    """An order's Save (a quantity changed, a line added), pushed, then reverted: the quantity
    goes back and the added line is deleted from the show."""
    await Puller(client, editor.cache).sync(["orders"], full=True)
    line = next(iter(editor.cache.records("orders")))
    quantity = int(line["quantity"])
    staged = editor.stage("orders", [FieldEdit(line["id"], "quantity", quantity + 4)])
    product = orderable(server.show)
    added, rejected = editor.create(
        "orders",
        {
            "product": {"id": product["productID"]},
            "orderUnit": product["orderUnit"],
            "customer": {"id": server.show.records("customers")[0]["customerID"]},
            "quantity": 9,
        },
    )
    assert added is not None and not rejected
    step = editor.queued_step([*staged.seqs, added])
    report = await Pusher(client, editor.cache, editor.outbox).push()
    assert (report.done, report.failed) == (2, 0)
    made = editor.outbox.get(added)
    assert made is not None and made.server_id
    assert server.show.get("orders", line["id"])["quantity"] == quantity + 4  # type: ignore[index]

    editor.revert_queued(step)
    assert {c.op for c in editor.outbox.changes(ACTIVE)} == {"bulk-update", "delete"}
    report = await Pusher(client, editor.cache, editor.outbox).push()

    assert (report.done, report.failed) == (2, 0)
    assert server.show.get("orders", line["id"])["quantity"] == quantity  # type: ignore[index]
    assert server.show.get("orders", made.server_id) is None
