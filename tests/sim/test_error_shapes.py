"""The simulator words its 400s in each common shape; the client finds the field in each."""

from __future__ import annotations

import pytest

from app.api.errors import BadRequest
from app.sim import SimServer
from app.sim.config import ERROR_SHAPES
from tests.sim.conftest import plain_client, token_for
from tests.sim.test_client_helpers import connect, simulated

RAW = {
    "message-errors": {
        "message": "customerID: is required",
        "errors": {"customerID": ["is required"]},
    },
    "message": {"message": "customerID: is required"},
    "field": {"field": "customerID", "message": "is required"},
    "errors": {"errors": [{"field": "customerID", "message": "is required"}]},
    "text": "customerID: is required",
}


def _refused_create(server: SimServer) -> object:
    with plain_client() as http:
        answer = http.post(
            f"{server.base_url}/Customer",
            json={"customerName": "No key"},
            headers={"Authorization": f"Bearer {token_for(server)}"},
        )
    assert answer.status_code == 400
    if answer.headers["content-type"].startswith("text/plain"):
        return answer.text
    return answer.json()


@pytest.mark.parametrize("shape", ERROR_SHAPES)
def test_the_simulator_words_a_400_in_each_shape(shape: str) -> None:
    with simulated(error_shape=shape) as server:
        assert _refused_create(server) == RAW[shape]


@pytest.mark.parametrize("shape", ERROR_SHAPES)
@pytest.mark.asyncio
async def test_the_client_reads_the_field_of_a_400_in_each_shape(shape: str) -> None:
    with simulated(error_shape=shape) as server:
        async with connect(server) as client:
            with pytest.raises(BadRequest) as info:
                await client.create("customers", {"customerName": "No key"})
    assert info.value.field == "customerID"
    assert "is required" in info.value.fields["customerID"][0]
    assert "customerID" in info.value.message and "is required" in info.value.message
