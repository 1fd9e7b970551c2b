"""A show that stops answering in the middle of a bulk push (app/sync/push/bulk_push.py, the
`note_unreachable` path): the batch that went stays done, every later change stays pending with
one attempt and the reason, none is failed, and the report says it once (simulator over
loopback, stopped after the first bulk request answered)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest
import pytest_asyncio

from app.api.client import ShowClient
from app.sim import SimServer
from app.sync.edit.editor import Editor, FieldEdit
from app.sync.pull.puller import Puller
from app.sync.push.pusher import Pusher
from app.sync.reports.push_review import summarize
from tests.sim.test_bulk_push import editor, sent, server, show
from tests.sim.test_sync import connect

__all__ = ["editor", "server", "show"]  # fixtures

BULK = ("PUT", "/ProductInventory")


class StopsAfterFirstBulk(httpx.AsyncBaseTransport):
    """The real loopback transport; the show is stopped once the first bulk request has been
    answered (the server goes away between two bulk requests of one push). Bulk requests pass
    one at a time, so a second one sent alongside the first meets the stopped server rather than
    racing its shutdown (which answered it now and then, on a loaded machine)."""

    def __init__(self, server: SimServer) -> None:
        self.server = server
        self.inner = httpx.AsyncHTTPTransport()
        self.bulk_answers = 0
        self.one_at_a_time = asyncio.Lock()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if not (request.method == BULK[0] and request.url.path.endswith(BULK[1])):
            return await self.inner.handle_async_request(request)
        async with self.one_at_a_time:
            response = await self.inner.handle_async_request(request)
            await response.aread()
            self.bulk_answers += 1
            if self.bulk_answers == 1:
                self.server.stop()
            return response

    async def aclose(self) -> None:
        await self.inner.aclose()


@pytest_asyncio.fixture
async def stopping(server: SimServer) -> AsyncIterator[tuple[ShowClient, StopsAfterFirstBulk]]:
    transport = StopsAfterFirstBulk(server)
    async with connect(server, transport) as client:
        yield client, transport


@pytest.mark.asyncio
async def test_a_show_gone_mid_bulk_push_leaves_the_rest_pending_with_attempt_and_reason(
    server: SimServer, stopping: tuple[ShowClient, StopsAfterFirstBulk], editor: Editor
) -> None:
    client, transport = stopping
    await Puller(client, editor.cache).sync(["product-inventory"], full=True)
    rows = list(editor.cache.records("product-inventory"))[:6]
    assert len(rows) == 6
    staged = editor.stage(
        "product-inventory",
        [FieldEdit(r["id"], "inventory", int(r["inventory"]) + 1) for r in rows],
    )
    assert len(staged.seqs) == 6

    report = await Pusher(client, editor.cache, editor.outbox, bulk_size=2).push()

    assert transport.bulk_answers == 1 and sent(server, *BULK) == 1  # one bulk went, then none
    assert report.unreachable is not None and "connection refused" in report.unreachable
    assert (report.done, report.failed, report.kept) == (2, 0, 4)
    counts = editor.outbox.counts()
    assert (counts["done"], counts["pending"], counts["failed"]) == (2, 4, 0)
    kept = editor.outbox.changes(("pending",))
    assert all(c.attempts == 1 and c.last_error == report.unreachable for c in kept)
    assert summarize(report).text == "2 pushed, then the show could not be reached (4 pending)"
