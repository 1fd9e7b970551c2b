"""A booth's products on a simulated show: two order units associated at once (associate-many),
one removed, pushed, and the booth on the show holds exactly the units the dual list shows."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import qasync
from PySide6.QtCore import Qt

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
    row = next(r for r in range(tab.model.rowCount()) if "P100001" not in
               server.show.booth_products.get(tab.model.record_id(r), []))  # fmt: skip
    tab.table.setCurrentIndex(tab.model.index(row, 0))  # a booth without P100001 (two units)
    booth_id = tab.model.record_id(row)
    booth = server.show.get("booths", booth_id)
    assert booth is not None
    links = tab.findChild(BoothLinks, "booth-products")
    assert isinstance(links, BoothLinks) and links.key == booth["boothID"]
    before = units_at(server, booth_id)
    # one row per order unit, each the record id of that unit
    assert sorted(links.associated()) == sorted(before)

    everything = links.available_keys()
    product = next(
        p
        for p in server.show.records("products")
        if len(server.show.find("products", "productID", p["productID"])) > 1
        and str(p["id"]) in everything
    )  # fmt: skip — a product sold in several units: only the unit picked goes to the booth
    other = next(k for k in everything if k not in before and server.show.get("products", k)
                 and server.show.get("products", k)["productID"] != product["productID"])  # type: ignore[index]  # fmt: skip
    new = [str(product["id"]), other]
    label = links.available_model.findItems(f"{product['productID']}", Qt.MatchFlag.MatchStartsWith)
    assert any(product["orderUnit"] in item.text() for item in label)  # the picker shows units
    links.filter_edit.setText(product["productID"])  # the filter box narrows the left list
    assert new[0] in links.available_keys() and len(links.available_keys()) < len(everything)
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
    assert sorted(units_at(server, booth_id)) == sorted(before + new)  # exactly those units
    assert sorted(links.associated()) == sorted(before + new)  # listed again

    links.select(links.chosen, [new[0]])
    links.remove_button.click()
    assert new[0] not in links.associated()  # shown at once, before the push
    loop.run_until_complete(pushed(2))
    assert sorted(units_at(server, booth_id)) == sorted([*before, new[1]])
    assert sorted(links.associated()) == sorted([*before, new[1]])
    assert new[0] in links.available_keys()


def units_at(server: SimServer, booth_id: str) -> list[str]:
    """The record ids of the product units the booth holds on the show."""
    show = server.show
    refs = show.booth_products.get(booth_id, [])
    by_key = [str(p["id"]) for ref in refs for p in show.find("products", "productID", ref)]
    return by_key + [ref for ref in refs if show.get("products", ref) is not None]


def test_a_message_about_a_gesture_undone_is_replaced_and_counts_in_words(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    """Issue 30, item 5: "1 products added to B101: queued…" stayed, in the panel and the
    status bar, after Ctrl+Z took it back. Undone, the panel's line is cleared and the status
    bar says what was undone (and redone); one product is "1 product"."""
    opened = open_window(profile_for(server))
    session, window = opened.session, opened.window
    wait_synced(loop, session)
    tab = window.open_resource("booths")
    assert tab is not None and tab.form is not None
    tab.table.setCurrentIndex(tab.model.index(0, 0))
    links = tab.findChild(BoothLinks, "booth-products")
    assert isinstance(links, BoothLinks) and links.key is not None
    booth = links.key
    links.select(links.available, links.available_keys()[:1])
    links.add_button.click()
    said = f"1 product added to {booth}: queued — sent to the show with the next Push"
    assert links.status.text().startswith(said)
    assert window.status.currentMessage().startswith(said)

    window.actions_["undo"].trigger()  # Ctrl+Z
    assert session.outbox.counts()["pending"] == 0
    assert links.status.text() == ""  # no longer true: cleared
    assert window.status.currentMessage() == f"Undone: 1 product added to {booth} in Booths."
    window.actions_["redo"].trigger()
    assert session.outbox.counts()["pending"] == 1
    assert window.status.currentMessage() == f"Redone: 1 product added to {booth} in Booths."

    links.select(links.available, links.available_keys()[:2])
    links.add_button.click()
    assert links.status.text().startswith(f"2 products added to {booth}: queued")
