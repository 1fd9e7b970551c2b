"""After a push: list again what the push changed but the cache could not take from the show's
answers — a booth's associations (that booth's lists), bulk-created records (the resource's
recent changes)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta

from app.api.client import ShowClient
from app.api.errors import NotFound, ShowDeskError
from app.store.cache import Cache
from app.sync.pull.puller import Puller
from app.sync.pull.sync_report import ResourceSync


async def refresh_after_push(
    client: ShowClient, cache: Cache, stale: Iterable[tuple[str, str | None]]
) -> list[str]:
    """List again each (slug, parent) in `stale`; answer the errors to report."""
    errors: list[str] = []
    since = datetime.now(UTC).date() - timedelta(days=1)
    for slug, parent in sorted(stale, key=lambda s: (s[0], s[1] or "")):
        res = client.registry[slug]
        try:
            if res.listed_per_booth:
                if parent is None:
                    continue
                # the sync's own rule (app/sync/pull/booth_lists.py): deletes only on a listing
                # proven whole, notes when it was listed
                result = ResourceSync(slug, full=False, parents=1)
                await Puller(client, cache).list_parent(res, parent, result)
            elif res.can("list"):
                async for page in client.list(res, modified_after=since):
                    cache.upsert(slug, page)
        except NotFound:
            pass  # the booth is gone: its cached records stay until a full listing proves it
        except ShowDeskError as exc:
            errors.append(f"{res.title}: not listed again: {exc.message}")
    return errors
