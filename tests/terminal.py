"""Processes a test stops with Ctrl-C (SIGINT) get it as at a terminal.

A job a non-interactive shell starts in the background (`cmd &`, as a CI runner may start the
suite) has SIGINT ignored, and every process under it inherits that: a `showdesk` command the
test interrupts would never see its Ctrl-C (a push then ran on to exit 0, or waited for ever).
"""

from __future__ import annotations

import signal


def ctrl_c_as_at_a_terminal() -> None:
    """`preexec_fn` of a command a test interrupts: SIGINT back to its default in the child."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
