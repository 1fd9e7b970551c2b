"""A headless command's log file is opened by the first record (app/commands/log_on_demand.py):
a command that logs nothing leaves no file; what is logged is written, redacted, at the file's
levels."""

from __future__ import annotations

import logging

import pytest

from app.commands.log_on_demand import logging_when_used
from app.profile.logs import file_handler, log_path
from app.profile.settings import SECRET_ENV


def test_a_command_that_logs_nothing_opens_no_log_file() -> None:
    with logging_when_used():
        assert file_handler() is None
    assert not log_path().exists()
    assert file_handler() is None


def test_the_first_record_opens_the_file_and_is_written_redacted_at_its_levels(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(SECRET_ENV, "s3cret-value")
    root_level = logging.getLogger().level
    with logging_when_used():
        logging.getLogger("httpx").info("one line per request: not for the file")
        logging.getLogger("app.test").info("signed in with s3cret-value")
        logging.getLogger("app.test").warning("a second line")
        assert file_handler() is not None
    text = log_path().read_text("utf-8")
    assert "not for the file" not in text
    assert "signed in with [redacted]" in text and "s3cret-value" not in text
    assert "a second line" in text
    assert file_handler() is None and logging.getLogger().level == root_level


class Kept(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def test_the_first_record_reaches_the_handlers_after_the_waiting_one_once_and_the_file_once() -> (
    None
):
    """The log file takes the waiting handler's place: removed from the root's handlers while
    logging walked them, the handler after it was skipped and the file, added at the end, got
    the first record twice."""
    kept = Kept()
    root = logging.getLogger()
    with logging_when_used():
        root.addHandler(kept)
        try:
            logging.getLogger("app.test").warning("the first record")
        finally:
            root.removeHandler(kept)
    assert kept.messages == ["the first record"]
    assert log_path().read_text("utf-8").count("the first record") == 1
