"""The status bar: profile, online/offline, rate budget, pause countdown, sync, outbox counts."""

from __future__ import annotations

from datetime import datetime

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from app.api.governor import GovernorState
from app.sync.pull.sync_report import SyncPace, SyncProgress
from app.sync.push.pusher import PushReport
from app.sync.reports.push_review import summarize
from app.ui.window.status_bar import ShowStatusBar


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def progress_of(title: str, done: int, total: int | None, **where: float) -> SyncProgress:
    """A resource's progress as the Puller publishes it (app/sync/pull/sync_report.py)."""
    return SyncProgress(title.lower(), title, done, total, **where)  # type: ignore[arg-type]


def state(
    used: int = 182,
    limit: int = 300,
    span: float = 60.0,
    paused_until: float | None = None,
    attempt: int = 0,
) -> GovernorState:
    return GovernorState(used, limit, span, paused_until, attempt, 8)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def bar(qtbot: QtBot, clock: FakeClock) -> ShowStatusBar:
    widget = ShowStatusBar(clock=clock)
    qtbot.addWidget(widget)
    return widget


def shown(widget: object) -> bool:
    return not widget.isHidden()  # type: ignore[attr-defined]


def test_profile_is_named_with_its_show(bar: ShowStatusBar) -> None:
    bar.set_profile("Demo show", "DEMO-SHOW")
    assert bar.profile.text() == "Demo show · show DEMO-SHOW"


def test_online_and_offline_with_the_data_age(bar: ShowStatusBar) -> None:
    bar.set_online(True, None)
    assert bar.connection.text() == "Online"
    bar.set_online(False, datetime(2025, 11, 21, 14, 5))
    assert bar.connection.text() == "Offline — data as of 21 Nov 14:05"
    bar.set_online(False, None)
    assert bar.connection.text() == "Offline — nothing synced yet"


@pytest.mark.parametrize(
    ("span", "text"),
    [(60.0, "182/300 this minute"), (5.0, "182/300 per 5 s"), (3600.0, "182/300 this hour")],
)
def test_rate_budget(bar: ShowStatusBar, span: float, text: str) -> None:
    assert not shown(bar.budget)
    bar.on_governor_changed(state(span=span))
    assert bar.budget.text() == text and shown(bar.budget)


def test_pause_counts_down_on_the_clock_and_clears(bar: ShowStatusBar, clock: FakeClock) -> None:
    bar.on_governor_changed(state(paused_until=clock.now + 23, attempt=3))
    assert bar.pause.text() == "Rate limited — resuming in 23 s, attempt 3/8"
    assert shown(bar.pause) and bar.countdown.isActive()
    clock.now += 1.5
    bar.on_countdown_timeout()
    assert bar.pause.text() == "Rate limited — resuming in 22 s, attempt 3/8"
    clock.now += 21.5
    bar.on_countdown_timeout()
    assert not shown(bar.pause) and not bar.countdown.isActive()


def test_the_timer_drives_the_countdown(qtbot: QtBot, bar: ShowStatusBar, clock: FakeClock) -> None:
    bar.on_governor_changed(state(paused_until=clock.now + 5, attempt=1))
    clock.now += 3
    with qtbot.waitSignal(bar.countdown.timeout, timeout=3000):
        pass
    assert bar.pause.text() == "Rate limited — resuming in 2 s, attempt 1/8"


def test_a_state_without_a_pause_clears_it(bar: ShowStatusBar, clock: FakeClock) -> None:
    bar.on_governor_changed(state(paused_until=clock.now + 10, attempt=2))
    bar.on_governor_changed(state(paused_until=None))
    assert not shown(bar.pause) and not bar.countdown.isActive()


def test_a_pause_already_over_shows_nothing(bar: ShowStatusBar, clock: FakeClock) -> None:
    bar.on_governor_changed(state(paused_until=clock.now - 1, attempt=2))
    assert not shown(bar.pause) and not bar.countdown.isActive()


def test_outbox_counts_as_buttons_hidden_at_zero(qtbot: QtBot, bar: ShowStatusBar) -> None:
    bar.set_outbox_counts({"pending": 2, "sending": 1, "failed": 1, "conflict": 2, "done": 9})
    texts = {s: b.text() for s, b in bar.outbox_buttons.items() if shown(b)}
    assert texts == {"pending": "3 pending", "failed": "1 failed", "conflict": "2 conflicts"}
    bar.set_outbox_counts({"pending": 0, "failed": 0, "conflict": 1})
    texts = {s: b.text() for s, b in bar.outbox_buttons.items() if shown(b)}
    assert texts == {"conflict": "1 conflict"}


@pytest.mark.parametrize("state_name", ["pending", "failed", "conflict"])
def test_each_outbox_button_asks_for_the_outbox(
    qtbot: QtBot, bar: ShowStatusBar, state_name: str
) -> None:
    bar.set_outbox_counts({state_name: 4})
    with qtbot.waitSignal(bar.outbox_requested, timeout=1000):
        qtbot.mouseClick(bar.outbox_buttons[state_name], Qt.MouseButton.LeftButton)


def test_sync_progress_busy_then_counted_then_finished(bar: ShowStatusBar) -> None:
    bar.on_sync_progress(progress_of("Customers", 1200, None))
    assert bar.sync_label.text() == "Syncing Customers… 1,200"
    assert bar.sync_bar.maximum() == 0  # busy
    assert shown(bar.sync_bar) and shown(bar.cancel_sync)
    bar.on_sync_progress(progress_of("Products", 2500, 10000))
    assert bar.sync_label.text() == "Syncing Products… 2,500 of 10,000"
    assert (bar.sync_bar.value(), bar.sync_bar.maximum()) == (2500, 10000)
    bar.on_sync_progress(progress_of("Products", 2500, 10000, resources_done=7, resources=31,
                                  seconds_left=130.0))  # fmt: skip
    assert bar.sync_label.text() == (
        "Syncing Products… 2,500 of 10,000 · 7 of 31 resources · about 2 min left"
    )  # issue 30, item 17: where the whole sync stands
    bar.sync_finished()
    assert not shown(bar.sync_label) and not shown(bar.sync_bar) and not shown(bar.cancel_sync)


def test_cancel_sync_emits_once(qtbot: QtBot, bar: ShowStatusBar) -> None:
    bar.on_sync_progress(progress_of("Customers", 10, None))
    with qtbot.waitSignal(bar.cancel_sync_requested, timeout=1000):
        qtbot.mouseClick(bar.cancel_sync, Qt.MouseButton.LeftButton)
    assert not bar.cancel_sync.isEnabled()
    assert bar.sync_label.text() == "Cancelling sync…"


def test_selection_summary_and_transient_messages(bar: ShowStatusBar) -> None:
    bar.set_selection_summary("3 rows · sum 1,204")
    assert bar.selection.text() == "3 rows · sum 1,204"
    bar.show_message("Push failed: Cannot reach the show")
    assert bar.currentMessage() == "Push failed: Cannot reach the show"
    bar.clearMessage()
    assert bar.selection.text() == "3 rows · sum 1,204"


def test_the_push_summary_stays_and_its_failures_are_one_click_away(
    bar: ShowStatusBar, qtbot: QtBot
) -> None:
    bar.push_finished(summarize(PushReport(done=47, failed=2)))
    assert shown(bar.push_summary) and bar.push_summary.text() == "47 pushed, 2 failed — Show"
    with qtbot.waitSignal(bar.failures_requested):
        bar.push_summary.click()
    bar.push_finished(summarize(PushReport(done=3)))
    assert bar.push_summary.text() == "3 pushed"


def test_the_meter_says_a_cut_rate_and_a_wait_for_budget(
    bar: ShowStatusBar, clock: FakeClock
) -> None:
    cut = GovernorState(
        120, 300, 60.0, None, 0, 8, allowed=120, waiting=1, budget_at=clock.now + 12
    )
    bar.on_governor_changed(cut)
    assert shown(bar.pacing)
    assert bar.pacing.text() == "waiting for budget: 12 s · rate cut to 120 this minute"
    assert bar.countdown.isActive()
    clock.now += 13
    bar.on_countdown_timeout()
    assert bar.pacing.text() == "rate cut to 120 this minute" and not bar.countdown.isActive()


def test_a_message_too_long_for_the_bar_is_whole_in_its_tooltip(bar: ShowStatusBar) -> None:
    said = (
        "The show cannot be reached: 1 change stays pending, nothing lost "
        "(Customers list (GET /Customer): connection refused)."
    )
    bar.show_message(said)
    assert bar.currentMessage() == said and bar.toolTip() == said
    bar.clearMessage()
    assert bar.toolTip() == ""


def test_the_time_left_is_what_is_still_expected_at_the_rate_so_far() -> None:
    pace = SyncPace(resources=3, started=100.0, expected={"customers": 1000, "products": 3000})
    assert pace.seconds_left(101.0) is None  # no rate yet
    pace.heard("customers", 1000, 1000, finished=True)
    pace.finished.add("customers")
    pace.heard("products", 1000, 3000, finished=False)
    # 2,000 records in 10 s: the 2,000 products still expected take 10 s more
    assert pace.seconds_left(110.0) == 10.0
