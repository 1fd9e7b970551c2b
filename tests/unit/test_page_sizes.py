"""Pages as large as the show grants (issue 31, point 5): the size asked, what a listing teaches
(`PageSizes`, app/api/page_sizes.py), and how it is said in `status` and `check`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.api.learned import Learned
from app.api.page_sizes import ASKED, FULL, LARGEST, InForce, PageSizes, pages_json, pages_lines
from app.api.page_walk import PageWalk
from app.api.registry import DEFAULT_REGISTRY, default_registry, load_registry

REGISTRY = default_registry()
CUSTOMERS, ORDERS = REGISTRY["customers"], REGISTRY["orders"]
ROWS = [{"id": f"c{i:04}", "customerID": f"C{i:04}"} for i in range(250)]


class CappedShow:
    """A bare-array show paging page/resultsPerPage that sends at most `cap` records a page and
    counts a page number's first record by the size asked (the harder reading)."""

    def __init__(self, cap: int, rows: list[dict[str, Any]] = ROWS) -> None:
        self.cap, self.rows = cap, rows
        self.sizes: list[int] = []  # resultsPerPage of each request

    async def __call__(self, query: list[tuple[str, str]]) -> Any:
        q = dict(query)
        asked, page = int(q["resultsPerPage"]), int(q["page"])
        self.sizes.append(asked)
        start = (page - 1) * asked
        return self.rows[start : start + min(asked, self.cap)]


async def listed(
    show: CappedShow, learned: Learned, requested: int | None, **options: Any
) -> list[dict[str, Any]]:
    walk = PageWalk(CUSTOMERS, learned, show, "Customers list", requested=requested, **options)
    return [record async for page in walk.pages() for record in page]


@pytest.mark.asyncio
async def test_the_size_the_show_grants_is_learned_and_asked_at_once_next_time(
    tmp_path: Path,
) -> None:
    learned = Learned(tmp_path)
    first = CappedShow(cap=100)
    assert await listed(first, learned, 1000) == ROWS
    assert first.sizes == [1000, 100, 100, 100]  # 100, 100, 50: a short page, untrusted → 1 more
    assert learned.get("paging.customers.pages") == {"asked": 1000, "largest": 100, "capped": True}
    again = CappedShow(cap=100)
    assert await listed(again, Learned(tmp_path), 1000) == ROWS  # another process of the profile
    assert again.sizes[0] == 100 and set(again.sizes) == {100}
    sizes = PageSizes(Learned(tmp_path), 1000)
    assert sizes.in_force(CUSTOMERS) == InForce(100, LARGEST)
    assert sizes.in_force(ORDERS) == InForce(1000, ASKED)  # never listed: as the profile asks


@pytest.mark.asyncio
async def test_a_page_size_set_above_what_was_asked_learns_again(tmp_path: Path) -> None:
    """Learned at 1,000 asked (the show sent 100); the profile now asks 500 — still above what
    the show sends: 100 at once. Asked 5,000 — above the 1,000 of then: the show may grant more
    now, so 5,000 is asked, and what it sends is learned anew."""
    learned = Learned(tmp_path)
    await listed(CappedShow(cap=100), learned, 1000)
    lower = CappedShow(cap=100)
    await listed(lower, learned, 500)
    assert lower.sizes[0] == 100
    higher = CappedShow(cap=300)
    assert await listed(higher, learned, 5000) == ROWS
    assert higher.sizes[0] == 5000 and higher.sizes[1] == 250  # all 250 at once, then checked
    assert learned.get("paging.customers.pages") == {"asked": 5000, "largest": 250,
                                                     "capped": False}  # fmt: skip
    assert PageSizes(learned, 5000).in_force(CUSTOMERS) == InForce(5000, ASKED)
    assert PageSizes(learned, 200).in_force(CUSTOMERS) == InForce(200, FULL)


@pytest.mark.asyncio
async def test_a_listing_at_a_size_its_caller_named_asks_it_and_teaches_what_came(
    tmp_path: Path,
) -> None:
    """`ShowClient.list(page_size=…)`: that size is asked whatever was learned; what the show
    sent is learned all the same — here pages of 50 at 50 asked: the show sends at least 50."""
    learned = Learned(tmp_path)
    await listed(CappedShow(cap=100), learned, 1000)
    show = CappedShow(cap=100)
    assert await listed(show, learned, 1000, page_size=50) == ROWS
    assert set(show.sizes) == {50}
    assert learned.get("paging.customers.pages")["largest"] == 100  # the cap of 1,000 asked kept
    fresh = Learned(tmp_path / "fresh")
    await listed(CappedShow(cap=100), fresh, 1000, page_size=50)
    assert fresh.get("paging.customers.pages") == {"asked": 50, "largest": 50, "capped": False}


@pytest.mark.asyncio
async def test_an_unfinished_listing_teaches_nothing(tmp_path: Path) -> None:
    """A show sending its first 100 whatever is asked, other ones in the other order: the
    listing is incomplete; its 100 of 1,000 asked prove no grant."""

    async def first_hundred(query: list[tuple[str, str]]) -> Any:
        desc = dict(query).get("sort", "").endswith(":desc")
        return (ROWS[::-1] if desc else ROWS)[:100]

    learned = Learned(tmp_path)
    walk = PageWalk(CUSTOMERS, learned, first_hundred, "Customers list", requested=1000)
    with pytest.raises(Exception, match="holds more than it sends"):
        [page async for page in walk.pages()]
    assert learned.get("paging.customers.pages") is None


def test_what_is_remembered_is_read_with_care(tmp_path: Path) -> None:
    learned = Learned(tmp_path)
    for junk in ("100", {"asked": "1000", "largest": 100}, {"asked": 1000, "largest": True}, []):
        learned.set("paging.customers.pages", junk)
        assert PageSizes(learned, 1000).in_force(CUSTOMERS) == InForce(1000, ASKED)
    assert PageSizes(learned).in_force(CUSTOMERS).size == CUSTOMERS.paging.page_size


def test_status_and_check_say_the_sizes_in_force(tmp_path: Path) -> None:
    learned = Learned(tmp_path)
    learned.set("paging.customers.pages", {"asked": 5000, "largest": 1000, "capped": True})
    learned.set("paging.orders.pages", {"asked": 5000, "largest": 1000, "capped": True})
    learned.set("paging.brands.pages", {"asked": 5000, "largest": 5000, "capped": False})
    learned.set("paging.vendors.pages", {"asked": 5000, "largest": 12, "capped": False})
    sizes = PageSizes(learned, 5000)
    lists = [r for r in REGISTRY if r.can("list")]
    assert pages_lines(sizes, lists) == [
        "Pages: 5,000 records asked at a time (the profile's page size)",
        "  pages of 1,000 (the largest this show grants): Customers, Order lines",
        "  pages of 5,000 as asked, sent in full on 1 list",
    ]
    assert pages_json(sizes, lists) == {
        "asked": 5000,
        "lists": {
            "customers": {"size": 1000, "known": "largest"},
            "vendors": {"size": 5000, "known": "asked"},
            "brands": {"size": 5000, "known": "full"},
            "orders": {"size": 1000, "known": "largest"},
        },
    }
    assert pages_lines(PageSizes(Learned(None), 1000), lists) == [
        "Pages: 1,000 records asked at a time (the profile's page size)"
    ]


def test_a_list_whose_own_paging_sets_a_size_is_asked_that(tmp_path: Path) -> None:
    """`[resources.orders.paging] page_size = 200` in api-overrides.toml (a list the show refuses
    larger pages on): asked 200 whatever the profile's page size, and said so; the show's grant
    below it still wins."""
    overrides = tmp_path / "api-overrides.toml"
    overrides.write_text("[resources.orders.paging]\npage_size = 200\n", encoding="utf-8")
    registry = load_registry(DEFAULT_REGISTRY, overrides)
    orders, customers = registry["orders"], registry["customers"]
    assert (orders.own_page_size, customers.own_page_size) == (200, None)
    learned = Learned(tmp_path)
    sizes = PageSizes(learned, 5000)
    assert sizes.in_force(orders) == InForce(200, ASKED)
    assert sizes.in_force(customers) == InForce(5000, ASKED)
    assert pages_lines(sizes, [orders, customers]) == [
        "Pages: 5,000 records asked at a time (the profile's page size)",
        "  pages of 200 (set for this list in its paging): Order lines",
    ]
    learned.set("paging.orders.pages", {"asked": 200, "largest": 150, "capped": True})
    assert sizes.in_force(orders) == InForce(150, LARGEST)
