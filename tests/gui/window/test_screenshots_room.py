"""PNGs of the room to work (issue 14, point 4) on the demo show, at 1600×1000: the show's start
page, the window with a customer's form open beside the table, and a product with its panels.

Saved to the folder named by `SHOWDESK_SCREENSHOTS` (else the test's own temporary folder).
"""

from __future__ import annotations

from pathlib import Path

import qasync
from PySide6.QtWidgets import QTabWidget

from app.sim import SimServer, generate_show
from app.store.changes import NewChange
from tests.gui.conftest import Opener, config, profile_for, save_screenshot, until, wait_synced


def test_screenshots_of_the_room_to_work(
    loop: qasync.QEventLoop, open_window: Opener, tmp_path: Path
) -> None:
    with SimServer(generate_show("demo", seed=1), config()) as server:
        opened = open_window(profile_for(server, "Demo show"))
        window, session = opened.window, opened.session
        window.resize(1600, 1000)
        wait_synced(loop, session)
        customers = list(session.cache.records("customers", limit=4))
        session.outbox.add_many(
            NewChange("customers", "update", c["id"], payload={**c, "priceZone": 2},
                      changed_fields=("priceZone",), base=c)
            for c in customers[:3]
        )  # fmt: skip
        session.outbox_written(["customers"])
        session.push()
        loop.run_until_complete(until(lambda: not session.tasks.busy, within=30))
        session.outbox.add(
            NewChange("customers", "update", customers[3]["id"],
                      payload={**customers[3], "phone": "555-0199"}, changed_fields=("phone",),
                      base=customers[3])
        )  # fmt: skip
        session.outbox_written(["customers"])
        assert window.centre.currentWidget() is window.start_page
        assert "applied" in window.start_page.pushes.text()
        shots = [save_screenshot(window, "start-page.png", tmp_path)]

        tab = window.open_resource("customers")
        assert tab is not None and tab.form is not None
        tab.table.setCurrentIndex(tab.model.index(2, 0))
        shots.append(save_screenshot(window, "customer-form-side.png", tmp_path))

        products = window.open_resource("products")
        assert products is not None and products.form is not None
        products.table.setCurrentIndex(products.model.index(0, 0))
        holder = products.findChild(QTabWidget, "record_panels")
        assert isinstance(holder, QTabWidget)
        holder.setCurrentIndex(1)  # the inventory: a table of its own
        shots.append(save_screenshot(window, "product-panels.png", tmp_path))
    assert all(shot.stat().st_size > 10_000 for shot in shots)
