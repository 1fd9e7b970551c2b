"""A table's filters find what its cells show, and its sorts read it naturally (issue 30, point 2;
decision 0032): reference names, enumeration words, written dates and nested labels, on a
real cache file, with and without sort keys and sort indexes."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.api.registry import default_registry
from app.store import cache_file, cache_reads, cached_rows, shown_text
from app.store.cache import Cache
from app.store.cached_rows import CachedRows
from app.store.query import NAMES as NAMES_LOOKED_UP
from app.store.schema import CACHE_MIGRATIONS
from app.store.shown_text import Shown, natural
from app.store.table_query import TableQuery
from app.sync.edit.numbers import NumberMarks
from app.ui.table.presenter import CellPresenter
from app.wording.references import ReferenceNames, shown

REGISTRY = default_registry()


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[Cache]:
    with Cache(tmp_path / "cache.db", REGISTRY) as opened:
        opened.upsert(
            "warehouses",
            [
                {"id": "w1", "warehouseID": "WH01", "description": "Columbus distribution center"},
                {"id": "w2", "warehouseID": "WH02", "description": "Dayton distribution center"},
            ],
        )
        opened.upsert(
            "products",
            [
                {"id": "p1", "productID": "P1", "description": "Whole Grain Ice Cream 16 oz"},
                {"id": "p2", "productID": "P2", "description": "Apple Pie 9 in"},
            ],
        )
        opened.upsert(
            "product-inventory",
            [
                {"id": "i1", "productID": "P1", "warehouseID": "WH02", "quantity": 5},
                {"id": "i2", "productID": "P2", "warehouseID": "WH01", "quantity": 7},
                {"id": "i3", "productID": "P2", "warehouseID": "WH02", "quantity": 9},
            ],
        )
        yield opened


def ids(cache: Cache, slug: str, query: TableQuery) -> list[str]:
    """The ids both ways a table reads them: a first screen and the whole list (detached)."""
    whole = cache.row_ids(slug, query)
    assert cache.row_ids(slug, query, limit=2) == whole[:2]
    assert cache.row_ids(slug, query, detached=True) == whole
    return whole


def test_the_text_filter_finds_the_names_references_show(cache: Cache) -> None:
    """Observed: "Dayton" and "Whole Grain" found nothing, "WH02" (shown nowhere) found rows."""
    assert ids(cache, "product-inventory", TableQuery(text="Dayton")) == ["i1", "i3"]
    assert ids(cache, "product-inventory", TableQuery(text="whole grain")) == ["i1"]
    assert ids(cache, "product-inventory", TableQuery(text="WH02")) == ["i1", "i3"]  # raw, still
    assert ids(cache, "product-inventory", TableQuery(text="nowhere")) == []


def test_the_filter_follows_a_renamed_reference(cache: Cache) -> None:
    cache.upsert(
        "warehouses", [{"id": "w2", "warehouseID": "WH02", "description": "Kettering depot"}]
    )
    assert ids(cache, "product-inventory", TableQuery(text="Dayton")) == []
    assert ids(cache, "product-inventory", TableQuery(text="kettering")) == ["i1", "i3"]
    query = TableQuery().with_filter("warehouseID", "kettering")
    assert ids(cache, "product-inventory", query) == ["i1", "i3"]


def test_a_list_of_references_is_found_by_any_of_its_names(tmp_path: Path) -> None:
    with Cache(tmp_path / "cache.db", REGISTRY) as cache:
        cache.upsert(
            "sales-reps",
            [
                {"id": "s1", "salesRepID": "SR1", "name": "Robin Wells"},
                {"id": "s2", "salesRepID": "SR2", "name": "Kim Ortega"},
            ],
        )
        cache.upsert(
            "customers",
            [
                {"id": "c1", "customerID": "C1", "salesReps": ["SR1", "SR2"]},
                {"id": "c2", "customerID": "C2", "salesReps": ["SR1"]},
            ],
        )
        assert ids(cache, "customers", TableQuery(text="ortega")) == ["c1"]
        assert ids(cache, "customers", TableQuery(text="robin")) == ["c1", "c2"]


def attendees(cache: Cache) -> None:
    cache.upsert(
        "attendees",
        [
            {
                "id": "a1",
                "attendeeID": "A1",
                "arrivalNotificationBehavior": "EmailAndSms",
                "modifiedDate": "2027-01-23T16:05:09",
            },
            {
                "id": "a2",
                "attendeeID": "A2",
                "arrivalNotificationBehavior": "Email",
                "modifiedDate": "2026-11-02T09:30:00",
            },
        ],
    )


def test_an_enumeration_is_found_by_its_words(tmp_path: Path) -> None:
    with Cache(tmp_path / "cache.db", REGISTRY) as cache:
        attendees(cache)
        cache.shown = shown()
        assert ids(cache, "attendees", TableQuery(text="email and")) == ["a1"]
        column = TableQuery().with_filter("arrivalNotificationBehavior", "and sms")
        assert ids(cache, "attendees", column) == ["a1"]
        assert ids(cache, "attendees", TableQuery(text="email")) == ["a1", "a2"]


def test_a_date_is_found_as_the_table_writes_it(tmp_path: Path) -> None:
    with Cache(tmp_path / "cache.db", REGISTRY) as cache:
        attendees(cache)
        assert ids(cache, "attendees", TableQuery(text="2027-01-23 16:05")) == ["a1"]  # default
        cache.shown = Shown(date_pattern="dd/MM/yyyy", datetime_pattern="dd/MM/yyyy HH:mm")
        assert ids(cache, "attendees", TableQuery(text="23/01/2027")) == ["a1"]
        assert ids(cache, "attendees", TableQuery(text="02/11/2026 09:30")) == ["a2"]
        cache.shown = Shown(date_pattern="M/d/yy", datetime_pattern="M/d/yy h:mm AP")
        assert ids(cache, "attendees", TableQuery(text="1/23/27 4:05 PM")) == ["a1"]
        assert ids(cache, "attendees", TableQuery(text="11/2/26")) == ["a2"]
        column = TableQuery().with_filter("modifiedDate", "9:30 am")
        assert ids(cache, "attendees", column) == ["a2"]


def test_every_cell_is_found_by_the_text_it_shows(tmp_path: Path) -> None:
    """Whatever the presenter writes in a cell (names, words, dates, nested labels), the text
    filter and the column's filter find its row by it."""
    with Cache(tmp_path / "cache.db", REGISTRY) as cache:
        attendees(cache)
        cache.upsert("customers", [{"id": "c1", "customerID": "C1", "customerName": "Éclair Co"}])
        cache.upsert(
            "attendees",
            [
                {
                    "id": "a3",
                    "attendeeID": "A3",
                    "customerID": "C1",
                    "attendanceType": "InPerson",
                    "badge": {"id": "b7", "label": "Front desk"},
                },
            ],
        )
        cache.shown = Shown(
            words=lambda v: {"InPerson": "On site", "EmailAndSms": "Both"}.get(v, v),
            date_pattern="dd.MM.yyyy",
            datetime_pattern="dd.MM.yyyy HH:mm",
        )
        presenter = CellPresenter(REGISTRY["attendees"], ReferenceNames(cache), when=_dotted)
        presenter_words = cache.shown.words
        for record in cache.records("attendees"):
            for field, value in record.items():
                text = _as_shown(presenter, presenter_words, field, value)
                if not text or field == "id":
                    continue
                for query in (TableQuery(text=text), TableQuery().with_filter(field, text)):
                    assert record["id"] in ids(cache, "attendees", query), (field, text)


@pytest.mark.parametrize("decimal", [".", ","])
def test_a_price_is_found_with_its_places_and_the_users_decimal_mark(
    tmp_path: Path, decimal: str
) -> None:
    """Issue 30, item 19: a price reads "14.90" ("14,90" with a decimal comma); the filters
    find it so, as they find every decimal the table writes with the user's mark."""
    with Cache(tmp_path / "cache.db", REGISTRY) as cache:
        cache.upsert(
            "products",
            [
                {"id": "p1", "productID": "P1", "price": 14.9, "netWeight": 0.5, "msrp": 20},
                {"id": "p2", "productID": "P2", "price": 114.95, "netWeight": 2.25},
                {"id": "p3", "productID": "P3", "price": 3, "msrp": 149.0},
            ],
        )
        cache.shown = Shown(decimal=decimal)
        assert ids(cache, "products", TableQuery(text=f"14{decimal}90")) == ["p1"]
        assert ids(cache, "products", TableQuery(text=f"20{decimal}00")) == ["p1"]
        assert ids(cache, "products", TableQuery(text=f"3{decimal}00")) == ["p3"]
        assert ids(cache, "products", TableQuery(text="14")) == ["p1", "p2", "p3"]  # raw, still
        column = TableQuery().with_filter("price", f"4{decimal}9")
        assert ids(cache, "products", column) == ["p1", "p2"]
        assert ids(cache, "products", TableQuery(text=f"0{decimal}5")) == ["p1"]
        presenter = CellPresenter(
            REGISTRY["products"], ReferenceNames(cache), marks=_marks(decimal)
        )
        for record in cache.records("products"):
            for field in ("price", "msrp", "netWeight"):
                text = presenter.text(field, record.get(field))
                if text is None:
                    continue
                for query in (TableQuery(text=text), TableQuery().with_filter(field, text)):
                    assert record["id"] in ids(cache, "products", query), (field, text)


def _marks(decimal: str) -> NumberMarks:
    return NumberMarks(decimal, "," if decimal == "." else ".")


def _dotted(value: str) -> str:
    day = f"{value[8:10]}.{value[5:7]}.{value[:4]}"
    return day if len(value) == 10 else f"{day} {value[11:16]}"


def _as_shown(presenter: CellPresenter, words: Any, field: str, value: Any) -> str | None:
    """The presenter's text, its enumerations in the cache's words (as the window sets both)."""
    if isinstance(value, str) and value in presenter.enumerations.get(field, ()):
        return str(words(value))
    return presenter.text(field, value)


NAMES = ["Acme #183", "Acme #32", "acme #7", "Acme #32b", "Globex 2", "Acme", "#0010"]


@pytest.mark.parametrize("how", ["json", "keys", "keys and index", "json index"])
def test_sorts_read_numbers_in_a_text_by_value(tmp_path: Path, how: str) -> None:
    """Observed: "#183" sorted before "#32" before "#7"."""
    with Cache(tmp_path / "cache.db", REGISTRY) as cache:
        records = [
            {"id": f"c{n}", "customerID": f"C{n}", "customerName": name}
            for n, name in enumerate(NAMES)
        ]
        cache.upsert("customers", records)
        if how.startswith("keys"):
            assert cache.build_sort_keys("customers") and cache.has_sort_keys("customers")
        if how.endswith("index"):
            assert cache.build_sort_index("customerName", "customers")
        wanted = ["Acme", "acme #7", "Acme #32", "Acme #32b", "Acme #183", "#0010", "Globex 2"]
        wanted.sort(key=lambda name: natural(name).lower())
        assert wanted[:5] == ["#0010", "Acme", "acme #7", "Acme #32", "Acme #32b"]
        by_name = {r["customerName"]: r["id"] for r in records}
        query = TableQuery(order_by="customerName")
        assert ids(cache, "customers", query) == [by_name[n] for n in wanted]
        assert ids(cache, "customers", query.with_order("customerName", True)) == [
            by_name[n] for n in reversed(wanted)
        ]
        # A record changed after its keys were copied is placed by its JSON, naturally too.
        cache.upsert("customers", [{**records[0], "customerName": "Acme #8"}])
        assert ids(cache, "customers", query)[3] == "c0"


def test_a_reference_sorts_by_the_name_it_shows(cache: Cache) -> None:
    by_warehouse = TableQuery(order_by="warehouseID")
    # Columbus (WH01) before Dayton (WH02); a key whose record is not cached sorts by itself.
    cache.upsert("product-inventory", [{"id": "i4", "productID": "P9", "warehouseID": "AB9"}])
    assert ids(cache, "product-inventory", by_warehouse) == ["i4", "i2", "i1", "i3"]
    cache.upsert("warehouses", [{"id": "w1", "warehouseID": "WH01", "description": "Springfield"}])
    assert ids(cache, "product-inventory", by_warehouse) == ["i4", "i1", "i3", "i2"]
    by_product = TableQuery(order_by="productID", descending=True)
    assert ids(cache, "product-inventory", by_product) == ["i1", "i4", "i3", "i2"]  # W, P9, A
    assert not cache.build_sort_index("warehouseID", "product-inventory")


@pytest.mark.parametrize("descending", [False, True])
def test_a_reference_sorted_through_the_keys_orders_as_through_the_json(
    cache: Cache, monkeypatch: pytest.MonkeyPatch, descending: bool
) -> None:
    """The sort keys copy a reference's key; the query looks each one's name up once
    (decision 0040) instead of in the records for every row. Both read the same order: keys
    whose record is not cached (by themselves), keys differing only by leading zeros and naming
    different records, a number naming a text key, an empty name, a record changed since its
    keys were copied, filtered or not."""
    cache.upsert(
        "warehouses",
        [
            {"id": "w3", "warehouseID": "WH1", "description": "Akron"},  # WH01 is Columbus
            {"id": "w4", "warehouseID": "7", "description": "Zanesville"},
            {"id": "w5", "warehouseID": "E1", "description": ""},
        ],
    )
    shelves = ["WH02", "WH01", "WH1", 7, "E1", "AB9", "ZZ1", "WH02", "WH1", None]
    cache.upsert(
        "product-inventory",
        [
            {"id": f"j{n}", "productID": f"P{n % 3}", "warehouseID": shelf, "quantity": n}
            for n, shelf in enumerate(shelves)
        ],
    )
    assert cache.build_sort_keys("product-inventory")
    cache.upsert("product-inventory", [{"id": "j0", "productID": "P0", "warehouseID": "WH1"}])
    queries = [
        TableQuery(order_by="warehouseID", descending=descending),
        TableQuery(order_by="warehouseID", descending=descending, text="P1"),
        TableQuery(order_by="warehouseID", descending=descending, filters=(("productID", "p"),)),
    ]
    assert all(NAMES_LOOKED_UP in cache._select("id", "product-inventory", q)[0] for q in queries)
    through_keys = [ids(cache, "product-inventory", q) for q in queries]
    monkeypatch.setattr(cache, "_many", lambda _slug: True)  # as a big target is: by the JSON
    assert through_keys == [ids(cache, "product-inventory", q) for q in queries]
    shown = {"j0": "Akron", "j1": "Columbus", "j2": "Akron", "j3": "Zanesville", "j4": "E1"}
    shown |= {"j5": "AB9", "j6": "ZZ1", "j7": "Dayton", "j8": "Akron", "j9": ""}
    shown |= {"i1": "Dayton", "i2": "Columbus", "i3": "Dayton"}
    read = [shown[i] for i in through_keys[0]]
    wanted = ["", "AB9", *["Akron"] * 3, *["Columbus"] * 2, *["Dayton"] * 3, "E1", "Zanesville"]
    assert read == [*wanted, "ZZ1"][:: -1 if descending else 1]  # an empty name: by its key


@pytest.mark.parametrize("descending", [False, True])
def test_a_first_screen_sorted_on_names_walks_them_as_the_whole_sort_reads_them(
    cache: Cache, monkeypatch: pytest.MonkeyPatch, descending: bool
) -> None:
    """With the index over a reference's keys, a first screen walks its names a name at a time
    (decision 0040): every first screen is the start of the order the JSON gives — keys not
    cached, none, a number, keys differing by case, two keys sharing a name (their rows
    interleave by fetch order), an empty name, and records changed since the keys' copy."""
    cache.upsert(
        "warehouses",
        [
            {"id": "w3", "warehouseID": "wh02", "description": "Dayton distribution center"},
            {"id": "w4", "warehouseID": "7", "description": "Akron"},
            {"id": "w5", "warehouseID": "E1", "description": ""},
        ],
    )
    shelves = ["WH02", "WH01", "wh02", 7, "E1", "AB9", None, "WH02", "ab5", "7", None, "WH01"]
    cache.upsert(
        "product-inventory",
        [
            {"id": f"j{n:02d}", "productID": "P1", "warehouseID": shelves[n % len(shelves)]}
            for n in range(40)
        ],
    )
    assert cache.build_sort_keys("product-inventory")
    assert cache.build_sort_index("warehouseID", "product-inventory")
    assert cache.has_sort_index("warehouseID", "product-inventory")
    moved = [{"id": f"j{n:02d}", "productID": "P1", "warehouseID": "AB9"} for n in (3, 20)]
    cache.upsert("product-inventory", moved)  # noted stale: placed by their JSON
    query = TableQuery(order_by="warehouseID", descending=descending)
    screens = {n: cache.row_ids("product-inventory", query, limit=n) for n in (1, 5, 17, 60)}
    walked = cache._select("id", "product-inventory", query, 5)[0]
    monkeypatch.setattr(cache, "_many", lambda _slug: True)  # as a big target: by the JSON
    whole = cache.row_ids("product-inventory", query)
    assert "walk_groups" in walked and len(whole) == 43
    assert all(screen == whole[:n] for n, screen in screens.items())


def test_the_keys_copy_indexes_the_references_sorted_on_their_names_so_their_first_sort_walks(
    cache: Cache, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A big query's keys copy (in the background) also builds the index over each reference
    sorted on the names it shows, so the first sort on Warehouse is a walk, not a scan of every
    row's names (decision 0040) — but not over a reference to a resource too big to look its
    names up first (then the query does, and the index would serve nothing)."""
    monkeypatch.setattr(cache, "_many", lambda slug: slug == "products")
    monkeypatch.setattr(cached_rows, "SORT_INDEX_FROM", 3)
    cached = CachedRows(cache, "product-inventory")
    cached.runner = lambda work, done: done(work())
    cached.requery(TableQuery(order_by="quantity"), cached.show)
    assert cache.has_sort_keys("product-inventory")
    assert cache.has_sort_index("quantity", "product-inventory")
    assert cache.has_sort_index("warehouseID", "product-inventory")
    assert not cache.has_sort_index("productID", "product-inventory")
    assert not cache.build_sort_index("productID", "product-inventory")
    query = TableQuery(order_by="warehouseID")
    assert "walk_groups" in cache._select("id", "product-inventory", query, 2)[0]
    assert cache.row_ids("product-inventory", query, limit=2) == ["i2", "i1"]
    # customers name five references; these name a warehouse only (the keys copy no other)
    cache.upsert("customers", [{"id": f"c{n}", "customerID": f"C{n}", "warehouseID": "WH02"}
                               for n in range(3)])  # fmt: skip
    customers = CachedRows(cache, "customers")
    customers.runner = lambda work, done: done(work())
    customers.requery(TableQuery(), customers.show)
    assert cache.walked_references("customers") == ["warehouseID"]
    assert cache.has_sort_index("warehouseID", "customers")


def test_natural_keys() -> None:
    assert natural("#7") < natural("#32") < natural("#183")
    assert natural("a10b2") > natural("a9b30")
    assert natural("007") == natural("7") and natural(7) == 7 and natural(None) is None


def _natural_as_written_first(value: Any) -> Any:
    """`natural` as decision 0032 wrote it (a substitution calling back for each run): the keys
    the sort keys, sort indexes and tests compare must stay exactly these."""
    if type(value) is not str:
        return value

    def run(match: re.Match[str]) -> str:
        digits = match.group().lstrip("0") or "0"
        return f"{len(digits):02d}{digits}"

    return re.sub(r"[0-9]+", run, value)


@settings(max_examples=500, deadline=None)
@given(
    value=st.one_of(
        st.text(alphabet="0123456789a# \u0663\uff11", max_size=12),  # also digits of other scripts
        st.text(max_size=8),
        st.text(alphabet="07", min_size=95, max_size=130),  # runs of 100 digits and more
        st.integers(),
        st.floats(allow_nan=False),
        st.none(),
    )
)
def test_natural_keys_are_those_written_first_also_when_remembered(value: Any) -> None:
    wanted = _natural_as_written_first(value)
    assert natural(value) == wanted and natural(value) == wanted  # computed, then remembered
    assert type(natural(value)) is type(wanted)


def test_natural_keys_remembered_are_forgotten_when_too_many(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(shown_text, "_KNOWN", {})
    monkeypatch.setattr(shown_text, "_KNOWN_MOST", 3)
    for n in range(10):
        assert natural(f"#{n}") == f"#01{n}"
    assert 0 < len(shown_text._KNOWN) <= 3
    assert natural("x" * 65) == "x" * 65 and "x" * 65 not in shown_text._KNOWN  # long: not kept


def test_a_v7_cache_sorts_naturally_once_opened(tmp_path: Path) -> None:
    """A cache of v7 (keys copying the values, a sort index over them and one over the JSON)
    opens as v8: the old index is dropped, the keys serve no sort until rebuilt, and sorts
    read numbers by value at once."""
    path = tmp_path / "cache.db"
    conn = sqlite3.connect(path)
    for migration in CACHE_MIGRATIONS[:7]:
        for statement in migration:
            conn.execute(statement)
    conn.execute("PRAGMA user_version=7")
    for n, name in enumerate(["Acme #183", "Acme #32", "Acme #7"]):
        conn.execute(
            "INSERT INTO records (resource, id, key_value, fetched_at, json) "
            "VALUES (?, ?, ?, ?, ?)",
            (
                "customers",
                f"c{n}",
                f"C{n}",
                "2025",
                json.dumps({"id": f"c{n}", "customerName": name}),
            ),
        )
    conn.execute("INSERT INTO record_fields VALUES ('customers', 'customerName')")
    conn.execute(
        "CREATE INDEX records_by_customerName ON records "
        "(resource, parent, json_extract(json, '$.customerName') COLLATE NOCASE)"
    )
    conn.execute("CREATE TABLE keys_customers (of_parent TEXT NOT NULL, k0)")
    conn.execute(
        "INSERT INTO keys_customers (rowid, of_parent, k0) "
        "SELECT rowid, '', json_extract(json, '$.customerName') FROM records"
    )
    conn.execute("INSERT INTO sort_keys VALUES ('customers', '[\"customerName\"]', 3, 1)")
    conn.commit()
    conn.close()
    with Cache(path, REGISTRY) as cache:
        assert not cache._has_index("records_by_customerName")
        assert not cache.has_sort_keys("customers")
        query = TableQuery(order_by="customerName")
        assert ids(cache, "customers", query) == ["c2", "c1", "c0"]
        assert cache.build_sort_keys("customers") and cache.has_sort_keys("customers")
        assert ids(cache, "customers", query) == ["c2", "c1", "c0"]


def test_names_of_a_big_resource_are_looked_up_by_the_query(
    cache: Cache, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past `NAMED_AT_ONCE` records, the names are not looked up before the query runs (a
    second at 1,000,000) but by the query, in its worker: the same rows."""
    monkeypatch.setattr(cache_file, "NAMED_AT_ONCE", 1)
    assert ids(cache, "product-inventory", TableQuery(text="Dayton")) == ["i1", "i3"]
    assert ids(cache, "product-inventory", TableQuery(text="nowhere")) == []
    monkeypatch.setattr(cache_reads, "_FEW_KEYS", 0)
    monkeypatch.setattr(cache_file, "NAMED_AT_ONCE", 1000)
    assert ids(cache, "product-inventory", TableQuery(text="Dayton")) == ["i1", "i3"]
