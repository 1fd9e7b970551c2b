"""Who the app says it is: name, organisation and version from one place, the icon set, the
About dialog (version; where settings, cache and logs live), and `showdesk --self-test`."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from importlib.metadata import version
from pathlib import Path

import pytest
import qasync
from PySide6.QtCore import QSettings, QSize, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox
from pytestqt.qtbot import QtBot

from app import APP_NAME, ORG_NAME, __version__
from app.profile.logs import log_path
from app.profile.settings import config_dir
from app.sim import SimServer, generate_show
from app.ui.launch.identity import ICON_SIZES, ICONS, app_icon, application
from app.ui.session.tasks import TaskRunner
from app.ui.window.main_window import MainWindow
from tests.gui.conftest import Opener, config, profile_for, wait_synced


@pytest.fixture
def server() -> Iterator[SimServer]:
    with SimServer(generate_show("tiny", seed=6), config()) as running:
        yield running


def test_name_organisation_and_version_come_from_the_package(qapp: QApplication) -> None:
    assert __version__ == version("showdesk")
    app = application()
    assert (app.applicationName(), app.organizationName()) == (APP_NAME, ORG_NAME)
    assert app.applicationVersion() == __version__
    assert app.desktopFileName() == "showdesk"


def test_the_icon_set_has_every_size_desktops_want(qapp: QApplication) -> None:
    assert (ICONS / "showdesk.svg").exists()
    for extra in ("showdesk.ico", "showdesk.icns"):
        assert (ICONS / extra).stat().st_size > 1000
    icon = app_icon()
    assert {s.width() for s in icon.availableSizes()} == set(ICON_SIZES)
    for size in ICON_SIZES:
        assert not icon.pixmap(QSize(size, size)).isNull()
    assert application().windowIcon().availableSizes() == icon.availableSizes()


def test_about_shows_the_version_and_where_files_live(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer, qtbot: QtBot
) -> None:
    opened = open_window(profile_for(server, "About show"))
    wait_synced(loop, opened.session)
    text = opened.window.about_text()
    assert f"{APP_NAME} {__version__}" in text
    assert str(config_dir()) in text
    assert str(opened.session.profile.data_dir) in text  # this show's cache and outbox
    assert str(log_path()) in text

    shown: list[str] = []

    def read_and_close() -> None:
        box = QApplication.activeModalWidget()
        assert isinstance(box, QMessageBox)
        shown.append(box.text())
        box.accept()

    QTimer.singleShot(0, read_and_close)
    opened.window.actions_["about"].trigger()
    assert shown and __version__ in shown[0] and str(log_path()) in shown[0]


def test_about_without_an_open_show_still_says_where_files_live(
    qtbot: QtBot, tmp_path: Path
) -> None:
    settings = QSettings(str(tmp_path / "w.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings, TaskRunner())
    qtbot.addWidget(window)
    text = window.about_text()
    assert __version__ in text and str(log_path()) in text and str(config_dir()) in text


@pytest.mark.slow
def test_self_test_opens_the_demo_show_and_exits_0(tmp_path: Path) -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    result = subprocess.run(
        [sys.executable, "-m", "app", "--self-test"],
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    for line in ("window shown", "resource tree", "customers in the table", "self-test: OK"):
        assert line in result.stdout
    assert not list(Path(os.environ["XDG_CONFIG_HOME"]).rglob("profiles.json"))  # a temp home


@pytest.mark.slow
def test_self_test_fails_loudly_within_its_timeout() -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    result = subprocess.run(
        [sys.executable, "-m", "app", "--self-test", "--timeout", "0.001"],
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert result.returncode == 1
    assert "self-test: FAILED" in result.stdout


DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
FONT_PROBE = """
import sys
from pathlib import Path
import app.ui.launch.identity as identity
from PySide6.QtWidgets import QApplication
app = QApplication([])
identity.FONTS = Path(sys.argv[1])
identity._add_bundled_fonts(app)
print(app.font().family())
"""


@pytest.mark.skipif(not DEJAVU.exists(), reason="needs fonts-dejavu-core (system-deps.sh)")
def test_a_bundled_font_is_used_on_a_system_without_fonts(tmp_path: Path) -> None:
    fonts = tmp_path / "fonts"
    fonts.mkdir()
    (fonts / DEJAVU.name).write_bytes(DEJAVU.read_bytes())
    no_fonts = tmp_path / "fonts.conf"  # a fontconfig that knows no font at all
    no_fonts.write_text(
        f"<?xml version='1.0'?><fontconfig><cachedir>{tmp_path / 'fc'}</cachedir></fontconfig>",
        encoding="utf-8",
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "FONTCONFIG_FILE": str(no_fonts)}
    result = subprocess.run(
        [sys.executable, "-c", FONT_PROBE, str(fonts)],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "DejaVu Sans"
