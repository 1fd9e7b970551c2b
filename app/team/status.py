"""What this member sees of the team: one value, `TeamStatus`, for `showdesk status` and the window.

`read_status(team)` is the one place the team's facts are gathered, so the command line, the
status bar and View ▸ Team can never disagree. Today it reads who is in the team (online or not,
last seen, by the database server's clock). The other parts of team mode add their facts here,
as fields of `TeamStatus` filled in `read_status` (see its docstring): who holds the team's sync,
the team's budget use, teammates' pending changes. The words are Qt-free too (`summary_text`,
`member_lines`, `TeamStatus.lines`, `TeamStatus.as_json`); the window only lays them out.

A team database that cannot be reached is a status too (`unreachable`): the member keeps working
on its own data, and the last list of members read is kept, marked as not current.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from app.team.team import Member

if TYPE_CHECKING:
    from app.team.budget_use import TeamBudgetUse
    from app.team.team import Team

UNREACHABLE_TEXT = "Team database unreachable — working on your own data"
UNREACHABLE_ERROR = "The team database cannot be reached"  # app.team.database's TeamError


@dataclass(frozen=True)
class TeamStatus:
    """The team as this member last read it.

    `reachable` False: the database did not answer (`problem` says why) and `members` is the
    last list read. `refused`: the database answered but cannot be used as configured (another
    show's database, a newer schema): the message says what to do.
    """

    member: str  # who this ShowDesk is to the team
    members: tuple[Member, ...] = ()
    as_of: datetime | None = None  # the database server's clock when read
    reachable: bool = True
    problem: str | None = None
    refused: bool = False
    # Extension points: the other parts of team mode fill these in `read_status` (None: unknown).
    sync_holder: str | None = None  # the member pulling from the API for the team (point 3)
    budget: str | None = None  # the team's budget use in words, e.g. "120 of 300 in 60 s"
    pending_by_others: int | None = None  # teammates' changes not yet applied (point 4)
    sharing: int | None = None  # members sharing the show's budget (online, or sending)
    rate: tuple[int, float] | None = None  # the show's budget: `limit` requests per `span` s
    pacing: str | None = None  # unreachable: how this member paces meanwhile (issue 29, 5)
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def online(self) -> list[Member]:
        return [m for m in self.members if m.online]

    def lines(self) -> list[str]:
        """`showdesk status`'s words about the team (after the solo lines, which stay as they
        were)."""
        lines = [summary_text(self) + (f" ({self.problem})" if self.problem else "")]
        lines += [f"  Meanwhile {self.pacing}"] if self.pacing else []
        lines += [f"  {line}" for line in member_lines(self)]
        lines += [f"  {line}" for line in _fact_lines(self)]
        return lines

    def as_json(self) -> dict[str, Any]:
        """`showdesk status --json`'s "team" entry."""
        return {
            "member": self.member,
            "reachable": self.reachable,
            "problem": self.problem,
            "as_of": _iso(self.as_of),
            "online": len(self.online),
            "members": [
                {"name": m.name, "host": m.host, "online": m.online, "last_seen": _iso(m.last_seen)}
                for m in self.members
            ],
            "sync_holder": self.sync_holder,
            "budget": self.budget,
            "pending_by_others": self.pending_by_others,
            "sharing": self.sharing,
            "pacing": self.pacing,
        }


def read_status(team: Team) -> TeamStatus:
    """The team's facts now, read through this member's open team (raises psycopg's errors
    when the database stops answering: the caller turns them into `unreachable`): who is in
    the team, who holds the team's sync, the team's budget use, teammates' pending changes.

    Extension point: each part of team mode adds its facts here, one line each.
    """
    from app.team.budget_use import members_sharing, team_budget_use
    from app.team.sync_lead import sync_holder

    use = team_budget_use(team.conn)
    return TeamStatus(
        team.member,
        tuple(team.members()),
        as_of=team.server_time(),
        sync_holder=sync_holder(team.conn),
        budget=budget_text(use),
        pending_by_others=pending_by_others(team),
        sharing=members_sharing(team.conn, use.span),
        rate=(use.limit, use.span),
    )


def budget_text(use: TeamBudgetUse) -> str:
    """The team's budget use in words: "12 of 300 in 60 s", and the team's pause if any."""
    text = f"{use.used:,} of {use.limit:,} in {use.span:g} s"
    if use.paused_until is not None:
        text += f", paused {math.ceil(use.resume_in)} s more"
    return text


def pending_by_others(team: Team) -> int:
    """How many of the team's changes not yet on the show were made by teammates."""
    row = team.conn.execute(
        "SELECT count(*) FROM team_changes WHERE member <> %s AND state = 'pending'",
        (team.member,),
    ).fetchone()
    return int(row[0]) if row else 0


def pending_notes(
    pending: Mapping[str, Sequence[tuple[str, str | None, Any, datetime]]],
    when: Callable[[datetime], str] | None = None,
) -> dict[str, dict[str | None, str]]:
    """Teammates' pending changes of one resource (app.team.relay `teammates_pending`) as the
    grid's and the form's tooltips: {record key: {field (None: the whole record): "who, when"}}
    — "ben, 2026-11-23 21:40:12: pending"; several teammates on one field are all named."""
    notes: dict[str, dict[str | None, str]] = {}
    for key, changes in pending.items():
        fields: dict[str | None, list[str]] = {}
        for member, name, value, moment in changes:
            what = f" ({value})" if name is None else ""
            said = f"{member}, {(when or local_time)(moment)}{what}"
            if said not in fields.setdefault(name, []):
                fields[name].append(said)
        notes[key] = {name: "Pending change by " + "; ".join(said) for name, said in fields.items()}
    return notes


def unreachable(
    member: str, problem: str, last: TeamStatus | None = None, pacing: str | None = None
) -> TeamStatus:
    """The database did not answer: the member works on its own data; the last list is kept,
    every member shown as not known to be online any more; how it paces meanwhile (`pacing`,
    else its share by the last status read: app/team/offline_share.py)."""
    members = tuple(replace(m, online=False) for m in last.members) if last else ()
    as_of = last.as_of if last else None
    if pacing is None and last is not None and last.rate and last.sharing:
        pacing = offline_pacing(last.rate[0], last.rate[1], last.sharing)
    return TeamStatus(member, members, as_of, reachable=False, problem=problem,
                      sharing=last.sharing if last else None, rate=last.rate if last else None,
                      pacing=pacing)  # fmt: skip


def offline_pacing(limit: int, span: float, sharing: int) -> str:
    """How a member paces while the database is away, in words (its share of the budget)."""
    from app.team.offline_share import OfflinePacing

    members = max(1, sharing)
    return OfflinePacing(max(1, limit // members), limit, span, members).text()


def refused(member: str, problem: str) -> TeamStatus:
    """The database answered but cannot be used as configured (the message says what to do)."""
    return TeamStatus(member, reachable=False, problem=problem, refused=True)


def failed(member: str, exc: Exception, last: TeamStatus | None = None) -> TeamStatus:
    """The status after the database call that raised `exc`: unreachable (the server did not
    answer, the connection broke) or refused (it answered: the message says what to fix)."""
    from app.team.database import TeamError

    message = first_line(exc)
    if isinstance(exc, TeamError) and not message.startswith(UNREACHABLE_ERROR):
        return refused(member, message)
    return unreachable(member, message, last)


def summary_text(status: TeamStatus) -> str:
    """The status bar's words: "Team: 3 online", or why the team is not there."""
    if status.refused:
        return "Team database refused — working on your own data"
    if not status.reachable:
        return UNREACHABLE_TEXT
    return f"Team: {len(status.online)} online"


def facts_text(status: TeamStatus) -> str:
    """The status bar's words after "Team: N online": who holds the sync, the team's budget
    use ("sync: ben · budget 12 of 300 in 60 s"); empty when unknown (unreachable)."""
    if not status.reachable:
        return status.pacing or ""
    facts = [f"sync: {status.sync_holder}"] if status.sync_holder else []
    if status.budget is not None:
        facts.append(f"budget {status.budget}")
    return " · ".join(facts)


def member_lines(status: TeamStatus, when: Callable[[datetime], str] | None = None) -> list[str]:
    """One line per member: name, host, online or not, last seen and how long ago (`when`
    writes a moment: local time by default, the window's locale in the window)."""
    lines = []
    for m in status.members:
        you = " (you)" if m.name == status.member else ""
        state = "online" if m.online else "offline"
        seen = f"last seen {(when or local_time)(m.last_seen)}"
        ago = seen_ago(m.last_seen, status.as_of)
        lines.append(f"{m.name}{you} on {m.host}: {state}, {seen}" + (f" ({ago})" if ago else ""))
    return lines


def _fact_lines(status: TeamStatus) -> list[str]:
    facts = []
    if status.sync_holder is not None:
        facts.append(f"Sync held by {status.sync_holder}")
    elif status.reachable and status.as_of is not None:
        facts.append("Sync held by nobody (no sync under way)")
    if status.budget is not None:
        facts.append(f"Team budget: {status.budget}")
    if status.pending_by_others is not None:
        facts.append(f"Teammates' pending changes: {status.pending_by_others:,}")
    return facts


def local_time(moment: datetime) -> str:
    """A moment in this machine's time zone, to the second."""
    return moment.astimezone().strftime("%Y-%m-%d %H:%M:%S")


def seen_ago(moment: datetime, now: datetime | None) -> str | None:
    """ "just now", "5 min ago", "3 h ago", "2 days ago" by the server's clock (None: unknown)."""
    if now is None:
        return None
    seconds = max(0.0, (now - moment).total_seconds())
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{int(seconds // 60)} min ago"
    if seconds < 86400:
        return f"{int(seconds // 3600)} h ago"
    days = int(seconds // 86400)
    return f"{days} day{'' if days == 1 else 's'} ago"


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat(timespec="seconds")


def first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
