"""What "Export the current view" writes: the rows, order and columns a resource tab shows.

`view_options(tab, outbox)` answers `app.sync.files.resource_export.export` keyword arguments: the
tab's
`TableQuery` (parent, text and column filters, sort: the same cache query as the table), its shown
columns in the order the user arranged them, and the pending changes laid over each record with
the records created here after them — what the table shows, read from the cache by the resource
export's stream.
"""

from __future__ import annotations

from typing import Any

from app.store.outbox import Outbox
from app.sync.edit.overlay import PendingOverlay
from app.ui.table.gestures import shown_columns
from app.ui.table.resource_tab import ResourceTab


def visible_fields(tab: ResourceTab) -> list[str]:
    """The fields of the tab's shown columns, left to right."""
    return [tab.model.field(c) for c in shown_columns(tab.header)]


def view_options(tab: ResourceTab, outbox: Outbox) -> dict[str, Any]:
    """`resource_export.export(cache, slug, path, **view_options(tab, outbox))` writes the view."""
    model = tab.model
    res = model.resource
    pending = PendingOverlay.read(outbox, res.slug)
    return {
        "query": model.query,
        "columns": visible_fields(tab),
        **pending.export_options(res.key, created=model.record_parent is None),
    }
