"""How a resource table's cells are painted: most of them with one Python call and one `drawText`.

Qt's styled delegate lays out each cell's text in a `QTextLayout` and asks the model seven roles
(decision 0022): at 40 rows of 15 columns that was most of a scroll frame. `CellDelegate` paints
from the cell's look instead (app/ui/table/cell_looks.py), the same pixels as Qt's delegate
(tests/gui/table/test_table_paint.py and test_cell_paint.py compare them):

- a plain cell (its text alone, maybe aligned right: a number) with one `drawText`; a text too
  long for its column elided as Qt elides it (`QFontMetrics.elidedText`, the same call Qt's style
  makes), the text shown kept in the look for that width;
- an empty cell not at all;
- a cell holding only a check box (a yes/no field) with the style's own check indicator, placed
  where the style places it;
- any other cell (a tint, a font, a selected, focused or hovered cell, a text that is not
  printable on one line, a view that wraps or mirrors its text) by Qt's styled delegate.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QModelIndex, QObject, QPersistentModelIndex, QRect, QRectF, Qt
from PySide6.QtGui import QColor, QFontMetrics, QPainter, QPalette
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem, QWidget

from app.ui.table.cell_looks import (
    ALIGN,
    CHECK,
    CHECK_ONLY,
    DISPLAY,
    ELIDED,
    PLAIN_WIDTH,
    CellLook,
    TextWidths,
    plain_width,
)

Index = QModelIndex | QPersistentModelIndex
LookOf = Callable[[int, int], CellLook]  # (row, column) → the cell's look (the table model's)
_State = QStyle.StateFlag
# A cell in any of these states is painted by Qt's delegate (highlight, focus frame, hover).
_STYLED = (_State.State_Selected | _State.State_HasFocus | _State.State_MouseOver).value
_ENABLED, _ACTIVE_STATE = _State.State_Enabled.value, _State.State_Active.value
_ON, _OFF = _State.State_On, _State.State_Off
_WRAP = QStyleOptionViewItem.ViewItemFeature.WrapText
_HAS_CHECK = QStyleOptionViewItem.ViewItemFeature.HasCheckIndicator
_CHECK_BOX = QStyle.SubElement.SE_ItemViewItemCheckIndicator
_CHECK_MARK = QStyle.PrimitiveElement.PE_IndicatorItemViewItemCheck
_CHECKED = Qt.CheckState.Checked
_TOP_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop
_ELIDE_RIGHT = Qt.TextElideMode.ElideRight
_ACTIVE, _INACTIVE = QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive
_TEXT = QPalette.ColorRole.Text
_PALETTE_CHANGES = (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange)


class CellDelegate(QStyledItemDelegate):
    """Paints a plain cell with one `drawText`, an empty one not at all and a lone check box
    with the style's indicator (given `look`, the model's cell looks); any other cell, or every
    cell without `look`, as Qt's styled delegate does."""

    def __init__(self, parent: QObject | None = None, look: LookOf | None = None) -> None:
        super().__init__(parent)
        self._look_of = look
        self._metrics: tuple[int, int, int] | None = None  # text inset, font height, ascent
        self._styled_only = False  # the view wraps, mirrors or elides otherwise: Qt paints all
        self._widths: Callable[[str], int] = len  # measured in the view's font from the first paint
        self._elide: Callable[[str, int], str] = lambda text, _room: text
        self._check_boxes: dict[tuple[int, int], QRect] = {}  # cell size → indicator within it
        self._pens: tuple[QColor, QColor] | None = None  # text in an active / inactive window
        self._view: QWidget | None = None  # the view painted, watched for palette changes

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        """A plain cell drawn as QCommonStyle draws an item's text; else Qt's delegate paints.
        (One method, flags compared as ints: every Python call and enum `&` here costs about
        a microsecond, and a frame paints 600 cells.)"""
        look_of, state = self._look_of, option.state.value
        if look_of is None or state & _STYLED or not state & _ENABLED:
            super().paint(painter, option, index)
            return
        if self._metrics is None:
            self._metrics = self._measure(option)
        look = look_of(index.row(), index.column())
        width = look.get(PLAIN_WIDTH)
        if width is None:
            width = look[PLAIN_WIDTH] = plain_width(look, self._widths)
        if width <= 0 or self._styled_only:
            if not width:
                return  # an empty cell: Qt's delegate draws nothing either
            if width == CHECK_ONLY and not self._styled_only:
                self._paint_check_box(painter, option, look[CHECK] == _CHECKED)
            else:
                super().paint(painter, option, index)  # not plain, or a view Qt must paint
            return
        margin, height, ascent = self._metrics
        rect: tuple[int, int, int, int] = option.rect.getRect()  # type: ignore[assignment]
        x, y, cell_width, cell_height = rect  # one call, not four (PySide types it `object`)
        room = cell_width - 2 * margin
        text = look[DISPLAY]
        if width > room:  # maybe too long: elided as Qt's style elides it (unchanged if it fits)
            shown = look.get(ELIDED)
            if shown is None or shown[0] != room:
                shown = look[ELIDED] = (room, self._elide(text, room))
            text = shown[1]
        pens = self._pens
        if pens is None:
            palette = option.palette
            pens = self._pens = (palette.color(_ACTIVE, _TEXT), palette.color(_INACTIVE, _TEXT))
        painter.setPen(pens[0] if state & _ACTIVE_STATE else pens[1])
        top = y + (cell_height - height) // 2
        if ALIGN in look:  # a number, at the right: placed as Qt's text layout places it
            painter.drawText(QRectF(x + margin, top, room, height), _TOP_RIGHT, text)
        else:
            painter.drawText(x + margin, top + ascent, text)

    def _paint_check_box(self, painter: QPainter, option: QStyleOptionViewItem, on: bool) -> None:
        """A cell holding only a check box: the style's indicator where QCommonStyle puts it
        (its rect within a cell of this size measured once), nothing else to draw."""
        rect, view = option.rect, option.widget
        style = view.style() if view is not None else None
        if style is None:
            return
        size = (rect.width(), rect.height())
        box = self._check_boxes.get(size)
        if box is None:
            laid = QStyleOptionViewItem(option)
            laid.features |= _HAS_CHECK
            box = style.subElementRect(_CHECK_BOX, laid, view).translated(-rect.x(), -rect.y())
            self._check_boxes[size] = box
        mark = QStyleOptionViewItem(option)
        mark.rect = box.translated(rect.x(), rect.y())
        mark.state |= _ON if on else _OFF
        painter.save()
        painter.setClipRect(rect)  # as QCommonStyle clips an item's painting to its cell
        style.drawPrimitive(_CHECK_MARK, mark, painter, view)
        painter.restore()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """The view painted's palette changed (a switch of the system's colour scheme): its text
        colours are read again at the next paint. (Qt's own filter is for editors only: it would
        take the view's Tab and Return for an editor's.)"""
        if watched is not self._view:
            return super().eventFilter(watched, event)
        if event.type() in _PALETTE_CHANGES:
            self._pens = None
        return False

    def _measure(self, option: QStyleOptionViewItem) -> tuple[int, int, int]:
        """QCommonStyle's inset of an item's text (its focus frame margin + 1), the font's
        height and ascent — measured once, at the first paint (the table's font is the
        application's, set before any table opens) — and whether the view wraps, mirrors or
        elides other than at the right (then Qt's delegate paints every cell; the tab's tables
        do none of these)."""
        view: QWidget | None = option.widget
        style = view.style() if view is not None else None
        if view is not None and self._view is None:
            self._view = view
            view.installEventFilter(self)  # its palette changes (`eventFilter`)
        focus = QStyle.PixelMetric.PM_FocusFrameHMargin
        mirrored = option.direction != Qt.LayoutDirection.LeftToRight
        wraps = bool(option.features & _WRAP)
        self._styled_only = mirrored or wraps or option.textElideMode != _ELIDE_RIGHT
        self._widths = TextWidths(option.font)
        metrics = QFontMetrics(option.font)
        self._elide = lambda text, room: metrics.elidedText(text, _ELIDE_RIGHT, room)
        margin = (style.pixelMetric(focus, None, view) if style else 2) + 1
        return margin, option.fontMetrics.height(), option.fontMetrics.ascent()
