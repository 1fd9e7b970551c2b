"""`showdesk audit`: the audit log of pushed changes as CSV or JSON (the team's shared log, with
who made each change, in team mode)."""

from __future__ import annotations

import argparse
from dataclasses import asdict
from pathlib import Path
from typing import Any, Literal

from app.commands.workspace import OK, Workspace
from app.sync.files.output_file import is_stdout


def cmd_audit(args: argparse.Namespace, ws: Workspace) -> int:
    path: Path = args.output
    fmt: Literal["csv", "json"] = "json" if path.suffix == ".json" else "csv"
    if ws.out.json_mode and is_stdout(path):  # the audit itself is the JSON document's rows
        ws.out.set(rows=_rows(ws), path=None, format="json")
        return OK
    if ws.team is not None:  # the team's shared audit, with who made each change (issue 15)
        from app.team.team_outbox import export_audit

        count = export_audit(ws.team, path, fmt)
    else:
        from app.sync.files.audit_export import export

        count = export(ws.outbox.audit_rows(), path, fmt)
    ws.out.set(count=count, path=str(path), format=fmt)
    if is_stdout(path):
        ws.out.warn(f"{count} audit rows written to standard output")
    else:
        ws.out.line(f"{count} audit rows written to {path}")
    return OK


def _rows(ws: Workspace) -> list[dict[str, Any]]:
    if ws.team is not None:
        from app.team.team_outbox import audit_rows

        return audit_rows(ws.team)
    return [asdict(row) for row in ws.outbox.audit_rows()]
