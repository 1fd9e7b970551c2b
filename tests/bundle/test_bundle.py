"""The PyInstaller bundle in dist/ (`make package`) works: run offscreen, it passes its self-test.

Skipped when there is no bundle (a fresh clone, CI without `make package`); `make package-test`
builds it first when it is missing or older than the sources.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from app import __version__

ROOT = Path(__file__).resolve().parents[2]
EXE = ".exe" if sys.platform == "win32" else ""
BUNDLE = ROOT / "dist" / "showdesk" / f"showdesk{EXE}"
# Windows: the windowed showdesk.exe has no stdout; showdesk-cli.exe is the same with a console.
CLI = BUNDLE.with_name(f"showdesk-cli{EXE}") if sys.platform == "win32" else BUNDLE
PRINTS = sys.platform != "darwin"  # a windowed macOS build may have no stdout either
ONEFILE = ROOT / "dist" / f"showdesk-onefile{EXE}"
SIZE_GOAL_MB = 200

pytestmark = pytest.mark.bundle
needs_bundle = pytest.mark.skipif(not BUNDLE.exists(), reason="no bundle in dist/ (make package)")
needs_onefile = pytest.mark.skipif(
    not ONEFILE.exists(), reason="no one-file build in dist/ (make package-onefile)"
)


def run_bundled(executable: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.run(
        [str(executable), *args], env=env, capture_output=True, text=True, timeout=300, check=False
    )


def folder_size_mb(folder: Path) -> float:
    files = (p for p in folder.rglob("*") if p.is_file() and not p.is_symlink())
    return sum(p.stat().st_size for p in files) / 1e6


@needs_bundle
def test_the_bundle_passes_its_self_test_offscreen() -> None:
    result = run_bundled(CLI, "--self-test")
    assert result.returncode == 0, result.stdout + result.stderr
    if PRINTS:
        assert "self-test: OK" in result.stdout
        assert "customers in the table" in result.stdout


@needs_bundle
def test_the_bundle_knows_its_version() -> None:
    result = run_bundled(CLI, "--version")
    assert result.returncode == 0
    if PRINTS:
        assert result.stdout.strip() == f"ShowDesk {__version__}"


@needs_bundle
def test_the_bundle_carries_only_the_qt_it_uses_and_its_resources() -> None:
    internal = BUNDLE.parent / "_internal"
    names = {p.name for p in internal.rglob("*")}
    for unused in ("Qt6Qml", "Qt6Quick", "Qt6Pdf", "Qt6Network", "Qt6VirtualKeyboard", "qgtk3"):
        assert not [n for n in names if unused in n], unused
    assert not list(internal.rglob("*.qm"))  # no translations
    assert (internal / "resources" / "api" / "v1.toml").exists()
    assert (internal / "resources" / "icons" / "showdesk-256.png").exists()
    assert folder_size_mb(BUNDLE.parent) <= SIZE_GOAL_MB


@needs_onefile
def test_the_one_file_build_passes_its_self_test_offscreen() -> None:
    result = run_bundled(ONEFILE, "--self-test")
    assert result.returncode == 0, result.stdout + result.stderr


@needs_bundle
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the Linux installer")
def test_install_linux_puts_the_app_in_the_menu_for_this_user_only(tmp_path: Path) -> None:
    prefix = tmp_path / "local"
    env = {**os.environ, "PREFIX": str(prefix)}
    script = ROOT / "packaging" / "install-linux.sh"
    subprocess.run([str(script)], env=env, check=True, capture_output=True, timeout=300)
    desktop = (prefix / "share" / "applications" / "showdesk.desktop").read_text("utf-8")
    installed = prefix / "opt" / "showdesk" / "showdesk"
    assert f'Exec="{installed}"' in desktop and "Icon=showdesk" in desktop
    for size in (16, 24, 32, 48, 64, 128, 256, 512):
        assert (prefix / f"share/icons/hicolor/{size}x{size}/apps/showdesk.png").exists()
    assert (prefix / "share/icons/hicolor/scalable/apps/showdesk.svg").exists()
    assert run_bundled(prefix / "bin" / "showdesk", "--version").returncode == 0
    subprocess.run(
        [str(script), "--uninstall"], env=env, check=True, capture_output=True, timeout=60
    )
    assert not [p for p in prefix.rglob("*") if p.is_file()]
