"""Strict, helpful imports (issue 16, point 3): malformed CSV is an error naming the line, the
separator and the encoding are detected or given, a dry run lists each change and warns about
values a spreadsheet damaged."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.conftest import FORMULA_NAME, Cli

HEADER = "customerID,customerName,city\n"


def _dry_run(cli: Cli, path: Path, *extra: str) -> tuple[int, str, str]:
    done = cli("import", "customers", str(path), "--dry-run", *extra)
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize(
    ("body", "line", "said"),
    [
        ('C10002,"Unterminated,Lyon\nC10003,Fine,Paris\n', 2, "never closed"),
        ("C10002,Renamed,Lyon,extra\n", 2, "4 cells where the header has 3"),
        ("C10002,Renamed,Lyon\nC10003,Short\n", 3, "2 cells where the header has 3"),
        ("C10002,Re\x00named,Lyon\n", 2, "NUL byte"),
    ],
    ids=["unterminated-quote", "extra-cells", "missing-cells", "nul-byte"],
)
def test_a_malformed_csv_is_an_error_naming_its_line_and_plans_nothing(
    cli: Cli, tmp_path: Path, body: str, line: int, said: str
) -> None:
    path = tmp_path / "bad.csv"
    path.write_bytes((HEADER + body).encode("utf-8"))
    code, out, err = _dry_run(cli, path)
    assert code == 2
    assert f"line {line}" in err and said in err, err
    assert "to update" not in out  # nothing planned from a file that was not read whole
    assert "Traceback" not in err


def test_a_semicolon_file_in_windows_encoding_is_read_as_a_european_excel_writes_it(
    cli: Cli, tmp_path: Path
) -> None:
    path = tmp_path / "european.csv"
    path.write_bytes("customerID;customerName;city\nC10002;Café Müller;Köln\n".encode("cp1252"))
    code, out, err = _dry_run(cli, path)
    assert code == 0, err
    assert "1 to update" in out
    assert "Café Müller" in out and "Köln" in out


def test_a_utf8_file_with_a_bom_and_tabs_given_by_option(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "tabs.csv"
    path.write_text("\ufeffcustomerID\tcity\nC10002\tZürich\n", encoding="utf-8")
    code, out, err = _dry_run(cli, path, "--delimiter", "tab", "--encoding", "utf-8-sig")
    assert code == 0, err
    assert "C10002: City “" in out and "→ “Zürich”" in out


def test_an_unknown_separator_or_encoding_is_a_usage_error(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "ok.csv"
    path.write_text(HEADER + "C10002,Renamed,Lyon\n", encoding="utf-8")
    assert _dry_run(cli, path, "--delimiter", "|")[0] == 2
    code, _, err = _dry_run(cli, path, "--encoding", "klingon")
    assert code == 2 and "unknown encoding" in err


def test_a_dry_run_lists_each_change_and_warns_about_damaged_codes(
    cli: Cli, tmp_path: Path
) -> None:
    path = tmp_path / "damaged.csv"
    # what a spreadsheet with default settings writes back: zeros gone, a long id rounded
    path.write_text(
        "customerID,zipCode,extra2,extra3,extra4,city\n"
        "C10001,2134,,,,\n"
        "C10002,701,7,1234567890123456800,,Lyon\n"
        "C10003,,,,1.23457E+18,\n",
        encoding="utf-8",
    )
    code, out, err = _dry_run(cli, path)
    assert code == 0, err
    assert "row 3 · C10002:" in out and "→ “Lyon”" in out  # each change, key: field old → new
    warnings = [line for line in out.splitlines() if line.startswith("warning:")]
    assert sum("leading zeros lost" in w for w in warnings) == 3, warnings
    assert sum("precision lost" in w for w in warnings) == 1, warnings
    assert sum("scientific notation" in w for w in warnings) == 1, warnings
    assert "line 2: customerID=C10001: zipCode '02134' read as '2134'" in out


def test_import_json_lists_every_row_with_its_changes_and_warnings(
    cli: Cli, tmp_path: Path
) -> None:
    path = tmp_path / "rows.csv"
    path.write_text(
        "customerID,zipCode,city\nC10001,2134,\nC10002,,Lyon\nC10003,,\n", encoding="utf-8"
    )
    data = cli.json("import", "customers", str(path), "--dry-run")
    assert data["command"] == "import" and data["exit"] == 0 and data["dry_run"] is True
    rows = {row["line"]: row for row in data["rows"]}
    assert rows[2]["warnings"][0]["why"] == "leading zeros lost"
    assert rows[3]["action"] == "update"
    assert {"field": "city", "old": rows[3]["changes"][0]["old"], "new": "Lyon"} in rows[3][
        "changes"
    ]
    assert rows[4]["action"] == "unchanged"
    assert data["totals"]["updates"] == 2 and data["totals"]["unchanged"] == 1


def test_a_formula_guard_comes_off_on_import(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "guarded.csv"
    path.write_text(f"customerID,customerName\nC10001,'{FORMULA_NAME}\n", encoding="utf-8")
    code, out, err = _dry_run(cli, path)
    assert code == 0, err
    assert "0 to update, 1 unchanged" in out  # the name reads back exactly as the show has it
