"""PageWalk (app/api/page_walk.py) over a fake fetch: conventions tried, refusals, learning."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from app.api.errors import BadRequest, ListingIncomplete
from app.api.learned import Learned
from app.api.page_walk import PageWalk
from app.api.paging import PagingSpec
from app.api.registry import default_registry

CUSTOMERS = default_registry()["customers"]
ROWS = [{"id": f"c{i:03}", "customerID": f"C{i:03}"} for i in range(30)]


class Show:
    """Answers like a show that pages with `names` only (0-based offsets for offset/skip),
    refuses (400) the names in `refused`, and serves `default` records when it does not
    understand the paging names it is given."""

    def __init__(self, names: tuple[str, str], default: int = 10, refused: tuple[str, ...] = ()):
        self.names, self.default, self.refused = names, default, refused
        self.asked: list[dict[str, str]] = []

    async def __call__(self, query: list[tuple[str, str]]) -> Any:
        q = dict(query)
        self.asked.append(q)
        if any(name in q for name in self.refused):
            raise BadRequest("unknown parameter")
        first, size = self.names
        if first not in q or size not in q:
            return {"data": ROWS[: self.default], "totalCount": len(ROWS)}
        per = int(q[size])
        start = int(q[first]) if first in ("offset", "skip") else (int(q[first]) - 1) * per
        return {"data": ROWS[start : start + per], "totalCount": len(ROWS)}


async def run(listing: PageWalk) -> tuple[list[dict[str, Any]], list[str]]:
    rows, notices = [], []
    async for page in listing.pages():
        rows += page
        notices += [page.notice] if page.notice else []
    return rows, notices


def listing(show: Show, learned: Learned, res: Any = CUSTOMERS) -> PageWalk:
    return PageWalk(res, learned, show, "Customers list (GET /Customer)", page_size=10)


@pytest.mark.asyncio
async def test_a_convention_answered_400_is_passed_over(tmp_path: Path) -> None:
    show = Show(("skip", "take"), refused=("pageNumber",))
    rows, notices = await run(listing(show, Learned(tmp_path)))
    assert rows == ROWS
    assert notices == ["Customers: this show pages with skip/take; remembered"]
    assert any("pageNumber" in q for q in show.asked)


@pytest.mark.asyncio
async def test_none_works_names_every_convention_tried(tmp_path: Path) -> None:
    with pytest.raises(ListingIncomplete) as info:
        await run(listing(Show(("p", "n")), Learned(tmp_path)))
    text = info.value.message
    assert text.startswith("Customers: the show says 30 records, 10 arrived")
    for label in ("page/resultsPerPage", "pageNumber/pageSize", "offset/limit", "skip/take"):
        assert label in text


@pytest.mark.asyncio
async def test_a_changed_configuration_forgets_what_was_learned(tmp_path: Path) -> None:
    learned = Learned(tmp_path)
    await run(listing(Show(("pageNumber", "pageSize")), learned))
    assert learned.get("paging.customers")["convention"]["page_param"] == "pageNumber"
    configured = replace(CUSTOMERS, paging=PagingSpec(style="offset", size_param="limit"))
    show = Show(("offset", "limit"))
    rows, notices = await run(listing(show, learned, configured))
    assert rows == ROWS and notices == []
    assert show.asked[0]["offset"] == "0"  # what the profile now says, not what was learned


@pytest.mark.asyncio
async def test_a_sort_the_caller_asked_for_is_never_dropped(tmp_path: Path) -> None:
    async def refuse(query: list[tuple[str, str]]) -> Any:
        raise BadRequest("sort: no such field")

    given = PageWalk(CUSTOMERS, Learned(tmp_path), refuse, "x", sort="city:desc")
    with pytest.raises(BadRequest):
        await run(given)
    assert Learned(tmp_path).get("paging.customers.sort") is None


class Churning(Show):
    """A show paging with page/resultsPerPage whose list changes while it is read: `changes`
    times, after answering a first page, a record whose key sorts first is created."""

    def __init__(self, changes: int) -> None:
        super().__init__(("page", "resultsPerPage"))
        self.rows, self.changes = list(ROWS), changes

    async def __call__(self, query: list[tuple[str, str]]) -> Any:
        q = dict(query)
        self.asked.append(q)
        per, page = int(q["resultsPerPage"]), int(q["page"])
        answer = {"data": self.rows[(page - 1) * per : page * per], "totalCount": len(self.rows)}
        if page == 1 and self.changes:
            self.changes -= 1
            n = len(self.rows)
            self.rows.insert(0, {"id": f"a{n:03}", "customerID": f"A{n:03}"})
        return answer


@pytest.mark.asyncio
async def test_a_list_that_changed_while_it_was_read_is_read_again_not_taken_for_paging(
    tmp_path: Path,
) -> None:
    learned = Learned(tmp_path)
    await run(listing(Show(("page", "resultsPerPage")), learned))  # these names page the list
    show = Churning(changes=1)

    rows, notices = await run(listing(show, learned))

    assert sorted(r["id"] for r in rows) == sorted(r["id"] for r in show.rows)  # each once
    assert len(rows) == len(ROWS) + 1 and notices == []
    assert all("page" in q for q in show.asked)  # no other convention tried


@pytest.mark.asyncio
async def test_a_list_that_keeps_changing_is_incomplete_and_says_so(tmp_path: Path) -> None:
    learned = Learned(tmp_path)
    await run(listing(Show(("page", "resultsPerPage")), learned))

    with pytest.raises(ListingIncomplete) as info:
        await run(listing(Churning(changes=2), learned))

    assert "kept changing while it was read" in info.value.message
    assert "paging" not in info.value.message  # the show's paging names are not in doubt
