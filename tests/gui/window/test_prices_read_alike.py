"""Prices show their places in the grid and the form (issue 30, item 19), on the real window over
the simulator: a price 14.9 read "14.9". Now a price has its two places ("14.90", "14,90" with a
decimal comma) in the grid and the form, the value left as shown is the record's own, and Ctrl+F
finds a price as it reads."""

from __future__ import annotations

import pytest
import qasync
from pytestqt.qtbot import QtBot

from app.ui.form.inputs import FloatInput
from tests.gui.conftest import Opened, until
from tests.gui.window.test_dates_read_alike import cell_text, opened, select, user_locale

__all__ = ["opened", "user_locale"]  # the fixtures this module shares


@pytest.mark.parametrize(
    ("user_locale", "price", "msrp"),
    [("C", "14.90", "20.00"), ("en_US", "14.90", "20.00"), ("de_DE", "14,90", "20,00")],
    indirect=["user_locale"],
)
def test_a_price_shows_its_two_places_in_the_grid_and_the_form(
    opened: Opened, qtbot: QtBot, loop: qasync.QEventLoop, price: str, msrp: str
) -> None:
    cache = opened.session.cache
    first = next(iter(cache.records("products")))
    cache.upsert("products", [{**first, "price": 14.9, "msrp": 20}])
    tab = opened.window.open_resource("products")
    assert tab is not None and tab.form is not None
    rid = str(first["id"])
    qtbot.waitUntil(lambda: tab.model.row_of(rid) >= 0)
    row = tab.model.row_of(rid)
    assert (cell_text(tab, row, "price"), cell_text(tab, row, "msrp")) == (price, msrp)
    select(qtbot, tab, rid)
    editor = tab.form.editors["price"]
    assert isinstance(editor, FloatInput)
    assert editor.line.text() == price and tab.form.editors["msrp"].value() == 20
    assert not tab.form.dirty  # shown with its places, the value is the record's own

    every = tab.model.rowCount()
    tab.focus_filter()
    qtbot.keyClicks(tab.filter_edit, price)  # Ctrl+F finds the price as it reads

    def filtered() -> bool:
        model = tab.model
        return model.query.text == price and model.complete and model.rowCount() < every

    async def found() -> None:
        await until(filtered)

    loop.run_until_complete(found())
    assert rid in tab.model.record_ids()
    for row in range(tab.model.rowCount()):
        texts = [cell_text(tab, row, f) for f in tab.model.fields]
        assert any(price in text for text in texts), texts
