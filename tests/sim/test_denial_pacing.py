"""A push on a show that answers its single GETs of a record with a bare 403 (a permission
refusal in words API.md allows for throttling too, decision 0002): ShowDesk reads the first
403s as possible throttling — it pauses, probes and cuts its allowance — until the GETs are
proven denied. From that proof on the cut is known to rest on a misreading, so the rest of the
push goes at the budget it had before those 403s, not at the cut one (3 requests a minute).

Over real loopback against the simulator (300 requests a minute), with slices of 4 records
(every slice past the first re-checks with single GETs) and a clock that moves only when the
push waits: what it waits after the proof is what the cut costs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.api.client import ShowClient
from app.api.connection import Connection
from app.api.governor import GovernorState
from app.sim import SimServer, generate_show
from app.sync.pull.puller import Puller
from app.sync.push.pusher import Pusher
from tests.sim.test_push_by_field import Desk
from tests.sim.test_push_rechecks import (
    Counting,
    _always_late,
    _registry,
    rechecks,  # noqa: F401 (the fixture: slices of 4 records, every one re-checked)
)
from tests.sim.test_sync import _config, queue_update
from tests.unit.test_client_fakes import FakeTime

GET_ONE = "GET /Customer/{id}"


@pytest.mark.asyncio
@pytest.mark.usefixtures("rechecks")
async def test_once_bare_403s_are_proven_a_denial_the_push_goes_at_its_full_budget(
    tmp_path: Path,
) -> None:
    desk = Desk(tmp_path / "desk")
    waits, transport = FakeTime(), Counting()
    denying = _config(deny_gets=frozenset({"customers"}))
    with SimServer(generate_show(60, seed=25), denying) as server:
        connection = Connection(
            base_url=server.base_url, auth_url=server.auth_url, show_id=server.show_id,
            secret=server.client_secret, state_dir=tmp_path / "profile",  # 300 a minute
        )  # fmt: skip
        async with ShowClient(
            connection, _registry(tmp_path), transport=transport, clock=waits.clock,
            sleep=waits.sleep,
        ) as client:  # fmt: skip
            await Puller(client, desk.cache).sync(["customers"], full=True)
            for rid in [str(r["id"]) for r in server.show.records("customers")[:28]]:
                queue_update(desk.cache, desk.outbox, "customers", rid, city="Ours")
            governor = client.governor
            after_proof: list[GovernorState] = []  # what the pacing is once the proof is made
            waited_before: list[int] = []  # the waits made before the proof

            def seen(state: GovernorState) -> None:
                if governor.denials.denied(GET_ONE) is None:
                    return
                if not waited_before:
                    waited_before.append(len(waits.sleeps))
                after_proof.append(state)

            governor.subscribe(seen)
            push = Pusher(client, desk.cache, desk.outbox)
            _always_late(push)
            report = await push.push()
            cut = [s.allowed for s in after_proof if s.allowed is not None]
    assert (report.done, report.failed) == (28, 0)
    assert transport.gets and after_proof, "the single GETs were refused, then proven denied"
    before = waits.sleeps[: waited_before[0]]
    assert sum(before) > 30, before  # the cut before the proof: its price (decision 0002)
    assert cut == [], cut  # once proven: the full limit, never the cut allowance
    after = waits.sleeps[waited_before[0] :]
    assert sum(after) < 1.0, (sum(after), after)  # no pacing wait left for the rest of the push
    desk.close()
