"""How much of a sync runs at once, and the two helpers that run it so (issue 28, point 6).

A sync used to ask the show one request at a time: with answers taking 300 ms it used about half
the allowed rate (31 of 60 requests per 10 s). Now several resources are listed at once (each
after the resource it is listed under: a booth's lists after the booths, prices after the
products), a booth-list resource lists several booths at once, and a page/offset listing whose
total the show gave asks its next pages while it reads one (app/api/pages_ahead.py). The
RateGovernor still paces every request: what runs at once only keeps enough requests in flight
that the budget, not the show's latency, sets the pace. `ONE_AT_A_TIME` is the sync of before.

`together` runs coroutines at once and stops them all at the first failure (raised as it is, not
wrapped as a `TaskGroup` would: callers catch the show's errors by their class); `each` runs one
coroutine per item, at most `limit` at a time, started in the items' order.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class AtOnce:
    """What a sync keeps in flight at most. The default keeps 2-12 requests in flight: enough
    for a 300 ms show to fill its budget, few enough for the client's 16 connections with room
    left for the window's own requests."""

    resources: int = 4  # resources listed at once
    booths: int = 3  # booths whose list one booth-list resource asks at once
    pages: int = 3  # pages of one listing in flight at once (1: each after the last is read)

    def __post_init__(self) -> None:
        if min(self.resources, self.booths, self.pages) < 1:
            raise ValueError("at least one of each at once")


ONE_AT_A_TIME = AtOnce(resources=1, booths=1, pages=1)


async def together(works: Iterable[Coroutine[Any, Any, None]]) -> None:
    """Run every coroutine at once until all are done. The first to fail stops the others
    (cancelled, and awaited so none is left running) and its exception is raised."""
    tasks = [asyncio.ensure_future(work) for work in works]
    if not tasks:
        return
    ended: list[asyncio.Future[None]] = []  # in the order they ended
    for task in tasks:
        task.add_done_callback(ended.append)
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
    finally:
        for task in tasks:
            task.cancel()  # (nothing to a task already done)
        await asyncio.gather(*tasks, return_exceptions=True)
    for one in ended:
        error = None if one.cancelled() else one.exception()
        if error is not None:
            raise error


async def each(limit: int, items: Sequence[T], work: Callable[[T], Awaitable[None]]) -> None:
    """`work(item)` for every item, at most `limit` at once, started in the items' order; the
    first failure stops the rest (`together`)."""
    room = asyncio.Semaphore(limit)

    async def one(item: T) -> None:
        async with room:
            await work(item)

    await together(one(item) for item in items)
