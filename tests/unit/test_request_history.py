"""The profile's shared request history (app/store/request_history.py) counts its budget in
SQLite: answered rows over an index, only the rows in flight judged in Python. Its answers are
checked against the computation it replaced — every row of the budget read, its leaving time
computed, sorted — on random histories: answered rows, rows in flight whose process lives or
is gone, leases running or over, several processes (real SQLite files, real pids)."""

from __future__ import annotations

import math
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.store import request_history
from app.store.request_history import _EPSILON, POLL, SharedHistory, _end

WALL = 1_700_000_000.0  # the Unix time when the history was opened
START = 50.0  # the monotonic clock then
GONE = 2**22 + 12345  # a pid taken to be a process that died (`_alive` answers from `LIVING`)
LIVING = {os.getpid(), 1}


def reference(history: SharedHistory, now: float, allowed: int) -> tuple[int, float | None]:
    """`used` and `wait_time` as computed before: every row of the budget read and sorted."""
    wall = now + history._offset
    rows = history._db.execute(
        "SELECT answered, lease, pid, started FROM request_history"
        " WHERE coalesce(answered, lease) > ?",
        (wall - history.padded_span,),
    ).fetchall()
    ends = sorted(
        _end(answered, lease, pid, started, wall) + history.padded_span - history._offset
        for answered, lease, pid, started in rows
    )
    counted = [end for end in ends if end > now + _EPSILON]
    if len(counted) < allowed:
        return len(counted), 0.0
    end = counted[len(counted) - allowed]
    return len(counted), POLL if math.isinf(end) else max(end - now, _EPSILON)


# A row: answered at an offset from now (None: in flight), its lease and its start likewise,
# sent by this process, another living one or one that is gone.
# (The span is 10.5 s with its margin: -10.5 is its edge, and the band counted exactly.)
edges = [-10.5, -10.5 + 1e-7, -10.5 + 3e-7, -10.5 - 1e-7, -10.49, -10.48, -10.0, 0.0, 1e-10]
offsets = st.floats(-40.0, 40.0, allow_nan=False) | st.sampled_from(edges)
rows = st.lists(
    st.tuples(
        st.none() | offsets,
        offsets,
        st.sampled_from([os.getpid(), 1, GONE, None]),
        offsets,
    ),
    max_size=60,
)


def test_the_budget_counts_as_it_did_when_every_row_was_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(request_history, "_alive", lambda pid: pid in LIVING)
    with tempfile.TemporaryDirectory() as folder:
        clock = [START]
        history = SharedHistory(
            Path(folder), 20, 10.0, 0.5, lease=30.0, clock=lambda: clock[0], wall=lambda: WALL
        )

        @settings(max_examples=400, deadline=None)
        @given(rows, st.floats(0.0, 500.0, allow_nan=False), st.integers(1, 70))
        def same(table: list[tuple[float | None, float, int | None, float]], at: float,
                 allowed: int) -> None:  # fmt: skip
            now = START + at
            wall = now + history._offset
            history._db.execute("DELETE FROM request_history")
            history._db.executemany(
                "INSERT INTO request_history (answered, lease, pid, started) VALUES (?, ?, ?, ?)",
                [
                    (None if a is None else wall + a, wall + lease, pid, wall + started)
                    for a, lease, pid, started in table
                ],
            )
            used, wait = reference(history, now, allowed)
            assert history.used(now) == used
            assert history.wait_time(now, allowed) == wait
            assert (history.take(now, allowed) is None) == (used >= allowed)
            assert history._alone is None  # answered from the file, not a fallback

        same()
        history.close()


def test_a_long_budget_counts_as_it_did(tmp_path: Path) -> None:
    """10,000 answered requests in the budget and some in flight: the same count, and the
    one `wait_time` waits for is the same."""
    clock = [START]
    history = SharedHistory(
        tmp_path, 20_000, 60.0, 0.05, lease=30.0, clock=lambda: clock[0], wall=lambda: WALL
    )
    for n in range(10_000):
        clock[0] = START + n * 0.005
        handle = history.take(clock[0], 20_000)
        assert handle is not None
        if n % 1000:
            history.finish(clock[0], handle=handle)
    now = clock[0]
    for allowed in (1, 9_980, 9_990, 9_995, 10_000, 10_001):
        assert (history.used(now), history.wait_time(now, allowed)) == reference(
            history, now, allowed
        )
    # 10 in flight (the 0th, 1,000th, ...): of 10,000 in the budget, 9,988 allowed: the 13th
    # answer to leave, the 13th request's, must leave first
    assert history.wait_time(now, 9_988) == pytest.approx(START + 13 * 0.005 + 60.05 - now)
    history.close()


def test_the_answered_rows_are_counted_over_their_index(tmp_path: Path) -> None:
    """The count and the n-th answer walk the index on `answered`, never the table."""
    history = SharedHistory(tmp_path, 10, 60.0, clock=lambda: START, wall=lambda: WALL)
    order = " ORDER BY answered LIMIT ?5 OFFSET ?6"
    for sql, args in (
        (request_history._COUNTED, (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7)),
        ("SELECT answered " + request_history._ANSWERED + order, (1.0, 2.0, 3.0, 4.0, 1, 0)),
    ):
        plan = [row[3] for row in history._db.execute("EXPLAIN QUERY PLAN " + sql, args)]
        assert "SEARCH request_history USING COVERING INDEX request_history_answered" in (
            " ".join(plan)
        ), plan
        assert not any(step.startswith("SCAN") for step in plan), plan
    history.close()
