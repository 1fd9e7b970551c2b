"""The numbers of the changes a push is about to send (`_to_push`, app/commands/push.py), read a
batch at a time: the pending ones, the ones left `sending`, the failed ones when retried, of the
resources asked for — in order, as the outbox's own list of them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.commands.push import _to_push
from app.store.changes import State
from app.store.outbox import NewChange, Outbox
from tests.unit.test_outbox import edit


@pytest.fixture
def outbox(tmp_path: Path) -> Iterator[Outbox]:
    with Outbox(tmp_path / "outbox.sqlite") as opened:
        yield opened


@pytest.mark.parametrize("retry_failed", [False, True])
@pytest.mark.parametrize("resources", [None, ["customers"], ["booth-products", "customers"]])
def test_the_numbers_are_the_outboxs_own_in_order(
    outbox: Outbox, retry_failed: bool, resources: list[str] | None
) -> None:
    for n in range(30):
        outbox.add(edit(f"c{n % 7}", city=f"City {n}"))
        if n % 4 == 0:
            outbox.add(
                NewChange("booth-products", "associate", params={"boothID": "B1", "productID": n})
            )
        if n % 5 == 0:
            seq = outbox.add(edit(f"s{n}", city="Sent"))
            outbox.mark_sending([seq])
            if n % 10 == 0:
                outbox.mark_failed(seq, "HTTP 400")
    states: tuple[State, ...] = ("pending", "sending") + (("failed",) if retry_failed else ())
    expected = outbox.seqs(states, resources or ())
    assert list(_to_push(outbox, resources, retry_failed)) == expected
