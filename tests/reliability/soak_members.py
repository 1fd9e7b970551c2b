"""The members of the team soak (tests/reliability/test_team_soak.py): each a thread running one
real `showdesk` command after another, at random, as an administrator at their desk would.

A `Soaker` loops over rounds until told to stop: sometimes a `showdesk sync` of the customers
(now and then `--full`), then the same number of edits every round — on records of its own (its
own field), on records the team shares (its own field there too, and `city`, which teammates set
as well), and one new customer — queued through `showdesk import` of CSV files or straight into
its outbox (`outbox_edits.queue`, as its window would), then `showdesk push`. Every value it
writes is unique (`ann-17`), so the show's record of writes tells each edit apart. `current` is
the command running now, for the soak's faults to SIGKILL.
"""

from __future__ import annotations

import csv
import json
import random
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from app.sync.edit.editor import FieldEdit
from tests.team.members import TeamMember
from tests.team.outbox_edits import queue

SHARED_FIELD = "city"  # the field every member sets on the shared records: same-field races
COMMAND_TIMEOUT = 900.0  # a push may wait out a dead teammate's lease and a database restart


@dataclass(frozen=True)
class Round:
    """What one round queues: the same for every member, so their demand on the team is alike."""

    own: int  # edits of the member's own records (its own field)
    shared: int  # edits of shared records, in the member's own field
    same_field: int  # edits of shared records' `city`
    creates: int  # new customers


@dataclass(frozen=True)
class Edit:
    """One edit a member queued: `record` is the record's id, or a new customer's `customerID`."""

    member: str
    record: str
    field: str
    value: str
    create: bool = False


@dataclass(frozen=True)
class Ran:
    """How one command ended (`killed`: by the soak's SIGKILL)."""

    member: str
    command: str
    code: int
    killed: bool
    stdout: str
    stderr: str
    started: float  # time.monotonic() when it started
    ended: float  # and when it ended


class Command:
    """One `showdesk` command of a member, its output in files (read while it runs)."""

    def __init__(self, member: TeamMember, args: tuple[str, ...], files: Path) -> None:
        self.member = member
        self.what = args[0]
        self.killed = False
        self.started = time.monotonic()
        self.out, self.err = files.with_suffix(".out"), files.with_suffix(".err")
        with self.out.open("w") as out, self.err.open("w") as err:
            self.process = subprocess.Popen(
                member.argv(*args), env=member.env(), text=True, stdout=out, stderr=err
            )

    @property
    def running(self) -> bool:
        return self.process.poll() is None

    def said(self, text: str) -> bool:
        return text in self.err.read_text(encoding="utf-8", errors="replace")

    def kill(self) -> None:
        self.killed = True
        self.process.send_signal(signal.SIGKILL)

    def wait(self) -> Ran:
        try:
            code = self.process.wait(timeout=COMMAND_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise
        said = [p.read_text(encoding="utf-8", errors="replace") for p in (self.out, self.err)]
        return Ran(self.member.name, self.what, code, self.killed, said[0], said[1], self.started,
                   time.monotonic())  # fmt: skip


class Soaker(threading.Thread):
    """One member's loop; `edits` is what it queued, `ran` how each command ended."""

    def __init__(
        self,
        member: TeamMember,
        field: str,
        records: tuple[list[str], list[str]],  # (its own records' ids, the shared ones')
        keys: dict[str, tuple[str, str]],  # record id → (customerID, customerName)
        shape: Round,
        rate: tuple[str, ...],
        keep_going: Callable[[], bool],
    ) -> None:
        super().__init__(name=f"soak-{member.name}", daemon=True)
        self.member, self.field, self.shape = member, field, shape
        self.keys = {rid: key for rid, (key, _) in keys.items()}
        self.names = {rid: name for rid, (_, name) in keys.items()}
        self.own, self.shared = records
        self.rate, self.keep_going = rate, keep_going
        self.rng = random.Random(f"team-soak-{member.name}")
        self.folder = member.home / "commands"
        self.folder.mkdir(exist_ok=True)
        self.current: Command | None = None
        self.edits: list[Edit] = []
        self.ran: list[Ran] = []
        self.rounds = 0
        self.failure: BaseException | None = None
        self._written = self._files = 0

    def run(self) -> None:
        try:
            while self.keep_going():
                self.round()
        except BaseException as failure:  # the test reports it after join()
            self.failure = failure

    def round(self) -> None:
        if self.rng.random() < 0.3:
            full = ("--full",) if self.rng.random() < 0.3 else ()
            self.command("sync", "--resource", "customers", *full)
        edits, creates = self.draw()
        if self.rng.random() < 0.5:
            self.imported(edits, creates)
        else:
            queue(self.member, [FieldEdit(e.record, e.field, e.value) for e in edits],
                  [{"customerID": c.record, "customerName": c.record, self.field: c.value}
                   for c in creates])  # fmt: skip
            self.edits += edits + creates
        self.command("push")
        self.rounds += 1

    def command(self, *args: str) -> Ran:
        files = self.folder / f"{len(self.ran):04d}-{args[0]}"
        self.current = Command(self.member, (*args, *self.rate), files)
        try:
            ran = self.current.wait()
        finally:
            self.current = None
        self.ran.append(ran)
        return ran

    def value(self) -> str:
        self._written += 1
        return f"{self.member.name}-{self._written}"

    def draw(self) -> tuple[list[Edit], list[Edit]]:
        """This round's edits (own records in turn, shared ones at random) and new customers."""
        name, shape, rng = self.member.name, self.shape, self.rng
        start = self.rounds * shape.own
        own = [self.own[(start + i) % len(self.own)] for i in range(shape.own)]
        shared = rng.sample(self.shared, shape.shared)
        raced = rng.sample(self.shared, shape.same_field)
        edits = [Edit(name, rid, self.field, self.value()) for rid in own + shared]
        edits += [Edit(name, rid, SHARED_FIELD, self.value()) for rid in raced]
        creates = [Edit(name, f"S-{v}", self.field, v, create=True)
                   for v in (self.value() for _ in range(shape.creates))]  # fmt: skip
        return edits, creates

    def imported(self, edits: list[Edit], creates: list[Edit]) -> None:
        """The edits as CSV files imported with `showdesk import`: the member's own field and the
        new customers in one (nobody edits `customerName`: its column changes nothing on the
        existing records), `city` in a second one half the time (else queued); what an import
        queued goes into `edits`."""
        own = [e for e in edits if e.field == self.field]
        raced = [e for e in edits if e.field != self.field]
        table = [["customerID", "customerName", self.field]]
        table += [[self.keys[e.record], self.names[e.record], e.value] for e in own]
        table += [[c.record, c.record, c.value] for c in creates]
        files = [(self.csv(table), own + creates)]
        if raced and self.rng.random() < 0.5:
            table = [["customerID", SHARED_FIELD]] + [[self.keys[e.record], e.value] for e in raced]
            files.append((self.csv(table), raced))
        elif raced:
            queue(self.member, [FieldEdit(e.record, e.field, e.value) for e in raced])
            self.edits += raced
        for path, rows in files:
            ran = self.command("import", "customers", str(path), "--json")
            out = (self.folder / f"{len(self.ran) - 1:04d}-import.out").read_text(encoding="utf-8")
            queued = json.loads(out).get("queued", 0) if out.strip() else 0
            if ran.code == 0 and queued == len(rows):
                self.edits += rows
            elif queued:  # an import queues all of its file or nothing
                raise AssertionError(f"{self.member.name}: {queued} of {len(rows)} queued: {ran}")

    def csv(self, table: list[list[str]]) -> Path:
        self._files += 1
        path = self.folder / f"edits-{self._files:04d}.csv"
        with path.open("w", newline="", encoding="utf-8") as file:
            csv.writer(file).writerows(table)
        return path
