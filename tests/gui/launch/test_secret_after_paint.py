"""A profile whose secret the keyring does not have is shown from disk first, and its secret is
asked for when it connects — after the window's first paint (issue 17); no secret given, the show
is closed again and `showdesk` ends as when nothing was opened."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import qasync
import shiboken6
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QDialog, QWidget

from app.profile.settings import SECRET_ENV, Profile, ProfileStore
from app.ui.launch.show_desk import ShowDesk
from app.ui.session.tasks import TaskRunner
from app.ui.window import profile_dialog
from app.ui.window.main_window import MainWindow


class RefusedDialog:
    """The profile dialog, closed with Cancel; it counts how often it was shown."""

    shown = 0

    def __init__(self, store: ProfileStore, profile: Profile | None, parent: QWidget) -> None:
        self.profile_shown = profile

    def exec(self) -> QDialog.DialogCode:
        RefusedDialog.shown += 1
        return QDialog.DialogCode.Rejected


@pytest.fixture
def desk(
    loop: qasync.QEventLoop, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[ShowDesk]:
    monkeypatch.delenv(SECRET_ENV, raising=False)
    monkeypatch.setattr(profile_dialog, "ProfileDialog", RefusedDialog)
    RefusedDialog.shown = 0
    tasks = TaskRunner()
    window = MainWindow(QSettings(str(tmp_path / "w.ini"), QSettings.Format.IniFormat), tasks)
    made = ShowDesk(window, tasks, tell=lambda _text: None, connect_later=True)
    yield made
    loop.run_until_complete(made.close())
    window.close()
    shiboken6.delete(window)


def test_the_secret_is_asked_for_when_the_show_connects_not_before_it_is_shown(
    desk: ShowDesk,
) -> None:
    profile = Profile("Spring show", "http://127.0.0.1:9/api", "http://127.0.0.1:9/token", "S1")
    ProfileStore().save(profile)  # and no secret in the keyring

    desk.open_saved(profile.name)

    assert desk.is_open and desk.window.local is not None  # its tree, from disk
    assert RefusedDialog.shown == 0

    assert desk.connect() is None  # the secret is asked for, and not given

    assert RefusedDialog.shown == 1
    assert desk.declined and not desk.is_open and desk.window.local is None
