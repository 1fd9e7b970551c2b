"""A resource's base path and its renaming: the part of every path that names the collection.

Every operation of a resource lives under one collection path (`/Customer`, `/Customer/{id}`,
`/SalesRepGroup/{id}/move`, `/BoothProduct?boothID={boothID}`): its first segment. When a show
serves the collection under another name (`/Customers`), every operation sharing that base moves
with it. `showdesk check` proposes such renamings and the simulator plays them, both from here.
"""

from __future__ import annotations

from app.api.registry import Resource


def _first_segment(path: str) -> str:
    return "/" + path.partition("?")[0].lstrip("/").split("/", 1)[0]


def base_path(res: Resource) -> str:
    """The collection path of a resource: its list's first segment (else its first operation's)."""
    op = res.operations["list"] if res.can("list") else next(iter(res.operations.values()))
    return _first_segment(op.path)


def rebased(path: str, old_base: str, new_base: str) -> str:
    """`path` with its first segment `old_base` (compared case-insensitively) replaced."""
    if _first_segment(path).lower() != old_base.lower():
        return path
    return new_base.rstrip("/") + path[len(old_base) :]


def renamed_paths(res: Resource, new_base: str) -> dict[str, str]:
    """Every operation's path once the resource's collection is served under `new_base`."""
    old = base_path(res)
    return {name: rebased(op.path, old, new_base) for name, op in res.operations.items()}


def _plural(word: str) -> str:
    if word.lower().endswith(("s", "x", "ch", "sh")):
        return word + "es"
    if word.lower().endswith("y") and word[-2:-1].lower() not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def path_variants(base: str) -> list[str]:
    """The obvious other spellings of a collection path: its case, its plural, both."""
    word = base.lstrip("/")
    plural = _plural(word)
    spellings = [word.lower(), word.upper(), plural, plural.lower()]
    seen: list[str] = []
    for spelling in spellings:
        if spelling != word and "/" + spelling not in seen:
            seen.append("/" + spelling)
    return seen
