"""`--json` on every command (issue 16, point 4): each output parsed by a JSON parser and checked
against its documented schema (docs/cli-json/), errors as one JSON object on stderr; a mistyped
subcommand suggests the nearest one; `-V` answers the version."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from app import __version__
from tests.cli.conftest import Cli

SCHEMAS = Path(__file__).resolve().parents[2] / "docs" / "cli-json"


def valid(command: str, data: Any) -> Any:
    schema = json.loads((SCHEMAS / f"{command}.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(data, schema, cls=jsonschema.Draft202012Validator)
    return data


def document(done: subprocess.CompletedProcess[str], command: str) -> dict[str, Any]:
    assert done.stdout.count("\n") == 1, f"one document, nothing else: {done.stdout!r}"
    data: dict[str, Any] = valid(command, json.loads(done.stdout))
    assert data["exit"] == done.returncode
    return data


def test_every_schema_is_a_valid_json_schema() -> None:
    names = sorted(p.name for p in SCHEMAS.glob("*.schema.json"))
    assert len(names) == 10
    for path in SCHEMAS.glob("*.schema.json"):
        jsonschema.Draft202012Validator.check_schema(json.loads(path.read_text(encoding="utf-8")))


def test_sync_status_check_and_export_as_json(cli: Cli, tmp_path: Path) -> None:
    synced = document(cli("sync", "--resource", "customers", "--json"), "sync")
    assert synced["resources"][0]["resource"] == "customers"
    assert synced["resources"][0]["kind"] == "incremental"
    status = document(cli("status", "--json"), "status")
    assert status["resources"]["customers"]["count"] == 40
    checked = document(cli("check", "--json"), "check")
    assert checked["asked"] >= checked["answered"] > 0
    out = tmp_path / "c.xlsx"
    exported = document(cli("export", "customers", "-o", str(out), "--json"), "export")
    assert (exported["rows"], exported["format"], exported["path"]) == (40, "xlsx", str(out))


def test_import_push_conflicts_and_audit_as_json(cli: Cli, tmp_path: Path) -> None:
    changes = tmp_path / "changes.csv"
    changes.write_text("customerID,city\nC10005,Lyon\nC10006,Nantes\n", encoding="utf-8")
    planned = document(cli("import", "customers", str(changes), "--dry-run", "--json"), "import")
    assert planned["totals"]["updates"] == 2 and "queued" not in planned
    queued = document(cli("import", "customers", str(changes), "--json"), "import")
    assert queued["queued"] == 2
    estimate = document(cli("push", "--dry-run", "--json"), "push")
    assert estimate["dry_run"] is True and estimate["changes"] == 2 and estimate["requests"] >= 2
    pushed = document(cli("push", "--json"), "push")
    assert pushed["applied"] == 2
    assert {c["result"] for c in pushed["changes"]} == {"applied"}
    assert {c["key"] for c in pushed["changes"]} == {"C10005", "C10006"}
    assert document(cli("conflicts", "--json"), "conflicts")["conflicts"] == []
    audit = document(cli("audit", "--json"), "audit")
    assert {(r["record_id"] is not None, r["field"], r["after"]) for r in audit["rows"]} >= {
        (True, "city", "Lyon"),
        (True, "city", "Nantes"),
    }


@pytest.mark.parametrize(
    "args",
    [
        ("resolve", "999", "--mine"),  # not a conflict: a usage error of the command
        ("import", "customers", "/nonexistent/file.csv", "--dry-run"),
        ("export", "nonsense"),  # an unknown resource
        ("sync", "--bogus-option"),  # a usage error argparse finds
    ],
    ids=["resolve", "import", "export", "argparse"],
)
def test_an_error_with_json_is_one_json_object_on_stderr(cli: Cli, args: tuple[str, ...]) -> None:
    done = cli(*args, "--json")
    assert done.returncode == 2
    assert done.stdout == ""
    [line] = done.stderr.strip().splitlines()
    error = valid("error", json.loads(line))
    assert error["exit"] == 2 and error["error"]


def _showdesk(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app", *args], capture_output=True, text=True, timeout=60
    )


def test_a_mistyped_subcommand_suggests_the_nearest_and_v_says_the_version() -> None:
    done = _showdesk("snyc")
    assert done.returncode == 2
    assert "Did you mean `showdesk sync`?" in done.stderr
    assert "Traceback" not in done.stderr
    version = _showdesk("-V")
    assert version.returncode == 0 and version.stdout.strip() == f"ShowDesk {__version__}"


def test_json_and_an_export_to_standard_output_are_refused_together(cli: Cli) -> None:
    done = cli("export", "customers", "-o", "-", "--json")
    assert done.returncode == 2 and done.stdout == ""
    assert "give -o a file" in valid("error", json.loads(done.stderr))["error"]
