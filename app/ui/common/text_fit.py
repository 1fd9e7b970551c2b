"""A read-only box of lines sized to its text: as tall as its lines (up to a limit, a quarter of
the screen at most, then it scrolls), as wide as its longest line (up to what the screen leaves,
then it scrolls sideways) — never a fixed few lines that cut a long answer or leave empty room
under a short one (issue 30: the profile dialog's Test connection details)."""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QPlainTextEdit, QWidget

MAX_LINES = 12  # past this the box scrolls, and past a quarter of the screen's height
ROOM_LEFT = 80  # of the screen's width: the dialog's own margins, a little of the screen


def fit_to_text(box: QPlainTextEdit, max_lines: int = MAX_LINES) -> None:
    """Size `box` (no wrapping) to the text it holds now."""
    lines = box.toPlainText().split("\n") if box.toPlainText() else []
    metrics = box.fontMetrics()
    frame = 2 * box.frameWidth() + 2 * round(box.document().documentMargin())
    widest = max((metrics.horizontalAdvance(line) for line in lines), default=0)
    wanted = widest + frame + metrics.averageCharWidth()  # the caret's room after the last letter
    screen = _screen(box)
    room = screen.width() - ROOM_LEFT
    max_lines = min(max_lines, screen.height() // 4 // metrics.lineSpacing())
    shown = max(1, min(len(lines), max_lines))
    height = shown * metrics.lineSpacing() + frame + 1  # the layout's last pixel row
    if len(lines) > max_lines:
        wanted += box.verticalScrollBar().sizeHint().width()
    if wanted > room:  # a line longer than the screen: scrolled to, under the lines
        height += box.horizontalScrollBar().sizeHint().height()
    box.setMinimumWidth(min(wanted, room))
    box.setFixedHeight(height)


def _screen(widget: QWidget) -> QSize:
    screen = widget.screen()
    return screen.availableGeometry().size() if screen is not None else QSize(1280, 800)
