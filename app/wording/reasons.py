"""Why a value was refused, in a show administrator's words; plain Python, no Qt.

The model that checks a record (app/api/models.py `validate_record`) refuses a value with the
kind of its problem (`InvalidValue.kind`, pydantic's error type) and, for an enumeration, its
choices; `in_words` says it plainly — "'abc' is not a whole number", "'maybe' is not yes or no",
"'Gold' is not one of: Points, Discount" — where pydantic says "Input should be a valid integer,
unable to parse string as an integer". A number typed in a locale (app/sync/edit/numbers.py)
is refused in the same words.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.api.errors import InvalidValue
from app.wording.words import words_of

# pydantic's error types, by what the value should have been
_WHOLE = frozenset({"int_parsing", "int_type", "int_from_float", "int_parsing_size"})
_NUMBER = frozenset({"float_parsing", "float_type", "finite_number"})
_YES_OR_NO = frozenset({"bool_parsing", "bool_type"})
_CHOICE = frozenset({"literal_error", "enum"})
_VALUE_ERROR = "Value error, "  # pydantic's prefix of a check's own message


def quoted(value: object) -> str:
    return f"'{value}'"


def not_a_whole_number(text: object) -> str:
    return f"{quoted(text)} is not a whole number"


def not_a_number(text: object) -> str:
    return f"{quoted(text)} is not a number"


def not_yes_or_no(text: object) -> str:
    return f"{quoted(text)} is not yes or no"


def not_one_of(text: object, choices: Sequence[str]) -> str:
    """`'Gold' is not one of: Points, Discount` — the choices in words."""
    return f"{quoted(text)} is not one of: {', '.join(words_of(c) for c in choices)}"


def in_words(problem: InvalidValue) -> str:
    """The reason `problem` gives, in words (its own reason when it has no known kind)."""
    kind, value = problem.kind, problem.value
    if kind in _WHOLE:
        return not_a_whole_number(value)
    if kind in _NUMBER:
        return not_a_number(value)
    if kind in _YES_OR_NO:
        return not_yes_or_no(value)
    if kind in _CHOICE and problem.choices:
        return not_one_of(value, problem.choices)
    return problem.reason.removeprefix(_VALUE_ERROR)
