"""The window's log file is attached after the first paint (app/ui/launch/early_log.py): what was
logged before reaches the file all the same, in order and redacted, and so does what was logged
by a start that never painted."""

from __future__ import annotations

import logging

import pytest

from app.profile.logs import file_handler, log_path
from app.profile.settings import SECRET_ENV
from app.ui.launch.early_log import logging_from_paint

log = logging.getLogger("app.test_early_log")


def test_what_is_logged_before_the_paint_is_written_once_the_file_is_attached(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(SECRET_ENV, "s3cret-value")
    with logging_from_paint() as attach:
        log.info("opening the show (before the paint)")
        log.warning("a secret s3cret-value said before the paint")
        assert file_handler() is None  # nothing imported nor opened for the log yet
        attach()
        log.info("connected (after the paint)")
        text = log_path().read_text("utf-8")
    assert file_handler() is None  # detached at the end
    said = [line.split(": ", 1)[1] for line in text.splitlines() if "app.test_early_log" in line]
    assert said[0] == "opening the show (before the paint)"
    assert said[1].startswith("a secret ") and "s3cret-value" not in text
    assert said[2:] == ["connected (after the paint)"]


def test_a_start_that_never_painted_still_leaves_its_lines_in_the_file() -> None:
    with logging_from_paint():
        log.warning("that profile is open elsewhere")
    assert "that profile is open elsewhere" in log_path().read_text("utf-8")
