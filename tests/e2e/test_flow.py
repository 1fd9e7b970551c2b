"""Day one, end to end: the `showdesk` commands as a show administrator runs them, against every
server shape the simulator plays (app/sim/presets.py) and against an independent fake server
(tests/e2e/plain_server.py) that shares no code with `app/`.

The flow: sync → the server changes some records, adds some, deletes one → an incremental sync,
then the cache equals the server (the deleted record still cached: an incremental listing cannot
see a deletion) → a full sync, then it equals the server → export customers, change the city of
40 rows and add 5 new rows, change 2 warehouses → import → push → each edit applied once, each
create made exactly once, nothing pending. "Equals the server": the same record ids, and every
field the server lists holds the same value in the cache (`modifiedDate` aside: a strict server
leaves it out of full lists).

Commands run in this process through `app.cli.main` (tests/e2e/desk.py), with SHOWDESK_HOME in
the test's folder and the secret in SHOWDESK_CLIENT_SECRET, as a scheduled job would set them.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from app.api.registry import default_registry
from app.sim import SimServer, generate_show
from app.sim.presets import PRESETS, config_for
from tests.e2e.desk import Outcome, Showdesk, outbox
from tests.e2e.plain_server import PlainServer
from tests.e2e.targets import Record, Target, plain_target, sim_target

PLAIN = "plain-server"
SYNCED = ("customers", "warehouses", "brands")
EDITS, CREATES, WAREHOUSE_EDITS = 40, 5, 2


@dataclass(frozen=True)
class Expect:
    """What a shape allows the flow to end with (the issue's per-shape outcomes)."""

    not_offered: tuple[str, ...] = ()  # synced too; the server answers 404: a warning, exit 0
    sync_all: bool = False  # `showdesk sync` of every resource, as a new user's first one is
    denied: frozenset[str] = frozenset()  # writes answered 403 "not allowed": failed, exit 1
    check_first: bool = False  # apply what `showdesk check` suggests before the first sync


EXPECT: dict[str, Expect] = {
    "missing-resources": Expect(not_offered=("brokers",)),
    "deny-writes": Expect(denied=frozenset({"customers"})),
    "renamed-paths": Expect(check_first=True),
    # Serves customers, warehouses and brands only: every other list answers 404.
    PLAIN: Expect(not_offered=("brokers", "products", "orders"), sync_all=True),
}
# No rate-limit waits in `make test`, except where the shape is the rate limit itself.
FLOW_SWITCHES: dict[str, dict[str, Any]] = {
    "shared-window": {},
    "retry-after": {"rate_limit": 60, "rate_window": 3.0},
}

# Every shape the simulator can play, and the server that shares no code with app/.
SHAPES = [*PRESETS, PLAIN]


@contextmanager
def running(shape: str, customers: int = 60, seed: int = 12) -> Iterator[PlainServer | SimServer]:
    """The server playing `shape`: the plain server, or the simulator with that preset (its
    show generated for `customers`)."""
    if shape == PLAIN:
        plain = PlainServer().start()
        try:
            yield plain
        finally:
            plain.stop()
        return
    switches = FLOW_SWITCHES.get(shape, {"throttle": False})
    config = config_for([shape], show_id="E2E-SHOW", client_secret="e2e-secret", **switches)
    with SimServer(generate_show(customers, seed=seed), config) as server:
        yield server


@contextmanager
def serving(shape: str) -> Iterator[Target]:
    with running(shape) as server:
        if isinstance(server, PlainServer):
            yield plain_target(server)
        else:
            yield sim_target(server, shape)


@pytest.mark.parametrize("shape", SHAPES)
def test_day_one_flow(
    shape: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SHOWDESK_HOME", str(tmp_path / "showdesk"))
    with serving(shape) as target:
        monkeypatch.setenv("SHOWDESK_CLIENT_SECRET", target.secret)
        run_flow(Showdesk(target, capsys, tmp_path), EXPECT.get(shape, Expect()))


def run_flow(showdesk: Showdesk, expect: Expect) -> None:
    target = showdesk.target
    if expect.check_first:
        apply_check_suggestions(showdesk)
    named = () if expect.sync_all else (*SYNCED, *expect.not_offered)
    sync_args = [a for slug in named for a in ("--resource", slug)]
    synced = showdesk("sync", *sync_args)
    assert synced.code == 0, synced.text
    for slug in expect.not_offered:
        assert _says_not_offered(synced, slug), synced.text
    assert_cache_equals(showdesk)

    gone = change_server_side(target)
    incremental = showdesk("sync", *sync_args)
    assert incremental.code == 0, incremental.text
    assert_cache_equals(showdesk, still_cached={"customers": {gone}})
    full = showdesk("sync", "--full", *sync_args)
    assert full.code == 0, full.text
    assert_cache_equals(showdesk)

    before = {slug: target.by_id(slug) for slug in ("customers", "warehouses")}
    cities = edit_and_import(showdesk, "customers", EDITS, CREATES)
    cities.update(edit_and_import(showdesk, "warehouses", WAREHOUSE_EDITS, 0))
    pushed = showdesk("push")
    for slug in ("customers", "warehouses"):
        mine = {k: v for k, v in cities.items() if k[0] == slug}
        if slug in expect.denied:
            assert_refused(showdesk, pushed, slug, before[slug], mine)
        else:
            assert_applied_once(target, slug, before[slug], mine, pushed)
    if expect.denied:
        assert pushed.code == 1, pushed.text
        return
    assert pushed.code == 0, pushed.text
    assert outbox(showdesk) == {"pending": 0, "failed": 0, "conflict": 0}


def apply_check_suggestions(showdesk: Showdesk) -> None:
    """What an administrator does with a renamed path: run `showdesk check`, then use the
    overrides it suggests as the profile's `api-overrides.toml`. (lead: the one step to adapt to
    how `showdesk check` ends up reporting.)"""
    report = showdesk("check")
    overrides = showdesk.profile.overrides_path
    suggested = overrides.with_name("api-overrides.suggested.toml")
    assert suggested.exists(), "showdesk check wrote no suggestion\n" + report.text
    overrides.write_text(suggested.read_text(encoding="utf-8"), encoding="utf-8")


def _says_not_offered(outcome: Outcome, slug: str) -> bool:
    """A line names the resource (by slug or title, any case) and says it is not offered."""
    names = (slug, default_registry()[slug].title.casefold())
    lines = (outcome.out + outcome.err).casefold().splitlines()
    return any("not offered" in line and any(n in line for n in names) for line in lines)


def change_server_side(target: Target) -> Any:
    """Another user's day: 3 customers renamed, 3 added, 1 deleted, a warehouse described anew.
    Answers the id of the deleted customer."""
    customers = target.records("customers")
    for record in customers[1:4]:
        target.change("customers", record["id"], {"customerName": f"{record['customerName']} II"})
    for n in range(3):
        fields = {"customerID": f"SRV-{n}", "customerName": f"Walk-in {n}", "city": "Salem"}
        target.add("customers", fields)
    target.delete("customers", customers[0]["id"])
    depot = target.records("warehouses")[0]
    target.change("warehouses", depot["id"], {"description": "Moved depot"})
    return customers[0]["id"]


def assert_cache_equals(
    showdesk: Showdesk, still_cached: dict[str, set[Any]] | None = None
) -> None:
    """The cache holds the server's records: same ids, same values of every listed field."""
    for slug in SYNCED:
        server = showdesk.target.by_id(slug)
        cache = {r["id"]: r for r in showdesk.cached(slug)}
        extra = (still_cached or {}).get(slug, set())
        assert set(cache) == set(server) | extra, f"{slug}: ids differ from the server's"
        differ = [
            (record_id, name, cache[record_id].get(name), value)
            for record_id, record in server.items()
            for name, value in record.items()
            if name != "modifiedDate" and cache[record_id].get(name) != value
        ]
        assert not differ, f"{slug}: (id, field, cached, server) {differ[:5]} of {len(differ)}"


def edit_and_import(
    showdesk: Showdesk, slug: str, edits: int, creates: int
) -> dict[tuple[str, str], str]:
    """Export `slug` to CSV, change the city of `edits` rows, add `creates` rows, import it.
    Answers the city each edited or new record must end with, by (slug, id text or key)."""
    path = showdesk.folder / f"{slug}.csv"
    exported = showdesk("export", slug, "-o", str(path))
    assert exported.code == 0, exported.text
    with path.open(encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        columns, rows = list(reader.fieldnames or ()), list(reader)
    wanted: dict[tuple[str, str], str] = {}
    for n, row in enumerate(rows[:edits]):
        row["city"] = wanted[(slug, row["id"])] = f"Edited city {n}"
    for n in range(creates):
        key = f"NEW-{n}"
        rows.append({"customerID": key, "customerName": f"New shop {n}", "city": f"New city {n}"})
        wanted[(slug, key)] = f"New city {n}"
    with path.open("w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, columns, restval="")
        writer.writeheader()
        writer.writerows(rows)
    imported = showdesk("import", slug, str(path))
    assert imported.code == 0, imported.text
    assert f"{creates} to create, {edits} to update" in imported.out, imported.text
    return wanted


def assert_applied_once(
    target: Target,
    slug: str,
    before: dict[Any, Record],
    wanted: dict[tuple[str, str], str],
    pushed: Outcome,
) -> None:
    """Each edit landed with one PUT and changed nothing else; each create made one record."""
    after = {str(k): v for k, v in target.by_id(slug).items()}
    old = {str(k): v for k, v in before.items()}
    edited = [key for (_, key) in wanted if key in old]
    for record_id in edited:
        assert after[record_id]["city"] == wanted[(slug, record_id)], f"{slug} {record_id}\n" + (
            pushed.text
        )
        assert _rest(after[record_id]) == _rest(old[record_id]), f"{slug} {record_id} changed"
    assert target.puts(slug) == len(edited), f"{slug}: PUTs for {len(edited)} edits"
    for key in (key for (_, key) in wanted if key not in old):
        found = target.find(slug, "customerID", key)
        assert [r["city"] for r in found] == [wanted[(slug, key)]], f"{key}\n{pushed.text}"
        assert target.creates(slug, key) == 1, f"{slug} {key} created more or less than once"


def _rest(record: Record) -> Record:
    """A record but its city, its empty fields (a field holding null and a field left out both
    hold nothing: a PUT leaves out what nobody set) and the server-owned ids of its ordering
    groups (a PUT sends the groups without them: the server may give them new ones)."""
    rest = {k: v for k, v in record.items() if k != "city" and v is not None}
    if isinstance(rest.get("orderingGroups"), list):
        rest["orderingGroups"] = [
            {k: v for k, v in g.items() if k != "id"} if isinstance(g, dict) else g
            for g in rest["orderingGroups"]
        ]
    return rest


def assert_refused(
    showdesk: Showdesk,
    pushed: Outcome,
    slug: str,
    before: dict[Any, Record],
    wanted: dict[tuple[str, str], str],
) -> None:
    """Writes the server refuses: each change failed with its words, kept, the server unchanged."""
    assert showdesk.target.by_id(slug) == before
    refused = [line for line in pushed.err.splitlines() if "not allowed" in line]
    assert len(refused) == len(wanted), pushed.text
    assert outbox(showdesk) == {"pending": 0, "failed": len(wanted), "conflict": 0}
