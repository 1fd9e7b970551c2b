"""A number as a person types it (issue 30, item 10): read with the locale's marks, an ambiguous
text refused with what to write instead, never "12,50" read as 1250."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.api.registry import default_registry
from app.store.cache import Cache
from app.store.outbox import Outbox
from app.sync.edit.editor import Editor, FieldEdit
from app.sync.edit.numbers import (
    C_MARKS,
    Misread,
    NotANumber,
    NumberMarks,
    read_number,
    typed_number,
    write_number,
)

GERMAN = NumberMarks(",", ".")
FRENCH = NumberMarks(",", "\u202f")


@pytest.mark.parametrize(
    ("text", "marks", "number"),
    [
        ("12.50", C_MARKS, 12.5),
        ("1,250.5", C_MARKS, 1250.5),
        ("-3", C_MARKS, -3.0),
        ("12,50", GERMAN, 12.5),
        ("1.234,75", GERMAN, 1234.75),
        ("1 234,75", FRENCH, 1234.75),  # a plain space for a narrow one
        ("1\u202f234,75", FRENCH, 1234.75),
        ("\u22122,5", FRENCH, -2.5),
        ("  ", C_MARKS, None),
    ],
)
def test_a_number_is_read_with_the_locales_marks(
    text: str, marks: NumberMarks, number: float | None
) -> None:
    assert read_number(text, marks) == number


@pytest.mark.parametrize(
    ("text", "marks", "why"),
    [
        ("12,50", C_MARKS, "'12,50' is ambiguous here: the decimal mark is '.' (write 12.50)"),
        ("12.50", GERMAN, "'12.50' is ambiguous here: the decimal mark is ',' (write 12,50)"),
        ("1.250,5", C_MARKS, "'1.250,5' is ambiguous here: the decimal mark is '.'"),
        ("cheap", C_MARKS, "'cheap' is not a number (such as 1,250.5)"),
    ],
)
def test_an_ambiguous_number_is_refused_with_what_to_write(
    text: str, marks: NumberMarks, why: str
) -> None:
    with pytest.raises(NotANumber) as refused:
        read_number(text, marks)
    assert str(refused.value) == why


def test_whole_numbers() -> None:
    assert read_number("1,250", C_MARKS, whole=True) == 1250
    assert read_number("1.250", GERMAN, whole=True) == 1250
    assert typed_number("2,5", GERMAN, whole=True) == Misread("2,5", "'2,5' is not a whole number")
    assert typed_number("9999999999", C_MARKS, whole=True) == Misread(
        "9999999999", "'9999999999' is too large"
    )


def test_a_value_is_written_for_an_editor_with_the_same_marks() -> None:
    assert [write_number(v, GERMAN) for v in (14.9, 1250.0, 3, None)] == ["14,9", "1250", "3", ""]
    assert read_number(write_number(0.1, GERMAN), GERMAN) == 0.1


def test_a_misread_number_is_refused_by_the_editor_with_its_reason(tmp_path: Path) -> None:
    registry = default_registry()
    with Cache(tmp_path / "c.db", registry) as cache, Outbox(tmp_path / "o.db") as outbox:
        cache.upsert("products", [{"id": "p1", "productID": "P1", "price": 2.5}])
        editor = Editor(cache, outbox, registry)
        typed = typed_number("12,50", C_MARKS)
        staged = editor.stage("products", [FieldEdit("p1", "price", typed)])
        assert [r.reason for r in staged.rejected] == [
            "'12,50' is ambiguous here: the decimal mark is '.' (write 12.50)"
        ]
        assert outbox.counts()["pending"] == 0
