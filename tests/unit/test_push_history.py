"""The audit log read as a history of pushed changes (app/sync/reports/push_history.py), real
Outbox.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.api.registry import default_registry
from app.store.cache import Cache
from app.store.outbox import NewChange, Outbox
from app.sync.reports.push_history import (
    audit_rows_of,
    filtered,
    history_count,
    pushed_changes,
    record_names,
    results,
)
from app.wording.references import ReferenceNames
from app.wording.values import ValueWords

BASE = {"id": "c1", "customerID": "CU1", "city": "Paris", "priceZone": 2}


@pytest.fixture
def outbox(tmp_path: Path) -> Iterator[Outbox]:
    with Outbox(tmp_path / "outbox.sqlite") as box:
        yield box


def settle(outbox: Outbox, change: NewChange, result: str) -> int:
    seq = outbox.add(change)
    stored = outbox.get(seq)
    assert stored is not None
    outbox.audit(stored, result)
    return seq


def update(record_id: str, **fields: object) -> NewChange:
    return NewChange(
        "customers", "update", record_id, payload={**BASE, "id": record_id, **fields},
        changed_fields=tuple(fields), base={**BASE, "id": record_id},
    )  # fmt: skip


def test_one_entry_per_pushed_change_newest_first_with_its_fields(outbox: Outbox) -> None:
    first = settle(outbox, update("c1", city="Lyon", priceZone=3), "applied")
    second = settle(outbox, update("c2", city="Oslo"), "failed: HTTP 400: bad city")
    gone = settle(outbox, NewChange("customers", "delete", record_id="c3"), "applied")
    entries = pushed_changes(outbox.audit_rows())
    assert [e.seq for e in entries] == [gone, second, first]
    assert entries[2].what == "City: Paris → Lyon; Price zone: 2 → 3"
    assert entries[0].what == "deleted"
    assert (entries[1].outcome, entries[1].result) == ("failed", "failed: HTTP 400: bad city")
    assert results(entries) == ["applied", "failed"]


def test_values_read_in_words_references_by_name_and_code(outbox: Outbox, tmp_path: Path) -> None:
    """Issue 30: the history read "W2" and JSON for nested objects; now one core formatter
    (`ValueWords`) reads a reference by name and code and a nested object by its label."""
    groups = [{"id": "kqj19r", "orderingGroupName": "Summer"}]
    settle(outbox, update("c1", warehouseID="W2", orderingGroups=groups), "applied")
    (entry,) = pushed_changes(outbox.audit_rows())
    with Cache(tmp_path / "cache.db", default_registry()) as cache:
        cache.upsert("warehouses", [{"id": "w2", "warehouseID": "W2", "description": "South DC"}])
        words = ValueWords(default_registry(), ReferenceNames(cache))
        assert entry.what_in(words) == (
            "Warehouse ID: — → South DC (W2); Ordering groups: — → Summer"
        )
    assert entry.what == "Warehouse ID: — → W2; Ordering groups: — → Summer"  # nothing cached


def test_filter_by_text_and_result_and_export_what_is_shown(outbox: Outbox, tmp_path: Path) -> None:
    settle(outbox, update("c1", city="Lyon", priceZone=3), "applied")
    settle(outbox, update("c2", city="Oslo"), "failed: HTTP 400: bad city")
    entries = pushed_changes(outbox.audit_rows())
    titles = {"customers": "Customers"}
    assert [e.record_id for e in filtered(entries, "oslo")] == ["c2"]
    assert [e.record_id for e in filtered(entries, "CUSTOMERS", titles=titles)] == ["c2", "c1"]
    assert [e.record_id for e in filtered(entries, result="applied")] == ["c1"]
    assert filtered(entries, "oslo", result="applied") == []
    rows = audit_rows_of(filtered(entries, result="applied"))
    assert [(r.record_id, r.field) for r in rows] == [("c1", "city"), ("c1", "priceZone")]


def test_records_are_named_by_their_business_key_when_cached(
    outbox: Outbox, tmp_path: Path
) -> None:
    settle(outbox, update("c1", city="Lyon"), "applied")
    settle(outbox, NewChange("customers", "delete", record_id="c3"), "applied")
    entries = pushed_changes(outbox.audit_rows())
    registry = default_registry()
    with Cache(tmp_path / "cache.sqlite", registry) as cache:
        cache.upsert("customers", [{**BASE, "customerName": "Ann's Hardware"}])
        names = record_names(cache, registry, entries)
    assert names == {
        ("customers", "c1"): "Ann's Hardware (CU1)",  # by name and code (issue 30)
        ("customers", "c3"): "c3",  # gone from the cache: its id is all there is
    }
    assert [e.record_id for e in filtered(entries, "cu1", names=names)] == ["c1"]
    assert [e.record_id for e in filtered(entries, "hardware", names=names)] == ["c1"]
    assert [e.record_id for e in filtered(entries, "c1", names=names)] == ["c1"]  # its id too


def test_the_history_counts_each_outcome_apart(outbox: Outbox) -> None:
    """Issue 30, item 5: a conflict is never counted among pushed changes."""
    assert history_count([], []) == "Nothing pushed yet"
    for n in range(3):
        settle(outbox, update(f"a{n}", city="Lyon"), "applied")
    settle(outbox, update("f1", city="Oslo"), "failed: HTTP 400: bad city")
    settle(outbox, update("k1", city="Rome"), "conflict")
    entries = pushed_changes(outbox.audit_rows())
    assert history_count(entries, entries) == "3 applied, 1 failed, 1 in conflict"
    conflicts = filtered(entries, result="conflict")
    assert history_count(entries, conflicts) == "1 of 5 shown: 1 in conflict"
    assert history_count(entries, []) == "0 of 5 shown"
