"""Fixtures of the window's tests: a small show on the simulator, roomy on its rate budget."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import qasync
from pytestqt.qtbot import QtBot

from app.sim import SimServer, generate_show
from tests.gui.conftest import Opened, Opener, config, profile_for, wait_synced


@pytest.fixture
def tiny_server() -> Iterator[SimServer]:
    """The "tiny" generated show (seed 3) at 300 requests per span: tests wait on nothing."""
    with SimServer(generate_show("tiny", seed=3), config(rate_limit=300)) as running:
        yield running


@pytest.fixture
def opened_tiny(
    loop: qasync.QEventLoop, open_window: Opener, tiny_server: SimServer, qtbot: QtBot
) -> Opened:
    """The window on the tiny show, synced, and the active window (it has the keyboard)."""
    opened: Opened = open_window(profile_for(tiny_server))
    wait_synced(loop, opened.session)
    with qtbot.waitActive(opened.window):
        opened.window.activateWindow()
    return opened
