"""What ShowDesk is on this desktop: the QApplication's names, icon, style and fonts."""

from __future__ import annotations

import sys

from PySide6.QtCore import QSize
from PySide6.QtGui import QFontDatabase, QIcon
from PySide6.QtWidgets import QApplication

from app import APP_NAME, ORG_NAME
from app.api.registry import RESOURCES_DIR

ICONS = RESOURCES_DIR / "icons"
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
FONTS = RESOURCES_DIR / "fonts"  # only in a bundle: a font for systems that have none


def application(*, versioned: bool = True) -> QApplication:
    """The QApplication, set up once: names, icon, the Fusion style (follows light/dark).
    `versioned=False` leaves the version (read from the package metadata) to `set_version`,
    which the window calls after its first paint."""
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(sys.argv)
    app.setApplicationName(APP_NAME)
    app.setOrganizationName(ORG_NAME)
    if versioned:
        set_version(app)
    app.setDesktopFileName("showdesk")  # the .desktop entry packaging/install-linux.sh installs
    app.setStyle("Fusion")
    app.setWindowIcon(app_icon())
    _add_bundled_fonts(app)
    return app


def set_version(app: QApplication) -> None:
    from app import __version__

    app.setApplicationVersion(__version__)


def app_icon() -> QIcon:
    """ShowDesk's icon at every size shipped (resources/icons/showdesk-<size>.png)."""
    icon = QIcon()
    for size in ICON_SIZES:
        png = ICONS / f"showdesk-{size}.png"
        if png.exists():
            icon.addFile(str(png), QSize(size, size))
    return icon


def _add_bundled_fonts(app: QApplication) -> None:
    """A bundle carries a font: used when the system has none (text would be empty boxes)."""
    if not FONTS.is_dir():  # not a bundle: the system's fonts (never listed for nothing)
        return
    # fontconfig answers its generic aliases even on a system without a single font file.
    had_fonts = bool(set(QFontDatabase.families()) - {"Sans Serif", "Serif", "Monospace"})
    for ttf in sorted(FONTS.glob("*.ttf")):
        font_id = QFontDatabase.addApplicationFont(str(ttf))
        families = QFontDatabase.applicationFontFamilies(font_id) if font_id >= 0 else []
        if families and not had_fonts:
            app.setFont(families[0])
