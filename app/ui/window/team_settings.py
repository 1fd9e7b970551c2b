"""The profile dialog's "Team" section: the team database, who I am to the team, its password.

Empty, the profile stays solo (no server, nothing of team mode loaded). The URL is checked where
it is typed (`app.team.database.check_url`): a URL carrying a password is refused at the field
with the reason, because any user of the machine can read a command line. The password goes to
the OS keyring (`SecretStore.set(profile, pw, "team")`), never into the profile file; left empty,
libpq's own pgpass file is used. "Test team connection" opens the team on a worker thread (the
connect may take seconds) and says the result in words.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFormLayout, QGroupBox, QLabel, QLineEdit, QPushButton, QWidget

from app.profile.settings import Profile, SecretStore
from app.ui.common.dialog_work import DialogWork
from app.ui.common.palette import Hue, text_style

URL_HINT = "postgresql://user@server/database — empty: work on your own"
PASSWORD_NEW = "Kept in the OS keyring"
PASSWORD_KEPT = "Stored — leave empty to keep it"


class TeamSettings(QGroupBox):
    """The team part of a profile.

    Signals: `test_finished(bool, str)` — "Test team connection" has an answer (ok, words).
    """

    test_finished = Signal(bool, str)

    def __init__(
        self, secrets: SecretStore, current: Callable[[], Profile], parent: QWidget | None = None
    ) -> None:
        super().__init__("Team", parent)
        self._secrets = secrets
        self._current = current  # the profile as the dialog has it now
        self._test = DialogWork(self)  # on the window's loop, or a thread before it exists
        self._test.finished.connect(self._tested)
        self.url = QLineEdit(self, placeholderText=URL_HINT)
        self.url_error = QLabel(self, wordWrap=True)
        self.url_error.setStyleSheet(text_style(Hue.ERROR))
        self.url_error.hide()
        self.member = QLineEdit(self, placeholderText="user@host")
        self.password = QLineEdit(self, echoMode=QLineEdit.EchoMode.Password)
        self.password.setPlaceholderText(PASSWORD_NEW)
        self.password.setToolTip(
            "Saved in the OS keyring, never in the profile file. Left empty, the password "
            "comes from a pgpass file (~/.pgpass or PGPASSFILE)."
        )
        self.test_button = QPushButton("Test team connection", self)
        self.result = QLabel(self, wordWrap=True)
        self.result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        form = QFormLayout(self)
        form.addRow("Team database", self.url)
        form.addRow("", self.url_error)
        form.addRow("Member name", self.member)
        form.addRow("Database password", self.password)
        form.addRow(self.test_button, self.result)
        self.url.textChanged.connect(self.on_url_edited)
        self.test_button.clicked.connect(self.on_test_clicked)

    # ------------------------------------------------------------------------------- API

    def load(self, profile: Profile | None) -> None:
        self.url.setText((profile.team_url or "") if profile else "")
        self.member.setText(profile.team_member if profile else "")
        stored = profile is not None and profile.team_url and self._secrets.get(profile, "team")
        self.password.setPlaceholderText(PASSWORD_KEPT if stored else PASSWORD_NEW)
        self.url_error.hide()

    def values(self) -> dict[str, Any]:
        """The profile's team fields: no URL is a solo profile."""
        return {"team_url": self.url.text().strip() or None, "team_member": self.member.text()}

    def problem(self) -> str | None:
        """Why the URL cannot be used (None: empty or fine); the driver only loads for a URL."""
        text = self.url.text().strip()
        if not text:
            return None
        from app.team.database import TeamError, check_url

        try:
            check_url(text)
        except TeamError as exc:
            return str(exc)
        return None

    def validate(self) -> str | None:
        """Check the URL and say the problem under it."""
        problem = self.problem()
        self.url_error.setText(problem or "")
        self.url_error.setVisible(bool(problem))
        return problem

    def store_password(self, old: Profile | None, new: Profile) -> bool:
        """The password typed (or the one stored, when the profile was renamed) to the keyring
        entry of `new`; a solo profile keeps none. False: the keyring kept it for this session
        only."""
        typed = self.password.text()
        moved = old is not None and (old.name, old.show_id) != (new.name, new.show_id)
        if old is not None and old.team_url and (moved or not new.team_url):
            typed = typed or self._secrets.get(old, "team") or ""  # it moves with the profile
            self._secrets.forget(old, "team")
        if typed and new.team_url:
            return self._secrets.set(new, typed, "team")
        return True

    def cancel_test(self) -> None:
        self._test.cancel()

    # ------------------------------------------------------------------------------ slots

    def on_url_edited(self, text: str) -> None:
        """Re-check as the user types once a message shows, and at once for a password."""
        if text.strip():
            from app.team.database import default_member

            self.member.setPlaceholderText(default_member())
        if self.url_error.isVisibleTo(self) or "@" in text.partition("//")[2]:
            self.validate()

    def on_test_clicked(self) -> None:
        if self.validate():
            self._say("Fix the team database URL first.", ok=False)
            return
        profile = self._current()
        if not profile.team_url:
            self._say("Enter the team database's URL to test it.", ok=False)
            return
        self.test_button.setEnabled(False)
        self._say("Testing the team database…", ok=True)
        self._test.start(functools.partial(_check, profile, self.password.text() or None))

    def _tested(self, answer: tuple[bool, str]) -> None:
        ok, text = answer
        self._say(text, ok=ok)
        self.test_button.setEnabled(True)
        self.test_finished.emit(ok, text)

    def _say(self, text: str, *, ok: bool) -> None:
        self.result.setText(text)
        self.result.setStyleSheet(text_style(Hue.OK if ok else Hue.ERROR))


async def _check(profile: Profile, password: str | None) -> tuple[bool, str]:
    from app.profile.connect import check_team_connection

    try:
        return await asyncio.to_thread(check_team_connection, profile, password)
    except Exception as exc:  # a bug in the test must still end in a visible answer
        return False, f"The test itself failed: {exc}"
