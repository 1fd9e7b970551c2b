"""`push --dry-run` counts a page of changes at a time (`cost_by_pages`, app/sync/push/cost.py): its
totals are those of the whole read (`push_cost`, what the outbox's review pane counts) on a mixed
outbox — creates, updates (a record's consecutive updates one PUT, others' changes between them),
deletes, bulk updates and creates, booth associations, several resources — whatever the page."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from app.api.registry import default_registry
from app.store.changes import Change
from app.store.outbox import NewChange, Outbox
from app.sync.push.cost import cost_by_pages, push_cost
from tests.unit import test_outbox
from tests.unit.test_outbox import BASE, edit

REGISTRY = default_registry()
outbox = test_outbox.outbox  # the fixture: a real outbox file


def mixed() -> list[NewChange]:
    changes: list[NewChange] = []
    for n in range(40):
        changes.append(edit(f"c{n % 13}", city=f"City {n}"))  # chains of 3-4 updates, interleaved
        if n % 5 == 0:
            changes.append(
                NewChange("customers", "create", payload={"customerID": f"N{n}"}, key_value=f"N{n}")
            )
        if n % 7 == 0:
            changes.append(NewChange("customers", "delete", f"d{n}", base={**BASE, "id": f"d{n}"}))
        if n % 3 == 0:  # bulk updates, a record now and then twice (its last one sent)
            pid = f"pi{n % 11}"
            changes.append(
                NewChange("product-inventory", "bulk-update", pid, payload={"productID": pid})
            )
        if n % 4 == 0:
            changes.append(
                NewChange(
                    "booth-products", "associate", params={"boothID": f"B{n % 3}", "productID": n}
                )
            )
    changes.append(
        NewChange(
            "order-history-items",
            "bulk-create",
            payload={"body": {"history": [{"productid": f"P{n}"} for n in range(1_700)]}},
        )
    )
    changes += [
        NewChange("orders", "bulk-create", payload={"customer": {"id": "c1"}, "quantity": n})
        for n in range(3)
    ]
    changes.append(edit("c1", city="After the orders"))  # c1's chain: an update after them
    return changes


def pages(changes: list[Change], size: int) -> Iterator[list[Change]]:
    for start in range(0, len(changes), size):
        yield changes[start : start + size]


@pytest.mark.parametrize("size", [1, 7, 500])
@pytest.mark.parametrize("bulk_size", [5, 500])
def test_the_cost_read_a_page_at_a_time_is_the_cost_of_the_whole_read(
    outbox: Outbox, size: int, bulk_size: int
) -> None:
    outbox.add_many(mixed())
    sending = outbox.add(edit("c20", city="Sending"))
    outbox.mark_sending([sending])  # not pending: left out by both
    whole = outbox.changes()
    expected = push_cost(whole, REGISTRY, bulk_size)
    assert expected.changes == len(whole) - 1 and expected.bulk and expected.checks >= 3
    assert cost_by_pages(pages(whole, size), REGISTRY, bulk_size) == expected


def test_an_empty_outbox_costs_nothing() -> None:
    assert cost_by_pages(iter([]), REGISTRY).requests == 0
