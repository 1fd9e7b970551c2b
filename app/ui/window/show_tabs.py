"""The window's tabs of resources, kept out of its frame: finding them, refreshing them when a
sync brings new data, and running their sorts and filters in a worker thread."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QTabWidget

from app.ui.session.tasks import TaskRunner
from app.ui.table.resource_tab import ResourceTab

Background = Callable[[Callable[[], list[str]], Callable[[list[str]], None]], None]


def resource_tabs(tabs: QTabWidget) -> list[ResourceTab]:
    found = (tabs.widget(i) for i in range(tabs.count()))
    return [t for t in found if isinstance(t, ResourceTab)]


def tab_for(tabs: QTabWidget, slug: str) -> ResourceTab | None:
    return next((t for t in resource_tabs(tabs) if t.resource.slug == slug), None)


def refresh_tabs(tabs: QTabWidget, slugs: list[str]) -> None:
    """New data for these resources (none named: all): their tabs re-read the cache, and tabs
    showing names of their records relabel."""
    changed = set(slugs)
    for tab in resource_tabs(tabs):
        if not slugs or tab.resource.slug in changed:
            tab.refresh()
        elif changed & set(tab.resource.references.values()):
            tab.model.refresh_labels()


def close_tab(tabs: QTabWidget, index: int) -> None:
    """Close a tab; a resource's tab remembers its view first."""
    widget = tabs.widget(index)
    tabs.removeTab(index)
    if isinstance(widget, ResourceTab):
        widget.save_state()
        widget.deleteLater()


def in_background(tasks: TaskRunner) -> Background:
    """Sorting and filtering 200,000 rows takes a while: in a worker thread, never on the GUI's."""

    def start(work: Callable[[], list[str]], done: Callable[[list[str]], None]) -> None:
        async def run() -> None:
            import asyncio

            done(await asyncio.to_thread(work))

        tasks.start_soon(run(), what="Sorting and filtering")

    return start
