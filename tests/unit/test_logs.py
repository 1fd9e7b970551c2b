"""The log file: where it is, that it rotates, and that no secret or token is ever written to it."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import httpx
import pytest

from app.profile.logs import (
    REDACTED,
    ShowDeskFileHandler,
    file_handler,
    log_path,
    logging_to_file,
    redact,
    remember_secret,
)
from app.profile.settings import HOME_ENV, SECRET_ENV, log_dir

SECRET = "s3cr3t-Client-Value-42"
TOKEN = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMDAyMTQifQ.c2lnbmF0dXJl"
REFRESH = "rt-8f14e45fceea167a5a36dedd4bea2543"
BASIC = "REVNTy1TSE9XOmRlbW8tc2VjcmV0"  # base64("DEMO-SHOW:demo-secret")

LEAKY_LINES = [
    ("Authorization: Bearer %s", (TOKEN,)),
    ("headers=%r", ({"Authorization": f"Basic {BASIC}"},)),
    ("token answer: %s", (json.dumps({"access_token": TOKEN, "refresh_token": REFRESH}),)),
    ("sent %s", (f"grant_type=client_credentials&client_id=DEMO&client_secret={SECRET}",)),
    ("sent %s", (f"grant_type=refresh_token&refresh_token={REFRESH}&scope=100214",)),
    ("url %s", (f"https://auth.example/token?access_token={TOKEN}&x=1",)),
    ("profile %r", ({"name": "Spring", "client_secret": SECRET},)),
    ("secret was %s", (SECRET,)),
]


def read_log() -> str:
    return "".join(p.read_text(encoding="utf-8") for p in log_path().parent.glob("showdesk.log*"))


def test_the_log_file_lives_in_the_user_log_directory(user_dirs: Path) -> None:
    assert log_path().parent == log_dir()
    assert log_path().is_relative_to(user_dirs)
    with logging_to_file():
        logging.getLogger("app.test").info("hello from the test")
    assert "hello from the test" in log_path().read_text(encoding="utf-8")
    assert file_handler() is None  # removed and closed on the way out


def test_showdesk_home_moves_the_log_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(HOME_ENV, str(tmp_path / "elsewhere"))
    assert log_path() == tmp_path / "elsewhere" / "log" / "showdesk.log"


@pytest.mark.parametrize(("message", "args"), LEAKY_LINES)
def test_secrets_and_tokens_never_reach_the_log_file(message: str, args: tuple[object]) -> None:
    with logging_to_file():
        remember_secret(SECRET)
        logging.getLogger("app.api").warning(message, *args)
    written = read_log()
    assert REDACTED in written
    for secret in (SECRET, TOKEN, REFRESH, BASIC):
        assert secret not in written


def test_a_traceback_is_redacted_too() -> None:
    with logging_to_file():
        remember_secret(SECRET)
        try:
            raise RuntimeError(f"failed with client_secret={SECRET} and Bearer {TOKEN}")
        except RuntimeError:
            logging.getLogger("app").exception("it broke")
    written = read_log()
    assert "RuntimeError" in written and "it broke" in written
    assert SECRET not in written and TOKEN not in written


def test_the_secret_from_the_environment_is_known_from_the_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(SECRET_ENV, "env-secret-value")
    with logging_to_file():
        logging.getLogger("app").error("odd value: %s", "env-secret-value")
    assert "env-secret-value" not in read_log()


def test_an_httpx_request_body_and_headers_logged_by_mistake_are_redacted() -> None:
    request = httpx.Request(
        "POST",
        "https://auth.example/oauth/token",
        headers={"Authorization": f"Bearer {TOKEN}"},
        data={"client_id": "DEMO", "client_secret": SECRET, "grant_type": "client_credentials"},
    )
    with logging_to_file():
        logging.getLogger("app").info("request %s %s", request.headers, request.read())
    written = read_log()
    assert SECRET not in written and TOKEN not in written


def test_ordinary_text_is_left_alone() -> None:
    text = "Synced 1,234 customers in 3.2 s (tokens: 2 refreshes; refresh token: yes)"
    assert redact(text) == text


def test_redaction_keeps_quotes_so_json_still_reads() -> None:
    data = json.loads(redact(json.dumps({"access_token": TOKEN, "expires_in": 3600})))
    assert data == {"access_token": REDACTED, "expires_in": 3600}


def test_the_log_rotates_instead_of_growing(tmp_path: Path) -> None:
    handler = ShowDeskFileHandler(tmp_path / "showdesk.log")
    handler.maxBytes = 2_000
    logger = logging.getLogger("rotation-test")
    logger.propagate = False
    logger.addHandler(handler)
    try:
        for i in range(200):
            logger.warning("line %d %s", i, "x" * 40)
    finally:
        logger.removeHandler(handler)
        handler.close()
    files = sorted(tmp_path.glob("showdesk.log*"))
    assert 1 < len(files) <= 6
    assert all(f.stat().st_size <= 2_100 for f in files)


def test_starting_twice_keeps_one_handler() -> None:
    with logging_to_file(), logging_to_file():
        handlers = [h for h in logging.getLogger().handlers if isinstance(h, ShowDeskFileHandler)]
        assert len(handlers) == 1


def test_levels_changed_for_the_file_are_given_back() -> None:
    root, httpx_log = logging.getLogger(), logging.getLogger("httpx")
    before = (root.level, httpx_log.level)
    with logging_to_file():
        assert root.level <= logging.INFO and httpx_log.level == logging.WARNING
    assert (root.level, httpx_log.level) == before
