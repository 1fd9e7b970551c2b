"""The command line as scripts meet it (issue 16): real `showdesk` processes against one
simulator per module, on a cache synced once per module (tests copy it before changing it)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from app.sim import SimConfig, SimServer, generate_show

SECRET = "cli16-secret"
FORMULA_NAME = "=1+1 Foods"
# Values a spreadsheet damages when it opens a CSV with its default settings.
ZIP_WITH_ZEROS, CODE_WITH_ZEROS, LONG_ID = "02134", "007", "1234567890123456789"
RISKY_NAMES = ("@home Market", "-5 Corp", "+44 Traders", "'=quoted already")


@dataclass
class Cli:
    """`showdesk` against the module's simulator, on a cache of its own."""

    server: SimServer
    cache: Path
    home: Path | None = None  # SHOWDESK_HOME: where a module-scoped run keeps its files

    def __call__(self, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "app", *args, *self.connection()],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=cwd,
            env={
                **os.environ,
                **self.moved(),
                "SHOWDESK_CLIENT_SECRET": SECRET,
                "PYTHONPATH": _root(),
            },
        )

    def moved(self) -> dict[str, str]:
        return {} if self.home is None else {"SHOWDESK_HOME": str(self.home)}

    def connection(self) -> list[str]:
        return [
            "--base-url", self.server.base_url,
            "--auth-url", self.server.auth_url,
            "--show-id", self.server.show_id,
            "--cache", str(self.cache),
        ]  # fmt: skip

    def json(self, *args: str) -> dict[str, Any]:
        done = self(*args, "--json")
        data: dict[str, Any] = json.loads(done.stdout)
        return data


def _root() -> str:
    return str(Path(__file__).resolve().parents[2])


def risky_show() -> Any:
    """A small show whose first customers hold what spreadsheets break."""
    show = generate_show(40, seed=16)
    customers = show.records("customers")
    customers[0].update(customerName=FORMULA_NAME, zipCode=ZIP_WITH_ZEROS)
    customers[1].update(zipCode="00701", extra2=CODE_WITH_ZEROS, extra3=LONG_ID)
    for record, name in zip(customers[2:], RISKY_NAMES, strict=False):
        record["customerName"] = name
    customers[2]["extra4"] = LONG_ID
    return show


@pytest.fixture(scope="module")
def sim() -> Iterator[SimServer]:
    config = SimConfig(show_id="CLI16", client_secret=SECRET, throttle=False)
    with SimServer(risky_show(), config) as running:
        yield running


@pytest.fixture(scope="module")
def synced_cache(sim: SimServer, tmp_path_factory: pytest.TempPathFactory) -> Path:
    cache = tmp_path_factory.mktemp("synced") / "cache.sqlite"
    home = tmp_path_factory.mktemp("home")  # the tests' own folders are not made yet: not ~
    done = Cli(sim, cache, home)("sync", "--resource", "customers", "--resource", "warehouses")
    assert done.returncode == 0, done.stderr
    return cache


@pytest.fixture
def cli(sim: SimServer, synced_cache: Path, tmp_path: Path) -> Cli:
    """The synced cache copied (with its outbox) into the test's own folder."""
    cache = tmp_path / "cache.sqlite"
    for source in synced_cache.parent.iterdir():
        if source.name.startswith("cache"):
            shutil.copy2(source, tmp_path / source.name)
    return Cli(sim, cache)
