"""A real spreadsheet program for the round trips of issue 16: LibreOffice, headless.

`Office(folder).convert(files, to, infilter=...)` opens each file as a user would and saves it
again (`to`: "xlsx", or "csv" with the CSV filter's options), in one LibreOffice run; the
results land in a folder of their own, same names, new suffix. `make test` installs LibreOffice
(packaging/system-deps.sh --test) — a machine without it fails here, loudly, never skips.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

# CSV filter options (LibreOffice's "FilterOptions"): separator 44 (,), text delimiter 34 ("),
# character set 76 (UTF-8), first line 1; token 5 gives column types, 2 = Text.
CSV_OPTIONS = "44,34,76,1"
TEXT = 2


def text_columns(count: int) -> str:
    """Token 5 of the CSV filter: every column read as Text (the README's advice)."""
    return "/".join(f"{n}/{TEXT}" for n in range(1, count + 1))


class Office:
    """LibreOffice with a profile of its own under `folder`."""

    def __init__(self, folder: Path) -> None:
        program = shutil.which("soffice") or shutil.which("libreoffice")
        assert program, "LibreOffice is missing: `make test` installs it (system-deps.sh --test)"
        self.program = program
        self.folder = folder
        self.profile = (folder / "profile").as_uri()

    def convert(self, files: list[Path], to: str, *, infilter: str | None = None) -> list[Path]:
        out = self.folder / f"out-{to.split(':')[0]}-{len(list(self.folder.iterdir()))}"
        out.mkdir()
        command = [
            self.program, "--headless", "--norestore", f"-env:UserInstallation={self.profile}",
            "--convert-to", to, "--outdir", str(out), *map(str, files),
        ]  # fmt: skip
        if infilter is not None:
            command[4:4] = [f"--infilter={infilter}"]
        done = subprocess.run(command, capture_output=True, text=True, timeout=180)
        suffix = "." + to.split(":")[0]
        results = [out / (f.stem + suffix) for f in files]
        missing = [r.name for r in results if not r.exists()]
        assert not missing, f"LibreOffice wrote no {missing}: {done.stdout}{done.stderr}"
        return results
