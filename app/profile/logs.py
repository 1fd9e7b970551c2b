"""The log file: rotating, in the user log directory, with secrets redacted before any write.

`logging_to_file()` is entered by the `showdesk` command for the window and the headless
commands alike; it attaches a rotating handler (1 MB × 5) to the root logger, safe when several
processes write the log at once (`ShowDeskFileHandler`). Every
record that reaches it passes a `RedactingFilter` first: bearer and basic credentials, the
values of `access_token` / `refresh_token` / `client_secret` (and the like) in JSON, form bodies,
query strings and reprs, and any client secret the app was given (`remember_secret`), are
replaced by `[redacted]` — in the message, its arguments and the formatted traceback.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from concurrent_log_handler import ConcurrentRotatingFileHandler

from app.profile.settings import SECRET_ENV, log_dir

LOG_NAME = "showdesk.log"
MAX_BYTES = 1_000_000
BACKUPS = 5
REDACTED = "[redacted]"
FORMAT = "%(asctime)s %(levelname)-7s %(name)s [%(process)d]: %(message)s"

_KEYS = (
    "access_token|refresh_token|id_token|client_secret|clientsecret|password|passwd|api_key|apikey"
)
_VALUE = r"""(?P<value>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[^\s&,;"'}\])]+)"""
# `"key": "value"`, `'key': 'value'`, `key=value` (form bodies, query strings), `key: value`;
# plain `token` and `secret` only as a quoted key or before `=` ("token: yes" is prose).
_KEY_VALUE = re.compile(
    rf"""(?ix)
    (?P<key>["']?\b(?:{_KEYS})\b["']?\s*[:=]\s*
       | ["'](?:token|secret)["']\s*[:=]\s*
       | \b(?:token|secret)=)
    {_VALUE}
    """
)
# `Authorization: Bearer …`, `Basic …` (a word after "Basic" may be redacted too: safe side).
_SCHEME = re.compile(r"(?i)\b(?P<scheme>bearer|basic)(?P<gap>\s+)[A-Za-z0-9._~+/=-]{4,}")
_MIN_SECRET = 4  # shorter "secrets" would redact ordinary words


def redact(text: str, known: frozenset[str] | set[str] = frozenset()) -> str:
    """`text` with every credential-shaped part and every known secret value replaced."""
    for secret in sorted(known, key=len, reverse=True):
        if len(secret) >= _MIN_SECRET:
            text = text.replace(secret, REDACTED)
    text = _SCHEME.sub(lambda m: f"{m['scheme']}{m['gap']}{REDACTED}", text)
    return _KEY_VALUE.sub(_redact_value, text)


def _redact_value(match: re.Match[str]) -> str:
    value = match["value"]
    if value == REDACTED or value.strip("\"'") == REDACTED:
        return match.group(0)
    quote = value[0] if value[0] in "\"'" else ""
    return f"{match['key']}{quote}{REDACTED}{quote}"


class RedactingFilter(logging.Filter):
    """Rewrites each record so that no secret or token survives into a handler's output."""

    def __init__(self, known: set[str] | None = None) -> None:
        super().__init__()
        self.known: set[str] = set(known or ())
        self._formatter = logging.Formatter()

    def add_secret(self, secret: str | None) -> None:
        if secret and len(secret) >= _MIN_SECRET:
            self.known.add(secret)

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except (TypeError, ValueError):  # arguments that do not fit the format: keep both
            message = f"{record.msg} {record.args}"
        record.msg = redact(message, self.known)
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = self._formatter.formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text, self.known)
        if record.stack_info:
            record.stack_info = redact(record.stack_info, self.known)
        return True


class _RedactedRecords:
    """A log record factory: records are redacted as they are made, so that no handler — the
    terminal's, a test's, one a user configured — ever sees a secret, not only the log file."""

    def __init__(self, make: Callable[..., logging.LogRecord], redactor: RedactingFilter) -> None:
        self.make = make
        self.redactor = redactor

    def __call__(self, *args: Any, **kwargs: Any) -> logging.LogRecord:
        record = self.make(*args, **kwargs)
        self.redactor.filter(record)
        return record


class ShowDeskFileHandler(ConcurrentRotatingFileHandler):
    """The log file's handler (its own class, so it is found and replaced, never doubled).

    The window and a scheduled `showdesk sync` write the same file at once: concurrent-log-
    handler takes a file lock around every write and rotation (a lock file beside the log), so
    no process writes into a file another has just rotated away and no record is lost or torn.
    The file is readable by its owner only (it names the show's records)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        super().__init__(
            str(path), maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8", chmod=0o600
        )
        self.redactor = RedactingFilter({os.environ.get(SECRET_ENV) or ""} - {""})
        self.addFilter(self.redactor)
        self.setFormatter(logging.Formatter(FORMAT))
        self.previous_levels: dict[str, int] = {}  # what `start_logging` changed, to give back
        self.previous_factory = logging.getLogRecordFactory()

    def handleError(self, record: logging.LogRecord) -> None:
        """A log line that cannot be written (a full disk) is dropped: the log must never be
        what stops ShowDesk, nor spill tracebacks onto the terminal."""


def log_path() -> Path:
    """Where the log file is (or will be) written."""
    return log_dir() / LOG_NAME


def file_handler() -> ShowDeskFileHandler | None:
    return next(
        (h for h in logging.getLogger().handlers if isinstance(h, ShowDeskFileHandler)), None
    )


# Loggers whose level the log file sets (and `stop_logging` gives back): one line per HTTP
# request would push everything else out of the rotation.
_QUIETER = {"httpx": logging.WARNING, "httpcore": logging.WARNING}


def start_logging(level: int = logging.INFO) -> ShowDeskFileHandler | None:
    """Attach the log file to the root logger (replacing one attached before); None when the
    log folder cannot be written (ShowDesk then runs without a log file)."""
    stop_logging()
    try:
        handler = ShowDeskFileHandler(log_path())
    except OSError:
        return None
    root = logging.getLogger()
    handler.previous_levels = {name: logging.getLogger(name).level for name in ("", *_QUIETER)}
    handler.previous_factory = logging.getLogRecordFactory()
    logging.setLogRecordFactory(_RedactedRecords(handler.previous_factory, handler.redactor))
    root.addHandler(handler)
    if root.level == logging.NOTSET or root.level > level:
        root.setLevel(level)
    for name, quieter in _QUIETER.items():
        logging.getLogger(name).setLevel(quieter)
    return handler


def stop_logging() -> None:
    """Detach and close the log file; the levels it changed are as they were."""
    handler = file_handler()
    if handler is not None:
        logging.getLogger().removeHandler(handler)
        logging.setLogRecordFactory(handler.previous_factory)
        handler.close()
        for name, level in handler.previous_levels.items():
            logging.getLogger(name or None).setLevel(level)


@contextmanager
def logging_to_file(level: int = logging.INFO) -> Iterator[ShowDeskFileHandler | None]:
    """The log file for the duration of a command."""
    handler = start_logging(level)
    try:
        yield handler
    finally:
        stop_logging()


def remember_secret(secret: str | None) -> None:
    """Redact this secret's value wherever it appears in the log from now on."""
    handler = file_handler()
    if handler is not None:
        handler.redactor.add_secret(secret)
