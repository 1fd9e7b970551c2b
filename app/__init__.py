"""ShowDesk: a native desktop window on a Perenso TradeShow show (REST API V1)."""

from typing import Any

APP_NAME = "ShowDesk"
ORG_NAME = "ShowDesk"


def __getattr__(name: str) -> Any:
    """`__version__`, read from the installed package on first use: importlib.metadata (and the
    e-mail parser it loads) is not imported before the window's first paint."""
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("showdesk")
    except PackageNotFoundError:  # running from a source tree that was never installed
        found = "0.0.0+source"
    globals()["__version__"] = found
    return found
