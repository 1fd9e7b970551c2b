"""The window's log file, attached once the window has painted; what is logged before, kept.

The log file's handler (concurrent-log-handler and its file locking, the settings it reads) is
not needed to paint the show from disk, so `showdesk` attaches it after the first paint: records
logged before are kept in memory (`EarlyRecords`) and written to the file, redacted like the
rest, when it is attached — or when the window ends without ever painting (a refused profile,
an error while starting), so nothing logged at the start is lost.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager


class EarlyRecords(logging.Handler):
    """Keeps every record logged until the log file is attached."""

    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@contextmanager
def logging_from_paint(level: int = logging.INFO) -> Iterator[Callable[[], None]]:
    """The log file for the window's day: gives `attach`, to call once the window painted
    (called again at the end if it never was); the file is detached when the block ends."""
    root = logging.getLogger()
    early, was_level = EarlyRecords(), root.level
    root.addHandler(early)
    if root.level == logging.NOTSET or root.level > level:
        root.setLevel(level)

    def attach() -> None:
        if early not in root.handlers:
            return
        from app.profile.logs import (
            start_logging,  # imported first: what other threads log meanwhile
        )
        # still reaches the early handler

        root.removeHandler(early)
        handler = start_logging(level)
        while handler is not None and early.records:  # none when the log cannot be written
            handler.handle(early.records.pop(0))
        early.records.clear()

    try:
        yield attach
    finally:
        attach()
        from app.profile.logs import stop_logging

        stop_logging()
        root.setLevel(was_level)
