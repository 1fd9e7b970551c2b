"""`showdesk import`: the rows of a CSV/XLSX file queued as changes (or, with `--dry-run`, what
each row would change)."""

from __future__ import annotations

import argparse

from app.commands.workspace import OK, SOME_FAILED, UsageError, Workspace
from app.words import count


def cmd_import(args: argparse.Namespace, ws: Workspace) -> int:
    from app.sync import importer  # openpyxl is slow to import: only when needed

    out = ws.out
    _require_synced(ws, args.resource)
    plan = importer.plan_import(
        ws.cache,
        args.resource,
        args.file,
        key=args.key,
        delimiter=args.delimiter,
        encoding=args.encoding,
    )
    counts = importer.row_counts(plan)
    seconds = plan.duration_at(ws.profile.rate_limit, ws.profile.rate_window)
    out.line(
        f"{counts['creates']} to create, {counts['updates']} to update, "
        f"{counts['unchanged']} unchanged, {counts['errors']} with errors; "
        f"{count(plan.requests, 'request')}, about {seconds:.0f} s at {ws.profile.rate_limit}/"
        f"{ws.profile.rate_window:g} s"
    )
    if args.dry_run:  # what each row would change, before anything lands
        from app.sync.import_lines import iter_changes

        for line in iter_changes(plan):
            out.line(line)
    for line in importer.iter_errors(plan):
        out.line(line)
    if plan.errors:
        errors_file = args.file.with_name(args.file.stem + ".errors" + args.file.suffix)
        importer.write_errors_file(plan, errors_file)
        out.line(f"Rows with errors written to {errors_file}: fix them there and import that file.")
    if not args.dry_run:
        queued = importer.apply(plan, ws.outbox)
        out.line(f"{count(len(queued), 'change')} queued; run `showdesk push` to send them.")
    return SOME_FAILED if plan.errors else OK


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
