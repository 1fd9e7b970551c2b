"""Pages asked ahead (app/api/pages_ahead.py) through PageWalk over a fake show: several pages in
flight, the cursor's proof unchanged — the same records, endings and errors as a walk that asks
each page after the last, the last page asked alone, nothing asked ahead left running."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from app.api.errors import ListingIncomplete, NotFound
from app.api.learned import Learned
from app.api.page_walk import PageWalk
from app.api.pages_ahead import PagesAhead
from app.api.paging import PageCursor, PagingSpec
from app.api.registry import default_registry

CUSTOMERS = default_registry()["customers"]
ROWS = [{"id": f"c{i:03}", "customerID": f"C{i:03}"} for i in range(30)]
SIZE = 5


class Show:
    """Pages `rows()` by `page`/`resultsPerPage` (or `offset`/`limit`; other names: the first
    page) with a total; each answer
    takes a few turns of the loop, so pages asked together are in flight together. `shape` may
    change an answer: (query, records, total) → the answer's JSON, or raise."""

    def __init__(self, rows: Callable[[], list[dict[str, Any]]] | None = None) -> None:
        self.rows = rows or (lambda: ROWS)
        self.asked: list[dict[str, str]] = []
        self.in_flight = 0
        self.most_in_flight = 0
        self.others_in_flight: list[int] = []  # per request, how many others were in flight
        self.running: set[asyncio.Task[Any]] = set()
        self.shape: Callable[[dict[str, str], list[dict[str, Any]], int], Any] | None = None

    async def __call__(self, query: list[tuple[str, str]]) -> Any:
        q = dict(query)
        self.asked.append(q)
        self.others_in_flight.append(self.in_flight)
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        task = asyncio.current_task()
        assert task is not None
        self.running.add(task)
        try:
            for _ in range(3):
                await asyncio.sleep(0)
            rows = self.rows()
            per = int(q.get("resultsPerPage", q.get("limit", SIZE)))
            start = int(q["offset"]) if "offset" in q else (int(q.get("page", 1)) - 1) * per
            page = rows[start : start + per]
            if self.shape is not None:
                return self.shape(q, page, len(rows))
            return {"data": page, "totalCount": len(rows)}
        finally:
            self.in_flight -= 1
            self.running.discard(task)


def walk(show: Show, tmp_path: Path, at_once: int, spec: PagingSpec | None = None) -> PageWalk:
    res = CUSTOMERS if spec is None else _with(spec)
    return PageWalk(res, Learned(tmp_path / f"l{at_once}"), show, "Customers list",
                    page_size=SIZE, prove_end=True, pages_at_once=at_once)  # fmt: skip


def _with(spec: PagingSpec) -> Any:
    from dataclasses import replace

    return replace(CUSTOMERS, paging=spec)


async def outcome(listing: PageWalk) -> tuple[Any, ...]:
    """What a walk ended with: its records, each page's total and ending marks; or its error."""
    rows: list[dict[str, Any]] = []
    marks = []
    try:
        async for page in listing.pages():
            rows += page
            marks.append((page.total, page.stable, page.uncertain, page.single))
    except (ListingIncomplete, NotFound) as exc:
        return ("error", type(exc).__name__, exc.message, len(rows))
    return ("whole", rows, marks)


@pytest.mark.asyncio
async def test_pages_are_asked_together_and_taken_in_order(tmp_path: Path) -> None:
    show = Show()
    kind, rows, marks = await outcome(walk(show, tmp_path, 3))
    assert kind == "whole" and rows == ROWS and [total for total, *_ in marks] == [30] * 6
    assert 2 <= show.most_in_flight <= 3
    assert [q["page"] for q in show.asked] == ["1", "2", "3", "4", "5", "6"]  # each once, no more
    assert show.others_in_flight[0] == 0  # the first page alone: its total says what follows
    assert not show.running


@pytest.mark.asyncio
async def test_one_at_a_time_asks_nothing_ahead(tmp_path: Path) -> None:
    show = Show()
    await outcome(walk(show, tmp_path, 1))
    assert show.most_in_flight == 1


@pytest.mark.asyncio
async def test_a_page_asked_while_another_is_in_flight_is_not_settled() -> None:
    """What keeps a listing that ends on such a page from being marked stable (page_walk.py)."""
    gate = asyncio.Event()

    async def ask(query: list[tuple[str, str]]) -> Any:
        await gate.wait()
        return dict(query)

    ahead = PagesAhead(ask, at_once=3, known=True)
    cursor = PageCursor(PagingSpec(page_size=SIZE), "Customers list")
    cursor.take({"data": ROWS[:SIZE], "totalCount": len(ROWS)})
    ahead.plan(cursor, SIZE)  # pages 2, 3 and 4 asked together
    gate.set()
    answers = [await ahead.answer(PagingSpec(page_size=SIZE).query(n)) for n in (2, 3, 4)]
    assert [settled for _, settled in answers] == [True, False, False]
    assert (await ahead.answer(PagingSpec(page_size=SIZE).query(9)))[1]  # asked alone
    await ahead.close()


@pytest.mark.asyncio
async def test_a_page_not_foreseen_drops_what_was_asked_ahead() -> None:
    asked: list[str] = []
    started = asyncio.Event()

    async def ask(query: list[tuple[str, str]]) -> Any:
        asked.append(dict(query)["offset"])
        started.set()
        await asyncio.Event().wait()  # never answers: only a drop ends it

    ahead = PagesAhead(ask, at_once=3, known=True)
    spec = PagingSpec(style="offset", size_param="limit", page_size=SIZE)
    cursor = PageCursor(spec, "Customers list")
    cursor.take({"data": ROWS[:SIZE], "totalCount": len(ROWS)})
    ahead.plan(cursor, SIZE)
    await started.wait()
    held = list(ahead._asked.values())
    ahead._ask = lambda query: _answered(query)
    answer, settled = await ahead.answer(spec.query(7))  # a short page moved the offsets
    assert answer == {"offset": "7", "limit": "5"} and settled
    assert all(h.task.cancelled() for h in held)


async def _answered(query: list[tuple[str, str]]) -> Any:
    return dict(query)


def deleting_after(first: int) -> Callable[[], list[dict[str, Any]]]:
    """Rows that lose their first 7 once `first` answers were read (deleted meanwhile)."""
    calls = [0]

    def rows() -> list[dict[str, Any]]:
        calls[0] += 1
        return ROWS if calls[0] <= first else ROWS[7:]

    return rows


def not_found_past(q: dict[str, str], page: list[dict[str, Any]], total: int) -> Any:
    if not page:
        raise NotFound("Invalid page.")
    return {"data": page, "totalCount": total}


def repeating(q: dict[str, str], page: list[dict[str, Any]], total: int) -> Any:
    return {"data": ROWS[:SIZE], "totalCount": total}  # ignores the page asked


def no_total(q: dict[str, str], page: list[dict[str, Any]], total: int) -> Any:
    return page  # a bare array: nothing to ask ahead by


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("name", "rows", "shape", "spec"),
    [
        ("whole", None, None, None),
        ("deleted meanwhile", 2, None, None),
        ("deleted meanwhile, 404 past the end", 2, not_found_past, None),
        ("the pages repeat", None, repeating, None),
        ("a bare array", None, no_total, None),
        ("offsets", None, None, PagingSpec(style="offset", size_param="limit", page_size=SIZE)),
        ("offsets, deleted", 3, None, PagingSpec(style="offset", size_param="limit")),
    ],
)
async def test_asked_ahead_or_not_a_listing_ends_the_same(
    tmp_path: Path, name: str, rows: int | None, shape: Any, spec: PagingSpec | None
) -> None:
    """Whatever the show does, a walk that asks ahead ends as one that does not: the same
    records, the same marks (complete, stable), the same error."""
    ended, asked = [], []
    for at_once in (1, 3):
        show = Show(deleting_after(rows) if rows else None)
        show.shape = shape
        ended.append(await outcome(walk(show, tmp_path, at_once, spec)))
        asked.append(len(show.asked))
        assert not show.running
    assert ended[0] == ended[1], name
    assert asked[1] <= asked[0] + 1, name  # at most one page asked ahead for nothing


@pytest.mark.asyncio
async def test_nothing_is_asked_ahead_until_a_second_page_differs(tmp_path: Path) -> None:
    """A show that ignores these paging names answers every page the same: what the first
    page's total foresees is not asked ahead until the second page shows the names work."""
    show = Show()
    show.shape = repeating
    await outcome(walk(show, tmp_path, 3))
    assert show.most_in_flight == 1


@pytest.mark.asyncio
async def test_a_walk_stopped_by_its_reader_leaves_nothing_in_flight(tmp_path: Path) -> None:
    show = Show()
    pages = walk(show, tmp_path, 3).pages()
    async for _ in pages:
        break  # a sync cancelled after its first page
    await pages.aclose()
    assert not show.running and show.in_flight == 0
