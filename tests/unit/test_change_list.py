"""The outbox grouped per record (app/sync/reports/change_list.py), over a real Outbox file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.api.registry import default_registry
from app.store.changes import ACTIVE
from app.store.outbox import NewChange, Outbox
from app.sync.reports.change_list import any_errors, attention_lines, group_by_record

BASE = {"id": "c1", "customerID": "CU1", "city": "Paris", "priceZone": 2}


@pytest.fixture
def outbox(tmp_path: Path) -> Iterator[Outbox]:
    with Outbox(tmp_path / "outbox.sqlite") as box:
        yield box


def edit(record_id: str = "c1", base: dict[str, Any] | None = None, **fields: Any) -> NewChange:
    before = {**(base or BASE), "id": record_id}
    return NewChange(
        "customers", "update", record_id, payload={**before, **fields},
        changed_fields=tuple(fields), base=before, key_value="CU1",
    )  # fmt: skip


def test_one_entry_per_record_with_its_changes_inside(outbox: Outbox) -> None:
    first = outbox.add(edit(city="Lyon"))
    other = outbox.add(edit("c2", city="Rome"))
    second = outbox.add(edit(base={**BASE, "city": "Lyon"}, city="Nice", priceZone=3))
    records = group_by_record(outbox.changes(ACTIVE))
    assert [(r.record_id, r.seqs) for r in records] == [("c1", [first, second]), ("c2", [other])]
    c1 = records[0]
    assert c1.summary() == "City: Paris → Nice; Price zone: 2 → 3"  # net over both changes
    assert c1.ops == "update" and c1.key_text(default_registry()["customers"]) == "CU1"
    assert c1.tip() == "id c1"  # the internal id: for a tooltip
    assert records[1].summary() == "City: Paris → Rome"


def test_the_record_shows_what_needs_attention_its_tries_and_last_reason(outbox: Outbox) -> None:
    outbox.add(edit(city="Lyon"))
    bad = outbox.add(edit(priceZone=9))
    outbox.mark_sending([bad])
    outbox.mark_failed(bad, "HTTP 400: bad zone")
    records = group_by_record(outbox.changes(ACTIVE))
    assert len(records) == 1 and any_errors(records)
    assert (records[0].state, records[0].attempts) == ("failed", 1)
    assert records[0].last_error == "HTTP 400: bad zone"
    assert not any_errors(group_by_record([c for c in outbox.changes(ACTIVE) if c.seq != bad]))


def test_a_create_then_an_edit_reads_as_its_values_and_a_delete_as_deleted(
    outbox: Outbox,
) -> None:
    outbox.add(NewChange("customers", "create", payload={"customerID": "CU9", "city": "Lyon"}))
    outbox.add(edit("c5", city="Oslo"))
    outbox.add(NewChange("customers", "delete", record_id="c5"))
    made, gone = group_by_record(outbox.changes(ACTIVE))
    assert made.summary() == "Customer ID: CU9; City: Lyon" and made.ops == "create"
    assert gone.summary() == "deleted" and gone.ops == "update, delete"


def test_status_lines_name_each_record_that_needs_the_user(outbox: Outbox) -> None:
    outbox.add(edit("c2", city="Rome"))  # pending: nothing to say
    bad = outbox.add(edit(priceZone=9))
    outbox.mark_sending([bad])
    outbox.mark_failed(bad, "HTTP 400: bad zone")
    clash = outbox.add(edit("c3", city="Oslo"))
    outbox.mark_conflict(clash, {**BASE, "id": "c3", "city": "Bergen"})
    lines = attention_lines(group_by_record(outbox.changes(ACTIVE)), default_registry())
    assert lines == [
        "Customers CU1: failed after 1 attempt — HTTP 400: bad zone",
        "Customers CU1: conflict after 0 attempts",
    ]
