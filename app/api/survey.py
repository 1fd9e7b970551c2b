"""`showdesk check`: ask every list of the show once and say, per resource, how it answered.

A new profile meets a server whose shapes the vendor barely documents. The survey asks each list
operation for its smallest page and reports the shape (a bare array, an envelope and its list
key, an array holding an envelope), the paging counters it saw and the count. A list answered
404 is tried under the obvious other spellings of its path (case, plural, both); what answered
becomes a suggested overrides file (app/api/suggestion.py). Booth lists (a booth's
products) are asked for the first booth. When the first lists all answer 404
under every spelling, the base URL is wrong: the rest are not asked.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from app.api.client import ShowClient
from app.api.envelopes import LIST_KEYS, PageInfo, unwrap
from app.api.errors import AccessProblem, NotFound, ShowDeskError, TransportError
from app.api.paging import PageCursor
from app.api.paths import base_path, path_variants, renamed_paths
from app.api.registry import Operation, Registry, Resource

SMALLEST_PAGE = 1
GIVE_UP_AFTER = 3  # lists answered 404 in a row, from the first: the base URL is wrong
NOTHING = "the first lists asked all answered 404: check the base URL"


@dataclass(frozen=True)
class ListAnswer:
    """How one resource's list answered. `answered` None: not asked (no parent record)."""

    slug: str
    title: str
    path: str  # the list's path as the registry has it, query template left out
    answered: bool | None
    how: str = ""  # shape, paging and count, when it answered
    found: str | None = None  # another path that answered where the registry's gave 404
    tried: tuple[str, ...] = ()  # the other paths tried after a 404
    problem: str = ""  # why it did not answer (or was not asked)
    first_key: str | None = None  # the first record's key (to list booth lists)

    @property
    def not_offered(self) -> bool:
        """The registry's path answered 404."""
        return self.answered is False and self.problem.endswith("answered 404")

    def line(self) -> str:
        """One line of the report, fit for a terminal or the profile dialog."""
        if self.answered is None:
            return f"{self.title}: not asked ({self.problem})"
        if self.answered:
            return f"{self.title}: answered: {self.how}"
        if self.found is not None:
            return f"{self.title}: {self.problem}; {self.found} answered: {self.how}"
        tried = f"; tried {', '.join(self.tried)}: none answered" if self.tried else ""
        return f"{self.title}: did not answer: {self.problem}{tried}"


async def survey(client: ShowClient, registry: Registry) -> list[ListAnswer]:
    """Ask each list once (booth lists after the booths); one answer per resource.

    A connection or sign-in failure is raised (the whole check fails); anything else a list
    answers is that resource's problem and the survey goes on.
    """
    answers: dict[str, ListAnswer] = {}
    listable = [r for r in registry if r.can("list")]
    for res in sorted(listable, key=lambda r: r.listed_per_booth):
        if _nothing_answers(answers.values()):  # a wrong base URL: spare the rate budget
            path = res.op("list").path.partition("?")[0]
            answers[res.slug] = ListAnswer(res.slug, res.title, path, None, problem=NOTHING)
            continue
        answers[res.slug] = await _ask(client, registry, res, answers)
    return list(answers.values())


def _nothing_answers(answers: Iterable[ListAnswer]) -> bool:
    """The first lists asked all answered 404 under every spelling."""
    asked = [a for a in answers if a.answered is not None]
    return len(asked) >= GIVE_UP_AFTER and all(a.not_offered and a.found is None for a in asked)


async def _ask(
    client: ShowClient, registry: Registry, res: Resource, done: Mapping[str, ListAnswer]
) -> ListAnswer:
    path = res.op("list").path.partition("?")[0]
    blank = ListAnswer(res.slug, res.title, path, None)
    parent_key: str | None = None
    if res.listed_per_booth and res.parent is not None:
        parent = done.get(res.parent)
        parent_key = parent.first_key if parent else None
        if parent_key is None:
            title = registry[res.parent].title
            return dataclasses.replace(blank, problem=f"no record of {title} to list it for")
    try:
        return _answered(blank, res, await _first(client, res, parent_key), path=None)
    except NotFound:
        pass
    except (TransportError, AccessProblem):
        raise
    except ShowDeskError as exc:
        return dataclasses.replace(blank, answered=False, problem=exc.message)
    return await _variants(client, res, parent_key, blank)


async def _variants(
    client: ShowClient, res: Resource, parent_key: str | None, blank: ListAnswer
) -> ListAnswer:
    """After a 404: the other spellings of the path, until one answers."""
    missing = dataclasses.replace(
        blank, answered=False, problem=f"{res.op('list').method} {blank.path} answered 404"
    )
    tried: list[str] = []
    for variant in path_variants(base_path(res)):
        tried.append(variant)
        try:
            data = await _first(client, moved(res, variant), parent_key)
        except NotFound:
            continue
        except (TransportError, AccessProblem):
            raise
        except ShowDeskError:
            break
        found = _answered(missing, res, data, path=variant)
        return dataclasses.replace(found, tried=tuple(tried))
    return dataclasses.replace(missing, tried=tuple(tried))


def moved(res: Resource, new_base: str) -> Resource:
    """The resource with every operation under `new_base` (as an override would put it)."""
    paths = renamed_paths(res, new_base)
    ops: dict[str, Operation] = {
        name: dataclasses.replace(op, path=paths[name]) for name, op in res.operations.items()
    }
    return dataclasses.replace(res, operations=ops)


async def _first(client: ShowClient, res: Resource, parent_key: str | None) -> Any:
    spec = dataclasses.replace(res.paging, page_size=SMALLEST_PAGE)
    query = PageCursor(spec, res.title).query()
    return await client.first_page(res, query, parent=parent_key, interactive=True)


def _answered(blank: ListAnswer, res: Resource, data: Any, *, path: str | None) -> ListAnswer:
    try:
        records, envelope = unwrap(data, res.title, res.paging.items_key)
    except ShowDeskError as exc:
        return dataclasses.replace(blank, answered=False, problem=exc.message)
    key = records[0].get(res.key) if records else None
    return dataclasses.replace(
        blank,
        answered=path is None,
        found=path,
        how=describe(data, records, envelope),
        first_key=None if key is None else str(key),
    )


def describe(data: Any, records: list[Any], envelope: Mapping[str, Any] | None) -> str:
    """The shape, the paging counters and the count of one list answer, in words."""
    if envelope is None:
        return f"a bare array, no paging counters, {_count(len(records), None)}"
    list_key = next(
        (
            str(k)
            for k, v in envelope.items()
            if str(k).lower() in LIST_KEYS and isinstance(v, list)
        ),
        "?",
    )
    shape = f"an envelope with the list under '{list_key}'"
    if isinstance(data, list):
        shape = "an array holding " + shape
    info = PageInfo.of(envelope)
    seen = [
        f"{name} {value}"
        for name, value in (
            ("page", info.page),
            ("pages", info.total_pages),
            ("total", info.total),
            ("more", info.has_more),
        )
        if value is not None
    ]
    paging = "paging counters: " + ", ".join(seen) if seen else "no paging counters"
    return f"{shape}, {paging}, {_count(len(records), info.total)}"


def _count(on_page: int, total: int | None) -> str:
    if on_page > SMALLEST_PAGE:
        size = f"ignores the page size ({on_page} records for {SMALLEST_PAGE} asked)"
    else:
        size = "1 record on the first page" if on_page == 1 else "no record on the first page"
    return size if total is None else f"{total} records in all, {size}"
