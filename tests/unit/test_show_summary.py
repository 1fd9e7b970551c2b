"""The show's summary (app/sync/reports/show_summary.py): the start page's figures, Qt-free, from a
real
cache and outbox file."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from app.api.governor import GovernorState
from app.api.registry import default_registry
from app.store.cache import Cache
from app.store.changes import NewChange
from app.store.outbox import Outbox
from app.sync.reports.show_summary import (
    budget_line,
    changes_line,
    data_line,
    push_line,
    summarize,
)

START = datetime(2026, 11, 23, 9, 0, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def stores(tmp_path: Path, clock: Clock) -> Iterator[tuple[Cache, Outbox]]:
    with (
        Cache(tmp_path / "cache.db", default_registry()) as cache,
        Outbox(tmp_path / "outbox.db", clock=clock) as outbox,
    ):
        yield cache, outbox


def change(n: int, resource: str = "customers") -> NewChange:
    base = {"id": f"c{n}", "phone": "1"}
    return NewChange(resource, "update", f"c{n}", payload={**base, "phone": "2"},
                     changed_fields=("phone",), base=base)  # fmt: skip


def push(outbox: Outbox, seqs: list[int], failed: int = 0) -> None:
    """What the Pusher does to the outbox: sent, then done (audited) or failed (audited)."""
    outbox.mark_sending(seqs)
    done = seqs[failed:]
    outbox.mark_done_many([(c, {}, None) for c in (outbox.get(s) for s in done) if c])
    for seq in seqs[:failed]:
        refused = outbox.get(seq)
        assert refused is not None
        outbox.mark_failed(seq, "phone: not a number")
        outbox.audit(refused, "failed: phone: not a number")


def test_an_empty_show(stores: tuple[Cache, Outbox]) -> None:
    cache, outbox = stores
    summary = summarize("Spring show", "S-1", cache, outbox)
    assert (summary.data_as_of, summary.records, summary.unsettled) == (None, 0, 0)
    assert summary.last_pushes == ()
    assert data_line(None) == "Nothing synced yet"
    assert changes_line(summary) == "0 pending · 0 failed · no conflicts"


def test_records_data_as_of_and_the_outbox(stores: tuple[Cache, Outbox]) -> None:
    cache, outbox = stores
    cache.begin_sync("customers", START)
    cache.upsert("customers", [{"id": "c1"}, {"id": "c2"}])
    cache.complete_sync("customers", START, full=True)
    seqs = outbox.add_many([change(1), change(2), change(3)])
    outbox.mark_sending(seqs[:1])
    outbox.mark_failed(seqs[0], "refused")
    summary = summarize("Spring show", "S-1", cache, outbox)
    assert summary.records == 2
    assert summary.data_as_of == START
    assert (summary.pending, summary.failed, summary.conflicts) == (2, 1, 0)
    assert changes_line(summary) == "2 pending · 1 failed · no conflicts"


def test_the_last_pushes_come_from_the_audit_log_newest_first(
    stores: tuple[Cache, Outbox], clock: Clock
) -> None:
    cache, outbox = stores
    first = outbox.add_many([change(n) for n in range(3)])
    push(outbox, first)
    clock.now = START + timedelta(hours=2)
    second = outbox.add_many([change(10), change(11, "orders"), change(12)])
    push(outbox, second, failed=1)
    runs = summarize("Spring show", "S-1", cache, outbox).last_pushes
    assert [(r.applied, r.failed) for r in runs] == [(2, 1), (3, 0)]
    assert runs[0].at == START + timedelta(hours=2)
    assert runs[0].resources == ("customers", "orders")
    line = push_line(runs[0], {"customers": "Customers", "orders": "Orders"})
    assert line.endswith("— 2 applied, 1 failed (Customers, Orders)")


def test_only_the_newest_pushes_are_read(stores: tuple[Cache, Outbox], clock: Clock) -> None:
    cache, outbox = stores
    for hour in range(8):
        clock.now = START + timedelta(hours=hour)
        push(outbox, outbox.add_many([change(hour)]))
    runs = summarize("Spring show", "S-1", cache, outbox, pushes=3).last_pushes
    assert [r.at for r in runs] == [START + timedelta(hours=h) for h in (7, 6, 5)]


def test_the_budget_in_words() -> None:
    state = GovernorState(used=12, limit=300, span=60.0, paused_until=None, attempt=0,
                          max_attempts=8)  # fmt: skip
    assert budget_line(state) == "12 of 300 requests used this minute"
    slowed = GovernorState(used=40, limit=300, span=60.0, paused_until=None, attempt=0,
                           max_attempts=8, allowed=150)  # fmt: skip
    assert "slowed to 150" in budget_line(slowed)


def test_a_push_of_more_than_400_changes_counts_them_all(
    stores: tuple[Cache, Outbox], clock: Clock
) -> None:
    """The bug: only the newest 400 audit rows were read, so a push of 41,172 changes showed as
    "400 applied" (and `status --json` said 400), and an older push behind it vanished."""
    cache, outbox = stores
    push(outbox, outbox.add_many([change(n) for n in range(3)]))
    clock.now = START + timedelta(hours=1)
    seqs = outbox.add_many([change(n, "orders" if n % 2 else "customers") for n in range(1000)])
    for start in range(0, 1000, 100):  # in slices, a second apart, as the Pusher settles them
        clock.now += timedelta(seconds=1)
        push(outbox, seqs[start : start + 100], failed=3 if start == 500 else 0)
    runs = summarize("Spring show", "S-1", cache, outbox).last_pushes
    assert [(r.applied, r.failed, r.conflicts) for r in runs] == [(997, 3, 0), (3, 0, 0)]
    assert runs[0].at == START + timedelta(hours=1, seconds=10)
    assert runs[0].resources == ("customers", "orders")
    assert push_line(runs[0]).endswith("— 997 applied, 3 failed (customers, orders)")


def test_a_push_read_while_it_grows_counts_each_change_once(
    stores: tuple[Cache, Outbox], clock: Clock
) -> None:
    """The start page reads again while a push settles more changes: the counts made before are
    extended by the new rows alone, and a change logged again with the same outcome (or a
    change of several fields) still counts once; with another outcome, once per outcome."""
    cache, outbox = stores
    seqs = outbox.add_many([change(n) for n in range(600)])
    push(outbox, seqs[:450], failed=2)
    first = summarize("Spring show", "S-1", cache, outbox).last_pushes
    assert [(r.applied, r.failed) for r in first] == [(448, 2)]
    clock.now += timedelta(seconds=30)
    push(outbox, seqs[450:], failed=1)
    again = outbox.get(seqs[0])  # failed before: logged failed once more, then applied
    assert again is not None
    outbox.audit(again, "failed: phone: not a number")
    outbox.audit(again, "applied")
    runs = summarize("Spring show", "S-1", cache, outbox).last_pushes
    assert [(r.applied, r.failed) for r in runs] == [(448 + 149 + 1, 3)]
    assert summarize("Spring show", "S-1", cache, outbox).last_pushes == runs
