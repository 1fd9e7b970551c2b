"""Issue 30, point 8: the keyboard day's first step, opening a profile from the keyboard alone,
in a window run by ShowDesk as the app runs it (its File ▸ Profiles… opens a show in it; the
day itself is tests/gui/window/test_keyboard_day.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
import qasync
import shiboken6
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QApplication, QMenu
from pytestqt.qtbot import QtBot

from app.profile.settings import ProfileStore, SecretStore
from app.sim import SimServer, generate_show
from app.ui.launch.show_desk import ShowDesk
from app.ui.session.tasks import TaskRunner
from app.ui.window.main_window import MainWindow
from app.ui.window.profile_manager import ProfileManager
from tests.gui.conftest import SECRET, config, profile_for, until
from tests.gui.window.test_keyboard_day import press, tab_until


@pytest.mark.qt_log_ignore("support raise", "grabbing the keyboard")  # offscreen: a popup's notes
def test_a_profile_is_opened_from_the_keyboard(
    loop: qasync.QEventLoop, qtbot: QtBot, tmp_path: Path
) -> None:
    """Alt+F opens the File menu, P its Profiles…; in the list of profiles, Home and Down to the
    other show, and Enter opens it ("Open", the default) in the window, the keyboard back in
    it."""
    tasks = TaskRunner()
    window = MainWindow(QSettings(str(tmp_path / "w.ini"), QSettings.Format.IniFormat), tasks)
    desk = ShowDesk(window, tasks, tell=lambda _text: None, connect_later=True)
    try:
        with SimServer(generate_show("tiny", seed=3), config(rate_limit=300)) as server:
            spring, fall = profile_for(server, "Spring show"), profile_for(server, "Fall show")
            for profile in (spring, fall):
                ProfileStore().save(profile)
                SecretStore().set(profile, SECRET)  # in the (test's) keyring
            desk.open_saved(spring.name)
            first = desk.connect()
            assert first is not None
            window.show()
            with qtbot.waitActive(window):
                window.activateWindow()
            qtbot.waitUntil(lambda: QApplication.focusWidget() is not None)
            press(qtbot, Qt.Key.Key_F, Qt.KeyboardModifier.AltModifier)  # the File menu
            qtbot.waitUntil(lambda: isinstance(QApplication.activePopupWidget(), QMenu))
            menu = QApplication.activePopupWidget()
            assert menu is not None
            qtbot.keyClick(menu, Qt.Key.Key_P)  # Profiles…
            qtbot.waitUntil(lambda: isinstance(QApplication.activeWindow(), ProfileManager))
            manager = QApplication.activeWindow()
            assert isinstance(manager, ProfileManager)
            tab_until(qtbot, manager.list)
            press(qtbot, Qt.Key.Key_Home)
            for _ in range(manager.list.count()):
                if manager.selected_name() == fall.name:
                    break
                press(qtbot, Qt.Key.Key_Down)
            assert manager.selected_name() == fall.name
            press(qtbot, Qt.Key.Key_Return)  # Open, the default button
            loop.run_until_complete(
                until(lambda: window.session is not None and window.session.online is True)
            )
            assert window.session is not None and window.session.profile.name == fall.name
            assert "Fall show" in window.status.profile.text()
            qtbot.waitUntil(lambda: window.isAncestorOf(QApplication.focusWidget()))
    finally:
        loop.run_until_complete(desk.close())
        window.close()
        shiboken6.delete(window)
