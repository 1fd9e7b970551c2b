"""Files the user picks and files ShowDesk writes: where the dialogs open, what the result says.

File dialogs open in the user's documents folder (not wherever the process happened to start),
and use the system's own dialog where there is one (Qt's default). After an export the user is
told how many rows went where, with Open and Show in folder; the opener is a parameter so tests
see what would have been opened without opening anything.
"""

from __future__ import annotations

import csv
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QStandardPaths, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QFileDialog, QMessageBox, QPushButton, QWidget

from app.wording.words import count

Opener = Callable[[QUrl], bool]


def documents_dir() -> Path:
    """The user's documents folder (their home when the system names none)."""
    found = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    path = Path(found) if found else Path.home()
    return path if path.is_dir() else Path.home()


def ask_save_path(owner: QWidget | None, title: str, suggested: str, filters: str) -> Path | None:
    """The system's save dialog, in the documents folder with `suggested` as the name."""
    name, _ = QFileDialog.getSaveFileName(owner, title, str(documents_dir() / suggested), filters)
    return Path(name) if name else None


def ask_open_path(owner: QWidget | None, title: str, filters: str) -> Path | None:
    """The system's open dialog, in the documents folder."""
    name, _ = QFileDialog.getOpenFileName(owner, title, str(documents_dir()), filters)
    return Path(name) if name else None


def open_file(path: Path, opener: Opener | None = None) -> bool:
    """Open `path` with the system's application for it."""
    return (opener or QDesktopServices.openUrl)(QUrl.fromLocalFile(str(path)))


def show_in_folder(path: Path, opener: Opener | None = None) -> bool:
    """Open the folder holding `path` in the system's file manager."""
    return (opener or QDesktopServices.openUrl)(QUrl.fromLocalFile(str(path.parent)))


def rows_in(path: Path) -> int | None:
    """The data rows of a CSV file written here (lines after the header), None for others."""
    if path.suffix.lower() != ".csv":
        return None
    with path.open(encoding="utf-8", errors="replace", newline="") as f:
        return max(sum(1 for _ in csv.reader(f)) - 1, 0)


class ExportResult(QMessageBox):
    """ "1,234 rows of Customers written to customers.csv" with Open and Show in folder.

    Not modal: the window stays usable. No signals of its own; `opener` opens the file or its
    folder (QDesktopServices.openUrl unless replaced).
    """

    def __init__(
        self,
        owner: QWidget | None,
        title: str,
        rows: int,
        path: Path,
        opener: Opener | None = None,
    ) -> None:
        super().__init__(owner)
        self.path = path
        self.opener: Opener = opener or QDesktopServices.openUrl
        self.setObjectName("export-result")
        self.setWindowTitle(f"Export of {title} finished")
        self.setIcon(QMessageBox.Icon.Information)
        self.setText(f"{count(rows, 'row')} of {title} written to {path.name}.")
        self.setInformativeText(str(path))
        self.open_button = self._button("Open", self.on_open_clicked)
        self.folder_button = self._button("Show in folder", self.on_folder_clicked)
        self.addButton(QMessageBox.StandardButton.Close)
        self.setModal(False)

    def _button(self, text: str, slot: Callable[[], None]) -> QPushButton:
        button = self.addButton(text, QMessageBox.ButtonRole.ActionRole)
        button.clicked.connect(slot)  # after the box's own handling (it closes): then acts
        return button

    def on_open_clicked(self) -> None:
        open_file(self.path, self.opener)

    def on_folder_clicked(self) -> None:
        show_in_folder(self.path, self.opener)
