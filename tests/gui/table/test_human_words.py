"""Issue 14 point 6: field titles, not API names, in the grid's dialogs and menus — "Set field",
the columns chooser, the column headers — with the API's acronyms kept upper-case."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QInputDialog, QMenu, QWidget

from tests.gui.table.test_gestures import Grid, editing, grid

__all__ = ["editing", "grid"]


def test_set_field_offers_titles_and_names_the_field_in_its_undo_step(
    grid: Grid, monkeypatch: pytest.MonkeyPatch
) -> None:
    offered: list[list[str]] = []
    asked: list[str] = []

    def get_item(_w: QWidget, title: str, _label: str, items: list[str], *_a: Any) -> Any:
        offered.append(list(items))  # the modal dialog cannot run here: what it is given
        return "Price zone", True

    def get_text(_w: QWidget, title: str, label: str, *_a: Any) -> Any:
        asked.append(f"{title}: {label}")
        return "7", True

    monkeypatch.setattr(QInputDialog, "getItem", staticmethod(get_item))
    monkeypatch.setattr(QInputDialog, "getText", staticmethod(get_text))
    assert grid.tab.grid is not None
    grid.tab.grid.prompt = grid.tab.grid._prompt_user  # the real prompt, not the test's
    model = grid.tab.model
    grid.tab.table.setCurrentIndex(model.index(0, model.column_of("city")))
    grid.tab.grid.set_field()
    assert "Price zone" in offered[0] and "Warehouse ID" in offered[0]
    assert not any(name in offered[0] for name in ("priceZone", "warehouseID"))
    assert asked == ["Set field: New value of Price zone:"]
    assert str(model.value(0, model.column_of("priceZone"))) == "7"
    assert (
        grid.editing.stack.undoText() == "price zone on CU00000 in Customers"
    )  # one cell: what and where


def test_columns_and_headers_read_as_titles(grid: Grid) -> None:
    tab = grid.tab
    chooser = next(
        a.menu() for a in tab.header_menu(0).actions() if a.text() == "Columns" and a.menu()
    )
    assert isinstance(chooser, QMenu)
    titles = [a.text() for a in chooser.actions()]
    assert "Warehouse" in titles and "Customer ID" in titles and "Price zone" in titles
    header = tab.model.headerData(tab.model.column_of("warehouseID"), Qt.Orientation.Horizontal)
    assert header == "Warehouse"  # a column of warehouse names (issue 30, item 6)
