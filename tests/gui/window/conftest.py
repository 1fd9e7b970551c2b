"""Fixtures of the window's tests: a small show on the simulator, roomy on its rate budget."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from app.sim import SimServer, generate_show
from tests.gui.conftest import config


@pytest.fixture
def tiny_server() -> Iterator[SimServer]:
    """The "tiny" generated show (seed 3) at 300 requests per span: tests wait on nothing."""
    with SimServer(generate_show("tiny", seed=3), config(rate_limit=300)) as running:
        yield running
