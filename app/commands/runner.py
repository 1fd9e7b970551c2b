"""Carry out a parsed headless command line: every error becomes a message and an exit code."""

from __future__ import annotations

import argparse
import logging
from collections.abc import Callable

from app.api.errors import InvalidValue, ShowDeskError
from app.commands.audit import cmd_audit
from app.commands.check import cmd_check
from app.commands.conflicts import cmd_conflicts, cmd_resolve
from app.commands.export import cmd_export
from app.commands.importing import cmd_import
from app.commands.output import Output
from app.commands.push import cmd_push
from app.commands.status import cmd_status
from app.commands.sync import cmd_sync
from app.commands.workspace import INTERRUPTED, USAGE, UsageError, Workspace, workspace

log = logging.getLogger(__name__)

COMMANDS: dict[str, Callable[[argparse.Namespace, Workspace], int]] = {
    "check": cmd_check,
    "sync": cmd_sync,
    "push": cmd_push,
    "export": cmd_export,
    "import": cmd_import,
    "status": cmd_status,
    "conflicts": cmd_conflicts,
    "resolve": cmd_resolve,
    "audit": cmd_audit,
}


def run(args: argparse.Namespace) -> int:
    """Carry out a parsed headless command; errors become a message and an exit code."""
    out = Output(args.command, json_mode=getattr(args, "json", False))
    try:
        with workspace(args, out) as ws:
            code = COMMANDS[args.command](args, ws)
    except (UsageError, InvalidValue) as exc:
        code = _failed(out, str(exc), USAGE)
    except ShowDeskError as exc:
        code = _failed(out, exc.message, USAGE)
    except OSError as exc:  # a file given on the command line, the log folder…
        where = f" {exc.filename}" if exc.filename else ""
        code = _failed(out, f"cannot use{where}: {exc.strerror or exc}", USAGE)
    except KeyboardInterrupt:
        code = _failed(out, "interrupted; what was done is kept", INTERRUPTED)
    except Exception as exc:  # a bug: one line for the user, the traceback in the log
        log.exception("showdesk %s failed", args.command)
        code = _failed(out, f"unexpected error ({type(exc).__name__}): see the log", USAGE)
    else:
        out.finish(code)
        if code:
            log.warning("showdesk %s ended with exit code %d", args.command, code)
    return code


def _failed(out: Output, message: str, code: int) -> int:
    """Say the one error the command ends with, and log it (a scheduled job's log shows it)."""
    log.error("showdesk %s: %s (exit %d)", out.command, message, code)
    out.error(message, code)
    return code
