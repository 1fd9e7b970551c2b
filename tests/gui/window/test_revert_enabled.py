"""Edit ▸ Revert on the show is enabled only while it can do something (issue 30, item 8): it
was enabled after a push and did nothing visible. It is named for what it reverts, as Undo is;
it is disabled once the old values are back (typed again, or synced) and when the show it
belongs to is closed; triggered then, it says there is nothing to revert."""

from __future__ import annotations

import pytest
import qasync

from app.sim import SimServer
from app.store.changes import ACTIVE
from tests.gui.conftest import Opened, Opener, profile_for, wait_synced
from tests.gui.window.test_honest_undo import edit_city, push_all

pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")


@pytest.fixture
def opened(loop: qasync.QEventLoop, open_window: Opener, tiny_server: SimServer) -> Opened:
    window = open_window(profile_for(tiny_server))
    wait_synced(loop, window.session)
    return window


def pushed_then_undone(loop: qasync.QEventLoop, opened: Opened) -> tuple[str, str, str]:
    """A city typed in Customers row 0, pushed, then Ctrl+Z (refused: already on the show);
    the record id, its customerID and the city it had before."""
    tab = opened.window.open_resource("customers")
    assert tab is not None
    before = str(tab.model.value(0, tab.model.column_of("city")))
    rid, key = edit_city(opened, 0, "Lyon")
    push_all(loop, opened.session)
    opened.window.actions_["undo"].trigger()
    assert opened.window.status.currentMessage().startswith(f"Cannot undo city on {key}")
    return rid, key, before


def test_revert_is_named_and_disabled_once_the_old_value_is_back(
    loop: qasync.QEventLoop, opened: Opened, tiny_server: SimServer
) -> None:
    window, session = opened.window, opened.session
    revert = window.actions_["revert_on_show"]
    assert not revert.isEnabled() and revert.text() == "Re&vert on the show"
    rid, key, before = pushed_then_undone(loop, opened)
    assert revert.isEnabled()
    assert revert.text() == f"Re&vert city on {key} in Customers on the show"

    tab = window.tab_for("customers")
    assert tab is not None and tab.grid is not None
    tab.table.setCurrentIndex(tab.model.index(tab.model.row_of(rid), tab.model.column_of("city")))
    tab.grid.paste(before)  # the user puts the old city back by hand: nothing left to revert
    assert not revert.isEnabled() and revert.text() == "Re&vert on the show"
    push_all(loop, session)
    assert tiny_server.show.get("customers", rid)["city"] == before  # type: ignore[index]
    assert not revert.isEnabled()

    revert.trigger()  # a disabled action does nothing, and nothing is queued behind its back
    assert session.outbox.changes(ACTIVE) == []


def test_revert_is_disabled_when_its_show_is_closed(
    loop: qasync.QEventLoop, opened: Opened
) -> None:
    revert = opened.window.actions_["revert_on_show"]
    pushed_then_undone(loop, opened)
    assert revert.isEnabled()
    opened.window.detach()  # the show closes (another profile opens next)
    assert not revert.isEnabled() and revert.text() == "Re&vert on the show"
