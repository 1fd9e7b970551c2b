"""What the show's V2 offers (issue 31, point 1): its bulk upserts of customers and vendors.

`probe_v2` asks each bulk upsert with an empty array: an upsert of no records changes nothing
by definition, and a show that offers the operation answers its per-element result (two empty
lists); a 404 says the operation is not offered, no answer at all that V2 is unreachable. It is
what `showdesk check` and the profile dialog's Test connection say; nothing is written.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from app.api.errors import NotFound, ShowDeskError, TransportError

if TYPE_CHECKING:
    from app.api.client import ShowClient

# The bulk upserts V2 documents: what is upserted, and its path under the V2 base URL.
BULK_UPSERTS = (("customers", "/customers/bulk"), ("vendors", "/vendors/bulk"))
State = Literal["offered", "not-offered", "unreachable", "problem"]


@dataclass(frozen=True)
class V2Offer:
    """What a show's V2 base URL was found to offer."""

    base_url: str
    state: State
    offered: tuple[str, ...] = ()  # "customers", "vendors": the bulk upserts that answered
    problem: str = ""  # why a path did not answer as an upsert does, in plain words

    def line(self) -> str:
        if self.state == "unreachable":
            return f"V2 bulk upserts: unreachable at {self.base_url} ({self.problem})"
        if not self.offered:
            why = f" ({self.problem})" if self.problem else ""
            return f"V2 bulk upserts: not offered at {self.base_url}{why}"
        line = f"V2 bulk upserts: {', '.join(self.offered)}"
        return line + (f" (not: {self.problem})" if self.problem else "")

    def json(self) -> dict[str, Any]:
        return {"base_url": self.base_url, "state": self.state, "offered": list(self.offered),
                "problem": self.problem or None, "line": self.line()}  # fmt: skip


async def probe_v2(client: ShowClient) -> V2Offer | None:
    """Ask each bulk upsert of the profile's V2 base URL with an empty array (changes nothing);
    None when the profile names no V2 base URL (nothing is asked)."""
    base = client.connection.v2_base_url
    if not base:
        return None
    offered: list[str] = []
    problems: list[str] = []
    for name, path in BULK_UPSERTS:
        try:
            answer = await client.post_v2(path, [], interactive=True)
        except TransportError as exc:
            return V2Offer(base, "unreachable", problem=exc.message)
        except NotFound:
            continue
        except ShowDeskError as exc:
            problems.append(f"{name}: {exc.message}")
            continue
        if _is_bulk_answer(answer):
            offered.append(name)
        else:
            problems.append(f"{name}: the answer is not a bulk upsert's result")
    state: State = "offered" if offered else ("problem" if problems else "not-offered")
    return V2Offer(base, state, tuple(offered), "; ".join(problems))


def _is_bulk_answer(answer: object) -> bool:
    """An upsert's per-element result: `successful` and `failed` lists (both empty for [])."""
    return (
        isinstance(answer, dict)
        and isinstance(answer.get("successful"), list)
        and isinstance(answer.get("failed"), list)
    )
