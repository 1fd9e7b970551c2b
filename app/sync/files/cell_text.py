"""A value as the text of one spreadsheet cell: the ONE rule for a CSV export (`showdesk export`,
the tree's Export), the grid's Copy (tab-separated text on the clipboard) and an XLSX import's
cells read as text. `readable(value)` is what the window's exports write instead (issue 30,
point 5): a nested object by its label, a list of plain values joined with "; " (what the
importer splits), an enumeration in words; the importer reads each back
(app/sync/files/import_file.py `parse_cell`).

Booleans are `TRUE`/`FALSE`: what Excel and LibreOffice write in their own CSV files and read
back as booleans when pasted or opened, and what the importer reads back (the models take
`true`/`TRUE`/`True` alike), so a copied or exported table pastes or imports unchanged. None is
a blank cell; objects and lists are JSON (the importer parses them back).
"""

from __future__ import annotations

import json
from typing import Any

from app.wording.references import readable as label_of
from app.wording.references import words_of

TRUE, FALSE = "TRUE", "FALSE"


def cell_text(value: Any) -> str:
    """A value as a cell: blank for none, TRUE/FALSE, JSON for objects and lists."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return TRUE if value else FALSE
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


LIST_SEPARATOR = "; "


def readable(value: Any, words: tuple[str, ...] = ()) -> Any:
    """A value as the window's exports write it: a nested object (or a list of them) by its
    label, a list of plain values joined with "; ", one of `words` (an enumeration's values) in
    words; anything else as it is."""
    if isinstance(value, dict) or (isinstance(value, list) and any(
            isinstance(v, dict | list) for v in value)):  # fmt: skip
        return label_of(value)
    if isinstance(value, list):
        return LIST_SEPARATOR.join(cell_text(v) for v in value)
    if isinstance(value, str) and value in words:
        return words_of(value)
    return value
