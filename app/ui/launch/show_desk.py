"""`ShowDesk`, the controller: opens a profile in the window, switches profiles, closes them.

`showdesk --demo` starts the embedded simulator and opens the "Demo show" profile on it;
`showdesk` alone opens the last profile, or offers the demo or a real show on first run.
A profile open in another ShowDesk process is refused (app/ui/launch/single_instance.py), and
unsaved form edits rescued by the crash path (app/ui/launch/crash.py) are offered back when it is
opened.
"""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Callable
from contextlib import ExitStack
from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QDialog, QWidget

from app.api.errors import InvalidValue, StoreUnavailable
from app.profile.drafts import DraftStash
from app.profile.local_show import LocalShow, open_local
from app.profile.settings import SECRET_ENV, Profile, ProfileStore, secrets
from app.ui.launch.first_run import FirstRunDialog
from app.ui.launch.session_start import connect_show
from app.ui.launch.sign_in import SignInPrompt
from app.ui.launch.single_instance import ProfileInUse, ProfileLock, in_use_elsewhere
from app.ui.session.tasks import TaskRunner
from app.ui.window.asking import ask_user, warning_box
from app.ui.window.main_window import MainWindow

if TYPE_CHECKING:  # the session talks to the show, the loop runs it: both after the first paint
    import asyncio

    from app.ui.session.session import ShowSession

log = logging.getLogger(__name__)

Ask = Callable[[str], bool]
# The profile to connect and its secret; None when the user gave none (nothing to connect).
Credentials = Callable[[], tuple[Profile, str] | None]
Tell = Callable[[str], None]
NOT_OPENED = "Show not opened"  # the title of what `tell` says (a profile refused or unwritable)


class ShowDesk:
    """Owns the window and the open show; opens, switches and closes profiles.

    A profile is held (`ProfileLock`) while open: one that another ShowDesk process holds is
    refused with a message (`refused` keeps why). `ask` and `tell` put questions and messages
    to the user (message boxes unless given).
    """

    def __init__(
        self,
        window: MainWindow,
        tasks: TaskRunner,
        *,
        ask: Ask | None = None,
        tell: Tell | None = None,
        connect_later: bool = False,
    ) -> None:
        self.window = window
        self.tasks = tasks
        self.ask: Ask = ask or functools.partial(_ask_user, window)
        self.tell: Tell = tell or functools.partial(_tell_user, window)
        self.refused: ProfileInUse | None = None
        self.offline = False  # asked for a profile's secret, the user chose to work offline
        self.failed: StoreUnavailable | InvalidValue | None = None  # why a profile did not open
        # `showdesk` paints the show from disk first, then connects (`connect`, after the paint).
        self.connect_later = connect_later
        self._connect: Callable[[], ShowSession | None] | None = None
        self._open: ExitStack | None = None
        self._demo = ExitStack()
        self._switching: asyncio.Future[None] | None = None
        window.profile_requested.connect(self.on_window_profile_requested)

    @property
    def is_open(self) -> bool:
        """A show is open in the window (connected or, with `connect_later`, not yet)."""
        return self._open is not None

    def open(self, profile: Profile, secret: str) -> ShowSession | None:
        """Open the profile in the window; None (and a message) if another process has it —
        or, with `connect_later`, until `connect()` (the show is shown, `is_open`)."""
        return self._open_show(profile, lambda: (profile, secret))

    def _open_show(self, profile: Profile, credentials: Credentials) -> ShowSession | None:
        """Show the profile's files in the window (its lock held), then connect through
        `credentials()`: the profile to connect (the same show, maybe at another address) and
        its secret — at once, or on `connect()` with `connect_later`."""
        stack = ExitStack()
        try:
            stack.enter_context(ProfileLock(profile))
            local = stack.enter_context(open_local(profile))
        except ProfileInUse as busy:
            stack.close()
            self.refuse(busy)
            return None
        except StoreUnavailable as problem:  # its files
            stack.close()
            self.cannot_open(profile, problem)
            return None
        self._open = stack
        self.offline = False
        ProfileStore().set_last(profile.name)
        self.window.show_local(local)
        self._connect = functools.partial(self._connect_show, local, credentials)
        return None if self.connect_later else self.connect()

    def connect(self) -> ShowSession | None:
        """Connect the open show (its client, sign-in, sync; the simulator of the demo):
        what `open` left for after the window's first paint. None: nothing to connect, or its
        settings cannot be used (said, and the show closed)."""
        connect, self._connect = self._connect, None
        return connect() if connect is not None and self._open is not None else None

    def _connect_show(self, local: LocalShow, credentials: Credentials) -> ShowSession | None:
        given = credentials()
        if given is None and self.offline:  # no secret given: the show stays, from its cache
            self.window.work_offline(
                "Working offline: not signed in to the show. What you edit waits in the outbox; "
                "to sign in, open this profile again (File ▸ Profiles…)."
            )
            return None
        if given is None:  # nothing to connect: the show is closed
            self._close_local()
            return None
        profile, secret = given
        try:
            session = connect_show(self.window, local, profile, secret, self.tasks)
        except InvalidValue as problem:  # a setting of the profile: its CA bundle
            self.cannot_open(profile, problem)  # the window stays, to say so and to pick another
            self._close_local()
            return None
        from app.profile.logs import remember_secret

        remember_secret(secret)
        # Once the window is up (a question now would run inside whoever called `open`).
        stash = DraftStash(profile.drafts_path)
        QTimer.singleShot(0, self.window, functools.partial(self.offer_drafts, stash))
        return session

    def _close_local(self) -> None:
        if self.window.local is not None:
            self.window.detach()
        if self._open is not None:
            self._open.close()
            self._open = None

    def cannot_open(self, profile: Profile, problem: StoreUnavailable | InvalidValue) -> None:
        """The profile's cache, outbox or folder cannot be written, or a setting of it cannot
        be used (its CA bundle): say so, open nothing."""
        log.warning("Not opening %r: %s", profile.name, problem.message)
        self.failed = problem
        advice = (
            "Make room on that disk, or make the folder writable for you, then open the show again."
            if isinstance(problem, StoreUnavailable)
            else "Correct it in the profile (Profiles…), then open the show again."
        )
        self.tell(
            f"“{profile.name}” cannot be opened.\n\n{problem.message}.\n\n{advice} Nothing "
            "was changed: the changes you made before are still in the outbox."
        )

    def refuse(self, busy: ProfileInUse) -> None:
        log.warning("Not opening %r: open in process %s", busy.profile_name, busy.pid)
        self.refused = busy
        self.tell(busy.message)

    def open_demo(self) -> ShowSession | None:
        """The demo show: its cache shown, then the simulator started and connected to (with
        `connect_later`, after the window's first paint)."""
        from app.profile.demo import demo_profile

        profile = demo_profile()
        if busy := in_use_elsewhere(profile):
            self.refuse(busy)  # before starting a simulator for nothing
            return None
        return self._open_show(profile, self._start_demo)

    def _start_demo(self) -> tuple[Profile, str]:
        from app.profile.demo import start_demo  # the simulator: starlette, uvicorn

        server, profile, secret = start_demo()
        self._demo.callback(server.stop)
        return profile, secret

    def open_saved(self, name: str | None) -> ShowSession | None:
        """A saved profile: shown from disk, then connected with its secret from the keyring —
        asked for when the keyring does not have it (with `connect_later`, after the window's
        first paint: the keyring is not even imported before it)."""
        store = ProfileStore()
        profile = store.get(name) if name else None
        if profile is None:
            return None
        if profile.demo:
            return self.open_demo()
        try:
            busy = in_use_elsewhere(profile)
        except StoreUnavailable as problem:
            self.cannot_open(profile, problem)
            return None
        if busy:
            self.refuse(busy)
            return None
        return self._open_show(profile, functools.partial(self._secret_of, profile))

    def _secret_of(self, profile: Profile) -> tuple[Profile, str] | None:
        """The profile to connect and its secret: the keyring's (or SHOWDESK_CLIENT_SECRET),
        else asked for in the sign-in prompt; None when the user gives none — the show then
        stays open from its cache, offline, and the window says so (`offline`)."""
        secret = secrets.get(profile) or os.environ.get(SECRET_ENV)
        if secret:
            return profile, secret
        prompt = SignInPrompt(profile, secrets, self.window)
        try:
            given = prompt.secret() if prompt.exec() == QDialog.DialogCode.Accepted else None
        finally:
            prompt.deleteLater()
        if not given:
            self.offline = True
            return None
        return profile, given

    def first_run(self, message: str | None = None) -> ShowSession | None:
        chooser = FirstRunDialog(self.window, message=message)
        if chooser.exec() != QDialog.DialogCode.Accepted:
            return None
        if chooser.choice == "demo":
            return self.open_demo()
        from app.ui.window.profile_dialog import ProfileDialog

        dialog = ProfileDialog(ProfileStore(), None, self.window)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return None
        return self.open_saved(dialog.profile().name)

    async def close_current(self) -> None:
        session = self.window.session
        self._connect = None
        await self.tasks.cancel_all()
        if session is not None:
            await session.aclose()
        self._close_local()

    def offer_drafts(self, stash: DraftStash) -> int:
        """Unsaved form edits rescued from a crash: offered back (how many were restored)."""
        from app.ui.launch.draft_rescue import offer_drafts  # forms: after the first paint

        return offer_drafts(self.window, stash, self.ask)

    def rescue_drafts(self) -> int:
        """The crash path: keep the open forms' unsaved edits (how many forms had some)."""
        session = self.window.session
        if session is None:
            return 0
        from app.ui.launch.draft_rescue import collect_drafts

        drafts = collect_drafts(self.window)
        DraftStash(session.profile.drafts_path).save(drafts)
        return len(drafts)

    def forget_drafts(self) -> None:
        if self.window.session is not None:
            DraftStash(self.window.session.profile.drafts_path).clear()

    def on_window_profile_requested(self, name: str) -> None:
        async def switch() -> None:
            # The show open, signed in or not: one open offline is reopened to sign in to it,
            # never refused as "open in process <this one>" for the lock it holds itself.
            current = self.window.session or self.window.local
            other = current is None or current.profile.name != name
            target = ProfileStore().get(name) if other else None
            if target is not None and (busy := in_use_elsewhere(target)):
                self.refuse(busy)  # and stay on the show that is open
                return
            await self.close_current()
            self.open_saved(name)
            self.connect()  # the window is up: at once

        # Not one of `tasks`: closing the current show cancels all of those.
        import asyncio

        self._switching = asyncio.ensure_future(switch())

    async def close(self) -> None:
        await self.close_current()
        self._demo.close()


def _ask_user(parent: QWidget, question: str) -> bool:
    return ask_user(parent, question)  # titled with the question, never a bare "ShowDesk"


def _tell_user(parent: QWidget, text: str) -> None:
    """A warning; modal only when no asyncio loop runs (never a nested loop inside a task).
    Every message ShowDesk tells here is about a show that was not opened: its title says so."""
    import asyncio

    box = warning_box(parent, NOT_OPENED, text)
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        box.exec()
    else:
        box.open()
