"""A date the user can type or pick: a text box that reads dates, and a calendar opening at today.

Qt's `QDateEdit` cannot be empty (an "empty" date is a sentinel year shown as "—", its calendar
opening in 1900) and typing into it means stepping through sections. A show's parameters are
often optional dates, so this field is a line of text: "2026-03-14" (or the user's own short
format) is read as typed, empty means "not given", and the button beside it opens a calendar on
the typed date, else on today.
"""

from __future__ import annotations

from PySide6.QtCore import QDate, QLocale, Qt, Signal
from PySide6.QtWidgets import QCalendarWidget, QHBoxLayout, QLineEdit, QToolButton, QWidget

ISO = "yyyy-MM-dd"


def read_date(text: str, locale: QLocale | None = None) -> QDate | None:
    """The date in `text` (ISO first, then the locale's short and long formats), or None."""
    text = text.strip()
    if not text:
        return None
    locale = locale or QLocale()
    for fmt in (ISO, locale.dateFormat(QLocale.FormatType.ShortFormat), "d/M/yyyy", "d.M.yyyy"):
        day = QDate.fromString(text, fmt)
        if day.isValid():
            return day
    day = locale.toDate(text, QLocale.FormatType.LongFormat)
    return day if day.isValid() else None


class CalendarPopup(QCalendarWidget):
    """A calendar dropping down under a date's text box, opening on a given day (or today).

    Signals: `picked(QDate)` — the user clicked a day (or pressed Enter on it); it then hides.
    """

    picked = Signal(QDate)

    def __init__(self, owner: QWidget) -> None:
        super().__init__(owner)
        self.setWindowFlags(Qt.WindowType.Popup)
        self.setGridVisible(True)
        self.clicked.connect(self.on_self_clicked)
        self.activated.connect(self.on_self_clicked)

    def open_on(self, day: QDate | None, under: QWidget) -> None:
        """Show the month of `day` (today when None), `day` selected, just under `under`."""
        day = day if day is not None and day.isValid() else QDate.currentDate()
        self.setSelectedDate(day)
        self.setCurrentPage(day.year(), day.month())
        self.move(under.mapToGlobal(under.rect().bottomLeft()))
        self.show()
        self.setFocus()

    def on_self_clicked(self, day: QDate) -> None:
        self.hide()
        self.picked.emit(day)


class DateField(QWidget):
    """An optional date: typed, or picked in a calendar that opens at today.

    Signals: `changed()` — the date given changed (typed or picked).
    """

    changed = Signal()

    def __init__(self, owner: QWidget | None = None) -> None:
        super().__init__(owner)
        self.line = QLineEdit(self)
        self.line.setPlaceholderText("YYYY-MM-DD (empty: not given)")
        self.line.setClearButtonEnabled(True)
        self.line.textEdited.connect(self.on_line_text_edited)
        self.button = QToolButton(self)
        self.button.setText("Calendar…")
        self.button.setToolTip("Pick the date in a calendar")
        self.button.clicked.connect(self.open_calendar)
        self.calendar: CalendarPopup | None = None
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.line, 1)
        row.addWidget(self.button)
        self.setFocusProxy(self.line)

    def date(self) -> QDate | None:
        return read_date(self.line.text())

    def value(self) -> str | None:
        """The date as the API takes it (YYYY-MM-DD), or None when none is given."""
        day = self.date()
        return day.toString(ISO) if day is not None else None

    def set_value(self, value: str | None) -> None:
        day = read_date(value or "")
        self.line.setText(day.toString(ISO) if day is not None else "")

    def problem(self) -> str | None:
        """Why the text is not a date (None when it is one, or empty)."""
        text = self.line.text().strip()
        return None if not text or self.date() is not None else f"“{text}” is not a date"

    def open_calendar(self) -> CalendarPopup:
        """The calendar, below the field, on the typed date or else today."""
        if self.calendar is None:
            self.calendar = CalendarPopup(self)
            self.calendar.picked.connect(self.on_calendar_picked)
        self.calendar.open_on(self.date(), self)
        return self.calendar

    def on_calendar_picked(self, day: QDate) -> None:
        self.line.setText(day.toString(ISO))
        self.changed.emit()

    def on_line_text_edited(self, _text: str) -> None:
        self.changed.emit()
