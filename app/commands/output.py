"""How a headless command speaks: lines for people, or one JSON document for scripts.

Every command writes through its `Output` (`ws.out`), never `print`:
- `line(text)`: a line of the result on stdout (text mode only);
- `warn(text)`: a warning or remark on stderr in text mode, a `warnings` entry in JSON;
- `set(**fields)` / `add(name, item)`: the JSON document's fields and list entries (ignored in
  text mode, so a command states its result both ways side by side);
- `error(message)`: the one error a failed command ends with — `showdesk CMD: message` on stderr,
  or with `--json` one JSON object `{"command", "error", "exit"}` on stderr;
- `finish(code)`: with `--json`, prints the document (`command`, `exit`, the fields, `warnings`).

The document's shape per command is written down in docs/cli-json.md.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable
from typing import Any, TextIO


class Streamed:
    """A list of the JSON document written item by item when the document is printed (`items`
    is called then): a command's thousands of rows never held in memory at once."""

    def __init__(self, items: Callable[[], Iterable[Any]]) -> None:
        self.items = items


class Output:
    """One command's output, as text or as one JSON document (`json_mode`)."""

    def __init__(
        self,
        command: str,
        json_mode: bool = False,
        stdout: TextIO | None = None,
        stderr: TextIO | None = None,
    ) -> None:
        self.command = command
        self.json_mode = json_mode
        self._stdout = stdout
        self._stderr = stderr
        self.document: dict[str, Any] = {}
        self.warnings: list[str] = []
        self.finished = False

    @property
    def stdout(self) -> TextIO:  # as it is now, not at construction (tests swap them)
        return self._stdout if self._stdout is not None else sys.stdout

    @property
    def stderr(self) -> TextIO:
        return self._stderr if self._stderr is not None else sys.stderr

    def line(self, text: str) -> None:
        if not self.json_mode:
            print(text, file=self.stdout)

    def warn(self, text: str) -> None:
        if self.json_mode:
            self.warnings.append(text)
        else:
            print(text, file=self.stderr)

    def set(self, **fields: Any) -> None:
        self.document.update(fields)

    def add(self, name: str, item: Any) -> None:
        self.document.setdefault(name, []).append(item)

    def stream(self, name: str, items: Callable[[], Iterable[Any]]) -> None:
        """The list `name` of the document, its items read from `items()` as it is printed."""
        self.document[name] = Streamed(items)

    def error(self, message: str, code: int) -> None:
        if self.json_mode:
            data = {"command": self.command, "error": message, "exit": code}
            print(json.dumps(data, ensure_ascii=False), file=self.stderr)
        else:
            print(f"showdesk {self.command}: {message}", file=self.stderr)

    def finish(self, code: int) -> None:
        """With `--json`, the document on stdout (once, at the end, whatever the exit code; a
        command whose lists are streamed from what it holds open finishes before closing it)."""
        if not self.json_mode or self.finished:
            return
        self.finished = True
        data = {"command": self.command, "exit": code, **self.document}
        if self.warnings:
            data["warnings"] = self.warnings
        if not any(isinstance(v, Streamed) for v in data.values()):
            print(json.dumps(data, ensure_ascii=False, default=str), file=self.stdout)
            return
        # Written to a temporary file first, then copied: a list that fails part-way (a read
        # error, Ctrl-C) leaves stdout empty rather than holding half a document.
        import shutil
        import tempfile

        with tempfile.TemporaryFile("w+", encoding="utf-8") as out:
            dumps = _dumps
            for n, (name, value) in enumerate(data.items()):
                out.write(("{" if n == 0 else ", ") + dumps(name) + ": ")
                if isinstance(value, Streamed):
                    out.write("[")
                    for i, item in enumerate(value.items()):
                        out.write((", " if i else "") + dumps(item))
                    out.write("]")
                else:
                    out.write(dumps(value))
            out.write("}\n")
            out.seek(0)
            shutil.copyfileobj(out, self.stdout)


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


class Progress:
    """One rewritten line on stderr, only when stderr is a terminal."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr  # as it is now, not at import
        self.live = self.stream.isatty()

    def say(self, text: str) -> None:
        if self.live:
            self.stream.write("\r\x1b[K" + text)
            self.stream.flush()

    def done(self) -> None:
        if self.live:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
