"""Issue 31 against the independent plain server (tests/e2e/plain_server.py, plain_v2.py; no
code shared with `app/`): a push with a V2 base URL sends a mixed batch of customer changes —
updates, creates, a create whose key exists only on the show, a value the show refuses, an
answer lost after applying, batches too large for the show's unannounced cap — and every change
settles exactly once with nothing lost: each update applied once, each create made once, the
show-only key a conflict never overwritten, the refusal in the show's words. Without a V2 base
URL nothing goes to V2. The full reliability level (tests/reliability/levels.py) pushes its
`edits` in the same mix."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from app.api.client import ShowClient
from app.api.connection import Connection
from app.api.registry import default_registry
from app.store.cache import Cache
from app.store.outbox import Outbox
from app.sync.edit.editor import Editor, FieldEdit
from app.sync.pull.puller import Puller
from app.sync.push.outcomes import PushReport
from app.sync.push.pusher import Pusher
from tests.e2e.plain_server import SECRET, SHOW_ID, PlainServer, PlainShow
from tests.e2e.shape import Shape
from tests.reliability.levels import level

REGISTRY = default_registry()
REFUSED = ("city", "Atlantis")
TAKEN = "ONLY-ON-SHOW"


@dataclass
class Pushed:
    report: PushReport
    states: dict[str, int]  # outbox changes by state
    messages: list[str]  # of the failed changes
    edited: list[str]  # ids of the records whose city was edited (the refused one last)


@pytest.fixture
def plain() -> Iterator[PlainServer]:
    shape = Shape(v2_cap=8, v2_lost=(2,), v2_refused=REFUSED)
    server = PlainServer(PlainShow(customers=40, shape=shape)).start()
    try:
        yield server
    finally:
        server.stop()


def push_mix(server: PlainServer, home: Path, *, edits: int, creates: int, v2: bool) -> Pushed:
    connection = Connection(
        server.base_url, server.auth_url, SHOW_ID, SECRET, state_dir=home,
        v2_base_url=server.v2_url if v2 else None,
    )  # fmt: skip
    return asyncio.run(_push_mix(server, connection, home, edits, creates))


async def _push_mix(
    server: PlainServer, connection: Connection, home: Path, edits: int, creates: int
) -> Pushed:
    async with ShowClient(connection, REGISTRY) as client:
        with Cache(home / "cache.sqlite", REGISTRY) as cache, Outbox(home / "o.sqlite") as box:
            editor = Editor(cache, box, REGISTRY)
            await Puller(client, cache).sync(["customers"], full=True)
            ids = [str(r["id"]) for r in cache.records("customers")][: edits + 1]
            staged = editor.stage(
                "customers",
                [FieldEdit(i, "city", f"Town {i}") for i in ids[:-1]]
                + [FieldEdit(ids[-1], *REFUSED)],
            )
            assert not staged.rejected
            server.show.add("customer", {"customerID": TAKEN, "customerName": "Theirs"})
            editor.create("customers", {"customerID": TAKEN, "customerName": "Mine"})
            for k in range(creates):
                editor.create("customers", {"customerID": f"NEW-{k}", "city": f"New {k}"})
            report = await Pusher(client, cache, box).push()
            changes = box.changes()
    states: dict[str, int] = {}
    for change in changes:
        states[change.state] = states.get(change.state, 0) + 1
    messages = [str(c.last_error) for c in changes if c.state == "failed"]
    return Pushed(report, states, messages, ids)


def _on_show(server: PlainServer) -> dict[str, dict[str, Any]]:
    return {str(r["id"]): r for r in server.show.records("customer")}


def _assert_each_once(server: PlainServer, pushed: Pushed, edits: int, creates: int) -> None:
    held = _on_show(server)
    for record_id in pushed.edited[:-1]:
        assert held[record_id]["city"] == f"Town {record_id}"
        assert server.show.writes[("customer", held[record_id]["id"])] == 1  # applied once
    refused = pushed.edited[-1]
    assert held[refused].get("city") != REFUSED[1]
    for k in range(creates):
        assert server.show.creates[("customer", f"NEW-{k}")] == 1  # created once
    theirs = [r for r in held.values() if r.get("customerID") == TAKEN]
    assert len(theirs) == 1 and theirs[0]["customerName"] == "Theirs"  # never overwritten
    assert pushed.states == {"done": edits + creates, "failed": 1, "conflict": 1}
    report = pushed.report
    assert (report.done, report.failed, report.conflicts) == (edits + creates, 1, 1)
    assert pushed.messages == [f"{REFUSED[0]}: {REFUSED[1]} is not a value this show takes"]


def test_a_mixed_push_settles_every_change_once_through_v2(
    plain: PlainServer, tmp_path: Path
) -> None:
    pushed = push_mix(plain, tmp_path, edits=20, creates=6, v2=True)
    _assert_each_once(plain, pushed, 20, 6)
    held = _on_show(plain)
    grouped = sum(1 for i in pushed.edited if held[i].get("orderingGroups"))
    assert plain.show.puts("customer") == grouped  # the rest through the bulk upsert:
    if grouped:  # ordering groups go through V1 until `check --v2` proved them, said
        assert f"{grouped} customers record(s) went through V1" in pushed.report.notes[0]
    assert plain.show.requests[("POST", "/Customer")] == 0
    assert plain.show.bulks >= 4  # batches of at most the show's 8, one answer lost


def test_without_a_v2_base_url_nothing_goes_to_v2(plain: PlainServer, tmp_path: Path) -> None:
    pushed = push_mix(plain, tmp_path, edits=10, creates=2, v2=False)
    assert plain.show.bulks == 0
    assert not any("/v2" in path for _, path in plain.show.requests)
    assert plain.show.puts("customer") == 11  # V1: one PUT per update (V2's refusal not met)
    assert plain.show.requests[("POST", "/Customer")] == 3  # V1's creates, as before issue 31
    assert pushed.report.done == 14 and pushed.states == {"done": 14}


def test_the_levels_edits_go_in_the_same_mix(tmp_path: Path) -> None:
    """The same mix at the reliability level's size: its edits (120 in `make test`, 1,000 in
    `make reliability`) over several batches of the show's cap, two answers lost."""
    chosen = level()
    creates = 50 if chosen.full else 10
    shape = Shape(v2_cap=150, v2_lost=(2, 5), v2_refused=REFUSED)
    server = PlainServer(PlainShow(customers=chosen.edits + 10, shape=shape)).start()
    try:
        pushed = push_mix(server, tmp_path, edits=chosen.edits, creates=creates, v2=True)
        _assert_each_once(server, pushed, chosen.edits, creates)
    finally:
        server.stop()
