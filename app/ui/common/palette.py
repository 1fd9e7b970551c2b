"""Colours that read on a light and a dark palette alike.

Backgrounds are tints: a hue mixed into the palette's own base colour, so the palette's text
stays readable on them whatever the system's colour scheme. Text colours (a warning, an error,
a record created here) are the hue itself on a light palette and a lighter shade of it on a
dark one. Everything is computed from the application's current palette, so a switch of the
system's scheme (which Qt applies as a new palette) is followed on the next paint.
"""

from __future__ import annotations

from enum import Enum

from PySide6.QtGui import QBrush, QColor, QGuiApplication, QPalette


class Hue(Enum):
    """What a colour means, and its hue on a light palette."""

    PENDING = "#ffb300"  # an edit waiting in the outbox
    TEAMMATE = "#7e57c2"  # a teammate's change waiting in the team outbox
    ERROR = "#e53935"  # a value refused, a change that failed
    CONFLICT = "#ef6c00"  # the server changed it too
    FAILED = "#ff7043"  # a change the server refused at the last push
    CHANGED = "#fdd835"  # a side that moved away from the base
    NEW = "#00802b"  # a record created here
    DELETED = "#8a8a8a"  # a record to be deleted
    WARNING = "#b35900"  # rate limited, offline
    OK = "#1b7f3b"


def _palette(palette: QPalette | None) -> QPalette:
    return palette if palette is not None else QGuiApplication.palette()


def is_dark(palette: QPalette | None = None) -> bool:
    """True when the palette's windows are darker than their text."""
    pal = _palette(palette)
    return (
        pal.color(QPalette.ColorRole.Window).lightness()
        < pal.color(QPalette.ColorRole.WindowText).lightness()
    )


def background(hue: Hue, palette: QPalette | None = None) -> QColor:
    """`hue` tinted into the palette's base: a background its text reads on."""
    pal = _palette(palette)
    base, tone = pal.color(QPalette.ColorRole.Base), QColor(hue.value)
    share = 0.3
    return QColor(
        round(base.red() + (tone.red() - base.red()) * share),
        round(base.green() + (tone.green() - base.green()) * share),
        round(base.blue() + (tone.blue() - base.blue()) * share),
    )


def text(hue: Hue, palette: QPalette | None = None) -> QColor:
    """`hue` as a text colour that stands out on the palette's windows."""
    tone = QColor(hue.value)
    return tone.lighter(160) if is_dark(palette) else tone


_brushes: dict[tuple[Hue, bool, int], QBrush] = {}


def background_brush(hue: Hue, palette: QPalette | None = None) -> QBrush:
    """`background` as a brush, made once per palette (table models ask for it per cell)."""
    return _brush(hue, True, _palette(palette))


def text_brush(hue: Hue, palette: QPalette | None = None) -> QBrush:
    return _brush(hue, False, _palette(palette))


def _brush(hue: Hue, behind: bool, palette: QPalette) -> QBrush:
    key = (hue, behind, palette.cacheKey())
    brush = _brushes.get(key)
    if brush is None:
        if len(_brushes) > 256:  # palettes come and go (a theme switch): keep it small
            _brushes.clear()
        colour = background(hue, palette) if behind else text(hue, palette)
        brush = _brushes[key] = QBrush(colour)
    return brush


def text_style(hue: Hue, *, bold: bool = False) -> str:
    """A style sheet for a label in `hue` (for widgets that take style sheets)."""
    weight = "; font-weight: bold" if bold else ""
    return f"color: {text(hue).name()}{weight}"
