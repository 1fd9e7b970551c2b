"""What went wrong on the way to the server, in words a show administrator can act on.

httpx says `ConnectError` for a refused connection, an unknown host and an untrusted TLS
certificate alike; the cause it wraps tells them apart.
"""

from __future__ import annotations

import os
import ssl

import httpx


def _causes(exc: BaseException) -> list[BaseException]:
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in chain:
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain


def describe(exc: httpx.TransportError) -> str:
    """ "could not connect (connection refused)", "its TLS certificate is not trusted (…)"…"""
    causes = _causes(exc)
    untrusted = next((c for c in causes if isinstance(c, ssl.SSLCertVerificationError)), None)
    if untrusted is not None or "CERTIFICATE_VERIFY_FAILED" in str(exc):
        detail = getattr(untrusted, "verify_message", None) or "certificate verify failed"
        return (
            f"its TLS certificate is not trusted ({detail}); if the show uses its own "
            "certificate authority, name its CA bundle in the profile"
        )
    if isinstance(exc, httpx.TimeoutException):
        return f"timed out ({type(exc).__name__})"
    if isinstance(exc, httpx.ConnectError):
        return f"could not connect ({_reason(causes) or str(exc) or 'no answer'})"
    return f"connection failed ({type(exc).__name__})"


def _reason(causes: list[BaseException]) -> str | None:
    """The operating system's words for the first OS error in the chain ("connection refused")."""
    for cause in causes:
        if isinstance(cause, OSError) and (cause.errno or cause.strerror):
            return (os.strerror(cause.errno) if cause.errno else str(cause.strerror)).lower()
    return None
