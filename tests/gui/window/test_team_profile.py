"""The profile dialog's Team section: URL checked at the field, the password to the keyring only,
a solo profile left solo, and "Test team connection" against a real PostgreSQL, in the
background."""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from dataclasses import replace

import pytest
import qasync
from PySide6.QtCore import QTimer

from app.profile.settings import KEYRING_SERVICE, ProfileStore, SecretStore
from app.ui.window.profile_dialog import ProfileDialog
from tests.conftest import MemoryKeyring
from tests.gui.conftest import until
from tests.gui.window.test_profile_dialog import a_profile, fill, make, secret_store, store
from tests.team.conftest import pg_server, team_url

__all__ = ["make", "pg_server", "secret_store", "store", "team_url"]  # fixtures used here


def test_a_url_with_a_password_is_refused_at_the_field(
    make: Callable[..., ProfileDialog], store: ProfileStore
) -> None:
    dialog = make()
    fill(dialog, a_profile())
    dialog.team.url.setText("postgresql://bob:hunter2@db.example/show")
    assert dialog.team.url_error.isVisibleTo(dialog)  # at once, while typing
    assert "keyring" in dialog.team.url_error.text()
    assert "hunter2" not in dialog.team.url_error.text()
    dialog.save_button.click()
    assert store.all() == [] and dialog.result() == 0  # not saved
    dialog.team.url.setText("postgresql://bob@db.example/show")
    assert not dialog.team.url_error.isVisibleTo(dialog)
    dialog.team.url.setText("mysql://db.example/show")
    dialog.save_button.click()
    assert "postgresql://" in dialog.team.url_error.text()


def test_the_password_goes_to_the_keyring_never_to_the_profile_file(
    make: Callable[..., ProfileDialog], store: ProfileStore, memory_keyring: MemoryKeyring
) -> None:
    dialog = make()
    fill(dialog, a_profile("Fall show", "FALL-1"), secret="client-secret")
    dialog.team.url.setText("postgresql://ann@db.example/fall")
    assert "@" in dialog.team.member.placeholderText()  # user@host unless named
    dialog.team.member.setText("ann")
    dialog.team.password.setText("db-password")
    dialog.save_button.click()
    saved = store.get("Fall show")
    assert saved is not None
    assert (saved.team_url, saved.team_member) == ("postgresql://ann@db.example/fall", "ann")
    assert memory_keyring.store[(KEYRING_SERVICE, "Fall show:FALL-1:team")] == "db-password"
    assert "db-password" not in store.path.read_text()


def test_a_rename_moves_the_team_password_and_a_solo_profile_keeps_none(
    make: Callable[..., ProfileDialog],
    store: ProfileStore,
    secret_store: SecretStore,
    memory_keyring: MemoryKeyring,
) -> None:
    team = replace(a_profile("Old"), team_url="postgresql://ann@db.example/x")
    store.save(team)
    secret_store.set(team, "db-password", "team")
    dialog = make(team)
    assert dialog.team.url.text() == team.team_url
    assert dialog.team.password.text() == "" and "Stored" in dialog.team.password.placeholderText()
    dialog.name.setText("New")
    dialog.save_button.click()
    assert memory_keyring.store == {(KEYRING_SERVICE, "New:SHOW-1:team"): "db-password"}
    renamed = store.get("New")
    assert renamed is not None
    dialog = make(renamed)
    dialog.team.url.setText("")  # back to working alone
    dialog.save_button.click()
    solo = store.get("New")
    assert solo is not None and solo.team_url is None
    assert memory_keyring.store == {}


def test_a_solo_profile_shows_the_section_empty_and_stays_solo(
    make: Callable[..., ProfileDialog], store: ProfileStore, memory_keyring: MemoryKeyring
) -> None:
    store.save(a_profile())
    dialog = make(a_profile())
    assert dialog.team.url.text() == "" and dialog.team.member.text() == ""
    dialog.save_button.click()
    saved = store.get("Spring show")
    assert saved is not None and saved.team_url is None and saved.team_member == ""
    assert not any(account.endswith(":team") for _, account in memory_keyring.store)


# ------------------------------------------------------------------- test team connection


def run_team_test(loop: qasync.QEventLoop, dialog: ProfileDialog) -> tuple[bool, str, int]:
    """Click "Test team connection"; (ok, words, timer ticks the window had meanwhile)."""
    results: list[tuple[bool, str]] = []
    dialog.team.test_finished.connect(lambda ok, text: results.append((ok, text)))
    ticks: list[int] = []
    timer = QTimer(dialog, interval=50)
    timer.timeout.connect(lambda: ticks.append(1))

    async def scenario() -> None:
        timer.start()
        dialog.team.test_button.click()
        assert not dialog.team.test_button.isEnabled()
        await until(lambda: bool(results), within=30)
        timer.stop()

    loop.run_until_complete(scenario())
    return (*results[0], len(ticks))


def test_test_team_connection_opens_the_team_and_says_so(
    loop: qasync.QEventLoop, make: Callable[..., ProfileDialog], team_url: str
) -> None:
    dialog = make()
    fill(dialog, a_profile())
    dialog.team.url.setText(team_url)
    dialog.team.member.setText("ann")
    ok, text, _ = run_team_test(loop, dialog)
    assert ok and text == "Connected to the team database as ann: 1 member, 1 online."
    assert dialog.team.result.text() == text and dialog.team.test_button.isEnabled()


@pytest.fixture
def silent_server() -> Iterator[int]:
    """A port that accepts connections and never answers: a database that does not respond."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(4)
        yield int(listener.getsockname()[1])


def test_a_database_that_does_not_answer_never_freezes_the_dialog(
    loop: qasync.QEventLoop, make: Callable[..., ProfileDialog], silent_server: int
) -> None:
    dialog = make()
    fill(dialog, a_profile())
    dialog.team.url.setText(f"postgresql://ann@127.0.0.1:{silent_server}/team")
    ok, text, ticks = run_team_test(loop, dialog)
    assert not ok and text.startswith("The team database cannot be reached")
    assert ticks > 10  # the window went on turning while the connection waited
