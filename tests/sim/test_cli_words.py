"""`showdesk import --dry-run` lists what each row of the file will change, in the window's words
(field titles, counts that agree), against the simulator."""

from __future__ import annotations

from pathlib import Path

from app.sim import SimServer
from tests.sim.test_cli import server, showdesk

__all__ = ["server"]


def test_import_dry_run_lists_each_rows_change_in_words(server: SimServer, tmp_path: Path) -> None:
    cache = tmp_path / "cache.sqlite"
    assert showdesk(server, cache, "sync", "--resource", "customers").returncode == 0
    first = server.show.records("customers")[0]
    source = tmp_path / "changes.csv"
    source.write_text(
        f"customerID,priceZone,city\n{first['customerID']},7,Lyon\nNEW-900,2,Paris\n",
        encoding="utf-8",
    )
    result = showdesk(server, cache, "import", "customers", str(source), "--dry-run")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    changed = next(ln for ln in lines if ln.startswith("row 2 · "))
    assert changed.startswith(f"row 2 · {first['customerID']}: ")
    assert "Price zone" in changed and "→ “7”" in changed and "City" in changed
    created = next(ln for ln in lines if ln.startswith("row 3 · "))
    assert created.startswith("row 3 · new: ") and "Customer ID “NEW-900”" in created

    applied = showdesk(server, cache, "import", "customers", str(source))
    assert applied.returncode == 0
    assert "2 changes queued; run `showdesk push` to send them." in applied.stdout
