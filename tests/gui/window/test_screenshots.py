"""PNGs of the main window on the demo show, for people to look at (issue 4).

Saved to the folder named by `SHOWDESK_SCREENSHOTS` (else the test's own temporary folder):
the customers tab, the outbox view with pending and failed changes, and a backoff in progress.
"""

from __future__ import annotations

from pathlib import Path

import qasync

from app.sim import SimServer, generate_show
from app.store.changes import NewChange
from tests.gui.conftest import Opener, config, profile_for, save_screenshot, until, wait_synced


def test_screenshots_of_the_demo(
    loop: qasync.QEventLoop, open_window: Opener, tmp_path: Path
) -> None:
    with SimServer(generate_show("demo", seed=1), config()) as server:
        opened = open_window(profile_for(server, "Demo show"))
        window, session = opened.window, opened.session
        window.resize(1400, 850)
        wait_synced(loop, session)
        window.open_resource("customers")
        shots = [save_screenshot(window, "customers.png", tmp_path)]

        customers = list(session.cache.records("customers", limit=3))
        session.outbox.add_many(
            NewChange("customers", "update", c["id"], payload={**c, "priceZone": 3},
                      changed_fields=("priceZone",), base=c)
            for c in customers
        )  # fmt: skip
        session.outbox.add(NewChange("customers", "create", payload={"customerName": "No key"}))
        window.show_outbox()
        session.outbox_written()
        shots.append(save_screenshot(window, "outbox.png", tmp_path))

        pause = window.status.pause
        server.start_storm(3.0)
        session.push()

        async def in_backoff() -> None:
            await until(lambda: pause.isVisible() and "resuming in" in pause.text(), within=20)
            shots.append(save_screenshot(window, "backoff.png", tmp_path))
            await until(lambda: not session.tasks.busy, within=60)

        loop.run_until_complete(in_backoff())
    assert all(shot.stat().st_size > 10_000 for shot in shots)
