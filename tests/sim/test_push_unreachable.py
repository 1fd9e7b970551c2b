"""A push that cannot reach the show (issue 14, point 3): nothing is failed, nothing is lost —
each change stays pending with one more attempt and the reason, and the report says why once;
the next push, with the show back, sends them (simulator, stopped and restarted)."""

from __future__ import annotations

import pytest

from app.api.client import ShowClient
from app.sim import SimServer
from app.sync.edit.editor import Editor, FieldEdit
from app.sync.pull.puller import Puller
from app.sync.push.pusher import Pusher
from app.sync.reports.push_review import summarize
from tests.sim.test_bulk_push import client, editor, server, show

__all__ = ["client", "editor", "server", "show"]  # fixtures


@pytest.mark.asyncio
async def test_a_stopped_show_leaves_every_change_pending_with_its_attempt_and_reason(
    server: SimServer, client: ShowClient, editor: Editor
) -> None:
    await Puller(client, editor.cache).sync(["customers"], full=True)
    ids = [r["id"] for r in server.show.records("customers")[:2]]
    editor.stage("customers", [FieldEdit(i, "city", "Kept") for i in ids])
    editor.create("customers", {"customerID": "C-NEW", "customerName": "New"})
    await client.auth.token()  # a token held: the show goes down after sign-in
    server.stop()

    report = await Pusher(client, editor.cache, editor.outbox).push()

    assert report.unreachable is not None and "refused" in report.unreachable
    assert (report.done, report.failed, report.kept) == (0, 0, 3)
    changes = editor.outbox.changes(("pending",))
    assert len(changes) == 3 and editor.outbox.counts()["failed"] == 0
    assert all(c.attempts == 1 and c.last_error == report.unreachable for c in changes)
    assert summarize(report).text == "Not pushed: the show cannot be reached (3 pending)"

    again = await Pusher(client, editor.cache, editor.outbox).push()
    assert [c.attempts for c in editor.outbox.changes(("pending",))] == [2, 2, 2]
    assert again.kept == 3


@pytest.mark.asyncio
async def test_creates_alone_reach_the_send_and_stay_pending_too(
    server: SimServer, client: ShowClient, editor: Editor
) -> None:
    """No check before (nothing to compare): the create's own POST finds the show gone."""
    seq, _ = editor.create("customers", {"customerID": "C-NEW", "customerName": "New"})
    await client.auth.token()
    server.stop()
    report = await Pusher(client, editor.cache, editor.outbox).push()
    change = editor.outbox.get(seq or 0)
    assert change is not None and change.state == "pending" and change.attempts == 1
    assert change.last_error and report.kept == 1 and report.failed == 0
