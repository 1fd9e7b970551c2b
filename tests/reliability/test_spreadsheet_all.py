"""Every resource through LibreOffice and back (issue 16; a few in tests/cli for `make test`):
XLSX saved with the default settings and CSV opened as the README says import back with no
change. The fast level (make test) takes the booth-list and bulk-only resources the fast suite does
not; the full level (make reliability) every resource the show lists."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.api.registry import default_registry
from app.sim import SimConfig, SimServer, generate_show
from tests.cli.conftest import SECRET, Cli
from tests.cli.office import CSV_OPTIONS, Office, text_columns
from tests.reliability.levels import Level

FAST_RESOURCES = ("products", "vendors", "booths")


@pytest.fixture(scope="module")
def synced(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cli]:
    config = SimConfig(show_id="SHEETS", client_secret=SECRET, throttle=False)
    with SimServer(generate_show(60, seed=17), config) as server:
        cli = Cli(server, tmp_path_factory.mktemp("sheets") / "cache.sqlite")
        done = cli("sync")
        assert done.returncode == 0, done.stderr
        yield cli


def _resources(strength: Level) -> list[str]:
    listed = [r.slug for r in default_registry() if r.can("list") and r.can("update")]
    return listed if strength.full else [s for s in FAST_RESOURCES if s in listed]


def test_every_resource_comes_back_from_libreoffice_unchanged(
    synced: Cli, strength: Level, tmp_path: Path
) -> None:
    office = Office(tmp_path)
    slugs = _resources(strength)
    assert slugs
    exported: dict[str, tuple[Path, Path]] = {}
    for slug in slugs:
        xlsx, text = tmp_path / f"{slug}.xlsx", tmp_path / f"{slug}.csv"
        for path in (xlsx, text):
            done = synced("export", slug, "-o", str(path))
            assert done.returncode == 0, done.stderr
        exported[slug] = (xlsx, text)
    saved_xlsx = office.convert([x for x, _ in exported.values()], "xlsx")
    for slug, saved in zip(slugs, saved_xlsx, strict=True):
        _assert_unchanged(synced, slug, saved)
    for slug, (_, text) in exported.items():
        with text.open(encoding="utf-8", newline="") as f:
            columns = len(next(csv.reader(f)))
        [saved] = office.convert(
            [text],
            f"csv:Text - txt - csv (StarCalc):{CSV_OPTIONS}",
            infilter=f"CSV:{CSV_OPTIONS},{text_columns(columns)}",
        )
        _assert_unchanged(synced, slug, saved)


def _assert_unchanged(cli: Cli, slug: str, path: Path) -> None:
    done = cli("import", slug, str(path), "--dry-run")
    assert done.returncode == 0, f"{slug} {path.name}: {done.stdout}{done.stderr}"
    assert "0 to create, 0 to update" in done.stdout, f"{slug} {path.name}: {done.stdout}"
