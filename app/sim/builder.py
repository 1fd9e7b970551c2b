"""What one generation of a demo show works with: its size, and the `Builder` both halves share.

The generator (app/sim/generator.py: the organisation, the sales side, the customers) and its
second half (app/sim/catalog.py: the trade side) build their records through the same `Builder`
— the show they fill, its `ShowSize`, the seeded random source and the date anchor — so every
record of one show draws from one seed and one clock. The named sizes and `show_size` stay with
the generator.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any, TypeVar

from app.sim.names import FIRST_NAMES, LAST_NAMES
from app.sim.show import Record, Show

T = TypeVar("T")


@dataclass(frozen=True)
class ShowSize:
    """How many records of each kind a generated show holds."""

    customers: int
    attendees: int
    vendors: int
    booths: int
    products: int  # product records (a productID with two order units counts twice)
    orders: int  # orders of about four lines each
    warehouses: int
    customer_classes: int
    delivery_groups: int
    sales_reps: int
    sales_rep_managers: int
    ordering_groups: int
    brokers: int
    brands: int
    categories: int
    facilitators: int
    vip_users: int
    show_admins: int
    history_items: int
    delivery_dates: int


@functools.lru_cache(maxsize=4)
def _minute_strings(start: datetime) -> tuple[str, ...]:
    """Every minute of four weeks from `start`, as zone-less ISO strings (cached per anchor)."""
    return tuple((start + timedelta(minutes=m)).isoformat(timespec="minutes") for m in range(40320))


class Builder:
    """Shared state of one generation: the show, the seeded random source, the date anchor."""

    def __init__(self, show: Show, size: ShowSize, seed: int, now: datetime) -> None:
        self.show = show
        self.size = size
        self.rng = random.Random(seed)
        self.now = now
        self.today: date = now.date()
        self.random = self.rng.random
        self._minutes = _minute_strings(now.replace(tzinfo=None) - timedelta(days=28))
        self._seconds = [f":{s:02d}" for s in range(60)]

    def pick(self, seq: Sequence[T]) -> T:
        """A random element (faster than `Random.choice` in the hot loops)."""
        return seq[int(self.random() * len(seq))]

    def stamp(self) -> str:
        """A modifiedDate somewhere in the four weeks before `now`, zone-less."""
        r = self.random
        return self._minutes[int(r() * 40320)] + self._seconds[int(r() * 60)]

    def day(self, offset: int) -> str:
        """A date-only string `offset` days from today."""
        return (self.today + timedelta(days=offset)).isoformat()

    def new(self, slug: str, fields: Record) -> Record:
        """A complete record: `id` first, then the fields, then `modifiedDate`."""
        return {"id": self.show.new_id(slug), **fields, "modifiedDate": self.stamp()}

    def person(self) -> tuple[str, str]:
        return self.pick(FIRST_NAMES), self.pick(LAST_NAMES)

    def email(self, first: str, last: str, domain: str) -> str:
        return f"{first}.{last}@{domain}".lower().replace(" ", "")

    def phone(self) -> str:
        n = int(self.random() * 6.4e9)  # one draw: area code, exchange and line number
        return f"({200 + n // 8_000_000}) {200 + n // 10_000 % 800}-{n % 10_000:04d}"

    def users(self, slug: str, count: int, prefix: str, domain: str, **extra: Any) -> list[Record]:
        out = []
        for i in range(count):
            first, last = self.person()
            fields: Record = {"userID": f"{prefix}{i + 1:04d}", "firstName": first}
            fields.update(lastName=last, email=self.email(first, last, domain), **extra)
            out.append(self.new(slug, fields))
        return out
