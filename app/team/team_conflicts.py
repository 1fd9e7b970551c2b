"""A same-field conflict between two members: shown to both, settled by either, once.

Two members' changes to one field of one record are ordered by the team outbox; the first is
applied, the second meets the show as it then is and is in conflict against the value the show
holds — the first member's (`displaced_by` names that applied change, app/team/claims.py). The
member whose change is in conflict sees it in its own outbox, as any conflict ("theirs": the
show's record, read from the show). The member whose change won sees it under that change
(`displaced`), told once by its next push (`tell_winner`). Either settles it for both
(`resolve`), each in its own words:

- the loser's "mine" (or the winner's "theirs"): the loser's value goes to the show, rebuilt on
  the show's record, by the next push of anyone;
- the loser's "theirs" (or the winner's "mine"): the value on the show stays; the loser's
  change is dropped.

Either way the value left on the show is one a member chose. The team row is locked while it is
settled: the second member to resolve is told who settled it first, and its outbox follows
(app/team/relay.py `follow`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import psycopg
from psycopg.types.json import Jsonb

from app.store.changes import Change
from app.store.outbox import Outbox
from app.sync.push.verdicts import same_on_show

Connection = psycopg.Connection[Any]
Choice = Literal["mine", "theirs"]

_DISPLACED = """
SELECT l.id, l.member, l.resource, l.record_key, l.payload, l.changed_fields, l.theirs,
       w.local_seq, l.base
FROM team_changes l JOIN team_changes w ON w.id = l.displaced_by
WHERE w.member = %s AND l.state = 'conflict'
"""
_REOPEN = """
UPDATE team_changes SET state = 'pending', base = %s, payload = %s, changed_fields = %s,
    message = NULL, theirs = NULL, response = NULL, conflict_with = NULL, resolved_by = %s,
    settled = NULL, claim = NULL, followed = %s, winner_told = false
WHERE id = %s
"""
_DROP = """
UPDATE team_changes SET state = 'discarded', resolved_by = %s, settled = clock_timestamp(),
    claim = NULL, followed = %s
WHERE id = %s
"""


@dataclass(frozen=True)
class Displaced:
    """A teammate's change in conflict with one of this member's, whose value the show holds:
    `seq` is this member's own change (what `showdesk resolve` takes), `fields` (field, the value
    both edits were made on, the value on the show — this member's —, the teammate's value)."""

    team_id: int
    teammate: str
    seq: int
    resource: str
    record_key: str
    fields: list[tuple[str, Any, Any, Any]]


@dataclass(frozen=True)
class Resolved:
    """What `resolve` did: `kept` as the member asked, or nothing when `settled_by` (a teammate)
    had settled the conflict first; `teammates`: the members whose changes it settled too."""

    kept: Choice | None
    settled_by: str | None = None
    teammates: tuple[str, ...] = ()


def displaced(conn: Connection, member: str) -> list[Displaced]:
    """The open conflicts this member's applied changes won (the teammate's change waits)."""
    return [_displaced(row) for row in conn.execute(_DISPLACED + " ORDER BY l.id", (member,))]


def tell_winner(conn: Connection, member: str) -> list[Displaced]:
    """The open conflicts this member's changes won that it was not told of yet (now it is)."""
    rows = conn.execute(
        "UPDATE team_changes l SET winner_told = true FROM team_changes w "
        "WHERE w.id = l.displaced_by AND w.member = %s AND l.state = 'conflict' "
        "AND NOT l.winner_told RETURNING l.id, l.member, l.resource, l.record_key, l.payload, "
        "l.changed_fields, l.theirs, w.local_seq, l.base",
        (member,),
    ).fetchall()
    return sorted((_displaced(row) for row in rows), key=lambda d: d.team_id)


def opponents(conn: Connection, member: str, seqs: list[int]) -> dict[int, str]:
    """The teammate whose value the show holds, for each of these local changes in conflict."""
    rows = conn.execute(
        "SELECT local_seq, conflict_with FROM team_changes WHERE member = %s "
        "AND local_seq = ANY(%s) AND state = 'conflict' AND conflict_with IS NOT NULL",
        (member, seqs),
    ).fetchall()
    return {int(seq): str(who) for seq, who in rows}


def resolve(
    conn: Connection, member: str, outbox: Outbox, seq: int, choice: Choice
) -> Resolved | None:
    """Settle the conflict of this member's change `seq`, for both sides: its own change in
    conflict, or a teammate's change its applied change `seq` won over. None: `seq` is neither."""
    local = outbox.get(seq)
    if local is None:
        return None
    if local.state == "conflict":
        return _resolve_own(conn, member, outbox, local, choice)
    if local.state == "done":
        return _resolve_won(conn, member, seq, choice)
    row = conn.execute(  # followed already: a teammate settled it
        "SELECT resolved_by FROM team_changes WHERE member = %s AND local_seq = %s "
        "AND resolved_by IS NOT NULL AND resolved_by <> %s",
        (member, seq, member),
    ).fetchone()
    return None if row is None else Resolved(None, settled_by=str(row[0]))


def _resolve_own(
    conn: Connection, member: str, outbox: Outbox, local: Change, choice: Choice
) -> Resolved:
    with conn.transaction():
        row = conn.execute(
            "SELECT id, state, resolved_by FROM team_changes WHERE member = %s AND local_seq = %s "
            "FOR UPDATE",
            (member, local.seq),
        ).fetchone()
        if row is not None and row[1] != "conflict" and row[2] not in (None, member):
            return Resolved(None, settled_by=str(row[2]))
        outbox.resolve(local.seq, choice)
        if row is None or row[1] != "conflict":
            return Resolved(choice)  # not (or no longer) the team's: the next relay takes it
        now = outbox.get(local.seq)
        assert now is not None
        if choice == "theirs":
            conn.execute(_DROP, (member, True, row[0]))
        else:
            fields = Jsonb(list(now.changed_fields))
            conn.execute(_REOPEN, (_json(now.base), Jsonb(now.payload), fields, member, True,
                                   row[0]))  # fmt: skip
            conn.execute(
                "UPDATE team_changes SET local_version = %s WHERE id = %s", (now.updated_at, row[0])
            )
    return Resolved(choice)


def _resolve_won(conn: Connection, member: str, seq: int, choice: Choice) -> Resolved | None:
    """This member's applied change won over teammates' changes to the same field: "mine" keeps
    its value on the show (theirs are dropped), "theirs" sends theirs on the show's record."""
    with conn.transaction():
        rows = conn.execute(
            "SELECT l.id, l.member, l.theirs, l.payload, l.changed_fields FROM team_changes l "
            "JOIN team_changes w ON w.id = l.displaced_by WHERE w.member = %s "
            "AND w.local_seq = %s AND l.state = 'conflict' ORDER BY l.id FOR UPDATE OF l",
            (member, seq),
        ).fetchall()
        if not rows:
            return _settled_first(conn, member, seq)
        for team_id, _, theirs, payload, fields in rows:
            if choice == "mine":
                conn.execute(_DROP, (member, False, team_id))
                continue
            base = dict(theirs or {})
            rebuilt = {**base, **{f: (payload or {}).get(f) for f in fields or ()}}
            conn.execute(_REOPEN, (Jsonb(base), Jsonb(rebuilt), Jsonb(list(fields or ())),
                                   member, False, team_id))  # fmt: skip
    return Resolved(choice, teammates=tuple(sorted({str(r[1]) for r in rows})))


def _settled_first(conn: Connection, member: str, seq: int) -> Resolved | None:
    """No open conflict on `seq`: who settled the last one it had, if it had one."""
    row = conn.execute(
        "SELECT l.resolved_by FROM team_changes l JOIN team_changes w ON w.id = l.displaced_by "
        "WHERE w.member = %s AND w.local_seq = %s AND l.resolved_by IS NOT NULL "
        "ORDER BY l.id DESC LIMIT 1",
        (member, seq),
    ).fetchone()
    return None if row is None else Resolved(None, settled_by=str(row[0]))


def _displaced(row: Any) -> Displaced:
    team_id, teammate, resource, key, payload, names, theirs, seq, base = row
    payload, theirs, base = payload or {}, theirs or {}, base or {}
    fields = [
        (f, base.get(f), theirs.get(f), payload.get(f))
        for f in names or ()
        if not same_on_show(theirs.get(f), payload.get(f))
    ]
    return Displaced(int(team_id), str(teammate), int(seq), str(resource), str(key), fields)


def _json(value: dict[str, Any] | None) -> Jsonb | None:
    return None if value is None else Jsonb(value)
