"""Issue 30, items 9 and 16 as whole flows, from a fresh profile against a separate simulator: the
first run's "Connect to a show…" opens the profile editor, whose Test connection answers (it
never stays at "Testing the connection…"), Save keeps the profile and its secret, and the show
opens and syncs; with a wrong secret, the test and then the window say which credential the
show refused, why, and where to fix it, and the message stays — every dialog real and modal,
clicked as a user would."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import qasync
import shiboken6
from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication

from app.api.check import ConnectionCheck
from app.profile.settings import Profile, ProfileStore, SecretStore
from app.sim import SimServer, generate_show
from app.ui.launch.first_run import FirstRunDialog
from app.ui.launch.show_desk import ShowDesk
from app.ui.session.tasks import TaskRunner
from app.ui.window.main_window import MainWindow
from app.ui.window.profile_dialog import ProfileDialog
from tests.gui.conftest import SECRET, config, until, wait_synced
from tests.gui.window.test_profile_dialog import fill


class FirstRunUser:
    """Answers each modal dialog the first run shows, once it is shown: "Connect to a show…";
    then the profile, Test connection, and Save once the test has answered."""

    def __init__(self, profile: Profile, secret: str = SECRET) -> None:
        self.profile, self.secret = profile, secret
        self.answers: list[ConnectionCheck] = []
        self.seen: list[str] = []

    def start(self) -> None:
        QTimer.singleShot(0, self.answer)

    def answer(self) -> None:
        shown = QApplication.activeModalWidget()
        if isinstance(shown, FirstRunDialog) and "first run" not in self.seen:
            self.seen.append("first run")
            shown.connect_button.click()
        elif isinstance(shown, ProfileDialog) and "profile" not in self.seen:
            self.seen.append("profile")
            fill(shown, self.profile, self.secret)
            shown.test_finished.connect(lambda check: self.tested(shown, check))
            shown.test_button.click()
            return
        if len(self.seen) < 2:
            QTimer.singleShot(10, self.answer)  # the next dialog is not up yet

    def tested(self, dialog: ProfileDialog, check: ConnectionCheck) -> None:
        self.answers.append(check)
        self.said = dialog.test_result.text()
        dialog.save_button.click()


@pytest.fixture
def desk(loop: qasync.QEventLoop, tmp_path: Path) -> Iterator[ShowDesk]:
    """A window never run before: the test's own fresh profile and settings folders (the suite's
    `user_dirs`, and the window's settings file in `tmp_path`), its main window made and its desk
    on it, as the app makes them before the first run's choice (app/ui/launch/app.py: the window
    is shown after). Afterwards the desk is closed, every task of its runner cancelled, and the
    window closed and deleted here, on the GUI thread."""
    tasks = TaskRunner()
    window = MainWindow(QSettings(str(tmp_path / "w.ini"), QSettings.Format.IniFormat), tasks)
    opened = ShowDesk(window, tasks, tell=lambda _text: None)
    yield opened
    loop.run_until_complete(opened.close())
    loop.run_until_complete(tasks.cancel_all())
    window.close()
    shiboken6.delete(window)


def test_the_first_run_connects_tests_saves_and_opens_the_show(
    loop: qasync.QEventLoop, desk: ShowDesk
) -> None:
    assert ProfileStore().all() == []  # the very first run
    window = desk.window
    with SimServer(generate_show("tiny", seed=4), config(rate_limit=300)) as server:
        ours = Profile("Our show", server.base_url, server.auth_url, server.show_id)
        user = FirstRunUser(ours)
        user.start()
        session = desk.first_run()
        assert user.seen == ["first run", "profile"]
        assert len(user.answers) == 1 and user.answers[0].ok, user.answers
        assert user.said == user.answers[0].message and "Testing" not in user.said
        assert session is not None and session.profile.name == "Our show"
        window.show()
        wait_synced(loop, session)
        assert session.online is True
        assert session.cache.count("customers") == len(server.show.records("customers"))
        assert ProfileStore().get("Our show") is not None
        assert SecretStore().get(ours) == SECRET  # in the keyring, not in a file
        loop.run_until_complete(desk.close())  # the session ends while its show still answers


def test_the_first_run_with_a_wrong_secret_says_which_credential_and_where_to_fix_it(
    loop: qasync.QEventLoop, desk: ShowDesk
) -> None:
    window = desk.window
    with SimServer(generate_show("tiny", seed=4), config(rate_limit=300)) as server:
        ours = Profile("Our show", server.base_url, server.auth_url, server.show_id)
        user = FirstRunUser(ours, secret="not-the-secret")
        user.start()
        session = desk.first_run()
        assert len(user.answers) == 1 and not user.answers[0].ok
        assert "secret" in user.said.lower(), user.said  # the test names the credential
        assert session is not None
        window.show()
        status = window.status
        loop.run_until_complete(until(lambda: "refused" in status.currentMessage(), 30))
        said = status.currentMessage()
        assert said.index("invalid_client") < 80, said  # the reason, before anything is cut
        assert "client secret" in said and "Profiles" in said, said
        loop.run_until_complete(until(lambda: not session.tasks.busy, 30))
        assert status.currentMessage() == said  # it stays: not gone in seconds
        loop.run_until_complete(desk.close())  # the session ends while its show still answers
