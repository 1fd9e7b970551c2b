"""`showdesk push` and `showdesk import` tell the user what happened (issue 12, point 7)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.api.registry import default_registry
from app.sim import SimConfig, SimServer, generate_show
from app.store.cache import Cache
from app.store.changes import NewChange
from app.store.outbox import Outbox
from app.sync.edit.editor import Editor, FieldEdit
from tests.sim.test_cli import SECRET, showdesk


@pytest.fixture
def server() -> Iterator[SimServer]:
    config = SimConfig(
        show_id="CLI-SHOW", client_secret=SECRET, throttle=False, error_shape="field"
    )
    with SimServer(generate_show("tiny", seed=5), config) as running:
        yield running


def test_import_of_a_resource_never_synced_is_refused(server: SimServer, tmp_path: Path) -> None:
    cache = tmp_path / "cache.sqlite"
    source = tmp_path / "changes.csv"
    first = server.show.records("customers")[0]["customerID"]
    source.write_text(f"customerID,city\n{first},Lyon\nNEW-1,Paris\n", encoding="utf-8")
    result = showdesk(server, cache, "import", "customers", str(source))
    assert result.returncode == 2, result.stdout + result.stderr
    assert "sync Customers first (showdesk sync --resource customers)" in result.stderr
    assert "Traceback" not in result.stderr
    with Outbox(cache.with_name("cache.outbox.sqlite")) as outbox:
        assert outbox.changes() == []  # nothing guessed, nothing queued


def test_push_names_each_change_that_did_not_land(server: SimServer, tmp_path: Path) -> None:
    cache = tmp_path / "cache.sqlite"
    assert showdesk(server, cache, "sync", "--resource", "customers").returncode == 0
    record = server.show.records("customers")[0]
    outbox_path = cache.with_name("cache.outbox.sqlite")
    with Cache(cache, default_registry()) as store, Outbox(outbox_path) as outbox:
        editor = Editor(store, outbox, default_registry())
        editor.stage("customers", [FieldEdit(record["id"], "city", "Mine City")])
        outbox.add(NewChange("customers", "create", payload={"customerName": "No key"}))
    server.show.replace("customers", record["id"], {**record, "city": "Their City"})

    pushed = showdesk(server, cache, "push")
    assert pushed.returncode == 1, pushed.stdout + pushed.stderr
    lines = pushed.stderr.strip().splitlines()
    assert len(lines) == 3, pushed.stderr
    assert lines[0].startswith(f"conflict customers customerID={record['customerID']} city:")
    assert "'Their City'" in lines[0] and "'Mine City'" in lines[0]
    assert lines[1].startswith("failed customers id=new-")
    assert lines[1].endswith("customerID: is required")  # the server's words, at its field
    assert lines[2].startswith("2 not applied (1 failed, 1 in conflict)")
    assert "0 applied, 1 failed, 1 in conflict" in pushed.stdout


def test_the_credential_style_is_learned_once_for_the_profile(tmp_path: Path) -> None:
    config = SimConfig(show_id="CLI-SHOW", client_secret=SECRET, throttle=False, token_auth="basic")
    with SimServer(generate_show("tiny", seed=5), config) as server:
        env = {**os.environ, "SHOWDESK_CLIENT_SECRET": SECRET, "SHOWDESK_HOME": str(tmp_path)}
        argv = [
            sys.executable, "-m", "app", "sync", "--resource", "brands",
            "--base-url", server.base_url, "--auth-url", server.auth_url,
            "--show-id", server.show_id,
        ]  # fmt: skip
        for _ in range(2):
            run = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=env)
            assert run.returncode == 0, run.stderr
        # The profile's body style was refused once; the second command used Basic at once.
        assert server.stats.token_refused == 1 and server.stats.tokens_issued == 2
