"""The GUI tests' fixtures (tests/gui/conftest.py) for the reliability suite's window tests:
a qasync loop per test, windows opened and closed for the test, no window or task left over."""

from tests.gui.conftest import (  # noqa: F401  (fixtures: pytest finds them by name here)
    collect_on_the_gui_thread,
    loop,
    no_leftover_windows,
    open_window,
)
