"""The show's answer to a change, in words, for the outbox's detail pane; plain Python, no Qt.

A failed change keeps what the show said as `Change.response`: `{"fields": {field: [message]},
"refused": bool}`, and for a bulk request also `"lines": [{"line", "field", "message"}]` and
`"sent_lines"` (app/sync/push/bulk_push.py). `answer_lines` reads it per field by the field's
title ("Customer ID: must not be empty"), a message that repeats the API's name without it, a
type refusal about the value sent in reasons.py's words ("Price zone: 'abc' is not a whole
number"), a body's line by its number ("line 2: …"); any other answer (a record) field by field
through `ValueWords`. Never JSON.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from app.store.changes import Change
from app.wording.reasons import not_a_number, not_a_whole_number, not_yes_or_no
from app.wording.references import readable
from app.wording.values import ValueWords
from app.wording.words import title_of

# What a server says a value should have been ("must be an integer", pydantic's "Input should
# be a valid integer"), and how reasons.py says the sent value is not that.
_KINDS: tuple[tuple[re.Pattern[str], Callable[[object], str], str], ...] = (
    (re.compile(r"\b(must|should) be an? (valid )?integer\b", re.I), not_a_whole_number,
     "a whole number"),
    (re.compile(r"\b(must|should) be an? (valid )?number\b", re.I), not_a_number, "a number"),
    (re.compile(r"\b(must|should) be an? (valid )?boolean\b", re.I), not_yes_or_no, "yes or no"),
)  # fmt: skip
_BOOKKEEPING = frozenset({"fields", "lines", "sent_lines", "refused"})


def field_title(name: str) -> str:
    """A field the show names, by its title: "priceZone" → "Price zone", a nested one's path
    by its parts ("orderingGroups.0.name" → "Ordering groups · 1 · Name")."""
    parts = [p for p in name.split(".") if p]
    return " · ".join(str(int(p) + 1) if p.isdigit() else title_of(p) for p in parts) or name


def message_in_words(change: Change, name: str, message: str) -> str:
    """The show's message about field `name` of `change`, without the API's name it starts with,
    a type refusal said about the value sent."""
    text = str(message).strip()
    for lead in (f"{name}:", f"{name} "):
        if text.startswith(lead) and len(text) > len(lead):
            text = text[len(lead) :].strip()
            break
    top = name.split(".")[0]
    if top in change.payload and name == top:
        value = change.payload[top]
        for kind, reason, wanted in _KINDS:
            if kind.search(text):
                return f"must be {wanted}, not empty" if value in (None, "") else reason(value)
    return text


def answer_lines(change: Change, words: ValueWords | None = None) -> list[str]:
    """The show's answer to `change`, line by line in words ([] when it kept none)."""
    response = change.response
    if response is None or response == {}:
        return []
    if not isinstance(response, Mapping):
        return [readable(response)]
    if not _BOOKKEEPING & response.keys():  # a record: the show's copy of it
        words = words or ValueWords()
        return [f"{title_of(k)}: {words.text(change.resource, k, v)}" for k, v in response.items()]
    return _refusal_lines(change, response)


def _refusal_lines(change: Change, response: Mapping[str, Any]) -> list[str]:
    lines = [
        f"{field_title(str(name))}: {message_in_words(change, str(name), text)}"
        for name, texts in _field_messages(response).items()
        for text in texts
    ]
    numbered = isinstance(change.payload.get("body"), list)
    for line in response.get("lines") or ():
        if isinstance(line, Mapping) and line.get("field") is None and line.get("message"):
            at = f"line {int(line.get('line') or 0) + 1}: " if numbered else ""
            lines.append(f"{at}{line['message']}")
    sent = response.get("sent_lines") or ()
    if numbered and sent:
        taken = ", ".join(str(int(n) + 1) for n in sent)
        lines.append(f"Lines the show already took (not sent again): {taken}")
    return list(dict.fromkeys(lines))


def _field_messages(response: Mapping[str, Any]) -> dict[str, list[str]]:
    fields = response.get("fields")
    if not isinstance(fields, Mapping):
        return {}
    return {
        str(name): [texts] if isinstance(texts, str) else [str(t) for t in texts or ()]
        for name, texts in fields.items()
    }
