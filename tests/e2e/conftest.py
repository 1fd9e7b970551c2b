"""Fixtures of the end-to-end tests: the second, independent fake server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.e2e.plain_server import PlainServer


@pytest.fixture
def plain_server() -> Iterator[PlainServer]:
    server = PlainServer().start()
    try:
        yield server
    finally:
        server.stop()
