"""Round trips through a real spreadsheet program (issue 16, Checked by): what ShowDesk exports,
opened and saved again by LibreOffice, imports back with no change — XLSX with the default
settings, CSV with the settings the README gives — and with a CSV opened with the default
settings, the dry run warns about each value that lost its leading zeros."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from app.api.registry import default_registry
from app.store.cache import Cache
from tests.cli.conftest import FORMULA_NAME, RISKY_NAMES, Cli
from tests.cli.office import CSV_OPTIONS, Office, text_columns

# A few resources here; every resource in tests/reliability/test_spreadsheet_all.py.
RESOURCES = ("customers", "warehouses")
NO_CHANGE = "0 to create, 0 to update"


@pytest.fixture(scope="module")
def office(tmp_path_factory: pytest.TempPathFactory) -> Office:
    return Office(tmp_path_factory.mktemp("office"))


def _export(cli: Cli, folder: Path, fmt: str) -> list[Path]:
    paths = [folder / f"{slug}.{fmt}" for slug in RESOURCES]
    for slug, path in zip(RESOURCES, paths, strict=True):
        done = cli("export", slug, "-o", str(path))
        assert done.returncode == 0, done.stderr
    return paths


def _dry_run(cli: Cli, slug: str, path: Path) -> str:
    done = cli("import", slug, str(path), "--dry-run")
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_xlsx_saved_by_libreoffice_imports_back_unchanged(
    cli: Cli, office: Office, tmp_path: Path
) -> None:
    saved = office.convert(_export(cli, tmp_path, "xlsx"), "xlsx")
    for slug, path in zip(RESOURCES, saved, strict=True):
        said = _dry_run(cli, slug, path)
        assert NO_CHANGE in said, said
    assert FORMULA_NAME not in _dry_run(cli, "customers", saved[0])  # no edit of the name


def test_csv_opened_as_the_readme_says_imports_back_unchanged(
    cli: Cli, office: Office, tmp_path: Path
) -> None:
    exported = _export(cli, tmp_path, "csv")
    for slug, path in zip(RESOURCES, exported, strict=True):
        with path.open(encoding="utf-8", newline="") as f:
            columns = len(next(csv.reader(f)))
        infilter = f"CSV:{CSV_OPTIONS},{text_columns(columns)}"
        [saved] = office.convert([path], f"csv:Text - txt - csv (StarCalc):{CSV_OPTIONS}",
                                 infilter=infilter)  # fmt: skip
        said = _dry_run(cli, slug, saved)
        assert NO_CHANGE in said, said
        if slug == "customers":  # the formula-looking names survived as text
            text = saved.read_text(encoding="utf-8")
            assert all(f"'{name}" in text for name in (FORMULA_NAME, *RISKY_NAMES[:3]))


def test_csv_opened_with_default_settings_warns_about_each_lost_leading_zero(
    cli: Cli, office: Office, tmp_path: Path
) -> None:
    [exported] = _export(cli, tmp_path, "csv")[:1]
    [saved] = office.convert([exported], f"csv:Text - txt - csv (StarCalc):{CSV_OPTIONS}")
    said = _dry_run(cli, "customers", saved)
    warned = {
        (line.split(": ")[2], line.split(": ")[3].split(" ")[0])
        for line in said.splitlines()
        if line.startswith("warning:") and "leading zeros lost" in line
    }
    expected = set()
    with Cache(cli.cache, default_registry()) as cache:
        for record in cache.records("customers"):
            for name, value in record.items():
                if isinstance(value, str) and value.isdigit() and value.startswith("0"):
                    expected.add((f"customerID={record['customerID']}", name))
    assert expected and warned == expected, said
