"""Fixtures of the reliability suite: its level (fast or full) and the session's tally."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.reliability.levels import Level, choose, level
from tests.reliability.tally import Tally, report_path


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--reliability-full",
        action="store_true",
        default=False,
        help="run the reliability suite with its full settings (SHOWDESK_RELIABILITY=full)",
    )


def pytest_configure(config: pytest.Config) -> None:
    choose(bool(config.getoption("--reliability-full", default=False)))


@pytest.fixture(scope="session")
def strength() -> Level:
    return level()


@pytest.fixture(scope="session")
def tally() -> Iterator[Tally]:
    counts = Tally()
    yield counts
    path = report_path()
    if path is not None:
        counts.save(path)
