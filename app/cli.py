"""The `showdesk` command: the desktop app by default, headless subcommands for scripts.

showdesk [--demo] [--profile NAME]            open the window (the demo show with --demo)
showdesk --self-test                          open the demo show, check it rendered, exit 0
showdesk sim [...]                            run the show simulator
showdesk sync [--resource SLUG ...] [--full]  pull the show into the cache
showdesk push [--resource SLUG ...] [--dry-run]  send the outbox (or tell what it would take)
showdesk import SLUG FILE [--key F] [--dry-run]
showdesk export SLUG [--format csv|xlsx|json] [-o FILE] [--pending]
showdesk status [--json] | conflicts | resolve ID --mine|--theirs | audit -o FILE
showdesk check                                ask every list once; suggest overrides for 404s
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from app import __version__
from app.logs import logging_to_file

HEADLESS = (
    "sync", "push", "import", "export", "status", "conflicts", "resolve", "audit", "check",
)  # fmt: skip


def resources_text() -> str:
    """The resources a SLUG names, grouped as the window's tree shows them: slug, then title."""
    from app.api.registry import default_registry

    registry = default_registry()
    width = max(len(r.slug) for r in registry) + 2
    lines = ["Resources (SLUG — what the window calls it):"]
    for group in registry.groups:
        members = registry.in_group(group)
        if members:
            lines.append(f"  {group}")
            lines += [f"    {r.slug:<{width}}{r.title}" for r in members]
    return "\n".join(lines)


def _gui_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="showdesk",
        description="A desktop window on a Perenso TradeShow show.",
        epilog=f"Subcommands: sim, {', '.join(HEADLESS)} (`showdesk SUBCOMMAND --help`).\n\n"
        + resources_text(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"ShowDesk {__version__}")
    parser.add_argument("--demo", action="store_true", help="open the embedded demo show")
    parser.add_argument("--profile", help="open this saved profile")
    parser.add_argument(
        "--self-test",
        action="store_true",
        help="open the window on the demo show, check it works, exit (0: it does)",
    )
    parser.add_argument("--timeout", type=float, default=120.0, help=argparse.SUPPRESS)
    return parser


def _headless_parser() -> argparse.ArgumentParser:
    from app.headless import add_connection_options

    parser = argparse.ArgumentParser(prog="showdesk")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("sync", help="pull the show into the local cache")
    p.add_argument("--resource", action="append", metavar="SLUG", help="only this resource")
    p.add_argument("--full", action="store_true", help="list everything (detects deletions)")
    p = sub.add_parser("push", help="send the pending changes of the outbox")
    p.add_argument("--resource", action="append", metavar="SLUG", help="only this resource")
    p.add_argument("--retry-failed", action="store_true", help="also retry failed changes")
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="send nothing: tell how many requests the push makes and how long it takes",
    )
    p = sub.add_parser("export", help="write a resource from the cache to a file")
    p.add_argument("resource", metavar="SLUG")
    p.add_argument("--format", choices=("csv", "xlsx", "json"))
    p.add_argument("-o", "--output", type=Path)
    p.add_argument(
        "--pending",
        action="store_true",
        help="as the window shows it: the outbox's pending changes laid over the records",
    )
    p = sub.add_parser("import", help="queue the rows of a CSV/XLSX file as changes")
    p.add_argument("resource", metavar="SLUG")
    p.add_argument("file", type=Path)
    p.add_argument("--key", metavar="FIELD", help="match rows on this field (default: id / key)")
    p.add_argument("--dry-run", action="store_true", help="report only, queue nothing")
    p = sub.add_parser("status", help="cached counts, last syncs and the outbox")
    p.add_argument("--json", action="store_true")
    sub.add_parser("conflicts", help="list the changes in conflict with the server")
    p = sub.add_parser("resolve", help="settle a conflict")
    p.add_argument("id", type=int, metavar="ID")
    side = p.add_mutually_exclusive_group(required=True)
    side.add_argument("--mine", action="store_true", help="push my version")
    side.add_argument("--theirs", action="store_true", help="keep the server's version")
    p = sub.add_parser("audit", help="export the audit log of pushed changes")
    p.add_argument("-o", "--output", type=Path, required=True, help="a .csv or .json file")
    sub.add_parser(
        "check",
        help="ask every list once, report how each answered, suggest overrides for 404s",
    )
    for name in ("sync", "push", "export", "import"):  # the commands that take a SLUG
        sub.choices[name].epilog = resources_text()
        sub.choices[name].formatter_class = argparse.RawDescriptionHelpFormatter
    for action in sub.choices.values():
        add_connection_options(action)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "sim":
        from app.sim.cli import main as sim_main

        return int(sim_main(args[1:]))
    if args and args[0] in HEADLESS:
        from app.headless import run

        options = _headless_parser().parse_args(args)
        with logging_to_file():
            return run(options)
    options = _gui_parser().parse_args(args)
    if options.self_test:
        from app.ui.launch.self_test import self_test

        return self_test(timeout=options.timeout)
    with logging_to_file():
        from app.ui.launch.app import run as run_gui

        return run_gui(demo=options.demo, profile_name=options.profile)
