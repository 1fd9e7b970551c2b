"""The click-during-sync scenario, run by test_click_during_sync.py in a child process on a real
X11 display (Xvfb): there menus, drags and dialogs run real nested Qt event loops (offscreen, a
drag returns at once).

`python -m tests.gui.launch.click_during_sync LAUNCHES ACTIONS SEED` starts a paced simulator
(every request held back, small pages: the start-up sync lasts seconds), then opens the window
LAUNCHES times through the real start-up path (`app.ui.launch.app.run`). While the sync runs it
clicks, double-clicks, opens context menus (tree, table, column header), drag-selects cells and
starts drags in the tree and the tables, ACTIONS times a launch, and then closes the window in
the middle of the sync — from inside an open context menu's event loop, as a window manager's
close button would. It prints one JSON line: per launch the exit code, the actions done while
the sync ran, whether the sync was still running at the close, whether the window had gone away
before it was closed, and the unexpected errors reported (the crash dialog's reports).
"""

from __future__ import annotations

import json
import os
import random
import sys
from dataclasses import asdict, dataclass, field
from typing import Any

from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtGui import QContextMenuEvent, QDrag
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QAbstractItemView, QApplication, QHeaderView, QWidget

from app.profile.settings import SECRET_ENV, Profile, ProfileStore
from app.sim import SimConfig, SimServer, generate_show
from app.ui.launch import app as launch
from app.ui.launch.crash import CrashReporter
from app.ui.window.main_window import MainWindow
from app.ui.window.resource_tree import ResourceTree

LEFT, NONE = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
ACTIONS = ("click", "double-click", "menu", "header menu", "drag-select", "drag")


@dataclass
class Launch:
    exit_code: int = -1
    done: list[str] = field(default_factory=list)  # actions done while the sync ran
    syncing_at_close: bool = False
    went_away: bool = False  # the window was gone before the scenario closed it
    errors: list[str] = field(default_factory=list)  # unexpected errors reported
    dialogs: list[str] = field(default_factory=list)  # modal dialogs that came up


class Clicker:
    """Drives one launch from Qt timers, as a user's hand would: never from a coroutine."""

    def __init__(self, launch_: Launch, actions: int, rng: random.Random) -> None:
        self.launch = launch_
        self.actions = actions
        self.rng = rng
        self.window: MainWindow | None = None
        self.closing = False
        self.synced_from = False

    def start(self) -> None:
        QTimer.singleShot(0, self.tick)

    def tick(self) -> None:
        app = QApplication.instance()
        assert isinstance(app, QApplication)
        window = self.window or next(
            (w for w in app.topLevelWidgets() if isinstance(w, MainWindow) and w.session), None
        )
        if window is None or window.session is None or window.tree is None:
            QTimer.singleShot(20, self.tick)  # not opened yet
            return
        if not self.synced_from and not window.session.syncing:
            QTimer.singleShot(20, self.tick)  # signing in: the sync has not started
            return
        self.synced_from = True
        self.window = window
        if self.closing:
            return
        if not window.isVisible():
            self.launch.went_away = True
            return
        if len(self.launch.done) >= self.actions or not window.session.syncing:
            self.close_mid_sync(window)
            return
        action = self.rng.choice(ACTIONS)
        self.launch.done.append(action)
        QTimer.singleShot(self.rng.choice((30, 120, 250)), self.dismiss)
        QTimer.singleShot(self.rng.choice((40, 150, 300)), self.tick)
        self.act(window, action)

    def act(self, window: MainWindow, action: str) -> None:
        views: list[QAbstractItemView] = [v for v in window.findChildren(QAbstractItemView)]
        view = self.rng.choice([v for v in views if v.isVisible() and v.model() is not None])
        port = view.viewport()
        at = self.spot(view)
        if action == "click":
            QTest.mouseClick(port, LEFT, NONE, at)
        elif action == "double-click":
            QTest.mouseDClick(port, LEFT, NONE, at)
        elif action == "menu":
            self.context_menu(port, at)
        elif action == "header menu":
            headers = [h for h in window.findChildren(QHeaderView) if h.isVisible()]
            if headers:
                header = self.rng.choice(headers)
                self.context_menu(header, QPoint(10, header.height() // 2))
        elif action == "drag-select":
            QTest.mousePress(port, LEFT, NONE, at)
            QTest.mouseMove(port, at + QPoint(60, 40))
            QTest.mouseRelease(port, LEFT, NONE, at + QPoint(60, 40))
        else:  # a drag of the item under the mouse: a real nested drag loop on X11
            index = view.indexAt(at)
            mime = view.model().mimeData([index]) if index.isValid() else None
            if mime is not None:
                drag = QDrag(port)
                drag.setMimeData(mime)
                QTimer.singleShot(self.rng.choice((50, 200)), QDrag.cancel)
                drag.exec(Qt.DropAction.CopyAction | Qt.DropAction.MoveAction)

    def spot(self, view: QAbstractItemView) -> QPoint:
        if isinstance(view, ResourceTree):
            model = view.model()
            groups = [model.index(g, 0) for g in range(model.rowCount())]
            items = [model.index(r, 0, g) for g in groups for r in range(model.rowCount(g))]
            index = self.rng.choice(items)
            view.scrollTo(index)
            return view.visualRect(index).center()
        port = view.viewport()
        return QPoint(self.rng.randrange(4, max(5, port.width() - 4)), self.rng.randrange(4, 60))

    def context_menu(self, widget: QWidget, at: QPoint) -> None:
        event = QContextMenuEvent(QContextMenuEvent.Reason.Mouse, at, widget.mapToGlobal(at))
        QApplication.sendEvent(widget, event)  # the menu's exec: a nested event loop

    def dismiss(self) -> None:
        """Close what the last action opened (a menu; any dialog is noted first)."""
        popup = QApplication.activePopupWidget()
        if popup is not None:
            popup.close()
        modal = QApplication.activeModalWidget()
        if modal is not None:
            self.launch.dialogs.append(f"{type(modal).__name__}: {modal.windowTitle()}")
            modal.close()

    def close_mid_sync(self, window: MainWindow) -> None:
        """Close the window while a context menu is open (its nested loop turning)."""
        self.closing = True
        assert window.session is not None and window.tree is not None
        self.launch.syncing_at_close = window.session.syncing
        QTimer.singleShot(100, window.close)
        QTimer.singleShot(150, self.dismiss)
        tree = window.tree
        index = tree.model().index(0, 0, tree.model().index(0, 0))
        self.context_menu(tree.viewport(), tree.visualRect(index).center())


def main(launches: int, actions: int, seed: int) -> list[Launch]:
    rng = random.Random(seed)
    config = SimConfig(
        show_id="CLICK-SHOW", client_secret="click-secret", latency=0.02, page_size=10
    )
    server = SimServer(generate_show("demo", seed=1), config).start()
    try:
        profile = Profile("Click show", server.base_url, server.auth_url, server.show_id)
        ProfileStore().save(profile)
        os.environ[SECRET_ENV] = config.client_secret
        errors: list[str] = []
        reported = CrashReporter.report

        def report(self: CrashReporter, exc: BaseException, where: str) -> Any:
            errors.append(f"{where}: {type(exc).__name__}: {exc}")
            return reported(self, exc, where)

        CrashReporter.report = report  # type: ignore[method-assign]
        launch.application()  # the QApplication `run` uses, for the clicker's timers
        done: list[Launch] = []
        for _ in range(launches):
            errors.clear()
            this = Launch()
            clicker = Clicker(this, actions, rng)  # kept: Qt holds its timers' slots weakly
            clicker.start()
            this.exit_code = launch.run(profile_name=profile.name)
            this.errors = list(errors)
            done.append(this)
        return done
    finally:
        server.stop()


if __name__ == "__main__":
    results = main(*(int(a) for a in sys.argv[1:4]))
    print(json.dumps([asdict(r) for r in results]), flush=True)
