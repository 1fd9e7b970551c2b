"""`showdesk COMMAND ...` run in this process against one server, as the end-to-end tests drive
it: through `app.cli.main`, the connection given on the command line, SHOWDESK_HOME and
SHOWDESK_CLIENT_SECRET set by the test as a scheduled job would set them."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from app.cli import main
from app.profile.settings import Profile
from tests.e2e.plain_server import PlainShow
from tests.e2e.targets import Record, Target

DeskOn = Callable[[PlainShow], "Showdesk"]  # tests/e2e/conftest.py's `desk_on`


@dataclass
class Outcome:
    code: int
    out: str
    err: str

    @property
    def text(self) -> str:
        return f"exit {self.code}\n--- stdout\n{self.out}--- stderr\n{self.err}"


@dataclass
class Showdesk:
    """`showdesk COMMAND ...` on one show, the connection given on the command line."""

    target: Target
    capsys: pytest.CaptureFixture[str]
    folder: Path
    runs: list[str] = field(default_factory=list)

    def __call__(self, *args: str) -> Outcome:
        self.capsys.readouterr()
        connection = ["--base-url", self.target.base_url, "--auth-url", self.target.auth_url,
                      "--show-id", self.target.show_id]  # fmt: skip
        try:
            code = main([*args, *connection])
        except SystemExit as exc:  # argparse: an unknown command or option
            code = exc.code if isinstance(exc.code, int) else 2
        captured = self.capsys.readouterr()
        self.runs.append(" ".join(args))
        return Outcome(code, captured.out, captured.err)

    @property
    def profile(self) -> Profile:
        """The profile headless commands make for `--show-id` (its folders follow SHOWDESK_HOME)."""
        t = self.target
        return Profile(f"show-{t.show_id}", t.base_url, t.auth_url, t.show_id)

    def cached(self, slug: str) -> list[Record]:
        path = self.folder / f"{slug}.json"
        exported = self("export", slug, "--format", "json", "-o", str(path))
        assert exported.code == 0, exported.text
        records: list[Record] = json.loads(path.read_text(encoding="utf-8"))
        return records


def outbox(showdesk: Showdesk) -> dict[str, int]:
    status = showdesk("status", "--json")
    assert status.code == 0, status.text
    counts: dict[str, int] = json.loads(status.out.splitlines()[-1])["outbox"]
    return counts
