"""The one property ShowDesk is held to over the space of server shapes (issue 28, point 7).

`run_shape(shape, ...)` plays a show administrator's day with the real `showdesk` commands against
the plain server playing `shape`, and judges every command by what the server holds:

1. `sync` (the first), then another user's changes and an incremental `sync`, then a full sync
   while the shape's churn deletes and creates customers under the listing, then (if anything
   churned or was incomplete) a calm full sync;
2. an import of changed cities and emails and a few new customers, then `push`.

After any sync the cache equals the server's records, or the command exited non-zero naming the
resource that is incomplete; and whatever the exit code, a record that still exists on the server
(and was cached before) is never deleted from the cache. (An incremental listing cannot see a
deletion; a listing cannot see a record deleted after it was listed or created before its cursor:
those are allowed, nothing else.) After the push every edit is applied on the server exactly once
(its writes counted per record, its creates per key) or reported failed with the server's words,
the audit log says "applied" only of what the server holds, and the exit code is 0 exactly when
everything was applied. A *silent failure* is a command whose exit code said success while the
cache or the server disagreed: `Verdict.silent` counts them; `Verdict.problems` says every
breach, each with the shape and its seed for replaying (`SHOWDESK_SHAPE_SEED`).
"""

from __future__ import annotations

import csv
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from app.api.registry import default_registry
from app.store.cache import Cache
from app.store.outbox import Outbox
from tests.e2e.desk import Outcome, Showdesk
from tests.e2e.plain_server import SECRET, PlainServer, PlainShow
from tests.e2e.plain_writes import REFUSED, refuses
from tests.e2e.shape import NEW_KEYS, Shape
from tests.e2e.targets import plain_target

SYNCED = ("customers", "warehouses", "brands")
RESOURCE = {"customers": "customer", "warehouses": "warehouse", "brands": "brand"}
EDITS, EMAILS, CREATES = 5, 2, 3
# The budget the commands pace to: a short span, so that a throttling answer's cut of the
# allowance is waited out in seconds, not in the minute of the show's documented budget.
RATE = "120/3"
Records = dict[str, dict[Any, dict[str, Any]]]


@dataclass
class Verdict:
    """What one shape's day came to."""

    shape: Shape
    runs: int = 0  # commands judged
    silent: int = 0  # of them, exit 0 while the cache or the server disagreed
    problems: list[str] = field(default_factory=list)
    said: list[str] = field(default_factory=list)  # each command and its outcome

    def breach(self, what: str, outcome: Outcome, *, silent: bool = False) -> None:
        self.silent += int(silent and outcome.code == 0)
        self.problems.append(f"{what} [{'SILENT ' if silent and outcome.code == 0 else ''}"
                             f"exit {outcome.code}]")  # fmt: skip

    @property
    def report(self) -> str:
        lines = [self.shape.describe(), *self.problems, "--- what the commands said", *self.said]
        return "\n".join(lines)


def run_shape(
    shape: Shape, folder: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> Verdict:  # fmt: skip
    """The day of the module docstring against a fresh server playing `shape`, in `folder`."""
    monkeypatch.setenv("SHOWDESK_HOME", str(folder / "showdesk"))
    monkeypatch.setenv("SHOWDESK_CLIENT_SECRET", SECRET)
    show = PlainShow(shape=shape)
    server = PlainServer(show).start()
    try:
        day = Day(show, Showdesk(plain_target(server), capsys, folder), Verdict(shape))
        day.run()
        return day.verdict
    finally:
        server.stop()


@dataclass
class Day:
    show: PlainShow
    desk: Showdesk
    verdict: Verdict

    def run(self) -> None:
        first = self.sync()
        self.judge_sync(first, {})
        before = self.cached()
        gone = self.other_users_day()
        incremental = self.sync()
        self.judge_sync(incremental, before, may_keep={"customers": {gone}})
        before, self.show.churn_armed = self.cached(), True
        churned = self.sync("--full")
        self.show.churn_armed = False
        self.judge_sync(churned, before, churned=True)
        if churned.code != 0 or any(self.show.churned.values()):
            calm = self.sync("--full")
            self.judge_sync(calm, self.cached())
        self.edit_and_push()

    # ------------------------------------------------------------------ commands

    def command(self, *args: str) -> Outcome:
        started = time.monotonic()
        outcome = self.desk(*args)
        took = time.monotonic() - started
        text = (outcome.out + outcome.err).strip().replace("\n", "\n    ")
        self.verdict.said.append(
            f"$ showdesk {' '.join(args)}  → exit {outcome.code} in {took:.1f} s\n    {text}"
        )
        return outcome

    def sync(self, *args: str) -> Outcome:
        named = (a for slug in SYNCED for a in ("--resource", slug))
        return self.command("sync", *args, *named, "--rate", RATE)

    def other_users_day(self) -> Any:
        """3 customers renamed, 2 added, 1 deleted, a warehouse described anew; answers the id
        of the deleted customer."""
        customers = self.show.records("customer")
        for record in customers[1:4]:
            self.show.change("customer", record["id"], {"customerName": "Renamed"})
        for n in range(2):
            self.show.add("customer", {"customerID": f"SRV-{n}", "customerName": f"Walk-in {n}"})
        self.show.delete("customer", customers[0]["id"])
        depot = self.show.records("warehouse")[0]
        self.show.change("warehouse", depot["id"], {"description": "Moved depot"})
        return customers[0]["id"]

    # ------------------------------------------------------------------ the truth

    def server(self) -> Records:
        return {slug: {r["id"]: r for r in self.show.records(RESOURCE[slug])} for slug in SYNCED}

    def cached(self) -> Records:
        cache = Cache(self.desk.profile.cache_path, default_registry())
        try:
            return {slug: {r["id"]: r for r in cache.records(slug)} for slug in SYNCED}
        finally:
            cache.close()

    def judge_sync(
        self, outcome: Outcome, before: Records, *, may_keep: dict[str, set[Any]] | None = None,
        churned: bool = False,
    ) -> None:  # fmt: skip
        """The cache equals the server, or the exit code is not 0 and names the resource; a
        record still on the server is never taken out of the cache."""
        self.verdict.runs += 1
        server, cache = self.server(), self.cached()
        deleted = set(self.show.churned["deleted"]) if churned else set()
        created = set(self.show.churned["created"]) if churned else set()
        for slug in SYNCED:
            lost = [i for i in before.get(slug, {}) if i in server[slug] and i not in cache[slug]]
            if lost:
                self.verdict.breach(f"sync: {slug} {lost[:3]} still on the show, taken out of "
                                    "the cache", outcome, silent=True)  # fmt: skip
            kept = (may_keep or {}).get(slug, set()) | deleted
            missing = set(server[slug]) - set(cache[slug]) - created
            extra = set(cache[slug]) - set(server[slug]) - kept
            differ = [(i, name) for i in set(server[slug]) & set(cache[slug])
                      for name, value in server[slug][i].items()
                      if name != "modifiedDate" and cache[slug][i].get(name) != value]  # fmt: skip
            if not (missing or extra or differ):
                continue
            wrong = f"{len(missing)} missing, {len(extra)} extra, {len(differ)} fields differ"
            if outcome.code == 0:
                self.verdict.breach(f"sync said done: {slug} {wrong} {differ[:3]}", outcome,
                                    silent=True)  # fmt: skip
            elif not _names(outcome, slug):
                self.verdict.breach(f"sync failed without naming {slug} ({wrong})", outcome)

    def edit_and_push(self) -> None:
        path = self.desk.folder / "customers.csv"
        exported = self.command("export", "customers", "-o", str(path))
        if exported.code != 0:
            return
        with path.open(encoding="utf-8", newline="") as f:
            reader = csv.DictReader(f)
            columns, rows = list(reader.fieldnames or ()), list(reader)
        edits = self.edit(rows)
        for key in NEW_KEYS[:CREATES]:
            rows.append({"customerID": key, "customerName": f"New {key}", "city": f"City {key}"})
        with path.open("w", encoding="utf-8", newline="") as f:
            writer = csv.DictWriter(f, columns, restval="")
            writer.writeheader()
            writer.writerows(rows)
        imported = self.command("import", "customers", str(path))
        if imported.code != 0:
            return  # (a listing left incomplete: the import may refuse to guess)
        before = self.server()["customers"]
        writes_before = dict(self.show.writes)
        self.judge_push(self.command("push", "--rate", RATE), before, edits, writes_before)

    def edit(self, rows: list[dict[str, str]]) -> dict[str, dict[str, str]]:
        """Change the city of EDITS rows, and the email of EMAILS of them; by id text."""
        edits: dict[str, dict[str, str]] = {}
        for n, row in enumerate(rows[:EDITS]):
            fields = {"city": f"Edited city {n}"}
            if n < EMAILS:
                fields["email"] = f"edited{n}@example.org"
            row.update(fields)
            edits[row["id"]] = fields
        return edits

    def judge_push(
        self, pushed: Outcome, before: dict[Any, dict[str, Any]], edits: dict[str, dict[str, str]],
        writes_before: dict[tuple[str, Any], int],
    ) -> None:  # fmt: skip
        self.verdict.runs += 1
        after = self.server()["customers"]
        ids = {str(i): i for i in before}
        applied = self._audited_applied()
        landed_all = True
        for text_id, fields in edits.items():
            record_id = ids[text_id]
            writes = self.show.writes[("customer", record_id)] - writes_before.get(
                ("customer", record_id), 0)  # fmt: skip
            if writes > 1:
                self.verdict.breach(f"push: customer {text_id} written {writes} times", pushed)
            for name, value in fields.items():
                landed = after[record_id].get(name) == value
                landed_all = landed_all and landed
                said = (text_id, name) in applied
                if said and not landed:
                    held = after[record_id].get(name)
                    self.verdict.breach(f"push: {text_id}.{name} logged applied, the show holds "
                                        f"{held!r}", pushed, silent=True)  # fmt: skip
                if not landed and refuses(self.show.shape, record_id) and REFUSED not in (
                        pushed.out + pushed.err):  # fmt: skip
                    self.verdict.breach(f"push: {text_id} refused, the show's words unsaid", pushed)
        for key in NEW_KEYS[:CREATES]:
            made = self.show.creates[("customer", key)]
            if made > 1:
                self.verdict.breach(f"push: {key} created {made} times", pushed)
            landed_all = landed_all and made == 1
        if pushed.code == 0 and not landed_all:
            self.verdict.breach("push said done, not everything is on the show", pushed,
                                silent=True)  # fmt: skip
        if pushed.code != 0 and landed_all and not self._anything_unsettled():
            self.verdict.breach("push exited non-zero though everything landed", pushed)
        if pushed.code == 0:
            self.judge_sync(pushed, {})  # after a push that said done, the cache is the show's

    def _audited_applied(self) -> set[tuple[str, str | None]]:
        box = Outbox(self.desk.profile.outbox_path)
        try:
            rows = box.audit_rows("customers")
        finally:
            box.close()
        return {(str(r.record_id), r.field) for r in rows if r.result == "applied"}

    def _anything_unsettled(self) -> bool:
        status = self.desk("status", "--json")
        counts = json.loads(status.out.splitlines()[-1])["outbox"] if status.code == 0 else {}
        return any(counts.get(state, 1) for state in ("pending", "failed", "conflict"))


def _names(outcome: Outcome, slug: str) -> bool:
    """The output names the resource, by slug or title."""
    text = (outcome.out + outcome.err).casefold()
    return slug in text or default_registry()[slug].title.casefold() in text
