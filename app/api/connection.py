"""What one profile needs to talk to its show: URLs, show ID, secret, pacing and timeouts.

The secret is held as a value or as a callable that returns it (e.g. a keyring lookup), and is
never part of the repr. TLS verification is always on; a custom CA bundle may be named.
"""

from __future__ import annotations

import ssl
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from app.api.errors import InvalidValue
from app.api.paging import MAX_PAGE_SIZE

CredentialStyle = Literal["body", "basic"]
Secret = str | Callable[[], str]


@dataclass(frozen=True)
class Connection:
    """One show connection as the client sees it (a profile plus its secret)."""

    base_url: str
    auth_url: str
    show_id: str
    secret: Secret = field(repr=False)
    credential_style: CredentialStyle = "body"
    rate_limit: int = 300
    rate_window: float = 60.0
    interactive_reserve: float = 0.1
    timeout: float = 30.0
    ca_bundle: str | None = None
    scope: str = "100214"
    # The profile's data folder: what is learned about the API and the profile's shared request
    # history live there (None: remembered by this process only).
    state_dir: Path | None = None
    # The page size lists are asked for (the profile's; None: each list's registry `page_size`);
    # a show that sends fewer is asked what it sends (app/api/page_sizes.py).
    page_size: int | None = None
    # The show's V2 base URL (issue 31: bulk upserts); None: V1 only, nothing is asked of V2.
    v2_base_url: str | None = None

    def __post_init__(self) -> None:
        if self.credential_style not in ("body", "basic"):
            raise InvalidValue("credential_style", "must be 'body' or 'basic'")
        if self.rate_limit < 1 or self.rate_window <= 0:
            raise InvalidValue(
                "rate_limit", "needs at least one request per span of more than 0 seconds"
            )
        if not 0 <= self.interactive_reserve < 1:
            raise InvalidValue("interactive_reserve", "must be a share between 0 and 1")
        if self.timeout <= 0:
            raise InvalidValue("timeout", "must be positive")
        if self.page_size is not None and not 1 <= self.page_size <= MAX_PAGE_SIZE:
            raise InvalidValue("page_size", f"must be between 1 and {MAX_PAGE_SIZE:,}")

    def client_secret(self) -> str:
        """The secret's current value (resolved each time it is needed, never cached here)."""
        return self.secret() if callable(self.secret) else self.secret

    def verify(self) -> ssl.SSLContext | bool:
        """What httpx's `verify=` gets: always verifying, with the profile's CA bundle if any
        (never `False`: there is no way to switch certificate checks off)."""
        if not self.ca_bundle:
            return True
        try:
            return ssl.create_default_context(cafile=self.ca_bundle)
        except (OSError, ssl.SSLError) as exc:
            reason = getattr(exc, "strerror", None) or getattr(exc, "reason", None) or str(exc)
            raise InvalidValue(
                "ca_bundle",
                f"The CA bundle {self.ca_bundle} cannot be used: {reason}",
                self.ca_bundle,
            ) from None
