"""The record shapes (app/api/shapes.py) and the pydantic models built from them agree, and the
shapes import no pydantic (the window lays its tables out from them before it is imported)."""

from __future__ import annotations

import subprocess
import sys
from typing import Any, get_args

from app.api import models, record_shape, shapes


def _names(annotation: Any) -> set[str]:
    """The types an annotation mentions, by name (a shape and its model share it)."""
    args = get_args(annotation)
    return set().union(*map(_names, args)) if args else {getattr(annotation, "__name__", "")}


def test_every_model_has_its_shapes_fields_in_the_same_order_with_the_same_types() -> None:
    assert list(models.MODELS) == list(shapes.MODELS)
    for name, model in models.MODELS.items():
        shape = shapes.MODELS[name]
        assert list(model.model_fields) == list(shape.model_fields), name
        for field, info in model.model_fields.items():
            declared = shape.model_fields[field]
            names = _names(declared.annotation)
            if "str" in names and field != "id":  # a text field also holds a number as given
                names |= _names(models.ShowText)
            assert _names(info.annotation) == names, (name, field)
            assert info.is_required() == (declared.default is record_shape.REQUIRED), (name, field)


def test_the_models_check_what_the_shapes_cannot() -> None:
    line = models.validate_record(models.OrderLine, {"deliveryDate": "2025-05-21"})
    assert line.model_dump(mode="json")["deliveryDate"] == "2025-05-21"
    pricing = models.MODELS["ProductPricing"].model_validate({"endDate": "2025-05-21T10:00:00"})
    assert pricing.model_dump(mode="json")["endDate"] == "2025-05-21T10:00:00"
    try:
        models.validate_record(models.Customer, {"email": "no at sign"})
    except models.InvalidValue as bad:
        assert bad.field == "email"
    else:
        raise AssertionError("a customer's e-mail is checked")


def test_the_shapes_import_no_pydantic() -> None:
    code = "import sys, app.api.shapes; print('pydantic' in sys.modules)"
    said = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert said.stdout.strip() == "False"
