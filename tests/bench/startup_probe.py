"""The limit of the start (issue 17): a bare PySide6 window that shows a table, in a fresh process.

    python startup_probe.py

A QMainWindow holding a QTableView over a plain Python list model (tests/bench/bare_table.py) of
200 rows; it prints "bare: first paint" once the table has been painted, as `showdesk` does with
SHOWDESK_STARTUP_PROBE=paint (app/ui/launch/first_paint.py), and exits.
"""

from __future__ import annotations

import sys

from bare_table import ListModel  # run as a script: tests/bench is on the path
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QMainWindow, QTableView

COLUMNS = ["customerID", "customerName", "city", "priceZone", "id", "modifiedDate"]


class Painted(QObject):
    """Quits the application on the loop's turn after `watched` got its first paint."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            watched.removeEventFilter(self)
            QTimer.singleShot(0, self.done)
        return False

    def done(self) -> None:
        print("bare: first paint", flush=True)
        QApplication.quit()


def main() -> None:
    app = QApplication(sys.argv)
    rows = [
        (f"C{i:06d}", f"Customer {i}", "Lyon", str(i % 7), f"c{i:06d}", "2026-11-01T10:00:00")
        for i in range(200)
    ]
    window = QMainWindow()
    table = QTableView(window)
    table.setModel(ListModel(rows, COLUMNS))
    window.setCentralWidget(table)
    window.resize(1280, 800)
    painted = Painted(window)
    table.viewport().installEventFilter(painted)
    window.show()
    app.exec()


if __name__ == "__main__":
    main()
