"""Issue 30, item 8 in the window: File ▸ Profiles lists the profiles in one order, whichever was
saved, edited or opened last, and Open opens the one chosen (the list once reordered between
openings and the wrong show was opened). Real windows, real simulators, real profile files."""

from __future__ import annotations

from pathlib import Path

import qasync
import shiboken6
from PySide6.QtCore import QSettings

from app.profile.settings import Profile, ProfileStore, SecretStore
from app.sim import SimConfig, SimServer, generate_show
from app.ui.launch.show_desk import ShowDesk
from app.ui.session.tasks import TaskRunner
from app.ui.window.main_window import MainWindow
from app.ui.window.profile_manager import ProfileManager
from tests.gui.conftest import SECRET, until, wait_synced

NAMES = ("spring show", "Autumn show", "Winter show")


def show(show_id: str) -> SimConfig:
    return SimConfig(show_id=show_id, client_secret=SECRET, throttle=False)


def listed(window: MainWindow) -> tuple[ProfileManager, list[str]]:
    """File ▸ Profiles, as the menu opens it: the manager and the names it lists, in order."""
    window.actions_["profiles"].trigger()
    manager = window.findChildren(ProfileManager)[-1]
    assert manager.isVisible()
    return manager, [manager.list.item(i).text() for i in range(manager.list.count())]


def choose(loop: qasync.QEventLoop, window: MainWindow, manager: ProfileManager, name: str) -> None:
    """The profile's row clicked, then Open; waits for its show to be open and synced."""
    row = next(
        i for i in range(manager.list.count()) if manager.list.item(i).text().startswith(name)
    )
    manager.list.setCurrentRow(row)
    assert manager.selected_name() == name
    manager.buttons["Open"].click()
    loop.run_until_complete(
        until(lambda: window.session is not None and window.session.profile.name == name, 30)
    )
    assert window.session is not None
    wait_synced(loop, window.session)


def test_the_profiles_keep_one_order_and_open_the_one_chosen(
    loop: qasync.QEventLoop, tmp_path: Path
) -> None:
    with (
        SimServer(generate_show("tiny", seed=1), show("SPRING")) as spring,
        SimServer(generate_show("tiny", seed=2), show("AUTUMN")) as autumn,
        SimServer(generate_show("tiny", seed=3), show("WINTER")) as winter,
    ):
        store, secrets = ProfileStore(), SecretStore()
        for name, server in zip(NAMES, (spring, autumn, winter), strict=True):
            profile = Profile(name, server.base_url, server.auth_url, server.show_id)
            store.save(profile)
            secrets.set(profile, SECRET)
        tasks = TaskRunner()
        window = MainWindow(QSettings(str(tmp_path / "w.ini"), QSettings.Format.IniFormat), tasks)
        desk = ShowDesk(window, tasks, tell=lambda _text: None)
        try:
            session = desk.open_saved("Winter show")
            assert session is not None
            window.show()
            wait_synced(loop, session)
            manager, first = listed(window)
            assert [n.split(" — ")[0] for n in first] == [
                "Autumn show",
                "spring show",
                "Winter show",
            ]
            choose(loop, window, manager, "Autumn show")
            assert window.session is not None and window.session.profile.show_id == "AUTUMN"

            manager, again = listed(window)
            assert again == first  # the same order after another profile was opened
            assert manager.selected_name() == "Autumn show"  # the one open, chosen
            choose(loop, window, manager, "spring show")
            assert window.session is not None and window.session.profile.show_id == "SPRING"
            _manager, third = listed(window)
            assert third == first
            _manager.close()
        finally:
            loop.run_until_complete(desk.close())
            loop.run_until_complete(tasks.cancel_all())
            window.close()
            shiboken6.delete(window)
