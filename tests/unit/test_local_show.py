"""A show as it is on this machine (app/profile/local_show.py): a profile's registry, cache and
outbox,
opened without Qt or the network — what the window paints first and the CLI could read."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from app.profile.local_show import open_local
from app.profile.settings import HOME_ENV, Profile
from app.store.outbox import NewChange, Outbox


@pytest.fixture
def profile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Profile:
    monkeypatch.setenv(HOME_ENV, str(tmp_path / "home"))
    return Profile("Spring show", "http://127.0.0.1:9/api", "http://127.0.0.1:9/token", "S1")


def test_a_profile_opens_as_its_own_files_with_its_api_overrides(profile: Profile) -> None:
    profile.overrides_path.parent.mkdir(parents=True)
    profile.overrides_path.write_text(
        '[resources.customers.operations]\nlist = { method = "GET", path = "/Customer/v2" }\n',
        encoding="utf-8",
    )

    with open_local(profile) as local:
        assert local.profile == profile
        assert local.cache.path == profile.cache_path
        assert local.outbox.path == profile.outbox_path
        assert local.registry["customers"].operations["list"].path == "/Customer/v2"
        local.outbox.add(NewChange("customers", "update", "C1", payload={"customerName": "Ada"}))

    with Outbox(profile.outbox_path) as outbox:  # closed by the block, its change on disk
        assert [c.record_id for c in outbox.changes()] == ["C1"]


def test_opening_a_show_from_disk_imports_no_qt_and_nothing_that_talks_to_the_show() -> None:
    probe = (
        "import sys, app.profile.local_show; "
        "print(sorted(m for m in ('PySide6', 'httpx', 'pydantic') if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "[]"
