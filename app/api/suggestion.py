"""The overrides file `showdesk check` suggests: every operation of a renamed resource, moved.

For a resource whose list answered 404 but answered under another spelling of its path, the
suggestion moves *every* operation sharing that collection path (list, get, create, update,
delete and special ones such as `/SalesRepGroup/{id}/move`): a show that renamed its list renamed
the rest. Where nothing answered, a commented template with the current paths is written for the
administrator to fill in. The file sits beside the profile's `api-overrides.toml`, under another
name, so nothing changes until the administrator renames it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from app.api.paths import renamed_paths
from app.api.registry import Registry, Resource
from app.api.survey import ListAnswer

SUGGESTED_NAME = "api-overrides.suggested.toml"


def suggested_path(overrides: Path) -> Path:
    """Where the suggestion goes: beside the profile's `api-overrides.toml`."""
    return overrides.with_name(SUGGESTED_NAME)


def suggestion(
    registry: Registry, answers: Sequence[ListAnswer], *, show_id: str, now: datetime
) -> str | None:
    """The suggested overrides as TOML text; None when every list answered."""
    missing = [a for a in answers if a.answered is False]
    if not missing:
        return None
    parts = [_header(show_id, now)]
    for answer in missing:
        res = registry[answer.slug]
        if answer.found is not None:
            parts.append(_moved(res, answer))
        else:
            parts.append(_template(res, answer))
    return "\n".join(parts)


def _header(show_id: str, now: datetime) -> str:
    return (
        f"# Suggested by `showdesk check` for show {show_id} on {now:%Y-%m-%d %H:%M} UTC.\n"
        "# To apply it, rename this file to api-overrides.toml (in this same folder) and sync.\n"
        "# If an api-overrides.toml is already here, copy the sections below into it instead.\n"
    )


def _moved(res: Resource, answer: ListAnswer) -> str:
    assert answer.found is not None
    paths = renamed_paths(res, answer.found)
    head = f"# {res.title}: {answer.problem}; {answer.found} answered.\n"
    return head + _operations(res, paths, comment="")


def _template(res: Resource, answer: ListAnswer) -> str:
    tried = f" (tried {', '.join(answer.tried)})" if answer.tried else ""
    head = (
        f"# {res.title}: {answer.problem}{tried}; nothing answered.\n"
        "# If this show offers them under another path, write it below and remove the '# '.\n"
    )
    paths = {name: op.path for name, op in res.operations.items()}
    return head + _operations(res, paths, comment="# ")


def _operations(res: Resource, paths: dict[str, str], *, comment: str) -> str:
    width = max(len(name) for name in paths)
    lines = [f"{comment}[resources.{res.slug}.operations]"]
    for name, op in res.operations.items():
        method = json.dumps(op.method)
        lines.append(
            f"{comment}{name:<{width}} = {{ method = {method}, path = {json.dumps(paths[name])} }}"
        )
    return "\n".join(lines) + "\n"
