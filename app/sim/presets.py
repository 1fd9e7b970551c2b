"""Named simulator shapes: each preset sets a few `SimConfig` switches to play one legal reading
of the API (docs/API.md) that a real show may have, so "works on day one" can be tried per shape.

    config_for(["data-envelope", "basic-auth"], show_id="X")   # later presets win, then show_id

A preset is data (a description and the `SimConfig` keyword arguments it sets), so the test suite
runs the same end-to-end flow against every one of them (tests/e2e/test_flow.py) and
`showdesk sim --preset NAME` serves the same shape by hand. The default simulator is `strict`.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any

from app.sim.config import SimConfig


@dataclass(frozen=True)
class Preset:
    """One server shape: what it plays (for `--preset list`) and the switches it sets."""

    description: str
    settings: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "settings", MappingProxyType(dict(self.settings)))


class UnknownPreset(ValueError):
    """A preset name nobody defined, or a preset setting a switch this simulator lacks."""


def _errors(shape: str, body: str) -> Preset:
    return Preset(f"400 bodies are {body}", {"error_shape": shape})


PRESETS: dict[str, Preset] = {
    "strict": Preset("the default: the strictest reading of API.md"),
    "friendly": Preset(
        "lenient: modifiedDate in every answer, nulls and ids in bodies accepted",
        {"strict": False},
    ),
    "basic-auth": Preset(
        "the token endpoint takes client credentials in a Basic header only",
        {"token_auth": "basic"},
    ),
    "no-expiry": Preset(
        "tokens without expires_in nor a refresh token, expiring after 1 s",
        {"expires_in": False, "issue_refresh_tokens": False, "token_lifetime": 1.0},
    ),
    "integer-ids": Preset("record ids are JSON integers", {"integer_ids": True}),
    "offset-dates": Preset(
        "modifiedDate with fractional seconds and a zone offset", {"offset_dates": True}
    ),
    "data-envelope": Preset(
        'lists as {"data", "totalCount"} paged by pageNumber/pageSize, 50 a page',
        {"shape": "data", "page_params": ("pageNumber", "pageSize"), "page_size": 50},
    ),
    "offset-paging": Preset(
        "lists in an envelope paged by offset/limit (0-based), 50 a page",
        {"shape": "envelope", "page_params": ("offset", "limit"), "page_size": 50},
    ),
    "skip-take": Preset(
        "bare-array lists paged by skip/take (0-based), 50 a page",
        {"shape": "array", "page_params": ("skip", "take"), "page_size": 50},
    ),
    "renamed-paths": Preset(
        "customers and warehouses under plural paths; the registry's paths answer 404",
        {"paths": {"customers": "/Customers", "warehouses": "/Warehouses"}},
    ),
    "missing-resources": Preset(
        "no brokers at all: every broker path answers 404",
        {"missing": frozenset({"brokers", "broker-users"})},
    ),
    "deny-writes": Preset(
        'creating, changing or deleting customers answers 403 {"message": "not allowed"}',
        {"deny_writes": frozenset({"customers"})},
    ),
    "errors-message": _errors("message", '{"message"} alone'),
    "errors-field": _errors("field", '{"field", "message"}'),
    "errors-list": _errors("errors", '{"errors": [{"field", "message"}]}'),
    "errors-text": _errors("text", "plain text"),
    "retry-after": Preset("a throttling 403 carries Retry-After", {"retry_after": True}),
    "shared-window": Preset(
        "60 requests per 10 s shared by every client, rejected requests counted too",
        {"count_rejected": True, "rate_limit": 60, "rate_window": 10.0},
    ),
}


def preset_settings(names: Iterable[str]) -> dict[str, Any]:
    """The switches the named presets set together, a later preset winning over an earlier one."""
    settings: dict[str, Any] = {}
    for name in names:
        preset = PRESETS.get(name)
        if preset is None:
            raise UnknownPreset(f"no preset named {name!r} (known: {', '.join(PRESETS)})")
        settings.update(preset.settings)
    return copy.deepcopy(settings)  # each config its own `paths` dict: a preset is never changed


def missing_switches(settings: Mapping[str, Any]) -> list[str]:
    """The switches in `settings` that this simulator's `SimConfig` does not have."""
    known = {f.name for f in fields(SimConfig)}
    return [name for name in settings if name not in known]


def config_for(names: Iterable[str], **overrides: Any) -> SimConfig:
    """A `SimConfig` with the named presets applied (later ones win), then `overrides` (the
    switches given explicitly, e.g. `showdesk sim` flags, win over every preset)."""
    names = list(names)
    settings = preset_settings(names)
    unknown = missing_switches({**settings, **overrides})
    if unknown:
        raise UnknownPreset(
            f"preset {' + '.join(names)} sets the switch {', '.join(unknown)}, "
            "which this simulator does not have"
        )
    return SimConfig(**{**settings, **overrides})


def describe() -> str:
    """One line per preset: its name and what it plays (for `--preset list` and `--help`)."""
    width = max(map(len, PRESETS))
    return "\n".join(f"  {name:{width}}  {p.description}" for name, p in PRESETS.items())
