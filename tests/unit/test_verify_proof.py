"""What one page of a listing newest first proves (app/sync/push/verify.py `_unchanged`): that
nobody wrote after the check's first look — only when every record carries a date-time, they
come newest first, the page ends older than the newest change seen, and each is as listed."""

from __future__ import annotations

from datetime import datetime

from app.sync.push.verify import _unchanged

NEWEST = datetime(2026, 11, 29, 10, 0, 0, 500000)


def rec(id_: str, when: str, city: str = "Town") -> dict[str, object]:
    return {"id": id_, "city": city, "modifiedDate": when}


PAGE = [
    rec("a", "2026-11-29T10:00:00.500"),
    rec("b", "2026-11-29T10:00:00.2"),
    rec("c", "2026-11-29T09:59:59"),
]
LISTED = {str(r["id"]): dict(r) for r in PAGE}


def test_a_page_as_listed_newest_first_and_ending_older_proves_it() -> None:
    assert _unchanged(PAGE, NEWEST, LISTED)


def test_a_record_changed_since_is_no_proof() -> None:
    changed = [rec("a", "2026-11-29T10:00:01"), *PAGE[1:]]
    assert not _unchanged(changed, NEWEST, LISTED)
    same_moment = [rec("a", "2026-11-29T10:00:00.500", city="Theirs"), *PAGE[1:]]
    assert not _unchanged(same_moment, NEWEST, LISTED)


def test_a_page_that_ends_at_the_newest_moment_is_no_proof() -> None:
    """Every record at the newest moment: a change at that moment may be on the next page."""
    tied = [rec(i, "2026-11-29T10:00:00.500") for i in "abc"]
    assert not _unchanged(tied, NEWEST, {str(r["id"]): dict(r) for r in tied})


def test_dates_without_a_time_or_out_of_order_are_no_proof() -> None:
    dates = [rec("a", "2026-11-29"), rec("b", "2026-11-28")]
    assert not _unchanged(dates, NEWEST, {str(r["id"]): dict(r) for r in dates})
    shuffled = [PAGE[1], PAGE[0], PAGE[2]]
    assert not _unchanged(shuffled, NEWEST, LISTED)
    assert not _unchanged([], NEWEST, {})
    undated = [{"id": "a", "city": "Town"}]
    assert not _unchanged(undated, NEWEST, {"a": {"id": "a", "city": "Town"}})
