"""A profile whose secret the keyring does not have is shown from disk first, and its secret is
asked for when it connects — after the window's first paint (issue 17) — in a small sign-in
prompt, not the profile editor (issue 30, point 3). No secret given, the show stays open from
its cache, offline, and the window says so; a machine without a keyring is told once, plainly,
that the secret is kept for this session."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import qasync
import shiboken6
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QDialog, QWidget
from pytestqt.qtbot import QtBot

from app.profile.settings import KEYRING_SERVICE, SECRET_ENV, Profile, ProfileStore, SecretStore
from app.sim import SimServer, generate_show
from app.ui.launch import show_desk
from app.ui.launch.show_desk import ShowDesk
from app.ui.launch.sign_in import KEYRING_NOTE, SignInPrompt
from app.ui.session.tasks import TaskRunner
from app.ui.window.main_window import MainWindow
from tests.conftest import MemoryKeyring
from tests.gui.conftest import SECRET, config, profile_for, until


class Prompt:
    """The sign-in prompt, answered as a user would: with `answer` typed, or Work offline
    (None); it counts how often it was shown."""

    shown = 0
    answer: str | None = None

    def __init__(self, profile: Profile, store: SecretStore, parent: QWidget) -> None:
        self.real = SignInPrompt(profile, store, parent)

    def exec(self) -> QDialog.DialogCode:
        Prompt.shown += 1
        if Prompt.answer is None:
            self.real.offline_button.click()
        else:
            self.real.secret_field.setText(Prompt.answer)
            self.real.sign_in_button.click()
        return QDialog.DialogCode(self.real.result())

    def secret(self) -> str | None:
        return self.real.secret()

    def deleteLater(self) -> None:
        self.real.deleteLater()


@pytest.fixture
def desk(
    loop: qasync.QEventLoop, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[ShowDesk]:
    monkeypatch.delenv(SECRET_ENV, raising=False)
    monkeypatch.setattr(show_desk, "SignInPrompt", Prompt)
    Prompt.shown, Prompt.answer = 0, None
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
    assert Prompt.shown == 0
    assert "Spring show" in desk.window.status.profile.text()

    assert desk.connect() is None  # the secret is asked for, and "Work offline" chosen

    assert Prompt.shown == 1
    # The show stays, from its cache, and the window says why it is offline.
    assert desk.is_open and desk.window.local is not None and desk.window.session is None
    assert "(offline)" in desk.window.windowTitle()
    assert desk.window.status.currentMessage().startswith("Working offline: not signed in")
    assert desk.window.status.connection.text() != "Online"


def test_a_secret_given_in_the_prompt_connects_and_is_kept(
    desk: ShowDesk, loop: qasync.QEventLoop, memory_keyring: MemoryKeyring
) -> None:
    with SimServer(generate_show("tiny"), config(throttle=False)) as server:
        profile = profile_for(server, "Sim show")
        ProfileStore().save(profile)
        Prompt.answer = SECRET
        desk.open_saved(profile.name)
        session = desk.connect()
        assert session is not None and Prompt.shown == 1
        loop.run_until_complete(until(lambda: session.online is True))
        assert memory_keyring.store == {(KEYRING_SERVICE, "Sim show:GUI-SHOW"): SECRET}
        loop.run_until_complete(desk.close())


def test_without_a_keyring_the_prompt_says_so_and_keeps_the_secret_for_the_session(
    qtbot: QtBot, memory_keyring: MemoryKeyring
) -> None:
    memory_keyring.broken = True
    store = SecretStore()
    profile = Profile("Spring show", "https://api.example.test/v1", "https://x/token", "S1")
    assert store.get(profile) is None  # the keyring is asked first, and fails
    prompt = SignInPrompt(profile, store)
    qtbot.addWidget(prompt)
    prompt.show()
    assert "no working keyring" in prompt.note.text() and "this session only" in prompt.note.text()
    assert "S1" in prompt.intro.text() and "api.example.test" in prompt.intro.text()
    assert not prompt.sign_in_button.isEnabled()  # nothing typed yet
    qtbot.keyClicks(prompt.secret_field, "typed-secret")
    assert prompt.sign_in_button.isEnabled()
    qtbot.keyClick(prompt.secret_field, Qt.Key.Key_Return)
    assert prompt.result() == QDialog.DialogCode.Accepted
    assert store.get(profile) == "typed-secret"  # for this session, in memory


def test_with_a_keyring_the_prompt_says_where_the_secret_goes(qtbot: QtBot) -> None:
    profile = Profile("Spring show", "https://api.example.test/v1", "https://x/token", "S1")
    prompt = SignInPrompt(profile, SecretStore())
    qtbot.addWidget(prompt)
    assert prompt.note.text() == KEYRING_NOTE


def test_reopening_profiles_without_a_keyring_asks_plainly_and_never_leaves_an_empty_window(
    desk: ShowDesk,
    loop: qasync.QEventLoop,
    memory_keyring: MemoryKeyring,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 30, item 4, the whole flow: with no keyring, opening a profile from File ▸
    Profiles… showed the profile editor ("Stored — leave empty to keep it"), and saving it empty
    left "No show is open", every button grey, no message, the status bar naming the other
    show. Now: the sign-in prompt, saying there is no keyring; "Work offline" keeps the show
    open from its cache and says so; a secret typed once serves this session's reopenings."""
    memory_keyring.broken = True
    monkeypatch.setattr(show_desk, "secrets", SecretStore())  # this session's memory, fresh
    notes: list[str] = []
    original_init = Prompt.__init__

    def noting(self: Prompt, profile: Profile, store: SecretStore, parent: QWidget) -> None:
        original_init(self, profile, store, parent)
        notes.append(self.real.note.text())

    monkeypatch.setattr(Prompt, "__init__", noting)
    window = desk.window
    with SimServer(generate_show("tiny", seed=3), config(throttle=False)) as server:
        spring, fall = profile_for(server, "Spring show"), profile_for(server, "Fall show")
        ProfileStore().save(spring)
        ProfileStore().save(fall)
        Prompt.answer = SECRET
        desk.open_saved(spring.name)
        first = desk.connect()
        assert first is not None and Prompt.shown == 1
        assert "no working keyring" in notes[-1] and "this session only" in notes[-1]
        loop.run_until_complete(until(lambda: first.online is True))

        Prompt.answer = None  # File ▸ Profiles… ▸ Fall show, then "Work offline"
        window.profile_requested.emit(fall.name)
        loop.run_until_complete(
            until(lambda: window.status.currentMessage().startswith("Working offline"))
        )
        assert Prompt.shown == 2 and "no working keyring" in notes[-1]
        assert desk.is_open and window.local is not None and window.session is None
        assert "Fall show" in window.status.profile.text()  # not the show closed before
        assert "Fall show" in window.windowTitle() and "(offline)" in window.windowTitle()

        Prompt.answer = SECRET  # Fall show again, signing in this time
        window.profile_requested.emit(fall.name)
        loop.run_until_complete(
            until(lambda: window.session is not None and window.session.online is True)
        )
        assert Prompt.shown == 3 and window.session is not None
        assert window.session.profile.name == "Fall show"

        window.profile_requested.emit(spring.name)  # its secret kept for this session
        loop.run_until_complete(
            until(
                lambda: (
                    window.session is not None
                    and window.session.profile.name == "Spring show"
                    and window.session.online is True
                )
            )
        )
        assert Prompt.shown == 3  # not asked again
        assert "Spring show" in window.status.profile.text()
