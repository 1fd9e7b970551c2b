"""The next pages of a listing asked while one is read (issue 28, point 6): `PagesAhead`.

A page/offset listing whose total the show gave knows how many pages are left, so up to
`at_once` of them are asked together instead of each after the last is read. Nothing of the
listing's proof changes: the `PageCursor` still takes every answer in order and alone decides
what comes next and whether the listing is whole. An answer asked ahead is used only when the
cursor asks for exactly that page; when it asks for another (a short page moved the offsets, the
show began to name its next pages) or ends, what was asked ahead is dropped unread. Only the
requests are earlier; a page past the end asked ahead answers as it would have (404 or empty)
only if the cursor comes to it.

Whatever makes a listing `stable` (what it lacks is gone, nothing asked for: `PageCursor`), a
listing whose last page was read while another page of it was in flight is never marked so
(`settled`): pages asked together reach the show in any order, so no read of them can stand for
"nothing moved before or after". (Today only a walk the show leads is stable, and it is never
asked ahead; the guard keeps it so should that change.)

A next link or token (the show leads), a bare array (no total: only a short page ends it) and the
first page are never asked ahead; nor is anything before a second page differed from the first,
unless the profile learned that these paging names work on this list (a show that ignores them
answers every page the same: each asked ahead would be a request spent for nothing).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from app.api.paging import PageCursor

Query = list[tuple[str, str]]
Ask = Callable[[Query], Awaitable[Any]]


@dataclass(frozen=True)
class _Asked:
    task: asyncio.Future[Any]
    settled: bool  # asked when no other page of the listing was in flight


class PagesAhead:
    """Pages of one listing asked before its cursor comes to them (at most `at_once` in flight;
    1: none ahead). `answer` gives the answer to the cursor's query; `plan` asks ahead after the
    cursor took a page; `close` drops what is left."""

    def __init__(self, ask: Ask, at_once: int = 1, *, known: bool = False) -> None:
        self._ask = ask
        self.at_once = at_once
        self.known = known  # the paging names worked on this list before (learned)
        self._asked: dict[tuple[tuple[str, str], ...], _Asked] = {}

    async def answer(self, query: Query) -> tuple[Any, bool]:
        """The answer to `query` (asked now unless it was asked ahead), and whether it is
        settled: asked when no other page of the listing was in flight."""
        held = self._asked.pop(tuple(query), None)
        if held is None:
            await self.close()  # the cursor asks what was not foreseen: the rest is no use
            held = self._start(query)
        return await held.task, held.settled

    def plan(self, cursor: PageCursor, received: int) -> None:
        """After the cursor took a page of `received` new records: ask the pages it will ask
        next, as far as its total says there are more, up to `at_once` in flight."""
        if self.at_once < 2 or not _foreseeable(cursor) or received <= 0:
            return
        if not (self.known or cursor.proved_paging):
            return  # a show that ignores these names would answer each page asked the same
        assert cursor.total is not None  # (_foreseeable)
        left = math.ceil((cursor.total - cursor.count) / received)
        for ahead in range(min(self.at_once, left)):
            query = _query(cursor, ahead, received)
            if tuple(query) not in self._asked:
                self._start(query)

    async def close(self) -> None:
        """Drop every page asked ahead and not used (cancelled, and awaited)."""
        dropped = [held.task for held in self._asked.values()]
        self._asked.clear()
        for task in dropped:
            task.cancel()
        await asyncio.gather(*dropped, return_exceptions=True)

    def _start(self, query: Query) -> _Asked:
        busy = any(not held.task.done() for held in self._asked.values())
        held = _Asked(asyncio.ensure_future(self._ask(query)), settled=not busy)
        self._asked[tuple(query)] = held
        return held


def _foreseeable(cursor: PageCursor) -> bool:
    """A listing whose next pages can be named before they are read: paged by number or offset
    (not led by the show's links), its total known, not yet ended."""
    return (
        not cursor.done
        and not cursor.following
        and cursor.next_url is None
        and cursor.total is not None
        and cursor.spec.style in ("page", "offset")
    )


def _query(cursor: PageCursor, ahead: int, per_page: int) -> Query:
    """The query of the page `ahead` pages after the one the cursor asks next, the show's pages
    holding `per_page` records."""
    step = 1 if cursor.spec.style == "page" else per_page
    return cursor.spec.query(cursor.index + ahead * step)
