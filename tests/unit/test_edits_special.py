"""Special operations and bulk-only resources through the Editor: one outbox change each."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.api.registry import default_registry
from app.store.cache import Cache
from app.store.changes import is_local_id
from app.store.outbox import Outbox
from app.sync.edit.editor import Editor, FieldEdit, UnknownOperation
from app.sync.push.batches import element

REGISTRY = default_registry()


@pytest.fixture
def editor(tmp_path: Path) -> Iterator[Editor]:
    with Cache(tmp_path / "c.sqlite", REGISTRY) as cache, Outbox(tmp_path / "o.sqlite") as outbox:
        cache.upsert(
            "product-inventory",
            [
                {
                    "id": "i1",
                    "productID": "P1",
                    "orderUnit": "CS",
                    "warehouseID": "W1",
                    "inventory": 4,
                }
            ],
        )
        cache.upsert(
            "orders",
            [
                {
                    "id": "113501",
                    "orderLineID": "113501",
                    "customer": {"id": "C1", "name": "Shop"},
                    "product": {"id": "P1", "description": "Tea"},
                    "orderUnit": "CS",
                    "quantity": 2,
                    "price": 9.5,
                    "purchaseOrder": {"id": "PO1", "notes": ""},
                }
            ],
        )
        yield Editor(cache, outbox, REGISTRY)


def test_special_queues_one_change_with_its_params_and_body(editor: Editor) -> None:
    seq = editor.special(
        "booth-products", "associate-many", params={"boothID": "B1"}, body=["P1", "P2"]
    )
    change = editor.outbox.get(seq)
    assert change is not None and change.state == "pending"
    assert (change.op, change.params, change.payload) == (
        "associate-many",
        {"boothID": "B1"},
        {"body": ["P1", "P2"]},
    )
    assert change.record_id == "boothID=B1"  # one booth's associations go in order
    one = editor.special("booth-products", "associate", params={"boothID": "B1", "productID": "P3"})
    assert editor.outbox.get(one).payload == {"body": None}  # type: ignore[union-attr]
    moved = editor.special(
        "sales-rep-groups", "move", record_id="g1", body={"parentID": "g0", "position": 2}
    )
    change = editor.outbox.get(moved)
    assert change is not None and change.params == {"id": "g1"} and change.record_id == "g1"


@pytest.mark.parametrize(
    ("slug", "op", "params", "body", "says"),
    [
        ("booth-products", "explode", {"boothID": "B1"}, None, "no 'explode' operation"),
        ("nowhere", "associate", {}, None, "unknown resource"),
        ("booth-products", "list", {"boothID": "B1"}, None, "only reads"),
        ("customers", "update", {"id": "a"}, {}, "create/stage/delete"),
        ("booth-products", "associate", {"boothID": "B1"}, None, "needs productID"),
        ("booth-products", "associate-many", {"boothID": "B1"}, {"x": 1}, "needs a list"),
        ("booth-products", "remove", {"boothID": "B1", "productID": "P"}, [1], "takes no body"),
    ],
)
def test_special_refuses_what_the_registry_cannot_do_with_a_plain_message(
    editor: Editor, slug: str, op: str, params: dict[str, str], body: object, says: str
) -> None:
    with pytest.raises(UnknownOperation, match=says) as caught:
        editor.special(slug, op, params=params, body=body)
    assert isinstance(caught.value, ValueError)
    assert editor.outbox.changes() == []


def test_edits_of_a_bulk_only_resource_queue_its_bulk_update(editor: Editor) -> None:
    staged = editor.stage("product-inventory", [FieldEdit("i1", "inventory", "12")])
    change = editor.outbox.get(staged.seqs[0])
    assert change is not None and change.op == "bulk-update" and change.record_id == "i1"
    assert change.payload["inventory"] == 12 and change.changed_fields == ("inventory",)
    view = editor.current("product-inventory", "i1")
    assert view is not None and view["inventory"] == 12  # laid over like an update
    assert element("product-inventory", "bulk-update", change.payload, "i1") == {
        "id": "i1",
        "productID": "P1",
        "orderUnit": "CS",
        "warehouseID": "W1",
        "inventory": 12,
    }


def test_order_lines_are_created_and_updated_in_the_documented_bulk_shapes(editor: Editor) -> None:
    staged = editor.stage("orders", [FieldEdit("113501", "quantity", "5")])
    change = editor.outbox.get(staged.seqs[0])
    assert change is not None and change.op == "bulk-update"
    assert element("orders", change.op, change.payload, "113501") == {
        "id": "113501",
        "orderQty": 5,
        "notes": "",
        "purchaseOrderId": "PO1",
    }
    seq, rejected = editor.create(  # no orderLineID: the server gives it
        "orders", {"customer": {"id": "C1"}, "product": {"id": "P1"}, "quantity": "3"}
    )
    assert seq is not None and not rejected
    created = editor.outbox.get(seq)
    assert created is not None and created.op == "bulk-create" and is_local_id(created.record_id)
    assert element("orders", "bulk-create", created.payload, None) == {
        "customerID": "C1",
        "productID": "P1",
        "orderQty": 3,
    }
    assert editor.delete("orders", [created.record_id]) == []  # never sent: simply discarded


def test_a_resource_the_api_cannot_write_refuses_edits_and_creates(editor: Editor) -> None:
    editor.cache.upsert("order-history-buckets", [{"id": "b1", "bucket": "B1"}])
    staged = editor.stage("order-history-buckets", [FieldEdit("b1", "description", "x")])
    assert staged.seqs == [] and "cannot be changed" in staged.rejected[0].reason
    seq, rejected = editor.create("product-inventory", {"productID": "P1"})
    assert seq is None and "cannot be created" in rejected[0].reason
    seq, rejected = editor.create("order-history-items", {"customerid": "C1", "productid": "P1"})
    created = editor.outbox.get(seq or 0)
    assert created is not None and created.op == "bulk-create" and not rejected


def _fail(editor: Editor, seq: int, message: str, field: str = "inventory") -> None:
    editor.outbox.mark_sending([seq])
    editor.outbox.mark_failed(seq, message, {"fields": {field: [message]}, "refused": True})


def test_an_edit_of_a_failed_record_supersedes_its_failed_changes(editor: Editor) -> None:
    first = editor.stage("product-inventory", [FieldEdit("i1", "inventory", "-1")]).seqs[0]
    _fail(editor, first, "Inventory must be a whole number of 0 or more")
    editor.outbox.retry(first)  # a retry that failed again, beside a later edit sent with it
    second = editor.stage("product-inventory", [FieldEdit("i1", "warehouseID", "W2")]).seqs[0]
    _fail(editor, first, "again")
    _fail(editor, second, "again")

    fixed = editor.stage("product-inventory", [FieldEdit("i1", "inventory", "3")])

    assert fixed.seqs == [first] and list(fixed.records) == ["i1"]
    change = editor.outbox.get(first)
    assert change is not None and change.state == "pending" and change.last_error is None
    assert (change.payload["inventory"], change.payload["warehouseID"]) == (3, "W2")
    assert set(change.changed_fields) == {"inventory", "warehouseID"}
    assert change.attempts == 2 and change.response["refused"]  # kept for the next push
    assert editor.outbox.get(second).state == "discarded"  # type: ignore[union-attr]


def test_a_failed_change_behind_a_pending_one_is_not_reworked(editor: Editor) -> None:
    first = editor.stage("product-inventory", [FieldEdit("i1", "inventory", "-1")]).seqs[0]
    _fail(editor, first, "no")
    editor.special("product-inventory", "bulk-update", record_id="i1", body=[{"productID": "P1"}])
    later = editor.stage("product-inventory", [FieldEdit("i1", "inventory", "2")]).seqs[0]
    assert later != first and editor.outbox.get(first).state == "failed"  # type: ignore[union-attr]


def test_the_pending_view_shows_refused_changes_at_their_field_or_row(editor: Editor) -> None:
    from app.sync.edit.overlay import WHOLE_RECORD, PendingOverlay

    staged = editor.stage("orders", [FieldEdit("113501", "quantity", 0)])
    _fail(editor, staged.seqs[0], "Order quantity must be greater than zero", "quantity")
    seq, _ = editor.create("orders", {"customer": {"id": "C-NONE"}, "quantity": 1})
    assert seq is not None
    editor.outbox.mark_sending([seq])
    editor.outbox.mark_failed(seq, "Customer ID not found")  # no field named: the whole row

    view = PendingOverlay.of(editor.outbox.changes(resource="orders"))

    assert view.failed[("113501", "quantity")] == "Order quantity must be greater than zero"
    assert view.failure_at("113501", "price") == "Order quantity must be greater than zero"
    local = editor.outbox.get(seq).record_id  # type: ignore[union-attr]
    assert view.failed[(local, WHOLE_RECORD)] == "Customer ID not found"
    assert view.kinds[local] == "new" and view.values["113501"]["quantity"] == 0


def test_records_the_api_cannot_delete_are_refused_before_anything_is_queued(
    editor: Editor,
) -> None:
    with pytest.raises(UnknownOperation, match="cannot be deleted"):
        editor.delete("exports", ["some-export"])
    assert editor.outbox.changes() == []
