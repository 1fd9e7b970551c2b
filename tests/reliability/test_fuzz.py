"""Fuzzing with hypothesis: imported files, values staged as edits, and whatever a server may
answer where records are expected. Nothing may escape but the errors ShowDesk expects, and every
refusal says why (a non-empty reason). The clipboard paste is fuzzed on a real table in
tests/reliability/gui/test_fuzz_paste.py."""

from __future__ import annotations

import asyncio
import csv
import itertools
import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openpyxl
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from app.api.errors import InvalidValue, ShowDeskError
from app.api.models import MODELS
from app.api.registry import Registry, default_registry
from app.sim import generate_show
from app.store.cache import Cache
from app.store.changes import new_local_id
from app.store.outbox import Outbox
from app.sync.edit.editor import Editor, FieldEdit
from app.sync.files import importer
from app.sync.pull.puller import Puller
from tests.reliability.fuzzing import (
    cell_text,
    edit_values,
    fuzz_settings,
    json_values,
    strictly_json,
    xlsx_cells,
)
from tests.reliability.levels import Level
from tests.reliability.tally import Tally
from tests.unit.test_client_fakes import make_client

RESOURCES = ("customers", "products", "orders", "brands", "attendees", "product-inventory")


@pytest.fixture(scope="module")
def show_records() -> dict[str, list[dict[str, Any]]]:
    show = generate_show("tiny", seed=12)
    return {slug: show.records(slug) for slug in RESOURCES}


@pytest.fixture
def store(
    tmp_path: Path, show_records: dict[str, list[dict[str, Any]]]
) -> Iterator[tuple[Cache, Outbox, Registry]]:
    registry = default_registry()
    with Cache(tmp_path / "cache.sqlite", registry) as cache, Outbox(tmp_path / "ob.sqlite") as ob:
        for slug, records in show_records.items():
            cache.upsert(slug, records)
        yield cache, ob, registry


def fields_of(slug: str, registry: Registry) -> list[str]:
    return sorted(MODELS[registry[slug].model].model_fields)


# ------------------------------------------------------------------------------ imports


def columns_for(slug: str) -> st.SearchStrategy[list[str]]:
    known = sorted(MODELS[default_registry()[slug].model].model_fields)
    names = st.one_of(st.sampled_from([*known, "error", "modifiedDate", "id"]), cell_text)
    return st.lists(names, min_size=1, max_size=8)


def write_csv(path: Path, columns: list[str], rows: list[list[str]]) -> None:
    with open(path, "w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows([columns, *rows])


def write_xlsx(path: Path, sheets: list[list[list[Any]]]) -> None:
    book = openpyxl.Workbook()
    book.remove(book.active)
    for number, rows in enumerate(sheets):
        sheet = book.create_sheet(f"Sheet{number + 1}")
        for row in rows:
            sheet.append(row)
    book.save(path)


files = st.one_of(
    st.tuples(
        st.just("csv"),
        columns_for("customers"),
        st.lists(st.lists(cell_text, max_size=9), max_size=12),
    ),
    st.tuples(
        st.just("xlsx"),
        st.lists(st.lists(st.lists(xlsx_cells, max_size=8), max_size=10), min_size=1, max_size=2),
        st.none(),
    ),
    st.tuples(st.sampled_from(["csv", "xlsx"]), st.binary(max_size=300), st.none()),
)


def test_imports_of_any_file_never_crash_and_say_why_they_refuse(
    store: tuple[Cache, Outbox, Registry], tmp_path: Path, strength: Level, tally: Tally
) -> None:
    cache, outbox, _registry = store
    counter = itertools.count()
    tried = 0

    @fuzz_settings(strength)
    @given(files, st.sampled_from(["customers", "products", "orders"]), st.booleans())
    @example(("csv", b"\x80", None), "customers", False)  # found by this test: not UTF-8
    @example(("xlsx", b"PK not a zip", None), "customers", False)  # found: not a workbook
    def check(file: tuple[str, Any, Any], slug: str, keyed: bool) -> None:
        nonlocal tried
        tried += 1
        kind, content, rows = file
        path = tmp_path / f"import-{next(counter)}.{kind}"
        if isinstance(content, bytes):
            path.write_bytes(content)
        elif kind == "csv":
            write_csv(path, content, rows)
        else:
            write_xlsx(path, content)
        try:
            plan = importer.plan_import(cache, slug, path, key="customerID" if keyed else None)
        except InvalidValue as refused:  # the file as a whole: unreadable, no header…
            assert refused.reason.strip(), refused
            return
        for error in plan.errors:
            assert str(error).strip() and error.reason.strip(), error
        for change in plan.changes():
            assert strictly_json(change.payload), change.payload
        importer.apply(plan, outbox)
        importer.write_errors_file(plan, path.with_name(path.stem + ".errors" + path.suffix))

    check()
    tally.add("fuzz", fuzz_cases_tried=tried)


# ------------------------------------------------------------------------------ form input


def test_any_value_staged_as_an_edit_is_queued_or_refused_with_a_reason(
    store: tuple[Cache, Outbox, Registry], strength: Level, tally: Tally
) -> None:
    cache, outbox, registry = store
    editor = Editor(cache, outbox, registry)
    tried = 0

    @st.composite
    def edits(draw: st.DrawFn) -> tuple[str, list[FieldEdit]]:
        slug = draw(st.sampled_from(RESOURCES))
        ids = [str(r["id"]) for r in cache.records(slug, limit=20)] or ["none"]
        record_ids = st.one_of(st.sampled_from(ids), st.just(new_local_id()), cell_text)
        names = st.one_of(st.sampled_from(fields_of(slug, registry)), cell_text)
        edit = st.builds(FieldEdit, record_ids, names, edit_values)
        return slug, draw(st.lists(edit, min_size=1, max_size=6))

    product = str(next(cache.records("products", limit=1))["id"])
    customer = str(next(cache.records("customers", limit=1))["id"])

    @fuzz_settings(strength)
    @given(edits(), st.booleans())
    @example(("products", [FieldEdit(product, "price", "nan")]), False)  # found by this test
    @example(("products", [FieldEdit(product, "msrp", "1e400")]), True)
    @example(("customers", [FieldEdit(customer, "loyaltyScore", math.inf)]), False)
    def check(batch: tuple[str, list[FieldEdit]], create: bool) -> None:
        nonlocal tried
        tried += 1
        slug, changes = batch
        if create:
            _seq, refused = editor.create(slug, {e.field: e.value for e in changes})
        else:
            staged = editor.stage(slug, changes)
            refused = staged.rejected
            for record in staged.records.values():
                assert strictly_json(record), record  # what is queued can be sent
                json.dumps(record, allow_nan=False)
        for rejection in refused:
            assert isinstance(rejection.reason, str) and rejection.reason.strip(), rejection

    check()
    tally.add("fuzz", fuzz_cases_tried=tried)


# ---------------------------------------------------------------------------- API answers

record_like = st.dictionaries(
    st.one_of(
        st.sampled_from(["id", "customerID", "city", "modifiedDate", "priceZone"]), cell_text
    ),
    json_values,
    max_size=6,
)
envelopes = st.fixed_dictionaries(
    {"items": st.one_of(st.lists(record_like, max_size=5), json_values)},
    optional={
        "page": json_values,
        "totalPages": json_values,
        "hasMore": json_values,
        "total": json_values,
        "next": json_values,
    },
)
bodies = st.one_of(
    json_values,
    st.lists(record_like, max_size=5),
    envelopes,
    st.lists(envelopes, min_size=1, max_size=2),
    record_like,
)


def answer(draw_status: int, body: Any, raw: bytes | None, kind: str) -> httpx.Response:
    if raw is not None:
        return httpx.Response(draw_status, content=raw, headers={"content-type": kind})
    return httpx.Response(draw_status, json=body)


answers = st.builds(
    answer,
    st.sampled_from([200, 200, 200, 200, 201, 204, 400, 404, 409, 422, 500, 503, 418]),
    bodies,
    st.one_of(st.none(), st.none(), st.binary(max_size=80)),
    st.sampled_from(["application/json", "text/html", "text/plain", ""]),
)


def test_whatever_the_server_answers_the_client_and_the_cache_keep_their_footing(
    tmp_path: Path, strength: Level, tally: Tally
) -> None:
    registry = default_registry()
    tried = 0
    with Cache(tmp_path / "cache.sqlite", registry) as cache, asyncio.Runner() as runner:

        @fuzz_settings(strength)
        @given(st.lists(answers, min_size=1, max_size=5), st.sampled_from(["list", "get", "sync"]))
        def check(responses: list[httpx.Response], call: str) -> None:
            nonlocal tried
            tried += 1
            queue = iter(responses)
            client, _api, _time, _states = make_client(lambda _req: next(queue, EMPTY))
            try:
                runner.run(exercise(client, cache, call))
            except ShowDeskError as refused:
                assert refused.message.strip(), refused

        check()
    tally.add("fuzz", fuzz_cases_tried=tried)


EMPTY = httpx.Response(200, json=[])


async def exercise(client: Any, cache: Cache, call: str) -> None:
    async with client:
        if call == "list":
            for record in await client.list_all("customers"):
                assert isinstance(record, dict)
        elif call == "get":
            assert isinstance(await client.get("customers", "c1"), dict)
        else:
            await Puller(client, cache).sync(["customers"], full=True)
