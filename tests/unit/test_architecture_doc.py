"""docs/ARCHITECTURE.md stays a ten-minute read that names only paths that exist (issue 27)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "ARCHITECTURE.md"
PATH = re.compile(r"\b(?:app|tests|resources|packaging|docs)/[\w./-]*\w")


def table_cells(text: str) -> list[str]:
    rows = [line for line in text.splitlines() if line.startswith("|")]
    return [cell.strip() for row in rows for cell in row.split("|")]


def section(text: str, heading: str) -> str:
    start = text.index(f"\n## {heading}")
    end = text.find("\n## ", start + 1)
    return text[start : end if end > 0 else None]


def test_the_architecture_reads_in_ten_minutes() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert len(text.split()) <= 2500
    assert max(len(cell.split()) for cell in table_cells(text)) <= 60
    packages = [line for line in section(text, "Packages").splitlines() if line.startswith("|")]
    assert 0 < len(packages) <= 40


def test_every_path_the_architecture_names_exists() -> None:
    text = DOC.read_text(encoding="utf-8")
    named = {m.group(0).rstrip(".") for m in PATH.finditer(text)}
    assert len(named) > 50
    assert sorted(p for p in named if not (ROOT / p).exists()) == []


def test_the_path_check_sees_a_path_that_moved(tmp_path: Path) -> None:
    text = "the push: app/sync/pusher.py `Pusher`; app/sync/push/pusher.py."
    named = {m.group(0).rstrip(".") for m in PATH.finditer(text)}
    assert sorted(p for p in named if not (ROOT / p).exists()) == ["app/sync/pusher.py"]
