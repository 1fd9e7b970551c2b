"""`showdesk import`: the rows of a CSV/XLSX file queued as changes (or, with `--dry-run`, what
each row would change)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from app.commands.workspace import OK, SOME_FAILED, UsageError, Workspace
from app.wording.words import count

if TYPE_CHECKING:
    from app.sync.files.import_stream import ImportStream


def cmd_import(args: argparse.Namespace, ws: Workspace) -> int:
    """Plan the file row by row (streamed: app/sync/files/import_stream.py), print the exact totals,
    then the detail spooled while planning, and queue the changes (unless `--dry-run`)."""
    from app.sync.files import importer  # openpyxl is slow to import: only when needed
    from app.sync.files.import_file import open_table
    from app.sync.files.import_stream import ImportStream

    out = ws.out
    _require_synced(ws, args.resource)
    table = open_table(args.file, delimiter=args.delimiter, encoding=args.encoding)
    resource = ws.registry[args.resource]
    flags = {"lines": args.dry_run, "json_rows": out.json_mode, "queue": not args.dry_run}
    with ImportStream(resource, **flags) as stream:
        plan = importer.stream_import(ws.cache, args.resource, table, stream.take, args.key)
        return _report(args, ws, stream, plan.columns)


def _report(
    args: argparse.Namespace, ws: Workspace, stream: ImportStream, columns: list[str]
) -> int:
    """The totals line first, then each row's detail in the file's order, the errors file,
    and the changes queued."""
    from app.sync.files import importer

    out, counts = ws.out, stream.counts
    seconds = stream.requests * ws.profile.rate_window / ws.profile.rate_limit
    out.line(
        f"{counts['creates']} to create, {counts['updates']} to update, "
        f"{counts['unchanged']} unchanged, {counts['errors']} with errors; "
        f"{count(stream.requests, 'request')}, about {seconds:.0f} s at {ws.profile.rate_limit}/"
        f"{ws.profile.rate_window:g} s"
    )
    out.set(
        resource=args.resource,
        dry_run=args.dry_run,
        totals={**counts, "requests": stream.requests, "seconds": round(seconds, 1)},
    )
    if stream.rows is not None:
        out.stream("rows", lambda: stream.rows or ())
    for spool in (stream.change_lines, stream.warnings, stream.errors):
        for line in spool or ():  # the change lines (a dry run), warnings, errors
            out.line(line)
    errors_file = None
    if counts["errors"]:
        errors_file = args.file.with_name(args.file.stem + ".errors" + args.file.suffix)
        importer.write_error_rows(errors_file, columns, stream.failing, args.file)
        out.line(f"Rows with errors written to {errors_file}: fix them there and import that file.")
    out.set(errors_file=None if errors_file is None else str(errors_file))
    if not args.dry_run:
        queued = ws.outbox.add_counted(stream.changes())  # one transaction
        out.set(queued=queued)
        out.line(f"{count(queued, 'change')} queued; run `showdesk push` to send them.")
    code = SOME_FAILED if counts["errors"] else OK
    out.finish(code)  # now: the document's rows are read from the stream's spool
    return code


def _require_synced(ws: Workspace, slug: str) -> None:
    """An import tells a new record from an edit by the cached records: with a resource never
    synced every row would look new, so it is refused rather than guessed (creates that
    duplicate the show's records)."""
    resource = ws.registry[slug]  # an unknown slug is a usage error
    state = ws.cache.sync_state(slug)
    if resource.can("list") and (state is None or state.last_completed is None):
        raise UsageError(
            f"{resource.title} has never been synced, so ShowDesk cannot tell new records from "
            f"edits: sync {resource.title} first (showdesk sync --resource {slug})"
        )
