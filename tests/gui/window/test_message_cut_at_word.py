"""Issue 30, item 5: "a message cut mid-word ('…1 change stays penc')". At 1280 px, a message
too long for the status bar is written up to its last whole word that fits, then "…", and the
whole of it is the bar's tooltip."""

from __future__ import annotations

import pytest
import qasync
from pytestqt.qtbot import QtBot

from app.sim import SimServer
from tests.gui.conftest import Opened, Opener, profile_for, wait_synced

SAID = (
    "Not pushed: the show cannot be reached — 1 change stays pending, nothing is lost "
    "(Customers list (GET /Customer): connection refused by 127.0.0.1). It is pushed when "
    "the show answers again; File ▸ Profiles… checks the address in the meantime."
)


@pytest.fixture
def opened(
    loop: qasync.QEventLoop, open_window: Opener, tiny_server: SimServer, qtbot: QtBot
) -> Opened:
    opened: Opened = open_window(profile_for(tiny_server))
    wait_synced(loop, opened.session)
    opened.window.resize(1280, 800)
    qtbot.waitUntil(lambda: opened.window.status.width() >= 1200)
    return opened


def test_a_long_message_is_cut_after_a_whole_word_and_whole_in_its_tooltip(
    opened: Opened, qtbot: QtBot
) -> None:
    bar = opened.window.status
    assert opened.window.width() == 1280
    bar.show_message(SAID)
    qtbot.waitUntil(lambda: bar.currentMessage() == SAID)
    shown = bar.shown_message()

    assert shown.endswith("…") and len(shown) < len(SAID)
    kept = shown[:-1]
    assert kept and SAID.startswith(kept)
    assert kept[-1].isalnum() and not SAID[len(kept)].isalnum()  # after a whole word
    room = bar.message_room()
    assert bar.fontMetrics().horizontalAdvance(shown) <= room.width()  # it is all in sight
    beside = [w for w in bar.children() if getattr(w, "isVisible", None) and w.isVisible()]
    assert all(room.right() < w.x() for w in beside if w.x() > room.left())  # under nothing
    assert bar.toolTip() == SAID  # the whole of it on hovering
    assert not bar.grab().isNull()  # painted as read
