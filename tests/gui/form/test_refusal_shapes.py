"""A server's 400 reaches the cell and the form field it names, whatever shape the server words
it in (issue 12, point 7): the simulator answers in each `error_shape`."""

from __future__ import annotations

import pytest
import qasync

from app.sim import SimServer, generate_show
from app.sim.config import ERROR_SHAPES
from tests.gui.conftest import Opener, config, profile_for, until, wait_synced
from tests.gui.form.test_form_sim import queue_blank_key


@pytest.mark.parametrize("shape", ERROR_SHAPES)
def test_a_refusal_in_each_shape_is_shown_at_its_cell_and_field(
    loop: qasync.QEventLoop, open_window: Opener, shape: str
) -> None:
    with SimServer(generate_show("tiny", seed=3), config(error_shape=shape)) as server:
        opened = open_window(profile_for(server))
        wait_synced(loop, opened.session)
        tab = opened.window.open_resource("customers")
        assert tab is not None and tab.form is not None
        tab.table.setCurrentIndex(tab.model.index(1, 0))
        form, record_id = tab.form, tab.model.record_id(1)
        # The window refuses a blank key (issue 14): queued past it, as another client could.
        opened.session.push([queue_blank_key(form.editor, record_id)])
        key, city = tab.model.fields.index("customerID"), tab.model.fields.index("city")

        async def refused() -> None:
            await until(lambda: opened.session.outbox.counts()["failed"] == 1)
            await until(lambda: not opened.session.tasks.busy)
            await until(lambda: tab.model.failure_at(1, key) is not None)

        loop.run_until_complete(refused())
        assert form.problem_at("customerID") == "must not be empty"
        assert form.editors["customerID"].invalid
        assert tab.model.failure_at(1, key) == "must not be empty"  # at the cell it names
        row_message = tab.model.failure_at(1, city)  # the others show the whole message
        assert row_message is not None and "customerID" in row_message
        opened.close()
