"""A resource tab's header menu (right-click on the column titles): filter a column, clear its
filter, hide it; choose the columns shown; reset them to the model's order and width.

It acts through its tab's `ArrangedColumns` (app/ui/table/resource_tab.py `ResourceTab` has
them), which remember the layout each change leaves."""

from __future__ import annotations

from typing import Protocol

from PySide6.QtWidgets import QHeaderView, QMenu, QWidget

from app.ui.table.table_model import RecordTableModel
from app.wording.references import column_title


class ArrangedColumns(Protocol):
    """The columns of a resource tab as its header menu sees them: the model's fields and
    column filters, the header showing them, and the tab's ways to change them (each one
    remembered for the next time the resource is opened)."""

    @property
    def model(self) -> RecordTableModel: ...
    @property
    def header(self) -> QHeaderView: ...
    def edit_column_filter(self, section: int) -> None: ...
    def set_column_filter(self, field: str, text: str) -> None: ...
    def reset_columns(self) -> None: ...
    def save_state(self) -> None: ...


def header_menu(tab: ArrangedColumns, section: int, owner: QWidget) -> QMenu:
    """The header's context menu for `section` (-1: outside any column), a child of `owner`
    (the tab)."""
    menu = QMenu(owner)
    model = tab.model
    if section >= 0:
        field = model.field(section)
        menu.addAction("Filter this column…", lambda: tab.edit_column_filter(section))
        if field in model.query.column_filters:
            menu.addAction("Clear this column's filter", lambda: tab.set_column_filter(field, ""))
        menu.addAction("Hide this column", lambda: set_hidden(tab, section, True))
        menu.addSeparator()
    _add_column_chooser(tab, menu.addMenu("Columns"))
    menu.addAction("Reset columns", tab.reset_columns)
    return menu


def set_hidden(tab: ArrangedColumns, section: int, hidden: bool) -> None:
    tab.header.setSectionHidden(section, hidden)
    tab.save_state()


def _add_column_chooser(tab: ArrangedColumns, menu: QMenu) -> None:
    """A check box per column: shown or hidden."""
    for section, field in enumerate(tab.model.fields):
        action = menu.addAction(column_title(tab.model.resource, field))  # as its header reads
        action.setCheckable(True)
        action.setChecked(not tab.header.isSectionHidden(section))
        action.setData(field)
        action.toggled.connect(lambda shown, s=section: set_hidden(tab, s, not shown))
