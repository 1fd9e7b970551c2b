"""Profile dialog: checks at the field, secret to keyring or session, test connection."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import qasync
from PySide6.QtWidgets import QPlainTextEdit
from pytestqt.qtbot import QtBot

from app.api.check import ConnectionCheck
from app.api.connection import Connection
from app.api.registry import Registry, default_registry
from app.profile.settings import KEYRING_SERVICE, Profile, ProfileStore, SecretStore
from app.ui.window.profile_dialog import ProfileDialog, url_problem
from tests.conftest import MemoryKeyring
from tests.gui.conftest import until

REGISTRY = default_registry()


def a_profile(name: str = "Spring show", show_id: str = "SHOW-1") -> Profile:
    return Profile(
        name=name,
        base_url="https://api.example.test/v1",
        auth_url="https://api.example.test/auth/oauth/token",
        show_id=show_id,
    )


@pytest.fixture
def store(tmp_path: Path) -> ProfileStore:
    return ProfileStore(tmp_path / "profiles.json")


@pytest.fixture
def secret_store() -> SecretStore:
    return SecretStore()


@pytest.fixture
def make(
    qtbot: QtBot, store: ProfileStore, secret_store: SecretStore
) -> Callable[..., ProfileDialog]:
    def build(profile: Profile | None = None, **options: Any) -> ProfileDialog:
        dialog = ProfileDialog(
            store, profile, secret_store=secret_store, registry=REGISTRY, **options
        )
        qtbot.addWidget(dialog)
        return dialog

    return build


def fill(dialog: ProfileDialog, profile: Profile, secret: str = "s3cret") -> None:
    for name in ("name", "base_url", "auth_url", "show_id"):
        dialog.fields[name].setText(getattr(profile, name))
    dialog.client_secret.setText(secret)


def shown_errors(dialog: ProfileDialog) -> dict[str, str]:
    return {n: label.text() for n, label in dialog.errors.items() if label.isVisibleTo(dialog)}


# ------------------------------------------------------------------------------ validation


def test_url_rules() -> None:
    assert url_problem("https://show.example/api") is None
    assert url_problem("http://127.0.0.1:8000/api/v1") is None
    assert url_problem("ftp://show.example") == "Enter a URL starting with https:// (or http://)"
    assert url_problem("show.example/api") == "Enter a URL starting with https:// (or http://)"
    assert url_problem("https://") == "The URL needs a host name"


def test_an_empty_form_is_explained_field_by_field(make: Callable[..., ProfileDialog]) -> None:
    dialog = make()
    dialog.save_button.click()
    assert shown_errors(dialog) == {
        "name": "Give the profile a name",
        "base_url": "The URL needs a host name",
        "auth_url": "The URL needs a host name",
        "show_id": "The show ID is required (it is also the client ID)",
        "client_secret": "Enter the client secret",
    }
    assert dialog.result() == 0 and not dialog.isVisible()


def test_messages_follow_the_typing_once_shown(make: Callable[..., ProfileDialog]) -> None:
    dialog = make()
    dialog.base_url.setText("ftp://x")
    assert shown_errors(dialog) == {}  # no scolding before the first check
    dialog.validate()
    assert shown_errors(dialog)["base_url"].startswith("Enter a URL starting with https://")
    dialog.base_url.setText("https://")
    assert shown_errors(dialog)["base_url"] == "The URL needs a host name"
    dialog.base_url.setText("https://x.example")
    assert "base_url" not in shown_errors(dialog)
    dialog.name.setText("A name")
    assert "name" not in shown_errors(dialog)


def test_names_are_unique_but_an_edit_may_keep_its_own(
    make: Callable[..., ProfileDialog], store: ProfileStore
) -> None:
    store.save(a_profile("Taken"))
    store.save(a_profile("Mine"))
    fresh = make()
    fill(fresh, a_profile("Taken"))
    assert fresh.validate() == {"name": "A profile called “Taken” already exists"}
    edit = make(store.get("Mine"))
    assert edit.validate() == {}  # its own name, no secret needed when one is stored
    edit.name.setText("Taken")
    assert "name" in edit.validate()


def test_a_ca_bundle_must_exist(make: Callable[..., ProfileDialog], tmp_path: Path) -> None:
    dialog = make()
    fill(dialog, a_profile())
    dialog.ca_bundle.setText(str(tmp_path / "missing.pem"))
    assert dialog.validate() == {"ca_bundle": "No such file"}
    (tmp_path / "ca.pem").write_text("x")
    dialog.ca_bundle.setText(str(tmp_path / "ca.pem"))
    assert dialog.validate() == {}
    assert dialog.profile().ca_bundle == str(tmp_path / "ca.pem")


# ------------------------------------------------------------------------------------ saving


def test_save_writes_the_profile_and_the_secret_to_the_keyring(
    qtbot: QtBot,
    make: Callable[..., ProfileDialog],
    store: ProfileStore,
    memory_keyring: MemoryKeyring,
) -> None:
    dialog = make()
    assert dialog.client_secret.echoMode() == dialog.client_secret.EchoMode.Password
    fill(dialog, a_profile("Fall show", "FALL-1"), secret="top-secret")
    dialog.rate_limit.setValue(120)
    dialog.rate_span.setValue(30)
    dialog.reserve.setValue(25)
    dialog.credential_style.setCurrentText("Basic header")
    with qtbot.waitSignal(dialog.saved, timeout=1000) as blocker:
        dialog.save_button.click()
    assert blocker.args == ["Fall show"] and dialog.result() == dialog.DialogCode.Accepted
    saved = store.get("Fall show")
    assert saved is not None
    assert (saved.show_id, saved.rate_limit, saved.rate_window) == ("FALL-1", 120, 30.0)
    assert (saved.interactive_reserve, saved.credential_style) == (0.25, "basic")
    assert memory_keyring.store == {(KEYRING_SERVICE, "Fall show:FALL-1"): "top-secret"}
    assert "top-secret" not in store.path.read_text()


def test_a_broken_keyring_keeps_the_secret_for_the_session_and_says_so(
    make: Callable[..., ProfileDialog],
    store: ProfileStore,
    secret_store: SecretStore,
    memory_keyring: MemoryKeyring,
) -> None:
    memory_keyring.broken = True
    dialog = make()
    fill(dialog, a_profile(), secret="top-secret")
    dialog.save_button.click()
    assert dialog.secret_note.isVisibleTo(dialog)
    assert "session only" in dialog.secret_note.text()
    assert dialog.result() == 0  # still open, so the note is read
    assert store.get("Spring show") is not None
    assert secret_store.get(a_profile()) == "top-secret"
    assert dialog.save_button.text() == "Close"
    dialog.save_button.click()
    assert dialog.result() == dialog.DialogCode.Accepted


def test_editing_keeps_the_stored_secret_and_moves_it_on_rename(
    make: Callable[..., ProfileDialog],
    store: ProfileStore,
    secret_store: SecretStore,
    memory_keyring: MemoryKeyring,
) -> None:
    original = a_profile("Old name")
    store.save(original)
    secret_store.set(original, "kept-secret")
    dialog = make(original)
    assert dialog.client_secret.text() == ""  # never shown back
    dialog.name.setText("New name")
    dialog.save_button.click()
    assert [p.name for p in store.all()] == ["New name"]
    assert memory_keyring.store == {(KEYRING_SERVICE, "New name:SHOW-1"): "kept-secret"}


# ------------------------------------------------------------------------- test connection


def run_test(loop: qasync.QEventLoop, dialog: ProfileDialog) -> ConnectionCheck:
    results: list[ConnectionCheck] = []
    dialog.test_finished.connect(results.append)

    async def scenario() -> None:
        dialog.test_button.click()
        await until(lambda: bool(results))

    loop.run_until_complete(scenario())
    return results[0]


ANSWERS = [
    ConnectionCheck(True, "ok", "Signed in to show SHOW-1: the API answers."),
    ConnectionCheck(False, "unreachable", "Cannot reach https://x : connection refused"),
    ConnectionCheck(False, "wrong-secret", "The show ID or client secret was refused by https://x"),
    ConnectionCheck(False, "forbidden", "Signed in, but this show may not use the API (403)"),
    ConnectionCheck(False, "rate-limited", "Signed in, but the show is rate limiting"),
    ConnectionCheck(False, "server-error", "The server https://x failed (HTTP 502)"),
    ConnectionCheck(False, "unexpected", "https://x answered something unexpected"),
]


@pytest.mark.parametrize("answer", ANSWERS, ids=lambda a: a.reason)
def test_test_connection_shows_each_answer(
    loop: qasync.QEventLoop, make: Callable[..., ProfileDialog], answer: ConnectionCheck
) -> None:
    seen: list[Connection] = []

    async def tester(connection: Connection, registry: Registry) -> ConnectionCheck:
        seen.append(connection)
        assert registry is REGISTRY
        return answer

    dialog = make(tester=tester)
    fill(dialog, a_profile(), secret="typed-secret")
    assert run_test(loop, dialog) == answer
    assert dialog.test_result.text() == answer.message
    assert ("#1b7f3b" in dialog.test_result.styleSheet()) is answer.ok
    assert dialog.test_button.isEnabled()
    assert seen[0].show_id == "SHOW-1" and seen[0].client_secret() == "typed-secret"


def test_a_tester_that_raises_still_answers(
    loop: qasync.QEventLoop, make: Callable[..., ProfileDialog]
) -> None:
    async def broken(connection: Connection, registry: Registry) -> ConnectionCheck:
        raise RuntimeError("boom")

    dialog = make(tester=broken)
    fill(dialog, a_profile())
    result = run_test(loop, dialog)
    assert result.reason == "unexpected" and dialog.test_result.text().endswith("boom")


def test_nothing_is_tested_while_fields_are_wrong(make: Callable[..., ProfileDialog]) -> None:
    dialog = make()
    dialog.test_button.click()
    assert dialog.test_result.text() == "Fix the fields marked above first."


def test_test_connection_against_the_simulator(
    loop: qasync.QEventLoop, make: Callable[..., ProfileDialog]
) -> None:
    sim = pytest.importorskip("app.sim")
    with sim.SimServer(sim.generate_show("tiny"), sim.SimConfig(throttle=False)) as server:
        dialog = make()
        profile = sim_profile(server.base_url, server.auth_url, server.show_id)
        fill(dialog, profile, secret=server.client_secret)
        assert run_test(loop, dialog).reason == "ok"
        dialog.client_secret.setText("wrong")
        wrong = run_test(loop, dialog)
    assert wrong.reason == "wrong-secret"
    assert dialog.test_result.text() == (
        f"The show ID or client secret was refused by {server.auth_url}"
    )


def test_test_connection_reports_each_list_of_the_show(
    loop: qasync.QEventLoop, make: Callable[..., ProfileDialog]
) -> None:
    from app.sim import SimConfig, SimServer, generate_show

    lists = sum(1 for r in REGISTRY if r.can("list"))
    config = SimConfig(throttle=False, missing=frozenset({"brokers"}))
    with SimServer(generate_show("tiny"), config) as server:
        dialog = make()
        fill(dialog, sim_profile(server.base_url, server.auth_url, server.show_id), "demo-secret")
        result = run_test(loop, dialog)
    assert result.ok and dialog.test_result.text().startswith(
        f"Signed in to show DEMO-SHOW: {lists - 1} of {lists} lists answer."
    )
    assert dialog.test_details.isVisibleTo(dialog)
    shown = dialog.test_details.toPlainText().splitlines()
    assert len(shown) == lists and shown == list(result.details)
    assert shown[0].startswith("Brokers: did not answer: GET /Broker answered 404; tried /broker")
    assert (
        "Customers: answered: a bare array, no paging counters, 1 record on the first page" in shown
    )


def lines_shown(box: QPlainTextEdit) -> float:
    """How many lines of text `box`'s viewport has room for."""
    room = box.viewport().height() - 2 * box.document().documentMargin()
    return room / box.fontMetrics().lineSpacing()


def test_the_test_details_are_sized_to_their_lines(
    loop: qasync.QEventLoop, make: Callable[..., ProfileDialog], qtbot: QtBot
) -> None:
    """Issue 30, point 6: the details took three lines of height whatever they held — a line
    under two empty ones, or 31 lines shown three at a time, each cut at the box's edge. Now
    the box is as tall as its lines (up to a limit, then it scrolls) and as wide as its
    longest line, on the real dialog against the simulator and with a one-line answer."""
    from app.sim import SimConfig, SimServer, generate_show

    config = SimConfig(throttle=False, missing=frozenset({"brokers"}))
    with SimServer(generate_show("tiny"), config) as server:
        dialog = make()
        fill(dialog, sim_profile(server.base_url, server.auth_url, server.show_id), "demo-secret")
        dialog.show()
        qtbot.waitExposed(dialog)
        result = run_test(loop, dialog)
    box = dialog.test_details
    qtbot.waitUntil(lambda: box.isVisible() and box.horizontalScrollBar().maximum() == 0)
    assert len(result.details) > 20  # a line per list: more than the box shows at once
    assert box.verticalScrollBar().maximum() > 0 and 10 <= lines_shown(box) < 13
    assert box.width() >= max(box.fontMetrics().horizontalAdvance(t) for t in result.details)

    async def one_line(_connection: Any, _registry: Any) -> ConnectionCheck:
        return ConnectionCheck(False, "unreachable", "Cannot reach it.", ("Customers: refused",))

    dialog = make(tester=one_line)
    fill(dialog, a_profile())
    dialog.show()
    qtbot.waitExposed(dialog)
    run_test(loop, dialog)
    box = dialog.test_details
    qtbot.waitUntil(box.isVisible)
    assert box.verticalScrollBar().maximum() == 0 and box.horizontalScrollBar().maximum() == 0
    assert 1 <= lines_shown(box) < 1.5  # one line's height, not three


def sim_profile(base_url: str, auth_url: str, show_id: str) -> Profile:
    return Profile(name="Sim", base_url=base_url, auth_url=auth_url, show_id=show_id)


def test_push_on_save_is_a_profile_setting(
    make: Callable[..., ProfileDialog], store: ProfileStore
) -> None:
    dialog = make(replace(a_profile(), push_on_save=True))
    assert dialog.push_on_save.isChecked()
    dialog.push_on_save.setChecked(False)
    assert dialog.profile().push_on_save is False
    fresh = make()
    assert not fresh.push_on_save.isChecked()


def test_push_on_save_and_the_review_threshold_are_named_for_what_they_do_and_saved(
    qtbot: QtBot, make: Callable[..., ProfileDialog], store: ProfileStore
) -> None:
    dialog = make()
    fill(dialog, a_profile("Spring show", "SPRING-1"))
    assert dialog.push_on_save.text() == "Push a record when I save it"
    assert dialog.review_push_over.value() == 5  # the default: more than a handful is reviewed
    dialog.push_on_save.setChecked(True)
    dialog.review_push_over.setValue(20)
    with qtbot.waitSignal(dialog.saved, timeout=1000):
        dialog.save_button.click()
    saved = store.get("Spring show")
    assert saved is not None and (saved.push_on_save, saved.review_push_over) == (True, 20)
    again = make(saved)
    assert again.push_on_save.isChecked() and again.review_push_over.value() == 20


def test_test_connection_answers_before_the_windows_loop_exists(
    qtbot: QtBot, make: Callable[..., ProfileDialog]
) -> None:
    """The first run's "Connect to a show" dialog opens before the window's asyncio loop is
    made: its Test connection still answers (on a thread of its own), against the simulator."""
    from app.sim import SimConfig, SimServer, generate_show

    asyncio.set_event_loop(None)  # as at the first run: no asyncio loop at all yet
    results: list[ConnectionCheck] = []
    with SimServer(generate_show("tiny"), SimConfig(throttle=False)) as server:
        dialog = make()
        dialog.test_finished.connect(results.append)
        fill(dialog, sim_profile(server.base_url, server.auth_url, server.show_id), "demo-secret")
        dialog.test_button.click()
        assert not dialog.test_button.isEnabled()
        qtbot.waitUntil(lambda: bool(results), timeout=30_000)
    assert results[0].ok, results[0]
    assert dialog.test_result.text() == results[0].message
    assert dialog.test_button.isEnabled()


def test_the_page_size_is_a_profile_setting_with_a_ceiling(
    qtbot: QtBot, make: Callable[..., ProfileDialog], store: ProfileStore
) -> None:
    """Issue 31, point 5: lists ask for pages of 1,000 unless the profile says otherwise, at
    most 10,000; a stored size beyond the ceiling is shown (and saved) at the ceiling."""
    dialog = make()
    fill(dialog, a_profile("Spring show", "SPRING-1"))
    assert dialog.page_size.value() == 1000 and dialog.page_size.maximum() == 10_000
    dialog.page_size.setValue(5000)
    with qtbot.waitSignal(dialog.saved, timeout=1000):
        dialog.save_button.click()
    saved = store.get("Spring show")
    assert saved is not None and saved.page_size == 5000
    assert make(saved).page_size.value() == 5000
    assert make(replace(saved, page_size=50_000)).profile().page_size == 10_000


def test_the_v2_base_url_is_a_profile_setting(
    qtbot: QtBot, make: Callable[..., ProfileDialog], store: ProfileStore
) -> None:
    """Issue 31, point 1: a profile may name its show's V2 base URL; empty is V1 only, and
    anything else must be an http(s) URL before the profile can be saved."""
    dialog = make()
    fill(dialog, a_profile("Spring show", "SPRING-1"))
    assert dialog.v2_base_url.text() == "" and dialog.profile().v2_base_url is None
    dialog.v2_base_url.setText("tsapi.perenso.net/v2")
    dialog.save_button.click()
    assert store.get("Spring show") is None
    dialog.v2_base_url.setText("https://tsapi.perenso.net/v2")
    with qtbot.waitSignal(dialog.saved, timeout=1000):
        dialog.save_button.click()
    saved = store.get("Spring show")
    assert saved is not None and saved.v2_base_url == "https://tsapi.perenso.net/v2"
    assert make(saved).v2_base_url.text() == "https://tsapi.perenso.net/v2"
