"""Human words (app/wording/words.py): field titles with the API's acronyms kept, counts that
agree.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from app.api.registry import default_registry
from app.cli import _gui_parser
from app.commands.parser import headless_parser
from app.wording.references import title_of as ui_title_of
from app.wording.words import (
    count,
    count_of,
    cut_at_word,
    name_and_code,
    name_title,
    plural,
    rows_count,
    title_of,
)


@pytest.mark.parametrize(
    ("field", "title"),
    [
        ("priceZone", "Price zone"),
        ("vendorIDs", "Vendor IDs"),
        ("poNumber", "PO number"),
        ("customerID", "Customer ID"),
        ("id", "ID"),
        ("upc", "UPC"),
        ("productUPC", "Product UPC"),
        ("orderHistoryIDs", "Order history IDs"),
        ("UPCCode", "UPC code"),
        ("price_zone", "Price zone"),
        ("primarySalesRep", "Primary sales rep"),
        ("vipUserID", "VIP user ID"),
    ],
)
def test_field_titles_read_as_words_with_acronyms_upper_case(field: str, title: str) -> None:
    assert title_of(field) == title
    assert ui_title_of(field) == title  # the window's titles are the same words


@pytest.mark.parametrize(
    ("field", "title"),
    [
        ("warehouseID", "Warehouse"),
        ("productID", "Product"),
        ("customerClassID", "Customer class"),
        ("productid", "Product"),
        ("salesReps", "Sales reps"),
        ("brand", "Brand"),
        ("id", "ID"),
    ],
)
def test_a_column_of_names_is_titled_without_its_id(field: str, title: str) -> None:
    assert name_title(field) == title  # issue 30, item 6: "Product ID" held names


def test_a_message_too_long_is_cut_after_a_whole_word() -> None:
    said = "Not pushed: 1 change stays pending, nothing lost"

    def room(n: int) -> Callable[[str], bool]:
        return lambda text: len(text) <= n

    assert cut_at_word(said, room(100)) == said
    assert cut_at_word(said, room(33)) == "Not pushed: 1 change stays…"  # never "… stays penc"
    assert cut_at_word(said, room(13)) == "Not pushed…"  # no colon before the "…"
    assert cut_at_word("Unreachable", room(6)) == "Unrea…"  # one word too long: cut inside it
    assert cut_at_word("Unreachable", room(0)) == "…"


def test_counts_agree_with_their_number() -> None:
    assert count(1, "change") == "1 change"
    assert count(0, "change") == "0 changes"
    assert count(2_000, "row") == "2,000 rows"
    assert count(3, "category") == "3 categories"
    assert count(2, "entry") == "2 entries"
    assert count(2, "box") == "2 boxes"
    assert count(2, "day") == "2 days"
    assert count(2, "person", "people") == "2 people"
    assert plural("new record") == "new records"


def test_showdesk_help_lists_every_slug_next_to_its_title() -> None:
    text = _gui_parser().format_help()
    for resource in default_registry():
        line = next(ln for ln in text.splitlines() if ln.split()[:1] == [resource.slug])
        assert line.split(None, 1)[1] == resource.title
    assert "vip-users" in text and "VIP users" in text


def test_the_commands_taking_a_slug_list_them_in_their_help() -> None:
    parser = headless_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name in ("sync", "push", "export", "import"):
        helped = sub.choices[name].format_help()  # type: ignore[index]
        assert "customers" in helped and "Product pricing" in helped


def test_a_tables_rows_are_all_its_rows_or_said_to_be_counted() -> None:
    assert rows_count(1, 1) == "1 row"
    assert rows_count(100_000, 100) == "100,000 rows"
    assert rows_count(None, 100) == "100 rows so far, counting…"


@pytest.mark.parametrize(
    ("title", "one", "two"),
    [
        ("Products", "1 product", "2 products"),
        ("Categories", "1 category", "2 categories"),
        ("Sales reps", "1 sales rep", "2 sales reps"),
        ("Delivery dates", "1 delivery date", "2 delivery dates"),
        ("Sales rep hierarchy", "1 sales rep hierarchy", "2 sales rep hierarchies"),
    ],
)
def test_records_are_counted_by_their_resources_title(title: str, one: str, two: str) -> None:
    assert count_of(1, title) == one and count_of(2, title) == two


def test_a_record_reads_by_its_name_and_code() -> None:
    """Issue 30: "Ann's Hardware (C10128)", never the internal id beside the code."""
    assert name_and_code("Ann's Hardware", "C10128") == "Ann's Hardware (C10128)"
    assert name_and_code(None, "C10128") == "C10128"
    assert name_and_code("Ann's Hardware", "") == "Ann's Hardware"
    assert name_and_code("WH01", "WH01") == "WH01"  # a resource named by its code
    assert name_and_code(" ", None) == ""
