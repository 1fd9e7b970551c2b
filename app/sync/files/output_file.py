"""Writing a file the user named, as a Unix tool does (issue 16): exports, the audit log, an
import's errors file — the window's and the command line's.

- `-` is standard output;
- a symbolic link is followed: its target is written, the link stays a link;
- a path that exists and is not a regular file (a device such as /dev/stdout, a FIFO) is written
  in place, never replaced;
- a regular file, or a new one, is written to a temporary file beside it, flushed to disk and
  renamed over it: a reader never sees half a file, a failed write leaves the old one whole, and
  the file keeps its permissions (a new one gets the usual ones, as the umask says).
"""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

STDOUT = "-"


def is_stdout(path: Path | str) -> bool:
    return str(path) == STDOUT


def shown_name(path: Path | str) -> str:
    """How a message names the output: "standard output" for `-`, else the path."""
    return "standard output" if is_stdout(path) else str(path)


@contextmanager
def output_file(path: Path | str, *, binary: bool = False) -> Iterator[IO[Any]]:
    """An open file to write `path` as the module docstring says; text is UTF-8 with newlines
    written as given (csv writes its own)."""
    if is_stdout(path):
        yield from _stdout(binary)
        return
    target = Path(os.path.realpath(path))  # a symbolic link: write what it points to
    if target.exists() and not stat.S_ISREG(target.stat().st_mode):
        with _open(target, binary) as stream:  # a device or a FIFO: in place
            yield stream
        return
    yield from _atomic(target, binary)


def _open(path: Path, binary: bool) -> IO[Any]:
    if binary:
        return open(path, "wb")
    return open(path, "w", encoding="utf-8", newline="")


def _stdout(binary: bool) -> Iterator[IO[Any]]:
    sys.stdout.flush()
    stream: IO[Any] = sys.stdout.buffer if binary else sys.stdout
    yield stream
    stream.flush()


def _atomic(target: Path, binary: bool) -> Iterator[IO[Any]]:
    mode = stat.S_IMODE(target.stat().st_mode) if target.exists() else _new_file_mode()
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part")
    try:
        with (
            os.fdopen(fd, "wb")
            if binary
            else os.fdopen(fd, "w", encoding="utf-8", newline="") as stream
        ):
            yield stream
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _new_file_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask
