"""A headless command's log file, opened by the first record that reaches it.

The log file's handler (app/profile/logs.py, on concurrent_log_handler and portalocker, which reads
the
installed packages' metadata when imported) costs 50-100 ms of a command's start here; a
command that logs nothing — an export, a status — never pays it. What is logged is written as
by `app.profile.logs.logging_to_file`: the same levels, the same redaction, the same file.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager


class _OpenOnFirstRecord(logging.Handler):
    """Stands on the root logger until a record comes: then attaches the log file in its place
    and hands it that record (when the file's levels let it through)."""

    def __init__(self, level: int) -> None:
        super().__init__()
        self.file_level = level
        self.opened = False

    def emit(self, record: logging.LogRecord) -> None:  # under this handler's lock
        from app.profile.logs import file_handler, start_logging

        if not self.opened:
            self.opened = True
            start_logging(self.file_level)
            self._give_place(file_handler())
        handler = file_handler()  # None when the log folder cannot be written
        if handler is not None and logging.getLogger(record.name).isEnabledFor(record.levelno):
            handler.handle(record)

    def _give_place(self, handler: logging.Handler | None) -> None:
        """The log file takes this handler's place among the root's handlers, which logging
        is walking for this record: removed, the handler after it was skipped, and the file,
        added at the end, got the record twice."""
        handlers = logging.getLogger().handlers
        if handler is not None and handler in handlers:
            handlers.remove(handler)
        if self in handlers:
            if handler is None:
                handlers.remove(self)
            else:
                handlers[handlers.index(self)] = handler


@contextmanager
def logging_when_used(level: int = logging.INFO) -> Iterator[None]:
    """The log file for the duration of a command, opened only if something is logged."""
    root = logging.getLogger()
    was_level = root.level
    waiting = _OpenOnFirstRecord(level)
    root.addHandler(waiting)
    if root.level == logging.NOTSET or root.level > level:
        root.setLevel(level)
    try:
        yield
    finally:
        root.removeHandler(waiting)
        if waiting.opened:
            from app.profile.logs import stop_logging

            stop_logging()  # gives back the levels it set
        root.setLevel(was_level)
