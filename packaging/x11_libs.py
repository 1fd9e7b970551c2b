"""Does Qt's X11 platform plugin find every library it needs? (`make run`, issue 14.)

A machine with a display but without, say, libxcb-icccm4 cannot open the window: Qt then says
"xcb-cursor0 or libxcb-cursor0 is needed" whatever is really missing. This asks the plugin itself:
`ldd` on PySide6's `libqxcb.so` lists every library it links that is "not found", and `ldconfig -p`
says whether the libraries Qt opens by name at run time (libxcb-cursor) are there. Each missing
library is named with the Debian package that provides it.

`python packaging/x11_libs.py` prints what is missing (exit 1) or nothing (exit 0);
`--install` hands the packages to packaging/system-deps.sh, then checks again.
Stdlib only: it runs before anything else is known to work.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

HERE = Path(__file__).resolve().parent

# soname → the Debian 12 package that ships it (the xcb plugin's and Qt's own needs).
PACKAGES = {
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-render.so.0": "libxcb-render0",
    "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-xinerama.so.0": "libxcb-xinerama0",
    "libxcb-xinput.so.0": "libxcb-xinput0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxcb-util.so.1": "libxcb-util1",
    "libxcb.so.1": "libxcb1",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libX11.so.6": "libx11-6",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libSM.so.6": "libsm6",
    "libICE.so.6": "libice6",
    "libEGL.so.1": "libegl1",
    "libGL.so.1": "libgl1",
    "libOpenGL.so.0": "libopengl0",
    "libfontconfig.so.1": "libfontconfig1",
    "libfreetype.so.6": "libfreetype6",
    "libglib-2.0.so.0": "libglib2.0-0",
    "libdbus-1.so.3": "libdbus-1-3",
}
# Opened by name when the plugin starts (not in its ldd list): Qt 6.5+ refuses xcb without it.
OPENED_AT_RUN_TIME = ("libxcb-cursor.so.0",)

_NOT_FOUND = re.compile(r"^\s*(\S+)\s*=>\s*not found", re.MULTILINE)

Run = Callable[[list[str]], str]


def not_found(ldd_output: str) -> list[str]:
    """The libraries `ldd` could not find, each once, in its order."""
    return list(dict.fromkeys(_NOT_FOUND.findall(ldd_output)))


def not_in_cache(ldconfig_output: str, names: Iterable[str] = OPENED_AT_RUN_TIME) -> list[str]:
    """Of `names`, those `ldconfig -p` does not list."""
    known = {line.split()[0] for line in ldconfig_output.splitlines()[1:] if line.strip()}
    return [name for name in names if name not in known]


def package_of(library: str) -> str | None:
    return PACKAGES.get(library)


def describe(missing: Iterable[str]) -> list[str]:
    """One line per missing library: its name and the package that provides it."""
    return [
        f"{lib} (Debian package {pkg})" if (pkg := package_of(lib)) else f"{lib} (package unknown)"
        for lib in missing
    ]


def plugin() -> Path:
    """PySide6's xcb platform plugin, found without importing Qt (which may not load)."""
    import importlib.util

    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("x11-libs: PySide6 is not installed in this Python")
    base = Path(next(iter(spec.submodule_search_locations)))
    return base / "Qt" / "plugins" / "platforms" / "libqxcb.so"


def _run(command: list[str]) -> str:
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    return done.stdout + done.stderr


def missing_libraries(run: Run = _run, qxcb: Path | None = None) -> list[str]:
    """What the xcb plugin needs and this machine lacks."""
    found_by_ldd = not_found(run(["ldd", str(qxcb or plugin())]))
    by_name = not_in_cache(run(["ldconfig", "-p"]))
    return list(dict.fromkeys(found_by_ldd + by_name))


def main(argv: list[str], run: Run = _run) -> int:
    if not sys.platform.startswith("linux"):
        return 0  # X11 libraries are a Linux matter
    missing = missing_libraries(run)
    if missing and "--install" in argv:
        packages = sorted({p for lib in missing if (p := package_of(lib))})
        lacks = ", ".join(missing)
        print(f"x11-libs: Qt's X11 plugin lacks {lacks}: installing {' '.join(packages)}")
        subprocess.run([str(HERE / "system-deps.sh"), *packages], check=False)
        missing = missing_libraries(run)
    if missing:
        print("x11-libs: the window cannot open; missing:", file=sys.stderr)
        for line in describe(missing):
            print(f"  {line}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
