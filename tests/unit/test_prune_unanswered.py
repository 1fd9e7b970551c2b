"""A deletion check the show does not answer either way proves nothing: the record stays and
the resource is not reported synced (issue 28, point 1: "removed" and "synced" rest on a 404)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from app.api.errors import NotFound, ServerError
from app.api.registry import default_registry
from app.store.cache import Cache
from app.sync.pull.puller import Puller
from app.sync.pull.sync_report import Ending, ResourceSync

REGISTRY = default_registry()


class Answers:
    """A client that answers the deletion checks: a1 is gone (404), a2's check fails (502)."""

    registry = REGISTRY
    connection = SimpleNamespace(rate_limit=300)

    async def get(self, res: Any, record_id: str) -> dict[str, Any]:
        if record_id == "a1":
            raise NotFound("GET /Customer/a1 answered 404")
        raise ServerError("GET /Customer/a2 answered 502", 502)


@pytest.mark.asyncio
async def test_a_check_the_show_did_not_answer_keeps_the_record_and_the_sync_unfinished(
    tmp_path: Path,
) -> None:
    with Cache(tmp_path / "c.sqlite", REGISTRY) as cache:
        cache.upsert(
            "customers", [{"id": "a1", "customerID": "C1"}, {"id": "a2", "customerID": "C2"}]
        )
        puller = Puller(Answers(), cache)  # type: ignore[arg-type]
        result = ResourceSync("customers", full=True)
        await puller.prune(REGISTRY["customers"], set(), Ending(), result)
        assert sorted(cache.ids("customers")) == ["a2"]  # a1 proved gone, a2 not proved
        assert (result.removed, result.verified, result.kept) == (1, 1, 1)
        assert result.failure is not None and "1 asked for went unanswered" in result.failure
