"""One error tree for everything that can go wrong talking to a show, split by whose fault it is.

::

    ShowDeskError
    ├── EnvironmentProblem        the network, the machine: retry later, check the connection
    │   ├── TransportError        unreachable, timed out, connection dropped
    │   ├── RateLimited           throttled and still throttled after every backoff try
    │   └── StoreUnavailable      the cache or outbox file cannot be written (read-only, full)
    ├── ServerProblem             the server misbehaved: not the user's doing
    │   ├── ServerError           5xx
    │   └── UnexpectedResponse    a body we cannot read (HTML error page, broken JSON, odd shape)
    │       ├── UnreadableBody    not data at all (cut short, a web page): a GET/PUT is resent
    │       └── ListingIncomplete a list whose pages do not add up under any paging convention
    ├── AccessProblem             credentials or permissions: the user must act
    │   ├── AuthFailed            the token endpoint refused the show ID / secret
    │   └── Forbidden             a 403 that is not throttling: no permission for this operation
    ├── UserInputProblem          the data the user gave is wrong: show it at the field
    │   ├── BadRequest            the server's 400, with its message and the fields it names
    │   ├── NotFound              404: the record is gone
    │   └── InvalidValue          rejected locally before anything was sent (one field)
    │       └── UnreadableLine    a file to import that cannot be read at one of its lines
    └── ProgrammingError          our bug or a broken registry / override file
        └── RegistryError

No exception text ever contains a token or a secret: messages are built only from show IDs, URLs,
status codes and server messages, and `redact` scrubs anything that looks like a credential from
server text before it is kept.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

_SECRETISH = re.compile(
    r"(?i)(bearer\s+|access_token[\"'=:\s]+|refresh_token[\"'=:\s]+|client_secret[\"'=:\s]+)"
    r"[A-Za-z0-9._~+/=-]+"
)


def redact(text: str) -> str:
    """Replace anything shaped like a bearer token or secret with a placeholder."""
    return _SECRETISH.sub(lambda m: m.group(1) + "***", text)


class ShowDeskError(Exception):
    """Base of every error ShowDesk raises on purpose."""

    def __init__(self, message: str) -> None:
        super().__init__(redact(message))
        self._message = redact(message)  # kept apart: Qt bindings rewrite `args` on the way up

    @property
    def message(self) -> str:
        return self._message


class EnvironmentProblem(ShowDeskError):
    """The network or the machine: nothing the user typed is wrong."""


class TransportError(EnvironmentProblem):
    """The server could not be reached, timed out, or dropped the connection.

    `outcome_unknown` is true when a non-idempotent request (a POST) may have reached the server
    before the connection failed: it may or may not have taken effect, so it must not be resent
    blindly (DESIGN.md: creates are reconciled by their key field first).
    """

    def __init__(self, message: str, *, outcome_unknown: bool = False) -> None:
        super().__init__(message)
        self.outcome_unknown = outcome_unknown


class RateLimited(EnvironmentProblem):
    """Throttled by the API and still throttled after the last backoff try."""

    def __init__(self, message: str, attempts: int) -> None:
        super().__init__(message)
        self.attempts = attempts


class StoreUnavailable(EnvironmentProblem):
    """A store file (the cache, the outbox) that cannot be opened or written on this machine.

    `reason` says why in the user's words ("the disk is full", "the folder is read-only");
    nothing was written (a write is one transaction: all of it, or none of it).
    """

    def __init__(self, what: str, path: str, reason: str) -> None:
        super().__init__(f"Cannot write the {what} at {path}: {reason}")
        self.what = what
        self.path = path
        self.reason = reason


class ServerProblem(ShowDeskError):
    """The server misbehaved."""


class ServerError(ServerProblem):
    """A 5xx answer."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class UnexpectedResponse(ServerProblem):
    """A body that is not what the operation promises (HTML error page, broken JSON...)."""


class UnreadableBody(UnexpectedResponse):
    """A body that is not data at all: JSON cut short, a web page where data was expected.

    Likely the way there (a dropped connection, a proxy), not the operation: an idempotent
    request is sent again, like after a 5xx.
    """


class ListingIncomplete(UnexpectedResponse):
    """A listing that cannot be proved complete: the show's total says more records than
    arrived, or its pages repeat, under every paging convention tried. The resource's sync
    fails (nothing deleted, not marked complete); the message carries the counts."""

    def __init__(self, message: str, *, total: int | None, arrived: int) -> None:
        super().__init__(message)
        self.total = total
        self.arrived = arrived


class AccessProblem(ShowDeskError):
    """Credentials or permissions: the user has to act."""


class AuthFailed(AccessProblem):
    """The token endpoint refused the show's credentials."""

    def __init__(self, show_id: str, auth_url: str, reason: str) -> None:
        # The show's reason first: a line cut short still says why (issue 30, item 16).
        super().__init__(f"Show {show_id} refused the sign-in: {reason} (at {auth_url})")
        self.show_id = show_id
        self.auth_url = auth_url
        self.reason = redact(reason)


class SignInKeepsFailing(AuthFailed):
    """The API refused fresh tokens again and again: the show's credentials no longer open it
    (a command stops; the changes it was to send stay pending)."""

    def __init__(self, show_id: str, auth_url: str, reason: str) -> None:
        AccessProblem.__init__(
            self, f"Sign-in keeps failing for show {show_id} at {auth_url}: {reason}"
        )
        self.show_id = show_id
        self.auth_url = auth_url
        self.reason = redact(reason)


class Forbidden(AccessProblem):
    """A 403 that is not throttling: this show's credentials may not do this."""


class UserInputProblem(ShowDeskError):
    """The data is wrong; the UI shows the message at the field that caused it."""


class BadRequest(UserInputProblem):
    """The server's 400, with its message and the fields it names (field → messages)."""

    def __init__(self, message: str, fields: Mapping[str, Sequence[str]] | None = None) -> None:
        super().__init__(message)
        self.fields: dict[str, list[str]] = {
            k: [redact(m) for m in v] for k, v in (fields or {}).items()
        }

    @property
    def field(self) -> str | None:
        """The first field the server named, if any."""
        return next(iter(self.fields), None)

    def named_as(self, fields: Mapping[str, Sequence[str]]) -> BadRequest:
        """The same refusal with its fields spelled as the record spells them."""
        return BadRequest(self.message, fields)


class NotFound(UserInputProblem):
    """404: the record (or the path) does not exist."""


class InvalidValue(UserInputProblem):
    """A value rejected locally, before anything was queued or sent: `kind` names the problem
    where the model knows it (pydantic's error type, "int_parsing"…) and `choices` an
    enumeration's values, so app/wording/reasons.py can say it in words."""

    def __init__(
        self,
        field: str,
        message: str,
        value: object = None,
        *,
        kind: str = "",
        choices: tuple[str, ...] = (),
    ) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.reason = message
        self.value = value
        self.kind, self.choices = kind, choices


class UnreadableLine(InvalidValue):
    """A file to import that cannot be read as a table at its line `line` (a row with more
    cells than the header, a quote never closed, a byte that is not text): `problem` says what
    is wrong there; the window shows the line beside it."""

    def __init__(self, file_name: str, line: int, problem: str) -> None:
        super().__init__("file", f"{file_name}, line {line}: {problem}", line)
        self.line, self.problem = line, problem


class ProgrammingError(ShowDeskError):
    """Our bug, or a broken registry / override file."""


class RegistryError(ProgrammingError):
    """The resource registry or a profile's api-overrides.toml is incomplete or malformed."""
