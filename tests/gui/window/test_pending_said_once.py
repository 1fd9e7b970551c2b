"""One figure for what is pending (issue 30, item 5 / point 4): the outbox's summary said
"Nothing pending to push" beside the status bar's "1 pending". The summary now counts the whole
outbox, as the status bar does, refreshed on the same `outbox_changed`; a view showing one
resource's changes says how many of them are there."""

from __future__ import annotations

import pytest
import qasync
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from app.sim import SimServer
from tests.gui.conftest import Opened, Opener, profile_for, until, wait_synced

pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")


@pytest.fixture
def opened(loop: qasync.QEventLoop, open_window: Opener, tiny_server: SimServer) -> Opened:
    window = open_window(profile_for(tiny_server))
    wait_synced(loop, window.session)
    return window


def edit(opened: Opened, slug: str, field: str, text: str) -> None:
    """Paste `text` into row 0's `field` of `slug`'s tab (the grid's own path)."""
    tab = opened.window.open_resource(slug)
    assert tab is not None and tab.grid is not None
    tab.table.setCurrentIndex(tab.model.index(0, tab.model.column_of(field)))
    tab.grid.paste(text)


def test_the_outbox_summary_and_the_status_bar_tell_the_same_pending_changes(
    loop: qasync.QEventLoop, opened: Opened, qtbot: QtBot
) -> None:
    window, session = opened.window, opened.session
    edit(opened, "customers", "city", "Lyon")
    edit(opened, "products", "description", "Renamed product")
    pending = window.status.outbox_buttons["pending"]
    assert pending.text() == "2 pending"

    products = window.tab_for("products")
    assert products is not None
    qtbot.mouseClick(products.pending_label, Qt.MouseButton.LeftButton)  # review Products'
    view = window.outbox_view
    assert view is not None and view.model.scope == "products"
    assert view.summary.text().startswith("2 pending changes · ")
    assert view.summary.text().endswith(" · 1 of them in Products")

    qtbot.mouseClick(view.buttons["Push all"], Qt.MouseButton.LeftButton)  # Products' only

    async def pushed() -> None:
        await until(lambda: session.outbox.counts()["done"] == 1 and not session.tasks.busy)

    loop.run_until_complete(pushed())
    assert pending.text() == "1 pending" and pending.isVisible()
    summary = view.summary.text()
    assert summary != "Nothing pending to push"
    assert summary.startswith("1 pending change · 2 requests (1 send, 1 listing) · ")
    assert summary.endswith(" · 0 of them in Products")

    edit(opened, "customers", "city", "Paris")  # one more: both figures follow at once
    assert pending.text() == "2 pending"
    assert view.summary.text().startswith("2 pending changes · ")
