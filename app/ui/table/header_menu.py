"""A resource tab's header menu (right-click on the column titles): filter a column, clear its
filter, hide it; choose the columns shown; reset them to the model's order and width.

It acts through the tab (app/ui/table/resource_tab.py), which remembers the layout each change
leaves."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QMenu

from app.wording.references import title_of

if TYPE_CHECKING:
    from app.ui.table.resource_tab import ResourceTab


def header_menu(tab: ResourceTab, section: int) -> QMenu:
    """The header's context menu for `section` (-1: outside any column)."""
    menu = QMenu(tab)
    model = tab.model
    if section >= 0:
        field = model.field(section)
        menu.addAction("Filter this column…", lambda: tab.edit_column_filter(section))
        if field in model.listing.column_filters:
            menu.addAction("Clear this column's filter", lambda: tab.set_column_filter(field, ""))
        menu.addAction("Hide this column", lambda: set_hidden(tab, section, True))
        menu.addSeparator()
    _add_column_chooser(tab, menu.addMenu("Columns"))
    menu.addAction("Reset columns", tab.reset_columns)
    return menu


def set_hidden(tab: ResourceTab, section: int, hidden: bool) -> None:
    tab.header.setSectionHidden(section, hidden)
    tab.save_state()


def _add_column_chooser(tab: ResourceTab, menu: QMenu) -> None:
    """A check box per column: shown or hidden."""
    for section, field in enumerate(tab.model.fields):
        action = menu.addAction(title_of(field))
        action.setCheckable(True)
        action.setChecked(not tab.header.isSectionHidden(section))
        action.setData(field)
        action.toggled.connect(lambda shown, s=section: set_hidden(tab, s, not shown))
