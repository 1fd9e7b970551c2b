"""Issue 28, points 1 and 2: the server leads the paging, and deletions are proved by the server.

Each test runs the real `showdesk sync` (as tests/e2e/test_flow.py does) against the plain server
playing one paging shape (tests/e2e/shape.py, plain_paging.py), and holds the command to the
truth: after a sync the cache equals the show, or the command exited non-zero naming what is
incomplete — and a record that still exists on the show is never deleted from the cache.
"""

from __future__ import annotations

import json

import pytest

from tests.e2e.desk import DeskOn, Outcome, Showdesk
from tests.e2e.plain_server import PlainShow, Shape

CUSTOMERS = ("--resource", "customers")
# The paging shapes these tests meet (tests/e2e/shape.py), each changing only how lists page:
LINK_HEADER = Shape(paging="link-header", envelope="bare", page_size=100)  # `Link: <…after=…>`
NEXT_URL = Shape(paging="next-url", page_size=100)  # {"items": [...], "next": "http://…"}
TOKEN = Shape(paging="cursor", envelope="own", page_size=100)  # {"customers", "nextPageToken"}
IGNORING = Shape(paging="ignored", envelope="bare")  # every customer in one bare array
PAST_END = Shape(paging="page", envelope="bare", total_key=None, past_end="404")
CAPPED = Shape(paging="capped", envelope="bare", total_key=None)  # the first 100, as sorted
# Page numbers, bare arrays of at most 100: once `churn_armed`, asking page 2 first deletes a
# customer of page 1, as another administrator would: every later customer slides up one place.
SHIFTING = Shape(paging="page", envelope="bare", total_key=None, churn="delete")


def desk(desk_on: DeskOn, shape: Shape, customers: int) -> tuple[Showdesk, PlainShow]:
    show = PlainShow(customers, shape=shape)
    return desk_on(show), show


def cached_ids(showdesk: Showdesk) -> set[str]:
    return {str(r["id"]) for r in showdesk.cached("customers")}


def server_ids(show: PlainShow) -> set[str]:
    return {str(r["id"]) for r in show.records("customer")}


def sync_json(showdesk: Showdesk, *args: str) -> tuple[Outcome, dict]:  # type: ignore[type-arg]
    outcome = showdesk("sync", *CUSTOMERS, *args, "--json")
    return outcome, json.loads(outcome.out.splitlines()[-1])


def record_gets(show: PlainShow) -> int:
    """GETs of single customers (the deletion checks)."""
    return sum(n for (method, path), n in show.requests.items()
               if method == "GET" and path.lower().startswith("/customer/"))  # fmt: skip


@pytest.mark.parametrize(
    "shape, customers",
    [(LINK_HEADER, 408), (NEXT_URL, 250), (TOKEN, 250)],
    ids=["link-header", "next-url-in-body", "token-under-own-key"],
)
def test_the_next_link_the_show_gives_is_followed(
    desk_on: DeskOn, shape: Shape, customers: int
) -> None:
    """A `Link: <…>; rel="next"` header, a `next` URL in the body, a `nextPageToken` beside a
    list under a key of its own: every customer arrives, and a full sync after a deletion
    removes it without asking for it (a link walk cannot shift)."""
    showdesk, show = desk(desk_on, shape, customers)
    synced = showdesk("sync", *CUSTOMERS)
    assert synced.code == 0, synced.text
    assert cached_ids(showdesk) == server_ids(show)
    gone = sorted(server_ids(show))[5]
    show.delete("customer", gone)
    again = showdesk("sync", "--full", *CUSTOMERS)
    assert again.code == 0, again.text
    assert cached_ids(showdesk) == server_ids(show)
    assert record_gets(show) == 0


def test_a_404_past_the_last_page_ends_the_list(desk_on: DeskOn) -> None:
    showdesk, show = desk(desk_on, PAST_END, 60)
    synced = showdesk("sync", *CUSTOMERS)
    assert synced.code == 0, synced.text
    assert "not offered" not in synced.text
    assert cached_ids(showdesk) == server_ids(show)


def test_a_show_that_ignores_paging_is_mirrored_deletions_included(desk_on: DeskOn) -> None:
    """One answer holds every customer: the cached ones missing from it are asked for one by
    one; each answered 404 leaves the cache; exit 0, and the report says so."""
    showdesk, show = desk(desk_on, IGNORING, 60)
    synced = showdesk("sync", *CUSTOMERS)
    assert synced.code == 0, synced.text
    for gone in sorted(server_ids(show))[:3]:
        show.delete("customer", gone)
    show.requests.clear()
    again, report = sync_json(showdesk, "--full")
    assert again.code == 0, again.text
    assert cached_ids(showdesk) == server_ids(show)
    (customers,) = report["resources"]
    assert (customers["verified"], customers["removed"], customers["kept"]) == (3, 3, 0)
    assert record_gets(show) == 3
    assert sum(show.requests.values()) <= 8, show.requests  # a few requests per sync
    assert "unfinished" not in again.text


def test_an_uncertain_listing_is_never_reported_synced(desk_on: DeskOn) -> None:
    """A show that sends its first 100 whatever is asked: with an empty cache nothing is
    "kept" to warn about, yet the sync is not done — exit 1, the resource named incomplete, and
    it is not marked synced."""
    showdesk, _ = desk(desk_on, CAPPED, 408)
    synced = showdesk("sync", *CUSTOMERS)
    assert synced.code == 1, synced.text
    assert "customers" in synced.err and "incomplete" in synced.err.lower(), synced.text
    status = showdesk("status", "--json")
    assert json.loads(status.out.splitlines()[-1])["resources"]["customers"]["last_sync"] is None


def test_a_record_that_slid_between_pages_is_never_deleted(desk_on: DeskOn) -> None:
    """Paged by page number: a customer of page 1 is deleted while page 2 is read, and the
    first customer of page 2 slides onto page 1, never seen. It still exists: it stays cached,
    the listing is reported incomplete (exit 1); the next sync equals the show."""
    showdesk, show = desk(desk_on, SHIFTING, 250)
    synced = showdesk("sync", *CUSTOMERS)
    assert synced.code == 0, synced.text
    ordered = sorted(show.records("customer"), key=lambda r: str(r["customerID"]))
    slid = str(ordered[100]["id"])
    show.churn_armed = True
    shifted, report = sync_json(showdesk, "--full")
    assert show.churned["deleted"] and not show.churn_armed
    assert slid in cached_ids(showdesk), shifted.text
    assert shifted.code == 1, shifted.text
    assert report["failed"] and report["failed"][0]["resource"] == "customers", shifted.text
    (customers,) = report["resources"]
    assert customers["kept"] >= 1 and customers["verified"] >= 1, customers
    calm = showdesk("sync", "--full", *CUSTOMERS)
    assert calm.code == 0, calm.text
    assert cached_ids(showdesk) == server_ids(show)
