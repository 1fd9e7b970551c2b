"""How each row of an import becomes a planned change, without changing anything: matched to a
cached record (by `id`, else by the key field, a file's duplicate keys refused), its non-empty
cells parsed (`a;b;c` lists, JSON objects, names of referenced records when a `NameResolver` is
given), coerced and validated through the resource's model, then a create, an update of the
changed fields only, unchanged, or an error of its row — with the values a spreadsheet damaged
(app/sync/files/import_checks.py); a workbook cell holding a formula but not its value is an
error at that cell, never an empty cell. Cross-row look-ups go through an `ImportIndex` (a temporary
SQLite
file), so a plan's memory does not grow with the file. The entry points are in
app/sync/files/importer.py.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from typing import Any, Union, get_args, get_origin

from app.api.errors import InvalidValue
from app.api.models import ShowRecord, validate_record
from app.api.registry import Resource
from app.store.cache import Cache
from app.sync.edit.overlay import record_id_of
from app.sync.files.import_checks import LEADING_ZEROS, TypeLoss, number_in_text, type_loss
from app.sync.files.import_file import Row, parse_cell
from app.sync.files.import_index import ImportIndex, pairs
from app.sync.files.import_names import NameResolver
from app.sync.files.import_plan import ImportPlan, PlannedChange, RowError, RowOutcome
from app.wording.reasons import in_words
from app.wording.words import title_of

IGNORED_COLUMNS = frozenset({"error", "modifiedDate"})  # the errors file's, the server's


class RowPlanner:
    """Each row of a file planned against the cache: matched to its record, its cells parsed
    and validated, its change worked out."""

    def __init__(
        self,
        cache: Cache,
        plan: ImportPlan,
        model: type[ShowRecord],
        names: NameResolver | None = None,
        index: ImportIndex | None = None,
    ) -> None:
        self.cache, self.plan, self.model, self.names = cache, plan, model, names
        self.index = index or ImportIndex()
        self.slug, self.key = plan.resource.slug, plan.key
        known = set(model.model_fields) | set(cache.fields(self.slug)) | IGNORED_COLUMNS
        plan.unknown_columns = [c for c in plan.columns if c not in known]
        self._warnings: list[TypeLoss] = []  # the row's, as it is planned

    def run(self, rows: Callable[[], Iterable[Row]], take: Callable[[RowOutcome], None]) -> None:
        """Each row's outcome to `take`, in order (`rows()`: a fresh pass over the rows)."""
        duplicates = self.index.duplicates(self._keys(rows()))
        for row in rows():
            self._warnings = []
            try:
                outcome = RowOutcome(row, self._plan_row(row, duplicates))
            except InvalidValue as exc:
                error = self._error(row, exc)
                outcome = RowOutcome(row, error=error)
            if self._warnings:
                outcome = replace(outcome, warnings=tuple(self._warnings))
            take(outcome)

    def _error(self, row: Row, problem: InvalidValue) -> RowError:
        """The row's error in words: the field by its title (a column that is no field as the
        file heads it), the reason plainly."""
        field = problem.field or None
        name = (field or "").split(".")[0]
        title = name if name in self.plan.unknown_columns else title_of(name) if field else None
        return RowError(row.number, field, in_words(problem), row.cells, row.sheet, title)

    def _match_field(self, cells: dict[str, str]) -> str:
        return "id" if cells.get("id") else self.key

    def _keys(self, rows: Iterable[Row]) -> Iterator[tuple[str, str, int]]:
        for row in rows:
            name = self._match_field(row.cells)
            if row.cells.get(name):
                yield name, row.cells[name], row.number

    def _plan_row(
        self, row: Row, duplicates: dict[tuple[str, str], list[int]]
    ) -> PlannedChange | None:
        for column, formula in row.formulas:
            if column not in IGNORED_COLUMNS:
                raise InvalidValue(column, uncached_formula(formula))
        cells = row.cells
        name = self._match_field(cells)
        seen = duplicates.get((name, cells.get(name, "")))
        if seen:
            rows = ", ".join(map(str, seen))
            raise InvalidValue(
                name, f"duplicate {title_of(name)} '{cells[name]}' in the file (rows {rows})"
            )
        for column in self.plan.unknown_columns:
            if cells.get(column):
                raise InvalidValue(column, f"unknown column: not a field of {self.model.__name__}")
        base = self._match(cells, name)
        values = self._values(cells, base)
        if base is None:
            return self._plan_create(row, values)
        return self._plan_update(row, values, base)

    def _match(self, cells: dict[str, str], name: str) -> dict[str, Any] | None:
        """The cached record the row updates; None for a new record."""
        value = cells.get(name, "")
        if name == "id":
            found = self.cache.get(self.slug, value)
            if found is None:
                raise InvalidValue("id", f"no {self.plan.resource.title} with id '{value}'")
            return found
        if not value:
            raise InvalidValue(self.key, f"the row has neither an ID nor a {title_of(self.key)}")
        matches = self._by_key(value)
        if len(matches) > 1:
            raise InvalidValue(
                self.key,
                f"{len(matches)} records have {title_of(self.key)} '{value}': add the id column",
            )
        return matches[0] if matches else None

    def _by_key(self, value: str) -> list[dict[str, Any]]:
        if self.key == self.plan.resource.key:
            return self.cache.find_by_key(self.slug, value)

        def by_field() -> Iterator[tuple[str, str]]:
            records = self.cache.records(self.slug)
            return pairs(records, lambda r: str(r.get(self.key)), self.plan.resource.key)

        ids = self.index.lookup("by_field", by_field, value)
        return [r for i in ids if (r := self.cache.get(self.slug, i)) is not None]

    def _values(self, cells: dict[str, str], base: dict[str, Any] | None) -> dict[str, Any]:
        """The row's non-empty cells as field values (lists and objects parsed)."""
        values: dict[str, Any] = {}
        references = self.plan.resource.references
        for column, text in cells.items():
            if text == "" or column in IGNORED_COLUMNS or column == "id":
                continue
            value = parse_cell(self.model, column, text, base)
            if self.names is not None and column in references:
                value = self.names.resolve(column, references[column], value)
            values[column] = value
        return values

    def _plan_create(self, row: Row, values: dict[str, Any]) -> PlannedChange:
        self._check_key(row)
        op = _operation(self.plan.resource, "create", "bulk-create")
        dumped = validate_record(self.model, values).model_dump(mode="json")
        payload = {name: dumped.get(name, values[name]) for name in values}
        changes = {name: (None, value) for name, value in payload.items()}
        key_value = _text(payload.get(self.key))
        where = f"{self.key}={key_value} (new)"
        for name in row.numbers & payload.keys():
            self._loss(row, where, name, "" if self._holds_text(name, None) else None)
        return PlannedChange(row.number, op, None, key_value, changes, payload, None, row.sheet)

    def _plan_update(
        self, row: Row, values: dict[str, Any], base: dict[str, Any]
    ) -> PlannedChange | None:
        new = validate_record(self.model, {**base, **values}).model_dump(mode="json")
        old = _normalised(self.model, base)
        changed = {n: (base.get(n), new.get(n)) for n in values if new.get(n) != old.get(n)}
        if not changed:
            return None
        op = _operation(self.plan.resource, "update", "bulk-update")
        payload = {**base, **{n: after for n, (_, after) in changed.items()}}
        record_id = record_id_of(base, self.plan.resource.key)  # as the cache files it
        key_value = _text(base.get(self.key))
        for name, (before, _) in changed.items():
            self._loss(row, f"{self.key}={key_value}", name, before)
        return PlannedChange(
            row.number, op, record_id, key_value, changed, payload, base, row.sheet
        )

    def _loss(self, row: Row, where: str, name: str, before: Any) -> None:
        """Warn when the file's `name` looks damaged by a spreadsheet (`before`: the cached
        value, "" for a text field of a new record)."""
        read = row.cells.get(name, "")
        why = type_loss(before, read)
        if why is None and name in row.numbers:
            why = number_in_text("" if self._holds_text(name, before) else before, read)
        if why is not None:
            was = "" if before is None else str(before)
            self._warnings.append(TypeLoss(row.number, where, name, was, read, why, row.sheet))

    def _holds_text(self, name: str, before: Any) -> bool:
        """Whether the show holds `name` as text: its cached value, else the model's type."""
        if before is not None and before != "":
            return isinstance(before, str)
        declared = self.model.model_fields.get(name)
        return declared is not None and _text_type(declared.annotation)

    def _check_key(self, row: Row) -> None:
        """A new row whose key is a cached key without its leading zeros is most likely that
        record, damaged by a spreadsheet: a warning before it becomes a second record."""
        read = row.cells.get(self.key, "")
        if not read.isdigit():
            return

        def zero_keys() -> Iterator[tuple[str, str]]:
            for rec in self.cache.records(self.slug):
                key = str(rec.get(self.key) or "")
                if key.isdigit() and key.startswith("0"):
                    yield key.lstrip("0"), key

        for cached in self.index.lookup("zero_keys", zero_keys, read.lstrip("0"))[:1]:
            if cached != read:
                where = f"{self.key}={read} (new)"
                loss = TypeLoss(row.number, where, self.key, cached, read, LEADING_ZEROS, row.sheet)
                self._warnings.append(loss)


def uncached_formula(formula: str) -> str:
    """Why a cell holding a formula but not its value is refused (never read as empty)."""
    return (
        f"the formula {formula} without its value: the file does not hold it (open the file "
        "in a spreadsheet program and save it, then import it again)"
    )


def _operation(resource: Resource, single: str, bulk: str) -> str:
    if resource.can(single):
        return single
    if resource.can(bulk):
        return bulk
    raise InvalidValue("id", f"{resource.title} cannot be {single}d through the API")


def _text_type(annotation: Any) -> bool:
    """`str` or `str | None`."""
    return annotation is str or (
        get_origin(annotation) in (Union, types.UnionType)
        and [a for a in get_args(annotation) if a is not type(None)] == [str]
    )


def _normalised(model: type[ShowRecord], record: dict[str, Any]) -> dict[str, Any]:
    """The cached record as the model writes it (raw if the cache holds an invalid record)."""
    try:
        return validate_record(model, record).model_dump(mode="json")
    except InvalidValue:
        return record


def _text(value: Any) -> str | None:
    return None if value is None or value == "" else str(value)
