"""`python -m app` is the `showdesk` command."""

import sys

from app.cli import main

sys.exit(main())
