"""Customer updates through V2's bulk upsert (issue 31, points 2 and 4) against the simulator over
real sockets, on real SQLite caches: batches whose elements settle each on its own, a refused
field failing only its record, an answer lost after applying read back (never sent again), a
batch too large halved and the size learned, ordering groups through V1 until proven; without a
V2 base URL nothing goes to V2."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from app.api.client import ShowClient
from app.api.learned import Learned
from app.api.v2 import prove_ordering_groups, prove_vendor_fields
from app.sim import SimConfig, SimServer, generate_show
from app.sim.show import Show
from app.store.changes import NewChange
from app.sync.edit.editor import Editor, FieldEdit
from app.sync.pull.puller import Puller
from app.sync.push.pusher import Pusher
from tests.sim.test_bulk_push import editor
from tests.sim.test_client_helpers import REGISTRY, connection

__all__ = ["editor"]  # the fixture, re-exported for pytest

BULK = ("POST", "/v2/customers/bulk")
PUT = ("PUT", "/Customer/{id}")


@pytest.fixture
def show() -> Show:
    show = generate_show(40, seed=31)
    for customer in show.records("customers")[2:]:  # the first two keep their ordering groups
        customer["orderingGroups"] = []
    return show


@pytest.fixture
def server(show: Show) -> Iterator[SimServer]:
    with SimServer(show, SimConfig(throttle=False)) as running:
        yield running


def _client(server: SimServer, home: Path, v2: bool = True) -> ShowClient:
    extra: dict[str, Any] = {"v2_base_url": server.v2_base_url} if v2 else {}
    return ShowClient(connection(server, state_dir=home, **extra), REGISTRY)


@pytest_asyncio.fixture
async def client(server: SimServer, tmp_path: Path) -> AsyncIterator[ShowClient]:
    async with _client(server, tmp_path) as running:
        yield running


def _plain(server: SimServer) -> list[dict[str, Any]]:
    return server.show.records("customers")[2:]


async def _edit_cities(client: ShowClient, editor: Editor, records: list[dict[str, Any]]) -> None:
    await Puller(client, editor.cache).sync(["customers"], full=True)
    staged = editor.stage(
        "customers", [FieldEdit(r["id"], "city", f"Town {r['id']}") for r in records]
    )
    assert len(staged.seqs) == len(records) and not staged.rejected


@pytest.mark.asyncio
async def test_updates_go_in_one_bulk_request_each_applied_once_and_no_field_blanked(
    server: SimServer, client: ShowClient, editor: Editor
) -> None:
    records = _plain(server)
    names = {r["id"]: r["customerName"] for r in records}
    await _edit_cities(client, editor, records)
    report = await Pusher(client, editor.cache, editor.outbox).push()
    assert (report.done, report.failed, report.conflicts) == (38, 0, 0)
    assert server.stats.by_operation[BULK] == 1 and server.stats.by_operation[PUT] == 0
    for record in records:
        held = server.show.get("customers", record["id"])
        assert held is not None and held["city"] == f"Town {record['id']}"
        assert held["customerName"] == names[record["id"]]  # the merged body: nothing blanked
    assert editor.outbox.changes(("pending", "sending", "failed")) == []
    assert report.notes == []


@pytest.mark.asyncio
async def test_a_refused_field_fails_its_record_with_the_shows_message_the_rest_applied(
    server: SimServer, client: ShowClient, editor: Editor
) -> None:
    records = _plain(server)[:5]
    await _edit_cities(client, editor, records[:4])
    # The Editor refuses to clear a key (issue 14): the change comes as another client could
    # have queued it, and the show refuses it (as tests/sim/test_push_fixes.py does on V1).
    bad = records[4]["id"]
    blank = {**(editor.current("customers", bad) or {}), "customerID": None}
    change = NewChange("customers", "update", bad, blank, changed_fields=("customerID",),
                       base=editor.cache.get("customers", bad))  # fmt: skip
    seq = editor.outbox.add(change)
    report = await Pusher(client, editor.cache, editor.outbox).push()
    assert (report.done, report.failed) == (4, 1)
    failed = editor.outbox.changes(("failed",))
    assert [c.seq for c in failed] == [seq]
    assert failed[0].last_error == "customerID: is required"
    assert failed[0].response["fields"] == {"customerID": ["is required"]}
    held = server.show.get("customers", bad)
    assert held is not None and held["customerID"] == records[4]["customerID"]
    assert server.stats.by_operation[PUT] == 0 and server.stats.by_operation[BULK] == 1


@pytest.mark.asyncio
async def test_an_answer_lost_after_applying_is_read_back_never_sent_again(
    server: SimServer, client: ShowClient, editor: Editor
) -> None:
    records = _plain(server)[:10]
    await _edit_cities(client, editor, records)
    server.config.bulk_lost_next = 1
    report = await Pusher(client, editor.cache, editor.outbox).push()
    assert server.stats.bulk_lost == 1
    assert (report.done, report.failed) == (10, 0)
    assert server.stats.by_operation[BULK] == 1  # read back through V1, not sent again
    assert server.stats.by_operation[PUT] == 0
    assert editor.outbox.changes(("pending", "sending", "failed")) == []


@pytest.mark.asyncio
async def test_a_batch_too_large_is_halved_and_the_size_learned(
    server: SimServer, client: ShowClient, editor: Editor, tmp_path: Path
) -> None:
    server.config.v2_batch_cap = 8
    records = _plain(server)
    await _edit_cities(client, editor, records)
    report = await Pusher(client, editor.cache, editor.outbox).push()
    assert (report.done, report.failed) == (38, 0)
    for record in records:
        held = server.show.get("customers", record["id"])
        assert held is not None and held["city"] == f"Town {record['id']}"
    learned = Learned(tmp_path).get("bulk.customers")
    assert learned["batch"] <= 8 and learned["refused"] > 8
    assert server.stats.by_operation[PUT] == 0


@pytest.mark.asyncio
async def test_ordering_groups_go_through_v1_until_proven_and_the_push_says_so(
    server: SimServer, client: ShowClient, editor: Editor
) -> None:
    records = server.show.records("customers")[:4]  # two with ordering groups, two without
    await _edit_cities(client, editor, records)
    report = await Pusher(client, editor.cache, editor.outbox).push()
    assert (report.done, report.failed) == (4, 0)
    assert server.stats.by_operation[PUT] == 2 and server.stats.by_operation[BULK] == 1
    assert report.notes == [
        "2 customers record(s) went through V1: their orderingGroups V2 form is not proven on "
        "this show (`showdesk check --v2` proves it)"
    ]


@pytest.mark.asyncio
async def test_without_a_v2_base_url_nothing_goes_to_v2(
    server: SimServer, editor: Editor, tmp_path: Path
) -> None:
    async with _client(server, tmp_path, v2=False) as client:
        records = _plain(server)[:5]
        await _edit_cities(client, editor, records)
        report = await Pusher(client, editor.cache, editor.outbox).push()
    assert (report.done, report.failed) == (5, 0)
    assert server.stats.by_operation[PUT] == 5
    assert not any(path.startswith("/v2") for _, path in server.stats.by_operation)


@pytest.mark.asyncio
async def test_check_v2_proves_ordering_groups_then_they_go_through_v2(
    server: SimServer, client: ShowClient, editor: Editor
) -> None:
    first = server.show.records("customers")[0]
    groups = [dict(g) for g in first["orderingGroups"]]
    line = await prove_ordering_groups(client)
    assert line.startswith("V2 ordering groups: proven on customer ")
    held = server.show.get("customers", first["id"])
    assert held is not None and held["orderingGroups"] == groups  # the round trip changed none
    records = server.show.records("customers")[:4]
    await _edit_cities(client, editor, records)
    report = await Pusher(client, editor.cache, editor.outbox).push()
    assert (report.done, report.failed) == (4, 0) and report.notes == []
    assert server.stats.by_operation[PUT] == 0
    held = server.show.get("customers", first["id"])
    assert held is not None and held["orderingGroups"] == groups


LIST = ("GET", "/Customer")
POST = ("POST", "/Customer")


def _keyed(server: SimServer, key: str) -> list[dict[str, Any]]:
    return [r for r in server.show.records("customers") if r.get("customerID") == key]


@pytest.mark.asyncio
async def test_creates_go_by_upsert_and_a_key_only_on_the_show_is_a_conflict_never_overwritten(
    server: SimServer, client: ShowClient, editor: Editor
) -> None:
    records = _plain(server)[:3]
    await _edit_cities(client, editor, records)  # the cache synced, then the show moves on
    theirs = server.show.add("customers", {"customerID": "SHOWONLY", "city": "Theirs"})
    taken, _ = editor.create("customers", {"customerID": "SHOWONLY", "city": "Mine"})
    fresh, _ = editor.create("customers", {"customerID": "NEW-1", "city": "Newtown"})
    for i in range(2, 12):
        editor.create("customers", {"customerID": f"NEW-{i}", "city": "Newtown"})
    lists = server.stats.by_operation[LIST]
    report = await Pusher(client, editor.cache, editor.outbox).push()
    assert (report.done, report.failed, report.conflicts) == (14, 0, 1)
    assert server.stats.by_operation[BULK] == 1 and server.stats.by_operation[POST] == 0
    held = _keyed(server, "SHOWONLY")
    assert len(held) == 1 and held[0]["city"] == "Theirs"  # never overwritten
    conflict = editor.outbox.changes(("conflict",))
    assert [c.seq for c in conflict] == [taken]
    assert conflict[0].theirs is not None and str(conflict[0].theirs["id"]) == str(theirs["id"])
    made = _keyed(server, "NEW-1")
    assert len(made) == 1 and made[0]["city"] == "Newtown"
    done = editor.outbox.changes_by_seq([fresh])[0]
    assert done.state == "done" and done.server_id == str(made[0]["id"])
    # the keys looked up in the check's listing, not a request per create
    assert server.stats.by_operation[LIST] - lists <= 4
    assert server.stats.by_operation[("GET", "/Customer/{id}")] == 0


@pytest.mark.asyncio
async def test_a_create_whose_answer_is_lost_is_looked_up_by_its_key_never_created_twice(
    server: SimServer, client: ShowClient, editor: Editor
) -> None:
    await Puller(client, editor.cache).sync(["customers"], full=True)
    seqs = [editor.create("customers", {"customerID": f"LOST-{i}", "city": "X"})[0]
            for i in range(3)]  # fmt: skip
    server.config.bulk_lost_next = 1
    report = await Pusher(client, editor.cache, editor.outbox).push()
    assert server.stats.bulk_lost == 1 and server.stats.by_operation[BULK] == 1
    assert (report.done, report.failed) == (3, 0)
    for i, seq in enumerate(seqs):
        made = _keyed(server, f"LOST-{i}")
        assert len(made) == 1  # created once, found by its key
        assert editor.outbox.changes_by_seq([seq])[0].server_id == str(made[0]["id"])
    assert server.stats.by_operation[POST] == 0


@pytest.mark.asyncio
async def test_a_lost_create_not_found_stays_pending_and_the_next_push_sends_it_once(
    server: SimServer, client: ShowClient, editor: Editor
) -> None:
    await Puller(client, editor.cache).sync(["customers"], full=True)
    seq, _ = editor.create("customers", {"customerID": "NOTYET", "city": "X"})
    server.config.v2_too_large_status = 502  # answered 502 whole, nothing applied
    server.config.v2_batch_cap = 0
    report = await Pusher(client, editor.cache, editor.outbox).push()
    assert report.done == 0 and _keyed(server, "NOTYET") == []
    change = editor.outbox.changes_by_seq([seq])[0]
    assert change.state == "pending" and change.attempts == 1
    server.config.v2_batch_cap = 1000
    report = await Pusher(client, editor.cache, editor.outbox).push()
    assert report.done == 1 and len(_keyed(server, "NOTYET")) == 1


VENDORS_BULK = ("POST", "/v2/vendors/bulk")
VENDOR_PUT = ("PUT", "/Vendor/{id}")


async def _edit_vendor_names(client: ShowClient, editor: Editor, count: int) -> list[str]:
    await Puller(client, editor.cache).sync(["vendors"], full=True)
    ids = [str(v["id"]) for v in list(editor.cache.records("vendors"))[:count]]
    staged = editor.stage("vendors", [FieldEdit(i, "name", f"Vendor {i}") for i in ids])
    assert len(staged.seqs) == count and not staged.rejected
    return ids


@pytest.mark.asyncio
async def test_vendor_updates_go_through_v1_until_their_v2_names_are_proven(
    server: SimServer, client: ShowClient, editor: Editor
) -> None:
    await _edit_vendor_names(client, editor, 3)
    report = await Pusher(client, editor.cache, editor.outbox).push()
    assert (report.done, report.failed) == (3, 0)
    assert (
        server.stats.by_operation[VENDOR_PUT] == 3 and server.stats.by_operation[VENDORS_BULK] == 0
    )
    assert "3 vendors record(s) went through V1" in report.notes[0]


@pytest.mark.asyncio
async def test_vendor_updates_by_upsert_merged_settled_per_element_with_the_shows_message(
    server: SimServer, client: ShowClient, editor: Editor
) -> None:
    assert (await prove_vendor_fields(client)).startswith("V2 vendor fields: proven on vendor")
    ids = await _edit_vendor_names(client, editor, 4)
    before = {i: dict(server.show.get("vendors", i) or {}) for i in ids}
    bad = str(server.show.records("vendors")[5]["id"])  # a field the show refuses (V2's type)
    current = editor.cache.get("vendors", bad) or {}
    refused = {**current, "allottedUserCount": "lots"}
    change = NewChange("vendors", "update", bad, refused, changed_fields=("allottedUserCount",),
                       base=current)  # fmt: skip
    seq = editor.outbox.add(change)
    sent = server.stats.by_operation[VENDORS_BULK]
    report = await Pusher(client, editor.cache, editor.outbox).push()
    assert (report.done, report.failed) == (4, 1)
    assert server.stats.by_operation[VENDORS_BULK] - sent == 1
    assert server.stats.by_operation[VENDOR_PUT] == 0
    for i in ids:
        held = server.show.get("vendors", i) or {}
        assert held["name"] == f"Vendor {i}"
        assert (held["email"], held["brokerID"]) == (before[i]["email"], before[i]["brokerID"])
    failed = editor.outbox.changes(("failed",))
    assert [c.seq for c in failed] == [seq]
    assert failed[0].last_error == "allottedUserCount must be an integer"


@pytest.mark.asyncio
async def test_a_vendor_batch_whose_answer_is_lost_is_read_back_and_a_create_stays_on_v1(
    server: SimServer, client: ShowClient, editor: Editor
) -> None:
    await prove_vendor_fields(client)
    ids = await _edit_vendor_names(client, editor, 3)
    editor.create("vendors", {"vendorID": "V-NEW", "name": "New vendor"})
    sent = server.stats.by_operation[VENDORS_BULK]
    server.config.bulk_lost_next = 1
    report = await Pusher(client, editor.cache, editor.outbox).push()
    assert server.stats.bulk_lost == 1 and server.stats.by_operation[VENDORS_BULK] - sent == 1
    assert (report.done, report.failed) == (4, 0)
    assert server.stats.by_operation[("POST", "/Vendor")] == 1  # the create, under its own key
    assert [v["vendorID"] for v in server.show.records("vendors")].count("V-NEW") == 1
    assert all((server.show.get("vendors", i) or {})["name"] == f"Vendor {i}" for i in ids)
    assert editor.outbox.changes(("pending", "sending", "failed")) == []


@pytest.mark.asyncio
async def test_the_check_after_the_push_is_the_only_listing_after_it(
    server: SimServer, client: ShowClient, editor: Editor
) -> None:
    """The check after the push lists what changed into the cache at its last look: the listing
    of what the upserts changed is not asked again (bench: 11 requests fewer at 10,000)."""
    records = _plain(server)[:6]
    await _edit_cities(client, editor, records)
    editor.create("customers", {"customerID": "AFTER-1", "city": "Listed"})
    before = server.stats.by_operation[LIST]
    report = await Pusher(client, editor.cache, editor.outbox).push()
    assert (report.done, report.failed) == (7, 0)
    assert server.stats.by_operation[LIST] - before == 3  # the check before, the two looks after
    made = _keyed(server, "AFTER-1")[0]
    cached = editor.cache.get("customers", str(made["id"]))
    assert cached is not None and cached["modifiedDate"] == made["modifiedDate"]
