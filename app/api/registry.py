"""The resource registry: every resource and operation of the API, loaded from data.

`resources/api/v1.toml` lists each resource (slug, title, tree group, model, key field, parent)
and each operation (method, path template, body and result kinds), and how lists are paged: a
top-level `[paging]` table for every list, `[resources.SLUG.paging]` for one (app/api/paging.py).
A profile may correct any of it in an `api-overrides.toml` of the same shape; `load_registry`
deep-merges the two.
"""

from __future__ import annotations

import string
import sys
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote

from app.api.errors import RegistryError
from app.api.paging import PagingSpec, parse_paging

# Beside the `app` package in a source tree; in a PyInstaller bundle, in its data folder.
RESOURCES_DIR = (
    Path(getattr(sys, "_MEIPASS", Path(__file__).resolve().parent.parent.parent)) / "resources"
)
DEFAULT_REGISTRY = RESOURCES_DIR / "api" / "v1.toml"

Method = Literal["GET", "POST", "PUT", "DELETE", "PATCH"]
BodyKind = Literal["none", "record", "ids", "items", "history", "array", "object"]
ResultKind = Literal[
    "records", "record", "id-message", "delete", "order-result", "history-result", "any"
]
BODY_KINDS: frozenset[str] = frozenset(BodyKind.__args__)  # type: ignore[attr-defined]
RESULT_KINDS: frozenset[str] = frozenset(ResultKind.__args__)  # type: ignore[attr-defined]
METHODS: frozenset[str] = frozenset(Method.__args__)  # type: ignore[attr-defined]

# What an operation called like this sends and answers unless the registry says otherwise.
_DEFAULT_KINDS: dict[str, tuple[str, str]] = {
    "list": ("none", "records"),
    "get": ("none", "record"),
    "create": ("record", "id-message"),
    "update": ("record", "record"),
    "delete": ("none", "delete"),
}
CRUD = ("list", "get", "create", "update", "delete")


@dataclass(frozen=True)
class Operation:
    """One HTTP operation of a resource: `method path` with `{placeholders}`."""

    name: str
    method: str
    path: str
    body: str = "none"
    result: str = "any"
    doc: bool = False
    batch: int | None = None

    @property
    def placeholders(self) -> tuple[str, ...]:
        """The names the path template needs, in order (`id`, `boothID`...)."""
        return tuple(
            name for _, name, _, _ in string.Formatter().parse(self.path) if name is not None
        )

    def url(self, params: Mapping[str, object]) -> tuple[str, list[tuple[str, str]]]:
        """Fill the template: the path (values URL-quoted) and the query pairs it carries."""
        missing = [p for p in self.placeholders if params.get(p) in (None, "")]
        if missing:
            raise RegistryError(f"{self.method} {self.path} needs {', '.join(missing)}")
        path, _, query = self.path.partition("?")
        filled = path.format_map({k: quote(str(v), safe="") for k, v in params.items()})
        pairs: list[tuple[str, str]] = []
        for part in filter(None, query.split("&")):
            key, _, value = part.partition("=")
            pairs.append((key, value.format_map({k: str(v) for k, v in params.items()})))
        return filled, pairs


@dataclass(frozen=True)
class Resource:
    """One kind of record of the show, e.g. `customers`."""

    slug: str
    title: str
    group: str
    model: str
    key: str
    label: str
    operations: Mapping[str, Operation]
    parent: str | None = None
    parent_param: str | None = None
    parent_field: str | None = None
    references: Mapping[str, str] = field(default_factory=dict)
    paging: PagingSpec = field(default_factory=PagingSpec)
    # Decimal fields written with a fixed number of places (money: `price = 2` reads "14.90").
    places: Mapping[str, int] = field(default_factory=dict)
    # The page size this list's own `[resources.SLUG.paging]` table sets: asked whatever the
    # profile's page size (None: the profile's, app/api/page_sizes.py).
    own_page_size: int | None = None

    def op(self, name: str) -> Operation:
        try:
            return self.operations[name]
        except KeyError:
            raise RegistryError(f"{self.title} has no '{name}' operation") from None

    def can(self, name: str) -> bool:
        return name in self.operations

    @property
    def listed_per_booth(self) -> bool:
        """A booth list (a booth's products, its vendors): listed once per booth record, named by
        `parent_param`, not as one collection."""
        return self.parent_param is not None


@dataclass(frozen=True)
class Registry:
    version: str
    groups: tuple[str, ...]
    resources: Mapping[str, Resource]
    paging: PagingSpec = field(default_factory=PagingSpec)

    def __getitem__(self, slug: str) -> Resource:
        try:
            return self.resources[slug]
        except KeyError:
            raise RegistryError(f"unknown resource '{slug}'") from None

    def __iter__(self) -> Iterator[Resource]:
        return iter(self.resources.values())

    def __contains__(self, slug: object) -> bool:
        return slug in self.resources

    def children(self, slug: str) -> list[Resource]:
        return [r for r in self if r.parent == slug]

    def in_group(self, group: str) -> list[Resource]:
        return [r for r in self if r.group == group]


def _merge(base: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in extra.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def _operation(slug: str, name: str, raw: Mapping[str, Any]) -> Operation:
    body, result = _DEFAULT_KINDS.get(name, ("none", "any"))
    try:
        op = Operation(
            name=name,
            method=str(raw["method"]).upper(),
            path=str(raw["path"]),
            body=str(raw.get("body", body)),
            result=str(raw.get("result", result)),
            doc=bool(raw.get("doc", False)),
            batch=int(raw["batch"]) if "batch" in raw else None,
        )
    except KeyError as exc:
        raise RegistryError(f"{slug}.{name}: missing {exc.args[0]}") from None
    if op.method not in METHODS or op.body not in BODY_KINDS or op.result not in RESULT_KINDS:
        raise RegistryError(f"{slug}.{name}: bad method, body or result kind")
    if not op.path.startswith("/"):
        raise RegistryError(f"{slug}.{name}: path must start with '/'")
    return op


def _resource(slug: str, raw: Mapping[str, Any], paging: PagingSpec) -> Resource:
    try:
        ops = {n: _operation(slug, n, o) for n, o in raw["operations"].items()}
        own = parse_paging(raw.get("paging", {}), f"resource {slug}", paging)
        return Resource(
            slug=slug,
            title=str(raw["title"]),
            group=str(raw["group"]),
            model=str(raw["model"]),
            key=str(raw["key"]),
            label=str(raw.get("label", raw["key"])),
            operations=ops,
            parent=raw.get("parent"),
            parent_param=raw.get("parent_param"),
            parent_field=raw.get("parent_field"),
            references=dict(raw.get("references", {})),
            paging=own,
            places=dict(raw.get("places", {})),
            own_page_size=own.page_size if "page_size" in raw.get("paging", {}) else None,
        )
    except KeyError as exc:
        raise RegistryError(f"resource {slug}: missing {exc.args[0]}") from None


def parse_registry(data: Mapping[str, Any]) -> Registry:
    """Build and check a registry from already-parsed TOML data."""
    paging = parse_paging(data.get("paging", {}), "[paging]")
    resources = {
        slug: _resource(slug, raw, paging) for slug, raw in data.get("resources", {}).items()
    }
    groups = tuple(data.get("groups", ()))
    for res in resources.values():
        if res.group not in groups:
            raise RegistryError(f"{res.slug}: group '{res.group}' is not in the group list")
        if res.parent is not None and res.parent not in resources:
            raise RegistryError(f"{res.slug}: unknown parent '{res.parent}'")
        for fld, target in res.references.items():
            if target not in resources:
                raise RegistryError(f"{res.slug}.{fld}: reference to unknown '{target}'")
        for fld, places in res.places.items():
            if type(places) is not int or not 0 <= places <= 6:
                raise RegistryError(f"{res.slug}.{fld}: places is a whole number from 0 to 6")
    return Registry(
        version=str(data.get("version", "v1")), groups=groups, resources=resources, paging=paging
    )


def load_registry(path: Path = DEFAULT_REGISTRY, overrides: Path | None = None) -> Registry:
    """Load the registry, merging a profile's overrides file when it exists."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    if overrides is not None and overrides.exists():
        try:
            extra = tomllib.loads(overrides.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise RegistryError(f"{overrides}: {exc}") from None
        unknown = set(extra.get("resources", {})) - set(data["resources"])
        if unknown:
            raise RegistryError(f"{overrides}: unknown resources {sorted(unknown)}")
        data = _merge(data, extra)
    return parse_registry(data)


_default: Registry | None = None


def default_registry() -> Registry:
    """The shipped V1 registry, loaded once (it is immutable)."""
    global _default
    if _default is None:
        _default = load_registry()
    return _default
