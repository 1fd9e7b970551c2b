"""PNGs for people to look at (issue 14 points 5, 6, 10): Help ▸ Keyboard shortcuts, and the
window with its Edit menu's grid commands and worded toolbar, on the demo show.

Saved to the folder named by `SHOWDESK_SCREENSHOTS` (else the test's own temporary folder).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import qasync

from app.sim import SimServer, generate_show
from app.ui.window import navigation
from tests.gui.conftest import Opener, config, profile_for, save_screenshot, wait_synced

pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")


def test_screenshot_of_the_keyboard_shortcuts(
    loop: qasync.QEventLoop, open_window: Opener, tmp_path: Path
) -> None:
    with SimServer(generate_show("demo", seed=1), config()) as server:
        opened = open_window(profile_for(server, "Demo show"))
        window = opened.window
        window.resize(1600, 1000)
        wait_synced(loop, opened.session)
        window.open_resource("customers")
        shots = [save_screenshot(window, "worded-toolbar.png", tmp_path)]
        window.actions_["shortcuts"].trigger()
        dialog = window.findChild(navigation.ShortcutsDialog, "shortcuts-dialog")
        assert dialog is not None
        dialog.resize(900, 780)
        shots.append(save_screenshot(dialog, "shortcuts.png", tmp_path))
        dialog.close()
    assert all(shot.stat().st_size > 10_000 for shot in shots)
