"""The headless command line: `showdesk SUBCOMMAND [options]` (see app/cli.py for the window's)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import NoReturn


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


def headless_parser(json_errors: bool = False) -> argparse.ArgumentParser:
    """The headless command line; with `json_errors` (`--json` was given) a usage error is one
    JSON object on stderr, as every other error of a `--json` command is."""
    from app.commands.workspace import add_connection_options  # the client's modules: only here

    parser = (_JsonErrors if json_errors else _Parser)(prog="showdesk")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("sync", help="pull the show into the local cache")
    p.add_argument("--resource", action="append", metavar="SLUG", help="only this resource")
    p.add_argument("--full", action="store_true", help="list everything (detects deletions)")
    p = sub.add_parser("push", help="send the pending changes of the outbox")
    p.add_argument("--resource", action="append", metavar="SLUG", help="only this resource")
    p.add_argument("--retry-failed", action="store_true", help="also retry failed changes")
    p.add_argument(
        "--time-limit",
        type=float,
        metavar="SECONDS",
        help="in a team: stop after this long, saying how many of your changes are left (exit 1)",
    )
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="send nothing: tell how many requests the push makes and how long it takes",
    )
    p.add_argument(
        "--no-bulk",
        action="store_true",
        help="one request per record: leave V2's bulk upserts aside for this push",
    )
    _export_arguments(sub.add_parser("export", help="write a resource from the cache to a file"))
    _import_arguments(sub.add_parser("import", help="queue the rows of a CSV/XLSX file as changes"))
    sub.add_parser("status", help="cached counts, last syncs and the outbox")
    sub.add_parser("conflicts", help="list the changes in conflict with the server")
    p = sub.add_parser("resolve", help="settle a conflict")
    p.add_argument("id", type=int, metavar="ID")
    side = p.add_mutually_exclusive_group(required=True)
    side.add_argument("--mine", action="store_true", help="push my version")
    side.add_argument("--theirs", action="store_true", help="keep the server's version")
    p = sub.add_parser("audit", help="export the audit log of pushed changes")
    p.add_argument(
        "-o",
        "--output",
        type=Path,
        default=Path("-"),
        help="a .csv or .json file; - (the default) for standard output, as CSV",
    )
    p = sub.add_parser(
        "check",
        help="ask every list once, report how each answered, suggest overrides for 404s",
    )
    p.add_argument(
        "--v2",
        action="store_true",
        help="prove V2's ordering groups on this show: one customer's same values upserted "
        "through V2, read back through V1 and compared (put back if the round trip changed it)",
    )
    for name in ("sync", "push", "export", "import"):  # the commands that take a SLUG
        sub.choices[name].lists_resources = True
        sub.choices[name].formatter_class = argparse.RawDescriptionHelpFormatter
    for action in sub.choices.values():
        action.add_argument(
            "--json",
            action="store_true",
            help="one JSON document on stdout (errors: one JSON object on stderr); "
            "docs/cli-json.md gives its shape",
        )
        add_connection_options(action)
    return parser


def _export_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("resource", metavar="SLUG")
    p.add_argument("--format", choices=("csv", "xlsx", "json"))
    p.add_argument(
        "-o", "--output", type=Path, help="the file to write; - for standard output (CSV)"
    )
    p.add_argument(
        "--pending",
        action="store_true",
        help="as the window shows it: the outbox's pending changes laid over the records",
    )
    p.add_argument(
        "--headers",
        choices=("fields", "titles"),
        default="fields",
        help="the header row: the API's field names (default) or the window's column titles; "
        "both import back",
    )
    p.add_argument(
        "--keep-formulas",
        action="store_true",
        help="write texts starting with = + - @ as they are (by default an apostrophe in front "
        "keeps spreadsheets from running them as formulas; imports remove it again)",
    )


def _import_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("resource", metavar="SLUG")
    p.add_argument("file", type=Path)
    p.add_argument("--key", metavar="FIELD", help="match rows on this field (default: id / key)")
    p.add_argument("--dry-run", action="store_true", help="report only, queue nothing")
    p.add_argument(
        "--delimiter",
        help="the CSV's separator: , ; or tab (detected by default)",
    )
    p.add_argument(
        "--encoding",
        help="the CSV's encoding, e.g. utf-8 or cp1252 (detected by default: UTF-8 with or "
        "without BOM, else the Windows code page)",
    )


class _Parser(argparse.ArgumentParser):
    """A command's parser; the help of one that takes a SLUG ends with the resources, read from
    the registry only when the help is printed (a command's start never loads it for that)."""

    lists_resources = False

    def format_help(self) -> str:
        if self.lists_resources:
            self.epilog = resources_text()
        return super().format_help()


class _JsonErrors(_Parser):
    """A parser whose usage errors are `{"command", "error", "exit": 2}` on stderr (its
    subcommands' parsers are of this class too: argparse makes them of the parent's class)."""

    def error(self, message: str) -> NoReturn:
        command = self.prog.split()[-1] if " " in self.prog else "showdesk"
        data = {"command": command, "error": message, "exit": 2}
        print(json.dumps(data, ensure_ascii=False), file=sys.stderr)
        raise SystemExit(2)
