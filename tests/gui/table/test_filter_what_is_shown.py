"""Ctrl+F finds what the table shows (issue 30, observed 3; decision 0032): in Product inventory,
typing the name a warehouse is shown by finds the rows that show it, on the real window over
the simulator, and the rows follow when that warehouse is renamed by a sync."""

from __future__ import annotations

import qasync
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from app.sim import SimServer, generate_show
from app.ui.table.resource_tab import ResourceTab
from tests.gui.conftest import Opener, config, profile_for, until, wait_synced


def shown(tab: ResourceTab, field: str) -> list[str]:
    model = tab.model
    column = model.column_of(field)
    return [
        str(model.index(row, column).data(Qt.ItemDataRole.DisplayRole))
        for row in range(model.rowCount())
    ]


def test_ctrl_f_finds_the_warehouse_names_the_table_shows(
    open_window: Opener, loop: qasync.QEventLoop, qtbot: QtBot
) -> None:
    with SimServer(generate_show("tiny", seed=3), config(rate_limit=300)) as server:
        opened = open_window(profile_for(server))
        window, session = opened.window, opened.session
        wait_synced(loop, session)
        tab = window.open_resource("product-inventory")
        assert tab is not None
        names = {r["warehouseID"]: r["description"] for r in session.cache.records("warehouses")}
        inventory = list(session.cache.records("product-inventory"))
        name = names[inventory[0]["warehouseID"]]  # e.g. "Dayton distribution center"
        word = name.split()[0]
        showing = [r for r in inventory if word in names.get(r["warehouseID"], "")]
        assert word not in str(inventory[0]) and 0 < len(showing) < len(inventory)
        assert name in shown(tab, "warehouseID")

        with qtbot.waitActive(window):
            window.activateWindow()
        tab.table.setFocus()
        qtbot.keyClick(tab.table, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
        qtbot.waitUntil(tab.filter_edit.hasFocus)
        qtbot.keyClicks(tab.filter_edit, word)

        async def filtered(count: int) -> None:
            await until(lambda: tab.model.rowCount() == count and not session.tasks.busy)

        loop.run_until_complete(filtered(len(showing)))
        assert all(word in text for text in shown(tab, "warehouseID"))
        assert sorted(tab.model.record_ids()) == sorted(r["id"] for r in showing)

        # The warehouse renamed by a sync: the filter follows the name the cells now show.
        first = next(r for r in session.cache.records("warehouses") if r["description"] == name)
        session.cache.upsert("warehouses", [{**first, "description": "Renamed depot"}])
        session.data_changed.emit(["warehouses"])
        still = [r for r in showing if r["warehouseID"] != first["warehouseID"]]
        loop.run_until_complete(filtered(len(still)))
        assert "Renamed depot" not in shown(tab, "warehouseID")
