"""`showdesk conflicts` and `showdesk resolve ID --mine|--theirs`: the changes in conflict with
the server, and settling one. In a team, a same-field conflict between two members is listed by
both — the member whose change is in conflict, under that change (with who holds the field on
the show), and the member whose change won, under its own applied change — and settled by either
for both (app/team/team_conflicts.py)."""

from __future__ import annotations

import argparse
from typing import Any, Literal

from app.commands.workspace import OK, UsageError, Workspace


def cmd_conflicts(args: argparse.Namespace, ws: Workspace) -> int:
    if ws.team is not None:  # what a teammate settled meanwhile first
        from app.team.relay import follow

        follow(ws.team.conn, ws.team.member, ws.outbox, ws.cache)
    conflicts = ws.outbox.changes(("conflict",))
    against = _against(ws, [c.seq for c in conflicts])
    for c in conflicts:
        theirs = c.theirs or {}
        who = against.get(c.seq)
        ws.out.line(f"#{c.seq} {c.resource} {c.record_id} ({c.op})"
                    + (f": {who}'s value is on the show" if who else ""))  # fmt: skip
        fields = []
        for name, before, mine in c.diff():
            ws.out.line(f"    {name}: was {before!r}, mine {mine!r}, theirs {theirs.get(name)!r}")
            fields.append({"field": name, "was": before, "mine": mine, "theirs": theirs.get(name)})
        ws.out.add(
            "conflicts",
            {"id": c.seq, "resource": c.resource, "record_id": c.record_id, "op": c.op,
             "key": c.key_value, "fields": fields, "with": who, "won": False},
        )  # fmt: skip
    won = _won(ws)
    if not conflicts and not won:
        ws.out.set(conflicts=[])
        ws.out.line("No conflicts.")
    return OK


def _against(ws: Workspace, seqs: list[int]) -> dict[int, str]:
    """The teammate whose value the show holds, per change in conflict (a team's only)."""
    if ws.team is None or not seqs:
        return {}
    from app.team.team_conflicts import opponents

    return opponents(ws.team.conn, ws.team.member, seqs)


def _won(ws: Workspace) -> int:
    """List the teammates' changes in conflict with this member's applied ones (theirs came
    second: the show holds this member's value); answer how many."""
    if ws.team is None:
        return 0
    from app.team.team_conflicts import displaced

    found = displaced(ws.team.conn, ws.team.member)
    for d in found:
        ws.out.line(f"#{d.seq} {d.resource} {d.record_key} (update): yours is on the show; "
                    f"{d.teammate}'s change came second")  # fmt: skip
        fields: list[dict[str, Any]] = []
        for name, was, mine, theirs in d.fields:
            ws.out.line(f"    {name}: was {was!r}, mine {mine!r}, theirs {theirs!r}")
            fields.append({"field": name, "was": was, "mine": mine, "theirs": theirs})
        ws.out.add(
            "conflicts",
            {"id": d.seq, "resource": d.resource, "record_id": d.record_key, "op": "update",
             "key": None, "fields": fields, "with": d.teammate, "won": True},
        )  # fmt: skip
    return len(found)


def cmd_resolve(args: argparse.Namespace, ws: Workspace) -> int:
    choice: Literal["mine", "theirs"] = "mine" if args.mine else "theirs"
    if ws.team is not None:
        return _resolve_in_team(args.id, choice, ws)
    change = ws.outbox.get(args.id)
    if change is None or change.state != "conflict":
        raise UsageError(f"#{args.id} is not a change in conflict (see `showdesk conflicts`)")
    ws.outbox.resolve(args.id, choice)
    ws.out.set(id=args.id, kept=choice)
    ws.out.line(
        f"#{args.id}: {'your version will be pushed' if args.mine else 'the server version kept'}"
    )
    return OK


def _resolve_in_team(seq: int, choice: Literal["mine", "theirs"], ws: Workspace) -> int:
    """Settle the conflict for both members: this member's change in conflict, or a teammate's
    that this member's applied change `seq` won over; told when a teammate settled it first."""
    from app.team.relay import follow
    from app.team.team_conflicts import resolve

    team = ws.team
    assert team is not None
    follow(team.conn, team.member, ws.outbox, ws.cache)
    done = resolve(team.conn, team.member, ws.outbox, seq, choice)
    if done is None:
        raise UsageError(f"#{seq} is not a change in conflict (see `showdesk conflicts`)")
    if done.kept is None:
        follow(team.conn, team.member, ws.outbox, ws.cache)
        ws.out.set(id=seq, kept=None, settled_by=done.settled_by)
        ws.out.line(f"#{seq}: already settled by {done.settled_by}; nothing more to do")
        return OK
    ws.out.set(id=seq, kept=done.kept, settled_by=team.member)
    if done.teammates:  # this member's change had won
        them = ", ".join(done.teammates)
        ws.out.line(f"#{seq}: your value stays on the show; {them}'s change is dropped"
                    if done.kept == "mine" else
                    f"#{seq}: {them}'s value will be pushed (by the next push, yours or "
                    "theirs)")  # fmt: skip
        return OK
    kept = "your version will be pushed" if choice == "mine" else "the server version kept"
    ws.out.line(f"#{seq}: {kept}")
    return OK
