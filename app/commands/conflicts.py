"""`showdesk conflicts` and `showdesk resolve ID --mine|--theirs`: the changes in conflict with
the server, and settling one."""

from __future__ import annotations

import argparse

from app.commands.workspace import OK, UsageError, Workspace


def cmd_conflicts(args: argparse.Namespace, ws: Workspace) -> int:
    conflicts = ws.outbox.changes(("conflict",))
    for c in conflicts:
        theirs = c.theirs or {}
        ws.out.line(f"#{c.seq} {c.resource} {c.record_id} ({c.op})")
        fields = []
        for name, before, mine in c.diff():
            ws.out.line(f"    {name}: was {before!r}, mine {mine!r}, theirs {theirs.get(name)!r}")
            fields.append({"field": name, "was": before, "mine": mine, "theirs": theirs.get(name)})
        ws.out.add(
            "conflicts",
            {"id": c.seq, "resource": c.resource, "record_id": c.record_id, "op": c.op,
             "key": c.key_value, "fields": fields},
        )  # fmt: skip
    if not conflicts:
        ws.out.set(conflicts=[])
        ws.out.line("No conflicts.")
    return OK


def cmd_resolve(args: argparse.Namespace, ws: Workspace) -> int:
    change = ws.outbox.get(args.id)
    if change is None or change.state != "conflict":
        raise UsageError(f"#{args.id} is not a change in conflict (see `showdesk conflicts`)")
    ws.outbox.resolve(args.id, "mine" if args.mine else "theirs")
    ws.out.set(id=args.id, kept="mine" if args.mine else "theirs")
    ws.out.line(
        f"#{args.id}: {'your version will be pushed' if args.mine else 'the server version kept'}"
    )
    return OK
