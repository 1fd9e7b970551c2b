"""Human words for what the API names: field titles and counts, for the window and the CLI alike.

The API speaks `priceZone`, `vendorIDs`, `poNumber`; a show administrator reads "Price zone",
"Vendor IDs", "PO number". Counts read "1 change", "2 changes", never "2 change(s)"; a record
reads by its name and code, "Ann's Hardware (C10128)". Qt-free, so `showdesk` prints the same
words the window shows.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

# Abbreviations the API (and the trade) writes in capitals: kept upper-case in a title.
ACRONYMS = frozenset(
    {
        "id",
        "po",
        "upc",
        "ean",
        "sku",
        "gst",
        "vat",
        "abn",
        "url",
        "api",
        "vip",
        "uom",
        "csv",
        "gtin",
    }
)
_WORD_BREAK = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z]{2,})|_+")
# Plurals that do not just add an "s".
_IRREGULAR = {
    "entry": "entries",
    "category": "categories",
    "delivery": "deliveries",
    "history": "histories",
    "match": "matches",
    "box": "boxes",
    "person": "people",
}


def _word(word: str, first: bool) -> str:
    lower = word.lower()
    if lower in ACRONYMS:
        return lower.upper()
    if lower.endswith("s") and lower[:-1] in ACRONYMS:  # "IDs", "POs", "UPCs"
        return lower[:-1].upper() + "s"
    if word.isupper() and len(word) > 1:
        return word  # an acronym we do not know yet: as the API wrote it
    return lower.capitalize() if first else lower


def title_of(field: str) -> str:
    """`customerName` → "Customer name", `vendorIDs` → "Vendor IDs", `poNumber` → "PO number"."""
    words = [w for w in _WORD_BREAK.split(field) if w]
    if not words:
        return field
    return " ".join(_word(w, i == 0) for i, w in enumerate(words))


def name_title(field: str) -> str:
    """The title of a reference column whose cells show the referenced record's name: titled for
    what it shows, its trailing " ID" dropped ("warehouseID" → "Warehouse", "parentID" →
    "Parent"; run together, "productid" → "Product"). The code stays in the cell's tooltip."""
    title = title_of(field)
    for suffix in (" ID", " Id"):
        if title.endswith(suffix) and len(title) > len(suffix):
            return title[: -len(suffix)]
    if field.endswith("id") and field[:-2].isalpha():  # "customerid": no word break to find
        return title_of(field[:-2])
    return title


ELLIPSIS = "…"
_WORD_END = re.compile(r"\s+")
_TRAILING = " ,;:—–-"  # what a cut never ends on before its "…"


def cut_at_word(text: str, fits: Callable[[str], bool]) -> str:
    """`text` whole if it `fits`, else cut after its last whole word that fits with "…"
    ("… 1 change stays…", never "… 1 change stays penc"). Only a first word too long for the
    room is cut inside it; "…" alone when not even a letter fits."""
    if fits(text):
        return text
    shown = ""
    for end in _WORD_END.finditer(text):
        cut = text[: end.start()].rstrip(_TRAILING) + ELLIPSIS
        if not fits(cut):
            break
        shown = cut
    if shown:
        return shown
    letters = [text[:n] + ELLIPSIS for n in range(len(text) - 1, 0, -1)]
    return next((cut for cut in letters if fits(cut)), ELLIPSIS)


def words_of(value: str) -> str:
    """An enumeration's value as words: "EmailAndSms" → "Email and sms", "InPerson" → "In
    person"."""
    return title_of(value)


def plural(word: str) -> str:
    """The plural of an English noun as the window uses them ("change" → "changes")."""
    lower = word.lower()
    for singular, many in _IRREGULAR.items():
        if lower.endswith(singular):
            return word[: len(word) - len(singular)] + many
    if lower.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    if lower.endswith("y") and lower[-2:-1] not in ("a", "e", "i", "o", "u"):
        return word[:-1] + "ies"
    return word + "s"


def singular(word: str) -> str:
    """The singular of a plural noun as the window uses them ("products" → "product",
    "categories" → "category"); a word that is no plural is kept."""
    lower = word.lower()
    for one, many in _IRREGULAR.items():
        if lower.endswith(many):
            return word[: len(word) - len(many)] + one
    for ending in ("ches", "shes", "sses", "xes"):
        if lower.endswith(ending):
            return word[:-2]
    if lower.endswith("ies"):
        return word[:-3] + "y"
    if lower.endswith("s") and not lower.endswith("ss"):
        return word[:-1]
    return word


def count_of(n: int, title: str) -> str:
    """A count of a resource's records by its title: `count_of(1, "Products")` → "1 product",
    `count_of(3, "Sales reps")` → "3 sales reps"."""
    one = singular(title.lower())
    return count(n, one, plural(one))


def count(n: int, word: str, many: str | None = None) -> str:
    """`count(1, "change")` → "1 change", `count(2_000, "row")` → "2,000 rows"."""
    return f"{n:,} {word if n == 1 else (many or plural(word))}"


def listed(items: Sequence[str]) -> str:
    """ "Customers", "Customers and Orders", "Customers, Booths and Orders"."""
    if len(items) < 2:
        return "".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


def rows_count(total: int | None, so_far: int) -> str:
    """A table's rows: "1,234 rows", every row its query picks (`total`), never the rows read
    so far; while those are still being counted (None), "100 rows so far, counting…"."""
    if total is None:
        return f"{count(so_far, 'row')} so far, counting…"
    return count(total, "row")


def name_and_code(name: object, code: object) -> str:
    """A record as a show administrator knows it: "Ann's Hardware (C10128)" — its name and its
    code (the business key); the one there is when the other is missing or the same; "" when
    neither is known. Internal ids are never part of it (they go in tooltips)."""
    named = "" if name is None else str(name).strip()
    coded = "" if code is None else str(code).strip()
    if named and coded and named != coded:
        return f"{named} ({coded})"
    return named or coded
