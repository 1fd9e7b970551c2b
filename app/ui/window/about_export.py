"""Two File-menu errands of the window, kept out of its frame: the About text, and writing an
export file from the cache in a worker thread (the window stays responsive): the current tab's
view, or a whole resource."""

from __future__ import annotations

import asyncio
import platform
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import qVersion
from PySide6.QtWidgets import QWidget

from app import APP_NAME, __version__
from app.profile.logs import log_path
from app.profile.settings import config_dir, data_dir
from app.ui.common.files import ExportResult, Opener
from app.ui.table.resource_tab import ResourceTab
from app.ui.table.view_export import view_options
from app.wording.words import count

if TYPE_CHECKING:
    from app.ui.session.session import ShowSession
    from app.ui.window.window_parts import ShowWindow

Say = Callable[..., None]  # the status bar's show_message(text[, timeout])


def about_text(session: ShowSession | None) -> str:
    """The version, and where settings, the cache and outbox, and the log file live."""
    store = session.profile.data_dir if session is not None else data_dir()
    return (
        f"<b>{APP_NAME} {__version__}</b><br>A desktop window on a Perenso TradeShow show."
        f"<br>Qt {qVersion()}, Python {platform.python_version()}"
        f"<br><br>Settings: {config_dir()}<br>Cache and outbox: {store}"
        f"<br>Log file: {log_path()}"
    )


async def export_to_file(
    session: ShowSession,
    slug: str,
    path: Path,
    options: dict[str, Any],
    say: Say,
    *,
    owner: QWidget | None = None,
    opener: Opener | None = None,
) -> ExportResult | None:
    """Stream resource `slug` (or a view of it: `options`) from the cache into `path`, as people
    read it (`resource_export.for_people`: titles, readable cells, no internal id); then, given
    an `owner` window, say how many rows went where with Open and Show in folder."""
    from app.sync.files import resource_export  # openpyxl is slow to import: only when needed

    title = session.registry[slug].title
    say(f"Exporting {title} to {path.name}…", 0)
    readable = resource_export.for_people(session.cache, slug, path, options.get("columns"))
    result = await asyncio.to_thread(
        resource_export.export, session.cache, slug, path, **{**options, **readable}
    )
    say(f"{count(result.rows, 'row')} of {title} written to {result.path}")
    if owner is None:
        return None
    box = ExportResult(owner, title, result.rows, Path(result.path), opener)
    box.show()
    return box


def export_resource(window: ShowWindow, slug: str | None) -> None:
    """The current tab's view (its filters, sort and shown columns) when `slug` is None
    (File ▸ Export), else the whole resource `slug` (the tree), to the file the user picks."""
    session = window.session
    tab = window.tabs.currentWidget()
    view = tab if slug is None and isinstance(tab, ResourceTab) else None
    slug = slug or (view.resource.slug if view is not None else None)
    if session is None or slug is None:
        return
    options = view_options(view, session.outbox) if view is not None else {}
    path = window.ask_path(f"Export {session.registry[slug].title}", f"{slug}.csv")
    if path is not None:
        work = export_to_file(
            session, slug, path, options, window.status.show_message, owner=window.window()
        )
        window.tasks.start(work, what="Export")
