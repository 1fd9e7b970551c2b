"""Pydantic v2 models of the show's records, built from their shapes (app/api/shapes.py).

The shapes declare each record's fields without pydantic (the window lays its tables out from
them before pydantic is imported); here each shape becomes the pydantic model that validates
records and bodies: every date field parses the show's dates and writes ISO back, a customer's
e-mail is checked, every model keeps the fields it does not know (`extra="allow"`), so nothing is
dropped on a round trip, and a text field also holds the number a show gives in it (an integer
reference, `"warehouseID": 1003`), kept as given (`ShowText`): never refused, never turned into
text.
"""

from __future__ import annotations

import functools
import math
import operator
import types
from collections.abc import Collection, Mapping
from datetime import date, datetime
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import (
    BaseModel,
    ConfigDict,
    PlainSerializer,
    ValidationError,
    create_model,
    field_validator,
)

from app.api import record_shape, shapes
from app.api.errors import InvalidValue
from app.api.record_shape import RecordId
from app.api.record_shape import parse_show_date as parse_show_date  # where the forms read it


def _format_show_date(value: date | datetime | None) -> str | None:
    return None if value is None else value.isoformat()


# A text field of a shape, as its model holds it: text, or the number a show gave there as given.
ShowText = str | int | float

ShowDate = Annotated[
    datetime | date | None,
    PlainSerializer(_format_show_date, return_type=str | None, when_used="always"),
]


class ShowRecord(BaseModel):
    """A record of the show: an opaque `id` plus fields; unknown fields are kept."""

    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
        validate_assignment=True,
        allow_inf_nan=False,
        defer_build=True,
    )  # NaN and infinity are not JSON: no server could read them

    id: RecordId | None = None
    modifiedDate: ShowDate = None

    _parse_dates = field_validator("modifiedDate", mode="before")(lambda cls, v: parse_show_date(v))

    def to_body(self, keep_null: Collection[str] = ()) -> dict[str, Any]:
        """The request body for create/update: the fields that were given (a field nobody set is
        left out, and so is a `null` unless the user cleared that field: `keep_null`), without
        the server-owned `id`s (the record's and its nested elements')."""
        dumped = self.model_dump(mode="json", exclude={"id"}, exclude_unset=True)
        return strip_ids(dumped, keep_null)


def strip_ids(body: Mapping[str, Any], keep_null: Collection[str] = ()) -> dict[str, Any]:
    """`body` without the record's `id`, the `id` of every element of a nested array, and the
    `null`s nobody asked for (a strict server answers 400 to `"test": null`)."""
    out = {k: v for k, v in body.items() if k != "id" and (v is not None or k in keep_null)}
    for key, value in out.items():
        if isinstance(value, list):
            out[key] = [
                {k: v for k, v in el.items() if k != "id" and v is not None}
                if isinstance(el, Mapping)
                else el
                for el in value
            ]
    return out


class Element(BaseModel):
    """An element of a record's nested list or object (`record_shape.Element`)."""

    model_config = ConfigDict(extra="allow", allow_inf_nan=False, defer_build=True)


def _email_shape(cls: type[BaseModel], v: str | None) -> str | None:
    if v and ("@" not in v or v.startswith("@") or v.endswith("@") or " " in v.strip()):
        raise ValueError("not an e-mail address")
    return v


CHECKS = {"Customer": {"_email_shape": field_validator("email")(_email_shape)}}  # beyond types


def _build(
    shape: type[record_shape.Shape], built: dict[type[record_shape.Shape], type[BaseModel]]
) -> None:
    """The pydantic model of `shape` (its parent's first), into `built`."""
    if shape in built:
        return
    parent = shape.__mro__[1]
    _build(parent, built)
    own = shape.own_fields()
    dates = [name for name, declared in own.items() if declared.annotation == record_shape.ShowDate]
    checks = dict(CHECKS.get(shape.__name__, {}))
    if dates:  # every date field reads the show's dates (`modifiedDate`: ShowRecord's own)
        checks[f"_parse_{shape.__name__}_dates"] = field_validator(*dates, mode="before")(
            _parse_date
        )
    fields: Any = {name: (_typed(d.annotation, built), d.default) for name, d in own.items()}
    built[shape] = create_model(
        shape.__name__,
        __base__=built[parent],
        __module__=__name__,
        __doc__=shape.__doc__,
        __validators__=checks,
        **fields,
    )


def _parse_date(cls: type[BaseModel], v: Any) -> Any:
    return parse_show_date(v)


def _typed(annotation: Any, built: dict[type[record_shape.Shape], type[BaseModel]]) -> Any:
    """A shape's annotation in models: nested shapes as their models, dates as `ShowDate`."""
    if annotation == record_shape.ShowDate:
        return ShowDate
    if annotation is str:
        return ShowText
    if isinstance(annotation, type) and issubclass(annotation, record_shape.Shape):
        _build(annotation, built)
        return built[annotation]
    args = get_args(annotation)
    if get_origin(annotation) is list:
        return list[_typed(args[0], built)]  # type: ignore[misc]
    if get_origin(annotation) in (Union, types.UnionType):
        typed = [_typed(a, built) for a in args]
        return annotation if typed == list(args) else functools.reduce(operator.or_, typed)
    return annotation


def _models() -> dict[str, type[ShowRecord]]:
    built: dict[type[record_shape.Shape], type[BaseModel]] = {
        record_shape.ShowRecord: ShowRecord,
        record_shape.Element: Element,
    }
    for shape in shapes.MODELS.values():
        _build(shape, built)
    return {shape.__name__: built[shape] for shape in shapes.MODELS.values()}  # type: ignore[misc]


MODELS: dict[str, type[ShowRecord]] = _models()
# The models the code names (the others by their name in MODELS, as the registry does).
Customer = MODELS["Customer"]
Product = MODELS["Product"]
OrderLine = MODELS["OrderLine"]
OrderHistoryItem = MODELS["OrderHistoryItem"]
ProductInventory = MODELS["ProductInventory"]


def model_named(name: str) -> type[ShowRecord]:
    return MODELS[name]


def validate_record(model: type[ShowRecord], data: dict[str, Any]) -> ShowRecord:
    """Coerce `data` through `model`; the first failing field becomes an `InvalidValue`.

    Fields the model does not declare are kept as they are, but not NaN or infinity (JSON has
    neither: a server could not read the record).
    """
    try:
        record = model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "record"
        value, kind = first.get("input"), first["type"]
        choices = _choices(model, str(first["loc"][0])) if first["loc"] else ()
        raise InvalidValue(field, first["msg"], value, kind=kind, choices=choices) from None
    for name, value in (record.model_extra or {}).items():
        if not _finite(value):
            raise InvalidValue(name, "Input should be a finite number", value, kind="finite_number")
    return record


def _choices(model: type[ShowRecord], name: str) -> tuple[str, ...]:
    """The values an enumeration field takes (`Literal["Points", "Discount"] | None`), else ()."""
    declared = model.model_fields.get(name)
    if declared is None:
        return ()
    for tp in (declared.annotation, *get_args(declared.annotation)):
        if get_origin(tp) is Literal:
            return tuple(str(a) for a in get_args(tp))
    return ()


def _finite(value: Any) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, list):
        return all(_finite(v) for v in value)
    return True
