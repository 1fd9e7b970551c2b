"""Starting the desktop app: QApplication, the qasync loop, the profile to open, the window.

`showdesk --demo` starts the embedded simulator and opens the "Demo show" profile on it;
`showdesk` alone opens the last profile, or offers the demo or a real show on first run.
`ShowDesk` (the controller) opens a profile in the window and switches profiles on request;
a profile open in another ShowDesk process is refused (app/ui/launch/single_instance.py), and
unsaved form edits rescued by the crash path (app/ui/launch/crash.py) are offered back when it is
opened.
"""

from __future__ import annotations

import functools
import logging
import os
import sys
from collections.abc import Awaitable, Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QSettings, QSize, QTimer
from PySide6.QtGui import QFontDatabase, QIcon
from PySide6.QtWidgets import QApplication, QDialog, QWidget

from app import APP_NAME, ORG_NAME
from app.api.errors import InvalidValue, StoreUnavailable
from app.api.registry import RESOURCES_DIR
from app.drafts import DraftStash
from app.settings import SECRET_ENV, Profile, ProfileStore, config_dir, secrets
from app.ui.common.gc_guard import GuiThreadCollector
from app.ui.launch.crash import CrashReporter, fatal, install_qt_log
from app.ui.launch.early_log import logging_from_paint
from app.ui.launch.first_paint import after_first_paint, connected, wait_for_first_paint
from app.ui.launch.first_run import FirstRunDialog
from app.ui.launch.single_instance import ProfileInUse, ProfileLock, in_use_elsewhere
from app.ui.session.tasks import TaskRunner
from app.ui.window.asking import ask_user, warning_box
from app.ui.window.local_show import LocalShow, open_local
from app.ui.window.main_window import MainWindow

if TYPE_CHECKING:  # the session talks to the show, the loop runs it: both after the first paint
    import asyncio

    from app.ui.session.session import ShowSession

log = logging.getLogger(__name__)

ICONS = RESOURCES_DIR / "icons"
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
FONTS = RESOURCES_DIR / "fonts"  # only in a bundle: a font for systems that have none
EXIT_REFUSED, EXIT_NOTHING_OPENED, EXIT_CRASHED = 1, 2, 70

Ask = Callable[[str], bool]
# The profile to connect and its secret; None when the user gave none (nothing to connect).
Credentials = Callable[[], tuple[Profile, str] | None]
Tell = Callable[[str], None]
NOT_OPENED = "Show not opened"  # the title of what `tell` says (a profile refused or unwritable)


def application(*, versioned: bool = True) -> QApplication:
    """The QApplication, set up once: names, icon, the Fusion style (follows light/dark).
    `versioned=False` leaves the version (read from the package metadata) to `set_version`,
    which the window calls after its first paint."""
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(sys.argv)
    app.setApplicationName(APP_NAME)
    app.setOrganizationName(ORG_NAME)
    if versioned:
        set_version(app)
    app.setDesktopFileName("showdesk")  # the .desktop entry packaging/install-linux.sh installs
    app.setStyle("Fusion")
    app.setWindowIcon(app_icon())
    _add_bundled_fonts(app)
    return app


def set_version(app: QApplication) -> None:
    from app import __version__

    app.setApplicationVersion(__version__)


def app_icon() -> QIcon:
    """ShowDesk's icon at every size shipped (resources/icons/showdesk-<size>.png)."""
    icon = QIcon()
    for size in ICON_SIZES:
        png = ICONS / f"showdesk-{size}.png"
        if png.exists():
            icon.addFile(str(png), QSize(size, size))
    return icon


def _add_bundled_fonts(app: QApplication) -> None:
    """A bundle carries a font: used when the system has none (text would be empty boxes)."""
    if not FONTS.is_dir():  # not a bundle: the system's fonts (never listed for nothing)
        return
    # fontconfig answers its generic aliases even on a system without a single font file.
    had_fonts = bool(set(QFontDatabase.families()) - {"Sans Serif", "Serif", "Monospace"})
    for ttf in sorted(FONTS.glob("*.ttf")):
        font_id = QFontDatabase.addApplicationFont(str(ttf))
        families = QFontDatabase.applicationFontFamilies(font_id) if font_id >= 0 else []
        if families and not had_fonts:
            app.setFont(families[0])


def window_settings() -> QSettings:
    path = config_dir() / "window.ini"
    path.parent.mkdir(parents=True, exist_ok=True)
    return QSettings(str(path), QSettings.Format.IniFormat)


@contextmanager
def open_show(
    window: MainWindow, profile: Profile, secret: str, tasks: TaskRunner
) -> Iterator[ShowSession]:
    """Open a profile's cache and outbox, attach a session to the window, start it."""
    with open_local(profile) as local:
        window.show_local(local)
        yield connect_show(window, local, profile, secret, tasks)


def connect_show(
    window: MainWindow, local: LocalShow, profile: Profile, secret: str, tasks: TaskRunner
) -> ShowSession:
    """The session of a show the window shows (its client, sign-in, sync), attached, started.

    `profile` is `local`'s, or the same show at another address (the demo's simulator on this
    run's port). Imported here: the client and all that talks to the show come after the
    window's first paint."""
    from app.ui.session.session import ShowSession

    # Owned by the window, so Qt deletes it on the GUI thread (never a GC in another one).
    session = ShowSession(profile, secret, local.registry, local.cache, local.outbox, tasks, window)
    window.attach(session)
    tasks.start(start_session(session), what="Connect")
    return session


async def start_session(session: ShowSession) -> None:
    """Sign in; sync when the show answers, else stay offline on the cache (and keep trying)."""
    if await session.check():
        session.sync()


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
        self.declined = False  # asked for a profile's secret, the user gave none
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
        if given is None:  # no secret: the show is closed, nothing connects
            self._close_local()
            return None
        profile, secret = given
        try:
            session = connect_show(self.window, local, profile, secret, self.tasks)
        except InvalidValue as problem:  # a setting of the profile: its CA bundle
            self.cannot_open(profile, problem)  # the window stays, to say so and to pick another
            self._close_local()
            return None
        from app.logs import remember_secret

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
        from app.demo import demo_profile

        profile = demo_profile()
        if busy := in_use_elsewhere(profile):
            self.refuse(busy)  # before starting a simulator for nothing
            return None
        return self._open_show(profile, self._start_demo)

    def _start_demo(self) -> tuple[Profile, str]:
        from app.demo import start_demo  # the simulator: starlette, uvicorn

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
        else asked for in the profile's dialog (which may correct the profile too); None when
        the user gives none."""
        secret = secrets.get(profile) or os.environ.get(SECRET_ENV)
        if secret:
            return profile, secret
        from app.ui.window.profile_dialog import ProfileDialog  # it checks a show: httpx

        dialog = ProfileDialog(ProfileStore(), profile, self.window)
        given = dialog.secret() if dialog.exec() == QDialog.DialogCode.Accepted else None
        if not given:
            self.declined = True
            return None
        corrected = dialog.profile()
        if corrected.name != profile.name:  # renamed: its own files, opened as a switch would
            name = corrected.name
            QTimer.singleShot(0, self.window, lambda: self.window.profile_requested.emit(name))
            return None
        return corrected, given

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
            current = self.window.session
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


def run(demo: bool = False, profile_name: str | None = None) -> int:
    """The window, until it is closed: 0, or 1 (profile open elsewhere, or its files cannot be
    written), 2 (nothing opened), 70 (quit from the crash dialog, or an error while starting)."""
    app = application(versioned=False)
    install_qt_log()
    with logging_from_paint() as attach_log:
        try:
            return _run(app, demo, profile_name, attach_log)
        except Exception as exc:
            fatal(exc)
            return EXIT_CRASHED


def _run(
    app: QApplication, demo: bool, profile_name: str | None, attach_log: Callable[[], None]
) -> int:
    collector = GuiThreadCollector(app)
    # Only closing the window ends the day: not a dialog, menu or drag image closing after it.
    app.setQuitOnLastWindowClosed(False)
    tasks = TaskRunner()
    tasks.hold()  # until the loop is made, after the first paint
    window = MainWindow(window_settings(), tasks)
    desk = ShowDesk(window, tasks, connect_later=True)
    reporter = CrashReporter(window=window, rescue=desk.rescue_drafts, forget=desk.forget_drafts)
    reporter.install()
    tasks.on_unexpected = reporter.on_task_failed
    loop: asyncio.AbstractEventLoop | None = None
    try:
        if not _open_at_start(desk, demo, profile_name):
            window.close()
            return EXIT_REFUSED if desk.refused or desk.failed else EXIT_NOTHING_OPENED
        window.show()
        # The show from disk first; the event loop of asyncio (decision 0008), the log file and
        # what talks to the show once that is on screen.
        wait_for_first_paint(window, window.first_painted())
        loop = show_loop(app)
        reporter.install(loop)
        tasks.release()

        def then() -> None:
            attach_log()
            set_version(app)
            connected(window, desk.connect())
            if desk.declined:  # its secret was asked for and not given: nothing stays open
                window.close()

        after_first_paint(window, window.first_painted(), then)
        run_until_window_closed(loop, window, desk.close)
    finally:
        reporter.uninstall()
        collector.stop()
        # Joins the worker threads of sorts and refreshes (qasync's default executor): a Qt
        # thread still running when the process ends aborts it.
        if loop is not None and not loop.is_running():
            loop.close()
    if reporter.quit_requested:
        return EXIT_CRASHED
    return EXIT_NOTHING_OPENED if desk.declined else 0


def _open_at_start(desk: ShowDesk, demo: bool, profile_name: str | None) -> bool:
    """The demo, the profile asked for or the last one, else the first run's choice: opened?"""
    if demo:
        desk.open_demo()
        return desk.is_open
    desk.open_saved(profile_name or ProfileStore().last)
    if not desk.is_open and desk.refused is None and desk.failed is None:
        desk.first_run(
            f"There is no saved profile named {profile_name!r}." if profile_name else None
        )
    return desk.is_open


def show_loop(app: QApplication) -> asyncio.AbstractEventLoop:
    """The window's asyncio loop (`ShowLoop`, over Qt's), made current: asyncio and qasync are
    imported here, once the window has painted."""
    import asyncio

    from app.ui.session.show_loop import ShowLoop

    loop = ShowLoop(app)
    asyncio.set_event_loop(loop)
    return loop


class WindowClosed(QObject):
    """Sets `closed` (an asyncio.Event) once the window was closed: a close it accepted."""

    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self.window = window
        import asyncio

        self.closed = asyncio.Event()
        window.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.window and event.type() == QEvent.Type.Close:
            QTimer.singleShot(0, self, self.check)  # once the window has handled it
        return False

    def check(self) -> None:
        if not self.window.isVisible():
            self.closed.set()


def run_until_window_closed(
    loop: asyncio.AbstractEventLoop, window: QWidget, close: Callable[[], Awaitable[None]]
) -> None:
    """Turn the event loop until the window is closed, then `close()` the show *inside* it.

    The show's tasks (a sync in the middle of a request) are cancelled while the loop still
    runs, never left to events processed after it stopped. Should Qt's loop end while the window
    is still open (someone quit it), the window stays and the loop turns again.
    """
    closed = WindowClosed(window)
    closed.check()  # closed already, while the first paint was awaited (before this loop)

    async def day() -> None:
        await closed.closed.wait()
        await close()

    import asyncio

    work = asyncio.ensure_future(day())
    while True:
        try:
            loop.run_until_complete(work)
            return
        except RuntimeError as stopped:  # qasync: "Event loop stopped before Future completed."
            if work.done() or "stopped before" not in str(stopped):
                raise
            log.warning("Qt's event loop ended while the window was open: carrying on")
            closed.check()
