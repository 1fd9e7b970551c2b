"""The simulator's renamed and missing resources (issue 12): 404 where a show does not serve."""

from __future__ import annotations

from contextlib import closing

import pytest

from app.sim import SimConfig, SimServer, generate_show
from tests.sim.conftest import api_client


def _serve(**switches: object) -> SimServer:
    return SimServer(generate_show("tiny", seed=1), SimConfig(throttle=False, **switches))  # type: ignore[arg-type]


def test_a_renamed_resource_answers_under_its_new_path_only() -> None:
    with _serve(paths={"customers": "/Customers"}) as server, closing(api_client(server)) as http:
        listed = http.get("/Customers")
        one = listed.json()[0]
        assert listed.status_code == 200 and len(listed.json()) == len(
            server.show.records("customers")
        )
        assert http.get(f"/customers/{one['id']}").json()["id"] == one["id"]
        assert http.get("/Customer").status_code == 404
        assert http.get(f"/Customer/{one['id']}").status_code == 404
        assert http.get("/Warehouse").status_code == 200


def test_a_missing_resource_answers_404_everywhere() -> None:
    with _serve(missing=frozenset({"brokers"})) as server, closing(api_client(server)) as http:
        broker = server.show.records("brokers")[0]
        assert http.get("/Broker").status_code == 404
        assert http.get(f"/Broker/{broker['id']}").status_code == 404
        assert http.post("/Broker", json={"brokerID": "B-NEW"}).status_code == 404
        assert http.get("/Brokers").status_code == 404
        assert http.get("/BrokerUser").status_code == 200
        server.config.missing = frozenset()  # a switch takes effect on the next request
        assert http.get("/Broker").status_code == 200


def test_renaming_an_unknown_resource_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown resources: nope"):
        _serve(paths={"nope": "/Nope"})
    with pytest.raises(ValueError, match="must start with '/'"):
        SimConfig(paths={"customers": "Customers"})
