"""Issue 28, point 3: a write is judged by its answer.

Each test runs the real `showdesk` commands (as tests/e2e/test_flow.py does) against the plain
server answering writes as one shape asks (tests/e2e/shape.py, plain_writes.py): a wrapper with
an error flag instead of the record, a `201 Created` with only a `Location`, an echo keeping the
old value of a field it will not change, a create applied and then answered 502. An edit is reported
applied only when the show's answer proves it; the audit log and the cache say what the show
holds.
"""

from __future__ import annotations

import csv
import json
from dataclasses import replace
from typing import Any

import pytest

from app.api.registry import default_registry
from app.store.cache import Cache
from app.store.outbox import Outbox
from tests.e2e.desk import DeskOn, Showdesk, outbox
from tests.e2e.plain_server import PlainShow
from tests.e2e.plain_writes import REFUSED

SYNCED = ("--resource", "customers")


@pytest.fixture
def show() -> PlainShow:
    return PlainShow(customers=30)


@pytest.fixture
def desk(show: PlainShow, desk_on: DeskOn) -> Showdesk:
    showdesk = desk_on(show)
    synced = showdesk("sync", *SYNCED)
    assert synced.code == 0, synced.text
    return showdesk


def answering(show: PlainShow, **writes: Any) -> None:
    """From now on the show answers writes so (fields of tests/e2e/shape.py's `Shape`)."""
    show.shape = replace(show.shape, **writes)


def import_rows(
    desk: Showdesk, edits: list[dict[str, str]], creates: list[dict[str, str]]
) -> list[dict[str, str]]:
    """Export customers, lay `edits[n]` over row n, add `creates`, import. Answers the rows
    edited (with their ids) as imported."""
    path = desk.folder / "customers.csv"
    exported = desk("export", "customers", "-o", str(path))
    assert exported.code == 0, exported.text
    with path.open(encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        columns, rows = list(reader.fieldnames or ()), list(reader)
    for row, fields in zip(rows, edits, strict=False):
        row.update(fields)
    rows += creates
    with path.open("w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, columns, restval="")
        writer.writeheader()
        writer.writerows(rows)
    imported = desk("import", "customers", str(path))
    assert imported.code == 0, imported.text
    assert f"{len(creates)} to create, {len(edits)} to update" in imported.out, imported.text
    return rows[: len(edits)]


def new_shops(n: int) -> list[dict[str, str]]:
    return [
        {"customerID": f"NEW-{k}", "customerName": f"New shop {k}", "city": f"New city {k}"}
        for k in range(n)
    ]


def cached(desk: Showdesk, record_id: Any) -> dict[str, Any] | None:
    """The cache's own copy (no pending change laid over it)."""
    cache = Cache(desk.profile.cache_path, default_registry())
    try:
        return cache.get("customers", str(record_id))
    finally:
        cache.close()


def assert_created_once(desk: Showdesk, count: int) -> None:
    """NEW-0 … NEW-(count-1) each created once on the show, cached under the show's id."""
    for n in range(count):
        (record,) = desk.target.find("customers", "customerID", f"NEW-{n}")
        assert desk.target.creates("customers", f"NEW-{n}") == 1
        assert (cached(desk, record["id"]) or {}).get("customerID") == f"NEW-{n}"


def audit(desk: Showdesk) -> list[tuple[str, str | None, str]]:
    """(record id, field, result) of every row of the audit log."""
    box = Outbox(desk.profile.outbox_path)
    try:
        return [(r.record_id, r.field, r.result) for r in box.audit_rows("customers")]
    finally:
        box.close()


def test_a_wrapper_saying_it_failed_is_a_failure_with_the_shows_words(
    desk: Showdesk, show: PlainShow
) -> None:
    """Every PUT is answered 200 `{"isSuccess": false, "message": …}` and not applied: the four
    edits fail with the show's words, nothing is logged applied, the cache keeps the show's
    values, exit 1."""
    answering(show, refuse_puts="all")
    before = desk.target.by_id("customers")
    rows = import_rows(desk, [{"city": f"Edited {n}"} for n in range(4)], [])
    pushed = desk("push")
    assert pushed.code == 1, pushed.text
    assert pushed.err.count(REFUSED) == 4, pushed.text
    assert outbox(desk) == {"pending": 0, "failed": 4, "conflict": 0}
    assert desk.target.by_id("customers") == before
    for row in rows:
        assert (cached(desk, row["id"]) or {}).get("city") == before[row["id"]]["city"]
    assert not [r for r in audit(desk) if r[2] == "applied"], audit(desk)


def test_a_create_answered_201_with_only_a_location_takes_its_id_from_it(
    desk: Showdesk, show: PlainShow
) -> None:
    """Five creates answered `201 Created`, empty body, `Location: …/Customer/<id>`: all five
    applied under the show's ids, each created once, exit 0."""
    answering(show, create_answer="location")
    import_rows(desk, [], new_shops(5))
    pushed = desk("push")
    assert pushed.code == 0, pushed.text
    assert outbox(desk) == {"pending": 0, "failed": 0, "conflict": 0}
    assert_created_once(desk, 5)


def test_a_field_the_show_keeps_fails_at_once_and_the_rest_is_applied(
    desk: Showdesk, show: PlainShow
) -> None:
    """The show keeps the stored `email` whatever is sent and echoes the stored record. Three
    records get a new city and email, two a new city only: one PUT each (no resend), every city
    applied, each email failed once with the show's value (no "another administrator"), the
    cache holds what the show holds, exit 1."""
    answering(show, ignored_field="email")
    edits = [{"city": f"Edited {n}", "email": f"new{n}@example.org"} for n in range(3)]
    edits += [{"city": f"Edited {n}"} for n in range(3, 5)]
    before = desk.target.by_id("customers")
    rows = import_rows(desk, edits, [])
    pushed = desk("push")
    assert pushed.code == 1, pushed.text
    assert show.puts("customer") == 5, pushed.text
    assert "another administrator" not in pushed.text.lower(), pushed.text
    after = desk.target.by_id("customers")
    for row, fields in zip(rows, edits, strict=True):
        assert after[row["id"]]["city"] == fields["city"]
        assert after[row["id"]].get("email") == before[row["id"]].get("email")
        mine = {k: v for k, v in (cached(desk, row["id"]) or {}).items() if k != "modifiedDate"}
        assert mine == after[row["id"]]
    assert outbox(desk) == {"pending": 0, "failed": 3, "conflict": 0}
    failed = [line for line in pushed.err.splitlines() if "email" in line]
    assert len(failed) == 3, pushed.text
    for row in rows[:3]:
        old = before[row["id"]].get("email") or "empty"  # the show's value, said
        key = row["customerID"]
        assert any(key in line and old in line for line in failed), pushed.text
    logged = audit(desk)
    applied = {(i, f) for i, f, result in logged if result == "applied"}
    assert applied == {(row["id"], "city") for row in rows}, logged
    refused = {(i, f) for i, f, result in logged if result.startswith("failed")}
    assert refused == {(row["id"], "email") for row in rows[:3]}, logged


def test_a_create_applied_then_answered_502_is_found_not_failed(
    desk: Showdesk, show: PlainShow
) -> None:
    """Two of five creates are applied, then answered 502: they are looked up by their key
    before anything is said — applied, created once, cached under the show's id; exit 0."""
    answering(show, lost_creates=("NEW-1", "NEW-3"))
    import_rows(desk, [], new_shops(5))
    pushed = desk("push")
    assert pushed.code == 0, pushed.text
    assert outbox(desk) == {"pending": 0, "failed": 0, "conflict": 0}
    assert_created_once(desk, 5)
    again = desk("push", "--retry-failed")
    assert again.code == 0, again.text
    assert all(desk.target.creates("customers", f"NEW-{n}") == 1 for n in range(5))


def test_push_json_lists_the_fields_that_landed_and_the_field_refused(
    desk: Showdesk, show: PlainShow
) -> None:
    """A change of city and email on a show that keeps its email: `push --json` lists the city
    as applied and the email as failed with the show's value — every field the push settled."""
    answering(show, ignored_field="email")
    rows = import_rows(desk, [{"city": "Split city", "email": "split@example.org"}], [])
    pushed = desk("push", "--json")
    assert pushed.code == 1, pushed.text
    document = json.loads(pushed.out.splitlines()[-1])
    changes = document["changes"]
    assert {str(c["record_id"]) for c in changes} == {str(rows[0]["id"])}, document
    results = sorted((tuple(c["fields"]), c["result"]) for c in changes)
    assert results == [(("city",), "applied"), (("email",), "failed")], document
    assert document["applied"] == 1 and document["failed"] == 1, document
