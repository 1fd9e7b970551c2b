"""Which operations the show refuses for good: a permission 403 told apart from throttling.

API.md: a 403 means the rate limit was hit unless proven otherwise, and this process's own
request count proves nothing (the show's budget also holds other processes' and other admins'
requests). Two proofs, both per operation (method + path template, e.g. `PUT /Customer/{id}`):

- the body says in words that it is a permission matter (`app.api.pacing.says_permission`):
  that request fails with the server's words; two such refusals in a row, with no success of the
  operation between them, prove the operation denied;
- the operation keeps being refused while other requests of the profile succeed: a refusal that
  is followed by the success of another operation *sent after it* is "vouched" (the show was
  answering, just not this); after two vouched refusals the next refusal proves it denied. (The
  RateGovernor's probe after a pause — one small GET — supplies that success when nothing else
  is being sent.)

Once an operation is proven denied its further requests fail at once, without being sent. An
operation never yet seen to succeed goes a few requests at a time ("on trial"), so 40 writes the
show refuses cost a handful of requests instead of 40 (or, misread as throttling, 300).
Pure bookkeeping: no I/O, no clock; send numbers (`seq`) order the requests.

`UnprovenCuts` keeps what each throttling cut of the allowance rested on (the operations whose
403s made or joined it) until a proof tells: a cut whose 403s all turn out to be denials was a
misreading, and the governor undoes it (app/api/pauses.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from app.api.pacing import CutState

TRIAL = 2  # requests in flight at once for an operation not yet seen to succeed
WORDED_PROOF = 2  # refusals in a row saying "not allowed" that prove the operation denied
VOUCHED_PROOF = 2  # refusals vouched by another operation's success before one proves it


@dataclass
class _Operation:
    successes: int = 0
    in_flight: int = 0
    refused_seq: int | None = None  # the latest refusal not yet vouched for
    refusals: int = 0  # refused in a row
    vouched: int = 0
    worded: int = 0
    denied: str | None = None  # the server's words, once proven


class Denials:
    """What the show answered each operation of one profile, and which ones it refuses."""

    def __init__(
        self,
        trial: int = TRIAL,
        worded_proof: int = WORDED_PROOF,
        vouched_proof: int = VOUCHED_PROOF,
    ) -> None:
        self.trial = trial
        self.worded_proof = worded_proof
        self.vouched_proof = vouched_proof
        self._ops: dict[str, _Operation] = {}

    def _op(self, operation: str) -> _Operation:
        return self._ops.setdefault(operation, _Operation())

    def denied(self, operation: str) -> str | None:
        """The server's words when `operation` is proven denied, else None."""
        found = self._ops.get(operation)
        return None if found is None else found.denied

    def may_send(self, operation: str) -> bool:
        """False while an operation on trial already has `trial` requests in flight (a request
        that names no operation is never held back)."""
        if not operation:
            return True
        op = self._op(operation)
        return op.successes > 0 or op.in_flight < self.trial

    def suspect(self, operation: str) -> bool:
        """Refused again after a pause and not yet vouched for: a success of something else
        would tell more. (Refused once is ordinary throttling: the retry itself will tell.)"""
        found = self._ops.get(operation)
        return found is not None and found.refused_seq is not None and found.refusals >= 2

    def sent(self, operation: str) -> None:
        self._op(operation).in_flight += 1

    def answered(self, operation: str) -> None:
        op = self._op(operation)
        op.in_flight = max(0, op.in_flight - 1)

    def on_success(self, operation: str, seq: int) -> None:
        """`operation`'s request number `seq` succeeded: it is not denied, and every other
        operation refused before `seq` was sent was refused while the show was answering."""
        op = self._op(operation)
        op.successes += 1
        op.refused_seq, op.vouched, op.worded, op.denied, op.refusals = None, 0, 0, None, 0
        for name, other in self._ops.items():
            if name != operation and other.refused_seq is not None and other.refused_seq < seq:
                other.vouched += 1
                other.refused_seq = None

    def on_refusal(self, operation: str, seq: int, *, worded: bool, message: str) -> bool:
        """A 403 for request `seq` of `operation`; True when it proves the operation denied."""
        op = self._op(operation)
        if op.denied is not None:
            return True
        op.refused_seq = seq if op.refused_seq is None else max(seq, op.refused_seq)
        op.refusals += 1
        op.worded = op.worded + 1 if worded else 0
        if op.worded >= self.worded_proof or op.vouched >= self.vouched_proof:
            op.denied = message
            return True
        return False


@dataclass
class Cut:
    """One throttling cut of the allowance and the 403s it rests on."""

    before: CutState | None  # the allowance it cut from (None: the full limit)
    cut_at: float | None  # the governor's previous cut, to go back to
    epoch: int  # the pause it started
    operations: set[str] = field(default_factory=set)  # whose 403s made or joined it
    backed: bool = False  # one of them answered since: its 403 was no denial


class UnprovenCuts:
    """The cuts made since the allowance was last at the limit, newest last. A cut is undone
    once every operation whose 403s made or joined it is proven denied: those 403s were never
    throttling. One that any other 403 backed up (the probe refused too, another operation
    refused) stays, and so does every cut before it."""

    def __init__(self) -> None:
        self._cuts: list[Cut] = []

    def cut(self, cut: Cut) -> None:
        self._cuts.append(cut)

    def joined(self, operation: str) -> None:
        """A 403 of `operation` that joined the latest cut's pause instead of cutting again."""
        if self._cuts:
            self._cuts[-1].operations.add(operation)

    def answered(self, operation: str) -> None:
        """`operation` was answered: a cut its 403s made or joined is never undone (a denied
        operation is never answered; its 403 was throttling after all)."""
        for cut in self._cuts:
            cut.backed = cut.backed or operation in cut.operations

    def clear(self) -> None:
        """The allowance is back at the limit: nothing before now is left to undo."""
        self._cuts.clear()

    def undone(self, denials: Denials) -> list[Cut]:
        """The latest cuts whose 403s are all proven denials, taken off (newest first)."""
        undone: list[Cut] = []
        while self._cuts and self._misread(self._cuts[-1], denials):
            undone.append(self._cuts.pop())
        return undone

    @staticmethod
    def _misread(cut: Cut, denials: Denials) -> bool:
        return not cut.backed and all(denials.denied(op) is not None for op in cut.operations)
