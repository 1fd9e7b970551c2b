"""`showdesk sim`: serve a generated show on 127.0.0.1 until Ctrl+C.

Prints the base URL, auth URL, show ID and secret a profile needs, then serves. Wired into the
`showdesk` console script by app/cli.py; `python -m app.sim` runs it too.
"""

from __future__ import annotations

import argparse
import sys

from app.sim.config import SHAPES, SimConfig
from app.sim.generator import SIZES, generate_show
from app.sim.server import SimServer


def _size(text: str) -> str | int:
    if text in SIZES:
        return text
    if text.isdigit() and int(text) > 0:
        return int(text)
    raise argparse.ArgumentTypeError(f"'{text}' is not {', '.join(SIZES)} or a customer count")


def _rate(text: str) -> tuple[int, float]:
    count, _, seconds = text.partition("/")
    try:
        return int(count), float(seconds or 60)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not N/S, e.g. 300/60") from None


def _share(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError("a share between 0 and 1")
    return value


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="showdesk sim", description="Serve a simulated TradeShow API V1 show on loopback."
    )
    p.add_argument("--host", default="127.0.0.1", help="loopback address (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8765, help="port (0 = any free one)")
    p.add_argument("--size", type=_size, default="demo", help="tiny, demo, large or N customers")
    p.add_argument("--seed", type=int, default=1, help="data seed (same seed, same show)")
    p.add_argument("--show-id", default="DEMO-SHOW", help="the show ID (OAuth client id)")
    p.add_argument("--secret", default="demo-secret", help="the client secret")
    p.add_argument("--shape", choices=SHAPES, default="array", help="how lists answer")
    p.add_argument("--page-size", type=int, default=None, help="page served when none is asked")
    p.add_argument("--token-lifetime", type=float, default=3600.0, help="seconds")
    p.add_argument("--rate", type=_rate, default=(300, 60.0), help="N/S, default 300/60")
    p.add_argument("--no-throttle", action="store_true", help="never answer the 403 rate limit")
    p.add_argument("--error-rate", type=_share, default=0.0, help="share of 5xx answers")
    p.add_argument("--drop-rate", type=_share, default=0.0, help="share of dropped connections")
    p.add_argument("--malformed-rate", type=_share, default=0.0, help="share of broken JSON")
    p.add_argument("--latency", type=float, default=0.0, help="seconds added to each request")
    p.add_argument("--html-errors", action="store_true", help="5xx answers are HTML pages")
    p.add_argument("--fault-seed", type=int, default=0, help="seed of the fault dice")
    # issue 12: throttling
    p.add_argument(
        "--retry-after", action="store_true", help="throttling 403s carry a Retry-After header"
    )
    p.add_argument(
        "--deny-writes",
        action="append",
        default=[],
        metavar="SLUG",
        help='creates/updates/deletes of this resource answer 403 "not allowed" (repeatable)',
    )
    p.add_argument(
        "--count-rejected", action="store_true", help="rejected requests count in the window too"
    )
    return p


def config_from(args: argparse.Namespace) -> SimConfig:
    limit, window = args.rate
    return SimConfig(
        show_id=args.show_id,
        client_secret=args.secret,
        shape=args.shape,
        page_size=args.page_size,
        token_lifetime=args.token_lifetime,
        rate_limit=limit,
        rate_window=window,
        throttle=not args.no_throttle,
        error_rate=args.error_rate,
        drop_rate=args.drop_rate,
        malformed_rate=args.malformed_rate,
        latency=args.latency,
        html_errors=args.html_errors,
        fault_seed=args.fault_seed,
        # issue 12: throttling
        retry_after=args.retry_after,
        deny_writes=frozenset(args.deny_writes),
        count_rejected=args.count_rejected,
    )


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        server = SimServer(
            generate_show(args.size, args.seed), config_from(args), host=args.host, port=args.port
        )
    except ValueError as exc:
        print(f"showdesk sim: {exc}", file=sys.stderr)
        return 2
    try:
        server.bind()
    except OSError as exc:
        print(f"showdesk sim: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 1
    print(f"Simulated show on {server.root_url}  ({args.size}, seed {args.seed})")
    print(f"  base URL   {server.base_url}")
    print(f"  auth URL   {server.auth_url}")
    print(f"  show ID    {server.show_id}")
    print(f"  secret     {server.client_secret}")
    print("Ctrl+C stops it.", flush=True)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    return 0
