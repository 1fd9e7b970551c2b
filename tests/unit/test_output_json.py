"""`--json` output (app/commands/output.py): a document whose lists are streamed is printed
whole or not at all — a list that fails part-way (a read error, Ctrl-C) leaves stdout empty, as
a document built in memory did, and the error goes to stderr alone."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator

import pytest

from app.commands.output import Output


def test_a_streamed_list_that_fails_part_way_prints_no_half_document() -> None:
    stdout, stderr = io.StringIO(), io.StringIO()
    out = Output("push", json_mode=True, stdout=stdout, stderr=stderr)
    out.set(applied=2)

    def changes() -> Iterator[dict[str, int]]:
        yield {"id": 1}
        yield {"id": 2}
        raise KeyboardInterrupt  # the user stops a long report

    out.stream("changes", changes)
    with pytest.raises(KeyboardInterrupt):
        out.finish(0)
    out.error("interrupted; what was done is kept", 130)
    assert stdout.getvalue() == ""
    assert json.loads(stderr.getvalue())["exit"] == 130


def test_a_streamed_document_is_printed_whole() -> None:
    stdout = io.StringIO()
    out = Output("import", json_mode=True, stdout=stdout)
    out.stream("rows", lambda: ({"line": n, "name": "Zoë"} for n in range(2, 5)))
    out.set(queued=3)
    out.finish(0)
    document = json.loads(stdout.getvalue())
    assert document["rows"] == [{"line": n, "name": "Zoë"} for n in range(2, 5)]
    assert document["queued"] == 3 and stdout.getvalue().endswith("}\n")
