"""Issue 31, point 5: pages as large as the show grants, held to the truth by the independent
server (tests/e2e/plain_server.py) and the real `showdesk` commands.

The plain server sends at most `max_page` (100) customers a page whatever is asked, and counts a
page number's first record by the size it sends or by the size asked (its page count reckoned
so too: `Shape.offsets`). A profile asking 1,000 a page syncs every customer, says in `status`
and `check` the size the show grants, asks it at once the next time, and a full sync deletes
what the show deleted and nothing else.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.e2e.desk import DeskOn, Showdesk
from tests.e2e.plain_server import PlainShow, Shape

CUSTOMERS = ("--resource", "customers")
ENVELOPES = {  # (envelope, total_key): how the page count comes, if at all
    "bare": ("bare", None),
    "page-count": ("items", "totalPages"),
    "total": ("data", "totalCount"),
}


def cached_ids(showdesk: Showdesk) -> set[str]:
    return {str(r["id"]) for r in showdesk.cached("customers")}


def server_ids(show: PlainShow) -> set[str]:
    return {str(r["id"]) for r in show.records("customer")}


def sizes(show: PlainShow) -> list[int]:
    """The page size each customers listing asked, in order (cleared after reading)."""
    asked = [int(q["resultsperpage"]) for q in show.customer_lists]
    show.customer_lists.clear()
    return asked


def last_json(text: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(text.splitlines()[-1])
    return data


@pytest.mark.parametrize("envelope", ENVELOPES, ids=list(ENVELOPES))
@pytest.mark.parametrize("offsets", ["granted", "asked"])
def test_a_show_granting_fewer_than_asked_is_synced_whole_and_said(
    desk_on: DeskOn, offsets: str, envelope: str
) -> None:
    body, total_key = ENVELOPES[envelope]
    shape = Shape(paging="page", envelope=body, total_key=total_key, offsets=offsets)
    show = PlainShow(250, shape=shape)
    showdesk = desk_on(show)
    synced = showdesk("sync", *CUSTOMERS)
    assert synced.code == 0, synced.text
    assert cached_ids(showdesk) == server_ids(show)
    first = sizes(show)
    assert first[0] == 1000 and set(first[1:]) == {shape.max_page}, first

    status = showdesk("status", "--json")
    assert status.code == 0, status.text
    pages = last_json(status.out)["pages"]
    assert pages["asked"] == 1000
    assert pages["lists"]["customers"] == {"size": 100, "known": "largest"}
    said = showdesk("status").out
    assert "Pages: 1,000 records asked at a time" in said
    assert "pages of 100 (the largest this show grants): Customers" in said
    checked = showdesk("check")
    assert "pages of 100 (the largest this show grants): Customers" in checked.out, checked.text
    assert sizes(show) == [1]  # (`check` asks each list for its smallest page)

    gone = sorted(server_ids(show))[150]  # on page 2 under either reading
    show.delete("customer", gone)
    again = showdesk("sync", "--full", *CUSTOMERS)
    assert again.code == 0, again.text
    assert cached_ids(showdesk) == server_ids(show) and gone not in cached_ids(showdesk)
    # Asked at once at the size the show grants: 3 pages, and an empty one after a bare
    # array's short last page before anything is deleted.
    assert sizes(show) == [100] * (3 + (total_key is None))


def test_a_page_size_above_what_was_asked_is_learned_again(desk_on: DeskOn) -> None:
    show = PlainShow(250, shape=Shape(paging="page", envelope="bare", total_key=None))
    showdesk = desk_on(show)
    assert showdesk("sync", *CUSTOMERS).code == 0
    sizes(show)
    show.shape = Shape(paging="page", envelope="bare", total_key=None, max_page=1000)
    same = showdesk("sync", "--full", *CUSTOMERS)
    assert same.code == 0 and set(sizes(show)) == {100}, same.text
    more = showdesk("sync", "--full", "--page-size", "5000", *CUSTOMERS)
    assert more.code == 0, more.text
    assert sizes(show) == [5000, 250]  # all 250 at once, then an empty page proves the end
    assert cached_ids(showdesk) == server_ids(show)
    status = last_json(showdesk("status", "--json", "--page-size", "5000").out)
    assert status["pages"]["lists"]["customers"] == {"size": 5000, "known": "asked"}


@pytest.mark.parametrize("size", ["0", "10001", "many"])
def test_a_page_size_outside_its_bounds_is_a_usage_error(desk_on: DeskOn, size: str) -> None:
    showdesk = desk_on(PlainShow(10))
    refused = showdesk("sync", "--page-size", size, *CUSTOMERS)
    assert refused.code == 2, refused.text
    assert "page-size" in refused.err
