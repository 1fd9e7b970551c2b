"""One rule for a value as a cell (app/sync/files/cell_text.py), shared by the CSV export and the
grid's Copy: booleans as TRUE/FALSE, which spreadsheets and the importer both read back."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.api.registry import default_registry
from app.store.cache import Cache
from app.sync.files.cell_text import cell_text
from app.sync.files.importer import plan_import
from app.sync.files.resource_export import export

REGISTRY = default_registry()


def customer(n: int, test: bool) -> dict[str, object]:
    return {"id": f"id{n}", "customerID": f"C{n}", "customerName": f"Customer {n}", "test": test}


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[Cache]:
    with Cache(tmp_path / "c.sqlite", REGISTRY) as c:
        c.upsert("customers", [customer(1, True), customer(2, False)])
        yield c


def test_the_rule() -> None:
    assert [cell_text(v) for v in (True, False, None, 3, "x")] == ["TRUE", "FALSE", "", "3", "x"]
    assert cell_text({"a": [1, "é"]}) == '{"a": [1, "é"]}'


def test_an_exported_csv_says_true_and_false_and_imports_unchanged(
    cache: Cache, tmp_path: Path
) -> None:
    path = tmp_path / "customers.csv"
    export(cache, "customers", path)
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["test"] for r in rows] == ["TRUE", "FALSE"]
    plan = plan_import(cache, "customers", path)
    assert plan.errors == [] and plan.updates == [] and len(plan.unchanged) == 2


def test_a_flipped_boolean_in_the_file_imports_as_that_change(cache: Cache, tmp_path: Path) -> None:
    path = tmp_path / "customers.csv"
    export(cache, "customers", path)
    path.write_text(path.read_text(encoding="utf-8").replace("TRUE", "FALSE"), encoding="utf-8")
    plan = plan_import(cache, "customers", path)
    assert plan.errors == [] and len(plan.updates) == 1
