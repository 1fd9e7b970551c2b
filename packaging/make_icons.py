"""Render resources/icons/showdesk.svg into the PNG sizes desktops want, plus .ico and .icns.

    .venv/bin/python packaging/make_icons.py      (or `make icons`)

Run once when the SVG changes; the results are committed. PNGs: showdesk-<size>.png for
16, 24, 32, 48, 64, 128, 256 and 512 px (the window icon and the Linux hicolor theme use them).
showdesk.ico (Windows, PNG-compressed entries 16–256) and showdesk.icns (macOS) hold the same
images, written here by hand because Qt writes only one image per .ico/.icns file.
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

ICONS = Path(__file__).resolve().parent.parent / "resources" / "icons"
SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
# The icns entry types holding PNG data, by pixel size (Apple's "Icon Services" types).
ICNS_TYPES = {16: b"icp4", 32: b"icp5", 64: b"icp6", 128: b"ic07", 256: b"ic08", 512: b"ic09"}


def render(renderer: QSvgRenderer, size: int) -> bytes:
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buffer, "PNG"):
        raise RuntimeError(f"could not encode the {size} px icon")
    return bytes(data.data())


def ico(pngs: dict[int, bytes]) -> bytes:
    header = struct.pack("<HHH", 0, 1, len(ICO_SIZES))
    offset = len(header) + 16 * len(ICO_SIZES)
    entries, blobs = b"", b""
    for size in ICO_SIZES:
        png = pngs[size]
        side = 0 if size >= 256 else size  # 0 means 256 in an .ico directory
        entries += struct.pack("<BBBBHHII", side, side, 0, 0, 1, 32, len(png), offset)
        blobs += png
        offset += len(png)
    return header + entries + blobs


def icns(pngs: dict[int, bytes]) -> bytes:
    body = b"".join(
        kind + struct.pack(">I", len(pngs[size]) + 8) + pngs[size]
        for size, kind in ICNS_TYPES.items()
    )
    return b"icns" + struct.pack(">I", len(body) + 8) + body


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # no window: rendering only
    app = QGuiApplication(sys.argv[:1])
    renderer = QSvgRenderer(str(ICONS / "showdesk.svg"))
    if not renderer.isValid():
        print("showdesk.svg could not be read", file=sys.stderr)
        return 1
    pngs = {size: render(renderer, size) for size in SIZES}
    for size, png in pngs.items():
        (ICONS / f"showdesk-{size}.png").write_bytes(png)
    (ICONS / "showdesk.ico").write_bytes(ico(pngs))
    (ICONS / "showdesk.icns").write_bytes(icns(pngs))
    print(f"wrote {len(pngs)} PNGs, showdesk.ico and showdesk.icns to {ICONS}")
    del app
    return 0


if __name__ == "__main__":
    sys.exit(main())
