"""A field's value as a show administrator reads it in a list of changes: the outbox, the review
before a push, the history of pushes. Plain Python, no Qt.

`ValueWords.text(resource, field, value)`: nothing reads "—", an empty text '""', a yes/no field
"yes" or "no", an enumeration its words ("EmailAndSms" → "Email and sms"), a reference the
record it names by name and code ("North DC (W1)", the code alone when the cache cannot name
it), a nested object or a list of them their labels ("Summer, Winter"), never raw JSON. Without
a registry it knows no references or enumerations and reads the rest the same way.
"""

from __future__ import annotations

from typing import Any

from app.api.registry import Registry
from app.store.shown_text import enumerations
from app.wording.references import ReferenceNames, readable
from app.wording.words import name_and_code, words_of

EMPTY = "—"


class ValueWords:
    """Values in words, for the resources of `registry`, references named through `names`."""

    def __init__(self, registry: Registry | None = None, names: ReferenceNames | None = None):
        self.registry, self.names = registry, names
        self._enumerations: dict[str, dict[str, tuple[str, ...]]] = {}

    def text(self, resource: str, field: str, value: Any) -> str:
        """`value` of `field` of a `resource` record, in words."""
        if value is None:
            return EMPTY
        if value == "" and isinstance(value, str):
            return '""'
        res = None if self.registry is None else self.registry.resources.get(resource)
        if res is None:
            return readable(value)
        target = res.references.get(field)
        if target is not None and not isinstance(value, dict):
            keys = value if isinstance(value, list) else [value]
            return ", ".join(self._named(target, key) for key in keys)
        if isinstance(value, str) and value in self._choices(resource).get(field, ()):
            return words_of(value)
        return readable(value)

    def _named(self, target: str, key: Any) -> str:
        label = None if self.names is None else self.names.label(target, key)
        return name_and_code(label, key)

    def _choices(self, resource: str) -> dict[str, tuple[str, ...]]:
        if resource not in self._enumerations and self.registry is not None:
            self._enumerations[resource] = enumerations(self.registry.resources[resource])
        return self._enumerations.get(resource, {})
