"""Issue 30, item 6 and point 5: an export from the window reads as the window does — headed by
the column titles, nested values by their labels (never JSON), no internal id column — and
imports back exactly: the same file, imported into the same show, changes nothing. (`showdesk
export` keeps the API's names and JSON cells: tests/cli.)"""

from __future__ import annotations

import csv
from pathlib import Path

import qasync

from app.sim import SimServer
from app.sync.files.importer import plan_import
from app.ui.common.files import ExportResult
from tests.gui.conftest import Opened, Opener, profile_for, until, wait_synced


def export_customers(loop: qasync.QEventLoop, opened: Opened) -> None:
    opened.window.export_resource("customers")

    async def finished() -> None:
        await until(lambda: opened.window.findChild(ExportResult, "export-result") is not None)

    loop.run_until_complete(finished())


def test_an_export_from_the_window_reads_in_words_and_imports_back_unchanged(
    loop: qasync.QEventLoop, open_window: Opener, tiny_server: SimServer, tmp_path: Path
) -> None:
    target = tmp_path / "customers.csv"
    opened = open_window(profile_for(tiny_server), export_to=target)
    wait_synced(loop, opened.session)
    nested = [r for r in tiny_server.show.records("customers") if r.get("orderingGroups")]
    assert nested, "the show needs a customer in an ordering group"
    export_customers(loop, opened)

    with target.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    header = list(rows[0])
    assert header[:2] == ["Customer ID", "Customer name"]
    assert "Id" not in header and "id" not in header and "customerID" not in header
    groups = {r["Customer ID"]: r["Ordering groups"] for r in rows}
    shown = groups[str(nested[0]["customerID"])]
    assert shown and not shown.startswith("[") and "{" not in shown  # labels, not JSON

    plan = plan_import(opened.session.cache, "customers", target)
    assert plan.errors == [] and plan.creates == [] and plan.updates == []
    assert len(plan.unchanged) == len(rows) == tiny_server.show.count("customers")
