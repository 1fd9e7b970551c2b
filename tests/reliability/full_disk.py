"""`python -m tests.reliability.full_disk ARGS…`: the `showdesk` command on a full disk
(tests/reliability/hostile.py explains how the disk is made full)."""

from __future__ import annotations

import sys

from tests.reliability.hostile import install_full_disk

if __name__ == "__main__":
    install_full_disk()
    from app.cli import main

    sys.exit(main())
