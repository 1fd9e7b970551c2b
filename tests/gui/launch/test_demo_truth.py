"""Issue 30's whole flows on the embedded demo show, opened from a fresh profile as `make run`
opens it (the flows against a separate simulator: tests/gui/form/test_one_truth.py):

- point 1: the demo does not push on save until the user turns it on; a form's Save pushed at
  once then shows the show's answer in the form and the grid (observed 1);
- observed 2: the grid edit of that record, pushed afterwards, is no conflict with the save;
- observed 11: pushing one field leaves the record's ordering groups as they were on the show
  (the entries' ids aside: the show gives them new ones on any write).

The demo's own simulator is the show: each value is checked on it, not in the cache."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import qasync
import shiboken6
from PySide6.QtCore import QSettings

from app.profile import demo
from app.profile.settings import ProfileStore
from app.sim import SimServer
from app.ui.launch.show_desk import ShowDesk
from app.ui.session.tasks import TaskRunner
from app.ui.window.main_window import MainWindow
from tests.gui.conftest import Opened, wait_synced
from tests.gui.form.test_form_sim import customer_form, type_into
from tests.gui.form.test_one_truth import grid_text, reselect, saved_and_pushed
from tests.gui.form.test_own_push import settled


@dataclass
class Demo:
    opened: Opened
    server: SimServer

    def record(self, record_id: str) -> dict[str, Any]:
        return self.server.show.get("customers", record_id) or {}


@pytest.fixture
def on_the_demo(
    loop: qasync.QEventLoop, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Demo]:
    """The demo opened by ShowDesk from a profile store that holds nothing yet, synced."""
    assert ProfileStore().all() == []  # a fresh profile: nothing saved before
    servers: list[SimServer] = []
    start = demo.start_demo

    def started() -> tuple[SimServer, Any, str]:
        server, profile, secret = start()
        servers.append(server)  # the demo's own simulator: the show the values are read on
        return server, profile, secret

    monkeypatch.setattr(demo, "start_demo", started)
    tasks = TaskRunner()
    window = MainWindow(QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat), tasks)
    desk = ShowDesk(window, tasks)
    try:
        session = desk.open_demo()
        assert session is not None
        window.show()
        wait_synced(loop, session)
        yield Demo(Opened(window, session, [], ExitStack(), loop), servers[0])
    finally:
        loop.run_until_complete(desk.close())
        loop.run_until_complete(tasks.cancel_all())  # the start page's read, started by closing
        window.close()
        shiboken6.delete(window)


def test_the_demo_does_not_push_on_save_and_a_save_pushed_shows_the_answer(
    loop: qasync.QEventLoop, on_the_demo: Demo
) -> None:
    opened = on_the_demo.opened
    _tab, form = customer_form(opened)
    assert form.push_on_save is False  # off for the demo unless the user turns it on
    assert not opened.window.status.push_on_save.isVisibleTo(opened.window.status)
    tab, record_id = saved_and_pushed(loop, opened)  # the user turned it on, then saved
    form = tab.form
    assert form is not None
    assert on_the_demo.record(record_id)["phone"] == "+1 555 0142"
    assert form.editors["phone"].value() == "+1 555 0142"
    assert grid_text(tab, record_id, "phone") == "+1 555 0142"
    reselect(loop, tab, record_id)
    assert form.record_id == record_id and form.editors["phone"].value() == "+1 555 0142"

    opened.window.actions_["push"].trigger()  # the grid's rename, pushed after the save
    settled(loop, opened, 2)
    counts = opened.session.outbox.counts()
    assert (counts["conflict"], counts["failed"]) == (0, 0)
    stored = on_the_demo.record(record_id)
    assert (stored["customerName"], stored["phone"]) == ("Cornerstone EDITED", "+1 555 0142")
    assert form.messages.error_text == ""


def test_on_the_demo_pushing_one_field_leaves_the_ordering_groups(
    loop: qasync.QEventLoop, on_the_demo: Demo
) -> None:
    opened = on_the_demo.opened
    tab = opened.window.open_resource("customers")
    assert tab is not None
    row = next(
        r
        for r in range(tab.model.rowCount())
        if on_the_demo.record(tab.model.record_id(r)).get("orderingGroups")
    )
    _tab, form = customer_form(opened, row)
    record_id = form.record_id or ""
    before = on_the_demo.record(record_id)["orderingGroups"]
    form.push_on_save = True
    type_into(form, "phone", "+1 555 0199")
    assert len(form.save()) == 1
    settled(loop, opened, 1)
    after = on_the_demo.record(record_id)
    assert after["phone"] == "+1 555 0199"
    assert _values(after["orderingGroups"]) == _values(before)  # ids are the show's own


def _values(groups: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in group.items() if k != "id"} for group in groups]
