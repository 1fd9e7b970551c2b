"""How the plain server (tests/e2e/plain_server.py) answers a write, as a shape says (issue 28,
point 3). Stdlib only, sharing no code with `app/`.

- a create answers `{"id", "message"}` (201), the stored record (201), an EMPTY 201 with a
  `Location` header naming the new record, or a result wrapper (200
  `{"isSuccess": true, "message", "result": record}`); a create whose key is in
  `Shape.lost_creates` is applied, then answered 502 (the answer lost on its way back);
- an update answers the stored record (an echo) or a result wrapper; `refuse_puts` "all" (or
  "some": a third of the records, by id) answers 200 `{"isSuccess": false, "message": REFUSED}`
  and applies nothing; `ignored_field` is kept at its stored value whatever is sent, and the
  stored record is echoed.
"""

from __future__ import annotations

import zlib
from typing import Any

from tests.e2e.plain_answers import Answer
from tests.e2e.shape import Shape

REFUSED = "Customer is locked by an open order and cannot be changed"
LOST = Answer(502, {"message": "Bad gateway: the upstream server did not answer in time"})


def refuses(shape: Shape, record_id: Any) -> bool:
    """The shape refuses PUTs to this record (and applies nothing)."""
    if shape.refuse_puts == "all":
        return True
    return shape.refuse_puts == "some" and zlib.crc32(str(record_id).encode()) % 3 == 0


REFUSAL = Answer(200, {"isSuccess": False, "message": REFUSED})


def kept(shape: Shape, body: Any, current: dict[str, Any]) -> Any:
    """The body as the show applies it: the ignored field at its stored value (or left out)."""
    field = shape.ignored_field
    if not field or not isinstance(body, dict):
        return body
    body = {k: v for k, v in body.items() if k != field}
    if current.get(field) is not None:
        body[field] = current[field]
    return body


def created(shape: Shape, key: Any, stored: dict[str, Any], location: str) -> Answer:
    """The answer to a create that stored `stored` under the business key `key`."""
    if key in shape.lost_creates:
        return LOST
    if shape.create_answer == "record":
        return Answer(201, stored)
    if shape.create_answer == "location":
        return Answer(201, None, {"Location": location})
    if shape.create_answer == "wrapper":
        return Answer(200, {"isSuccess": True, "message": "Created", "result": stored})
    return Answer(201, {"id": stored["id"], "message": "Created"})


def updated(shape: Shape, stored: dict[str, Any]) -> Answer:
    if shape.update_answer == "wrapper":
        return Answer(200, {"isSuccess": True, "message": "Updated", "result": stored})
    return Answer(200, stored)
