"""Reading the server's answers: JSON or not, error bodies, and each operation's result kind.

Pure functions over `httpx.Response`/parsed JSON. Result kinds are declared per operation in the
registry and parsed as declared, never guessed (API.md: three different bulk-result shapes).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from app.api.envelopes import lookup, records_of
from app.api.error_bodies import read_error
from app.api.errors import BadRequest, UnexpectedResponse, UnreadableBody

if TYPE_CHECKING:  # only annotations: httpx loads after the window's first paint
    import httpx


def is_json(response: httpx.Response) -> bool:
    return "json" in response.headers.get("content-type", "").lower()


def looks_like_html(response: httpx.Response) -> bool:
    kind = response.headers.get("content-type", "").lower()
    return "html" in kind or response.text.lstrip()[:1] == "<"


def decode_json(response: httpx.Response, what: str) -> Any:
    """The JSON body (None when empty); UnexpectedResponse for HTML pages and broken JSON."""
    if not response.content.strip():
        return None
    if looks_like_html(response):
        raise UnreadableBody(f"{what}: the server sent a web page instead of data")
    try:
        return response.json()
    except ValueError:
        raise UnreadableBody(f"{what}: the server's answer is not valid JSON") from None


# ----------------------------------------------------------------------------------- errors


def error_details(response: httpx.Response) -> tuple[str, dict[str, list[str]]]:
    """Whatever text an error body holds (any of the usual shapes) and the fields it names
    (app/api/error_bodies.py reads them)."""
    body = read_error(response)
    return body.message, body.fields


# ---------------------------------------------------------------------------------- results


@dataclass(frozen=True)
class OrderLineFailure:
    """One order line the server refused, with its reason (`errorDesc`)."""

    error: str
    id: str | None = None
    customer_id: str | None = None
    product_id: str | None = None
    row: int | None = None
    raw: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class OrderResult:
    """A bulk order answer: the ids that went through and the lines that did not."""

    successful: tuple[str, ...]
    failed: tuple[OrderLineFailure, ...]

    def merged(self, other: OrderResult) -> OrderResult:
        return OrderResult(self.successful + other.successful, self.failed + other.failed)


@dataclass(frozen=True)
class HistoryFailure:
    id: str | None
    message: str


@dataclass(frozen=True)
class HistoryResult:
    """An order-history upload's answer: how many lines were stored, which failed and why."""

    successful: int
    failed: tuple[HistoryFailure, ...]

    def merged(self, other: HistoryResult) -> HistoryResult:
        return HistoryResult(self.successful + other.successful, self.failed + other.failed)


def _opt_str(value: Any) -> str | None:
    return None if value is None else str(value)


def _failure(raw: Any) -> OrderLineFailure:
    if not isinstance(raw, Mapping):
        return OrderLineFailure(error=str(raw))
    row = lookup(raw, "rownumber", "row")
    return OrderLineFailure(
        error=str(lookup(raw, "errorDesc", "error", "message") or "refused"),
        id=_opt_str(lookup(raw, "id")),
        customer_id=_opt_str(lookup(raw, "customerID")),
        product_id=_opt_str(lookup(raw, "productID")),
        row=int(row) if isinstance(row, int | str) and str(row).isdigit() else None,
        raw=dict(raw),
    )


def parse_order_result(data: Any, what: str) -> OrderResult:
    if not isinstance(data, Mapping):
        raise UnexpectedResponse(f"{what}: expected an order result object")
    ok = data.get("successful") or []
    failed = data.get("failed") or []
    if not isinstance(ok, list) or not isinstance(failed, list):
        raise UnexpectedResponse(f"{what}: 'successful' and 'failed' must be lists")
    ids = tuple(str(x.get("id") if isinstance(x, Mapping) else x) for x in ok)
    return OrderResult(ids, tuple(_failure(f) for f in failed))


def parse_history_result(data: Any, what: str) -> HistoryResult:
    if not isinstance(data, Mapping):
        raise UnexpectedResponse(f"{what}: expected an order-history result object")
    ok = data.get("successful", 0)
    failed = data.get("failed") or []
    if isinstance(ok, list):
        ok = len(ok)
    if not isinstance(ok, int) or not isinstance(failed, list):
        raise UnexpectedResponse(f"{what}: 'successful' must be a count, 'failed' a list")
    failures = tuple(
        HistoryFailure(_opt_str(lookup(f, "ID", "id")), str(lookup(f, "Message") or ""))
        if isinstance(f, Mapping)
        else HistoryFailure(None, str(f))
        for f in failed
    )
    return HistoryResult(ok, failures)


# A 2xx that says it did not succeed (issue 28): `{"isSuccess": false, "message": …}` and kin.
_SUCCESS_FLAGS = ("isSuccess", "success", "succeeded", "ok")
_FAILURE_FLAGS = ("isError", "hasError", "failed")
_FAILURE_WORDS = ("message", "errorMessage", "error", "errors", "detail", "reason")


def flagged_failure(data: Any) -> str | None:
    """The show's words when an answer flags itself as failed (a success flag false, an error
    flag true), else None. A flag is taken only as a JSON boolean (or its text)."""
    if not isinstance(data, Mapping):
        return None

    def flag(names: tuple[str, ...]) -> bool | None:
        value = lookup(data, *names)
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower() == "true"
        return value if isinstance(value, bool) else None

    if flag(_SUCCESS_FLAGS) is not False and flag(_FAILURE_FLAGS) is not True:
        return None
    words = lookup(data, *_FAILURE_WORDS)
    if isinstance(words, list | dict):
        words = "; ".join(str(w) for w in (words.values() if isinstance(words, dict) else words))
    return str(words or "").strip() or "the show answered that it did not succeed"


def raise_if_flagged(data: Any, what: str) -> None:
    """A 2xx flagged as failed is the show's refusal, in its words (never "applied")."""
    words = flagged_failure(data)
    if words is not None:
        raise BadRequest(f"{what}: the show refused it: {words}")


def id_from_location(location: str | None) -> str | None:
    """The new record's id a `201 Created`'s `Location` names: its path's last part."""
    if not location:
        return None
    path = location.split("?", 1)[0].split("#", 1)[0].rstrip("/")
    last = path.rsplit("/", 1)[-1]
    return last or None


def id_message(data: Any, what: str, location: str | None = None) -> dict[str, Any]:
    """IdMessage `{id, message}` (any key case; a bare id or a whole record also do); an answer
    naming no id takes the one its `Location` names (a `201 Created` with an empty body)."""
    if isinstance(data, str | int) and not isinstance(data, bool):
        return {"id": str(data), "message": ""}
    located = id_from_location(location)
    if located is not None and (not isinstance(data, Mapping) or lookup(data, "id") is None):
        out = dict(data) if isinstance(data, Mapping) else {}
        return {**out, "id": located, "message": str(lookup(out, "message") or "")}
    if isinstance(data, list) and len(data) == 1:
        data = data[0]
    if not isinstance(data, Mapping) or lookup(data, "id") is None:
        raise UnexpectedResponse(f"{what}: the answer names no id")
    out = dict(data)
    out["id"] = str(lookup(data, "id"))
    out["message"] = str(lookup(data, "message") or "")
    return out


def one_record(data: Any, what: str) -> dict[str, Any]:
    if isinstance(data, list) and len(data) == 1:
        data = data[0]
    if not isinstance(data, Mapping):
        raise UnexpectedResponse(f"{what}: expected one record")
    return dict(data)


def delete_result(data: Any) -> dict[str, Any]:
    """A DeleteResponse: its object as is; nothing or text becomes `{"message": ...}`."""
    if isinstance(data, Mapping):
        return dict(data)
    return {"message": "" if data is None else str(data)}


def parse_result(kind: str, response: httpx.Response, what: str) -> Any:
    """Parse `response` as the registry's result `kind` declares."""
    if kind == "any":
        return any_body(response, what)
    data = decode_json(response, what)
    if kind == "records":
        return records_of(data, what)
    if kind in ("record", "id-message", "delete"):
        raise_if_flagged(data, what)
    if kind == "record":
        return one_record(data, what)
    if kind == "id-message":
        return id_message(data, what, response.headers.get("location"))
    if kind == "delete":
        return delete_result(data)
    if kind == "order-result":
        return parse_order_result(data, what)
    if kind == "history-result":
        return parse_history_result(data, what)
    raise UnexpectedResponse(f"{what}: unknown result kind '{kind}'")


def any_body(response: httpx.Response, what: str) -> Any:
    """JSON when the content type says so, text for text (an export's CSV), else bytes."""
    if is_json(response):
        return decode_json(response, what)
    kind = response.headers.get("content-type", "").lower()
    if kind.startswith("text/") or "charset" in kind or "csv" in kind:
        return response.text
    return response.content if response.content else None
