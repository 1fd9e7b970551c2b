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
