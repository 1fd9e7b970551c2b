"""Between a member's local outbox and the team's: relaying changes in, following results out.

The member's local SQLite outbox stays the first durable home of every edit (offline, or with
the database down, nothing changes for the user). `hand_over` relays the local pending changes
into `team_changes`, keyed by (member, local seq): relaying twice — a member that reconnects, a
push killed half-way — inserts nothing twice. Each change relayed takes its turn, the order the
claims give records out in (`_TAKE_TURNS`, decision 0041). A local change reworked since it
was relayed (retried, a conflict resolved: its `updated_at` moved) is relayed again when the team
had settled it as failed or in conflict (on the base the conflict was resolved against: the show's
record as read); one the user discarded (undo) is withdrawn from the team while nobody holds its
record. `follow` brings the team's results for this member's own changes back into the local
outbox (done, failed, conflict) — and a conflict a teammate settled (app/team/team_conflicts.py:
its change won, and it kept its value or took this member's) — so `showdesk status`, the outbox
view and the undo rules work as solo. `teammates_pending` is
what the window tints.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from app.store.cache import Cache
from app.store.changes import Change
from app.store.outbox import Outbox, OutboxError

Connection = psycopg.Connection[Any]
Pending = dict[str, list[tuple[str, str | None, Any, datetime]]]

_INSERT = """
INSERT INTO team_changes (member, local_seq, local_version, resource, record_key, op, params,
    payload, changed_fields, base, key_value, made_at, attempts)
VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)
ON CONFLICT (member, local_seq) DO UPDATE SET
    local_version = excluded.local_version, payload = excluded.payload,
    changed_fields = excluded.changed_fields, key_value = excluded.key_value,
    base = excluded.base, params = excluded.params, state = 'pending', message = NULL,
    theirs = NULL, conflict_with = NULL, response = NULL, settled = NULL, followed = false,
    resolved_by = NULL, turn = NULL
WHERE team_changes.state IN ('failed', 'conflict', 'discarded')
  AND team_changes.local_version <> excluded.local_version
"""

# The member's changes relayed without a turn, in order, take the turns after its last pending
# change's — or, waiting for nothing until now, from the turn being served (the least pending
# turn), or after every turn given when nothing is pending (start-time fair queueing).
_TAKE_TURNS = """
WITH base AS (
    SELECT coalesce(
        (SELECT max(turn) FROM team_changes WHERE member = %(member)s AND state = 'pending'),
        (SELECT min(turn) FROM team_changes WHERE state = 'pending') - 1,
        (SELECT max(turn) FROM team_changes), 0) AS turn
), fresh AS (
    SELECT id, row_number() OVER (ORDER BY id) AS n FROM team_changes
    WHERE member = %(member)s AND state = 'pending' AND turn IS NULL
)
UPDATE team_changes t SET turn = base.turn + fresh.n FROM base, fresh WHERE t.id = fresh.id
"""


@dataclass
class Followed:
    """What `follow` moved in the local outbox (this member's own changes)."""

    done: int = 0
    failed: int = 0
    conflicts: int = 0
    resolved: int = 0  # conflicts a teammate settled (its change had won)
    seqs: list[int] = field(default_factory=list)  # the local changes that moved


def hand_over(
    conn: Connection,
    member: str,
    outbox: Outbox,
    resources: Collection[str] | None = None,
    seqs: Collection[int] | None = None,
) -> int:
    """Relay this member's local pending changes (of `resources`, or the changes `seqs`, only,
    when given: a narrowed push) into the team outbox (ONE transaction); withdraw the ones
    discarded locally since. Answers how many changes were relayed anew."""
    pending = [
        c
        for c in outbox.pending_for_push()
        if (resources is None or c.resource in resources) and (seqs is None or c.seq in seqs)
    ]
    with conn.transaction():
        known = _known(conn, member, [c.seq for c in pending])
        fresh = [c for c in pending if known.get(c.seq) != c.updated_at]
        with conn.cursor() as cur:
            cur.executemany(_INSERT, [_row(member, c) for c in fresh])
            for c in fresh:
                cur.execute(
                    "INSERT INTO team_chains (resource, record_key) VALUES (%s, %s) "
                    "ON CONFLICT DO NOTHING",
                    (c.resource, c.record_id),
                )
        _withdraw_discarded(conn, member, outbox)
        if fresh:
            conn.execute(_TAKE_TURNS, {"member": member})
    return len(fresh)


def _known(conn: Connection, member: str, seqs: Sequence[int]) -> dict[int, str]:
    """The local version the team holds of each of these changes (absent: never relayed)."""
    rows = conn.execute(
        "SELECT local_seq, local_version FROM team_changes WHERE member = %s "
        "AND local_seq = ANY(%s)",
        (member, list(seqs)),
    ).fetchall()
    return {int(seq): str(version) for seq, version in rows}


def _row(member: str, c: Change) -> tuple[Any, ...]:
    return (
        member,
        c.seq,
        c.updated_at,
        c.resource,
        c.record_id,
        c.op,
        Jsonb(c.params),
        Jsonb(c.payload),
        Jsonb(list(c.changed_fields)),
        None if c.base is None else Jsonb(c.base),
        c.key_value,
        c.created_at,
        c.attempts,  # sent before (a solo push): a create is looked up before it is resent
    )


def _withdraw_discarded(conn: Connection, member: str, outbox: Outbox) -> None:
    """A change the member undid (discarded locally) leaves the team outbox, unless a pusher
    holds its record right now (then it goes, and the local outbox follows what happened)."""
    rows = conn.execute(
        "SELECT id, local_seq FROM team_changes WHERE member = %s AND state = 'pending'",
        (member,),
    ).fetchall()
    gone = [
        int(team_id)
        for team_id, seq in rows
        if (local := outbox.get(int(seq))) is None or local.state == "discarded"
    ]
    if gone:
        conn.execute(
            "UPDATE team_changes t SET state = 'discarded', settled = clock_timestamp(), "
            "followed = true WHERE t.id = ANY(%s) AND t.state = 'pending' AND NOT EXISTS ("
            "SELECT 1 FROM team_chains ch WHERE ch.resource = t.resource "
            "AND ch.record_key = t.record_key AND ch.lease_until > clock_timestamp())",
            (gone,),
        )


def follow(conn: Connection, member: str, outbox: Outbox, cache: Cache | None = None) -> Followed:
    """The team's results for this member's changes, into the local outbox (and the server's
    answer into the cache): done, failed with the server's message, in conflict with the
    other side's values. Each result is followed once."""
    rows = conn.execute(
        "SELECT id, local_seq, local_version, state, message, response, theirs, server_id, "
        "resolved_by, base FROM team_changes WHERE member = %s AND NOT followed "
        "AND (state IN ('applied', 'failed', 'conflict') OR (state IN ('pending', 'discarded') "
        "AND resolved_by IS NOT NULL AND resolved_by <> %s)) ORDER BY id",
        (member, member),
    ).fetchall()
    result = Followed()
    done: list[tuple[Change, Any, str | None]] = []
    for team_id, seq, version, state, message, response, theirs, server_id, by, base in rows:
        local = outbox.get(int(seq))
        if local is not None and local.state == "conflict" and by not in (None, member):
            local, version = _settled_by_teammate(conn, outbox, local, int(team_id), state, base)
            result.seqs.append(local.seq)
            result.resolved += 1
        if local is None or local.state != "pending" or state in ("pending", "discarded"):
            continue  # settled (or discarded) here already, or waiting for a push
        if state != "applied" and local.updated_at != version:
            continue  # reworked since the team tried it: the new version is relayed anew
        try:
            outbox.mark_sending([local.seq])
        except OutboxError:
            continue  # this member's other window or command followed it just now
        result.seqs.append(local.seq)
        if state == "applied":
            done.append((local, response, server_id))
            continue
        if state == "failed":
            outbox.mark_failed(local.seq, str(message or "refused"), response)
            outbox.audit(local, f"failed: {message}")
            result.failed += 1
        else:
            outbox.mark_conflict(local.seq, theirs or {})
            outbox.audit(local, "conflict")
            result.conflicts += 1
    if done:
        outbox.mark_done_many(done)
        result.done = len(done)
        if cache is not None:
            _into_cache(cache, done)
    conn.execute(
        "UPDATE team_changes SET followed = true WHERE id = ANY(%s)", ([int(r[0]) for r in rows],)
    )
    return result


def _settled_by_teammate(
    conn: Connection,
    outbox: Outbox,
    local: Change,
    team_id: int,
    state: str,
    base: dict[str, Any] | None,
) -> tuple[Change, str]:
    """A conflict of this member's that the teammate whose value won settled: dropped (the
    show's value stays), or reopened on the show's record (this member's value goes, by the
    next push of anyone) — the local change follows; answers it and its version now."""
    if state == "discarded":
        outbox.resolve(local.seq, "theirs")
    else:
        outbox.resolve(local.seq, "mine", new_base=base)
    now = outbox.get(local.seq)
    assert now is not None
    conn.execute(
        "UPDATE team_changes SET local_version = %s WHERE id = %s", (now.updated_at, team_id)
    )
    return now, now.updated_at


def _into_cache(cache: Cache, done: Sequence[tuple[Change, Any, str | None]]) -> None:
    """The server's record as its answer gave it (a teammate pushed it: this cache had only
    the member's own pending version laid over the old one)."""
    records: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for change, response, _ in done:
        if change.op == "delete":
            cache.delete(change.resource, [change.effective_id])
        elif isinstance(response, dict) and response.get("id") is not None and len(response) > 2:
            records[change.resource].append(response)
    for slug, found in records.items():
        cache.upsert(slug, found)


def teammates_pending(conn: Connection, me: str, resource: str) -> Pending:
    """Teammates' changes to `resource` not yet on the show, for the window's tint:
    {record key: [(member, field, value, when relayed)]} — field None for a whole-record
    change (a create or delete: value is the operation). Record keys are server ids, or a
    teammate's local `new-…` id for a record not created yet."""
    rows = conn.execute(
        "SELECT record_key, member, op, changed_fields, payload, base, relayed FROM team_changes "
        "WHERE resource = %s AND member <> %s AND state = 'pending' ORDER BY id",
        (resource, me),
    ).fetchall()
    found: Pending = defaultdict(list)
    for key, member, op, fields, payload, base, when in rows:
        names = list(fields or []) or [
            f for f, v in (payload or {}).items() if (base or {}).get(f) != v and f != "id"
        ]
        if op in ("create", "delete") or not names:
            found[key].append((member, None, op, when))
            continue
        found[key] += [(member, name, (payload or {}).get(name), when) for name in names]
    return dict(found)
