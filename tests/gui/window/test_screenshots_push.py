"""PNGs of what a push says (issue 14, point 3), for people to look at: the review before a
push, the push summary in the status bar, the offline state after a push that could not reach
the show, and the outbox on what did not go through. Saved to `SHOWDESK_SCREENSHOTS` (else the
test's own temporary folder), at 1600×1000."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import cast

import qasync

from app.profile.settings import ProfileStore
from app.sim import SimServer, generate_show
from app.ui.window.main_window import MainWindow
from tests.gui.conftest import Opener, config, profile_for, save_screenshot, until, wait_synced
from tests.gui.form.test_form_sim import queue_blank_key
from tests.gui.session.test_push_said import edit_cities, push_and_wait


def test_screenshots_of_a_push(
    loop: qasync.QEventLoop, open_window: Opener, tmp_path: Path
) -> None:
    with SimServer(generate_show("demo", seed=1), config()) as server:
        profile = replace(profile_for(server, "Demo show"), review_push_over=5)
        ProfileStore().save(profile)
        opened = open_window(profile)
        window, session = opened.window, opened.session
        window.resize(1600, 1000)
        wait_synced(loop, session)
        window.open_resource("customers")
        cities = ["Lyon", "Ghent", "Porto", "Turin", "Graz", "Basel", "Leeds", "Cork"]
        edit_cities(opened, cities)
        records = list(session.cache.records("customers", limit=len(cities) + 1))
        queue_blank_key(session.editor, records[-1]["id"])  # the server refuses it

        window.actions_["push"].trigger()
        gate = window.push_gate
        assert gate is not None and gate.dialog is not None
        dialog = gate.dialog
        dialog.resize(1000, 700)
        shots = [save_screenshot(cast(MainWindow, dialog), "push-review.png", tmp_path)]
        dialog.push_button.click()
        loop.run_until_complete(until(lambda: window.status.push_summary.isVisible(), within=60))
        loop.run_until_complete(until(lambda: not session.tasks.busy, within=60))
        shots.append(save_screenshot(window, "push-summary.png", tmp_path))

        edit_cities(opened, ["Offline"])
        server.stop()
        push_and_wait(loop, opened)
        assert "cannot be reached" in window.status.currentMessage()
        shots.append(save_screenshot(window, "push-offline.png", tmp_path))
        window.status.push_summary.click()  # the outbox on what did not go through
        shots.append(save_screenshot(window, "push-failures.png", tmp_path))
    assert all(shot.stat().st_size > 10_000 for shot in shots)
