"""Text cells a spreadsheet would run as formulas, neutralised on export and restored on import
(issue 16; OWASP's advice on CSV injection).

A text that starts with `=`, `+`, `-`, `@`, a tab or a carriage return — possibly behind
apostrophes — is written with one more apostrophe in front (`=1+1 Foods` → `'=1+1 Foods`), which
spreadsheets show as the text itself. A text that already starts with apostrophes before such a
character gets one more too, so `restore` undoes exactly what `neutralise` did and nothing else:
`restore(neutralise(t)) == t` for every text. Only texts: numbers are numbers and left alone.

A spreadsheet opening such a CSV keeps the apostrophe as part of the text (LibreOffice does), so
the import restores texts read from XLSX files too; XLSX exports, whose text cells are typed and
never run, write texts as they are (`keep_exact`: the apostrophe only where `restore` would
otherwise change the text).
"""

from __future__ import annotations

from typing import Any

TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
QUOTE = "'"


def needs_guard(text: str) -> bool:
    """A text a spreadsheet could take for a formula, possibly behind apostrophes."""
    return text.lstrip(QUOTE).startswith(TRIGGERS)


def neutralise(value: Any) -> Any:
    """The value as an export writes it: a risky text with an apostrophe in front."""
    if isinstance(value, str) and needs_guard(value):
        return QUOTE + value
    return value


def keep_exact(value: Any) -> Any:
    """The value as a file whose cells are typed (XLSX) holds it: such cells are never run as
    formulas, so only a text `restore` would otherwise change (an apostrophe before a trigger,
    rare) gets its apostrophe, and every text reads back exactly."""
    if isinstance(value, str) and value.startswith(QUOTE) and needs_guard(value[1:]):
        return QUOTE + value
    return value


def restore(value: Any) -> Any:
    """The value as an import reads it back: the apostrophe `neutralise` added, removed."""
    if isinstance(value, str) and value.startswith(QUOTE) and needs_guard(value[1:]):
        return value[1:]
    return value
