"""`showdesk sync` and `showdesk push` SIGKILLed at random moments: after every kill the cache
passes `PRAGMA integrity_check` and the outbox holds every change as it was queued; continuing
ends in the same state as an uninterrupted run."""

from __future__ import annotations

import json
import random
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.api.registry import default_registry
from app.sim import SimConfig, SimServer, generate_show
from app.store.cache import Cache
from app.store.outbox import Outbox
from app.sync.edit.editor import Editor, FieldEdit
from tests.reliability.edits import queue_edits, undated
from tests.reliability.levels import Level
from tests.reliability.processes import command, environment, integrity, kill_during, run, scalar
from tests.reliability.tally import Tally

SECRET = "crash-secret"
Snapshot = dict[int, tuple[Any, ...]]


def serve(size: int) -> SimServer:
    config = SimConfig(show_id="CRASH-SHOW", client_secret=SECRET, throttle=False)
    return SimServer(generate_show(size, seed=4), config)


@pytest.fixture
def server(strength: Level) -> Iterator[SimServer]:
    with serve(strength.crash_customers) as running:
        yield running


def outbox_of(cache: Path) -> Path:
    return cache.with_name(cache.stem + ".outbox.sqlite")  # where --cache puts it


def snapshot(outbox: Path) -> Snapshot:
    """Every change as queued (what a crash must never alter), by seq."""
    conn = sqlite3.connect(outbox)
    try:
        rows = conn.execute("SELECT seq, resource, op, record_id, payload, base FROM changes")
        return {row[0]: tuple(row[1:]) for row in rows}
    finally:
        conn.close()


def done(outbox: Path) -> int:
    return int(scalar(outbox, "SELECT count(*) FROM changes WHERE state = 'done'") or 0)


def cached(cache: Path) -> dict[tuple[str, str, str], Any]:
    """Every cached record, by (resource, parent, id), without `modifiedDate` (`undated`)."""
    conn = sqlite3.connect(cache)
    try:
        rows = conn.execute("SELECT resource, parent, id, json FROM records")
        return {(r, p, i): undated(json.loads(j)) for r, p, i, j in rows}
    finally:
        conn.close()


def change_the_show(server: SimServer, turn: int) -> None:
    """Someone else at work on the show between two runs (changes and new records)."""
    show = server.show
    with show.lock:
        for record in show.records("customers")[turn * 3 : turn * 3 + 3]:
            show.replace("customers", record["id"], {**record, "city": f"Moved {turn}"})
        show.add("brands", {"brandID": f"CRASH-B{turn}", "name": f"Brand {turn}"})


def assert_intact(cache: Path, outbox: Path, queued: Snapshot, when: str) -> None:
    assert integrity(cache) == "ok", when
    assert integrity(outbox) == "ok", when
    assert snapshot(outbox) == queued, f"{when}: the outbox changed beyond its states"


def test_sync_killed_at_random_moments_resumes_to_the_same_cache(
    server: SimServer, strength: Level, tally: Tally, tmp_path: Path
) -> None:
    cache = tmp_path / "killed" / "cache.sqlite"
    outbox = outbox_of(cache)
    assert run(server, cache, "sync", "--resource", "customers").returncode == 0
    registry = default_registry()
    with Cache(cache, registry) as store, Outbox(outbox) as changes:  # edits waiting to go
        editor = Editor(store, changes, registry)
        first = server.show.records("customers")[:5]
        editor.stage("customers", [FieldEdit(r["id"], "city", "Pending") for r in first])
    queued = snapshot(outbox)

    argv = command(server, cache, "sync", "--full", "--rate", "20/0.1")
    rng, kills = random.Random(31), 0
    while kills < strength.sync_kills:
        change_the_show(server, kills)
        progress = lambda: scalar(cache, "SELECT max(fetched_at) FROM records")  # noqa: E731
        if not kill_during(argv, environment(server), progress, rng, window=1.5):
            break
        kills += 1
        assert_intact(cache, outbox, queued, f"after kill {kills}")
    assert kills == strength.sync_kills, "the sync finished too soon to be killed so often"

    # continuing: incremental where a resource completed (paced as fast as the kills, so that
    # the whole show's sync does not wait for the 300-per-minute budget: pacing is not the point)
    finished = run(server, cache, "sync", "--rate", "20/0.1")
    assert finished.returncode == 0, finished.stderr
    reference = tmp_path / "uninterrupted" / "cache.sqlite"
    assert run(server, reference, "sync", "--rate", "20/0.1").returncode == 0
    assert cached(cache) == cached(reference)
    assert_intact(cache, outbox, queued, "at the end")
    tally.add("crash", kills_survived=kills)


def test_push_killed_at_random_moments_converges_to_an_uninterrupted_push(
    strength: Level, tally: Tally, tmp_path: Path
) -> None:
    edits = strength.push_kills * 20
    with serve(max(300, edits)) as server, serve(max(300, edits)) as twin:
        killed = tmp_path / "killed" / "cache.sqlite"
        calm = tmp_path / "uninterrupted" / "cache.sqlite"
        for show, cache in ((server, killed), (twin, calm)):
            queue(show, cache, edits)
        queued = snapshot(outbox_of(killed))

        argv = command(server, killed, "push", "--rate", "3/0.1")
        rng, kills, seen = random.Random(20), 0, 0
        while kills < strength.push_kills:
            if not kill_during(argv, environment(server), lambda: done(outbox_of(killed)), rng,
                               window=0.3):  # fmt: skip
                break
            kills += 1
            assert_intact(killed, outbox_of(killed), queued, f"after kill {kills}")
            assert done(outbox_of(killed)) >= seen, "a change went back from done"
            seen = done(outbox_of(killed))
        assert kills == strength.push_kills, "the push finished too soon to be killed so often"

        for show, cache in ((server, killed), (twin, calm)):
            pushed = run(show, cache, "push", "--retry-failed")
            assert pushed.returncode == 0, pushed.stdout + pushed.stderr
        assert states(outbox_of(killed)) == states(outbox_of(calm)) == {"done": edits}
        assert server.stats.duplicates() == {} and twin.stats.duplicates() == {}
        for slug, key in (("customers", "customerID"), ("orders", "id")):
            assert contents(server, slug, key) == contents(twin, slug, key), slug
    tally.add("crash", kills_survived=kills, edits_pushed=edits, lost=0, duplicated=0)


def queue(server: SimServer, cache: Path, edits: int) -> None:
    """The show cached (customers, order lines) and `edits` edits staged through the Editor:
    customer updates and creates, order-line updates (no order-line creates: see
    test_an_interrupted_order_line_create_is_looked_up)."""
    registry = default_registry()
    with Cache(cache, registry) as store, Outbox(outbox_of(cache)) as outbox:
        for slug in ("customers", "orders"):
            store.upsert(slug, server.show.records(slug))
        expected = queue_edits(Editor(store, outbox, registry), server, edits, clean=True)
        assert len(expected) == edits


def states(outbox: Path) -> dict[str, int]:
    conn = sqlite3.connect(outbox)
    try:
        return dict(conn.execute("SELECT state, count(*) FROM changes GROUP BY state").fetchall())
    finally:
        conn.close()


def contents(server: SimServer, slug: str, key: str) -> dict[str, dict[str, Any]]:
    """A resource's records by `key`, without what the server stamps (ids of new records and
    of nested elements, modification times: they differ between two runs)."""
    with server.show.lock:
        return {str(r[key]): unstamped(r) for r in server.show.records(slug)}


def unstamped(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: unstamped(v) for k, v in value.items() if k not in ("modifiedDate", "id")}
    if isinstance(value, list):
        return [unstamped(v) for v in value]
    return value
