"""The outbox on real SQLite files: adding, transitions, recovery, conflict resolution."""

from __future__ import annotations

import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.store.changes import is_local_id
from app.store.outbox import NewChange, Outbox, OutboxError

BASE = {
    "id": "c1",
    "customerID": "CU1",
    "city": "Salem",
    "phone": "1",
    "modifiedDate": "2025-05-01",
}


def edit(record_id: str = "c1", **fields: Any) -> NewChange:
    fields = fields or {"city": "Clinton"}
    return NewChange(
        resource="customers",
        op="update",
        record_id=record_id,
        payload={**BASE, "id": record_id, **fields},
        changed_fields=tuple(fields),
        base={**BASE, "id": record_id},
        key_value="CU1",
    )


@pytest.fixture
def outbox(tmp_path: Path) -> Iterator[Outbox]:
    with Outbox(tmp_path / "profile" / "outbox.db") as box:
        yield box


def test_file_is_private_wal_and_full_sync(tmp_path: Path) -> None:
    path = tmp_path / "p" / "outbox.db"
    with Outbox(path) as box:
        box.add(edit())
        conn = box._db.conn
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_add_is_committed_before_returning(outbox: Outbox) -> None:
    seq = outbox.add(edit())
    other = sqlite3.connect(outbox.path)  # another reader sees it at once
    try:
        assert other.execute("SELECT state FROM changes WHERE seq = ?", (seq,)).fetchone() == (
            "pending",
        )
    finally:
        other.close()
    change = outbox.get(seq)
    assert change is not None
    assert change.payload["city"] == "Clinton"
    assert change.diff() == [("city", "Salem", "Clinton")]


def test_add_many_is_one_transaction(outbox: Outbox) -> None:
    seqs = outbox.add_many([edit(f"c{n}") for n in range(5)])
    assert seqs == sorted(seqs) and len(seqs) == 5
    bad = [edit("x1"), NewChange(resource="customers", op="update", payload={"a": object()})]
    with pytest.raises(TypeError):
        outbox.add_many(bad)
    assert outbox.counts()["pending"] == 5  # nothing of the failed batch was kept


def test_create_gets_a_local_id(outbox: Outbox) -> None:
    seq = outbox.add(
        NewChange(resource="customers", op="create", payload={"customerID": "N1"}, key_value="N1")
    )
    change = outbox.get(seq)
    assert change is not None and is_local_id(change.record_id) and change.is_create
    assert change.diff() == [("customerID", None, "N1")]


def test_queries_in_seq_order(outbox: Outbox) -> None:
    a, b = outbox.add_many([edit("c1"), edit("c2")])
    outbox.add(NewChange(resource="warehouses", op="delete", record_id="w1"))
    assert [c.seq for c in outbox.pending_for_push("customers")] == [a, b]
    assert [c.record_id for c in outbox.for_record("customers", "c2")] == ["c2"]
    assert len(outbox.changes()) == 3
    assert outbox.counts() == {
        "pending": 3,
        "sending": 0,
        "done": 0,
        "failed": 0,
        "conflict": 0,
        "discarded": 0,
    }


def test_happy_path_sending_done(outbox: Outbox) -> None:
    seq = outbox.add(NewChange(resource="customers", op="create", payload={"x": 1}))
    outbox.mark_sending([seq])
    outbox.mark_done(seq, {"id": "srv9", "message": "ok"}, server_id="srv9")
    change = outbox.get(seq)
    assert change is not None
    assert (change.state, change.attempts, change.server_id) == ("done", 1, "srv9")
    assert change.response == {"id": "srv9", "message": "ok"}
    assert change.effective_id == "srv9"
    assert outbox.for_record("customers", "srv9", states=("done",))[0].seq == seq


def test_failure_and_retry(outbox: Outbox) -> None:
    seq = outbox.add(edit())
    outbox.mark_sending([seq])
    outbox.mark_failed(seq, "400: bad phone", {"message": "bad phone"})
    failed = outbox.get(seq)
    assert failed is not None and failed.state == "failed" and failed.last_error == "400: bad phone"
    outbox.retry(seq)
    outbox.mark_sending([seq])
    again = outbox.get(seq)
    assert again is not None and again.state == "sending" and again.attempts == 2


def test_illegal_transitions_raise(outbox: Outbox) -> None:
    seq = outbox.add(edit())
    with pytest.raises(OutboxError):
        outbox.mark_done(seq, {})
    with pytest.raises(OutboxError):
        outbox.mark_sending([seq, 999])
    assert outbox.counts()["sending"] == 0  # the batch rolled back
    with pytest.raises(OutboxError):
        outbox.resolve(seq, "mine")


def test_discard(outbox: Outbox) -> None:
    seq = outbox.add(edit())
    outbox.discard(seq)
    assert outbox.pending_for_push() == []
    assert outbox.for_record("customers", "c1") == []


def test_recover_interrupted_after_crash(tmp_path: Path) -> None:
    path = tmp_path / "outbox.db"
    with Outbox(path) as box:
        create = box.add(
            NewChange(resource="customers", op="create", payload={"customerID": "N"}, key_value="N")
        )
        update = box.add(edit())
        box.mark_sending([create, update])
    with Outbox(path) as box:  # "restart"
        stuck = box.recover_interrupted()
        assert [c.seq for c in stuck] == [create, update]
        assert all(c.state == "sending" for c in stuck)  # not blindly reset
        assert box.pending_for_push() == []
        box.retry(update)
        box.mark_done(create, {"id": "found-by-key"}, server_id="found-by-key")
        assert [c.seq for c in box.pending_for_push()] == [update]


THEIRS = {**BASE, "phone": "999", "city": "Madison", "modifiedDate": "2025-05-03"}


def _conflicted(outbox: Outbox) -> int:
    seq = outbox.add(edit(city="Clinton"))
    outbox.mark_conflict(seq, THEIRS)
    return seq


def test_resolve_mine_rebuilds_on_theirs(outbox: Outbox) -> None:
    seq = _conflicted(outbox)
    assert outbox.counts()["conflict"] == 1
    outbox.resolve(seq, "mine")
    change = outbox.get(seq)
    assert change is not None and change.state == "pending" and change.theirs is None
    assert change.base == THEIRS
    assert change.payload == {**THEIRS, "city": "Clinton"}  # their phone kept
    assert change.diff() == [("city", "Madison", "Clinton")]


def test_resolve_theirs_discards(outbox: Outbox) -> None:
    seq = _conflicted(outbox)
    outbox.resolve(seq, "theirs")
    change = outbox.get(seq)
    assert change is not None and change.state == "discarded"
    assert outbox.pending_for_push() == []


def test_resolve_merge_per_field(outbox: Outbox) -> None:
    seq = _conflicted(outbox)
    outbox.resolve(seq, {"city": "Clinton", "phone": "999"})
    change = outbox.get(seq)
    assert change is not None and change.state == "pending"
    assert change.changed_fields == ("city",)  # phone equals theirs: not a change any more
    assert change.payload == {**THEIRS, "city": "Clinton"}


def test_resolve_merge_that_keeps_everything_of_theirs(outbox: Outbox) -> None:
    seq = _conflicted(outbox)
    outbox.resolve(seq, {"city": "Madison"})
    change = outbox.get(seq)
    assert change is not None and change.state == "discarded"


def test_resolve_with_explicit_new_base(outbox: Outbox) -> None:
    seq = _conflicted(outbox)
    newer = {**THEIRS, "phone": "777"}
    outbox.resolve(seq, "mine", new_base=newer)
    change = outbox.get(seq)
    assert change is not None and change.payload["phone"] == "777" and change.base == newer


def test_changes_of_many_records_are_read_at_once_by_either_id(tmp_path: Path) -> None:
    with Outbox(tmp_path / "o.sqlite") as outbox:
        a = outbox.add(NewChange("customers", "update", "a", payload={"city": "A"}))
        b = outbox.add(NewChange("customers", "create", "local-1", payload={"city": "B"}))
        outbox.mark_sending([b])
        outbox.mark_done(b, {"id": "srv-9"}, server_id="srv-9")
        c = outbox.add(NewChange("customers", "update", "srv-9", payload={"city": "C"}))
        outbox.add(NewChange("brands", "update", "a", payload={"name": "other resource"}))
        found = outbox.for_records("customers", ["a", "srv-9", "nobody"])
        assert [x.seq for x in found["a"]] == [a]
        assert [x.seq for x in found["srv-9"]] == [c]  # the done create is not active
        assert found["nobody"] == []
        for rid in ("a", "srv-9"):
            assert found[rid] == outbox.for_record("customers", rid)
        outbox.discard_many([a, c])
        assert outbox.counts()["discarded"] == 2


def test_a_change_answering_two_chunks_of_ids_is_read_once_for_each(tmp_path: Path) -> None:
    """Ids are looked up 400 at a time: a sent create's local id in the first chunk and its
    server id in the second find the same change twice; each id still lists it once (a paste's
    rework must not drop, nor a deletion discard twice, the change it read)."""
    with Outbox(tmp_path / "o.sqlite") as outbox:
        seq = outbox.add(NewChange("customers", "create", "new-1", payload={"city": "B"}))
        outbox.mark_sending([seq])
        outbox.mark_done(seq, {"id": "srv-1"}, server_id="srv-1")
        outbox.reopen([seq])  # active again, under both ids
        fillers = [f"other-{n}" for n in range(450)]
        found = outbox.for_records("customers", ["new-1", *fillers, "srv-1"])
        assert [x.seq for x in found["new-1"]] == [seq]
        assert [x.seq for x in found["srv-1"]] == [seq]
        assert all(found[rid] == [] for rid in fillers)
