"""Starting the desktop app: QApplication, the qasync loop, the profile to open, the window.

`showdesk --demo` starts the embedded simulator and opens the "Demo show" profile on it;
`showdesk` alone opens the last profile, or offers the demo or a real show on first run.
`ShowDesk` (the controller) opens a profile in the window and switches profiles on request.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

import qasync
from PySide6.QtCore import QSettings
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QDialog

from app import APP_NAME, ORG_NAME, __version__
from app.api.registry import RESOURCES_DIR
from app.connect import registry_for
from app.settings import SECRET_ENV, Profile, ProfileStore, config_dir, secrets
from app.store.cache import Cache
from app.store.outbox import Outbox
from app.ui.first_run import FirstRunDialog
from app.ui.gc_guard import GuiThreadCollector
from app.ui.main_window import MainWindow
from app.ui.profile_dialog import ProfileDialog
from app.ui.session import ShowSession
from app.ui.tasks import TaskRunner

ICON = RESOURCES_DIR / "icons" / "showdesk.svg"


def application() -> QApplication:
    """The QApplication, set up once: names, icon, the Fusion style (follows light/dark)."""
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(sys.argv)
    app.setApplicationName(APP_NAME)
    app.setOrganizationName(ORG_NAME)
    app.setApplicationVersion(__version__)
    app.setStyle("Fusion")
    if ICON.exists():
        app.setWindowIcon(QIcon(str(ICON)))
    return app


def window_settings() -> QSettings:
    path = config_dir() / "window.ini"
    path.parent.mkdir(parents=True, exist_ok=True)
    return QSettings(str(path), QSettings.Format.IniFormat)


@contextmanager
def open_show(
    window: MainWindow, profile: Profile, secret: str, tasks: TaskRunner
) -> Iterator[ShowSession]:
    """Open a profile's cache and outbox, attach a session to the window, start it."""
    registry = registry_for(profile)
    with Cache(profile.cache_path, registry) as cache, Outbox(profile.outbox_path) as outbox:
        # Owned by the window, so Qt deletes it on the GUI thread (never a GC in another one).
        session = ShowSession(profile, secret, registry, cache, outbox, tasks, window)
        window.attach(session)
        tasks.start(start_session(session), what="Connect")
        yield session


async def start_session(session: ShowSession) -> None:
    """Sign in; sync when the show answers, else stay offline on the cache (and keep trying)."""
    if await session.check():
        session.sync()


class ShowDesk:
    """Owns the window and the open show; opens, switches and closes profiles."""

    def __init__(self, window: MainWindow, tasks: TaskRunner) -> None:
        self.window = window
        self.tasks = tasks
        self._open: ExitStack | None = None
        self._demo = ExitStack()
        self._switching: asyncio.Future[None] | None = None
        window.profile_requested.connect(self.on_window_profile_requested)

    def open(self, profile: Profile, secret: str) -> ShowSession:
        self._open = ExitStack()
        session = self._open.enter_context(open_show(self.window, profile, secret, self.tasks))
        ProfileStore().set_last(profile.name)
        return session

    def open_demo(self) -> ShowSession:
        from app.demo import start_demo

        server, profile, secret = start_demo()
        self._demo.callback(server.stop)
        return self.open(profile, secret)

    def open_saved(self, name: str | None) -> ShowSession | None:
        """A saved profile, asking for its secret when the keyring does not have it."""
        store = ProfileStore()
        profile = store.get(name) if name else None
        if profile is None:
            return None
        if profile.demo:
            return self.open_demo()
        secret = secrets.get(profile) or os.environ.get(SECRET_ENV)
        if not secret:
            dialog = ProfileDialog(store, profile, self.window)
            if dialog.exec() != QDialog.DialogCode.Accepted:
                return None
            profile, secret = dialog.profile(), dialog.secret()
        return self.open(profile, secret) if secret else None

    def first_run(self, message: str | None = None) -> ShowSession | None:
        chooser = FirstRunDialog(self.window, message=message)
        if chooser.exec() != QDialog.DialogCode.Accepted:
            return None
        if chooser.choice == "demo":
            return self.open_demo()
        dialog = ProfileDialog(ProfileStore(), None, self.window)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return None
        return self.open_saved(dialog.profile().name)

    async def close_current(self) -> None:
        session = self.window.session
        await self.tasks.cancel_all()
        if session is not None:
            await session.aclose()
            self.window.detach()
        if self._open is not None:
            self._open.close()
            self._open = None

    def on_window_profile_requested(self, name: str) -> None:
        async def switch() -> None:
            await self.close_current()
            self.open_saved(name)

        # Not one of `tasks`: closing the current show cancels all of those.
        self._switching = asyncio.ensure_future(switch())

    async def close(self) -> None:
        await self.close_current()
        self._demo.close()


def run(demo: bool = False, profile_name: str | None = None) -> int:
    app = application()
    collector = GuiThreadCollector(app)
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    tasks = TaskRunner()
    window = MainWindow(window_settings(), tasks)
    desk = ShowDesk(window, tasks)
    session: ShowSession | None
    if demo:
        session = desk.open_demo()
    else:
        session = desk.open_saved(profile_name or ProfileStore().last) or desk.first_run(
            f"There is no saved profile named {profile_name!r}." if profile_name else None
        )
    if session is None:
        window.close()
        return 2
    window.show()
    closed = asyncio.Event()
    app.lastWindowClosed.connect(closed.set)
    loop.run_until_complete(closed.wait())
    loop.run_until_complete(desk.close())
    collector.stop()
    return 0
