"""`showdesk push` keeps the numbers of the changes it is about to send as 8 bytes each
(app/commands/push.py `ChangeNumbers`): what it tells afterwards reads them back exactly."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from app.commands.push import ChangeNumbers


@given(st.sets(st.integers(min_value=1, max_value=10_000)), st.integers(1, 7))
def test_the_numbers_answer_as_the_set_they_were(seqs: set[int], size: int) -> None:
    numbers = ChangeNumbers(sorted(seqs))
    assert len(numbers) == len(seqs)
    assert list(numbers) == sorted(seqs)
    assert [n for page in numbers.pages(size) for n in page] == sorted(seqs)
    assert all(len(page) <= size for page in numbers.pages(size))
    for probe in range(0, 10_002, 97):
        assert (probe in numbers) == (probe in seqs)
    assert "3" not in numbers and None not in numbers
