"""The `showdesk` command: the desktop app by default, headless subcommands for scripts.

showdesk [--demo] [--profile NAME]      open the window (the demo show with --demo)
showdesk sim [...]                      run the show simulator (see `showdesk sim --help`)
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from app import __version__


def _gui_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="showdesk",
        description="A desktop window on a Perenso TradeShow show.",
        epilog="Subcommands: sim (run the show simulator). `showdesk SUBCOMMAND --help` for each.",
    )
    parser.add_argument("--version", action="version", version=f"ShowDesk {__version__}")
    parser.add_argument("--demo", action="store_true", help="open the embedded demo show")
    parser.add_argument("--profile", help="open this saved profile")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "sim":
        from app.sim.cli import main as sim_main

        return sim_main(args[1:])
    options = _gui_parser().parse_args(args)
    if options.demo:
        # The main window is not built yet (issue 4): the demo is the simulator on its own.
        from app.sim.cli import main as sim_main

        return sim_main(["--size", "demo"])
    _gui_parser().print_help()
    return 2
