"""Issue 14: `make run` checks the libraries Qt's X11 plugin needs (packaging/x11_libs.py), not
`$DISPLAY`, and names a missing one with the Debian package that provides it."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[3] / "packaging" / "x11_libs.py"

LDD = """\
\tlinux-vdso.so.1 (0x00007ffd5b1e9000)
\tlibQt6XcbQpa.so.6 => /venv/PySide6/Qt/lib/libQt6XcbQpa.so.6 (0x00007f8a1c000000)
\tlibxcb-icccm.so.4 => not found
\tlibxcb-keysyms.so.1 => not found
\tlibxcb.so.1 => /lib/x86_64-linux-gnu/libxcb.so.1 (0x00007f8a1bf00000)
\tlibxcb-icccm.so.4 => not found
\tlibxkbcommon-x11.so.0 => not found
"""
LDCONFIG_WITH_CURSOR = """\
412 libs found in cache `/etc/ld.so.cache'
\tlibxcb-cursor.so.0 (libc6,x86-64) => /lib/x86_64-linux-gnu/libxcb-cursor.so.0
\tlibxcb.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libxcb.so.1
"""
LDCONFIG_WITHOUT_CURSOR = "412 libs found in cache `/etc/ld.so.cache'\n\tlibxcb.so.1 (x) => /x\n"


@pytest.fixture(scope="module")
def x11_libs() -> ModuleType:
    spec = importlib.util.spec_from_file_location("x11_libs", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fake(ldd: str, ldconfig: str) -> object:
    def run(command: list[str]) -> str:
        return ldd if command[0] == "ldd" else ldconfig

    return run


def test_the_libraries_ldd_cannot_find_are_named_with_their_packages(x11_libs: ModuleType) -> None:
    missing = x11_libs.missing_libraries(fake(LDD, LDCONFIG_WITH_CURSOR), Path("libqxcb.so"))
    assert missing == ["libxcb-icccm.so.4", "libxcb-keysyms.so.1", "libxkbcommon-x11.so.0"]
    assert x11_libs.describe(missing) == [
        "libxcb-icccm.so.4 (Debian package libxcb-icccm4)",
        "libxcb-keysyms.so.1 (Debian package libxcb-keysyms1)",
        "libxkbcommon-x11.so.0 (Debian package libxkbcommon-x11-0)",
    ]


def test_xcb_cursor_which_qt_opens_by_name_is_looked_up_in_the_linker_cache(
    x11_libs: ModuleType,
) -> None:
    clean_ldd = "\tlibxcb.so.1 => /lib/x86_64-linux-gnu/libxcb.so.1 (0x1)\n"
    run = fake(clean_ldd, LDCONFIG_WITHOUT_CURSOR)
    assert x11_libs.missing_libraries(run, Path("libqxcb.so")) == ["libxcb-cursor.so.0"]
    assert x11_libs.describe(["libxcb-cursor.so.0"]) == [
        "libxcb-cursor.so.0 (Debian package libxcb-cursor0)"
    ]
    assert x11_libs.missing_libraries(fake(clean_ldd, LDCONFIG_WITH_CURSOR), Path("x")) == []


def test_an_unknown_library_is_named_without_a_guessed_package(x11_libs: ModuleType) -> None:
    assert x11_libs.describe(["libweird.so.9"]) == ["libweird.so.9 (package unknown)"]


def test_the_check_fails_and_says_what_is_missing(
    x11_libs: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    assert x11_libs.main([], run=fake(LDD, LDCONFIG_WITH_CURSOR)) == 1
    said = capsys.readouterr().err
    assert "libxcb-icccm.so.4 (Debian package libxcb-icccm4)" in said
    assert x11_libs.main([], run=fake("", LDCONFIG_WITH_CURSOR)) == 0


def test_the_real_plugin_is_found_where_pyside6_keeps_it(x11_libs: ModuleType) -> None:
    assert x11_libs.plugin().name == "libqxcb.so"
    assert x11_libs.plugin().exists()
