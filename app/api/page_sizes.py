"""How large a page each list is asked for, and what the show was found to grant (issue 31,
point 5; decision 0035): `PageSizes`.

A profile asks every list for pages of its page size (1,000 unless set; at most
`paging.MAX_PAGE_SIZE`) — a list whose own `[resources.SLUG.paging]` table sets a `page_size`
is asked that — and a show may send fewer: the listing then goes on at the size it sent
(`PageCursor`), and that size is remembered per list in the profile (`Learned`, key
`paging.<slug>.pages`), so the next listing asks it at once. What is remembered:

- `capped`: the show sent `largest` records of the `asked` ones while more followed: the most it
  sends a page of this list. Asked again for at most `asked`, it is asked `largest`; a profile
  page size above `asked` asks the new size once, and learns again (a show that grants more).
- otherwise `largest` is the largest page the show has sent on this list (`asked` the size asked
  then): it sends at least so many at once, so a shorter first page is not one it cut short.

Only a listing that ended teaches anything (whole, or all a show that ignores paging would send;
not one found incomplete, nor one that may have grown while it was read: `PageCursor.came_in`);
one asked a size of its caller's (`ShowClient.list(page_size=…)`) asks what the caller says, and
teaches what the show sent.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from app.api.learned import Learned
from app.api.paging import PageCursor
from app.api.registry import Resource

# How the size in force is known, said in `showdesk status` and `check`:
LARGEST = "largest"  # the show sent fewer than asked while more followed: the most it grants
FULL = "full"  # pages of the size asked came whole
ASKED = "asked"  # nothing proven yet: no page of the list has filled it


@dataclass(frozen=True)
class Grant:
    """What the show was found to send at once on one list (see the module's docstring)."""

    asked: int
    largest: int
    capped: bool

    @classmethod
    def read(cls, value: Any) -> Grant | None:
        """The remembered value, or None where there is none (or one this version cannot read)."""
        if not isinstance(value, dict):
            return None
        asked, largest = _count(value.get("asked")), _count(value.get("largest"))
        if asked is None or largest is None:
            return None
        return cls(asked, largest, bool(value.get("capped")))

    def as_json(self) -> dict[str, Any]:
        return {"asked": self.asked, "largest": self.largest, "capped": self.capped}


@dataclass(frozen=True)
class InForce:
    """The page size a list is asked for now, and how it is known (`LARGEST`, `FULL`, `ASKED`)."""

    size: int
    known: str


class PageSizes:
    """The page sizes of one profile's lists: `requested` is the profile's page size (None: each
    list's registry `page_size`)."""

    def __init__(self, learned: Learned, requested: int | None = None) -> None:
        self.learned = learned
        self.requested = requested

    def grant(self, slug: str) -> Grant | None:
        return Grant.read(self.learned.get(_key(slug)))

    def in_force(self, res: Resource) -> InForce:
        """The size the next listing of `res` asks for, and how it is known."""
        wanted = res.own_page_size or self.requested or res.paging.page_size
        grant = self.grant(res.slug)
        if grant is None:
            return InForce(wanted, ASKED)
        if grant.capped and wanted <= grant.asked and grant.largest <= wanted:
            return InForce(grant.largest, LARGEST)
        return InForce(wanted, FULL if grant.largest >= wanted else ASKED)

    def asked(self, res: Resource) -> int:
        return self.in_force(res).size

    def known_grant(self, slug: str) -> int:
        """The largest page the show is known to send at once on this list (0: none known)."""
        grant = self.grant(slug)
        return grant.largest if grant is not None else 0

    def learn(self, slug: str, cursor: PageCursor) -> None:
        """Remember what a whole listing showed of the pages the show grants; one whose second
        page brought only records that changed while it was read (`came_in`) shows nothing: a
        cap and a list that grew look alike there."""
        if cursor.came_in:
            return
        old = self.grant(slug)
        if cursor.granted is not None:
            new = Grant(cursor.asked, cursor.granted, capped=True)
        elif old is not None and old.capped and cursor.asked <= old.asked:
            return  # asked within what the show was found to cut: nothing new
        else:
            seen = max(cursor.largest, old.largest if old is not None else 0)
            new = Grant(cursor.asked, seen, capped=False)
        if new != old:
            self.learned.set(_key(slug), new.as_json())


def pages_json(sizes: PageSizes, resources: Iterable[Resource]) -> dict[str, Any]:
    """`showdesk status` and `check --json`: the size asked, and each list's size in force
    where it is known (docs/cli-json.md)."""
    lists = {}
    for res in resources:
        now = sizes.in_force(res)
        if sizes.grant(res.slug) is not None or res.own_page_size:
            lists[res.slug] = {"size": now.size, "known": now.known}
    return {"asked": sizes.requested, "lists": lists}


def pages_lines(sizes: PageSizes, resources: Iterable[Resource]) -> list[str]:
    """The page sizes in force, for a person: the size asked, the lists the show grants less
    and those whose own paging sets a size (by size), and how many lists were sent pages of the
    size asked in full."""
    said = f"{sizes.requested:,} records" if sizes.requested else "the registry's size"
    lines = [f"Pages: {said} asked at a time (the profile's page size)"]
    groups: dict[tuple[str, int], list[str]] = {}
    full = 0
    for res in resources:
        now = sizes.in_force(res)
        if now.known == LARGEST:
            groups.setdefault(("the largest this show grants", now.size), []).append(res.title)
        elif res.own_page_size:
            groups.setdefault(("set for this list in its paging", now.size), []).append(res.title)
        else:
            full += now.known == FULL
    for (why, size), titles in sorted(groups.items(), key=lambda g: (g[0][1], g[0][0])):
        lines.append(f"  pages of {size:,} ({why}): {', '.join(titles)}")
    if full:
        lists = "1 list" if full == 1 else f"{full:,} lists"
        asked = f"{sizes.requested:,}" if sizes.requested else "the size asked"
        lines.append(f"  pages of {asked} as asked, sent in full on {lists}")
    return lines


def _key(slug: str) -> str:
    return f"paging.{slug}.pages"


def _count(value: Any) -> int | None:
    """A remembered count: a whole number above 0 (None: anything else)."""
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    return None
