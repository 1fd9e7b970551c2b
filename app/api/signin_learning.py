"""What signing in teaches about a show: where its token endpoint wants the credentials, and how
long its tokens live when it does not say.

The vendor documents neither (API.md: credentials in the body *or* the Basic header; lifetime and
refresh not published). Both are learned by trying and kept in the profile's `Learned` state, so
the next command of the profile — or another process of it — starts knowing them:

- `auth.credential_style`: the style that worked after the other one was refused with
  `invalid_client`; once learned it takes precedence over the profile's configured style.
- `auth.token_lifetime`: seconds a token lives, learned from 401s when the token answer carries
  no `expires_in`. One observation is the age of a token the API refused, counted only when the
  same token was accepted shortly before (a token idle for an hour says nothing about its
  lifetime). A token revoked early also gets a 401, so a lifetime is learned only when two
  observations agree: a one-off revocation never makes every later token renew too early.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass

import httpx

from app.api.connection import CredentialStyle
from app.api.learned import Learned

log = logging.getLogger(__name__)

CREDENTIAL_STYLE = "auth.credential_style"
TOKEN_LIFETIME = "auth.token_lifetime"
LIFETIME_SEEN = "auth.token_lifetime_seen"  # one observation waiting for a second that agrees
AGREE = 0.1  # two observations within 10 % of each other agree
_STYLE_ERRORS = ("invalid_client", "invalid_request", "unauthorized_client")
TIGHT = 0.1  # an observation counts when the token was accepted within 10 % of its age (or 1 s)


def other_style(style: CredentialStyle) -> CredentialStyle:
    return "basic" if style == "body" else "body"


def refuses_style(response: httpx.Response) -> bool:
    """The token endpoint refused how the client authenticated (RFC 6749 §5.2 `invalid_client`,
    answered with 401 or 400; some servers say `invalid_request` or `unauthorized_client` when
    the credentials are not where they look), rather than the grant or the scope."""
    if response.status_code not in (400, 401):
        return False
    try:
        body = response.json()
    except ValueError:
        body = None
    error = body.get("error") if isinstance(body, Mapping) else None
    return error in _STYLE_ERRORS or (response.status_code == 401 and error is None)


def learned_style(learned: Learned, configured: CredentialStyle) -> CredentialStyle:
    """The style to try first: the learned one, else the profile's."""
    style = learned.get(CREDENTIAL_STYLE)
    return style if style in ("body", "basic") else configured


def learned_lifetime(learned: Learned) -> float | None:
    value = learned.get(TOKEN_LIFETIME)
    return float(value) if isinstance(value, int | float) and value > 0 else None


@dataclass(frozen=True)
class Observation:
    """A refused token's age, and when it was last accepted (both from when it was obtained)."""

    age: float
    last_accepted: float | None

    @property
    def tight(self) -> bool:
        if self.last_accepted is None or self.age <= 0:
            return False
        return self.age - self.last_accepted <= max(TIGHT * self.age, 1.0)


def observe_expiry(learned: Learned, seen: Observation, show_id: str) -> float | None:
    """Take note of a token the API refused; the lifetime learned once two observations agree
    (the smaller one: each is at or after the real expiry), else None."""
    if not seen.tight:
        return None
    earlier = learned.get(LIFETIME_SEEN)
    if isinstance(earlier, int | float) and abs(seen.age - earlier) <= AGREE * max(
        seen.age, earlier
    ):
        lifetime = float(min(seen.age, earlier))
        learned.set(TOKEN_LIFETIME, lifetime)
        learned.set(LIFETIME_SEEN, None)
        log.info("tokens of show %s live about %.0f s: renewed before that", show_id, lifetime)
        return lifetime
    learned.set(LIFETIME_SEEN, seen.age)
    return None
