"""After a push, a booth's lists are listed again (app/sync/push/refresh.py): only a listing
proven whole removes cached records it lacks (issue 12's rule, decision 0003), and the listing
is recorded as listed (decision 0014; an uncertain one too: asked again it answers the same
page), so the sweep does not ask for it again at once — the sync's own rule, not a copy."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from app.api.page_walk import Page
from app.api.registry import default_registry
from app.store.booth_list_times import BoothListTimes
from app.store.cache import Cache
from app.sync.push.refresh import refresh_after_push


class OnePageShow:
    """A client whose booth list answers one page: `uncertain` as a show ignoring paging."""

    def __init__(self, records: list[dict[str, Any]], uncertain: bool) -> None:
        self.registry = default_registry()
        self.records, self.uncertain = records, uncertain

    async def list(self, res: Any, **_: Any) -> AsyncIterator[Page]:
        page = Page(self.records)
        page.uncertain = self.uncertain
        yield page


@pytest.mark.asyncio
@pytest.mark.parametrize("uncertain", [True, False])
async def test_a_push_relists_a_booth_and_deletes_only_on_proof(
    tmp_path: Path, uncertain: bool
) -> None:
    registry = default_registry()
    with Cache(tmp_path / "cache.sqlite", registry) as cache:
        cached = [{"id": f"p{n}", "productID": f"P{n}"} for n in range(3)]
        cache.upsert("booth-products", cached, parent="B1")
        show = OnePageShow(cached[:1], uncertain)
        stale = {("booth-products", "B1")}
        errors = await refresh_after_push(show, cache, stale)  # type: ignore[arg-type]
        kept = sorted(cache.ids("booth-products", "B1"))
        listed = BoothListTimes(cache).last_listed("booth-products", "B1")
    assert errors == []
    assert listed is not None
    assert kept == (["p0", "p1", "p2"] if uncertain else ["p0"])
