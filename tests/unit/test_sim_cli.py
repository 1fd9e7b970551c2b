"""`showdesk sim` argument handling (the serving loop itself is SimServer, tested in tests/sim)."""

from __future__ import annotations

import pytest

from app.sim.cli import build_parser, config_from, main


def test_defaults() -> None:
    args = build_parser().parse_args([])
    config = config_from(args)
    assert (args.host, args.port, args.size, args.seed) == ("127.0.0.1", 8765, "demo", 1)
    assert (config.show_id, config.client_secret) == ("DEMO-SHOW", "demo-secret")
    assert (config.rate_limit, config.rate_window, config.throttle) == (300, 60.0, True)


def test_every_switch() -> None:
    args = build_parser().parse_args(
        ["--size", "250", "--seed", "4", "--show-id", "S1", "--secret", "s3", "--shape",
         "wrapped", "--page-size", "50", "--token-lifetime", "5", "--rate", "10/2",
         "--no-throttle", "--error-rate", "0.1", "--drop-rate", "0.2", "--latency", "0.3",
         "--html-errors"]
    )  # fmt: skip
    config = config_from(args)
    assert args.size == 250 and args.seed == 4
    assert (config.show_id, config.client_secret, config.shape) == ("S1", "s3", "wrapped")
    assert (config.page_size, config.token_lifetime) == (50, 5.0)
    assert (config.rate_limit, config.rate_window, config.throttle) == (10, 2.0, False)
    assert (config.error_rate, config.drop_rate, config.latency) == (0.1, 0.2, 0.3)
    assert config.html_errors


def test_conformance_switches() -> None:
    """issue 12: conformance — strict by default; the flags name the other shapes."""
    strict = config_from(build_parser().parse_args([]))
    assert (strict.strict, strict.integer_ids, strict.offset_dates) == (True, False, False)
    args = build_parser().parse_args(["--friendly", "--integer-ids", "--offset-dates"])
    shaped = config_from(args)
    assert (shaped.strict, shaped.integer_ids, shaped.offset_dates) == (False, True, True)


@pytest.mark.parametrize(
    "argv", [["--size", "huge"], ["--rate", "fast"], ["--error-rate", "2"], ["--shape", "x"]]
)
def test_bad_values_are_refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(argv)
    assert "error" in capsys.readouterr().err


def test_only_loopback(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--host", "0.0.0.0", "--size", "tiny"]) == 2
    assert "loopback" in capsys.readouterr().err


def test_renamed_and_missing_resources() -> None:
    args = build_parser().parse_args(
        ["--rename", "customers=/Customers", "--rename", "brands=/Marques", "--missing", "brokers"]
    )
    config = config_from(args)
    assert config.paths == {"customers": "/Customers", "brands": "/Marques"}
    assert config.missing == frozenset({"brokers"})
    assert config_from(build_parser().parse_args([])).paths == {}


def test_a_rename_needs_a_path(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--rename", "customers"])
    assert "SLUG=/Path" in capsys.readouterr().err


def test_token_and_message_switches() -> None:  # issue 12: tokens & messages
    default = config_from(build_parser().parse_args([]))
    assert (default.token_auth, default.expires_in, default.issue_refresh_tokens) == (
        "any", True, True,
    )  # fmt: skip
    assert default.error_shape == "message-errors"
    args = build_parser().parse_args(
        ["--token-auth", "basic", "--no-expires-in", "--no-refresh-token", "--error-shape", "field"]
    )
    config = config_from(args)
    assert (config.token_auth, config.expires_in, config.issue_refresh_tokens) == (
        "basic", False, False,
    )  # fmt: skip
    assert config.error_shape == "field"


def test_paging_switches() -> None:
    """issue 12: paging — the envelope, the paging names the show understands, sortable."""
    defaults = config_from(build_parser().parse_args([]))
    assert (defaults.page_params, defaults.sortable) == (("page", "resultsPerPage"), True)
    args = build_parser().parse_args(
        ["--shape", "data", "--page-params", "pageNumber,pageSize", "--no-sort"]
    )
    config = config_from(args)
    assert (config.shape, config.page_params, config.sortable) == (
        "data", ("pageNumber", "pageSize"), False
    )  # fmt: skip


@pytest.mark.parametrize("value", ["page", "a,a", "a,b,c", ",b"])
def test_bad_page_params_are_refused(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--page-params", value])
    assert "two names" in capsys.readouterr().err
