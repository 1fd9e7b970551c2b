"""A headless import streamed row by row (issue 17): the totals are exact on a file holding
every kind of row, each row's detail comes out in the file's order as the whole plan says it,
the changes queued are the plan's, and the JSON document streams its rows."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.api.registry import default_registry
from app.commands.output import Output
from app.store.cache import Cache
from app.store.outbox import Outbox
from app.sync.files.import_file import open_table
from app.sync.files.import_lines import iter_changes
from app.sync.files.import_stream import ImportStream, row_json
from app.sync.files.importer import RowOutcome, iter_errors, plan_import, row_counts, stream_import
from tests.unit.test_import import ROWS, customer, write_csv

# Every kind of row: ROWS (unchanged, update, create, bad type, unknown column, duplicates,
# unknown id, update by id, a blank line, no key) and a new key that is a cached key without
# its leading zeros (a warning, still planned).
EVERY_KIND = [*ROWS, ["", "42", "Zeros lost", "", "", "", ""]]


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[Cache]:
    with Cache(tmp_path / "cache.db", default_registry()) as c:
        c.upsert(
            "customers", [customer(1), customer(2), customer(3), customer(4, customerID="0042")]
        )
        yield c


def test_the_streamed_totals_and_detail_are_the_whole_plans(cache: Cache, tmp_path: Path) -> None:
    path = write_csv(tmp_path / "every.csv", EVERY_KIND)
    plan = plan_import(cache, "customers", path)
    resource = cache.registry["customers"]
    seen: list[RowOutcome] = []

    def take(outcome: RowOutcome) -> None:
        seen.append(outcome)
        stream.take(outcome)

    with ImportStream(resource, lines=True, json_rows=True, queue=True) as stream:
        streamed = stream_import(cache, "customers", open_table(path), take)
        assert dict(stream.counts) == dict(row_counts(plan))
        assert dict(stream.counts) == {"creates": 2, "updates": 2, "unchanged": 1, "errors": 6}
        assert stream.requests == plan.requests == 4
        assert list(stream.change_lines or ()) == list(iter_changes(plan))
        assert list(stream.errors) == list(iter_errors(plan))
        assert list(stream.warnings) == [f"warning: {w}" for w in plan.warnings]
        assert len(plan.warnings) == 1
        assert [o.row.number for o in seen] == [2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13]  # in order
        rows = list(stream.rows or ())
        assert [r["action"] for r in rows] == [o.action for o in seen]
        assert rows[-1]["warnings"][0]["why"] == "leading zeros lost"
        assert rows[0] == row_json(seen[0], "customerID")
        queued = list(stream.changes())  # in the file's order (the plan lists creates first)
        assert sorted(queued, key=str) == sorted(plan.changes(), key=str)
        assert [c.key_value for c in queued] == ["CU002", "CU900", "CU003", "42"]
        assert [dict(f) for f in stream.failing] == [
            {**e.raw, "error": str(e)} for e in plan.errors
        ]
    assert streamed.columns == plan.columns


def test_a_real_import_queues_the_stream_in_one_transaction(cache: Cache, tmp_path: Path) -> None:
    path = write_csv(tmp_path / "every.csv", EVERY_KIND)
    resource = cache.registry["customers"]
    with ImportStream(resource, lines=False, json_rows=False, queue=True) as stream:
        stream_import(cache, "customers", open_table(path), stream.take)
        with Outbox(tmp_path / "outbox.db") as outbox:
            seqs = outbox.add_many(stream.changes())
            assert len(seqs) == 4
            ops = [c.op for c in outbox.changes()]
            assert ops == ["update", "create", "update", "create"]


def test_the_json_document_streams_its_rows() -> None:
    stdout = io.StringIO()
    out = Output("import", json_mode=True, stdout=stdout)
    out.set(resource="customers", totals={"creates": 1})
    out.stream("rows", lambda: iter([{"line": 2}, {"line": 3}]))
    out.set(queued=0)
    out.finish(0)
    out.finish(0)  # once only
    assert json.loads(stdout.getvalue()) == {
        "command": "import", "exit": 0, "resource": "customers", "totals": {"creates": 1},
        "rows": [{"line": 2}, {"line": 3}], "queued": 0,
    }  # fmt: skip
