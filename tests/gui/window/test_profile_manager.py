"""Profile manager: lists, opens, removes (after asking, forgetting the secret), adds and edits."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from PySide6.QtCore import Qt, QTimer
from pytestqt.qtbot import QtBot

from app.profile.settings import Profile, ProfileStore, SecretStore
from app.ui.window.profile_dialog import ProfileDialog
from app.ui.window.profile_manager import ProfileManager
from tests.conftest import MemoryKeyring
from tests.gui.window.test_profile_dialog import a_profile, fill, secret_store, store

__all__ = ["secret_store", "store"]  # the dialog's fixtures, used here by name


@pytest.fixture
def manager_for(
    qtbot: QtBot, store: ProfileStore, secret_store: SecretStore
) -> Callable[..., ProfileManager]:
    def build(**options: Any) -> ProfileManager:
        manager = ProfileManager(store, secret_store=secret_store, **options)
        qtbot.addWidget(manager)
        return manager

    return build


def test_manager_lists_and_opens(
    qtbot: QtBot, store: ProfileStore, manager_for: Callable[..., ProfileManager]
) -> None:
    store.save(a_profile("A", "SA"))
    store.save(a_profile("B", "SB"))
    store.set_last("B")
    manager = manager_for()
    assert [manager.list.item(i).text() for i in range(2)] == ["A — show SA", "B — show SB"]
    assert manager.selected_name() == "B"
    with qtbot.waitSignal(manager.open_requested, timeout=1000) as blocker:
        manager.buttons["Open"].click()
    assert blocker.args == ["B"] and manager.result() == manager.DialogCode.Accepted


def test_manager_remove_asks_and_forgets_the_secret(
    store: ProfileStore,
    secret_store: SecretStore,
    memory_keyring: MemoryKeyring,
    manager_for: Callable[..., ProfileManager],
) -> None:
    store.save(a_profile("A"))
    secret_store.set(a_profile("A"), "x")
    answers = iter([False, True])
    manager = manager_for(confirm=lambda question: next(answers))
    manager.buttons["Remove"].click()
    assert store.get("A") is not None
    manager.buttons["Remove"].click()
    assert store.all() == [] and memory_keyring.store == {}
    assert manager.list.count() == 0 and not manager.buttons["Open"].isEnabled()


def test_manager_add_and_edit_through_the_editor(
    store: ProfileStore, manager_for: Callable[..., ProfileManager]
) -> None:
    edited: list[Profile | None] = []

    def editor(profile: Profile | None) -> bool:
        edited.append(profile)
        store.save(a_profile("Added") if profile is None else profile)
        return True

    store.save(a_profile("A"))
    manager = manager_for(editor=editor)
    manager.buttons["Add…"].click()
    assert manager.selected_name() == "Added" and manager.list.count() == 2
    manager.buttons["Edit…"].click()
    assert edited == [None, store.get("Added")]


@pytest.mark.qt_log_ignore("propagateSizeHints")  # the offscreen platform's note on any exec()
def test_manager_edits_in_a_profile_dialog_by_default(
    qtbot: QtBot, store: ProfileStore, manager_for: Callable[..., ProfileManager]
) -> None:
    manager = manager_for()

    def type_and_save() -> None:
        dialog = manager.findChild(ProfileDialog)
        assert dialog is not None and dialog.isVisible()
        fill(dialog, a_profile("Typed"))
        qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)

    QTimer.singleShot(0, type_and_save)
    manager.on_add_clicked()
    assert store.get("Typed") is not None and manager.selected_name() == "Typed"
