"""Issue 30, point 6: room at every size from 1280×800 up. The main window on the demo show with a
customer's form open beside the table, at 1280×800 and at 1920×1080: no form field reaches past
the right edge of the form's pane and every one can be scrolled into view (the pane ends above
the window's bottom edge), no text is cut — buttons' ("A" for "Add", "Ren" for "Remove"),
combos' ("Custome"), labels', tabs' and column titles' — and the form's header names the record,
not its internal id. The conflict dialog, the import dialog and the profile dialog, opened over
it, cut no text either.
Screenshots of each at both sizes (`make screenshots`, else the test's own folder)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import qasync
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHeaderView,
    QLabel,
    QPushButton,
    QRadioButton,
    QScrollArea,
    QTabBar,
    QToolButton,
    QWidget,
)

from app.profile.settings import ProfileStore
from app.sim import SimServer, generate_show
from app.store.changes import NewChange
from app.ui.outbox.conflict_dialog import ConflictDialog
from app.ui.table.resource_tab import ResourceTab
from app.ui.window.profile_dialog import ProfileDialog
from tests.gui.conftest import Opened, Opener, config, profile_for, save_screenshot, wait_synced

SIZES = ((1280, 800), (1920, 1080))
COMBO_FRAME = 28  # a combo's frame and arrow around its text
TAB_FRAME = 8  # a tab's margins around its text
HEADER_FRAME = 8  # a column header's margins around its title (the sort arrow overlaps them)
RICH = Qt.TextFormat.RichText


def visible_rect(widget: QWidget, within: QWidget) -> QRect:
    """`widget`'s rectangle in `within`'s coordinates."""
    return QRect(widget.mapTo(within, QPoint(0, 0)), widget.size())


def cut_texts(root: QWidget) -> list[str]:
    """Every visible button, combo, label, tab or column header whose text does not fit its
    width (a label that wraps its words: its height)."""
    cut = []
    for widget in root.findChildren(QWidget):
        if not widget.isVisibleTo(root) or widget.width() <= 1:
            continue
        if isinstance(widget, QLabel) and widget.text() and widget.textFormat() != RICH:
            if widget.wordWrap():
                needs = widget.heightForWidth(widget.width())
                if needs > widget.height() + 1:
                    cut.append(f"label {widget.text()!r}: {widget.height()} px tall of {needs}")
            elif widget.width() < widget.sizeHint().width() and not _shortened(widget):
                cut.append(f"label {widget.text()!r}: {widget.width()} px")
        elif isinstance(widget, QTabBar):
            for i in range(widget.count()):
                needs = widget.fontMetrics().horizontalAdvance(widget.tabText(i))
                if widget.tabRect(i).width() < needs + TAB_FRAME and widget.isTabVisible(i):
                    cut.append(f"tab {widget.tabText(i)!r}: {widget.tabRect(i).width()} px")
        elif isinstance(widget, QHeaderView) and widget.orientation() == Qt.Orientation.Horizontal:
            cut += _cut_headers(widget)
        if isinstance(widget, QPushButton | QToolButton) and widget.text():
            if widget.width() < widget.minimumSizeHint().width():
                cut.append(f"{type(widget).__name__} {widget.text()!r}: {widget.width()} px")
        elif isinstance(widget, QRadioButton | QCheckBox) and widget.text():
            if widget.width() < widget.sizeHint().width():
                cut.append(f"{type(widget).__name__} {widget.text()!r}: {widget.width()} px")
        elif isinstance(widget, QComboBox) and widget.currentText():
            needs = widget.fontMetrics().horizontalAdvance(widget.currentText())
            if widget.width() < needs + COMBO_FRAME:
                cut.append(f"combo {widget.currentText()!r}: {widget.width()} px")
    return cut


def _ancestors(widget: QWidget) -> Iterator[QWidget]:
    parent = widget.parentWidget()
    while parent is not None:
        yield parent
        parent = parent.parentWidget()


def _brought_into_view(scroll: QScrollArea, editor: QWidget) -> bool:
    """Whether scrolling the form's fields to `editor` shows all of its height."""
    scroll.ensureWidgetVisible(editor, 0, 0)
    shown = visible_rect(editor, scroll.viewport())
    view = scroll.viewport().rect()
    return (shown.top() >= view.top() and shown.bottom() <= view.bottom() + 1) or (
        editor.height() > view.height() and shown.top() <= view.top() + 1
    )


def _shortened(label: QLabel) -> bool:
    """A label that says itself it is shortened (its text ends in "…", the whole of it in the
    tooltip): the status bar's messages, cut at a word."""
    return label.text().endswith("…") and bool(label.toolTip())


def _cut_headers(header: QHeaderView) -> list[str]:
    """Column titles wider than their column, for the columns on screen."""
    model, cut = header.model(), []
    if model is None:
        return cut
    for section in range(header.count()):
        if header.isSectionHidden(section):
            continue
        at = header.sectionViewportPosition(section)
        if at < 0 or at >= header.viewport().width():
            continue  # scrolled out of sight: nothing shown to cut
        title = str(model.headerData(section, Qt.Orientation.Horizontal) or "")
        needs = header.fontMetrics().horizontalAdvance(title) + HEADER_FRAME
        if title and header.sectionSize(section) < needs:
            cut.append(f"column {title!r}: {header.sectionSize(section)} px of {needs}")
    return cut


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_the_form_fits_beside_the_table_and_no_text_is_cut(
    loop: qasync.QEventLoop, open_window: Opener, tmp_path: Path, width: int, height: int
) -> None:
    with SimServer(generate_show("demo", seed=1), config()) as server:
        opened = open_window(profile_for(server, "Demo show"))
        window, session = opened.window, opened.session
        window.resize(width, height)
        wait_synced(loop, session)
        assert window.centre.currentWidget() is window.start_page
        assert cut_texts(window) == [], "the start page"
        save_screenshot(window, f"start-page-{width}x{height}.png", tmp_path)
        tab = window.open_resource("customers")
        assert tab is not None and tab.form is not None
        tab.table.setCurrentIndex(tab.model.index(2, 0))
        form = tab.form
        save_screenshot(window, f"customer-form-{width}x{height}.png", tmp_path)
        pane = form.parentWidget()
        assert pane is not None
        outside = [
            field for field, editor in form.editors.items()
            if editor.isVisibleTo(window)
            and visible_rect(editor, window).right() > visible_rect(pane, window).right()
        ]  # fmt: skip
        assert outside == [], f"past the form's right edge at {width}×{height}"
        assert pane.isVisibleTo(window)
        assert visible_rect(pane, window).bottom() <= window.rect().bottom(), "past the bottom"
        scroll = next(w for w in _ancestors(form.editors["city"]) if isinstance(w, QScrollArea))
        hidden = [
            field for field, editor in form.editors.items()
            if editor.isVisibleTo(window) and not _brought_into_view(scroll, editor)
        ]  # fmt: skip
        assert hidden == [], f"fields that cannot be scrolled into view at {width}×{height}"
        assert cut_texts(window) == []
        record = tab.model.record(2)
        assert str(record["id"]) not in form.title.text()  # its name and key, not its id

        size = f"{width}x{height}"
        for name, dialog in dialogs(opened, tab, record, tmp_path):
            dialog.show()
            assert cut_texts(dialog) == [], name
            save_screenshot(dialog, f"{name}-{size}.png", tmp_path)
            dialog.close()


def dialogs(
    opened: Opened, tab: ResourceTab, record: dict[str, Any], folder: Path
) -> Iterator[tuple[str, QWidget]]:
    """The conflict, import and profile dialogs, each as the window opens it."""
    session, window = opened.session, opened.window
    seq = session.outbox.add(
        NewChange("customers", "update", str(record["id"]),
                  payload={**record, "city": "Lyon", "warehouseID": "WH01"},
                  changed_fields=("city", "warehouseID"), base=record)
    )  # fmt: skip
    session.outbox.mark_conflict(seq, {**record, "city": "Madrid", "extra1": "Ring twice " * 9})
    change = session.outbox.get(seq)
    assert change is not None
    yield "conflict-dialog", ConflictDialog(session.outbox, change, session.registry, window,
                                            names=window.references)  # fmt: skip
    source = folder / "customers.csv"
    source.write_text("Customer ID,City\n" + f"{record['customerID']},Akron\n", encoding="utf-8")
    assert tab.importer is not None
    tab.importer.choose_file = lambda: source
    tab.importer.action.trigger()
    assert tab.importer.dialog is not None
    yield "import-dialog", tab.importer.dialog
    yield (
        "profile-dialog",
        ProfileDialog(ProfileStore(folder / "profiles.json"), session.profile, window),
    )
