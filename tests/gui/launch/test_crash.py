"""Unexpected errors: a crash dialog with what happened and the log path, never a silent exit;
unsaved form edits rescued and offered back when the show is opened again."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator

import pytest
import qasync
import shiboken6
from PySide6.QtCore import QTimer

from app.api.errors import TransportError
from app.profile.drafts import DraftStash
from app.profile.logs import log_path, logging_to_file
from app.sim import SimServer, generate_show
from app.ui.launch.crash import CrashReporter
from app.ui.launch.show_desk import ShowDesk
from app.ui.table.resource_tab import ResourceTab
from tests.gui.conftest import SECRET, Opened, Opener, config, profile_for, until, wait_synced


@pytest.fixture
def server() -> Iterator[SimServer]:
    with SimServer(generate_show("tiny", seed=4), config()) as running:
        yield running


@pytest.fixture
def logged() -> Iterator[None]:
    with logging_to_file():
        yield


class Crashing:
    """A window on the simulator with a CrashReporter installed as `run()` installs it."""

    def __init__(self, opened: Opened) -> None:
        self.opened = opened
        self.window = opened.window
        self.quits: list[bool] = []
        self.desk = ShowDesk(self.window, opened.session.tasks, ask=lambda _q: True)
        self.reporter = CrashReporter(
            window=self.window,
            rescue=self.desk.rescue_drafts,
            forget=self.desk.forget_drafts,
            quit_app=lambda: self.quits.append(True),
        )
        self.reporter.install(opened.loop)
        opened.session.tasks.on_unexpected = self.reporter.on_task_failed

    def crash_with(self, inject: Callable[[], None]) -> None:
        """Inject an error while the loop runs; return once the crash dialog is up."""

        async def scenario() -> None:
            inject()
            await until(lambda: (d := self.reporter.dialog) is not None and d.isVisible())

        self.opened.loop.run_until_complete(scenario())


@pytest.fixture
def crashing(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer, logged: None
) -> Iterator[Crashing]:
    opened = open_window(profile_for(server))
    wait_synced(loop, opened.session)
    crashing = Crashing(opened)
    yield crashing
    crashing.reporter.uninstall()
    dialog = crashing.reporter.dialog
    if dialog is not None and shiboken6.isValid(dialog):  # gone with its window, or still up
        dialog.close()


def boom() -> None:
    raise RuntimeError(f"injected failure, client_secret={SECRET}")


def test_an_exception_in_a_slot_shows_the_crash_dialog_with_the_log_path(
    crashing: Crashing,
) -> None:
    crashing.crash_with(lambda: QTimer.singleShot(0, boom))
    dialog = crashing.reporter.dialog
    assert dialog is not None
    text = dialog.informativeText()
    assert "RuntimeError: injected failure" in text
    assert str(log_path()) in text
    assert "safe in the outbox" in text
    assert SECRET not in text and SECRET not in dialog.detailedText()
    assert "Traceback" in dialog.detailedText()
    logged = log_path().read_text(encoding="utf-8")
    assert "injected failure" in logged and SECRET not in logged
    dialog.keep_button.click()
    assert not dialog.isVisible() and crashing.quits == []


def test_a_background_task_that_fails_with_a_bug_shows_the_dialog(crashing: Crashing) -> None:
    async def failing() -> None:
        raise KeyError("no-such-field")

    crashing.crash_with(lambda: crashing.opened.session.tasks.start(failing(), what="Inject"))
    dialog = crashing.reporter.dialog
    assert dialog is not None
    assert "“Inject”" in dialog.text() and "KeyError" in dialog.informativeText()
    dialog.keep_button.click()


def test_an_error_in_an_asyncio_callback_shows_the_dialog(crashing: Crashing) -> None:
    crashing.crash_with(lambda: crashing.opened.loop.call_soon(boom))
    assert crashing.reporter.dialog is not None
    assert "background work" in crashing.reporter.dialog.text()
    crashing.reporter.dialog.keep_button.click()


def test_an_expected_network_error_stays_in_the_status_bar(crashing: Crashing) -> None:
    async def unreachable() -> None:
        raise TransportError("the show cannot be reached")

    tasks = crashing.opened.session.tasks

    async def scenario() -> None:
        task = tasks.start(unreachable(), what="Sync")
        await asyncio.gather(task, return_exceptions=True)
        await until(lambda: not tasks.busy)

    crashing.opened.loop.run_until_complete(scenario())
    assert crashing.reporter.dialog is None and crashing.reporter.reports == []
    assert "cannot be reached" in crashing.window.status.currentMessage()


def test_quit_after_a_crash_keeps_the_unsaved_form_and_offers_it_back(
    crashing: Crashing, open_window: Opener, loop: qasync.QEventLoop
) -> None:
    window, session = crashing.window, crashing.opened.session
    tab = window.open_resource("customers")
    assert isinstance(tab, ResourceTab) and tab.form is not None
    record_id = tab.model.record_id(0)
    tab.table.setCurrentIndex(tab.model.index(0, 0))
    assert tab.form.record_id == record_id
    tab.form.editors["customerName"].set_value("Typed before the crash")
    assert tab.form.dirty

    crashing.crash_with(lambda: QTimer.singleShot(0, boom))
    dialog = crashing.reporter.dialog
    assert dialog is not None
    assert "1 form you had not saved was kept" in dialog.informativeText()
    dialog.quit_button.click()
    assert crashing.quits == [True]
    stash = DraftStash(session.profile.drafts_path)
    assert [(d.resource, d.record_id) for d in stash.load()] == [("customers", record_id)]
    assert session.outbox.counts()["pending"] == 0  # unsaved means unsaved: nothing queued

    crashing.reporter.uninstall()
    profile = session.profile
    crashing.opened.close()  # the process is gone; a new window opens the same show
    again = open_window(profile)
    wait_synced(loop, again.session)
    questions: list[str] = []
    desk = ShowDesk(again.window, again.session.tasks, ask=lambda q: questions.append(q) or True)
    assert desk.offer_drafts(DraftStash(profile.drafts_path)) == 1
    assert "unsaved changes" in questions[0] and "Customers" in questions[0]
    assert "(1 field)" in questions[0]  # counted in words, never "field(s)"
    restored = again.window.tab_for("customers")
    assert restored is not None and restored.form is not None
    form = restored.form
    assert form.record_id == record_id
    assert form.editors["customerName"].value() == "Typed before the crash"
    assert form.dirty and form.buttons["Save"].isEnabled()
    assert not stash.path.exists()  # offered once
    assert form.save() and again.session.outbox.counts()["pending"] == 1


def test_keep_working_forgets_the_stash_the_form_still_holds_the_edit(crashing: Crashing) -> None:
    tab = crashing.window.open_resource("customers")
    assert tab is not None and tab.form is not None
    tab.table.setCurrentIndex(tab.model.index(0, 0))
    tab.form.editors["customerName"].set_value("Still here")
    crashing.crash_with(lambda: QTimer.singleShot(0, boom))
    stash = DraftStash(crashing.opened.session.profile.drafts_path)
    assert stash.path.exists()
    assert crashing.reporter.dialog is not None
    crashing.reporter.dialog.keep_button.click()
    assert not stash.path.exists()
    assert tab.form.editors["customerName"].value() == "Still here"
