"""A value as the text of one spreadsheet cell: the ONE rule for a CSV export (`showdesk export`,
the tree's Export), the grid's Copy (tab-separated text on the clipboard) and an XLSX import's
cells read as text.

Booleans are `TRUE`/`FALSE`: what Excel and LibreOffice write in their own CSV files and read
back as booleans when pasted or opened, and what the importer reads back (the models take
`true`/`TRUE`/`True` alike), so a copied or exported table pastes or imports unchanged. None is
a blank cell; objects and lists are JSON (the importer parses them back).
"""

from __future__ import annotations

import json
from typing import Any

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
