"""The list of saved show profiles: add, edit, remove (after a confirmation), open.

`ProfileManager` edits a profile in a `ProfileDialog` unless another editor is passed in; the
editor and the confirmation are injectable so tests need no modal loops.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.profile.settings import Profile, ProfileStore, SecretStore, secrets
from app.ui.window.profile_dialog import ProfileDialog

Editor = Callable[[Profile | None], bool]
Confirm = Callable[[str], bool]


class ProfileManager(QDialog):
    """The saved profiles: add, edit, remove (after a confirmation), open.

    Signals: `open_requested(str)` with the name of the profile to open.
    """

    open_requested = Signal(str)

    def __init__(
        self,
        store: ProfileStore,
        parent: QWidget | None = None,
        *,
        secret_store: SecretStore = secrets,
        editor: Editor | None = None,
        confirm: Confirm | None = None,
    ) -> None:
        super().__init__(parent)
        self._store = store
        self._secrets = secret_store
        self._editor = editor  # None: the defaults (a bound method here would be a cycle)
        self._confirm = confirm
        self.setWindowTitle("Show profiles")
        self.list = QListWidget(self)
        self.buttons = {n: QPushButton(n, self) for n in ("Add…", "Edit…", "Remove", "Open")}
        self._lay_out()
        self.refresh()

    def refresh(self, select: str | None = None) -> None:
        current = select or self.selected_name() or self._store.last
        self.list.clear()
        for profile in self._store.all():
            item = QListWidgetItem(f"{profile.name} — show {profile.show_id}", self.list)
            item.setData(Qt.ItemDataRole.UserRole, profile.name)
            if profile.name == current:
                self.list.setCurrentItem(item)
        if self.list.currentItem() is None and self.list.count():
            self.list.setCurrentRow(0)
        self.on_list_selection_changed()

    def selected_name(self) -> str | None:
        item = self.list.currentItem()
        return None if item is None else str(item.data(Qt.ItemDataRole.UserRole))

    # ------------------------------------------------------------------------------ slots

    def on_add_clicked(self) -> None:
        before = {p.name for p in self._store.all()}
        if (self._editor or self._edit_in_dialog)(None):
            added = [p.name for p in self._store.all() if p.name not in before]
            self.refresh(added[0] if added else None)

    def on_edit_clicked(self) -> None:
        profile = self._selected()
        if profile is not None and (self._editor or self._edit_in_dialog)(profile):
            self.refresh()

    def on_remove_clicked(self) -> None:
        profile = self._selected()
        question = "Remove the profile “{}”? Its stored secret is forgotten; cached data stays."
        if profile is not None and (self._confirm or self._ask)(question.format(profile.name)):
            self._store.remove(profile.name)
            self._secrets.forget(profile)
            self.refresh()

    def on_open_clicked(self) -> None:
        name = self.selected_name()
        if name is not None:
            self.open_requested.emit(name)
            self.accept()

    def on_list_selection_changed(self) -> None:
        chosen = self.list.currentItem() is not None
        for name in ("Edit…", "Remove", "Open"):
            self.buttons[name].setEnabled(chosen)

    # -------------------------------------------------------------------------- internals

    def _selected(self) -> Profile | None:
        name = self.selected_name()
        return None if name is None else self._store.get(name)

    def _edit_in_dialog(self, profile: Profile | None) -> bool:
        dialog = ProfileDialog(self._store, profile, self, secret_store=self._secrets)
        try:
            return dialog.exec() == QDialog.DialogCode.Accepted
        finally:
            dialog.deleteLater()

    def _ask(self, question: str) -> bool:
        answer = QMessageBox.question(self, "Remove profile", question)
        return answer == QMessageBox.StandardButton.Yes

    def _lay_out(self) -> None:
        column = QVBoxLayout()
        slots = (self.on_add_clicked, self.on_edit_clicked, self.on_remove_clicked)
        for button, slot in zip(self.buttons.values(), (*slots, self.on_open_clicked), strict=True):
            button.clicked.connect(slot)
            column.addWidget(button)
        column.addStretch(1)
        self.buttons["Open"].setDefault(True)
        self.list.currentItemChanged.connect(self.on_list_selection_changed)
        self.list.itemDoubleClicked.connect(self.on_open_clicked)
        layout = QHBoxLayout(self)
        layout.addWidget(self.list, 1)
        layout.addLayout(column)
