"""Issue 17: `showdesk sync` says what it did about booth lists (a booth's products
and vendors): all listed on the first (full) sync, only the new or changed booths' afterwards —
in words, and in `--json` as its schema documents (docs/cli-json/sync.schema.json)."""

from __future__ import annotations

from pathlib import Path

from tests.cli.conftest import Cli
from tests.cli.test_json import document


def test_sync_says_whose_lists_it_listed(cli: Cli, tmp_path: Path) -> None:
    fresh = Cli(cli.server, tmp_path / "lists.sqlite")
    booths = len(cli.server.show.records("booths"))
    first = document(fresh("sync", "--resource", "booths", "--resource", "booth-products",
                           "--json"), "sync")  # fmt: skip
    lists = {r["resource"]: r.get("lists") for r in first["resources"]}
    assert lists == {"booths": None, "booth-products": {"listed": booths, "parents": booths}}

    again = fresh("sync", "--resource", "booths", "--resource", "booth-products")
    assert again.returncode == 0, again.stderr
    line = next(ln for ln in again.stdout.splitlines() if ln.startswith("booth-products:"))
    assert f"lists of 0 of {booths} booths listed (new or changed)" in line
    assert "refreshed when opened in the window" in line
    second = document(fresh("sync", "--resource", "booth-products", "--json"), "sync")
    [entry] = second["resources"]
    assert entry["kind"] == "incremental" and entry["lists"] == {"listed": 0, "parents": booths}
