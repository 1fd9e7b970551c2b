"""The cached rows (app/store/cached_rows.py) over a real cache file: ids in a table query's
order, records read in blocks kept in a small LRU, rows created here after the queried ones, and
background queries whose overtaken answers are dropped — all without Qt."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from app.api.registry import default_registry
from app.store import cached_rows, ids_read
from app.store.cache import Cache
from app.store.cached_rows import BLOCK, FIRST_SCREEN, MAX_BLOCKS, CachedRows
from app.store.table_query import TableQuery

COUNT = BLOCK * (MAX_BLOCKS + 2)  # more blocks than the cached rows keep


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[Cache]:
    with Cache(tmp_path / "cache.db", default_registry()) as c:
        c.upsert(
            "customers",
            ({"id": f"c{n:05d}", "customerID": f"CU{n:05d}", "customerName": f"Shop {n % 10}",
              "priceZone": n % 7} for n in range(COUNT)),
        )  # fmt: skip
        yield c


def spy_reads(cache: Cache) -> list[int]:
    """Count the block reads (`get_many` calls, by how many ids each asked)."""
    calls: list[int] = []
    real = cache.get_many

    def counting(slug: str, ids: Sequence[str], **kw: Any) -> dict[str, dict[str, Any]]:
        calls.append(len(ids))
        return real(slug, ids, **kw)

    cache.get_many = counting  # type: ignore[method-assign]  # spy on the reads
    return calls


def test_the_ids_follow_the_query(cache: Cache) -> None:
    query = TableQuery(order_by="id", descending=True).with_filter("customerName", "shop 3")
    rows = CachedRows(cache, "customers", query)
    assert rows.query == query
    assert rows.count == COUNT // 10 and rows.record_id(0) == f"c{COUNT - 7:05d}"
    assert rows.row_of(f"c{COUNT - 7:05d}") == 0 and rows.row_of("c00000") == -1
    answered: list[tuple[list[str], bool]] = []
    rows.requery(TableQuery(text="CU00012"), lambda *a: answered.append(a))  # at once, no runner
    assert answered == [(["c00012"], True)] and rows.count == COUNT // 10  # shown when told
    answered[:] = [(ids, True) for ids, _complete in answered]
    rows.show(answered[0][0])
    assert rows.ids == ["c00012"] and rows.row_of("c00012") == 0


def test_records_are_read_in_blocks_and_few_blocks_are_kept(cache: Cache) -> None:
    rows = CachedRows(cache, "customers")
    reads = spy_reads(cache)
    assert [rows.record(row)["id"] for row in range(BLOCK)] == rows.ids[:BLOCK]
    assert reads == [BLOCK]  # one SELECT for the whole block
    for block in range(1, MAX_BLOCKS + 1):  # one block more than kept: the first is dropped
        rows.record(block * BLOCK)
    assert len(reads) == MAX_BLOCKS + 1
    rows.record(BLOCK * MAX_BLOCKS + 1)  # still kept
    assert len(reads) == MAX_BLOCKS + 1
    rows.record(3)  # the first block was the least recently used: read again
    assert len(reads) == MAX_BLOCKS + 2


def test_forgetting_reads_changed_records_again(cache: Cache) -> None:
    rows = CachedRows(cache, "customers")
    assert rows.record(0)["customerName"] == "Shop 0"
    cache.upsert("customers", [{"id": "c00000", "customerID": "CU00000", "customerName": "New"}])
    assert rows.record(0)["customerName"] == "Shop 0"  # the block is kept until told
    rows.forget_records()
    assert rows.record(0)["customerName"] == "New"
    cache.delete("customers", ["c00000"])
    rows.forget_records()
    assert rows.record(0) == {} and rows.record_id(0) == "c00000"  # vanished: empty


def test_extra_rows_come_after_the_queried_ones_and_survive_a_requery(cache: Cache) -> None:
    rows = CachedRows(cache, "customers", TableQuery(text="CU0001"))
    queried = rows.ids
    rows.set_extra(["local-1", "local-2"])
    assert rows.ids == [*queried, "local-1", "local-2"] and rows.extra == ["local-1", "local-2"]
    assert rows.row_of("local-2") == len(queried) + 1 and rows.record(len(queried)) == {}
    rows.requery(TableQuery(text="CU00012"), rows.show)
    assert rows.ids == ["c00012", "local-1", "local-2"]
    rows.set_extra(["local-2"])
    assert rows.ids == ["c00012", "local-2"] and rows.row_of("local-1") == -1


def test_a_background_requery_keeps_the_rows_and_drops_overtaken_answers(cache: Cache) -> None:
    """The runner here is a worker thread; the answers are delivered in the order asked. Each
    requery asks a first screen, then the whole list; the overtaken queries were cancelled."""
    rows = CachedRows(cache, "customers")
    asked: list[tuple[Callable[[], list[str]], Callable[[list[str]], None]]] = []
    rows.runner = lambda work, done: asked.append((work, done))
    shown: list[tuple[list[str], bool]] = []
    before = rows.ids
    rows.requery(TableQuery(order_by="id", descending=True), lambda *a: shown.append(a))
    rows.requery(TableQuery(text="CU00012"), lambda *a: shown.append(a))  # before any answer
    assert rows.ids == before and rows.query == TableQuery(text="CU00012")
    assert len(asked) == 2  # the first screens
    with ThreadPoolExecutor(1) as worker:
        answers = [worker.submit(work).result() for work, _done in asked]
        for (_work, done), ids in zip(asked, answers, strict=True):
            done(ids)
    assert answers[0] == []  # the first requery's query was cancelled before it ran
    assert shown == [(["c00012"], True)] and len(asked) == 2  # a short first screen is all


def run_now(work: Callable[[], list[str]], done: Callable[[list[str]], None]) -> None:
    done(work())


def test_a_first_screen_comes_first_and_the_whole_list_extends_it(cache: Cache) -> None:
    rows = CachedRows(cache, "customers")
    asked: list[tuple[Callable[[], list[str]], Callable[[list[str]], None]]] = []
    rows.runner = lambda work, done: asked.append((work, done))
    query = TableQuery(order_by="customerName", descending=True)
    shown: list[tuple[list[str], bool]] = []

    def ready(ids: list[str], complete: bool) -> None:
        shown.append((ids, complete))
        more = rows.extension(ids) if complete else None
        rows.show(ids, complete) if more is None else rows.extend(ids)

    rows.requery(query, ready)
    for work, done in asked:
        done(work())
    whole = cache.row_ids("customers", query)
    assert [complete for _ids, complete in shown] == [False, True]
    assert shown[0][0] == whole[:FIRST_SCREEN] and rows.ids == whole and rows.complete
    assert rows.extension(whole) is None  # complete: nothing to extend


def test_what_follows_rows_shown_waits_for_their_paint_and_is_dropped_when_overtaken(
    cache: Cache, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rest of a first screen's list, and the sort index after a whole list, are asked of
    the runner only once `after_shown` says the rows shown were painted; a query asked for
    meanwhile makes the older ones' follow-ups do nothing."""
    monkeypatch.setattr(cached_rows, "SORT_INDEX_FROM", COUNT)
    rows = CachedRows(cache, "customers")
    asked: list[str] = []
    painted: list[Callable[[], None]] = []  # follow-ups waiting for a paint

    def runner(work: Callable[[], list[str]], done: Callable[[list[str]], None]) -> None:
        asked.append("read")
        done(work())

    rows.runner, rows.after_shown = runner, painted.append
    query = TableQuery(order_by="customerName")
    rows.requery(query, lambda ids, complete: rows.show(ids, complete))
    assert asked == ["read"] and not rows.complete  # the first screen, shown
    painted.pop(0)()  # its paint: the rest is read now
    assert asked == ["read", "read"] and rows.complete and len(rows.ids) == COUNT
    assert not cache.has_sort_index("customerName", "customers")  # not before the paint
    painted.pop(0)()  # the whole list painted: its sort keys, then the index
    assert cache.has_sort_index("customerName", "customers")
    asked.clear()
    rows.requery(TableQuery(order_by="priceZone"), lambda ids, c: rows.show(ids, c))
    stale = painted.pop(0)
    rows.requery(TableQuery(order_by="customerID"), lambda ids, c: rows.show(ids, c))
    stale()  # the priceZone first screen's paint, after customerID was asked for
    assert asked == ["read", "read"]  # the two first screens, no whole list of priceZone
    painted.pop(0)()
    assert rows.complete and rows.ids == cache.row_ids(
        "customers", TableQuery(order_by="customerID")
    )


def test_a_running_query_is_interrupted_when_cancelled(cache: Cache) -> None:
    read = cache.read_ids("customers", TableQuery(order_by="customerName"))
    read.cancel()
    assert read.run() == [] and read.cancelled
    assert cache.read_ids("customers", TableQuery(text="CU00012")).run() == ["c00012"]


def test_a_big_sorted_query_gets_a_sort_index_that_gives_the_same_rows(
    cache: Cache, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cached_rows, "SORT_INDEX_FROM", COUNT)
    query = TableQuery(order_by="customerName", descending=True)
    before = cache.row_ids("customers", query)
    rows = CachedRows(cache, "customers")
    rows.runner = run_now
    assert not cache.has_sort_index("customerName", "customers")
    rows.requery(query, rows.show)
    # the sort keys copied first, the index built over them (decision 0024)
    assert rows.ids == before and cache.has_sort_index("customerName", "customers")
    sql, params = cache._select("id", "customers", query, FIRST_SCREEN)
    with cache._db.lock:
        plan = str(cache._db.conn.execute("EXPLAIN QUERY PLAN " + sql, params).fetchall())
    assert "INDEX keys_customers_by_customerName" in plan  # first rows only, then the changed
    assert "records_natural_by_customerName" not in plan
    assert cache.row_ids("customers", query, limit=FIRST_SCREEN) == before[:FIRST_SCREEN]
    assert cache.row_ids("customers", query) == before
    other = TableQuery(order_by="priceZone", text="CU")  # no index of its own: not the other one's
    sql, params = cache._select("id", "customers", other, FIRST_SCREEN)
    with cache._db.lock:
        plan = str(cache._db.conn.execute("EXPLAIN QUERY PLAN " + sql, params).fetchall())
    assert "records_listing" in plan and "by_customerName" not in plan
    assert cache.row_ids("customers", other, limit=5) == cache.row_ids("customers", other)[:5]
    monkeypatch.setattr(cached_rows, "SORT_INDEX_FROM", COUNT + 1)  # a smaller resource
    rows.requery(TableQuery(order_by="priceZone"), rows.show)
    assert not cache.has_sort_index("priceZone", "customers")
    assert cache.has_sort_index("id")  # the primary key


def test_non_ascii_text_is_found_in_records_written_escaped_or_not(cache: Cache) -> None:
    cache.upsert("customers", [{"id": "m1", "customerID": "M1", "customerName": "Bäckerei Müller"}])
    with cache._db.lock:  # a record written by an older version: non-ASCII letters as they are
        cache._db.conn.execute(
            "INSERT INTO records (resource, parent, id, fetched_at, json) VALUES (?, '', ?, '', ?)",
            ("customers", "m2", '{"id":"m2","customerName":"Müller GmbH"}'),
        )
    assert cache.row_ids("customers", TableQuery(text="MÜLLER")) == []  # ASCII letters fold only
    assert cache.row_ids("customers", TableQuery(text="müller")) == ["m1", "m2"]
    assert cache.row_ids("customers", TableQuery(text="bäck")) == ["m1"]
    assert cache.get("customers", "m1") == {
        "id": "m1", "customerID": "M1", "customerName": "Bäckerei Müller"
    }  # fmt: skip


def test_ids_read_at_once_keep_their_order_and_odd_ids(cache: Cache) -> None:
    query = TableQuery(order_by="customerName", descending=True)
    assert cache.read_ids("customers", query).run() == cache.row_ids("customers", query)
    cache.upsert("customers", [{"id": "odd\x1fid", "customerID": "ODD", "customerName": "~"}])
    assert cache.read_ids("customers", query).run()[0] == "odd\x1fid"  # read row by row then
    assert cache.read_ids("customers", TableQuery(text="nothing like it")).run() == []


def test_a_filtered_first_screen_past_its_budget_gives_up_for_the_whole_list(
    cache: Cache, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cached_rows, "FIRST_SCREEN_BUDGET", 0.0)
    monkeypatch.setattr(ids_read, "_CHECK_EVERY", 100)  # look at the clock often
    rows = CachedRows(cache, "customers")
    asked: list[Callable[[], list[str]]] = []
    rows.runner = lambda work, done: (asked.append(work), done(work()))
    shown: list[tuple[list[str], bool]] = []
    query = TableQuery(order_by="customerName", text="shop 3")
    rows.requery(query, lambda *a: shown.append(a))
    assert len(asked) == 2  # the first screen gave up at once, then the whole list
    assert shown == [(cache.row_ids("customers", query), True)]
    read = cache.read_ids("customers", query, limit=FIRST_SCREEN, budget=0.0)
    assert read.run() == [] and read.gave_up and not read.cancelled


def test_a_list_of_rows_replaced_is_freed_in_the_runner_and_rows_are_found_where_they_went(
    cache: Cache, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ids handed over are kept as they are (no copy of a million ids on the GUI thread);
    the list they replace is emptied in the runner. `row_of` looks near where it found a
    record last, then everywhere."""
    monkeypatch.setattr(cached_rows, "FREED_APART", 10)
    monkeypatch.setattr(cached_rows, "FREE_SLICE", 7)
    monkeypatch.setattr(cached_rows, "NEAR", 3)
    rows = CachedRows(cache, "customers")
    asked: list[Callable[[], list[str]]] = []
    rows.runner = lambda work, done: (asked.append(work), done([]))
    shown = cache.row_ids("customers", TableQuery())
    rows.show(shown)
    queried = cache.row_ids("customers", TableQuery(order_by="id", descending=True))
    rows.show(queried)
    assert rows.ids == queried and shown and len(asked) == 2  # the lists before, to free
    assert [work() for work in asked] == [[], []] and shown == []  # emptied by the runner
    assert rows.row_of("c00005") == COUNT - 6 and rows.row_of("c00005") == COUNT - 6
    rows.show(cache.row_ids("customers", TableQuery()))
    assert rows.row_of("c00005") == 5 and rows.row_of("nope") == -1  # moved far: found
    rows.set_extra(["local-1"])
    assert rows.count == COUNT + 1 and rows.row_of("local-1") == COUNT
    rows.set_extra([])
    assert rows.count == COUNT and rows.row_of("local-1") == -1


def test_a_refresh_that_moved_no_row_keeps_the_rows_as_they_are(cache: Cache) -> None:
    """The same query read again whole (a refresh): compared in the runner with the rows
    shown; the same ids answer the very list shown (`extension` 0: nothing to reset)."""
    rows = CachedRows(cache, "customers")
    rows.runner = run_now
    shown = rows.ids
    rows.show(shown)
    answered: list[list[str]] = []
    rows.requery(rows.query, lambda ids, _complete: answered.append(ids), first_screen=False)
    assert answered[0] is shown and rows.extension(answered[0]) == 0
    cache.delete("customers", ["c00003"])
    rows.requery(rows.query, lambda ids, _complete: answered.append(ids), first_screen=False)
    assert rows.extension(answered[1]) is None and len(answered[1]) == COUNT - 1


def test_the_total_is_every_row_of_the_query_never_the_first_screen(
    cache: Cache, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 30, item 14: while a first screen is shown, an unfiltered query's total is counted
    in the cache (past `COUNTED_AT_ONCE`, in the runner: None until it says so), or known from
    its last whole list; a filtered one's is known with its whole list; extra rows count too;
    a count under way when the records change is dropped."""
    monkeypatch.setattr(cached_rows, "COUNTED_AT_ONCE", COUNT // 2)  # this resource is "big"
    rows = CachedRows(cache, "customers", first_screen=True)
    asked: list[tuple[Callable[[], list[str]], Callable[[list[str]], None]]] = []
    rows.runner = lambda work, done: asked.append((work, done))
    heard: list[str] = []
    assert rows.count == FIRST_SCREEN and not rows.complete
    assert rows.total(lambda: heard.append("counted")) is None  # counted in the runner…
    assert rows.total() is None and len(asked) == 1  # … once
    work, done = asked.pop()
    done(work())
    assert heard == ["counted"] and rows.total() == COUNT
    rows.set_extra(["new-1"])  # a record created here
    assert rows.total() == COUNT + 1

    def ready(ids: list[str], complete: bool) -> None:
        more = rows.extension(ids) if complete else None
        rows.show(ids, complete) if more is None else rows.extend(ids)

    rows.requery(TableQuery(text="Shop 3"), ready)  # a filter: its first screen, then the rest
    work, done = asked.pop(0)
    done(work())
    assert not rows.complete and rows.total() is None and not asked[1:]
    work, done = asked.pop(0)
    done(work())
    assert rows.complete and rows.total() == COUNT // 10 + 1 == rows.count

    rows.requery(TableQuery(order_by="customerName"), ready)  # unfiltered, whole list not read
    work, done = asked.pop(0)
    done(work())
    assert not rows.complete and rows.total() == COUNT + 1 and not asked[1:]  # known: no count
    rows.forget_counts()  # the records changed (a sync): counted again
    assert rows.total() is None and len(asked) == 2
    cache.upsert("customers", [{"id": "c99999", "customerID": "CU99999"}])
    rows.forget_counts()  # changed again while it counted: that count is not theirs
    count_work, count_done = asked.pop()
    count_done(count_work())
    assert heard == ["counted"]  # not said: it did not count the records as they are now
    assert rows.total(lambda: heard.append("counted")) is None and len(asked) == 2  # again
    for work, done in asked:
        done(work())
    assert heard == ["counted", "counted"]
    assert rows.complete and rows.total() == COUNT + 2 == rows.count


def test_a_small_resource_is_counted_at_once_and_a_count_stops_where_asked(
    cache: Cache,
) -> None:
    rows = CachedRows(cache, "customers", first_screen=True)
    rows.runner = lambda work, done: pytest.fail("counted in the runner")
    assert not rows.complete and rows.total() == COUNT  # fewer than COUNTED_AT_ONCE
    assert cache.count("customers", up_to=10) == 10 and cache.count("customers") == COUNT
    assert cache.count("customers", detached=True) == COUNT
