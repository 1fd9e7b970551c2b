"""Customers for the sort keys' tests (test_cache_sort_keys.py, test_cache_key_ends.py): a few
fields holding values of every JSON type, drawn by hypothesis, written under ids in order."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from app.api.registry import default_registry

REGISTRY = default_registry()
FIELDS = ("customerName", "priceZone", "city", "test")


def field_values(alphabet: str, longest: int, *, nested: bool = True) -> st.SearchStrategy[Any]:
    """A field's value: NULL, a boolean, a small number, a short text of `alphabet`, a list —
    and, `nested`, an object."""
    kinds: list[st.SearchStrategy[Any]] = [
        st.none(),
        st.booleans(),
        st.integers(-3, 3),
        st.floats(-2, 2, allow_nan=False),
        st.text(alphabet=alphabet, max_size=longest),
        st.lists(st.integers(0, 2), max_size=2),
    ]
    if nested:
        kinds.append(st.fixed_dictionaries({"n": st.integers(0, 2)}))
    return st.one_of(*kinds)


def customer_rows(values: st.SearchStrategy[Any], most: int) -> st.SearchStrategy[Any]:
    """Up to `most` records, each with some of `FIELDS`."""
    return st.lists(
        st.dictionaries(st.sampled_from(FIELDS), values, max_size=len(FIELDS)), max_size=most
    )


def customers(rows: list[dict[str, Any]], start: int = 0) -> list[dict[str, Any]]:
    """The rows as customers, ids and keys numbered from `start`."""
    return [{"id": f"c{start + n:03d}", "customerID": f"CU{start + n:03d}", **r}
            for n, r in enumerate(rows)]  # fmt: skip
