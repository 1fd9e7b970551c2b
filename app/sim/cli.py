"""`showdesk sim`: serve a generated show on 127.0.0.1 until Ctrl+C.

Prints the base URL, auth URL, show ID and secret a profile needs, then serves. Wired into the
`showdesk` console script by app/cli.py; `python -m app.sim` runs it too.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import fields, replace

from app.sim.config import (
    BULK_LOSSES,
    ERROR_SHAPES,
    MAX_RESULTS_PER_PAGE,
    PAGE_OFFSETS,
    SHAPES,
    TOKEN_AUTHS,
    SimConfig,
)
from app.sim.generator import SIZES, generate_show
from app.sim.presets import config_for, describe
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


def _rename(text: str) -> tuple[str, str]:
    slug, _, path = text.partition("=")
    if not slug or not path.startswith("/"):
        raise argparse.ArgumentTypeError(f"'{text}' is not SLUG=/Path, e.g. customers=/Customers")
    return slug, path


def _page_params(text: str) -> tuple[str, str]:
    names = [n.strip() for n in text.split(",")]
    if len(names) != 2 or not all(names) or names[0] == names[1]:
        raise argparse.ArgumentTypeError(f"'{text}' is not two names A,B, e.g. pageNumber,pageSize")
    return names[0], names[1]


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="showdesk sim",
        description="Serve a simulated TradeShow API show (V1, and V2 bulk upserts) on loopback.",
        epilog="presets (--preset NAME):\n" + describe(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--preset",
        action="append",
        metavar="NAME",
        help="play a named server shape (repeatable, later ones win; flags given win over them;"
        " 'list' lists them)",
    )
    p.add_argument("--host", default="127.0.0.1", help="loopback address (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8765, help="port (0 = any free one)")
    p.add_argument("--size", type=_size, default="demo", help="tiny, demo, large or N customers")
    p.add_argument("--seed", type=int, default=1, help="data seed (same seed, same show)")
    p.add_argument("--show-id", default="DEMO-SHOW", help="the show ID (OAuth client id)")
    p.add_argument("--secret", default="demo-secret", help="the client secret")
    p.add_argument("--shape", choices=SHAPES, default="array", help="how lists answer")
    p.add_argument("--page-size", type=int, default=None, help="page served when none is asked")
    # issue 12: paging
    p.add_argument(
        "--page-params",
        type=_page_params,
        default=("page", "resultsPerPage"),
        help="the paging names the show understands, e.g. pageNumber,pageSize",
    )
    p.add_argument("--no-sort", action="store_true", help="answer 400 to any sort")
    # issue 31: pages as large as the show grants
    p.add_argument(
        "--page-cap", type=int, default=MAX_RESULTS_PER_PAGE,
        help=f"the most a page holds, whatever is asked (default {MAX_RESULTS_PER_PAGE})",
    )  # fmt: skip
    p.add_argument(
        "--page-offsets", choices=PAGE_OFFSETS, default="granted",
        help="a page number's first record counted by the size a page holds, or the size asked",
    )  # fmt: skip
    p.add_argument("--token-lifetime", type=float, default=3600.0, help="seconds")
    p.add_argument("--rate", type=_rate, default=(300, 60.0), help="N/S, default 300/60")
    p.add_argument("--no-throttle", action="store_true", help="never answer the 403 rate limit")
    p.add_argument("--error-rate", type=_share, default=0.0, help="share of 5xx answers")
    p.add_argument("--drop-rate", type=_share, default=0.0, help="share of dropped connections")
    p.add_argument("--malformed-rate", type=_share, default=0.0, help="share of broken JSON")
    p.add_argument("--latency", type=float, default=0.0, help="seconds added to each request")
    p.add_argument("--html-errors", action="store_true", help="5xx answers are HTML pages")
    p.add_argument("--fault-seed", type=int, default=0, help="seed of the fault dice")
    # issue 12: not offered / renamed
    p.add_argument(
        "--rename", type=_rename, action="append", default=[], metavar="SLUG=/Path",
        help="serve this resource under another path; its registry path answers 404 (repeatable)",
    )  # fmt: skip
    p.add_argument(
        "--missing", action="append", default=[], metavar="SLUG",
        help="this resource answers 404 on every path (repeatable)",
    )  # fmt: skip
    # issue 12: tokens & messages
    p.add_argument(
        "--token-auth", choices=TOKEN_AUTHS, default="any",
        help="where the token endpoint accepts the client credentials (Basic header, form body)",
    )  # fmt: skip
    p.add_argument("--no-expires-in", action="store_true", help="token answers carry no lifetime")
    p.add_argument("--no-refresh-token", action="store_true", help="issue no refresh tokens")
    p.add_argument(
        "--error-shape", choices=ERROR_SHAPES, default="message-errors", help="how 400s are worded"
    )
    # issue 12: conformance
    p.add_argument("--friendly", action="store_true", help="modifiedDate everywhere, nulls taken")
    p.add_argument("--integer-ids", action="store_true", help="record ids are JSON integers")
    p.add_argument("--offset-dates", action="store_true", help="dates with zone and fractions")
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
        "--count-rejected", action="store_true", help="rejected requests count in the budget too"
    )
    # issue 31: V2 bulk upserts
    p.add_argument("--no-v2", action="store_true", help="offer no V2: every V2 path answers 404")
    p.add_argument(
        "--v2-batch-cap", type=int, default=1000,
        help="the most elements a V2 bulk request may hold, never announced (default 1000)",
    )  # fmt: skip
    p.add_argument(
        "--v2-too-large-status", type=int, default=413,
        help="the status of a V2 bulk request over the cap (default 413)",
    )  # fmt: skip
    p.add_argument(
        "--bulk-lost-rate", type=_share, default=0.0,
        help="share of V2 bulk answers lost after the batch was applied",
    )  # fmt: skip
    p.add_argument(
        "--bulk-lost-as", choices=BULK_LOSSES, default="drop",
        help="a lost bulk answer: the connection dropped halfway, or a 502",
    )  # fmt: skip
    return p


def config_from(args: argparse.Namespace) -> SimConfig:
    limit, span = args.rate
    return SimConfig(
        show_id=args.show_id,
        client_secret=args.secret,
        shape=args.shape,
        page_size=args.page_size,
        page_params=args.page_params,  # issue 12: paging
        sortable=not args.no_sort,
        page_cap=args.page_cap,  # issue 31: pages as large as the show grants
        page_offsets=args.page_offsets,
        token_lifetime=args.token_lifetime,
        rate_limit=limit,
        rate_window=span,
        throttle=not args.no_throttle,
        error_rate=args.error_rate,
        drop_rate=args.drop_rate,
        malformed_rate=args.malformed_rate,
        latency=args.latency,
        html_errors=args.html_errors,
        fault_seed=args.fault_seed,
        # issue 12: not offered / renamed
        paths=dict(args.rename),
        missing=frozenset(args.missing),
        # issue 12: tokens & messages
        token_auth=args.token_auth,
        expires_in=not args.no_expires_in,
        issue_refresh_tokens=not args.no_refresh_token,
        error_shape=args.error_shape,
        # issue 12: conformance
        strict=not args.friendly,
        integer_ids=args.integer_ids,
        offset_dates=args.offset_dates,
        # issue 12: throttling
        retry_after=args.retry_after,
        deny_writes=frozenset(args.deny_writes),
        count_rejected=args.count_rejected,
        # issue 31: V2 bulk upserts
        v2=not args.no_v2,
        v2_batch_cap=args.v2_batch_cap,
        v2_too_large_status=args.v2_too_large_status,
        bulk_lost_rate=args.bulk_lost_rate,
        bulk_lost_as=args.bulk_lost_as,
    )


def config_with_presets(args: argparse.Namespace) -> SimConfig:
    """The config of the flags, on top of the presets asked: a flag given explicitly (a value
    other than its default) wins over every preset, the presets win over the defaults."""
    flags = config_from(args)
    if not args.preset:
        return flags
    defaults = config_from(build_parser().parse_args([]))
    given = {
        f.name: getattr(flags, f.name)
        for f in fields(SimConfig)
        if getattr(flags, f.name) != getattr(defaults, f.name)
    }
    return replace(config_for(args.preset), **given)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.preset and "list" in args.preset:
        print("Presets (showdesk sim --preset NAME, repeatable):")
        print(describe())
        return 0
    try:
        server = SimServer(
            generate_show(args.size, args.seed),
            config_with_presets(args),
            host=args.host,
            port=args.port,
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
    if server.config.v2:  # after the lines scripts read first (issue 31)
        print(f"  V2 base    {server.v2_base_url}")
    print("Ctrl+C stops it.", flush=True)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    return 0
