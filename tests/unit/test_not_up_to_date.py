"""What syncs that fell short leave not up to date (app/sync/pull/not_up_to_date.py): which
resources, why, what brings them up to date — kept from one sync to the next until a sync brings
each up to date, never said of a resource that is (issue 30, item 17)."""

from __future__ import annotations

from app.api.registry import default_registry
from app.sync.pull.not_up_to_date import NotUpToDate
from app.sync.pull.sync_report import ResourceSync, SyncReport

ASKED = ["customers", "brokers", "booths", "orders"]  # in the registry's order


def report(
    *asked: str,
    done: tuple[str, ...] = (),
    failed: tuple[str, ...] = (),
    stopped: str | None = None,
    cancelled: bool = False,
) -> SyncReport:
    """A sync asked `asked` (default: ASKED), completed `done`, failed the listings `failed`,
    stopped at an error or was cancelled; brokers, when asked, are not offered."""
    ended = SyncReport(asked=list(asked or ASKED), stopped=stopped, cancelled=cancelled)
    ended.resources = [ResourceSync(slug, full=True) for slug in done]
    ended.resources += [ResourceSync(slug, True, failure="paging") for slug in failed]
    ended.not_offered = [("brokers", "404")] if "brokers" in ended.asked else []
    return ended


def test_a_report_leaves_what_it_asked_and_did_not_bring_up_to_date() -> None:
    stopped = report(done=("customers",), failed=("booths",), stopped="connection refused")
    assert stopped.up_to_date == ["customers", "brokers"]  # completed, or not offered
    assert stopped.not_up_to_date == ["booths", "orders"]  # failed, or never ended
    assert stopped.shortfall == "stopped"
    assert report(done=("customers",), cancelled=True).shortfall == "cancelled"
    assert report(done=("customers", "orders"), failed=("booths",)).shortfall == "failed"
    whole = report(done=("customers", "booths", "orders"))
    assert whole.not_up_to_date == [] and whole.shortfall is None


def test_what_a_stopped_sync_left_stays_until_a_sync_brings_each_up_to_date() -> None:
    left = NotUpToDate(default_registry(), resumes=True)
    left.after(report(done=("customers",), stopped="connection refused"), full=True)
    assert left.slugs == ["booths", "orders"] and left.why == "stopped"
    assert left.to_resume == ["booths", "orders"] and left.full

    left.after(report("orders", done=("orders",)), full=False)  # a sync of one of them
    assert left.slugs == ["booths"] and left.to_resume == ["booths"] and left.full
    assert left.summary == "Sync incomplete: 1 resource not up to date"

    left.after(report("customers", done=("customers",)), full=False)  # of another resource
    assert left.slugs == ["booths"]

    left.after(report("booths", done=("booths",)), full=True)
    assert left.slugs == [] and left.to_resume == [] and left.summary == left.text == ""


def test_a_cancelled_or_failed_sync_is_not_resumed() -> None:
    left = NotUpToDate(default_registry(), resumes=True)
    left.after(report(done=("customers",), stopped="connection refused"), full=False)
    left.after(report("booths", "orders", cancelled=True), full=False)  # the user stopped it
    assert left.slugs == ["booths", "orders"] and left.why == "cancelled"
    assert left.to_resume == []
    left.after(report("booths", "orders", done=("booths",), failed=("orders",)), full=False)
    assert left.slugs == ["orders"] and left.why == "failed" and left.to_resume == []


def test_the_words_name_the_resources_and_what_happens_next() -> None:
    stopped = report(done=("customers",), stopped="connection refused")
    by_cli = NotUpToDate(default_registry(), resumes=False)
    by_cli.after(stopped, full=False)
    assert by_cli.summary == "Sync incomplete: 2 resources not up to date"
    assert by_cli.text == (
        "Sync incomplete — the show stopped answering (connection refused). Not up to date: "
        "Booths and Order lines. What arrived is kept; the next sync picks them up."
    )
    by_window = NotUpToDate(default_registry(), resumes=True)
    by_window.after(stopped, full=False)
    assert by_window.text.endswith("the sync resumes when the show answers again.")
    cancelled = NotUpToDate(default_registry(), resumes=True)
    cancelled.after(report(done=("customers",), cancelled=True), full=False)
    assert cancelled.summary == "Sync cancelled: 2 resources not up to date"
    assert cancelled.text.startswith("Sync cancelled: what arrived is kept. Not up to date: ")
    for words in (by_cli, by_window, cancelled):
        assert "synced" not in f"{words.summary} {words.text}".lower()
