"""`PendingFollower` (app/sync/edit/overlay.py): the table's overlay kept up to date by reading only
the changes written since it last looked answers, after every kind of outbox write, exactly what
a full read of the outbox (`PendingOverlay.read`) answers."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from app.api.registry import default_registry
from app.store.cache import Cache
from app.store.outbox import NewChange, Outbox
from app.sync.edit.editor import Editor, FieldEdit
from app.sync.edit.overlay import PendingFollower, PendingOverlay

REGISTRY = default_registry()
CUSTOMERS = [
    {"id": f"r{i}", "customerID": f"C{i}", "city": "Paris", "phone": f"555 01{i:02}"}
    for i in range(6)
]


@pytest.fixture
def editor(tmp_path: Path) -> Iterator[Editor]:
    with Cache(tmp_path / "c.sqlite", REGISTRY) as cache, Outbox(tmp_path / "o.sqlite") as outbox:
        cache.upsert("customers", CUSTOMERS)
        yield Editor(cache, outbox, REGISTRY)


def same_as_a_full_read(follower: PendingFollower) -> PendingOverlay:
    followed, full = follower.read(), PendingOverlay.read(follower.outbox, follower.slug)
    assert followed == full
    assert follower.count == len(follower.outbox.changes(("pending", "sending", "failed",
                                                          "conflict"), "customers"))  # fmt: skip
    return followed


def test_edits_undo_push_results_creates_and_deletes_read_only_what_changed(
    editor: Editor,
) -> None:
    outbox = editor.outbox
    follower = PendingFollower(outbox, "customers")
    same_as_a_full_read(follower)
    paste = editor.edit_step(
        "customers",
        [FieldEdit(f"r{i}", f, f"{f} {i}") for i in range(4) for f in ("city", "phone")],
        [FieldEdit(f"r{i}", f, None) for i in range(4) for f in ("city", "phone")],
    )
    view = same_as_a_full_read(follower)
    assert view.values["r2"]["city"] == "city 2" and ("r3", "phone") in view.cells
    later = editor.stage("customers", [FieldEdit("r1", "city", "Rome")]).seqs
    sent = [paste.seqs["r0"], paste.seqs["r2"], later[0]]
    outbox.mark_sending(sent)
    same_as_a_full_read(follower)
    outbox.mark_failed(sent[0], "City refused", {"fields": {"city": ["unknown town"]}})
    outbox.mark_conflict(sent[1], {**CUSTOMERS[2], "city": "Nice"})
    outbox.mark_done(sent[2], {})
    view = same_as_a_full_read(follower)
    assert view.failure_at("r0", "city") == "unknown town" and view.conflicts == {"r2"}
    editor.take_back(paste)  # r3's change discarded; the others' old values staged again
    same_as_a_full_read(follower)
    seq, _ = editor.create("customers", {"customerID": "C99", "city": "Oslo"})
    created = same_as_a_full_read(follower).created
    editor.stage("customers", [FieldEdit(created[0], "phone", "555 9999")])
    editor.delete("customers", ["r4"])
    view = same_as_a_full_read(follower)
    assert view.kinds["r4"] == "deleted" and view.values[created[0]]["phone"] == "555 9999"
    assert seq is not None
    outbox.mark_sending([seq])
    outbox.mark_done(seq, {"id": "s99"}, server_id="s99")  # pushed: its update stays pending
    view = same_as_a_full_read(follower)
    assert view.values[created[0]]["phone"] == "555 9999" and created[0] not in view.kinds
    outbox.discard_many(c.seq for c in outbox.changes(("pending",), "customers"))
    assert same_as_a_full_read(follower).cells == {
        cell for cell in view.cells if cell[0] in ("r0", "r2")
    }


def test_a_read_with_nothing_new_reads_nothing(editor: Editor) -> None:
    follower = PendingFollower(editor.outbox, "customers")
    editor.stage("customers", [FieldEdit("r0", "city", "Rome")])
    first = follower.read()
    reads: list[str] = []
    for name in ("marks", "changes", "shown_of"):
        spy(editor.outbox, name, reads)
    assert follower.read() is first and reads == []  # the tab and the session both ask
    editor.outbox.add(NewChange("customers", "update", "r5", payload={"city": "Lyon"}))
    assert follower.read().values["r5"] == {"city": "Lyon"}
    assert reads == ["marks", "shown_of"]  # the one record written, not every change


def spy(outbox: Outbox, name: str, calls: list[str]) -> None:
    real: Callable[..., object] = getattr(outbox, name)

    def called(*args: object) -> object:
        calls.append(name)
        return real(*args)

    setattr(outbox, name, called)


def test_a_change_written_by_another_connection_is_seen(editor: Editor, tmp_path: Path) -> None:
    follower = PendingFollower(editor.outbox, "customers")
    follower.read()
    with Outbox(tmp_path / "o.sqlite") as other:  # another process, the CLI say
        other.add(NewChange("customers", "update", "r1", payload={"city": "Lyon"}))
    assert same_as_a_full_read(follower).values["r1"] == {"city": "Lyon"}
