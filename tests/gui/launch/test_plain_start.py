"""`showdesk` with no option builds no argument parser (issue 17: the start is timed); what it
runs with must be exactly what the parser would have given, and `--version` still answers."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version

from app.cli import _gui_parser, _gui_parser_defaults


def test_the_plain_start_runs_with_the_parsers_defaults() -> None:
    assert _gui_parser_defaults() == _gui_parser().parse_args([])


def test_the_version_is_read_when_asked() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "app", "--version"], capture_output=True, text=True, timeout=60
    )
    assert (done.returncode, done.stdout) == (0, f"ShowDesk {version('showdesk')}\n")


def test_pyside6s_import_hook_no_longer_reads_every_modules_source() -> None:
    """If a PySide6 upgrade renames the hook's internals, this says the start lost the cut."""
    done = subprocess.run(
        [sys.executable, "-c", SPARED], capture_output=True, text=True, timeout=60
    )
    assert done.stdout.split() == ["True", "0"], done.stderr[-2000:]


SPARED = """
import inspect
from app.ui.launch.feature_hook import spare_source_reads
print(spare_source_reads())
reads = []
real = inspect.getsource
inspect.getsource = lambda obj: reads.append(obj) or real(obj)
import app.ui.window.main_window
print(len(reads))
"""
