"""PageCursor's decisions (pure), the `[paging]` tables of the registry, and their checks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.api.errors import RegistryError
from app.api.paging import CONVENTIONS, PageCursor, PagingSpec, alternatives, parse_paging
from app.api.registry import DEFAULT_REGISTRY, load_registry


def rows(start: int, count: int) -> list[dict[str, Any]]:
    return [{"id": f"r{i}"} for i in range(start, start + count)]


def cursor(size: int = 10, *, trust: bool = True, **spec: Any) -> PageCursor:
    return PageCursor(PagingSpec(page_size=size, **spec), "Customers list", title="Customers",
                      trust_short=trust)  # fmt: skip


def feed(c: PageCursor, *pages: Any) -> list[int]:
    """Hand pages to the cursor until it is done; the number of new records of each."""
    taken = []
    for page in pages:
        assert not c.done, "asked for a page after the end"
        taken.append(len(c.take(page)))
    return taken


def test_full_pages_then_a_short_one_end_a_trusted_bare_listing() -> None:
    c = cursor()
    assert feed(c, rows(0, 10), rows(10, 10), rows(20, 3)) == [10, 10, 3]
    assert c.done and c.complete and not c.unsure and c.proved_paging


def test_an_untrusted_short_page_is_checked_with_one_more() -> None:
    """The page after a short first one is asked at the first page's size (issue 31, point 5):
    it starts where page 1 ended however the show counts its offset."""
    c = cursor(trust=False)
    feed(c, rows(0, 4))
    assert not c.done and c.query() == [("page", "2"), ("resultsPerPage", "4")]
    feed(c, [])
    assert c.complete and c.proved_paging and not c.capped
    assert c.granted is None  # an empty page 2: the list held 4, nothing learned of the show


def test_a_server_serving_fewer_than_asked_is_followed_to_an_empty_page() -> None:
    """4 of 10 asked, then more: the show grants 4, and every later page is asked so."""
    c = cursor(trust=False)
    pages = [rows(0, 4), rows(4, 4), rows(8, 2), []]
    queries = []
    for page in pages:
        queries.append(c.query())
        c.take(page)
    assert c.complete and c.count == 10 and c.granted == 4 and c.asked == 10
    assert [q[1] for q in queries] == [("resultsPerPage", "10")] + [("resultsPerPage", "4")] * 3
    assert [q[0] for q in queries] == [("page", str(n)) for n in (1, 2, 3, 4)]
    assert not c.capped  # its short first page is explained: the show's largest page


def test_pages_shorter_than_the_granted_size_then_more_prove_nothing() -> None:
    """A short page followed by more, after the size was set from the first page: short
    pages do not end this list (`capped`), an empty one does."""
    c = cursor(trust=False)
    assert feed(c, rows(0, 4), rows(4, 3), rows(7, 4), rows(11, 1), []) == [4, 3, 4, 1, 0]
    assert c.complete and c.capped and c.granted == 4


def test_a_total_that_is_reached_ends_the_listing() -> None:
    c = cursor()
    feed(c, {"data": rows(0, 10), "totalCount": 15}, {"data": rows(10, 5), "totalCount": 15})
    assert c.complete and c.total == 15


def test_a_total_short_of_its_records_under_repeated_pages_is_incomplete() -> None:
    c = cursor(size=500)
    page = {"data": rows(0, 50), "totalCount": 400}
    assert feed(c, page, page) == [50, 0]
    assert c.done and not c.complete
    assert c.problem == "Customers: the show says 400 records, 50 arrived"


def test_an_empty_page_before_the_total_is_incomplete() -> None:
    c = cursor()
    feed(c, {"items": rows(0, 10), "total": 30}, {"items": [], "total": 30})
    assert c.done and not c.complete and "30 records, 10 arrived" in (c.problem or "")


def test_a_server_capping_the_page_size_under_a_total_is_followed() -> None:
    c = cursor(size=500)
    feed(c, *({"items": rows(i, 100), "totalItems": 250} for i in (0, 100)))
    assert not c.done
    feed(c, {"items": rows(200, 50), "totalItems": 250})
    assert c.complete and c.count == 250


def test_full_pages_that_repeat_without_a_total_are_incomplete() -> None:
    c = cursor()
    feed(c, rows(0, 10), rows(0, 10))
    assert c.done and not c.complete
    assert c.problem == "Customers: the pages repeat after 10 records"


@pytest.mark.parametrize("first", [rows(0, 4), rows(0, 25)], ids=["fewer", "more"])
def test_a_repeat_after_fewer_or_more_than_asked_is_complete_but_unsure(first: Any) -> None:
    c = cursor(trust=False)
    feed(c, first, first)
    assert c.complete and c.unsure and not c.proved_paging


def test_more_than_asked_then_new_records_is_followed() -> None:
    c = cursor()
    assert feed(c, rows(0, 25), rows(25, 5), []) == [25, 5, 0]
    assert c.complete and not c.unsure


def test_counters_end_the_listing() -> None:
    more = cursor()
    feed(more, {"items": rows(0, 10), "hasMore": True}, {"items": rows(10, 10), "hasMore": False})
    assert more.complete
    pages = cursor()
    feed(pages, {"items": rows(0, 10), "totalPages": 2}, {"items": rows(10, 10), "totalPages": 2})
    assert pages.complete


def test_counters_contradicted_by_an_empty_page_are_incomplete() -> None:
    more = cursor()
    feed(more, {"items": rows(0, 10), "hasMore": True}, {"items": [], "hasMore": True})
    assert more.done and not more.complete and "says more follow" in (more.problem or "")
    pages = cursor()
    feed(pages, {"items": rows(0, 10), "totalPages": 3}, {"items": [], "totalPages": 3})
    assert not pages.complete and pages.problem == "Customers: the show says 3 pages, 1 arrived"


def test_offsets_count_records_received_from_zero() -> None:
    c = cursor(style="offset", offset_param="skip", size_param="take")
    assert c.query() == [("skip", "0"), ("take", "10")]
    feed(c, rows(0, 10))
    assert c.query() == [("skip", "10"), ("take", "10")]
    feed(c, rows(10, 6))  # a server capped at 6: the next offset follows what arrived
    assert c.query() == [("skip", "16"), ("take", "10")]


def test_named_items_and_total_keys() -> None:
    c = cursor(items_key="payload.rows", total_key="payload.meta.count")
    feed(c, {"payload": {"rows": rows(0, 10), "meta": {"count": 12}}})
    assert c.total == 12 and not c.done


def test_records_already_handed_out_by_another_convention_are_not_repeated() -> None:
    delivered: set[str] = set()
    first = PageCursor(PagingSpec(page_size=5), "x", delivered=delivered)
    first.take(rows(0, 5))
    second = PageCursor(PagingSpec(page_size=5), "x", delivered=delivered)
    assert second.take(rows(0, 5)) == [] and second.take(rows(5, 2)) == rows(5, 2)
    assert second.count == 7 and second.done  # short, trusted


def test_alternatives_are_the_other_common_conventions_with_the_same_size() -> None:
    spec = PagingSpec(page_size=50, items_key="rows")
    alts = alternatives(spec)
    assert [a.label for a in alts] == ["pageNumber/pageSize", "offset/limit", "skip/take"]
    assert {a.page_size for a in alts} == {50} and {a.items_key for a in alts} == {"rows"}
    assert len(alternatives(CONVENTIONS[2])) == 3


def test_parse_paging_over_a_base() -> None:
    base = parse_paging({"page_size": 200}, "[paging]")
    spec = parse_paging({"page_param": "pageNumber", "size_param": "pageSize"}, "res", base)
    assert (spec.label, spec.page_size, spec.first_page) == ("pageNumber/pageSize", 200, 1)


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        ({"style": "cursor"}, "paging.style must be 'page', 'offset' or 'link'"),
        ({"pagesize": 10}, "unknown paging field(s) pagesize"),
        ({"page_size": "50"}, "paging.page_size must be a int"),
        ({"page_size": 0}, "paging.page_size must be between 1 and"),
        ({"first_page": -1}, "paging.first_page must be 0 or more"),
        ({"page_param": "n", "size_param": "n"}, "must differ"),
        ({"size_param": " "}, "paging.size_param must not be empty"),
        ({"first_page": True}, "paging.first_page must be a int"),
    ],
)
def test_bad_paging_tables_say_what_is_wrong(raw: dict[str, Any], words: str) -> None:
    with pytest.raises(RegistryError) as info:
        parse_paging(raw, "resource customers")
    assert words in str(info.value) and "resource customers" in str(info.value)


def test_the_registry_pages_every_list_as_documented_by_default() -> None:
    registry = load_registry()
    assert registry.paging == PagingSpec()
    assert {r.paging for r in registry} == {PagingSpec()}


def test_overrides_set_show_wide_and_per_resource_paging(tmp_path: Path) -> None:
    overrides = tmp_path / "api-overrides.toml"
    overrides.write_text(
        '[paging]\npage_param = "pageNumber"\nsize_param = "pageSize"\npage_size = 100\n'
        '[resources.customers.paging]\nstyle = "offset"\noffset_param = "skip"\n'
        'size_param = "take"\nitems_key = "data"\ntotal_key = "totalCount"\n',
        encoding="utf-8",
    )
    registry = load_registry(DEFAULT_REGISTRY, overrides)
    assert registry["attendees"].paging.label == "pageNumber/pageSize"
    customers = registry["customers"].paging
    assert (customers.label, customers.page_size, customers.total_key) == ("skip/take", 100,
                                                                         "totalCount")  # fmt: skip


def test_a_bad_override_is_a_registry_error(tmp_path: Path) -> None:
    overrides = tmp_path / "api-overrides.toml"
    overrides.write_text('[resources.customers.paging]\nstyle = "pages"\n', encoding="utf-8")
    with pytest.raises(RegistryError, match=r"resource customers: paging\.style"):
        load_registry(DEFAULT_REGISTRY, overrides)


# ------------------------------------------------------------ issue 28: the server leads


def test_a_next_url_in_the_body_is_followed_and_its_end_is_stable() -> None:
    """`{"items": …, "next": URL}`: the URL is what is asked next; the page naming none ends a
    walk that cannot have shifted. Page numbers ending on a short page do not prove that."""
    c = cursor()
    c.take({"items": rows(0, 10), "next": "https://show/Customer?after=r9"})
    assert c.following and c.next_url == "https://show/Customer?after=r9" and not c.done
    c.take({"items": rows(10, 4), "next": None})
    assert c.done and c.complete and c.stable and c.count == 14
    numbered = cursor()
    feed(numbered, rows(0, 10), rows(10, 3))
    assert numbered.complete and not numbered.stable


@pytest.mark.parametrize(
    "first, second",
    [
        ({"next": "/C?offset=10&limit=10"}, {"next": "/C?offset=20&limit=10"}),  # offsets
        ({"next": "/C?p=2"}, {"next": "/C?p=3"}),  # page numbers, 1-based
        ({"next": "/C?page=1&pageSize=10"}, {"next": "/C?page=2&pageSize=10"}),  # 0-based
        ({"nextPageToken": "10"}, {"nextPageToken": "20"}),  # a token that is an offset
    ],
)
def test_a_next_link_that_only_counts_can_shift_and_is_not_stable(
    first: dict[str, str], second: dict[str, str]
) -> None:
    """Issue 28, found by the server-shape property (tests/e2e/test_shape_space.py): a next
    link holding an offset or a page number shifts under a deletion like page numbers do."""
    c = cursor()
    c.take({"items": rows(0, 10), **first})
    c.take({"items": rows(10, 10), **second})
    c.take({"items": rows(20, 3)})
    assert c.done and c.complete and not c.stable
    keyed = cursor()
    keyed.take({"items": rows(0, 10), "nextPageToken": "eyJrIjoicjkifQ"})
    keyed.take({"items": rows(10, 3)})
    assert keyed.done and keyed.complete and keyed.stable


def test_a_link_header_leads_even_over_a_bare_array() -> None:
    c = cursor()
    c.take(rows(0, 10), link="/Customer?after=r9")
    assert c.next_url == "/Customer?after=r9"
    c.take(rows(10, 10))
    assert c.done and c.complete and c.stable


@pytest.mark.parametrize(
    "envelope, param",
    [
        ({"customers": rows(0, 10), "nextPageToken": "abc"}, "pageToken"),
        ({"data": rows(0, 10), "meta": {"next_cursor": "abc"}}, "cursor"),
        ({"results": rows(0, 10), "continuationToken": "abc"}, "continuationToken"),
    ],
)
def test_a_token_goes_back_under_the_name_it_came_by(envelope: Any, param: str) -> None:
    c = cursor()
    assert len(c.take(envelope)) == 10  # the list under whichever single key holds it
    assert c.next_url is None and (param, "abc") in c.query()
    assert not any(name == "page" for name, _ in c.query())


def test_a_configured_cursor_param_and_the_link_style() -> None:
    c = cursor(style="link", cursor_param="after")
    assert c.query() == [("resultsPerPage", "10")]  # the first page: the size only
    c.take({"items": rows(0, 10), "nextPageToken": "t1"})
    assert ("after", "t1") in c.query()
    c.take({"items": rows(10, 2)})
    assert c.done and c.complete and c.stable
    spec = parse_paging({"style": "link", "cursor_param": "after"}, "x")
    assert spec.names == ("after", "resultsPerPage")


def test_a_next_link_named_twice_or_pages_repeating_is_incomplete() -> None:
    looped = cursor()
    looped.take({"items": rows(0, 10), "next": "/C?p=2"})
    looped.take({"items": rows(10, 10), "next": "/C?p=2"})
    assert looped.done and not looped.complete and "same next page" in (looped.problem or "")
    repeating = cursor()
    repeating.take({"items": rows(0, 10), "next": "/C?p=2"})
    repeating.take({"items": rows(0, 10), "next": "/C?p=3"})
    assert repeating.done and not repeating.complete


def test_a_page_past_the_end_is_the_end_and_a_total_read_alike_twice_proves_no_stability() -> None:
    c = cursor(trust=False)
    c.take(rows(0, 10))
    c.past_end()  # the 404 of the page after the last
    assert c.done and c.complete and not c.stable
    agreed = cursor()  # (a record created at the end and one deleted early keep the total)
    agreed.take({"items": rows(0, 10), "total": 15})
    agreed.take({"items": rows(10, 5), "total": 15})
    assert agreed.complete and not agreed.stable
    shifted = cursor()
    shifted.take({"items": rows(0, 10), "total": 15})
    shifted.take({"items": rows(11, 4), "total": 14})  # one deleted meanwhile
    assert shifted.complete and not shifted.stable


def test_an_unknown_shape_says_what_was_seen() -> None:
    with pytest.raises(Exception, match="got an object with keys status, payload"):
        cursor().take({"status": "ok", "payload": {"rows": 3}})


# ------------------------------------------- issue 31, point 5: pages as large as the show grants


def show_page(
    data: list[dict[str, Any]], query: list[tuple[str, str]], *, cap: int, reading: str,
    counters: str,
) -> Any:  # fmt: skip
    """One answer of a show that sends at most `cap` records a page, counting a page number's
    first record by the size it sends ("granted") or by the size asked ("asked", its page count
    and "more" reckoned so too); `counters`: "bare", "total", "has_more" or "pages"."""
    q = dict(query)
    asked = int(q.get("resultsPerPage", q.get("limit", "0")))
    size = min(asked, cap)
    step = asked if reading == "asked" else size
    if "offset" in q:
        start, page = int(q["offset"]), 1 + int(q["offset"]) // step
    else:
        page = int(q["page"])
        start = (page - 1) * step
    items = data[start : start + size]
    if counters == "bare":
        return items
    if counters == "total":
        return {"items": items, "total": len(data)}
    if counters == "has_more":
        return {"items": items, "hasMore": page * step < len(data)}
    return {"items": items, "totalPages": max(1, -(-len(data) // step))}


def walk(c: PageCursor, answer: Any) -> list[list[tuple[str, str]]]:
    """The cursor led to its end by `answer(query)`; the queries it asked."""
    asked = []
    while not c.done:
        assert len(asked) < 100, "the listing does not end"
        asked.append(c.query())
        c.take(answer(asked[-1]))
    return asked


@pytest.mark.parametrize("trust", [True, False], ids=["trusted", "untrusted"])
@pytest.mark.parametrize("style", ["page", "offset"])
@pytest.mark.parametrize("counters", ["bare", "total", "has_more", "pages"])
@pytest.mark.parametrize("reading", ["granted", "asked"])
@pytest.mark.parametrize("records", [0, 37, 100, 101, 250, 1000])
def test_a_show_granting_fewer_than_asked_is_listed_whole_under_either_reading(
    reading: str, counters: str, style: str, trust: bool, records: int
) -> None:
    """1,000 asked of a show that sends 100: every record exactly once, the listing whole, and
    after a short first page every page asked at the size the show sent (so page 2 starts where
    page 1 ended however the show counts it); the size granted is proved once a later page
    brought more."""
    data = rows(0, records)
    names = {"style": "offset", "offset_param": "offset", "size_param": "limit"}
    c = cursor(1000, trust=trust, **(names if style == "offset" else {}))
    asked = walk(c, lambda q: show_page(data, q, cap=100, reading=reading, counters=counters))
    assert c.complete and not c.unsure and c.keys == {f"id:r{i}" for i in range(records)}
    sizes = [int(dict(q)[c.spec.size_param]) for q in asked]
    assert sizes[0] == 1000 and set(sizes[1:]) <= {min(100, records)}
    assert c.granted == (100 if records > 100 else None)
    assert c.asked == 1000 and c.largest == min(records, 100)


@pytest.mark.parametrize("counters", ["has_more", "pages"])
def test_a_short_first_page_that_says_it_was_the_last_is_checked_once(counters: str) -> None:
    """A page count or "no more" may be reckoned by the size asked: on a first page shorter
    than asked, neither ends the listing alone — one page more, at the size sent, does."""
    data = rows(0, 250)
    c = cursor(1000)
    c.take(show_page(data, c.query(), cap=100, reading="asked", counters=counters))
    assert not c.done and c.query() == [("page", "2"), ("resultsPerPage", "100")]
    lonely = cursor(1000)  # the same words from a list of 60: one empty page more
    asked = walk(lonely, lambda q: show_page(rows(0, 60), q, cap=100, reading="asked",
                                             counters=counters))  # fmt: skip
    assert lonely.complete and len(asked) == 2 and lonely.granted is None


def test_a_total_ends_a_short_first_page_at_once() -> None:
    c = cursor(1000)
    c.take({"items": rows(0, 60), "total": 60})
    assert c.done and c.complete and c.pages == 1


@pytest.mark.parametrize("counters", ["bare", "has_more", "pages"])
def test_a_first_page_shorter_than_the_show_is_known_to_send_is_believed(counters: str) -> None:
    """The show sent pages of 500 on this list before (`known_grant`): a first page of 60 is
    not one it cut short — a trusted listing ends on it, as before pages were large."""
    c = PageCursor(PagingSpec(page_size=1000), "Customers list", trust_short=True,
                   known_grant=500)  # fmt: skip
    c.take(show_page(rows(0, 60), c.query(), cap=500, reading="asked", counters=counters))
    assert c.done and c.complete and c.granted is None
    same = PageCursor(
        PagingSpec(page_size=1000), "Customers list", trust_short=True, known_grant=60
    )  # the same 60 as the last time: as large as it sent
    same.take(show_page(rows(0, 60), same.query(), cap=500, reading="asked", counters=counters))
    assert same.done and same.complete
    grown = PageCursor(
        PagingSpec(page_size=1000), "Customers list", trust_short=True, known_grant=59
    )  # larger than any page it sent: perhaps cut short
    grown.take(show_page(rows(0, 60), grown.query(), cap=500, reading="asked", counters=counters))
    assert not grown.done and grown.query()[1] == ("resultsPerPage", "60")


def test_an_untrusted_short_page_the_show_is_known_to_exceed_is_still_checked() -> None:
    """(A full sync deletes what a listing lacks: a bare short page is confirmed, as before.)"""
    c = PageCursor(PagingSpec(page_size=1000), "Customers list", trust_short=False,
                   known_grant=500)  # fmt: skip
    c.take(rows(0, 60))
    assert not c.done and c.query() == [("page", "2"), ("resultsPerPage", "60")]


def test_a_walk_the_show_leads_sends_the_size_it_was_granted_with_its_token() -> None:
    c = cursor(1000, style="link", cursor_param="after")
    c.take({"items": rows(0, 100), "nextPageToken": "t1"})
    assert c.query() == [("resultsPerPage", "100"), ("after", "t1")]
    c.take({"items": rows(100, 30)})
    assert c.complete and c.granted == 100


def test_a_show_ignoring_paging_is_not_taken_for_one_granting_its_own_size() -> None:
    """The same short page again: the repeat rules decide (complete but unsure), no grant."""
    c = cursor(1000, trust=False)
    feed(c, rows(0, 100), rows(0, 100))
    assert c.complete and c.unsure and c.granted is None
