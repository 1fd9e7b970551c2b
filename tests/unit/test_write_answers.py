"""Issue 28, point 3: what a write's answer proves (pure judgements, no server).

`parse_result` reads a 2xx that says it failed as the refusal it is, and a `201 Created` with
only a `Location` as the id it names; `judge_echo` tells an echo that holds what was sent from one
that kept a field's old value, and from an answer that is not the record at all.
"""

from __future__ import annotations

import httpx
import pytest

from app.api.errors import BadRequest
from app.api.responses import parse_result
from app.sync.push.verdicts import judge_echo

WHAT = "Customers update (PUT /Customer/k1)"


def answer(status: int, body: bytes = b"", **headers: str) -> httpx.Response:
    kind = {"Content-Type": "application/json"} if body else {}
    return httpx.Response(status, content=body, headers={**kind, **headers})


@pytest.mark.parametrize("kind", ["record", "id-message", "delete"])
def test_a_2xx_flagged_as_failed_is_a_refusal_with_the_shows_words(kind: str) -> None:
    body = b'{"isSuccess": false, "message": "Customer is locked"}'
    with pytest.raises(BadRequest, match="Customer is locked"):
        parse_result(kind, answer(200, body), WHAT)


def test_a_flag_saying_it_succeeded_is_no_refusal() -> None:
    body = b'{"success": true, "id": "k1", "message": "ok"}'
    assert parse_result("id-message", answer(200, body), WHAT)["id"] == "k1"


def test_a_201_with_an_empty_body_takes_its_id_from_the_location() -> None:
    created = answer(201, Location="/tradeshow/v1/Customer/ab12c")
    assert parse_result("id-message", created, WHAT)["id"] == "ab12c"
    absolute = answer(201, Location="https://show.example/api/Customer/77?x=1")
    assert parse_result("id-message", absolute, WHAT)["id"] == "77"


def test_an_echo_holding_what_was_sent_is_applied() -> None:
    echo = {"id": 7, "city": "Salem", "email": "a@b.org"}
    verdict = judge_echo("7", {"city": "Salem"}, {"city": "Bend"}, echo)
    assert verdict.unclear is None and verdict.kept == {} and verdict.record == echo


def test_an_echo_keeping_the_old_value_names_the_field_and_the_shows_value() -> None:
    echo = {"id": "k1", "city": "Salem", "email": "old@b.org"}
    sent = {"city": "Salem", "email": "new@b.org"}
    verdict = judge_echo("k1", sent, {"city": "Bend", "email": "old@b.org"}, echo)
    assert verdict.unclear is None and verdict.kept == {"email": "old@b.org"}


@pytest.mark.parametrize(
    "body",
    [
        {"isSuccess": True, "message": "Saved"},  # a wrapper without the record
        {"id": "k2", "city": "Salem"},  # another record
        {"id": "k1"},  # the record without the field sent
        None,
        [],
    ],
)
def test_an_answer_that_is_not_the_record_proves_nothing(body: object) -> None:
    verdict = judge_echo("k1", {"city": "Salem"}, {"city": "Bend"}, body)
    assert verdict.unclear and verdict.record is None
