"""What went wrong on the way to the server, in a few words a show administrator can act on.

httpx says `ConnectError` for a refused connection, an unknown host and an untrusted TLS
certificate alike; the errors it wraps (or, when those were dropped, its text) tell them apart.
`transport_detail` says it in a few words ("connection refused"); `describe` adds what to do when
the cure is the user's (a certificate authority to name in the profile).
"""

from __future__ import annotations

import socket
import ssl

import httpx

UNTRUSTED = "the server's TLS certificate is not trusted"
# A failed connection in words: by the type of an error in the chain, else by its text.
_TRANSPORT_KINDS: tuple[tuple[type[BaseException], str], ...] = (
    (ConnectionRefusedError, "connection refused"),
    (socket.gaierror, "host name not found"),
    (ssl.SSLCertVerificationError, UNTRUSTED),
    (ssl.SSLError, "the TLS handshake failed"),
    (TimeoutError, "timed out"),
    (httpx.TimeoutException, "timed out"),
    (ConnectionResetError, "the connection was reset"),
)
_TRANSPORT_WORDS = (
    ("refused", "connection refused"),
    ("certificate", UNTRUSTED),
    ("ssl", "the TLS handshake failed"),
    ("name or service", "host name not found"),
    ("nodename", "host name not found"),
    ("getaddrinfo", "host name not found"),
    ("name resolution", "host name not found"),
    ("timed out", "timed out"),
    ("timeout", "timed out"),
    ("reset", "the connection was reset"),
    ("all connection attempts failed", "could not connect"),
)


def transport_detail(exc: BaseException) -> str:
    """A network failure in a few words ("connection refused"), from the error and its causes."""
    chain = _chain(exc)
    for kind, words in _TRANSPORT_KINDS:
        if any(isinstance(e, kind) for e in chain):
            return words
    text = " ".join(str(e) for e in chain).lower()
    return next((words for key, words in _TRANSPORT_WORDS if key in text), "connection failed")


def describe(exc: BaseException) -> str:
    """`transport_detail`, with what to do about an untrusted certificate."""
    detail = transport_detail(exc)
    if detail != UNTRUSTED:
        return detail
    why = next(
        (e.verify_message for e in _chain(exc) if isinstance(e, ssl.SSLCertVerificationError)),
        None,
    )
    return (
        f"{detail}{f' ({why})' if why else ''}; if the show uses a certificate authority of its "
        "own, name its CA bundle in the profile"
    )


def _chain(exc: BaseException | None) -> list[BaseException]:
    seen: list[BaseException] = []
    while exc is not None and exc not in seen and len(seen) < 8:
        seen.append(exc)
        exc = exc.__cause__ or exc.__context__
    return seen
