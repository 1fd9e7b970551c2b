"""`python -m app.sim`: the same as `showdesk sim`."""

import sys

from app.sim.cli import main

sys.exit(main())
