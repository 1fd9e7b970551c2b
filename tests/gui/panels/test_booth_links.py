"""A booth's products on a simulated show: two associated at once (associate-many), one
removed, pushed, and the booth on the show holds what the dual list shows."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import qasync

from app.sim import SimServer, generate_show
from app.ui.panels.booth_links import BoothLinks
from tests.gui.conftest import Opener, config, profile_for, until, wait_synced


@pytest.fixture
def server() -> Iterator[SimServer]:
    with SimServer(generate_show("tiny", seed=5), config(rate_limit=300)) as running:
        yield running


def test_associate_two_products_and_remove_one(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    opened = open_window(profile_for(server))
    session = opened.session
    wait_synced(loop, session)
    tab = opened.window.open_resource("booths")
    assert tab is not None and tab.form is not None
    tab.table.setCurrentIndex(tab.model.index(0, 0))
    booth_id = tab.model.record_id(0)
    booth = server.show.get("booths", booth_id)
    assert booth is not None
    links = tab.findChild(BoothLinks, "booth-products")
    assert isinstance(links, BoothLinks) and links.key == booth["boothID"]
    before = list(server.show.booth_products.get(booth_id, []))
    # each product once, in the order the cache holds them (the show lists them sorted on their key)
    assert sorted(links.associated()) == sorted(dict.fromkeys(before))

    everything = links.available_keys()
    new = [k for k in everything if k not in before][:2]
    assert len(new) == 2
    links.filter_edit.setText(new[1])  # the filter box narrows the left list
    assert new[1] in links.available_keys() and len(links.available_keys()) < len(everything)
    links.filter_edit.setText("")
    links.select(links.available, new)
    links.add_button.click()
    [many] = [c for c in session.outbox.changes(resource="booth-products")]
    assert many.op == "associate-many" and many.payload["body"] == new

    async def pushed(count: int) -> None:
        session.push()  # issue 14: a panel's changes wait for Push like a cell edit
        await until(lambda: session.outbox.counts()["done"] == count)
        await until(lambda: not session.tasks.busy and not session.syncing)

    loop.run_until_complete(pushed(1))
    assert server.show.booth_products[booth_id] == before + new
    assert sorted(links.associated()) == sorted(dict.fromkeys(before + new))  # listed again

    links.select(links.chosen, [new[0]])
    links.remove_button.click()
    assert new[0] not in links.associated()  # shown at once, before the push
    loop.run_until_complete(pushed(2))
    assert server.show.booth_products[booth_id] == [*before, new[1]]
    assert sorted(links.associated()) == sorted(dict.fromkeys([*before, new[1]]))
    assert new[0] in links.available_keys()
