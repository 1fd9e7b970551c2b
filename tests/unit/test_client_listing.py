"""ShowClient.list over odd page shapes: bare arrays, envelopes, wrapped envelopes, no paging."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

import httpx
import pytest

from app.api.envelopes import PageInfo, unwrap
from app.api.errors import InvalidValue, ListingIncomplete, RegistryError, UnexpectedResponse
from app.api.paging import PageCursor, PagingSpec
from tests.unit.test_client_fakes import json_response, make_client, records

ALL = records(1200)


def paged(shape: str = "array", cap: int | None = None, data: list[dict[str, Any]] = ALL) -> Any:
    """A server that honours `page`/`resultsPerPage` (capped at `cap`) in the given shape."""

    def route(request: httpx.Request) -> httpx.Response:
        size = int(request.url.params["resultsPerPage"])
        size = min(size, cap) if cap else size
        page = int(request.url.params["page"])
        chunk = data[(page - 1) * size : page * size]
        pages = -(-len(data) // size)
        if shape == "array":
            return json_response(chunk)
        envelope = {"items": chunk, "page": page, "totalPages": pages, "totalCount": len(data)}
        return json_response([envelope] if shape == "wrapped" else envelope)

    return route


async def pages_of(
    route: Any, *, asking: int | None = None, **options: Any
) -> tuple[list[list[dict[str, Any]]], Any]:
    """The pages of the customers list; `asking`: the profile's page size (None: the
    registry's, 1,000)."""
    client, api, _, _ = make_client(route, page_size=asking)
    async with client:
        # Pages without records only carry news about the listing (a notice, `uncertain`).
        result = [page async for page in client.list("customers", **options) if page]
    return result, api


@pytest.mark.asyncio
async def test_bare_array_pages_until_a_short_one() -> None:
    pages, api = await pages_of(paged("array"), asking=500)
    assert [len(p) for p in pages] == [500, 500, 200]
    assert [api.query(i)["page"] for i in range(3)] == ["1", "2", "3"]
    assert {api.query(i)["resultsPerPage"] for i in range(3)} == {"500"}
    assert [r["id"] for p in pages for r in p] == [r["id"] for r in ALL]


@pytest.mark.asyncio
async def test_an_exact_multiple_ends_on_the_empty_page() -> None:
    pages, api = await pages_of(paged("array", data=records(1000)), asking=500)
    assert [len(p) for p in pages] == [500, 500] and len(api.requests) == 3


@pytest.mark.parametrize("shape", ["envelope", "wrapped"])
@pytest.mark.asyncio
async def test_envelope_counters_win_over_a_server_capped_page_size(shape: str) -> None:
    pages, api = await pages_of(paged(shape, cap=100))
    assert sum(len(p) for p in pages) == 1200 and len(api.requests) == 12


@pytest.mark.parametrize("key", ["items", "data", "results", "records", "Items"])
@pytest.mark.asyncio
async def test_envelope_list_keys(key: str) -> None:
    pages, _ = await pages_of(lambda request: json_response({key: records(3), "other": 1}))
    assert [r["id"] for r in pages[0]] == ["r0", "r1", "r2"]


@pytest.mark.asyncio
async def test_has_more_false_ends_the_listing() -> None:
    def route(request: httpx.Request) -> httpx.Response:
        page = int(request.url.params["page"])
        return json_response({"data": records(2, start=page * 2), "hasMore": page < 3})

    pages, api = await pages_of(route)
    assert len(pages) == 3 and len(api.requests) == 3


@pytest.mark.asyncio
async def test_a_server_that_ignores_paging_yields_each_record_once() -> None:
    """More than asked, then the same again: everything, or only its own default page? The
    other conventions are tried once (two requests each); when none pages, the list is asked
    once more in the other order: the same records are all it has (issue 28), marked `single`
    — what the cache holds beyond them is asked for one by one before it is deleted. The
    profile remembers: the next listing takes three requests (issue 12)."""
    everything = records(700)  # more than the 500 asked
    client, api, _, _ = make_client(lambda request: json_response(everything), page_size=500)
    async with client:
        first = [page async for page in client.list("customers")]
        assert [len(p) for p in first] == [700, 0] and len(api.requests) == 9
        assert api.requests[-1].url.params["sort"] == "customerID:desc"
        again = [page async for page in client.list("customers")]
    assert [len(p) for p in again] == [700, 0] and len(api.requests) == 12
    for listing in (first, again):
        assert listing[-1].single and not listing[-1].uncertain and not listing[-1].stable


@pytest.mark.asyncio
async def test_a_server_that_sends_its_first_page_whatever_is_asked_is_incomplete() -> None:
    """The same 100 records under every paging name, other ones in the other order: the show
    holds more than it sends (issue 28)."""
    everything = records(300)

    def route(request: httpx.Request) -> httpx.Response:
        desc = request.url.params.get("sort", "").endswith(":desc")
        return json_response((everything[::-1] if desc else everything)[:100])

    client, _, _, _ = make_client(route)
    async with client:
        with pytest.raises(ListingIncomplete, match="holds more than it sends"):
            [page async for page in client.list("customers")]


@pytest.mark.asyncio
async def test_duplicates_inside_a_page_and_records_without_ids() -> None:
    page = [{"id": "a"}, {"id": "a"}, {"customerID": "X"}, {"customerID": "X"}, {"id": "b"}]
    pages, _ = await pages_of(lambda request: json_response(page))
    assert pages == [[{"id": "a"}, {"customerID": "X"}, {"id": "b"}]]


@pytest.mark.asyncio
async def test_extra_and_missing_fields_are_kept_as_sent() -> None:
    odd = [{"id": "1", "brandNewField": {"x": [1, 2]}}, {"id": "2"}]
    pages, _ = await pages_of(lambda request: json_response(odd))
    assert pages == [odd]


@pytest.mark.parametrize(
    "value", [date(2025, 5, 7), datetime(2025, 5, 7, 12, 25), "2025-05-07", "2025-05-07T12:25:00"]
)
@pytest.mark.asyncio
async def test_modified_after_is_sent_as_a_date_with_sort(value: object) -> None:
    _, api = await pages_of(
        lambda r: json_response([]), modified_after=value, sort="customerID:asc"
    )
    assert api.query()["modifiedAfter"] == "2025-05-07"
    assert api.query()["sort"] == "customerID:asc"


@pytest.mark.asyncio
async def test_a_bad_modified_after_is_refused_before_sending() -> None:
    with pytest.raises(InvalidValue) as info:
        await pages_of(lambda r: json_response([]), modified_after="last tuesday")
    assert info.value.field == "modifiedAfter"


@pytest.mark.asyncio
async def test_extra_filters_go_to_the_query_string() -> None:
    client, api, _, _ = make_client(lambda r: json_response([]))
    async with client:
        await client.list_all("orders", params={"customerid": "C1", "status": None})
    assert api.query() == {
        "customerid": "C1",
        "sort": "orderLineID:asc",
        "page": "1",
        "resultsPerPage": "1000",  # the registry's page size (a profile sets its own)
    }


@pytest.mark.asyncio
async def test_booth_lists_are_listed_per_booth() -> None:
    client, api, _, _ = make_client(lambda r: json_response(records(2)))
    async with client:
        rows = await client.list_all("booth-products", parent="B 7", page_size=50)
        with pytest.raises(RegistryError):
            await client.list_all("booth-products")
    assert len(rows) == 2
    assert api.last.url.path == "/api/v1/BoothProduct"
    assert api.query(0) == {
        "boothID": "B 7",
        "sort": "productID:asc",
        "page": "1",
        "resultsPerPage": "50",
    }


@pytest.mark.parametrize(
    "response",
    [
        httpx.Response(200, text="[{broken json", headers={"content-type": "application/json"}),
        httpx.Response(200, text="<html><body>Login</body></html>"),
        httpx.Response(200, json={"unexpected": "object"}),
        httpx.Response(200, json=[1, 2, 3]),
    ],
)
@pytest.mark.asyncio
async def test_unreadable_pages_are_unexpected_responses(response: httpx.Response) -> None:
    with pytest.raises(UnexpectedResponse) as info:
        await pages_of(lambda request: response)
    assert "Customers list" in str(info.value)


def test_page_info_reads_nested_and_next_link_counters() -> None:
    assert PageInfo.of({"pagination": {"totalPages": 4, "currentPage": 2}}) == PageInfo(
        None, None, 4, 2
    )
    assert PageInfo.of({"next": None}).has_more is False
    assert PageInfo.of({"nextLink": "/Customer?page=3"}).has_more is True


def test_cursor_on_an_empty_body_and_a_single_record() -> None:
    cursor = PageCursor(PagingSpec(page_size=10), "test")
    assert cursor.take(None) == [] and cursor.done
    assert unwrap({"id": "x", "items": [1]}, "t")[0] == [{"id": "x", "items": [1]}]


@pytest.mark.asyncio
async def test_a_link_header_is_followed_on_the_show_and_refused_off_it() -> None:
    """`Link: <…>; rel="next"` (relative or absolute, issue 28): followed as given; a link to
    another host is never asked (the token would go with it)."""
    everything = records(250)

    def route(request: httpx.Request) -> httpx.Response:
        after = request.url.params.get("after", "")  # a key cursor: after this customer
        start = len([r for r in everything if r["customerID"] <= after])
        answer = json_response(everything[start : start + 100])
        if start + 100 < len(everything):
            last = everything[start + 99]["customerID"]
            answer.headers["Link"] = f'<Customer?after={last}>; rel="next"'
        return answer

    client, api, _, _ = make_client(route)
    async with client:
        pages = [page async for page in client.list("customers")]
    assert sum(len(p) for p in pages) == 250 and len(api.requests) == 3
    assert pages[-1].stable  # a link walk by key cannot shift: what it lacks is gone

    def elsewhere(request: httpx.Request) -> httpx.Response:
        answer = json_response(everything[:100])
        answer.headers["Link"] = '<https://evil.example/Customer?after=100>; rel="next"'
        return answer

    with pytest.raises(UnexpectedResponse, match="another host"):
        await pages_of(elsewhere)


class Changing:
    """A `modifiedAfter` listing of customers while teammates push: the records changed since
    the date asked (each with its `modifiedDate`), in `customerID` order; `when` (the request's
    number, 1-based, and its query) says before which request a teammate's edit lands — a record
    changed then comes into the list. `paging`: the show follows `page`/`resultsPerPage`;
    without, it sends the whole list whatever page is asked."""

    def __init__(
        self, when: Any, *, paging: bool, cap: int | None = None, coming: int = 50
    ) -> None:
        self.changed = {i: "2026-03-02T10:00:00" for i in range(0, 100, 3)}  # 34 records
        self.when, self.paging, self.cap, self.asked = when, paging, cap, 0
        self.coming = coming  # the record a teammate changes (50: between two listed ones)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.asked += 1
        params = request.url.params
        if self.when(self.asked, params):
            self.changed[self.coming] = "2026-03-02T10:00:07"
        ids = sorted(self.changed, reverse=params.get("sort", "").endswith(":desc"))
        if self.paging and "page" in params:
            size = int(params["resultsPerPage"])
            ids = ids[(int(params["page"]) - 1) * size : int(params["page"]) * size]
        ids = ids[: self.cap] if self.cap else ids
        body = [{"id": f"r{i}", "customerID": f"C{i:03d}", "modifiedDate": self.changed[i]}
                for i in ids]  # fmt: skip
        return json_response(body)


async def listed_changing(show: Changing) -> tuple[list[Any], Any]:
    client, api, _, _ = make_client(show)
    async with client:
        pages = [page async for page in client.list("customers", modified_after="2026-03-01")]
        asked_next = client.page_size("customers")
    return pages, (api, asked_next)


@pytest.mark.asyncio
async def test_a_one_answer_listing_takes_in_a_record_changed_while_it_was_read() -> None:
    """A show that sends its whole `modifiedAfter` list whatever page is asked, read once more
    in the other order to prove it: a teammate's edit between the two reads brings a record
    into the list. The second read holds every record of the first and that one, changed after
    all of them: the list changed while it was read, not a show holding more than it sends
    (a push's check said "pushed changes not checked"). The record is handed out too."""
    show = Changing(lambda _, params: params.get("sort", "").endswith(":desc"), paging=False)
    pages, (api, _) = await listed_changing(show)
    ids = [r["id"] for page in pages for r in page]
    assert sorted(ids) == sorted(f"r{i}" for i in show.changed) and len(ids) == len(set(ids))
    assert pages[-1].single and "r50" in [r["id"] for r in pages[-1]]
    assert api.requests[-1].url.params["sort"] == "customerID:desc"


@pytest.mark.asyncio
async def test_a_capped_answer_is_still_found_out_while_the_list_changes() -> None:
    """The same, from a show that sends its first 20 records whatever is asked: the other
    order sends 20 others, not all of the first and more — it holds more than it sends, edit
    in between or not."""
    show = Changing(lambda _, params: params.get("sort", "").endswith(":desc"), paging=False,
                    cap=20)  # fmt: skip
    with pytest.raises(ListingIncomplete, match="holds more than it sends"):
        await listed_changing(show)


@pytest.mark.asyncio
async def test_a_page_pushed_on_by_a_record_that_came_in_is_the_lists_tail() -> None:
    """A show that pages: its first page (34 of the 1,000 asked) is proved whole by asking
    page 2 at 34; a teammate's edit before that brings a record in ahead of the last one, which
    page 2 then holds again. That is the list changing while it was read — the last record
    pushed on, nothing skipped — not a show that ignores paging (no other paging names tried)
    nor one that grants only 34 a page (the next listing still asks 1,000)."""
    show = Changing(lambda n, _: n == 2, paging=True)
    pages, (api, asked_next) = await listed_changing(show)
    ids = [r["id"] for page in pages for r in page]
    assert len(ids) == len(set(ids)) == 34 and "r99" in ids
    assert [dict(r.url.params)["page"] for r in api.requests] == ["1", "2", "3"]
    assert asked_next == 1_000


@pytest.mark.asyncio
async def test_a_record_that_came_in_after_the_first_page_proves_no_cap() -> None:
    """The same, the record changed sorting after every listed one: page 2 (asked at 34) holds
    it, new, changed after everything page 1 held. A show that sends at most 34 a page would
    look the same, so nothing is learned from this listing: the next asks 1,000 again (it
    learned a cap of 34, and a team's checks went on in pages of 34)."""
    show = Changing(lambda n, _: n == 2, paging=True, coming=200)
    pages, (api, asked_next) = await listed_changing(show)
    ids = [r["id"] for page in pages for r in page]
    assert len(ids) == len(set(ids)) == 35 and "r200" in ids
    assert [dict(r.url.params)["page"] for r in api.requests] == ["1", "2", "3"]
    assert asked_next == 1_000
