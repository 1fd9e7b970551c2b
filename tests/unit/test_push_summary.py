"""What a finished push says in the status bar (app/sync/reports/push_review.py `summarize`), and
what of it stays true once a show that could not be reached answers again (issue 30, item 5:
"Not pushed: the show cannot be reached" stayed beside "Online")."""

from __future__ import annotations

from app.sync.push.pusher import PushReport
from app.sync.reports.push_review import PushSummary, summarize


def test_a_push_that_reached_the_show_says_the_same_once_reachable() -> None:
    summary = summarize(PushReport(done=11, failed=1, conflicts=1))
    assert summary.text == "11 pushed, 1 failed, 1 in conflict" and summary.failures == 2
    assert summary.once_reachable() is summary


def test_nothing_pushed_before_the_show_was_lost_says_nothing_once_it_answers() -> None:
    summary = summarize(PushReport(unreachable="connection refused", kept=1))
    assert summary.text == "Not pushed: the show cannot be reached (1 pending)"
    assert summary.unreachable and summary.once_reachable() is None


def test_what_was_pushed_before_the_show_was_lost_stays_once_it_answers() -> None:
    report = PushReport(done=3, failed=1, unreachable="connection refused", kept=2)
    summary = summarize(report)
    assert summary.text == "3 pushed, then the show could not be reached (2 pending)"
    assert summary.once_reachable() == PushSummary("3 pushed, 1 failed", failures=1)
