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

from app.commands import HEADLESS


class _Version(argparse.Action):
    """`--version`: the installed package's version, read only when asked (not at each start)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(
            option_strings,
            dest,
            nargs=0,
            default=argparse.SUPPRESS,
            help="show the version and exit",
        )

    def __call__(self, parser: argparse.ArgumentParser, *args: object, **kwargs: object) -> None:
        from app import __version__

        print(f"ShowDesk {__version__}")
        parser.exit()


class _GuiParser(argparse.ArgumentParser):
    """The window's options; its help ends with the resources, read from the registry only
    when the help is printed (opening the window never loads the registry for it)."""

    def format_help(self) -> str:
        from app.commands.parser import resources_text

        self.epilog = f"{SUBCOMMANDS}\n\n{resources_text()}"
        return super().format_help()


SUBCOMMANDS = f"Subcommands: sim, {', '.join(HEADLESS)} (`showdesk SUBCOMMAND --help`)."


def _gui_parser() -> argparse.ArgumentParser:
    parser = _GuiParser(
        prog="showdesk",
        description="A desktop window on a Perenso TradeShow show.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("-V", "--version", action=_Version)
    parser.add_argument("--demo", action="store_true", help="open the embedded demo show")
    parser.add_argument("--profile", help="open this saved profile")
    parser.add_argument(
        "--self-test",
        action="store_true",
        help="open the window on the demo show, check it works, exit (0: it does)",
    )
    parser.add_argument("--timeout", type=float, default=120.0, help=argparse.SUPPRESS)
    return parser


def _gui_parser_defaults() -> argparse.Namespace:
    return argparse.Namespace(demo=False, profile=None, self_test=False, timeout=120.0)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "sim":
        from app.sim.cli import main as sim_main

        return int(sim_main(args[1:]))
    if args and args[0] in HEADLESS:
        from app.commands.log_on_demand import logging_when_used
        from app.commands.parser import headless_parser
        from app.commands.runner import run

        options = headless_parser(json_errors="--json" in args).parse_args(args)
        with logging_when_used():
            return run(options)
    if args and not args[0].startswith("-"):  # a mistyped subcommand: say the nearest
        return _unknown_command(args[0])
    # The plain `showdesk` builds no parser (its help, choices and checks are for options).
    options = _gui_parser().parse_args(args) if args else _gui_parser_defaults()
    from app.ui.launch.feature_hook import spare_source_reads

    spare_source_reads()  # before the window's modules are imported
    if options.self_test:
        from app.ui.launch.self_test import self_test

        return self_test(timeout=options.timeout)
    from app.ui.launch.app import run as run_gui  # it attaches the log file once painted

    return run_gui(demo=options.demo, profile_name=options.profile)


def _unknown_command(name: str) -> int:
    import difflib

    nearest = difflib.get_close_matches(name, ("sim", *HEADLESS), n=1, cutoff=0.5)
    hint = f" Did you mean `showdesk {nearest[0]}`?" if nearest else ""
    print(
        f"showdesk: {name!r} is not a command.{hint} "
        f"Commands: sim, {', '.join(HEADLESS)} (`showdesk --help`).",
        file=sys.stderr,
    )
    return 2
