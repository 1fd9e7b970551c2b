"""`showdesk push --dry-run`: the outbox review's estimate on the command line, nothing sent.

The command runs in this process (`app.cli.main`) on a saved profile against the simulator over
loopback, after a real sync that used some of the profile's rate budget; the printed line must
be the one the core cost (app/sync/push/cost.py) gives for the same pending changes at that
budget — the line the outbox's review pane shows.
"""

from __future__ import annotations

import asyncio

import pytest

from app.api.governor import GovernorState
from app.cli import main
from app.profile.connect import client_for, registry_for
from app.profile.settings import Profile, ProfileStore, secrets
from app.sim import SimServer
from app.store.cache import Cache
from app.store.outbox import Outbox
from app.sync.edit.editor import Editor, FieldEdit
from app.sync.push.cost import cost_text, push_cost
from tests.sim import test_cli
from tests.sim.test_cli import SECRET

NAME = "Spring show"
server = test_cli.server  # the fixture: a 250-customer show on loopback


@pytest.fixture
def profile(server: SimServer) -> Profile:
    saved = Profile(NAME, server.base_url, server.auth_url, server.show_id)
    ProfileStore().save(saved)
    secrets.set(saved, SECRET)  # the test's in-memory keyring
    return saved


def budget(profile: Profile) -> GovernorState:
    """The profile's rate budget as a client of it sees it now (the shared request history)."""
    registry = registry_for(profile)

    async def read() -> GovernorState:
        async with client_for(profile, SECRET, registry) as client:
            return client.governor.state()

    return asyncio.run(read())


def queue_changes(profile: Profile, server: SimServer) -> None:
    """Twelve updates (two on one record), a new customer and a deletion, as the window would."""
    registry = registry_for(profile)
    ids = [str(r["id"]) for r in server.show.records("customers")[:13]]
    with Cache(profile.cache_path, registry) as cache, Outbox(profile.outbox_path) as outbox:
        editor = Editor(cache, outbox, registry)
        staged = editor.stage("customers", [FieldEdit(i, "city", f"Dry {i}") for i in ids[:11]])
        assert not staged.rejected
        editor.stage("customers", [FieldEdit(ids[0], "city", "Dry again")])
        seq, rejected = editor.create("customers", {"customerID": "DRY-NEW", "city": "Lyon"})
        assert seq is not None and not rejected
        editor.delete("customers", [ids[12]])


def test_push_dry_run_prints_the_review_estimate_and_sends_nothing(
    server: SimServer, profile: Profile, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["sync", "--profile", NAME, "--resource", "customers"]) == 0
    queue_changes(profile, server)
    with Outbox(profile.outbox_path) as outbox:
        before = outbox.changes()
    capsys.readouterr()
    requests = server.stats.requests

    assert main(["push", "--profile", NAME, "--dry-run"]) == 0
    printed = capsys.readouterr().out.strip()

    assert server.stats.requests == requests  # not even a sign-in
    with Outbox(profile.outbox_path) as outbox:
        assert outbox.changes() == before  # untouched: same rows, states, attempts
    state = budget(profile)
    assert state.used > 0  # the sync's requests count against the budget the estimate uses
    cost = push_cost(before, registry_for(profile))
    assert (cost.changes, cost.sends, cost.checks) == (14, 13, 1)
    assert printed == cost_text(cost, state, profile.interactive_reserve)
    assert printed.startswith("14 pending changes · 14 requests (13 sends, 1 listing)")
    assert printed.endswith(f"at {state.used}/{state.limit} per {state.span:g} s")


def test_push_dry_run_with_nothing_pending_says_so(
    server: SimServer, profile: Profile, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["push", "--profile", NAME, "--dry-run", "--resource", "customers"]) == 0
    assert capsys.readouterr().out.strip() == "Nothing pending to push"
    assert server.stats.requests == 0


def test_push_dry_run_counts_failed_changes_only_when_they_would_be_retried(
    server: SimServer, profile: Profile, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["sync", "--profile", NAME, "--resource", "customers"]) == 0
    capsys.readouterr()
    requests = server.stats.requests
    queue_changes(profile, server)
    with Outbox(profile.outbox_path) as outbox:
        first = outbox.changes()[0]
        outbox.mark_sending([first.seq])
        outbox.mark_failed(first.seq, "Customers update: HTTP 400: bad city")
    assert main(["push", "--profile", NAME, "--dry-run"]) == 0
    assert capsys.readouterr().out.startswith("13 pending changes")
    assert main(["push", "--profile", NAME, "--dry-run", "--retry-failed"]) == 0
    assert capsys.readouterr().out.startswith("14 pending changes")
    with Outbox(profile.outbox_path) as outbox:
        assert outbox.get(first.seq).state == "failed"  # type: ignore[union-attr]
    assert main(["push", "--profile", NAME, "--dry-run", "--resource", "warehouses"]) == 0
    assert capsys.readouterr().out.strip() == "Nothing pending to push"
    assert server.stats.requests == requests
