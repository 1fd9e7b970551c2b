"""Issue 17 point 5: a push larger than its slices, its settling and its verification — what
they keep out of memory (the records in a temporary file, the answered changes settled many
at a time, the updates to check in a temporary file) changes nothing of what the push does.
The sizes are shrunk here so that a small show spans several of each."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.sim import SimServer, generate_show
from app.store import outbox_slices
from app.sync.pull.puller import Puller
from app.sync.push import outcomes as push_outcomes
from app.sync.push import pusher, verify_pushed
from app.sync.push.pusher import Pusher, PushProgress
from tests.sim.test_push_by_field import Desk, puts_of
from tests.sim.test_sync import _config, connect, queue_update


@pytest.fixture
def small_slices(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pusher, "SLICE_RECORDS", 4)  # records per slice
    monkeypatch.setattr(push_outcomes, "SETTLE_EVERY", 3)  # answered changes settled together
    monkeypatch.setattr(verify_pushed, "NOTED_BATCH", 5)  # updates noted before they are written
    monkeypatch.setattr(outbox_slices, "MARKS_PAGE", 7)  # pending changes read at a time


@pytest.mark.asyncio
@pytest.mark.usefixtures("small_slices")
async def test_a_push_of_many_slices_sends_each_record_once_in_order_and_settles_all(
    tmp_path: Path,
) -> None:
    """26 records, two edits each on some: every change done and logged once, each record's
    changes in order (its last edit is what the show holds), one PUT per record's chain."""
    desk = Desk(tmp_path / "desk")
    with SimServer(generate_show(30, seed=11), _config()) as server:
        async with connect(server) as client:
            await Puller(client, desk.cache).sync(["customers"], full=True)
            ids = [r["id"] for r in server.show.records("customers")[:26]]
            for n, rid in enumerate(ids):
                queue_update(desk.cache, desk.outbox, "customers", rid, city=f"City {n}")
            for n, rid in enumerate(ids[::5]):  # a second edit of every fifth record
                queue_update(desk.cache, desk.outbox, "customers", rid, phone=f"555-02{n:02d}")
            total = 26 + len(ids[::5])
            heard: list[PushProgress] = []
            before = puts_of(server)
            report = await Pusher(client, desk.cache, desk.outbox, on_progress=heard.append).push()
            sent = puts_of(server) - before
        for n, rid in enumerate(ids):
            record = server.show.get("customers", rid)
            assert record is not None and record["city"] == f"City {n}"
            assert desk.cache.get("customers", rid)["city"] == f"City {n}"  # type: ignore[index]
        for n, rid in enumerate(ids[::5]):
            assert server.show.get("customers", rid)["phone"] == f"555-02{n:02d}"  # type: ignore[index]
    assert (report.done, report.failed, report.conflicts, report.errors) == (total, 0, 0, [])
    assert sent == 26  # a record's consecutive edits go as one PUT
    assert {s: n for s, n in desk.outbox.counts().items() if n} == {"done": total}
    assert len(desk.outbox.audit_rows()) == total
    assert heard[-1] == PushProgress(total, total)
    desk.close()


@pytest.mark.asyncio
@pytest.mark.usefixtures("small_slices")
async def test_the_check_after_a_push_of_many_slices_finds_a_field_undone_in_any_slice(
    tmp_path: Path,
) -> None:
    """Another admin's PUT puts back the old city of a record of the first slice and of the
    last one, after ours landed: the check after the push (its updates read back from its
    temporary file) finds both and sends them again; the other records are not resent."""
    desk = Desk(tmp_path / "desk")
    with SimServer(generate_show(30, seed=12), _config()) as server:
        async with connect(server) as client:
            await Puller(client, desk.cache).sync(["customers"], full=True)
            ids = [r["id"] for r in server.show.records("customers")[:22]]
            seqs = {
                rid: queue_update(desk.cache, desk.outbox, "customers", rid, city="Mine")
                for rid in ids
            }
            undone = [ids[1], ids[-1]]
            stale = {rid: {**(server.show.get("customers", rid) or {})} for rid in undone}
            crossed: set[str] = set()

            def other_admin(progress: PushProgress) -> None:
                for rid in undone:
                    change = desk.outbox.get(seqs[rid])
                    if rid not in crossed and change is not None and change.state == "done":
                        crossed.add(rid)
                        server.show.replace("customers", rid, stale[rid])

            before = puts_of(server)
            push = Pusher(client, desk.cache, desk.outbox, on_progress=other_admin)
            report = await push.push()
            sent = puts_of(server) - before
        for rid in ids:
            assert server.show.get("customers", rid)["city"] == "Mine"  # type: ignore[index]
    assert crossed == set(undone)
    assert (report.done, report.failed, report.conflicts) == (22, 0, 0)
    assert sent == 22 + len(undone)
    assert {s: n for s, n in desk.outbox.counts().items() if n} == {"done": 22}
    desk.close()
