"""One truth after every write (issue 30, point 1; observed 1, 2 and 11): what the user already
pushed is what every view shows and the base of their later edits — never a conflict with
somebody else — and the ids the show gives nested entries are never a change or a conflict.
The Editor (as the grid and the form use it) and the Pusher against the simulator on loopback."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from app.api.client import ShowClient
from app.api.registry import default_registry
from app.sim import SimServer, generate_show
from app.store.cache import Cache
from app.store.outbox import Outbox
from app.sync.edit.editor import Editor, FieldEdit
from app.sync.edit.overlay import PendingOverlay
from app.sync.pull.puller import Puller
from app.sync.push.pusher import Pusher
from app.sync.push.verdicts import conflict_fields
from tests.sim.test_sync import _config, connect

REGISTRY = default_registry()


@pytest.fixture
def server() -> Iterator[SimServer]:
    with SimServer(generate_show("tiny", seed=3), _config()) as running:
        yield running


@pytest.fixture
def editor(tmp_path: Path) -> Iterator[Editor]:
    cache = Cache(tmp_path / "cache.sqlite", REGISTRY)
    outbox = Outbox(tmp_path / "outbox.sqlite")
    yield Editor(cache, outbox, REGISTRY)
    cache.close()
    outbox.close()


@pytest_asyncio.fixture
async def client(server: SimServer, editor: Editor) -> AsyncIterator[ShowClient]:
    async with connect(server) as running:
        await Puller(running, editor.cache).sync(["customers"], full=True)
        yield running


def grouped_customer(server: SimServer) -> str:
    """A customer with ordering groups (nested entries with ids the show gives)."""
    return str(next(r for r in server.show.records("customers") if r.get("orderingGroups"))["id"])


def stage(editor: Editor, record_id: str, **values: Any) -> int:
    staged = editor.stage("customers", [FieldEdit(record_id, f, v) for f, v in values.items()])
    assert not staged.rejected and len(staged.seqs) == 1
    return staged.seqs[0]


def shown(editor: Editor, record_id: str) -> dict[str, Any]:
    """The record as the grid lays it (the cache with the pending changes over it)."""
    overlay = PendingOverlay.read(editor.outbox, "customers")
    return overlay.laid_over(record_id, editor.cache.get("customers", record_id) or {})


def without_ids(groups: Any) -> list[dict[str, Any]]:
    return [{k: v for k, v in g.items() if k != "id"} for g in groups or ()]


@pytest.mark.asyncio
async def test_a_saved_change_pushed_at_once_shows_through_an_earlier_pending_edit(
    server: SimServer, editor: Editor, client: ShowClient
) -> None:
    """Observed 1: a grid edit pending, the form's Save of the phone pushed alone ("1 pushed"):
    form and grid show the new phone, as the cache and the show hold it."""
    rid = server.show.records("customers")[0]["id"]
    stage(editor, rid, customerName="Cornerstone EDITED")  # the grid's edit, not pushed
    saved = stage(editor, rid, phone="+1 555 0142")  # the form's Save, pushed at once
    report = await Pusher(client, editor.cache, editor.outbox).push(seqs=[saved])
    assert (report.done, report.conflicts) == (1, 0)
    assert (server.show.get("customers", rid) or {})["phone"] == "+1 555 0142"
    current = editor.current("customers", rid) or {}
    assert (current["phone"], current["customerName"]) == ("+1 555 0142", "Cornerstone EDITED")
    assert shown(editor, rid)["phone"] == "+1 555 0142"


@pytest.mark.asyncio
async def test_an_edit_pushed_after_your_own_pushed_save_is_no_conflict(
    server: SimServer, editor: Editor, client: ShowClient
) -> None:
    """Observed 2: the grid's edit, pushed after the form's save of the same record, lands;
    its "before" is the show's answer, not the value before the user's own save."""
    rid = server.show.records("customers")[0]["id"]
    edited = stage(editor, rid, city="Grid City")
    saved = stage(editor, rid, phone="+1 555 0142", customerName="Cornerstone FORM")
    await Pusher(client, editor.cache, editor.outbox).push(seqs=[saved])
    change = editor.outbox.get(edited)
    assert change is not None and change.base is not None
    assert (change.base["phone"], change.base["customerName"]) == (
        "+1 555 0142",
        "Cornerstone FORM",
    )  # the review's "before" is the show's answer
    report = await Pusher(client, editor.cache, editor.outbox).push()
    assert (report.done, report.failed, report.conflicts) == (1, 0, 0)
    stored = server.show.get("customers", rid) or {}
    assert (stored["city"], stored["phone"], stored["customerName"]) == (
        "Grid City",
        "+1 555 0142",
        "Cornerstone FORM",
    )


@pytest.mark.asyncio
async def test_an_earlier_edit_of_a_field_your_later_pushed_save_set_is_not_sent_back(
    server: SimServer, editor: Editor, client: ShowClient
) -> None:
    """The grid set the name, the form set it again and pushed: the later value is the user's
    last word; the earlier edit has nothing left to send and never conflicts with it."""
    rid = server.show.records("customers")[0]["id"]
    stage(editor, rid, customerName="Cornerstone EDITED")
    saved = stage(editor, rid, customerName="Cornerstone FORM")
    await Pusher(client, editor.cache, editor.outbox).push(seqs=[saved])
    assert shown(editor, rid)["customerName"] == "Cornerstone FORM"
    assert editor.outbox.counts().get("pending", 0) == 0
    report = await Pusher(client, editor.cache, editor.outbox).push()
    assert (report.failed, report.conflicts) == (0, 0)
    assert (server.show.get("customers", rid) or {})["customerName"] == "Cornerstone FORM"


@pytest.mark.asyncio
async def test_a_push_of_one_field_keeps_the_nested_lists_and_their_new_ids_never_conflict(
    server: SimServer, editor: Editor, client: ShowClient
) -> None:
    """Observed 11: pushing the phone leaves the ordering groups as they were (the show gives
    their entries new ids: its own bookkeeping); a later conflict lists only the field both
    sides changed, never `orderingGroups`."""
    rid = grouped_customer(server)
    groups = without_ids((server.show.get("customers", rid) or {})["orderingGroups"])
    first = stage(editor, rid, phone="+1 555 0101")
    pending = stage(editor, rid, city="Mine")  # queued before the push: its base is older
    await Pusher(client, editor.cache, editor.outbox).push(seqs=[first])
    assert without_ids((server.show.get("customers", rid) or {})["orderingGroups"]) == groups
    theirs = {**(server.show.get("customers", rid) or {}), "city": "Theirs"}
    server.show.replace("customers", rid, theirs)  # another administrator, same field
    report = await Pusher(client, editor.cache, editor.outbox).push()
    assert report.conflicts == 1
    conflict = editor.outbox.get(pending)
    assert conflict is not None and conflict.state == "conflict"
    assert conflict_fields(conflict) == ["city"]
