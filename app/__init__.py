"""ShowDesk: a native desktop window on a Perenso TradeShow show (REST API V1)."""

from importlib.metadata import PackageNotFoundError, version

APP_NAME = "ShowDesk"
ORG_NAME = "ShowDesk"

try:
    __version__ = version("showdesk")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+source"
