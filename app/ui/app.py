"""Starting the desktop app: QApplication, the qasync loop, the profile to open, the window.

`showdesk --demo` starts the embedded simulator and opens the "Demo show" profile on it;
`showdesk` alone opens the last profile, or offers the demo or a real show on first run.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

import qasync
from PySide6.QtCore import QSettings
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QMessageBox

from app import APP_NAME, ORG_NAME, __version__
from app.api.registry import RESOURCES_DIR
from app.connect import registry_for
from app.settings import Profile, ProfileStore, config_dir, secrets
from app.store.cache import Cache
from app.store.outbox import Outbox
from app.ui.main_window import MainWindow
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
        session = ShowSession(profile, secret, registry, cache, outbox, tasks)
        window.attach(session)
        tasks.start(start_session(session), what="Connect")
        yield session


async def start_session(session: ShowSession) -> None:
    """Sign in; sync when the show answers, else stay offline on the cache (and keep trying)."""
    if await session.check():
        session.sync()


def choose_profile(demo: bool, name: str | None, stack: ExitStack) -> tuple[Profile, str] | None:
    """The profile to open and its secret: the demo, the one named, or the last one used."""
    if demo:
        from app.demo import start_demo

        server, profile, secret = start_demo()
        stack.callback(server.stop)
        return profile, secret
    store = ProfileStore()
    wanted = name or store.last
    saved = store.get(wanted) if wanted else None
    stored_secret = secrets.get(saved) if saved else None
    return (saved, stored_secret) if saved and stored_secret else None


def run(demo: bool = False, profile_name: str | None = None) -> int:
    app = application()
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with ExitStack() as stack:
        chosen = choose_profile(demo, profile_name, stack)
        if chosen is None:
            return first_run(profile_name)
        tasks = TaskRunner()
        window = MainWindow(window_settings(), tasks)
        stack.enter_context(open_show(window, *chosen, tasks))
        window.show()
        closed = asyncio.Event()
        app.lastWindowClosed.connect(closed.set)
        loop.run_until_complete(closed.wait())
        loop.run_until_complete(tasks.cancel_all())
        loop.run_until_complete(window.session.aclose() if window.session else asyncio.sleep(0))
    return 0


def first_run(profile_name: str | None) -> int:
    """No profile to open: say how to start (the demo, or a profile with its secret)."""
    text = (
        f"No saved profile named {profile_name!r} with a client secret."
        if profile_name
        else "Welcome to ShowDesk. Start with the demo show (showdesk --demo), or connect a show."
    )
    QMessageBox.information(None, APP_NAME, text)
    return 2
