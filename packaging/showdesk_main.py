"""The bundle's entry point (PyInstaller runs this as __main__): the `showdesk` command."""

import sys

from app.cli import main

if __name__ == "__main__":
    sys.exit(main())
