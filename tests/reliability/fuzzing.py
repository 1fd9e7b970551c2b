"""Hypothesis strategies for the fuzz tests: what users type and paste, files they import, and
what a misbehaving server answers — plus the settings for the suite's level."""

from __future__ import annotations

import math
from datetime import date, datetime
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from tests.reliability.levels import Level

# Text a spreadsheet cell or a form field may hold: anything printable, and the tricky cases.
TRICKY = [
    "", " ", "TRUE", "false", "yes", "0", "-1", "12", "007", "3.5", "-0.0", "1e309", "nan",
    "inf", "-inf", "1,5", "2147483648", "99999999999999999999", "2025-05-21",
    "2025-13-45", "2025-05-07T12:25:00", "2025-05-07T12:25:00.61Z", "not a date", "[]",
    "[1, 2]", '["a", "b"]', "a;b;c", "{}", '{"id": "x"}', '{"id": 1, "name": null}', "null",
    '"quoted"', 'say "hi"', "tab\there", "two\nlines", "\r\n", "\x00", "é€😀", "<b>html</b>",
    "Robert'); DROP TABLE records;--", "\u202eevil", "a" * 500,
]  # fmt: skip
_TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=40)
cell_text = st.one_of(st.sampled_from(TRICKY), _TEXT)

_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    cell_text,
)
json_values = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(allow_nan=False, allow_infinity=False),
        _TEXT,
    ),
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(_TEXT, children, max_size=4)
    ),
    max_leaves=12,
)
NON_FINITE = st.sampled_from(["nan", "inf", "-Infinity", "1e400", math.nan, math.inf, -math.inf])
# What an editor, a paste or an import may hand to Editor.stage.
edit_values = st.one_of(
    _SCALARS,
    NON_FINITE,
    st.dates().map(date.isoformat),
    st.dates(),
    st.datetimes(),
    st.lists(cell_text, max_size=4),
    json_values,
)
xlsx_cells = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**53), max_value=2**53),
    st.floats(allow_nan=False, allow_infinity=False),
    st.datetimes(min_value=datetime(1901, 1, 1), max_value=datetime(2199, 12, 31)),
    cell_text.map(lambda t: "".join(c for c in t if c >= " " or c in "\t\n")[:200]),
)


def fuzz_settings(strength: Level) -> settings:
    """As many examples as the level asks; reproducible in fast runs, exploring in full ones."""
    return settings(
        max_examples=strength.fuzz_examples,
        deadline=None,
        derandomize=not strength.full,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        print_blob=True,
    )


def strictly_json(value: Any) -> bool:
    """Whether `value` can be sent as JSON a server will read (no NaN, no infinity)."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(strictly_json(v) for v in value.values())
    if isinstance(value, list):
        return all(strictly_json(v) for v in value)
    return True
