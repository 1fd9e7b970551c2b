"""Panels follow `ShowSession.outbox_changed(slugs)`, the one signal views follow: a change queued
for a booth by another view (not the panel itself) shows in the booth's panel at once, with no
push; discarded in the outbox, it leaves the panel the same way (simulated show)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import qasync

from app.sim import SimServer, generate_show
from app.store.changes import ACTIVE
from app.ui.panels.booth_links import KEY_ROLE, BoothLinks
from tests.gui.conftest import Opener, config, profile_for, wait_synced


@pytest.fixture
def server() -> Iterator[SimServer]:
    with SimServer(generate_show("tiny", seed=5), config(rate_limit=300)) as running:
        yield running


def chosen_keys(links: BoothLinks) -> list[str]:
    model = links.chosen_model
    return [str(model.index(r, 0).data(KEY_ROLE)) for r in range(model.rowCount())]


def test_a_booth_product_queued_elsewhere_shows_in_the_panel_without_a_push(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    opened = open_window(profile_for(server))
    session = opened.session
    wait_synced(loop, session)
    tab = opened.window.open_resource("booths")
    assert tab is not None and tab.form is not None
    tab.table.setCurrentIndex(tab.model.index(0, 0))
    booth_id = tab.model.record_id(0)
    links = tab.findChild(BoothLinks, "booth-products")
    assert isinstance(links, BoothLinks) and links.key is not None
    before = list(links.associated())
    unit = next(k for k in links.available_keys() if k not in before)
    pushes = server.stats.by_operation.copy()

    seq = session.editor.special(
        "booth-products", "associate-many", params={"boothID": links.key}, body=[unit]
    )
    session.changes_written([seq])  # as the outbox view or an import would tell it

    assert unit in links.associated() and unit in chosen_keys(links)  # shown at once
    assert unit not in links.available_keys()
    assert unit not in server.show.booth_products.get(booth_id, [])  # nothing reached the show
    assert server.stats.by_operation == pushes

    session.outbox.discard(seq)
    session.outbox_written(["booth-products"])  # the outbox view's Discard
    assert unit not in chosen_keys(links) and unit in links.available_keys()
    assert session.outbox.changes(ACTIVE) == []
