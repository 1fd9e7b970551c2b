"""After a push: list again what the push changed but the cache could not take from the show's
answers — a booth's associations (that booth's lists), bulk-created records (the resource's
recent changes)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta

from app.api.client import ShowClient
from app.api.errors import ShowDeskError
from app.store.cache import Cache
from app.store.nested_lists import NestedLists


async def refresh_after_push(
    client: ShowClient, cache: Cache, stale: Iterable[tuple[str, str | None]]
) -> list[str]:
    """List again each (slug, parent) in `stale`; answer the errors to report."""
    errors: list[str] = []
    since = datetime.now(UTC).date() - timedelta(days=1)
    for slug, parent in sorted(stale, key=lambda s: (s[0], s[1] or "")):
        res = client.registry[slug]
        try:
            if res.nested_by_param:
                if parent is None:
                    continue
                seen: list[str] = []
                uncertain, listed_at = False, datetime.now(UTC)
                async for page in client.list(res, parent=parent):
                    cache.upsert(slug, page, parent=parent)
                    seen += [str(r["id"]) for r in page if r.get("id") is not None]
                    uncertain = uncertain or page.uncertain
                if not uncertain:  # only a listing proven whole removes what it lacks
                    cache.retain_only(slug, seen, parent=parent)
                    NestedLists(cache).listed(slug, [parent], listed_at)
            elif res.can("list"):
                async for page in client.list(res, modified_after=since):
                    cache.upsert(slug, page)
        except ShowDeskError as exc:
            errors.append(f"{res.title}: not listed again: {exc.message}")
    return errors
