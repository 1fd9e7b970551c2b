"""Started by bench_startup.py in a fresh process: show a window, exit when it is on screen.

python startup_probe.py bare        a bare PySide6 QMainWindow
python startup_probe.py showdesk    ShowDesk's window on a saved profile (offline, on its cache)
"""

from __future__ import annotations

import sys

from PySide6.QtCore import QTimer


def bare() -> None:
    from PySide6.QtWidgets import QApplication, QMainWindow

    app = QApplication(sys.argv)
    window = QMainWindow()
    window.resize(1280, 800)
    window.show()
    QTimer.singleShot(0, app.quit)  # the first turn of the event loop paints the window
    app.exec()


def showdesk() -> None:
    import asyncio

    import qasync

    from app.settings import ProfileStore
    from app.ui.launch.app import ShowDesk, application, window_settings
    from app.ui.session.tasks import TaskRunner
    from app.ui.window.main_window import MainWindow

    app = application()
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    tasks = TaskRunner()
    window = MainWindow(window_settings(), tasks)
    desk = ShowDesk(window, tasks)
    desk.open_saved(ProfileStore().last)
    window.show()
    # One turn of the loop paints the window; asyncio runs inside it, as in the app.
    loop.run_until_complete(asyncio.sleep(0))
    loop.run_until_complete(desk.close())


if __name__ == "__main__":
    {"bare": bare, "showdesk": showdesk}[sys.argv[1]]()
