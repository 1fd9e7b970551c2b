"""A desktop citizen (issue 16, point 5): the menu entry and the AppStream metainfo pass Debian's
validators, and install-linux.sh puts both where desktops and software centres look."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGING = ROOT / "packaging"
DESKTOP = PACKAGING / "showdesk.desktop"
METAINFO = PACKAGING / "io.github.showdesk.showdesk.metainfo.xml"


def _tool(name: str) -> str:
    found = shutil.which(name)
    assert found, f"{name} is missing: `make test` installs it (packaging/system-deps.sh --test)"
    return found


def _run(*args: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in args], capture_output=True, text=True, timeout=120, env=env
    )


def test_the_menu_entry_template_passes_desktop_file_validate() -> None:
    done = _run(_tool("desktop-file-validate"), DESKTOP)
    assert done.returncode == 0 and not done.stdout.strip(), done.stdout + done.stderr
    assert "Version=1.4" in DESKTOP.read_text(encoding="utf-8").splitlines()


def test_the_metainfo_passes_appstreamcli_validate() -> None:
    done = _run(_tool("appstreamcli"), "validate", "--no-net", "--pedantic", METAINFO)
    assert done.returncode == 0, done.stdout + done.stderr
    said = done.stdout + done.stderr
    assert "W:" not in said and "E:" not in said and "P:" not in said, said
    text = METAINFO.read_text(encoding="utf-8")
    assert "<screenshot" in text and "<release " in text and "showdesk.desktop" in text


@pytest.fixture
def stand_in_bundle(tmp_path: Path) -> Path:
    """A folder shaped like `make package`'s bundle (building the real one takes minutes and is
    tested by tests/bundle): what is checked here is where the installer puts things."""
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    program = bundle / "showdesk"
    program.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    program.chmod(0o755)
    return bundle


def test_install_linux_puts_the_entry_and_the_metainfo_in_place_and_removes_them(
    stand_in_bundle: Path, tmp_path: Path
) -> None:
    prefix = tmp_path / "prefix"
    env = {**os.environ, "PREFIX": str(prefix)}
    installed = _run("bash", PACKAGING / "install-linux.sh", stand_in_bundle, env=env)
    assert installed.returncode == 0, installed.stderr
    entry = prefix / "share/applications/showdesk.desktop"
    metainfo = prefix / "share/metainfo" / METAINFO.name
    assert metainfo.read_bytes() == METAINFO.read_bytes()
    assert f'Exec="{prefix}/opt/showdesk/showdesk"' in entry.read_text(encoding="utf-8")
    done = _run(_tool("desktop-file-validate"), entry)
    assert done.returncode == 0 and not done.stdout.strip(), done.stdout
    removed = _run("bash", PACKAGING / "install-linux.sh", "--uninstall", env=env)
    assert removed.returncode == 0, removed.stderr
    assert not entry.exists() and not metainfo.exists()
