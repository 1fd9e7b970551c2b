"""Importing a file whose headers are not field names, and whose references hold names.

`guess_mapping` maps a file's headers to a resource's fields loosely — case, spaces, underscores
and dashes aside ("Customer name", "PRICE_ZONE"), a reference also by its target's name
("Warehouse" → `warehouseID`) — after the mapping the user saved for those headers.
`NameResolver` turns reference cells into keys: a key stays, a name is looked up by the target's
label field; a name matching no record, or several, is an error at the field (InvalidValue),
never a guess. `mapped_rows` renames a file's columns to the fields they go to, row by row as
they are read. Used by app/sync/files/importer.py `plan_table` and `stream_import`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from app.api.errors import InvalidValue
from app.store.cache import Cache

if TYPE_CHECKING:  # the window's table imports this before its first paint: not the file reader
    from app.sync.files.import_file import Row, Table


def _folded(name: str) -> str:
    """A header or field name compared loosely: "Customer name" == "customer_name"."""
    return "".join(ch for ch in name.casefold() if ch.isalnum())


def guess_mapping(
    columns: Sequence[str],
    fields: Sequence[str],
    saved: Mapping[str, str | None] | None = None,
    references: Collection[str] = (),
) -> dict[str, str | None]:
    """Column → field: the mapping saved for a header first, else the field of the same name
    (case, spaces, underscores and dashes aside), else a reference named without its "ID"
    ("Warehouse" → `warehouseID`); None where nothing fits. No field is taken twice."""
    by_name = {_folded(f): f for f in fields}
    by_target = {_folded(f)[: -len("id")]: f for f in references if _folded(f).endswith("id")}
    out: dict[str, str | None] = {}
    taken: set[str] = set()
    for column in columns:
        if saved is not None and column in saved and saved[column] in (*fields, None):
            field_ = saved[column]
        else:
            folded = _folded(column)
            field_ = by_name.get(folded) or by_target.get(folded)
        if field_ is not None and field_ in taken:
            field_ = None
        out[column] = field_
        if field_ is not None:
            taken.add(field_)
    return out


class NameResolver:
    """Reference cells given as names: each turned into the key of the one record it names.

    A cell holding a key of the target (`W1`) stays; otherwise it is looked up by the target's
    label field (`description` "North depot"), case aside. No match, or several, is an error
    (InvalidValue at the field). A target with nothing cached passes cells through unchecked:
    there is nothing to look names up in (the server decides).
    """

    def __init__(self, cache: Cache) -> None:
        self.cache = cache
        self._keys: dict[str, set[str]] = {}
        self._labels: dict[str, dict[str, list[str]]] = {}

    def resolve(self, field_: str, target: str, value: Any) -> Any:
        if isinstance(value, list):
            return [self.key_for(field_, target, str(v)) for v in value]
        return value if value in (None, "") else self.key_for(field_, target, str(value))

    def key_for(self, field_: str, target: str, text: str) -> str:
        keys, labels = self._index(target)
        if text in keys or not keys:
            return text
        found = labels.get(text.strip().casefold(), [])
        if len(found) == 1:
            return found[0]
        res = self.cache.registry[target]
        if found:
            shown = ", ".join(found[:5]) + (" …" if len(found) > 5 else "")
            raise InvalidValue(
                field_, f"'{text}' is ambiguous: {len(found)} {res.title.lower()} ({shown})", text
            )
        raise InvalidValue(field_, f"no {res.title.lower()} named or keyed '{text}'", text)

    def _index(self, target: str) -> tuple[set[str], dict[str, list[str]]]:
        if target not in self._keys:
            res = self.cache.registry[target]
            keys: set[str] = set()
            labels: dict[str, list[str]] = {}
            for record in self.cache.records(target):
                key = record.get(res.key)
                if key in (None, ""):
                    continue
                keys.add(str(key))
                label = record.get(res.label)
                if label not in (None, ""):
                    labels.setdefault(str(label).strip().casefold(), []).append(str(key))
            self._keys[target], self._labels[target] = keys, labels
        return self._keys[target], self._labels[target]


def mapped(table: Table, mapping: Mapping[str, str | None]) -> Table:
    """The table with its columns renamed to fields (ignored columns left out)."""
    from app.sync.files.import_file import Table

    columns, rows = mapped_rows(table.columns, lambda: iter(table.rows), mapping)
    return Table(columns, list(rows()))


def mapped_rows(
    columns: Sequence[str], rows: Callable[[], Iterator[Row]], mapping: Mapping[str, str | None]
) -> tuple[list[str], Callable[[], Iterator[Row]]]:
    """The fields the columns go to, and the rows with their cells under those fields (read as
    they are asked)."""
    names = {c: mapping.get(c, c) for c in columns}
    fields = [f for f in names.values() if f]
    repeated = sorted({f for f in fields if fields.count(f) > 1})
    if repeated:
        raise InvalidValue("mapping", f"more than one column goes to {', '.join(repeated)}")

    from app.sync.files.import_file import Row

    def renamed() -> Iterator[Row]:
        for r in rows():
            cells = {f: r.cells.get(c, "") for c, f in names.items() if f}
            numbers = frozenset(f for c in r.numbers if (f := names.get(c)))
            formulas = tuple((f, text) for c, text in r.formulas if (f := names.get(c)))
            yield Row(r.number, cells, r.sheet, numbers, formulas)

    return fields, renamed
