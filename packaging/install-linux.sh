#!/usr/bin/env bash
# Installs the ShowDesk bundle for the current user, without root:
#   ~/.local/opt/showdesk/             the one-folder bundle (dist/showdesk from `make package`)
#   ~/.local/bin/showdesk              a link to its executable (for a terminal)
#   ~/.local/share/applications/showdesk.desktop       the menu / launcher entry
#   ~/.local/share/icons/hicolor/<size>/apps/showdesk.{png,svg}   the icons
#   ~/.local/share/metainfo/io.github.showdesk.showdesk.metainfo.xml   what software centres show
#
#   packaging/install-linux.sh [BUNDLE_DIR]     install (default BUNDLE_DIR: dist/showdesk)
#   packaging/install-linux.sh --uninstall      remove all of the above (settings, cache and
#                                               logs stay: they are the user's)
# PREFIX (default ~/.local) moves everything, e.g. PREFIX=/tmp/try packaging/install-linux.sh.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
prefix="${PREFIX:-$HOME/.local}"
opt="$prefix/opt/showdesk"
bin="$prefix/bin"
apps="$prefix/share/applications"
icons="$prefix/share/icons/hicolor"
metainfo="$prefix/share/metainfo"
component="io.github.showdesk.showdesk.metainfo.xml"
sizes=(16 24 32 48 64 128 256 512)

refresh_caches() {
  command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database -q "$apps" || true
  # Only a cache that exists is refreshed: a new one would go stale when other apps add icons.
  if [[ -f "$icons/icon-theme.cache" ]] && command -v gtk-update-icon-cache >/dev/null 2>&1; then
    gtk-update-icon-cache -q -t "$icons" || true
  fi
}

if [[ "${1:-}" == "--uninstall" ]]; then
  rm -rf "$opt"
  rm -f "$bin/showdesk" "$apps/showdesk.desktop" "$icons/scalable/apps/showdesk.svg"
  rm -f "$metainfo/$component"
  for s in "${sizes[@]}"; do rm -f "$icons/${s}x${s}/apps/showdesk.png"; done
  refresh_caches
  # The menu's MIME cache, written by update-desktop-database, lists only desktop files: with none
  # of them left in the folder it is ours alone, and goes with the rest.
  # update-desktop-database indexes the subfolders too (wine/Programs, ...).
  if [[ -z "$(find "$apps" -name '*.desktop' -print -quit 2>/dev/null)" ]]; then
    rm -f "$apps/mimeinfo.cache"
  fi
  echo "ShowDesk removed from $prefix"
  exit 0
fi

bundle="${1:-$root/dist/showdesk}"
if [[ ! -x "$bundle/showdesk" ]]; then
  echo "install-linux: no bundle at $bundle (build it with: make package)" >&2
  exit 1
fi

# The new copy goes in beside the old one, then takes its place: never half an installation.
mkdir -p "$(dirname "$opt")" "$bin" "$apps"
rm -rf "$opt.new"
cp -a "$bundle" "$opt.new"
rm -rf "$opt"
mv "$opt.new" "$opt"
ln -sfn "$opt/showdesk" "$bin/showdesk"

for s in "${sizes[@]}"; do
  install -D -m 0644 "$root/resources/icons/showdesk-$s.png" "$icons/${s}x${s}/apps/showdesk.png"
done
install -D -m 0644 "$root/resources/icons/showdesk.svg" "$icons/scalable/apps/showdesk.svg"

sed "s|@EXEC@|$opt/showdesk|g" "$here/showdesk.desktop" > "$apps/showdesk.desktop.tmp"
chmod 0644 "$apps/showdesk.desktop.tmp"
mv "$apps/showdesk.desktop.tmp" "$apps/showdesk.desktop"
install -D -m 0644 "$here/$component" "$metainfo/$component"
refresh_caches

echo "ShowDesk installed in $opt"
echo "  menu entry: $apps/showdesk.desktop"
echo "  metainfo:   $metainfo/$component"
echo "  command:    $bin/showdesk  (check it with: showdesk --self-test)"
