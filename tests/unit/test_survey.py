"""`showdesk check`'s words for a list answer, the path spellings it tries, and its suggestion."""

from __future__ import annotations

import tomllib
from datetime import datetime
from typing import Any

import pytest

from app.api.envelopes import unwrap
from app.api.paths import path_variants, renamed_paths
from app.api.registry import default_registry
from app.api.suggestion import suggestion
from app.api.survey import ListAnswer, describe

REGISTRY = default_registry()
NOW = datetime(2026, 11, 23, 15, 0)


def _describe(data: Any) -> str:
    records, envelope = unwrap(data, "test")
    return describe(data, records, envelope)


def test_a_bare_array() -> None:
    assert (
        _describe([{"id": "a"}]) == "a bare array, no paging counters, 1 record on the first page"
    )


def test_an_envelope_names_its_list_key_and_counters() -> None:
    page = {"data": [{"id": "a"}], "totalCount": 57}
    assert _describe(page) == (
        "an envelope with the list under 'data', paging counters: total 57, "
        "57 records in all, 1 record on the first page"
    )


def test_a_wrapped_envelope_and_a_server_ignoring_the_page_size() -> None:
    page = [{"items": [{"id": "a"}, {"id": "b"}], "page": 1, "totalPages": 1, "totalItems": 2}]
    assert _describe(page) == (
        "an array holding an envelope with the list under 'items', paging counters: page 1, "
        "pages 1, total 2, 2 records in all, ignores the page size (2 records for 1 asked)"
    )


@pytest.mark.parametrize(
    ("base", "variants"),
    [
        ("/Customer", ["/customer", "/CUSTOMER", "/Customers", "/customers"]),
        ("/Category", ["/category", "/CATEGORY", "/Categories", "/categories"]),
        ("/Address", ["/address", "/ADDRESS", "/Addresses", "/addresses"]),
    ],
)
def test_the_obvious_spellings(base: str, variants: list[str]) -> None:
    assert path_variants(base) == variants


def test_every_operation_sharing_the_base_moves() -> None:
    assert renamed_paths(REGISTRY["sales-rep-groups"], "/SalesRepGroups") == {
        "list": "/SalesRepGroups",
        "get": "/SalesRepGroups/{id}",
        "create": "/SalesRepGroups",
        "update": "/SalesRepGroups/{id}",
        "delete": "/SalesRepGroups/{id}",
        "define-levels": "/SalesRepGroups/levels",
        "move": "/SalesRepGroups/{id}/move",
        "reorder": "/SalesRepGroups/reorder",
    }
    booth_products = renamed_paths(REGISTRY["booth-products"], "/BoothProducts")
    assert booth_products["remove"] == "/BoothProducts?boothID={boothID}&productID={productID}"


def _missing(slug: str, found: str | None = None) -> ListAnswer:
    path = REGISTRY[slug].op("list").path
    return ListAnswer(
        slug, REGISTRY[slug].title, path, False, found=found, problem=f"GET {path} answered 404"
    )


def test_the_suggestion_is_an_overrides_file_the_registry_accepts() -> None:
    answers = [_missing("sales-rep-groups", "/SalesRepGroups"), _missing("brokers")]
    text = suggestion(REGISTRY, answers, show_id="S1", now=NOW)
    assert text is not None and "rename this file to api-overrides.toml" in text
    data = tomllib.loads(text)
    assert list(data["resources"]) == ["sales-rep-groups"]  # brokers: a commented template
    moved = data["resources"]["sales-rep-groups"]["operations"]
    assert moved["move"] == {"method": "PUT", "path": "/SalesRepGroups/{id}/move"}
    assert len(moved) == len(REGISTRY["sales-rep-groups"].operations)
    assert '# delete = { method = "DELETE", path = "/Broker/{id}" }' in text


def test_no_suggestion_when_every_list_answered() -> None:
    answered = ListAnswer("brokers", "Brokers", "/Broker", True, how="a bare array")
    assert suggestion(REGISTRY, [answered], show_id="S1", now=NOW) is None
