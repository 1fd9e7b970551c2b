"""`showdesk check`: how the show answers each list, and a suggested overrides file if needed.

Exit 0 when every list answered, 1 when some did not (the suggestion says what to do), 2 when the
show cannot be reached or refuses the sign-in (through `runner.run`).
"""

from __future__ import annotations

import argparse
import asyncio
from datetime import UTC, datetime

from app.api.client import ShowClient
from app.api.page_sizes import pages_json, pages_lines
from app.api.suggestion import suggested_path, suggestion
from app.api.survey import ListAnswer, survey
from app.api.v2 import V2Offer, probe_v2, prove_ordering_groups, prove_vendor_fields
from app.commands.workspace import OK, SOME_FAILED, Workspace
from app.profile.settings import write_atomically


def cmd_check(args: argparse.Namespace, ws: Workspace) -> int:
    async def work() -> tuple[list[ListAnswer], V2Offer | None]:
        client: ShowClient
        async with ws.client() as client:
            await client.auth.token()  # a refused sign-in stops here (exit 2)
            found = await survey(client, ws.registry), await probe_v2(client)
            if args.v2 and found[1] is not None and found[1].offered:
                ws.out.line(await prove_ordering_groups(client))  # point 4: a round trip
                if "vendors" in found[1].offered:
                    ws.out.line(await prove_vendor_fields(client))
            return found

    answers, v2 = asyncio.run(work())
    asked = [a for a in answers if a.answered is not None]
    answered = sum(1 for a in asked if a.answered)
    profile = ws.profile
    ws.out.line(
        f"Show {profile.show_id} at {profile.base_url}: {answered} of {len(asked)} lists answered."
    )
    ws.out.set(show_id=profile.show_id, base_url=profile.base_url, answered=answered,
               asked=len(asked), suggestion=None)  # fmt: skip
    for answer in answers:
        ws.out.line(f"  {answer.line()}")
        ws.out.add("lists", {
            "resource": answer.slug, "path": answer.path, "answered": answer.answered,
            "not_offered": answer.not_offered, "how": answer.how, "found": answer.found,
            "problem": answer.problem, "line": answer.line(),
        })  # fmt: skip
    sizes, listed = ws.page_sizes(), [r for r in ws.registry if r.can("list")]
    ws.out.set(pages=pages_json(sizes, listed))  # issue 31, point 5: the page size in force
    for line in pages_lines(sizes, listed):
        ws.out.line(line)
    if v2 is not None:  # issue 31, point 1: only when the profile names a V2 base URL
        ws.out.set(v2=v2.json())
        ws.out.line(v2.line())
    now = datetime.now(UTC)
    text = suggestion(ws.registry, answers, show_id=profile.show_id, now=now)
    if text is None:
        return OK
    path = suggested_path(profile.overrides_path)
    write_atomically(path, text)
    ws.out.set(suggestion=str(path))
    ws.out.line(f"Suggested overrides written to {path}")
    ws.out.line(
        f"To apply them, rename it to {profile.overrides_path.name} in that folder, then sync."
    )
    return SOME_FAILED
