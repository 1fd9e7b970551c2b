"""`showdesk audit`: the audit log of pushed changes as CSV or JSON (the team's shared log, with
who made each change, in team mode)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Literal

from app.commands.workspace import OK, Workspace


def cmd_audit(args: argparse.Namespace, ws: Workspace) -> int:
    path: Path = args.output
    fmt: Literal["csv", "json"] = "json" if path.suffix == ".json" else "csv"
    if ws.team is not None:  # the team's shared audit, with who made each change (issue 15)
        from app.team.team_outbox import export_audit

        rows = export_audit(ws.team, path, fmt)
    else:
        rows = ws.outbox.export_audit(path, fmt)
    ws.out.set(rows=rows, path=str(path), format=fmt)
    ws.out.line(f"{rows} audit rows written to {path}")
    return OK
