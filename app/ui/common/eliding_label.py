"""A label that gives up room instead of taking it: a long text is shortened with "…" where the
room runs out (all of it on hovering), so words in a status bar never widen the window."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

SHORTEST = "Syncing…"  # what a squeezed label still shows


class ElidingLabel(QLabel):
    """One line of text: its size hint is the whole text, its minimum a few letters."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)

    def setText(self, text: str) -> None:
        super().setText(text)
        self.setToolTip(text if text else "")

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        shortest = min(self.fontMetrics().horizontalAdvance(SHORTEST), super().sizeHint().width())
        return QSize(shortest + self.contentsMargins().left() + self.contentsMargins().right(),
                     hint.height())  # fmt: skip

    def paintEvent(self, event: QPaintEvent) -> None:
        room = self.contentsRect()
        text = self.text()
        if self.fontMetrics().horizontalAdvance(text) <= room.width():
            super().paintEvent(event)
            return
        painter = QPainter(self)
        shown = self.fontMetrics().elidedText(text, Qt.TextElideMode.ElideRight, room.width())
        painter.drawText(room, int(self.alignment() | Qt.AlignmentFlag.AlignVCenter), shown)
