"""A table's first screen (a `LIMIT`ed query, shown before the whole list) holds the same rows in
the same order as the whole sorted and filtered list, which holds what a plain sort and filter of
the same records in Python gives — over several columns (a reference by its names), both
directions, text and column filters, read from the JSON, through sort indexes or through sort
keys (decisions 0023, 0040), with pending values of the outbox laid over and rows created here
after the queried ones.

Rows are placed by their cached values (what the show last said); a pending value is shown in
its row but does not move it (decision 0015), and created rows come after the queried ones."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pytestqt.qtbot import QtBot

from app.api.registry import default_registry
from app.store import cached_rows
from app.store.cache import Cache
from app.store.outbox import NewChange, Outbox
from app.store.shown_text import natural
from app.store.table_query import TableQuery
from app.ui.table.table_model import RecordTableModel
from app.wording.references import ReferenceNames

REGISTRY = default_registry()
FIRST = 4  # a first screen this short, so that the whole list has more after it
_FOLD = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")

texts = st.text(alphabet="aAbBzZ é1", max_size=6)
customers = st.lists(
    st.fixed_dictionaries(
        {
            "customerName": st.one_of(st.none(), texts),
            "priceZone": st.one_of(st.none(), st.integers(-2, 3)),
            "city": st.sampled_from(["Salem", "salem", "Fairview", "Madison", ""]),
            "warehouseID": st.sampled_from([None, "W1", "W01", "W2", "X9", 7]),
        }
    ),
    min_size=0,
    max_size=14,
)
queries = st.builds(
    TableQuery,
    order_by=st.sampled_from([None, "customerName", "priceZone", "city", "id", "warehouseID"]),
    descending=st.booleans(),
    text=st.sampled_from(["", "a", "SALEM", "é", "É", "zz", "a é"]),
    filters=st.sampled_from([(), (("city", "a"),), (("customerName", "B"),)]),
)


# A reference sorts on the names it shows (decisions 0032, 0040): keys differing only by leading
# zeros naming different records, an empty name (sorted by its key), a number naming a text key;
# "X9" names no cached record (sorted by itself). No name holds a text the queries filter on.
WAREHOUSES = {"W1": "Hub 10", "W01": "hub 9", "W2": "", "7": "Pier 7"}


# Without "W01", no two keys share a natural key: a first screen then walks the names (0040).
UNMIXED = {key: name for key, name in WAREHOUSES.items() if key != "W01"}


def shown(record: dict[str, Any], field: str, warehouses: dict[str, str]) -> Any:
    """What a sort on `field` compares: a warehouse's name, else the value itself."""
    value = record.get(field)
    if field == "warehouseID" and value is not None:
        return warehouses.get(str(value)) or value
    return value


def sort_key(value: Any) -> tuple[int, Any]:
    """SQLite's order of json_extract values under NOCASE: NULL, numbers, texts (ASCII folded,
    compared naturally: app/store/shown_text.py)."""
    if value is None:
        return (0, 0)
    if isinstance(value, int | float):
        return (1, value)
    return (2, natural(str(value)).translate(_FOLD))


def expected(
    records: list[dict[str, Any]], query: TableQuery, warehouses: dict[str, str]
) -> list[str]:
    """The query's ids, computed in Python from the cached records (in fetch order)."""

    def holds(rec: dict[str, Any]) -> bool:
        text = query.text.translate(_FOLD)
        whole = json.dumps(rec, ensure_ascii=False, separators=(",", ":")).translate(_FOLD)
        if text and text not in whole:
            return False
        for field, needle in query.filters:
            value = rec.get(field)
            if value is None or needle.translate(_FOLD) not in str(value).translate(_FOLD):
                return False
        return True

    kept = [(n, rec) for n, rec in enumerate(records) if holds(rec)]
    if query.order_by is not None:
        field = query.order_by
        kept.sort(key=lambda pair: (sort_key(shown(pair[1], field, warehouses)), pair[0]))
    if query.descending:
        kept.reverse()
    return [rec["id"] for _n, rec in kept]


def first_then_whole(model: RecordTableModel, query: TableQuery) -> tuple[list[str], list[str]]:
    """Set `query` through a runner that answers at once: the rows at the first reset (the
    first screen), and the rows once the whole list came."""
    seen: list[list[str]] = []
    model.modelReset.connect(lambda: seen.append(model.record_ids()))
    model.set_query(query)
    assert model.complete
    return (seen[0] if seen else model.record_ids()), model.record_ids()


def run_now(work: Callable[[], list[str]], done: Callable[[list[str]], None]) -> None:
    done(work())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    records=customers,
    query=queries,
    edited=st.integers(0, 13),
    read_through=st.sampled_from(["the JSON", "sort indexes", "sort keys"]),
    warehouses=st.sampled_from([WAREHOUSES, UNMIXED]),
)
def test_the_first_screen_is_the_start_of_the_whole_sorted_filtered_list(
    qapp: Any,
    records: list[dict[str, Any]],
    query: TableQuery,
    edited: int,
    read_through: str,
    warehouses: dict[str, str],
) -> None:
    with (
        pytest.MonkeyPatch.context() as patch,
        tempfile.TemporaryDirectory() as tmp,
        Cache(Path(tmp) / "cache.db", REGISTRY) as cache,
        Outbox(Path(tmp) / "outbox.db") as outbox,
    ):
        patch.setattr(cached_rows, "FIRST_SCREEN", FIRST)
        cached = [
            {"id": f"c{n:02d}", "customerID": f"CU{n:02d}", **r} for n, r in enumerate(records)
        ]
        cache.upsert("customers", cached)
        cache.upsert(
            "warehouses",
            [
                {"id": f"w{n}", "warehouseID": key, "description": name}
                for n, (key, name) in enumerate(warehouses.items())
            ],
        )
        for field in (
            ("customerName", "priceZone", "city") if read_through == "sort indexes" else ()
        ):
            assert cache.build_sort_index(field)  # first screens then read the sort indexes
        if read_through == "sort keys":  # sorted queries then read the narrow copy (0023)
            assert cache.build_sort_keys("customers")
            walked = cache.build_sort_index("warehouseID", "customers")  # by names (0040)
            assert walked or not cached  # the keys copy no field of no record
        if cached:  # a pending value that would sort elsewhere: shown, the row stays in place
            rid = cached[edited % len(cached)]["id"]
            change = {"customerName": "zzz pending", "city": "Zzz"}
            outbox.add(NewChange("customers", "update", rid, change, changed_fields=("city",)))
        created = {"customerName": "AAA new", "city": "Salem", "customerID": "NEW1"}
        outbox.add(NewChange("customers", "create", "new-1", created))
        model = RecordTableModel(cache, REGISTRY["customers"], ReferenceNames(cache), outbox=outbox)
        model.set_background(run_now)

        first, whole = first_then_whole(model, query)

        queried = expected(cached, query, warehouses)
        assert whole == [*queried, "new-1"]  # created rows after the queried ones
        assert first[-1] == "new-1"  # created rows follow the first screen too
        shown = first[:-1]
        assert shown == queried[: len(shown)] and len(shown) >= min(FIRST, len(queried))
        if cached:
            row = model.row_of(rid)
            assert row == -1 or model.record(row)["city"] == "Zzz"  # the pending value shown
        model.deleteLater()


def test_a_table_opens_on_its_first_screen_and_the_rest_follows(
    qtbot: QtBot, tmp_path: Path
) -> None:
    """A saved view restored while opening costs a first screen too; the rest follows once the
    event loop runs (here without a background: read at once then)."""
    with Cache(tmp_path / "cache.db", REGISTRY) as cache:
        rows = [{"id": f"c{n:03d}", "customerID": f"CU{n:03d}", "customerName": f"Shop {n % 13}"}
                for n in range(250)]  # fmt: skip
        cache.upsert("customers", rows)
        refs = ReferenceNames(cache)
        model = RecordTableModel(cache, REGISTRY["customers"], refs, first_screen=True)
        query = TableQuery(order_by="customerName", descending=True)
        whole = cache.row_ids("customers", query)
        model.set_query(query)
        assert model.rowCount() == cached_rows.FIRST_SCREEN and not model.complete
        assert model.record_ids() == whole[: cached_rows.FIRST_SCREEN]
        qtbot.waitUntil(lambda: model.complete)
        assert model.record_ids() == whole
        model.deleteLater()
