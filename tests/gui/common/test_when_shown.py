"""`RefreshWhenShown`: a change read at once while the widget is on screen, else once when it is
shown next (never on every change while hidden)."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from app.ui.common.when_shown import RefreshWhenShown


def test_read_now_when_visible_else_once_when_shown(qtbot: QtBot) -> None:
    widget = QWidget()
    qtbot.addWidget(widget)
    reads: list[int] = []
    follow = RefreshWhenShown(widget, lambda: reads.append(1))

    follow.changed()
    follow.changed()  # hidden: nothing read, marked stale
    assert reads == [] and follow.stale
    widget.show()
    qtbot.waitExposed(widget)
    assert reads == [1] and not follow.stale  # read once on showing

    follow.changed()  # on screen: read at once
    assert reads == [1, 1]
    widget.hide()
    widget.show()  # shown again with nothing changed: not read again
    assert reads == [1, 1]
