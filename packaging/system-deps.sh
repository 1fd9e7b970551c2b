#!/usr/bin/env bash
# Installs the Debian packages Qt needs to run without a display (and, with --window, under Xvfb,
# which the suite's click-during-sync test uses too), when they are missing. Called by the
# Makefile before anything runs Qt. Skips gracefully where apt-get is not available or we are not
# root: it then prints what to install by hand.
set -euo pipefail

# The offscreen platform plugin needs these plus a font, or text is empty boxes.
packages=(libegl1 libgl1 libx11-6 libbrotli1 libdbus-1-3 libfontconfig1 libfreetype6 libglib2.0-0
          libxkbcommon0 fonts-dejavu-core)
# A real window under Xvfb (make run on a machine without a display, screenshots).
window_packages=(xvfb xauth libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1
                 libxcb-render-util0 libxcb-shape0 libxkbcommon-x11-0)
# Test-only: PostgreSQL's server binaries, for the throwaway servers of team mode's tests.
postgres_packages=(postgresql)
# Test-only: a real spreadsheet program for the export round trips (tests/spreadsheet), and the
# validators of the menu entry and the AppStream metainfo (tests/unit/test_desktop_files.py).
test_packages=(libreoffice-calc-nogui desktop-file-utils appstream)
# Arguments: --window for those, --postgres for the test database server, --test for the test
# tools, any other word a package to install too (packaging/x11_libs.py names the ones Qt's X11
# plugin lacks).
postgres=""
for arg in "$@"; do
  case "$arg" in
    --window) packages+=("${window_packages[@]}") ;;
    --postgres) packages+=("${postgres_packages[@]}"); postgres=1 ;;
    --test) packages+=("${test_packages[@]}") ;;
    *) packages+=("$arg") ;;
  esac
done
# A bare Debian python3 cannot create virtual environments without python3-venv.
python3 -c 'import ensurepip' 2>/dev/null || packages+=(python3-venv)

command -v dpkg-query >/dev/null 2>&1 || { echo "system-deps: not a Debian system, skipping"; exit 0; }
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "system-deps: please install: ${missing[*]}" >&2; exit 0
fi
sudo=""
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo"; else
    echo "system-deps: not root; please install: ${missing[*]}" >&2; exit 0
  fi
fi
echo "system-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# Debian's package creates and starts a system cluster: the tests never use it (they start their
# own in a temporary folder), so none is left running.
if [[ -n "$postgres" ]] && command -v pg_lsclusters >/dev/null 2>&1; then
  pg_lsclusters -h 2>/dev/null | while read -r version name _ status _; do
    if [[ "$status" == online* ]]; then $sudo pg_ctlcluster "$version" "$name" stop || true; fi
  done
fi
