"""Issue 30, item 13: the window never widens itself. Long words in the status bar (a sync's
progress, the booth lists' refresh, the team's facts, a pause) are shortened with "…" where room
runs out, all of them on hovering; the window's minimum width stays what its parts need."""

from __future__ import annotations

import qasync
from pytestqt.qtbot import QtBot

from app.sim import SimServer
from tests.gui.conftest import Opener, profile_for, wait_synced

LONG = "Refreshing booth lists: 1,340 of 2,000 booths, the oldest listed 3 h 20 min ago " * 2


def test_long_status_words_never_widen_the_window(
    loop: qasync.QEventLoop, open_window: Opener, tiny_server: SimServer, qtbot: QtBot
) -> None:
    opened = open_window(profile_for(tiny_server))
    wait_synced(loop, opened.session)
    window, status = opened.window, opened.window.status
    window.resize(1280, 800)
    qtbot.waitUntil(lambda: window.width() == 1280)
    for label in (status.sync_label, status.sweep, status.team_facts, status.pause, status.pacing):
        label.setText(LONG)
        label.show()
    status.push_label.setText(LONG)
    status.push_label.show()
    assert window.minimumSizeHint().width() <= 1000, window.minimumSizeHint()
    assert window.minimumWidth() <= 1000
    assert window.width() == 1280
    assert status.sweep.toolTip() == LONG  # all of it, on hovering
