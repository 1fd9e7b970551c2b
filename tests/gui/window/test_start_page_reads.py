"""The start page reads its figures in a worker thread (issue 17: the GUI thread is never held
over 50 ms, and counting a push of 1,000,000 changes takes ~0.6 s): the figures arrive; a
refresh asked during a read is one read after it, whose figures are the newest; a read for a
profile no longer on the page is dropped; a failed read says so on the page."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import qasync
import shiboken6
from pytestqt.qtbot import QtBot

from app.sim import SimServer, generate_show
from app.store.changes import NewChange
from app.sync.reports import show_summary
from app.ui.session.session import ShowSession
from app.ui.window import start_page
from app.ui.window.start_page import READING
from tests.gui.conftest import Opened, Opener, config, profile_for, wait_synced


@pytest.fixture
def server() -> Iterator[SimServer]:
    with SimServer(generate_show("tiny", seed=5), config(rate_limit=300)) as running:
        yield running


class HeldReads:
    """`summarize` as the page calls it, each read held in its worker thread after reading
    (its figures are those of when it read) until `release()`."""

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.started = 0
        self.read = 0  # reads that have their figures (held or not)
        self.ended = 0
        self.first = False  # held before reading instead
        self.failed: list[BaseException] = []

    def __call__(self, *args: Any, **kwargs: Any) -> show_summary.ShowSummary:
        self.started += 1
        try:
            if self.first:
                assert self.gate.wait(30)
            summary = show_summary.summarize(*args, **kwargs)
            self.read += 1
            assert self.gate.wait(30)
            return summary
        except BaseException as exc:
            self.failed.append(exc)
            raise
        finally:
            self.ended += 1

    def release(self) -> None:
        self.gate.set()


@pytest.fixture
def held(monkeypatch: pytest.MonkeyPatch) -> Iterator[HeldReads]:
    reads = HeldReads()
    monkeypatch.setattr(start_page, "summarize", reads)
    yield reads
    reads.release()  # never a worker left waiting


def add_changes(session: ShowSession, n: int) -> None:
    customers = list(session.cache.records("customers", limit=n))
    session.outbox.add_many(
        NewChange("customers", "update", c["id"], payload={**c, "phone": "555-0101"},
                  changed_fields=("phone",), base=c)
        for c in customers
    )  # fmt: skip


def waits(qtbot: QtBot) -> Callable[[Callable[[], bool]], None]:
    return lambda predicate: qtbot.waitUntil(predicate, timeout=10_000)


@pytest.fixture
def spring(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer, held: HeldReads
) -> Opened:
    """The Spring show's window, synced (its reads not held yet)."""
    held.release()
    opened = open_window(profile_for(server, "Spring show"))
    wait_synced(loop, opened.session)
    return opened


def test_the_figures_arrive_and_reading_shows_until_then(
    spring: Opened, qtbot: QtBot, held: HeldReads
) -> None:
    opened = spring
    page = opened.window.start_page
    assert page.changes.text() == "0 pending · 0 failed · no conflicts"
    held.gate.clear()
    started = held.started
    page.set_session(opened.session)  # followed anew: nothing shown yet
    assert page.changes.text() == READING and page.pushes.text() == READING
    assert "Spring show" in page.title.text()
    waits(qtbot)(lambda: held.started == started + 1)
    assert page.changes.text() == READING  # the GUI thread is free meanwhile
    held.release()
    waits(qtbot)(lambda: not page.reading)
    assert page.changes.text() == "0 pending · 0 failed · no conflicts"
    assert page.pushes.text() == "Nothing pushed yet."


def test_a_refresh_during_a_read_is_one_read_after_it_and_shows_the_newest(
    spring: Opened, qtbot: QtBot, held: HeldReads
) -> None:
    session, page = spring.session, spring.window.start_page
    before = held.started
    held.gate.clear()
    page.refresh()
    waits(qtbot)(lambda: held.read == before + 1 and held.ended == before)
    add_changes(session, 2)  # after the held read read its figures: it has 0 pending
    for _ in range(5):
        page.refresh()  # coalesced: one read after the held one
    assert page.changes.text().startswith("0 pending")  # the previous figures meanwhile
    held.release()
    waits(qtbot)(lambda: not page.reading)
    assert page.changes.text().startswith("2 pending")  # the newest, last
    assert held.started == before + 2


def test_a_read_for_the_profile_left_never_shows(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer, qtbot: QtBot,
    spring: Opened, held: HeldReads,
) -> None:  # fmt: skip
    autumn = open_window(profile_for(server, "Autumn show"))
    wait_synced(loop, autumn.session)
    add_changes(spring.session, 3)
    page = spring.window.start_page
    held.gate.clear()
    started = held.started
    page.refresh()  # Spring's read, held: it has 3 pending
    waits(qtbot)(lambda: held.started == started + 1)
    page.set_session(autumn.session)  # the page switches to Autumn meanwhile
    waits(qtbot)(lambda: held.started == started + 2)
    held.release()
    waits(qtbot)(lambda: not page.reading and not spring.session.tasks.busy)
    assert "Autumn show" in page.title.text()
    assert page.changes.text().startswith("0 pending")  # never Spring's 3
    page.set_session(None)
    assert page.title.text() == "No show is open" and page.changes.text() == ""


def test_closing_the_show_during_a_read_is_safe(
    loop: qasync.QEventLoop, spring: Opened, qtbot: QtBot, held: HeldReads
) -> None:
    opened = spring
    session, window = opened.session, opened.window
    page = window.start_page
    held.gate.clear()
    held.first = True
    started = held.started
    page.refresh()
    waits(qtbot)(lambda: held.started == started + 1)  # under way, not read yet
    loop.run_until_complete(session.tasks.cancel_all())  # as ShowDesk closes a show
    loop.run_until_complete(session.aclose())
    window.detach()
    session.cache.close()
    session.outbox.close()
    assert page.title.text() == "No show is open"
    held.release()  # the worker reads files now closed
    waits(qtbot)(lambda: held.ended == started + 1)
    loop.run_until_complete(asyncio.sleep(0))  # what the worker's end schedules has run
    assert page.title.text() == "No show is open" and page.changes.text() == ""
    assert [type(e).__name__ for e in held.failed] == ["ProgrammingError"]  # closed: dropped
    opened.closed = True
    window.close()
    opened.stack.close()
    shiboken6.delete(window)


def test_a_read_that_fails_says_so_on_the_page(
    spring: Opened, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened = spring
    page = opened.window.start_page

    def fails(*_args: Any, **_kwargs: Any) -> show_summary.ShowSummary:
        raise OSError("the disk went away")

    monkeypatch.setattr(start_page, "summarize", fails)
    page.set_session(opened.session)
    waits(qtbot)(lambda: not page.reading)
    assert page.data.text() == "Could not read the figures: the disk went away"
    assert not opened.session.tasks.busy  # no task failed: nothing for the crash dialog
