"""`showdesk --demo` (what `make run` opens) and `showdesk` alone reopening the last profile."""

from __future__ import annotations

from pathlib import Path

import qasync
import shiboken6
from PySide6.QtCore import QSettings

from app.profile.demo import DEMO_PROFILE
from app.profile.settings import ProfileStore
from app.ui.launch.show_desk import ShowDesk
from app.ui.session.tasks import TaskRunner
from app.ui.window.main_window import MainWindow
from tests.gui.conftest import wait_synced
from tests.gui.window.test_main_window import _tree_texts


def test_the_demo_opens_syncs_with_progress_and_is_reopened_next_time(
    loop: qasync.QEventLoop, tmp_path: Path
) -> None:
    tasks = TaskRunner()
    window = MainWindow(QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat), tasks)
    desk = ShowDesk(window, tasks)
    try:
        progress: list[str] = []
        session = desk.open_demo()
        session.sync_progress.connect(lambda p: progress.append(window.status.sync_label.text()))
        window.show()
        wait_synced(loop, session)

        assert session.online is True
        assert DEMO_PROFILE in window.windowTitle()
        assert DEMO_PROFILE in window.status.profile.text()
        assert any(text.startswith("Syncing Customers…") for text in progress)
        customers = session.cache.count("customers")
        assert customers >= 250  # a small real show, not a toy
        assert f"Customers ({customers:,})" in _tree_texts(window)
        loop.run_until_complete(desk.close())

        # `showdesk` alone: the last profile is the demo, and it opens again on its cache.
        assert ProfileStore().last == DEMO_PROFILE
        again = desk.open_saved(ProfileStore().last)
        assert again is not None
        assert again.cache.count("customers") == customers  # the cache survived
        wait_synced(loop, again)
        assert again.online is True
    finally:
        loop.run_until_complete(desk.close())
        window.close()
        shiboken6.delete(window)
