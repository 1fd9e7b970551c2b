"""The simulated OAuth token endpoint (RFC 6749 client credentials + refresh) and bearer checks.

`TokenIssuer` holds the issued access and refresh tokens with their expiry on an injected
monotonic clock, so token expiry is tested by moving the clock instead of sleeping.
`token_endpoint` is the starlette endpoint for `POST /auth/oauth/token`.
"""

from __future__ import annotations

import base64
import binascii
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import parse_qsl, unquote

from starlette.requests import Request
from starlette.responses import JSONResponse

from app.sim.config import SimConfig, SimStats


@dataclass
class _Grant:
    client_id: str
    expires_at: float


class TokenIssuer:
    """Issues, refreshes and checks tokens for the one client (the show) the config names."""

    def __init__(self, config: SimConfig, clock: Callable[[], float]) -> None:
        self.config = config
        self.clock = clock
        self._access: dict[str, _Grant] = {}
        self._refresh: dict[str, str] = {}

    def issue(self, client_id: str) -> dict[str, object]:
        token = self.config.token_prefix + secrets.token_urlsafe(24)
        lifetime = self.config.token_lifetime
        self._access[token] = _Grant(client_id, self.clock() + lifetime)
        answer: dict[str, object] = {
            "access_token": token,
            "token_type": "bearer",
            "scope": self.config.scope,
        }
        if self.config.expires_in:
            answer["expires_in"] = int(lifetime)
        if self.config.issue_refresh_tokens:
            refresh = self.config.token_prefix + secrets.token_urlsafe(24)
            self._refresh[refresh] = client_id
            answer["refresh_token"] = refresh
        return answer

    def redeem(self, refresh_token: str) -> str | None:
        """The client a refresh token belongs to (it is used up), or None if it is unknown."""
        return self._refresh.pop(refresh_token, None)

    def check(self, authorization: str | None) -> tuple[str | None, str]:
        """(client id, "") for a valid bearer header, else (None, why it is refused)."""
        scheme, _, token = (authorization or "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return None, "Missing bearer token"
        grant = self._access.get(token.strip())
        if grant is None:
            return None, "Unknown access token"
        if self.clock() >= grant.expires_at:
            del self._access[token.strip()]
            return None, "Access token expired"
        return grant.client_id, ""

    def expire_all(self) -> None:
        """Forget every access token (refresh tokens stay valid)."""
        self._access.clear()


def _oauth_error(status: int, error: str, description: str) -> JSONResponse:
    headers = {"WWW-Authenticate": 'Basic realm="showdesk-sim"'} if status == 401 else None
    body = {"error": error, "error_description": description}
    return JSONResponse(body, status_code=status, headers=headers)


def _basic_credentials(header: str | None) -> tuple[str, str] | None:
    scheme, _, value = (header or "").partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        decoded = base64.b64decode(value.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None
    client_id, sep, secret = decoded.partition(":")
    return (unquote(client_id), unquote(secret)) if sep else None


def _wrong_style(accepted: str, basic: bool, form: dict[str, str]) -> bool:
    """Credentials sent the way this endpoint does not accept them (`token_auth`)."""
    if accepted == "basic":
        return not basic
    if accepted == "body":
        return basic or "client_secret" not in form
    return False


def make_token_endpoint(issuer: TokenIssuer, stats: SimStats) -> Callable[[Request], object]:
    """The `POST /auth/oauth/token` endpoint bound to an issuer."""

    async def token_endpoint(request: Request) -> JSONResponse:
        stats.token_requests += 1
        config = issuer.config
        # Form parsing by hand: starlette's needs python-multipart, even for urlencoded bodies.
        form = dict(parse_qsl((await request.body()).decode("utf-8", "replace")))
        basic = _basic_credentials(request.headers.get("authorization"))
        client_id, secret = basic or (form.get("client_id"), form.get("client_secret"))
        grant_type = form.get("grant_type")
        if _wrong_style(config.token_auth, basic is not None, form):
            stats.token_refused += 1
            return _oauth_error(401, "invalid_client", "Client authentication failed")
        authenticated = client_id == config.show_id and secret == config.client_secret
        if grant_type == "client_credentials":
            if not authenticated:
                return _oauth_error(401, "invalid_client", "Unknown client or wrong secret")
            if form.get("scope", "").split() != [config.scope]:
                return _oauth_error(400, "invalid_scope", f"Scope must be {config.scope}")
            stats.tokens_issued += 1
            return JSONResponse(issuer.issue(config.show_id), headers={"Cache-Control": "no-store"})
        if grant_type == "refresh_token":
            if client_id is not None and not authenticated:
                return _oauth_error(401, "invalid_client", "Unknown client or wrong secret")
            owner = issuer.redeem(form.get("refresh_token", ""))
            if owner is None or owner != config.show_id:
                return _oauth_error(400, "invalid_grant", "Unknown or used refresh token")
            stats.tokens_issued += 1
            return JSONResponse(issuer.issue(owner), headers={"Cache-Control": "no-store"})
        return _oauth_error(
            400, "unsupported_grant_type", "Use client_credentials or refresh_token"
        )

    return token_endpoint
