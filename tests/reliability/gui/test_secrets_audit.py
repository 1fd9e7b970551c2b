"""The secrets audit: a whole session — a wrong secret first, then connect, sync, edit, push,
failed pushes, exports from the window and the command line, an unsaved form rescued by the
crash dialog — run with a known client secret and a simulator whose tokens are recognisable.
Then every file ShowDesk wrote and everything it said (stdout, stderr, log records, messages,
exception texts, dialogs) is searched: no secret and no token may appear. The cache and the
outbox are 0600 in a 0700 folder, and every HTTP client built meanwhile verified TLS."""

from __future__ import annotations

import asyncio
import logging
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import qasync
import shiboken6
from PySide6.QtCore import QSettings, QTimer

from app.cli import main as showdesk
from app.profile.logs import file_handler, log_path, logging_to_file, remember_secret, start_logging
from app.profile.settings import SECRET_ENV, Profile, ProfileStore, secrets
from app.sim import SimConfig, SimServer, generate_show
from app.ui.launch.crash import CrashReporter
from app.ui.launch.show_desk import ShowDesk
from app.ui.session.session import ShowSession
from app.ui.session.tasks import TaskRunner
from app.ui.window.main_window import MainWindow
from tests.gui.conftest import until
from tests.reliability.tally import Tally

SECRET = "S3cr3t-Audit-5b1f0e77"
WRONG = "Wr0ng-Audit-4c2d9a13"
TOKEN = "TOK-AUDIT-"  # every access and refresh token the simulator issues starts so
NAME = "Audit show"


class Spy:
    """Every `verify=` an httpx client was built with during the session."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.verify: list[Any] = []
        for cls in (httpx.Client, httpx.AsyncClient):
            monkeypatch.setattr(cls, "__init__", self._spying(cls.__init__))

    def _spying(self, init: Callable[..., None]) -> Callable[..., None]:
        def spy(client: Any, *args: Any, **kwargs: Any) -> None:
            self.verify.append(kwargs.get("verify", True))
            init(client, *args, **kwargs)

        return spy


class Session:
    """The window as `showdesk` runs it: ShowDesk, a CrashReporter, an export path."""

    def __init__(self, loop: qasync.QEventLoop, home: Path, export_to: Path) -> None:
        self.loop = loop
        self.tasks = TaskRunner()
        settings = QSettings(str(home / "window.ini"), QSettings.Format.IniFormat)
        self.window = MainWindow(
            settings, self.tasks, ask=lambda _q: True, ask_path=lambda _t, _s: export_to
        )
        self.told: list[str] = []
        self.desk = ShowDesk(self.window, self.tasks, ask=lambda _q: False, tell=self.told.append)
        self.reporter = CrashReporter(
            window=self.window,
            rescue=self.desk.rescue_drafts,
            forget=self.desk.forget_drafts,
            quit_app=lambda: None,
        )
        self.reporter.install(loop)
        self.tasks.on_unexpected = self.reporter.on_task_failed

    def command(self, *args: str) -> int:
        """`showdesk ARGS` in this process, as if in a process of its own: the window's loop and
        log file (with the secrets it was told) are as they were afterwards."""
        known = set(handler.redactor.known) if (handler := file_handler()) else set()
        try:
            return showdesk(list(args))
        finally:
            asyncio.set_event_loop(self.loop)
            start_logging()
            for secret in known:
                remember_secret(secret)

    def run(self, work: Callable[[], Any]) -> None:
        self.loop.run_until_complete(work())

    def idle(self, session: ShowSession) -> None:
        async def settled() -> None:
            await until(lambda: session.online is not None)
            await until(lambda: not session.syncing and not self.tasks.busy, within=60)

        self.loop.run_until_complete(settled())

    def close(self) -> None:
        self.reporter.uninstall()
        self.loop.run_until_complete(self.desk.close_current())
        self.window.close()
        shiboken6.delete(self.window)


@pytest.fixture
def audited(
    loop: qasync.QEventLoop, user_dirs: Path, tmp_path: Path
) -> Iterator[tuple[Session, Path]]:
    export_to = tmp_path / "exports" / "customers.csv"
    export_to.parent.mkdir()
    session = Session(loop, user_dirs, export_to)
    yield session, export_to
    session.close()


def test_a_whole_session_leaves_no_secret_or_token_anywhere(
    audited: tuple[Session, Path],
    user_dirs: Path,
    tmp_path: Path,
    capfd: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    tally: Tally,
) -> None:
    caplog.set_level(logging.DEBUG)
    spy = Spy(monkeypatch)
    app, export_to = audited
    said: list[str] = []  # every message, dialog text and exception text of the session
    config = SimConfig(show_id="AUDIT-SHOW", client_secret=SECRET, token_prefix=TOKEN)
    with SimServer(generate_show("tiny", seed=9), config) as server, logging_to_file():
        profile = Profile(NAME, server.base_url, server.auth_url, server.show_id)
        ProfileStore().save(profile)
        assert secrets.set(profile, SECRET)

        # A wrong secret: from the command line, then in the window.
        monkeypatch.setenv(SECRET_ENV, WRONG)
        assert app.command("sync", "--profile", NAME, "--resource", "brands") == 2
        monkeypatch.delenv(SECRET_ENV)
        wrong = app.desk.open(profile, WRONG)
        assert wrong is not None
        wrong.problem.connect(said.append)
        wrong.access_refused.connect(lambda exc: said.append(exc.message))
        app.idle(wrong)
        assert wrong.online is False and any("refused the sign-in" in m for m in said), said
        said.append(app.window.status.currentMessage())  # what the window says of it
        app.run(app.desk.close_current)

        # The right secret: connect, sync, edit through the grid, push, export.
        session = app.desk.open(profile, SECRET)
        assert session is not None
        session.problem.connect(said.append)
        app.idle(session)
        assert session.online is True
        customers = list(session.cache.records("customers", limit=3))
        editing = app.window.undoable_edits
        assert editing is not None
        editing.edit_cells("customers", [(c["id"], "city", "Audited") for c in customers], "Edit")
        session.push()
        app.idle(session)
        assert session.outbox.counts()["done"] == 3
        # cache, outbox and the API state (shared request history), each with -wal and -shm
        live = sorted(profile.data_dir.glob("*.sqlite*"))
        assert len(live) == 9 and {oct(mode(p)) for p in live} == {"0o600"}, live
        server.config.error_rate = 1.0  # a push that fails: its errors are kept and shown
        editing.edit_cells("customers", [(customers[0]["id"], "city", "Refused")], "Edit")
        session.push()
        app.idle(session)
        server.config.error_rate = 0.0
        said += [c.last_error or "" for c in session.outbox.changes(("failed",))]
        assert said[-1], "the failed push kept its reason"
        app.window.export_resource("customers")
        app.run(lambda: until(export_to.exists, within=30))

        # An unsaved form, then a crash whose text carries the live token and the secret.
        tab = app.window.open_resource("customers")
        assert tab is not None and tab.form is not None
        tab.table.setCurrentIndex(tab.model.index(0, 0))
        tab.form.editors["customerName"].set_value("Unsaved at the crash")
        token = app.loop.run_until_complete(session.client.auth.token())
        assert token.startswith(TOKEN)

        def crash() -> None:
            raise RuntimeError(
                f"request failed: Authorization: Bearer {token}; client_secret={SECRET}"
            )

        async def crashed() -> None:
            QTimer.singleShot(0, crash)
            await until(lambda: (d := app.reporter.dialog) is not None and d.isVisible())

        app.run(crashed)
        dialog = app.reporter.dialog
        assert dialog is not None
        said += [dialog.text(), dialog.informativeText(), dialog.detailedText()]
        assert "RuntimeError: request failed" in dialog.informativeText()
        dialog.keep_button.click()
        tab.form.editors["customerName"].set_value("Unsaved, kept in drafts")
        app.desk.rescue_drafts()  # as "Quit ShowDesk" leaves it
        assert profile.drafts_path.exists()
        said += app.told + app.reporter.warnings
        said += [r.what + r.details for r in app.reporter.reports]

        # The command line on the same profile: export and audit, with the secret in the env.
        monkeypatch.setenv(SECRET_ENV, SECRET)
        cli_export = tmp_path / "exports" / "brands.xlsx"
        assert app.command("export", "brands", "--profile", NAME, "-o", str(cli_export)) == 0
        assert (
            app.command("audit", "--profile", NAME, "-o", str(tmp_path / "exports" / "audit.json"))
            == 0
        )
        assert app.command("push", "--profile", NAME) in (0, 1)
        monkeypatch.delenv(SECRET_ENV)
        app.run(app.desk.close_current)
        assert server.stats.tokens_issued >= 2  # the window's, the command line's

    output = capfd.readouterr()
    streams = {
        "stdout": output.out,
        "stderr": output.err,
        "log records": caplog.text + "".join(str(r.args) for r in caplog.records),
        "messages, dialogs and exceptions": "\n".join(said),
    }
    files = sorted(p for p in tmp_path.rglob("*") if p.is_file())
    assert log_path() in files and export_to in files and profile.cache_path in files
    found = leaks(streams, files)
    tally.add("secrets", secrets_found=len(found))
    assert found == []
    private = [profile.cache_path, profile.outbox_path, profile.drafts_path]
    assert {str(p): oct(mode(p)) for p in private} == {str(p): "0o600" for p in private}
    assert oct(mode(profile.data_dir)) == "0o700"
    assert oct(mode(log_path())) == "0o600"
    assert spy.verify and all(v is not False for v in spy.verify), spy.verify


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def leaks(streams: dict[str, str], files: list[Path]) -> list[str]:
    """Where a secret or a token shows up: in a stream, or in a file's bytes."""
    needles = {"the secret": SECRET, "the wrong secret": WRONG, "a token": TOKEN}
    found = [
        f"{what} in {where}"
        for where, text in streams.items()
        for what, needle in needles.items()
        if needle in text
    ]
    for path in files:
        data = path.read_bytes()
        found += [f"{what} in {path}" for what, n in needles.items() if n.encode() in data]
    return found


def test_the_audit_finds_what_it_looks_for(tmp_path: Path) -> None:
    planted = tmp_path / "cache.sqlite"
    planted.write_bytes(b"\x00\x01" + f"Bearer {TOKEN}abc".encode() + b"\x00")
    assert leaks({"stderr": f"oops {SECRET}"}, [planted]) == [
        "the secret in stderr",
        f"a token in {planted}",
    ]
