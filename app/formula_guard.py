"""Text cells a spreadsheet would run as formulas, neutralised on export and restored on import
(issue 16; OWASP's advice on CSV injection).

A text that starts with `=`, `+`, `-`, `@`, a tab or a carriage return — possibly behind
apostrophes — is written with one more apostrophe in front (`=1+1 Foods` → `'=1+1 Foods`), which
spreadsheets show as the text itself. A text that already starts with apostrophes before such a
character gets one more too, so `restore` undoes exactly what `neutralise` did and nothing else:
`restore(neutralise(t)) == t` for every text. Only texts: numbers are numbers and left alone.
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


def restore(value: Any) -> Any:
    """The value as an import reads it back: the apostrophe `neutralise` added, removed."""
    if isinstance(value, str) and value.startswith(QUOTE) and needs_guard(value[1:]):
        return value[1:]
    return value
