"""Issue 28, points 1 and 2: the server leads the paging, and deletions are proved by the server.

Each test runs the real `showdesk sync` (as tests/e2e/test_flow.py does) against the plain server
playing one paging shape of tests/e2e/plain_paging.py, and holds the command to the truth: after
a sync the cache equals the show, or the command exited non-zero naming what is incomplete — and a
record that still exists on the show is never deleted from the cache.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.plain_paging import (
    CappedShow,
    IgnoringShow,
    LinkShow,
    NextUrlShow,
    PagingServer,
    PagingShow,
    PastEndShow,
    ShiftingShow,
    TokenShow,
)
from tests.e2e.targets import plain_target
from tests.e2e.test_flow import Outcome, Showdesk

CUSTOMERS = ("--resource", "customers")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SHOWDESK_HOME", str(tmp_path / "showdesk"))
    return tmp_path


@pytest.fixture
def desk(
    request: pytest.FixtureRequest, home: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[tuple[Showdesk, PagingShow]]:  # fmt: skip
    show: PagingShow = request.param
    server = PagingServer(show).start()
    try:
        target = plain_target(server)
        monkeypatch.setenv("SHOWDESK_CLIENT_SECRET", target.secret)
        yield Showdesk(target, capsys, home), show
    finally:
        server.stop()


def cached_ids(showdesk: Showdesk) -> set[str]:
    return {str(r["id"]) for r in showdesk.cached("customers")}


def server_ids(show: PagingShow) -> set[str]:
    return {str(r["id"]) for r in show.records("customer")}


def sync_json(showdesk: Showdesk, *args: str) -> tuple[Outcome, dict]:  # type: ignore[type-arg]
    outcome = showdesk("sync", *CUSTOMERS, *args, "--json")
    return outcome, json.loads(outcome.out.splitlines()[-1])


def record_gets(show: PagingShow) -> int:
    """GETs of single customers (the deletion checks)."""
    return sum(n for (method, path), n in show.requests.items()
               if method == "GET" and path.lower().startswith("/customer/"))  # fmt: skip


@pytest.mark.parametrize(
    "desk",
    [LinkShow(customers=408), NextUrlShow(customers=250), TokenShow(customers=250)],
    ids=["link-header", "next-url-in-body", "token-under-own-key"],
    indirect=True,
)
def test_the_next_link_the_show_gives_is_followed(desk: tuple[Showdesk, PagingShow]) -> None:
    """A `Link: <…>; rel="next"` header, a `next` URL in the body, a `nextPageToken` beside a
    list under a key of its own: every customer arrives, and a full sync after a deletion
    removes it without asking for it (a link walk cannot shift)."""
    showdesk, show = desk
    synced = showdesk("sync", *CUSTOMERS)
    assert synced.code == 0, synced.text
    assert cached_ids(showdesk) == server_ids(show)
    gone = sorted(server_ids(show))[5]
    show.delete("customer", gone)
    again = showdesk("sync", "--full", *CUSTOMERS)
    assert again.code == 0, again.text
    assert cached_ids(showdesk) == server_ids(show)
    assert record_gets(show) == 0


@pytest.mark.parametrize("desk", [PastEndShow(customers=60)], indirect=True)
def test_a_404_past_the_last_page_ends_the_list(desk: tuple[Showdesk, PagingShow]) -> None:
    showdesk, show = desk
    synced = showdesk("sync", *CUSTOMERS)
    assert synced.code == 0, synced.text
    assert "not offered" not in synced.text
    assert cached_ids(showdesk) == server_ids(show)


@pytest.mark.parametrize("desk", [IgnoringShow(customers=60)], indirect=True)
def test_a_show_that_ignores_paging_is_mirrored_deletions_included(
    desk: tuple[Showdesk, PagingShow],
) -> None:
    """One answer holds every customer: the cached ones missing from it are asked for one by
    one; each answered 404 leaves the cache; exit 0, and the report says so."""
    showdesk, show = desk
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


@pytest.mark.parametrize("desk", [CappedShow(customers=408)], indirect=True)
def test_an_uncertain_listing_is_never_reported_synced(desk: tuple[Showdesk, PagingShow]) -> None:
    """A show that sends its first 100 whatever is asked: with an empty cache nothing is
    "kept" to warn about, yet the sync is not done — exit 1, the resource named incomplete, and
    it is not marked synced."""
    showdesk, _ = desk
    synced = showdesk("sync", *CUSTOMERS)
    assert synced.code == 1, synced.text
    assert "customers" in synced.err and "incomplete" in synced.err.lower(), synced.text
    status = showdesk("status", "--json")
    assert json.loads(status.out.splitlines()[-1])["resources"]["customers"]["last_sync"] is None


@pytest.mark.parametrize("desk", [ShiftingShow(customers=250)], indirect=True)
def test_a_record_that_slid_between_pages_is_never_deleted(
    desk: tuple[Showdesk, PagingShow],
) -> None:
    """Paged by page number: a customer of page 1 is deleted while page 2 is read, and the
    first customer of page 2 slides onto page 1, never seen. It still exists: it stays cached,
    the listing is reported incomplete (exit 1); the next sync equals the show."""
    showdesk, show = desk
    assert isinstance(show, ShiftingShow)
    synced = showdesk("sync", *CUSTOMERS)
    assert synced.code == 0, synced.text
    ordered = sorted(show.records("customer"), key=lambda r: str(r["customerID"]))
    slid = str(ordered[100]["id"])
    show.armed = True
    shifted, report = sync_json(showdesk, "--full")
    assert show.deleted is not None and not show.armed
    assert slid in cached_ids(showdesk), shifted.text
    assert shifted.code == 1, shifted.text
    assert report["failed"] and report["failed"][0]["resource"] == "customers", shifted.text
    (customers,) = report["resources"]
    assert customers["kept"] >= 1 and customers["verified"] >= 1, customers
    calm = showdesk("sync", "--full", *CUSTOMERS)
    assert calm.code == 0, calm.text
    assert cached_ids(showdesk) == server_ids(show)
