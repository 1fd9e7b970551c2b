"""How the show's records are declared without pydantic: `Shape` gathers a class's annotated
fields, with their defaults, in `model_fields` (name → `Declared`: `.annotation`, `.default`, as a
pydantic model's fields answer, its parent's first), so the same code reads a shape or its model.
`ShowRecord` is a record of the show (an opaque `id`, `modifiedDate`), `Element` an element of a
record's nested list or object; `RecordId` and `ShowDate` are the show's id and date types, and
`parse_show_date` reads a date as the show writes it.

The records themselves: app/api/shapes.py (the documented ones, and `MODELS`) and
app/api/invented_shapes.py (those whose names only the vendor publishes).
"""

# No `from __future__ import annotations`: the shapes keep real types, read by the models.

import inspect
from datetime import date, datetime
from typing import Any, ClassVar, NamedTuple

REQUIRED: Any = ...  # the default of a field that has none (pydantic's marker)


def parse_show_date(value: Any) -> Any:
    """Dates come date-only (`2025-05-21`) or zone-less (`2025-01-20T04:50:03.61`)."""
    if isinstance(value, datetime | date) or value is None:
        return value
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return None
        try:
            return date.fromisoformat(text) if len(text) == 10 else datetime.fromisoformat(text)
        except ValueError:
            raise ValueError(
                f"'{value}' is not a date (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS)"
            ) from None
    raise ValueError("expected a date")


def like_given(before: Any, value: Any) -> Any:
    """A user's text for a field whose value the show gave as a number, as that number when the
    text is one (`"1004"` → 1004 where the show gave 1003): a scalar goes back to the show as the
    show gives it. Any other value, or text that is no such number, is left as it is."""
    if not isinstance(value, str) or isinstance(before, bool):
        return value
    if not isinstance(before, int | float):
        return value
    try:
        return int(value.strip()) if isinstance(before, int) else float(value.strip())
    except ValueError:
        return value


# A record's `id`: whatever JSON scalar the server gives (documented as a string; integers are
# seen from servers of this kind), kept as it came so it round-trips unchanged.
RecordId = str | int
# A show's date or date-time (parsed by `parse_show_date`, written back in ISO form).
ShowDate = datetime | date | None


class Declared(NamedTuple):
    """One declared field: its type and its default (REQUIRED: none)."""

    annotation: Any
    default: Any


class Shape:
    """Fields declared as class annotations (with their defaults), gathered in `model_fields`."""

    model_fields: ClassVar[dict[str, Declared]] = {}

    def __init_subclass__(cls) -> None:
        super().__init_subclass__()
        own = {
            name: Declared(annotation, cls.__dict__.get(name, REQUIRED))
            for name, annotation in inspect.get_annotations(cls).items()
            if name != "model_fields"
        }
        cls.model_fields = {**cls.model_fields, **own}

    @classmethod
    def own_fields(cls) -> dict[str, Declared]:
        """The fields this shape adds to its parent's."""
        parent = cls.__mro__[1]
        inherited = parent.model_fields if issubclass(parent, Shape) else {}
        return {k: v for k, v in cls.model_fields.items() if k not in inherited}


class Element(Shape):
    """An element of a record's nested list or object (not a record of its own)."""


class ShowRecord(Shape):
    """A record of the show: an opaque `id` plus fields; unknown fields are kept."""

    id: RecordId | None = None
    modifiedDate: ShowDate = None
