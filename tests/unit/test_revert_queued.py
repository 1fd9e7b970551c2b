"""Revert on the show for a panel's pushed gesture (app/sync/edit/revert.py,
`Editor.revert_queued`),
without Qt, on real cache and outbox files: the inverse is queued as NEW pending changes (one
step, withdrawn by its undo); where the API cannot express it, `CannotRevert` says why and
nothing is written."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.api.registry import default_registry
from app.store.cache import Cache
from app.store.changes import ACTIVE, Change
from app.store.outbox import Outbox
from app.sync.edit.editor import Editor, FieldEdit
from app.sync.edit.revert import CannotRevert
from app.sync.edit.undo import QueuedStep

REGISTRY = default_registry()
GROUPS = "sales-rep-groups"


@pytest.fixture
def editor(tmp_path: Path) -> Iterator[Editor]:
    with Cache(tmp_path / "c.sqlite", REGISTRY) as cache, Outbox(tmp_path / "o.sqlite") as outbox:
        yield Editor(cache, outbox, REGISTRY)


def pushed(editor: Editor, *seqs: int, server_id: str | None = None) -> QueuedStep:
    """The gesture's changes as the Pusher leaves them: done."""
    editor.outbox.mark_sending(seqs)
    for seq in seqs:
        editor.outbox.mark_done(seq, None, server_id)
    return editor.queued_step(list(seqs))


def active(editor: Editor) -> list[Change]:
    return editor.outbox.changes(ACTIVE)


def test_a_booth_product_added_is_removed_again_as_a_pending_change(editor: Editor) -> None:
    seq = editor.special("booth-products", "associate", params={"boothID": "B1", "productID": "P1"})
    reverted = editor.revert_queued(pushed(editor, seq))
    [change] = active(editor)
    assert reverted.seqs == [change.seq] and change.state == "pending"
    assert (change.op, change.params) == ("remove", {"boothID": "B1", "productID": "P1"})
    editor.withdraw(reverted)  # the revert is an ordinary undo step until pushed
    assert active(editor) == []


def test_vendors_added_together_are_removed_one_by_one(editor: Editor) -> None:
    seq = editor.special(
        "booth-vendors", "associate-many", params={"boothID": "B1"}, body=["V1", "V2"]
    )
    editor.revert_queued(pushed(editor, seq))
    removed = [(c.op, c.params["vendorID"]) for c in active(editor)]
    assert removed == [("remove", "V1"), ("remove", "V2")]


def test_a_booth_product_removed_is_added_again(editor: Editor) -> None:
    params = {"boothID": "B1", "productID": "P1"}
    seq = editor.special("booth-products", "remove", params=params)
    editor.revert_queued(pushed(editor, seq))
    [change] = active(editor)
    assert (change.op, change.params) == ("associate", params)


def test_a_group_moved_moves_back_to_its_old_parent_and_place(editor: Editor) -> None:
    seq = editor.special(
        GROUPS,
        "move",
        params={"id": "g7"},
        body={"parentID": "SRG2"},
        record_id="hierarchy",
        before={"parentID": "SRG1", "position": 3},
    )
    editor.revert_queued(pushed(editor, seq))
    [change] = active(editor)
    assert (change.op, change.params) == ("move", {"id": "g7"})
    assert change.payload["body"] == {"parentID": "SRG1", "position": 3}
    assert change.payload["before"] == {"parentID": "SRG2"}  # a revert can be reverted too


def test_a_reorder_and_level_names_are_put_back_in_reverse_order(editor: Editor) -> None:
    reorder = editor.special(
        GROUPS,
        "reorder",
        body={"parentID": None, "order": ["B", "A"]},
        before={"parentID": None, "order": ["A", "B"]},
        record_id="hierarchy",
    )
    levels = editor.special(
        GROUPS,
        "define-levels",
        body=[{"level": 1, "name": "Tier"}],
        before=[{"level": 1, "name": "Region"}],
        record_id="hierarchy",
    )
    editor.revert_queued(pushed(editor, reorder, levels))
    ops = [(c.op, c.payload["body"]) for c in active(editor)]
    assert ops == [
        ("define-levels", [{"level": 1, "name": "Region"}]),
        ("reorder", {"parentID": None, "order": ["A", "B"]}),
    ]


def test_level_names_never_read_before_cannot_be_put_back(editor: Editor) -> None:
    seq = editor.special(GROUPS, "define-levels", body=[{"level": 1, "name": "Tier"}])
    with pytest.raises(CannotRevert, match="no way to read them"):
        editor.revert_queued(pushed(editor, seq))
    assert active(editor) == []  # nothing written


def test_inventory_lines_get_their_old_quantities(editor: Editor) -> None:
    line = {"productID": "P1", "warehouseID": "W1", "orderUnit": "EA"}
    seq = editor.special(
        "product-inventory",
        "bulk-update",
        body=[{**line, "inventory": 9}],
        before=[{**line, "inventory": 4}],
        record_id="productID=P1",
    )
    editor.revert_queued(pushed(editor, seq))
    [change] = active(editor)
    assert (change.op, change.payload["body"]) == ("bulk-update", [{**line, "inventory": 4}])


def test_order_lines_updated_created_and_deleted_are_taken_back(editor: Editor) -> None:
    lines = [
        {"id": "L1", "orderLineID": "OL1", "customerID": "C1", "productID": "P1", "quantity": 2},
        {"id": "L2", "orderLineID": "OL2", "customerID": "C1", "productID": "P2", "quantity": 1},
    ]
    editor.cache.upsert("orders", lines)
    [updated] = editor.stage("orders", [FieldEdit("L1", "quantity", 5)]).seqs
    created, rejected = editor.create("orders", {"customerID": "C1", "productID": "P3"})
    assert created is not None and not rejected
    [deleted] = editor.delete("orders", ["L2"])
    editor.outbox.mark_sending([created])
    editor.outbox.mark_done(created, None, "L9")
    editor.cache.upsert("orders", [{**lines[0], "quantity": 5}])  # what the push left
    step = pushed(editor, updated, deleted)
    step.seqs.insert(1, created)

    editor.revert_queued(step)

    by_op = {c.op: c for c in active(editor)}
    assert set(by_op) == {"bulk-create", "delete", "bulk-update"}
    assert by_op["bulk-update"].payload["quantity"] == 2
    assert by_op["bulk-update"].changed_fields == ("quantity",)
    assert by_op["delete"].record_id == "L9"  # the created line, by the server's id
    again = by_op["bulk-create"].payload
    assert again["productID"] == "P2" and "id" not in again and "orderLineID" not in again


def test_a_gesture_not_all_on_the_show_is_refused_with_the_reason(editor: Editor) -> None:
    first = editor.special(
        "booth-products", "associate", params={"boothID": "B1", "productID": "A"}
    )
    second = editor.special(
        "booth-products", "associate", params={"boothID": "B1", "productID": "B"}
    )
    editor.outbox.mark_sending([first, second])
    editor.outbox.mark_done(first, None)
    editor.outbox.mark_failed(second, "refused")
    with pytest.raises(CannotRevert, match="not all of it is on the show"):
        editor.revert_queued(editor.queued_step([first, second]))
    assert [c.seq for c in active(editor)] == [second]  # nothing new written


def test_an_operation_with_no_opposite_is_refused(editor: Editor) -> None:
    item = {"mainNumber": "M-1", "customerID": "C1", "productID": "P1", "quantity": 1}
    seq = editor.special("order-history-items", "bulk-create", body={"items": [item]})
    with pytest.raises(CannotRevert, match="no way to take back"):
        editor.revert_queued(pushed(editor, seq))
    assert active(editor) == []
