"""Exports safe for spreadsheets and `-o` with a Unix tool's semantics (issue 16, points 1–2),
through real `showdesk` processes."""

from __future__ import annotations

import csv
import io
import json
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import openpyxl

from app.commands import HEADLESS
from app.commands.runner import command
from app.sync.files.formula_guard import restore
from tests.cli.conftest import FORMULA_NAME, LONG_ID, RISKY_NAMES, ZIP_WITH_ZEROS, Cli


def _rows(text: str) -> dict[str, dict[str, str]]:
    return {r["customerID"]: r for r in csv.DictReader(io.StringIO(text))}


def test_csv_neutralises_formula_looking_texts_and_the_option_turns_it_off(
    cli: Cli, tmp_path: Path
) -> None:
    guarded, raw = tmp_path / "guarded.csv", tmp_path / "raw.csv"
    assert cli("export", "customers", "-o", str(guarded)).returncode == 0
    assert cli("export", "customers", "-o", str(raw), "--keep-formulas").returncode == 0
    names = [r["customerName"] for r in _rows(guarded.read_text(encoding="utf-8")).values()]
    assert "'" + FORMULA_NAME in names
    for risky in RISKY_NAMES:
        assert "'" + risky in names  # `'=quoted already` gets one more, undone exactly
    assert {restore(n) for n in names} >= {FORMULA_NAME, *RISKY_NAMES}
    plain = _rows(raw.read_text(encoding="utf-8"))
    assert FORMULA_NAME in {r["customerName"] for r in plain.values()}
    assert all(r["priceZone"].lstrip("-").isdigit() for r in plain.values() if r["priceZone"])


def test_an_export_imports_back_with_no_change(cli: Cli, tmp_path: Path) -> None:
    for name in ("back.csv", "back.xlsx"):
        path = tmp_path / name
        assert cli("export", "customers", "-o", str(path)).returncode == 0
        done = cli("import", "customers", str(path), "--dry-run")
        assert done.returncode == 0, done.stderr
        assert "0 to create, 0 to update, 40 unchanged" in done.stdout, done.stdout


def test_xlsx_keeps_codes_as_text_freezes_the_header_and_titles_import_back(
    cli: Cli, tmp_path: Path
) -> None:
    path = tmp_path / "titled.xlsx"
    assert cli("export", "customers", "-o", str(path), "--headers", "titles").returncode == 0
    sheet = openpyxl.load_workbook(path).active
    assert sheet.freeze_panes == "A2"
    header = [c.value for c in sheet[1]]
    assert "Customer name" in header and "Zip code" in header
    cells = {(c.value, c.data_type) for row in sheet.iter_rows(min_row=2) for c in row}
    assert (FORMULA_NAME, "s") in cells  # text, not a formula
    assert (ZIP_WITH_ZEROS, "s") in cells and (LONG_ID, "s") in cells
    width = sheet.column_dimensions["B"].width
    assert width is not None and width > 10
    done = cli("import", "customers", str(path), "--dry-run")
    assert "0 to create, 0 to update, 40 unchanged" in done.stdout, done.stdout + done.stderr


def test_dash_writes_standard_output(cli: Cli, tmp_path: Path) -> None:
    done = cli("export", "customers", "-o", "-", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert len(_rows(done.stdout)) == 40
    assert not (tmp_path / "-").exists()
    listed = cli("export", "customers", "-o", "-", "--format", "json", cwd=tmp_path)
    assert len(json.loads(listed.stdout)) == 40
    audit = cli("audit", cwd=tmp_path)  # no -o: the audit as CSV on stdout
    assert audit.returncode == 0 and audit.stdout.startswith("at,seq,resource")


def test_a_symbolic_link_stays_a_link_and_its_target_is_written(cli: Cli, tmp_path: Path) -> None:
    target = tmp_path / "real.csv"
    target.write_text("old", encoding="utf-8")
    target.chmod(0o640)
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    assert cli("export", "customers", "-o", str(link)).returncode == 0
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert len(_rows(target.read_text(encoding="utf-8"))) == 40
    assert stat.S_IMODE(target.stat().st_mode) == 0o640  # replaced, permissions kept


def test_a_fifo_is_written_in_place_never_replaced(cli: Cli, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    done = cli("export", "customers", "-o", str(fifo))
    reader.join(timeout=60)
    assert done.returncode == 0, done.stderr
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert len(_rows(got[0].decode("utf-8"))) == 40
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]


def test_a_device_is_written_in_place(cli: Cli, tmp_path: Path) -> None:
    done = cli("export", "customers", "-o", os.devnull, "--format", "csv")
    assert done.returncode == 0, done.stderr
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)  # still the device, not a file
    audit = cli("audit", "-o", os.devnull)
    assert audit.returncode == 0 and stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_an_export_imports_neither_the_client_nor_pydantic_nor_openpyxl(
    cli: Cli, tmp_path: Path
) -> None:
    """A command that sends nothing starts without what sending needs (a tenth of a second of
    each headless export, most of a small one's time); each command's module is found. An
    export logs nothing, so the log file's handler (concurrent_log_handler, which reads the
    installed packages' metadata: 50-100 ms here) is never imported."""
    unused = ("httpx", "pydantic", "openpyxl", "concurrent_log_handler", "importlib.metadata")
    script = (
        "import sys; from app.cli import main; code = main(sys.argv[1:]); "
        f"print(*[m for m in {unused!r} if m in sys.modules]); "
        "sys.exit(code)"
    )
    book = tmp_path / "lean.xlsx"
    done = subprocess.run(
        [sys.executable, "-c", script, "export", "customers", "-o", str(book), *cli.connection()],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == ""  # none of them
    assert openpyxl.load_workbook(book, read_only=True).active is not None
    assert all(callable(command(name)) for name in HEADLESS)
