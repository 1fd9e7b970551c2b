"""The headless `showdesk` commands: sync, push, import, export, status, conflicts, resolve, audit,
check.

They drive the same core as the window (client → cache/outbox → sync), for scripts, schedulers
and power users. Exit codes: 0 everything succeeded, 1 some rows failed or are in conflict,
2 usage or connection errors. Progress goes to stderr when it is a terminal.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from app.api.client import ShowClient
from app.api.errors import InvalidValue, ShowDeskError
from app.api.registry import Registry
from app.connect import TEAM_MEMBER_ENV, TEAM_URL_ENV, client_for, open_team_for, registry_for
from app.push_lines import outcome_lines
from app.settings import SECRET_ENV, Profile, ProfileStore, secrets
from app.store.cache import Cache
from app.store.changes import State
from app.store.outbox import Outbox
from app.store.sync_state import SyncState
from app.sync.change_list import attention_lines, group_by_record
from app.sync.overlay import PendingOverlay
from app.sync.puller import Puller, SyncProgress, SyncReport
from app.sync.push_plan import plan_push, plan_text
from app.sync.pusher import Pusher, PushProgress
from app.sync.show_summary import data_line, push_line, summarize, summary_json
from app.words import count

if TYPE_CHECKING:
    from app.team.status import TeamStatus
    from app.team.team import Team

OK, SOME_FAILED, USAGE = 0, 1, 2


class UsageError(Exception):
    """A command line that cannot be carried out as given (exit 2)."""


@dataclass
class Workspace:
    """What a command works on: the profile, its registry, cache and outbox."""

    profile: Profile
    registry: Registry
    cache: Cache
    outbox: Outbox
    team: Team | None = None  # the team's database, when the profile works in a team

    def client(self) -> ShowClient:
        secret = os.environ.get(SECRET_ENV) or secrets.get(self.profile)
        if not secret and secrets.failure:
            raise UsageError(
                f"No client secret for show {self.profile.show_id}: the keyring cannot be used "
                f"({secrets.failure}); set {SECRET_ENV} instead."
            )
        if not secret:
            raise UsageError(
                f"No client secret for show {self.profile.show_id}: set {SECRET_ENV} "
                "or save it in the profile (keyring)."
            )
        return client_for(self.profile, secret, self.registry, self.team)


def add_connection_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("connection")
    group.add_argument("--profile", help="a saved profile (the last one used by default)")
    group.add_argument("--base-url", help="the REST API's base URL (instead of a profile)")
    group.add_argument("--auth-url", help="the token endpoint (instead of a profile)")
    group.add_argument("--show-id", help="the show ID (instead of a profile)")
    group.add_argument("--cache", type=Path, help="use this cache file (outbox beside it)")
    group.add_argument("--rate", help="pacing as REQUESTS/SECONDS, e.g. 300/60")
    group.add_argument(
        "--team",
        metavar="URL",
        help=f"work in the team whose PostgreSQL database is URL (or ${TEAM_URL_ENV}); "
        "its password from the keyring or a pgpass file, never in the URL",
    )
    group.add_argument(
        "--member", help=f"who you are to the team (or ${TEAM_MEMBER_ENV}; default user@host)"
    )


def resolve_profile(args: argparse.Namespace) -> Profile:
    given = [args.base_url, args.auth_url, args.show_id]
    if any(given):
        if not all(given):
            raise UsageError("--base-url, --auth-url and --show-id go together")
        profile = Profile(f"show-{args.show_id}", args.base_url, args.auth_url, args.show_id)
    else:
        store = ProfileStore()
        name = args.profile or store.last
        found = store.get(name) if name else None
        if found is None:
            raise UsageError(
                f"No profile named {name!r}."
                if name
                else "No profile: give --profile NAME or --base-url, --auth-url and --show-id."
            )
        profile = found
    if args.rate:
        profile = replace(profile, **_rate(args.rate))
    team_url = args.team or os.environ.get(TEAM_URL_ENV)
    member = args.member or os.environ.get(TEAM_MEMBER_ENV)
    if team_url:
        profile = replace(profile, team_url=team_url)
    if member:
        profile = replace(profile, team_member=member)
    return profile


def _rate(text: str) -> dict[str, Any]:
    try:
        count, _, seconds = text.partition("/")
        limit, window = int(count), float(seconds or 60)
    except ValueError:
        raise UsageError(f"--rate takes REQUESTS/SECONDS, e.g. 300/60 (not {text!r})") from None
    if limit < 1 or window <= 0:
        raise UsageError("--rate needs at least one request per positive number of seconds")
    return {"rate_limit": limit, "rate_window": window}


@contextmanager
def workspace(args: argparse.Namespace) -> Iterator[Workspace]:
    profile = resolve_profile(args)
    registry = registry_for(profile)
    cache_path = args.cache or profile.cache_path
    outbox_path = profile.outbox_path if args.cache is None else _outbox_beside(args.cache)
    team = _open_team(profile, alone_if_down=getattr(args, "command", None) == "sync")
    try:
        with Cache(cache_path, registry) as cache, Outbox(outbox_path) as outbox:
            yield Workspace(profile, registry, cache, outbox, team)
    finally:
        if team is not None:
            team.close()


def _open_team(profile: Profile, alone_if_down: bool = False) -> Team | None:
    if not profile.team_url:
        return None
    from app.team.database import TeamError, TeamUnreachable

    try:
        return open_team_for(profile)
    except TeamUnreachable as exc:  # issue 15: a sync goes on alone, and says so
        if not alone_if_down:
            raise UsageError(str(exc)) from None
        print(f"{exc}: working alone on this machine's cache.", file=sys.stderr)
        return None
    except TeamError as exc:
        raise UsageError(str(exc)) from None


def _outbox_beside(cache: Path) -> Path:
    return cache.with_name(cache.stem + ".outbox.sqlite")


# ---------------------------------------------------------------------------------- progress


class Progress:
    """One rewritten line on stderr, only when stderr is a terminal."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr  # as it is now, not at import
        self.live = self.stream.isatty()

    def say(self, text: str) -> None:
        if self.live:
            self.stream.write("\r\x1b[K" + text)
            self.stream.flush()

    def done(self) -> None:
        if self.live:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


def _on_sync(progress: Progress) -> Callable[[SyncProgress], None]:
    return lambda p: progress.say(f"{p.title}: {count(p.done, 'record')}")


def _on_push(progress: Progress) -> Callable[[PushProgress], None]:
    return lambda p: progress.say(f"Pushed {p.done}/{p.total}")


async def _with_client(ws: Workspace, work: Callable[[ShowClient], Awaitable[int]]) -> int:
    async with ws.client() as client:
        return await work(client)


# ---------------------------------------------------------------------------------- commands


def cmd_sync(args: argparse.Namespace, ws: Workspace) -> int:
    progress = Progress()

    async def pull(cancel: asyncio.Event | None = None) -> SyncReport:
        async with ws.client() as client:
            puller = Puller(client, ws.cache, on_progress=_on_sync(progress))
            report = await puller.sync(args.resource or None, full=args.full, cancel=cancel)
        progress.done()
        return report

    if ws.team is None:
        report = asyncio.run(pull())
    else:  # one sync for the team, or a teammate's taken (issue 15)
        from app.team.shared_sync import sync_for_team

        led, code = sync_for_team(ws.team, ws.cache, pull)
        if led is None:
            return code
        report = led
    for r in report.resources:
        kind = "full" if r.full else "incremental"
        print(f"{r.resource}: {r.fetched} fetched, {r.removed} removed ({kind})")
    # issue 12: paging — what was learned, and every listing that could not be proved whole
    for notice in report.notices:
        print(notice, file=sys.stderr)
    for slug, message in report.failed:
        print(f"{slug}: sync failed, cached records kept: {message}", file=sys.stderr)
    offered = _warn_not_offered(ws, report)
    return SOME_FAILED if report.failed else offered


def _warn_not_offered(ws: Workspace, report: SyncReport) -> int:
    """One warning line per resource skipped as not offered; exit 1 only if nothing answered."""
    for slug, why in report.not_offered:
        title = ws.registry[slug].title
        print(f"{title}: not offered by this show ({why}); skipped", file=sys.stderr)
    if report.not_offered and not report.resources and not report.cancelled:
        print(
            "No resource answered: check the base URL, or run `showdesk check` to look for "
            "the paths this show uses.",
            file=sys.stderr,
        )
        return SOME_FAILED
    if report.not_offered:
        print("`showdesk check` looks for other paths of these resources.", file=sys.stderr)
    return OK


def cmd_push(args: argparse.Namespace, ws: Workspace) -> int:
    if args.dry_run:
        return _push_estimate(args, ws)
    if ws.team is not None:  # relay, push the team's claimed chains, follow (issue 15)
        from app.team.team_outbox import cmd_team_push

        return cmd_team_push(args, ws)
    progress = Progress()

    async def work(client: ShowClient) -> int:
        await client.auth.token()  # an unreachable show stops here: every change stays pending
        pusher = Pusher(client, ws.cache, ws.outbox, on_progress=_on_push(progress))
        sent = _to_push(ws.outbox, args.resource, args.retry_failed)
        report = await pusher.push(args.resource or None, retry_failed=args.retry_failed)
        progress.done()
        settled = ws.outbox.changes(("failed", "conflict"))
        for line in outcome_lines([c for c in settled if c.seq in sent], ws.registry):
            print(line, file=sys.stderr)
        print(
            f"{report.done} applied, {report.failed} failed, {report.conflicts} in conflict"
            + (
                f", {report.found_on_server} found already on the server"
                if report.found_on_server
                else ""
            )
        )
        for error in report.errors:
            print(error, file=sys.stderr)
        if report.unreachable is not None:  # every change not sent stays pending, said once
            kept = f"{count(report.kept, 'change')} {'stays' if report.kept == 1 else 'stay'}"
            print(
                f"The show cannot be reached ({report.unreachable}): {kept} pending, each with "
                "its attempt and the reason in the outbox.",
                file=sys.stderr,
            )
            return SOME_FAILED
        return USAGE if report.errors else (OK if report.clean else SOME_FAILED)

    return asyncio.run(_with_client(ws, work))


def _push_estimate(args: argparse.Namespace, ws: Workspace) -> int:
    """`push --dry-run`: the requests and time the push would take at the profile's current rate
    budget — the outbox review's own line — with nothing sent and the outbox untouched."""

    async def work(client: ShowClient) -> int:
        sent = _to_push(ws.outbox, args.resource, args.retry_failed)
        # What the push would send, as it would send it (a failed one retried goes as pending).
        changes = [replace(c, state="pending") for c in ws.outbox.changes() if c.seq in sent]
        plan = plan_push(changes, ws.registry)
        print(plan_text(plan, client.governor.state(), ws.profile.interactive_reserve))
        return OK

    return asyncio.run(_with_client(ws, work))


def _to_push(outbox: Outbox, resources: list[str] | None, retry_failed: bool) -> set[int]:
    """The changes a push is about to send (to tell afterwards which of them did not land)."""
    states: tuple[State, ...] = ("pending", "sending") + (("failed",) if retry_failed else ())
    return {c.seq for c in outbox.changes(states) if not resources or c.resource in resources}


def cmd_export(args: argparse.Namespace, ws: Workspace) -> int:
    from app.sync import resource_export  # openpyxl is slow to import: only when needed

    res = ws.registry[args.resource]  # an unknown slug is a usage error
    fmt = args.format or (resource_export.format_of(args.output) if args.output else "csv")
    path = args.output or Path(f"{args.resource}.{fmt}")
    # --pending: as the window shows it (the overlay of its table, form and view export)
    shown = PendingOverlay.read(ws.outbox, res.slug).export_options(res.key) if args.pending else {}
    result = resource_export.export(ws.cache, args.resource, path, fmt, **shown)
    print(f"{result.rows} {args.resource} written to {result.path}")
    return OK


def cmd_import(args: argparse.Namespace, ws: Workspace) -> int:
    from app.sync import importer  # openpyxl is slow to import: only when needed

    _require_synced(ws, args.resource)
    plan = importer.plan_import(ws.cache, args.resource, args.file, key=args.key)
    counts = importer.row_counts(plan)
    seconds = plan.duration_at(ws.profile.rate_limit, ws.profile.rate_window)
    print(
        f"{counts['creates']} to create, {counts['updates']} to update, "
        f"{counts['unchanged']} unchanged, {counts['errors']} with errors; "
        f"{count(plan.requests, 'request')}, about {seconds:.0f} s at {ws.profile.rate_limit}/"
        f"{ws.profile.rate_window:g} s"
    )
    if args.dry_run:  # what each row would change, before anything lands
        from app.sync.import_lines import iter_changes

        for line in iter_changes(plan):
            print(line)
    for line in importer.iter_errors(plan):
        print(line)
    if plan.errors:
        errors_file = args.file.with_name(args.file.stem + ".errors" + args.file.suffix)
        importer.write_errors_file(plan, errors_file)
        print(f"Rows with errors written to {errors_file}: fix them there and import that file.")
    if not args.dry_run:
        queued = importer.apply(plan, ws.outbox)
        print(f"{count(len(queued), 'change')} queued; run `showdesk push` to send them.")
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


def cmd_status(args: argparse.Namespace, ws: Workspace) -> int:
    counts = ws.cache.counts()
    states = ws.cache.sync_states()
    resources = {r.slug: _status_of(states.get(r.slug), counts.get(r.slug, 0)) for r in ws.registry}
    outbox = {k: v for k, v in ws.outbox.counts().items() if k in ("pending", "failed", "conflict")}
    summary = summarize(ws.profile.name, ws.profile.show_id, ws.cache, ws.outbox)  # the window's
    team = _team_status(ws)  # issue 15: who is in the team (None when solo)
    if args.json:
        data = {"profile": ws.profile.name, "resources": resources, "outbox": outbox}
        if team is not None:
            data["team"] = team.as_json()
        print(json.dumps({**data, **summary_json(summary)}))
    else:
        print(f"Profile {ws.profile.name} (show {ws.profile.show_id})")
        print(data_line(summary.data_as_of))
        for slug, info in resources.items():
            line = f"  {slug:24} {info['count']:>8}  last sync {info['last_sync'] or 'never'}"
            if info["not_offered"]:
                line += f"  not offered by this show ({info['not_offered']})"
            print(line)
        print("Outbox: " + ", ".join(f"{v} {k}" for k, v in outbox.items()))
        records = group_by_record(ws.outbox.changes(("failed", "conflict")))
        for line in attention_lines(records, ws.registry):  # what needs the user, per record
            print(f"  {line}")
        titles = {r.slug: r.title for r in ws.registry}
        for run in summary.last_pushes:
            print(f"Pushed {push_line(run, titles)}")
        for line in team.lines() if team else []:
            print(line)
    return OK


def _team_status(ws: Workspace) -> TeamStatus | None:
    if ws.team is None:  # solo: the team's modules (and driver) are never imported
        return None
    from app.team.status import read_status

    return read_status(ws.team)


def _status_of(state: SyncState | None, count: int) -> dict[str, Any]:
    """One resource in `status`: cached count, last sync, and why it is not offered, if so."""
    return {
        "count": count,
        "last_sync": _iso(state.last_completed) if state else None,
        "not_offered": state.not_offered if state else None,
        "not_offered_since": _iso(state.not_offered_at) if state and state.not_offered else None,
    }


def cmd_conflicts(args: argparse.Namespace, ws: Workspace) -> int:
    conflicts = ws.outbox.changes(("conflict",))
    for c in conflicts:
        theirs = c.theirs or {}
        print(f"#{c.seq} {c.resource} {c.record_id} ({c.op})")
        for name, before, mine in c.diff():
            print(f"    {name}: was {before!r}, mine {mine!r}, theirs {theirs.get(name)!r}")
    if not conflicts:
        print("No conflicts.")
    return OK


def cmd_resolve(args: argparse.Namespace, ws: Workspace) -> int:
    change = ws.outbox.get(args.id)
    if change is None or change.state != "conflict":
        raise UsageError(f"#{args.id} is not a change in conflict (see `showdesk conflicts`)")
    ws.outbox.resolve(args.id, "mine" if args.mine else "theirs")
    print(
        f"#{args.id}: {'your version will be pushed' if args.mine else 'the server version kept'}"
    )
    return OK


def cmd_audit(args: argparse.Namespace, ws: Workspace) -> int:
    path: Path = args.output
    if ws.team is not None:  # the team's shared audit, with who made each change (issue 15)
        from app.team.team_outbox import export_audit

        count = export_audit(ws.team, path, "json" if path.suffix == ".json" else "csv")
    else:
        count = ws.outbox.export_audit(path, "json" if path.suffix == ".json" else "csv")
    print(f"{count} audit rows written to {path}")
    return OK


def _iso(value: Any) -> str | None:
    return None if value is None else str(value.isoformat(timespec="seconds"))


def cmd_check(args: argparse.Namespace, ws: Workspace) -> int:
    from app.headless_check import cmd_check as check  # it imports this module

    return check(args, ws)


COMMANDS: dict[str, Callable[[argparse.Namespace, Workspace], int]] = {
    "check": cmd_check,
    "sync": cmd_sync,
    "push": cmd_push,
    "export": cmd_export,
    "import": cmd_import,
    "status": cmd_status,
    "conflicts": cmd_conflicts,
    "resolve": cmd_resolve,
    "audit": cmd_audit,
}


def run(args: argparse.Namespace) -> int:
    """Carry out a parsed headless command; errors become a message and an exit code."""
    try:
        with workspace(args) as ws:
            return COMMANDS[args.command](args, ws)
    except (UsageError, InvalidValue) as exc:
        print(f"showdesk {args.command}: {exc}", file=sys.stderr)
        return USAGE
    except ShowDeskError as exc:
        print(f"showdesk {args.command}: {exc.message}", file=sys.stderr)
        return USAGE
    except OSError as exc:  # a file given on the command line, the log folder…
        where = f" {exc.filename}" if exc.filename else ""
        print(f"showdesk {args.command}: cannot use{where}: {exc.strerror or exc}", file=sys.stderr)
        return USAGE
    except KeyboardInterrupt:
        print(f"showdesk {args.command}: interrupted; what was done is kept", file=sys.stderr)
        return USAGE
