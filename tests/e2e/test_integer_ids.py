"""Issue 28, point 5: every scalar the server gives is kept as given.

The real `showdesk` commands (as tests/e2e/test_flow.py runs them) against the plain server with
integer ids and integer references (`Shape(ids="integer")`): the whole day-one flow — sync,
incremental and full syncs, export, edit, import, push — and then the values themselves: the
cache, the export and the outbox hold integers where the server gave integers, and what went back
to the server are integers too (it refuses anything else).
"""

from __future__ import annotations

import csv
import json

import pytest

from tests.e2e.desk import DeskOn, Showdesk, outbox
from tests.e2e.plain_server import FIRST_WAREHOUSE, PlainShow, Shape
from tests.e2e.test_flow import EXPECT, PLAIN, run_flow


@pytest.fixture
def desk(desk_on: DeskOn) -> tuple[Showdesk, PlainShow]:
    show = PlainShow(shape=Shape(ids="integer"))
    return desk_on(show), show


def test_the_day_one_flow_works_with_integer_ids_and_references(
    desk: tuple[Showdesk, PlainShow],
) -> None:
    """Before: every imported row refused, "warehouseID: Input should be a valid string"."""
    showdesk, _ = desk
    run_flow(showdesk, EXPECT[PLAIN])


def test_integers_stay_integers_in_the_cache_the_export_and_on_the_way_back(
    desk: tuple[Showdesk, PlainShow],
) -> None:
    showdesk, show = desk
    synced = showdesk("sync", "--resource", "customers", "--resource", "warehouses")
    assert synced.code == 0, synced.text
    cached = showdesk.cached("customers")
    assert cached and all(type(r["id"]) is int for r in cached), cached[:2]
    assert all(type(r["warehouseID"]) is int for r in cached), cached[:2]
    depots = showdesk.cached("warehouses")
    assert sorted(r["warehouseID"] for r in depots) == [FIRST_WAREHOUSE + n for n in range(4)]

    # An edit of a reference from a file: the text "1004" goes back as the integer 1004.
    path = showdesk.folder / "customers.csv"
    assert showdesk("export", "customers", "-o", str(path)).code == 0
    with path.open(encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        columns, rows = list(reader.fieldnames or ()), list(reader)
    first = next(r for r in rows if r["warehouseID"] != str(FIRST_WAREHOUSE + 3))
    first["warehouseID"] = str(FIRST_WAREHOUSE + 3)
    with path.open("w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, columns)
        writer.writeheader()
        writer.writerows(rows)
    imported = showdesk("import", "customers", str(path))
    assert imported.code == 0, imported.text
    assert "0 with errors" in imported.out and "1 to update" in imported.out, imported.text
    pushed = showdesk("push")
    assert pushed.code == 0, pushed.text
    assert outbox(showdesk) == {"pending": 0, "failed": 0, "conflict": 0}
    record = show.data["customer"][int(first["id"])]
    assert record["warehouseID"] == FIRST_WAREHOUSE + 3 and type(record["id"]) is int

    # After the push the cache still holds integers, and so does its JSON export.
    exported = showdesk.folder / "after.json"
    assert showdesk("export", "customers", "--format", "json", "-o", str(exported)).code == 0
    after = {r["id"]: r for r in json.loads(exported.read_text(encoding="utf-8"))}
    assert after[int(first["id"])]["warehouseID"] == FIRST_WAREHOUSE + 3
