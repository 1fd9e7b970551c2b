"""Counts agree with their number in the window (issue 14, point 6): "1 change", "2 changes",
never "change(s)" — a form's Save, a refused paste, the review before a push, a change's
attempts in the outbox."""

from __future__ import annotations

from dataclasses import replace

import qasync
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from app.sim import SimServer
from app.sync.edit.editor import FieldEdit, Rejected
from app.ui.outbox.outbox_view import detail_text
from app.ui.table.undo_commands import refused_text
from app.ui.window.push_review import PushReviewDialog
from tests.gui.conftest import Opener, profile_for, wait_synced
from tests.gui.form.test_form_sim import customer_form, type_into
from tests.gui.session.test_push_said import edit_cities


def test_a_forms_save_counts_its_changes_in_words(
    loop: qasync.QEventLoop, open_window: Opener, tiny_server: SimServer
) -> None:
    opened = open_window(profile_for(tiny_server))
    wait_synced(loop, opened.session)
    _tab, form = customer_form(opened)
    said: list[str] = []
    form.message.connect(said.append)
    type_into(form, "city", "Counted")
    form.buttons["Save"].click()
    assert said == ["Saved to the outbox: 1 change."]


def test_refused_values_are_counted_in_words() -> None:
    one = Rejected(FieldEdit("C1", "priceZone", "x"), "not a number")
    assert refused_text([one]) == "1 value refused: priceZone: not a number"
    assert refused_text([one, one]).startswith("2 values refused: ")


def test_the_review_and_the_outbox_count_in_words(
    loop: qasync.QEventLoop, open_window: Opener, tiny_server: SimServer, qtbot: QtBot
) -> None:
    opened = open_window(profile_for(tiny_server))
    wait_synced(loop, opened.session)
    edit_cities(opened, ["Alone"])
    [change] = opened.session.outbox.changes(("pending",))
    parent = QWidget()
    qtbot.addWidget(parent)
    dialog = PushReviewDialog([change], opened.session.registry, "1 request", parent)
    assert dialog.windowTitle() == "Review the push — 1 change"
    assert dialog.push_button.text() == "Push 1 change"
    assert dialog.heading.text() == "<b>Push 1 change to the show?</b>"
    dialog.close()
    twice = PushReviewDialog([change, change], opened.session.registry, "2 requests", parent)
    assert twice.push_button.text() == "Push 2 changes"
    twice.close()
    assert detail_text(replace(change, attempts=1)).splitlines()[0].endswith(" · 1 attempt")
    assert detail_text(replace(change, attempts=2)).splitlines()[0].endswith(" · 2 attempts")
