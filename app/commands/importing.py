"""`showdesk import`: the rows of a CSV/XLSX file queued as changes (or, with `--dry-run`, what
each row would change)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from app.commands.workspace import OK, SOME_FAILED, UsageError, Workspace
from app.words import count

if TYPE_CHECKING:
    from app.sync.importer import ImportPlan


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
    out.set(
        resource=args.resource,
        dry_run=args.dry_run,
        totals={**counts, "requests": plan.requests, "seconds": round(seconds, 1)},
    )
    for row in rows_json(plan):
        out.add("rows", row)
    if args.dry_run:  # what each row would change, before anything lands
        from app.sync.import_lines import iter_changes

        for line in iter_changes(plan):
            out.line(line)
    for warning in plan.warnings:  # values a spreadsheet may have damaged: said, still planned
        out.line(f"warning: {warning}")
    for line in importer.iter_errors(plan):
        out.line(line)
    errors_file = None
    if plan.errors:
        errors_file = args.file.with_name(args.file.stem + ".errors" + args.file.suffix)
        importer.write_errors_file(plan, errors_file)
        out.line(f"Rows with errors written to {errors_file}: fix them there and import that file.")
    out.set(errors_file=None if errors_file is None else str(errors_file))
    if not args.dry_run:
        queued = importer.apply(plan, ws.outbox)
        out.set(queued=len(queued))
        out.line(f"{count(len(queued), 'change')} queued; run `showdesk push` to send them.")
    return SOME_FAILED if plan.errors else OK


def rows_json(plan: ImportPlan) -> list[dict[str, Any]]:
    """Every row of the file as `import --json` lists it, in the file's order: what it does
    (create, update, unchanged, error), its changes field by field, its errors and warnings."""
    rows: dict[tuple[str, int], dict[str, Any]] = {}

    def row(sheet: str | None, number: int, action: str, key: str | None) -> dict[str, Any]:
        entry = rows.setdefault(
            (sheet or "", number),
            {"line": number, "sheet": sheet, "key": key, "action": action, "changes": [],
             "errors": [], "warnings": []},
        )  # fmt: skip
        return entry

    for planned in (*plan.creates, *plan.updates):
        action = "create" if planned.record_id is None else "update"
        entry = row(planned.sheet, planned.row_number, action, planned.key_value)
        entry["changes"] = [
            {"field": name, "old": old, "new": new} for name, (old, new) in planned.changes.items()
        ]
    for number in plan.unchanged:
        row(None, number, "unchanged", None)
    for error in plan.errors:
        entry = row(error.sheet, error.row_number, "error", error.raw.get(plan.key) or None)
        entry["action"] = "error"
        entry["errors"].append({"field": error.field, "reason": error.reason})
    for loss in plan.warnings:
        entry = row(loss.sheet, loss.row_number, "update", None)
        entry["warnings"].append(
            {"field": loss.field, "cached": loss.cached, "read": loss.read, "why": loss.why}
        )
    return [rows[k] for k in sorted(rows, key=lambda k: (k[0], k[1]))]


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
