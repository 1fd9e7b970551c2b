"""Helpers of the team-outbox tests: edits queued in a member's own outbox (as its window would),
the team outbox read straight from the database, and the simulator's record of what it received."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import psycopg

from app.api.registry import default_registry
from app.sim import SimServer
from app.store.cache import Cache
from app.store.changes import Change
from app.store.outbox import Outbox
from app.sync.edit.editor import Editor, FieldEdit
from app.team.database import TeamDatabase
from app.team.relay import hand_over
from app.team.team import open_team
from tests.team.members import TeamMember

REGISTRY = default_registry()
PUT_CUSTOMER = ("PUT", "/Customer/{id}")
POST_CUSTOMER = ("POST", "/Customer")


def queue(
    member: TeamMember, edits: Sequence[FieldEdit], creates: Sequence[dict[str, Any]] = ()
) -> list[int]:
    """Stage edits and creates of customers in the member's outbox; answer their seqs."""
    with Cache(member.cache, REGISTRY) as cache, Outbox(member.outbox) as outbox:
        editor = Editor(cache, outbox, REGISTRY)
        staged = editor.stage("customers", list(edits))
        assert not staged.rejected, staged.rejected
        seqs = list(staged.seqs)
        for values in creates:
            seq, rejected = editor.create("customers", values)
            assert seq is not None, rejected
            seqs.append(seq)
    return seqs


def relay(member: TeamMember) -> int:
    """What the member's next push does first: its pending changes into the team outbox."""
    database = TeamDatabase(member.team_url, member=member.name)
    server = member.server
    with open_team(database, server.base_url, server.show_id) as team, Outbox(member.outbox) as o:
        return hand_over(team.conn, member.name, o)


def states(url: str) -> Counter[str]:
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT state, count(*) FROM team_changes GROUP BY state").fetchall()
    return Counter({state: int(n) for state, n in rows})


def query(url: str, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    with psycopg.connect(url) as conn:
        return conn.execute(sql, args).fetchall()


def local_states(member: TeamMember) -> dict[str, int]:
    with Outbox(member.outbox) as outbox:
        return {k: v for k, v in outbox.counts().items() if v}


def changes(member: TeamMember, state: str) -> list[Change]:
    with Outbox(member.outbox) as outbox:
        return outbox.changes((state,))  # type: ignore[arg-type]


def customer(server: SimServer, record_id: str) -> dict[str, Any]:
    with server.show.lock:
        found = server.show.get("customers", record_id)
    assert found is not None
    return dict(found)


def by_key(server: SimServer, key: str) -> list[dict[str, Any]]:
    with server.show.lock:
        return [dict(r) for r in server.show.records("customers") if r.get("customerID") == key]
