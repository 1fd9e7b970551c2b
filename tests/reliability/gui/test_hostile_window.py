"""The window on a hostile machine: a read-only profile folder, a full disk, a keyring that is
missing or refuses, a show that cannot be reached at start, a server clock hours off. Each says
what happened in words (a message box, the status bar, the profile dialog) and loses no edit."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import keyring
import pytest
import qasync
from PySide6.QtCore import QItemSelection, QItemSelectionModel, QTimer
from PySide6.QtWidgets import QApplication

from app.api.errors import StoreUnavailable
from app.api.registry import default_registry
from app.profile.settings import Profile, ProfileStore, SecretStore, secrets
from app.sim import SimConfig, SimServer, generate_show
from app.store.cache import Cache
from app.store.outbox import Outbox
from app.sync.edit.editor import Editor, FieldEdit
from app.ui.launch.crash import CrashReporter
from app.ui.launch.sign_in import SignInPrompt
from tests.conftest import MemoryKeyring
from tests.gui.conftest import SECRET, Opener, config, profile_for, until, wait_synced
from tests.gui.launch.test_single_instance import Desk  # a window, its ShowDesk, what it told
from tests.reliability.hostile import (
    BrokenKeyring,
    RefusingKeyring,
    closed_port,
    full_disk,
    read_only,
    without_root_powers,
)
from tests.reliability.tally import Tally

NAME = "Spring show"


@pytest.fixture
def server() -> Iterator[SimServer]:
    with SimServer(generate_show("tiny", seed=6), config()) as running:
        yield running


@pytest.fixture
def fresh_secrets(monkeypatch: pytest.MonkeyPatch) -> SecretStore:
    """The process's secret store as a new process has it (a failed keyring marks it)."""
    for name, value in SecretStore().__dict__.items():
        monkeypatch.setattr(secrets, name, value)
    return secrets


@pytest.fixture
def desk(loop: qasync.QEventLoop, tmp_path: Path, server: SimServer) -> Iterator[Desk]:
    """The window's desk, closed (its sessions' requests ended) before the simulator stops:
    a request still running when it stopped was cut off, its connection left to the garbage
    collector, which warned in whatever test came next."""
    made = Desk(tmp_path)
    yield made
    made.close(loop)


def with_pending_edit(server: SimServer, profile: Profile) -> dict[int, Any]:
    """The profile's cache holds the customers, its outbox one edit; that edit, to compare."""
    registry = default_registry()
    with Cache(profile.cache_path, registry) as cache, Outbox(profile.outbox_path) as outbox:
        cache.upsert("customers", server.show.records("customers"))
        first = server.show.records("customers")[0]
        Editor(cache, outbox, registry).stage("customers", [FieldEdit(first["id"], "city", "Kept")])
    return pending(profile)


def pending(profile: Profile) -> dict[int, Any]:
    with Outbox(profile.outbox_path) as outbox:
        return {c.seq: (c.state, c.payload) for c in outbox.changes(("pending", "failed"))}


@pytest.fixture(autouse=True)
def counted(tally: Tally) -> Iterator[None]:
    """Each test puts the machine in one hostile condition; the edits it checks were kept."""
    yield
    tally.add("hostile", faults_injected=1, lost=0)


# ---------------------------------------------------------------------------- read-only


@pytest.mark.parametrize(("files_only", "what"), [(False, "profile folder"), (True, "cache")])
def test_a_read_only_profile_is_not_opened_and_the_user_is_told_why(
    desk: Desk, server: SimServer, files_only: bool, what: str
) -> None:
    profile = profile_for(server, NAME)
    ProfileStore().save(profile)
    before = with_pending_edit(server, profile)
    with read_only(profile.data_dir, files_only=files_only), without_root_powers():
        assert desk.desk.open(profile, SECRET) is None
    assert len(desk.told) == 1, desk.told
    told = desk.told[0]
    assert f"“{NAME}” cannot be opened" in told
    assert f"Cannot write the {what} at {profile.data_dir}" in told and "read-only" in told
    assert "still in the outbox" in told
    assert isinstance(desk.desk.failed, StoreUnavailable)
    assert desk.window.session is None
    assert pending(profile) == before
    assert desk.desk.open(profile, SECRET) is not None  # writable again: it opens


# ----------------------------------------------------------------------------- full disk


def test_a_full_disk_stops_the_sync_and_refuses_a_paste_saying_why(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    profile = profile_for(server, NAME)
    before = with_pending_edit(server, profile)
    with full_disk():
        opened = open_window(profile)
    said: list[str] = []
    opened.session.problem.connect(said.append)
    wait_synced(loop, opened.session)
    assert opened.session.online is True  # the show is fine: this machine is not
    assert any(
        m.startswith(f"Sync stopped: Cannot write the cache at {profile.cache_path}")
        and "the disk is full" in m
        for m in said
    ), said

    reporter = CrashReporter(window=opened.window)
    reporter.install(loop)
    try:
        tab = opened.window.open_resource("customers")
        assert tab is not None and tab.grid is not None
        column = tab.model.column_of("city")
        rows = tab.model.rowCount()
        selection = QItemSelection(tab.model.index(0, column), tab.model.index(rows - 1, column))
        tab.table.selectionModel().select(selection, QItemSelectionModel.SelectionFlag.Select)
        QApplication.clipboard().setText("Pasted on a full disk")

        async def paste() -> None:
            assert tab.grid is not None
            tab.grid.actions["paste"].trigger()  # as Ctrl+V does
            await until(lambda: bool(reporter.warnings))

        loop.run_until_complete(paste())
    finally:
        reporter.uninstall()
    assert reporter.dialog is None  # no crash dialog: a plain warning
    warning = reporter.warnings[0]
    assert f"Cannot write the outbox at {profile.outbox_path}: the disk is full" in warning
    assert reporter.warning is not None
    assert "Nothing of it was saved" in reporter.warning.informativeText()
    reporter.warning.close()
    outbox = opened.session.outbox
    assert {c.seq: (c.state, c.payload) for c in outbox.changes(("pending", "failed"))} == before


# ------------------------------------------------------------------------------- keyring


@pytest.mark.parametrize("ring", [MemoryKeyring(broken=True), RefusingKeyring(), BrokenKeyring()])
def test_a_keyring_that_is_missing_or_refuses_asks_for_the_secret_and_says_why(
    desk: Desk, server: SimServer, fresh_secrets: SecretStore, ring: Any, loop: qasync.QEventLoop
) -> None:
    profile = profile_for(server, NAME)
    ProfileStore().save(profile)
    before = with_pending_edit(server, profile)
    keyring.set_keyring(ring)  # the suite's autouse fixture puts its own back afterwards
    notes: list[str] = []

    def answer_the_prompt() -> None:
        prompt = QApplication.activeModalWidget()
        assert isinstance(prompt, SignInPrompt)  # a sign-in prompt, not the profile editor
        notes.append(prompt.note.text())
        prompt.offline_button.click()

    QTimer.singleShot(0, answer_the_prompt)
    assert desk.desk.open_saved(NAME) is None  # asked for the secret; the user worked offline
    assert notes and "no working keyring (" in notes[0] and "this session only" in notes[0]
    assert desk.desk.is_open  # the show stays, from its cache
    assert pending(profile) == before


# --------------------------------------------------------------------------- unreachable


def test_an_unreachable_show_opens_offline_says_why_and_keeps_every_edit(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    nowhere = f"http://127.0.0.1:{closed_port()}"
    profile = Profile(NAME, f"{nowhere}/api/v1", f"{nowhere}/auth/oauth/token", "GUI-SHOW")
    before = with_pending_edit(server, profile)
    opened = open_window(profile)
    session, window = opened.session, opened.window
    said: list[str] = []
    session.problem.connect(said.append)

    async def scenario() -> None:
        await until(lambda: session.online is False)
        assert window.status.connection.text().startswith("Offline")
        assert said and said[0].startswith("Working offline: Could not reach the sign-in server")
        assert "connection refused" in said[0] and "kept in the outbox" in said[0]
        record = next(session.cache.records("customers", offset=1, limit=1))
        assert window.undoable_edits is not None
        window.undoable_edits.edit_cells("customers", [(record["id"], "city", "Offline")], "Edit")
        session.push()
        await until(lambda: not session.tasks.busy)
        # One message (issue 14): the show is unreachable, the changes stay pending.
        assert said[-1].startswith("The show cannot be reached: 2 changes stay pending")
        assert "Could not reach the sign-in server" in said[-1]
        assert window.status.currentMessage() == said[-1]

    loop.run_until_complete(scenario())
    counts = session.outbox.counts()
    assert (counts["pending"], counts["failed"]) == (len(before) + 1, 0)  # waiting, not failed


# ---------------------------------------------------------------------------- clock skew


def test_a_server_clock_hours_ahead_loses_no_change(
    loop: qasync.QEventLoop, open_window: Opener
) -> None:
    def ahead() -> str:
        moment = datetime.now(UTC) + timedelta(hours=20)
        return moment.replace(tzinfo=None).isoformat(timespec="milliseconds")

    skewed = SimConfig(show_id="GUI-SHOW", client_secret=SECRET, token_lifetime=2.0)
    with SimServer(generate_show("tiny", seed=6, clock=ahead), skewed) as server:
        opened = open_window(profile_for(server, NAME))
        wait_synced(loop, opened.session)
        record = server.show.records("customers")[3]
        server.show.replace("customers", record["id"], {**record, "city": "Tomorrow"})
        opened.session.sync(["customers"])
        wait_synced(loop, opened.session)
        assert (opened.session.cache.get("customers", record["id"]) or {})["city"] == "Tomorrow"
        assert opened.session.online is True
