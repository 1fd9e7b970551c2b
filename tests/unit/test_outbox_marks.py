"""The outbox's light reads (app/store/outbox.py): marks, states and the overlay's view of a
record's changes answer what the full reads answer, without the payloads they leave out."""

from __future__ import annotations

from pathlib import Path

from app.store.changes import ACTIVE
from app.store.outbox import ChangeMark, NewChange, Outbox


def test_marks_states_and_shown_changes_agree_with_the_full_reads(tmp_path: Path) -> None:
    with Outbox(tmp_path / "o.sqlite") as outbox:
        base = {"id": "a1", "city": "Paris", "phone": "1"}
        first = outbox.add(
            NewChange(
                "customers",
                "update",
                "a1",
                payload={**base, "city": "Rome"},
                changed_fields=("city",),
                base=base,
            )
        )
        unnamed = outbox.add(
            NewChange("customers", "update", "a1", payload={**base, "phone": "2"}, base=base)
        )
        gone = outbox.add(NewChange("customers", "delete", "b2", base={"id": "b2"}))
        created = outbox.add(NewChange("customers", "create", "new-1", payload={"city": "Oslo"}))
        outbox.add(NewChange("warehouses", "update", "a1", payload={"description": "x"}))
        outbox.mark_sending([created])
        outbox.mark_done(created, {"id": "s9"}, server_id="s9")
        later = outbox.add(NewChange("customers", "update", "new-1", payload={"city": "Bergen"}))
        outbox.mark_sending([first])
        outbox.mark_conflict(first, {**base, "city": "Milan"})

        full = outbox.changes(ACTIVE, "customers")
        marks = outbox.marks(ACTIVE, "customers")
        assert list(marks) == [c.seq for c in full] == [first, unnamed, gone, later]
        assert marks[first] == ChangeMark("a1", None, "update", "conflict", 1, full[0].updated_at)
        assert outbox.marks_of("customers", ["a1", "s9"]) == {
            seq: marks[seq] for seq in (first, unnamed)
        }  # "s9" names the create, which is done
        assert outbox.marks_of("customers", ["new-1"]) == {later: marks[later]}
        assert outbox.states_of([gone, created, 999, first]) == {
            gone: "pending",
            created: "done",
            first: "conflict",
        }

        shown = outbox.shown_of("customers", ["a1", "b2", "a1"])
        kept = {c.seq: c for c in outbox.for_records("customers", ["a1", "b2"])["a1"]}
        assert [c.seq for c in shown] == [first, unnamed, gone]  # each once, oldest first
        assert shown[0].payload == kept[first].payload and shown[0].theirs is None
        assert shown[0].base is None  # its changed fields are named: the diff needs no base
        assert shown[1].base == base  # no fields named: the overlay diffs against the base
        assert shown[2].base is None  # a deletion marks its whole row
        names = [[name for name, _, _ in c.diff()] for c in shown[:2]]
        assert names == [[name for name, _, _ in c.diff()] for c in kept.values()]  # its cells


def test_the_revision_moves_with_every_write_from_any_connection(tmp_path: Path) -> None:
    with Outbox(tmp_path / "o.sqlite") as outbox:
        start = outbox.revision()
        assert outbox.revision() == start  # reading moves nothing
        seq = outbox.add(NewChange("customers", "update", "a1", payload={"city": "Rome"}))
        mine = outbox.revision()
        assert mine != start
        with Outbox(tmp_path / "o.sqlite") as other:
            other.discard(seq)
        assert outbox.revision() != mine
