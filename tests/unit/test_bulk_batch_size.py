"""The elements per bulk upsert, learned per show (app/sync/push/v2_push.py `BatchSize`): four
times larger after each whole quick answer, halfway back after a refusal as too large while the
two sizes are more than double apart, then steady — and remembered for the next push."""

from __future__ import annotations

from pathlib import Path

from app.api.learned import Learned
from app.sync.push.v2_push import BatchSize


def ramp(sizes: BatchSize, cap: int, records: int) -> list[int]:
    """The batches a push of `records` sends to a show taking at most `cap` (negative: a
    refusal)."""
    sent: list[int] = []
    while records:
        batch = min(sizes.size, records)
        if batch > cap:
            sent.append(-batch)
            sizes.shrink(refused=batch)
            continue
        sent.append(batch)
        records -= batch
        sizes.grow(batch)
    return sent


def test_a_show_taking_1000_costs_one_refusal_and_then_batches_of_1000(tmp_path: Path) -> None:
    sizes = BatchSize(Learned(tmp_path), "customers")
    assert ramp(sizes, cap=1000, records=10_000) == [100, 400, -1600, *[1000] * 9, 500]
    again = BatchSize(Learned(tmp_path), "customers")  # the next push: learned
    assert ramp(again, cap=1000, records=10_000) == [1000] * 10


def test_a_small_cap_is_found_and_a_larger_one_later_is_used(tmp_path: Path) -> None:
    sizes = BatchSize(Learned(tmp_path), "customers")
    assert ramp(sizes, cap=30, records=200) == [-100, -50, 25, *[25] * 7]
    assert (sizes.accepted, sizes.refused) == (25, 50)


def test_no_refusal_grows_to_the_ceiling(tmp_path: Path) -> None:
    sizes = BatchSize(Learned(tmp_path), "vendors")
    assert ramp(sizes, cap=100_000, records=20_000) == [100, 400, 1600, 5000, 5000, 5000, 2900]


def test_a_short_last_batch_proves_nothing_about_the_size(tmp_path: Path) -> None:
    sizes = BatchSize(Learned(tmp_path), "customers")
    sizes.grow(30)  # a push of 30 changes
    assert sizes.size == 100 and sizes.accepted == 30
