"""Issue 30, item 5: the outbox's "Server answer" for a change the show refused reads in words —
per field by its title, the show's message without the API's name, a type refusal about the
value sent ("priceZone must be an integer" → "Price zone: must be a whole number, not empty") —
where it showed the answer's JSON (`{"fields": {"customerID": [...]}, ...}`)."""

from __future__ import annotations

import qasync

from app.store.changes import NewChange
from app.sync.edit.editor import Editor
from tests.gui.conftest import Opened, until
from tests.gui.form.test_form_sim import queue_blank_key


def queue_empty_zone(editor: Editor, record_id: str) -> int:
    """A price zone emptied, past the Editor: the show refuses an empty number,
    "priceZone must be an integer"."""
    record = {**(editor.current("customers", record_id) or {}), "priceZone": None}
    change = NewChange(
        "customers",
        "update",
        record_id,
        payload=record,
        changed_fields=("priceZone",),
        base=editor.cache.get("customers", record_id),
    )
    return editor.outbox.add(change)


def test_the_shows_refusal_reads_in_words_in_the_outbox(
    opened_tiny: Opened, loop: qasync.QEventLoop
) -> None:
    opened, session = opened_tiny, opened_tiny.session
    tab = opened.window.open_resource("customers")
    assert tab is not None and tab.form is not None
    editor = tab.form.editor
    blank = queue_blank_key(editor, tab.model.record_id(1))
    zone = queue_empty_zone(editor, tab.model.record_id(2))
    session.push([blank, zone])

    async def refused() -> None:
        await until(lambda: session.outbox.counts()["failed"] == 2)
        await until(lambda: not session.tasks.busy)

    loop.run_until_complete(refused())
    view = opened.window.show_outbox()
    assert view is not None
    view.select_seqs([blank])
    detail = view.detail.toPlainText()
    answer = detail.split("Server answer:\n", 1)[1].splitlines()
    assert answer == ["  Customer ID: must not be empty"], detail
    view.select_seqs([zone])
    detail = view.detail.toPlainText()
    answer = detail.split("Server answer:\n", 1)[1].splitlines()
    assert answer == ["  Price zone: must be a whole number, not empty"], detail
    assert (
        "{" not in detail
        and "customerID" not in detail
        and "integer" not in detail.split("Server answer:")[1]
    )
