"""`showdesk export`: a resource from the cache to a CSV, XLSX or JSON file (or stdout)."""

from __future__ import annotations

import argparse
from pathlib import Path

from app.commands.workspace import OK, UsageError, Workspace
from app.sync.files.output_file import is_stdout


def cmd_export(args: argparse.Namespace, ws: Workspace) -> int:
    from app.sync.files import resource_export  # with what it imports, only when an export runs

    res = ws.registry[args.resource]  # an unknown slug is a usage error
    to_stdout = args.output is not None and is_stdout(args.output)
    if to_stdout and ws.out.json_mode:
        raise UsageError("--json and -o - would both write standard output: give -o a file")
    if args.format:
        fmt = args.format
    elif args.output is not None and not to_stdout:
        fmt = resource_export.format_of(args.output)
    else:
        fmt = "csv"
    path = args.output if args.output is not None else Path(f"{args.resource}.{fmt}")
    shown = {}
    if args.pending:  # as the window shows it (the overlay of its table, form and view export)
        from app.sync.edit.overlay import PendingOverlay

        shown = PendingOverlay.read(ws.outbox, res.slug).export_options(res.key)
    result = resource_export.export(
        ws.cache,
        args.resource,
        path,
        fmt,
        headers=args.headers,
        guard=not args.keep_formulas,
        **shown,
    )
    ws.out.set(resource=args.resource, format=fmt, rows=result.rows, path=str(result.path))
    message = f"{result.rows} {args.resource} written to {result.path}"
    if to_stdout:
        ws.out.warn(message)  # stdout is the file itself
    else:
        ws.out.line(message)
    return OK
