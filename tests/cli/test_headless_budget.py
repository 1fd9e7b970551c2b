"""Headless commands pace with the whole budget (issue 17): no interactive user, no interactive
reserve — unless the window of the same profile is open, whose user the reserve is for. Seen from
a real `showdesk push --dry-run` process: the time it quotes for the same changes at the same
rate, with no window and with the profile's window lock held."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.api.governor import GovernorState
from app.profile.connect import window_open
from app.profile.settings import Profile
from app.store.outbox import NewChange, Outbox
from app.sync.push.cost import push_seconds
from app.ui.launch.single_instance import ProfileLock
from tests.cli.conftest import Cli

CHANGES = 30
RATE = (10, 60.0)


def _queue_renames(cli: Cli) -> None:
    with Outbox(cli.cache.with_name(cli.cache.stem + ".outbox.sqlite")) as outbox:
        outbox.add_many(
            NewChange(
                "customers",
                "update",
                f"c{n}",
                {"customerName": f"Renamed {n}"},
                changed_fields=("customerName",),
            )
            for n in range(CHANGES)
        )


def _quoted(cli: Cli) -> tuple[int, float]:
    data = cli.json("push", "--dry-run", "--rate", f"{RATE[0]}/{RATE[1]:g}")
    assert data["exit"] == 0, data
    return data["requests"], data["seconds"]


def _expected(requests: int, reserve: float) -> float:
    empty = GovernorState(0, RATE[0], RATE[1], None, 0, 0)
    return round(push_seconds(requests, empty, reserve=reserve), 1)


def test_headless_uses_the_whole_budget_unless_the_window_is_open(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHOWDESK_HOME", str(tmp_path / "home"))
    _queue_renames(cli)
    server = cli.server
    profile = Profile(f"show-{server.show_id}", server.base_url, server.auth_url, server.show_id)
    assert not window_open(profile)
    requests, alone = _quoted(cli)
    assert alone == _expected(requests, reserve=0.0)  # no window: the whole budget
    with ProfileLock(profile):  # the window of the same profile is open
        assert window_open(profile)
        held_requests, beside_window = _quoted(cli)
    assert held_requests == requests
    assert beside_window == _expected(requests, reserve=profile.interactive_reserve)
    assert beside_window > alone
    assert not window_open(profile)  # closed again: a lock file without its holder is no window
