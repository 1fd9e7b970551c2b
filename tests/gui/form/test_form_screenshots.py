"""PNGs of the record forms on the demo show (issue 5): the Customer form with a message at a
field, a generated form (attendees: enumerations, a reference picker) and the sales-rep
hierarchy tree under the groups' form.

Saved to the folder named by `SHOWDESK_SCREENSHOTS` (else the test's own temporary folder).
"""

from __future__ import annotations

from pathlib import Path

import qasync

from app.sim import SimServer, generate_show
from app.ui.form.inputs import TextInput
from app.ui.panels.hierarchy_view import HierarchyView
from tests.gui.conftest import Opener, config, profile_for, save_screenshot, wait_synced


def test_screenshots_of_the_forms(
    loop: qasync.QEventLoop, open_window: Opener, tmp_path: Path
) -> None:
    with SimServer(generate_show("demo", seed=1), config()) as server:
        opened = open_window(profile_for(server, "Demo show"))
        window = opened.window
        window.resize(1600, 950)
        wait_synced(loop, opened.session)
        shots = []
        for slug, name in (("customers", "customer-form.png"), ("attendees", "attendee-form.png")):
            tab = window.open_resource(slug)
            assert tab is not None and tab.form is not None
            tab.table.setCurrentIndex(tab.model.index(0, 0))
            email = tab.form.editors["email"]
            assert isinstance(email, TextInput)
            email.line.setText("not an address")
            email.line.textEdited.emit("not an address")
            assert tab.form.problem_at("email")
            shots.append(save_screenshot(window, name, tmp_path))
        groups = window.open_resource("sales-rep-groups")
        assert groups is not None
        groups.table.setCurrentIndex(groups.model.index(1, 0))
        tree = groups.findChild(HierarchyView, "hierarchy")
        assert isinstance(tree, HierarchyView) and tree.model.rowCount() > 1
        assert tree.tree.isVisible() and tree.tree.currentIndex().isValid()
        shots.append(save_screenshot(window, "hierarchy-tree.png", tmp_path))
    assert all(shot.stat().st_size > 10_000 for shot in shots)
