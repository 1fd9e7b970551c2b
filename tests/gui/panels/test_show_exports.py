"""The show's exports on a simulated show: listed, their parameters as proper inputs (a combo of
the show's options, dates), run with progress shown, and the result saved to disk."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path

import pytest
import qasync
from PySide6.QtWidgets import QComboBox, QLineEdit

from app.sim import SimServer, generate_show
from app.ui.common.date_field import DateField
from app.ui.panels.show_exports import ShowExportsDialog, ShowExportsPanel
from tests.gui.conftest import Opener, config, profile_for, until, wait_synced


@pytest.fixture
def server() -> Iterator[SimServer]:
    with SimServer(generate_show("tiny", seed=19), config(rate_limit=300)) as running:
        yield running


def open_dialog(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer, name: str
) -> ShowExportsDialog:
    opened = open_window(profile_for(server))
    wait_synced(loop, opened.session)
    tab = opened.window.open_resource("exports")
    assert tab is not None
    export = next(e for e in server.show.records("exports") if e["name"] == name)
    tab.table.setCurrentIndex(tab.model.index(tab.model.row_of(export["id"]), 0))
    panel = tab.findChild(ShowExportsPanel, "run-export")
    assert isinstance(panel, ShowExportsPanel)
    dialog = panel.open_dialog()
    assert dialog.chosen_id() == export["id"]
    assert dialog.exports.count() == len(server.show.records("exports"))

    async def options_loaded() -> None:
        await until(lambda: all(p.widget.isEnabled() for p in dialog.inputs.values()))

    loop.run_until_complete(options_loaded())
    return dialog


def run_and_save(
    loop: qasync.QEventLoop, dialog: ShowExportsDialog, folder: Path
) -> list[list[str]]:
    asked: list[str] = []
    dialog.ask_path = lambda title, suggested: asked.append(suggested) or folder / suggested  # type: ignore[func-returns-value]
    dialog.run_button.click()
    assert dialog.running and dialog.progress.isVisibleTo(dialog)
    assert not dialog.run_button.isEnabled() and dialog.cancel_button.isEnabled()

    async def saved() -> None:
        await until(lambda: dialog.saved_to is not None)

    loop.run_until_complete(saved())
    assert not dialog.progress.isVisibleTo(dialog) and "Saved" in dialog.status.text()
    assert dialog.run_button.isEnabled() and not dialog.cancel_button.isEnabled()
    assert dialog.saved_to == folder / asked[0] and asked[0].endswith(".csv")
    text = dialog.saved_to.read_text(encoding="utf-8")
    dialog.close()
    return list(csv.reader(io.StringIO(text)))


def test_an_export_with_a_choice_is_saved_to_disk(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer, tmp_path: Path
) -> None:
    dialog = open_dialog(loop, open_window, server, "Customer list")
    warehouse, search = dialog.inputs["warehouse"], dialog.inputs["search"]
    assert isinstance(warehouse.widget, QComboBox) and isinstance(search.widget, QLineEdit)
    offered = [warehouse.widget.itemData(i) for i in range(warehouse.widget.count())]
    wanted = server.show.records("warehouses")[0]["warehouseID"]
    assert offered == [None, *(w["warehouseID"] for w in server.show.records("warehouses"))]
    warehouse.choose(wanted)
    assert dialog.arguments() == {"warehouse": wanted}

    rows = run_and_save(loop, dialog, tmp_path)
    head = ["customerID", "customerName", "city", "state", "warehouseID", "email"]
    expected = [
        [str(c[h] or "") for h in head]
        for c in server.show.records("customers") if c["warehouseID"] == wanted
    ]  # fmt: skip
    assert rows[0] == head and rows[1:] == expected and expected


def test_dates_are_given_as_the_export_takes_them(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer, tmp_path: Path
) -> None:
    dialog = open_dialog(loop, open_window, server, "Orders by vendor")
    since = dialog.inputs["from"]
    assert isinstance(since.widget, DateField) and since.value() is None  # empty: not sent
    lines = server.show.records("orders")
    vendor = lines[0]["vendor"]["id"]
    first = sorted(str(o["deliveryDate"]) for o in lines if o["vendor"]["id"] == vendor)[-1][:10]
    dialog.inputs["vendor"].choose(vendor)
    since.choose(first)
    assert dialog.arguments() == {"vendor": vendor, "from": first}
    rows = run_and_save(loop, dialog, tmp_path)
    expected = {
        o["orderLineID"] for o in lines
        if o["vendor"]["id"] == vendor and str(o["deliveryDate"])[:10] >= first
    }  # fmt: skip
    assert {r[0] for r in rows[1:]} == expected and expected
