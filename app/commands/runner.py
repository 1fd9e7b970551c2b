"""Carry out a parsed headless command line: every error becomes a message and an exit code."""

from __future__ import annotations

import argparse
import importlib
import logging
from collections.abc import Callable
from typing import cast

from app.api.errors import InvalidValue, ShowDeskError
from app.commands.output import Output
from app.commands.workspace import INTERRUPTED, USAGE, UsageError, Workspace, workspace

log = logging.getLogger(__name__)

Command = Callable[[argparse.Namespace, Workspace], int]
# Each command's module is imported when it runs: an export or a status never imports the
# client (httpx, pydantic), a command it does not send with.
COMMANDS: dict[str, tuple[str, str]] = {
    "check": ("app.commands.check", "cmd_check"),
    "sync": ("app.commands.sync", "cmd_sync"),
    "push": ("app.commands.push", "cmd_push"),
    "export": ("app.commands.export", "cmd_export"),
    "import": ("app.commands.importing", "cmd_import"),
    "status": ("app.commands.status", "cmd_status"),
    "conflicts": ("app.commands.conflicts", "cmd_conflicts"),
    "resolve": ("app.commands.conflicts", "cmd_resolve"),
    "audit": ("app.commands.audit", "cmd_audit"),
}


def command(name: str) -> Command:
    """The function that carries out the command `name`."""
    module, function = COMMANDS[name]
    return cast(Command, getattr(importlib.import_module(module), function))


def run(args: argparse.Namespace) -> int:
    """Carry out a parsed headless command; errors become a message and an exit code."""
    out = Output(args.command, json_mode=getattr(args, "json", False))
    try:
        with workspace(args, out) as ws:
            code = command(args.command)(args, ws)
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
