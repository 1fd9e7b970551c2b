"""The rate meter in the window (issue 14, point 3): one number everywhere (status bar and the
outbox's footer agree), the profile's requests from every process on this machine, decaying
while idle; and a request held back by pacing says how long it waits."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import replace

import pytest
import qasync

from app.profile.connect import connection_for
from app.sim import SimServer, generate_show
from app.store.request_history import shared_budget
from tests.gui.conftest import SECRET, Opener, config, profile_for, until, wait_synced
from tests.gui.session.test_push_said import edit_cities


@pytest.fixture
def server() -> Iterator[SimServer]:
    with SimServer(generate_show("tiny", seed=7), config(rate_limit=300)) as running:
        yield running


def used(text: str) -> int:
    found = re.search(r"(\d[\d,]*)/([\d,]+)", text)
    assert found is not None, text
    return int(found.group(1).replace(",", ""))


def test_status_bar_and_outbox_footer_show_one_number_from_every_process_decaying_idle(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    profile = replace(profile_for(server), rate_window=3.0)
    opened = open_window(profile)
    wait_synced(loop, opened.session)
    edit_cities(opened, ["Metered"])
    view = opened.window.show_outbox()
    assert view is not None
    budget = opened.window.status.budget

    def agree() -> bool:
        return used(budget.text()) == used(view.summary.text().split(" at ")[-1])

    loop.run_until_complete(until(lambda: used(budget.text()) == 0 and agree(), within=20))
    # Another process of the same profile (the CLI, say) sends 5 requests: the meter counts them.
    history = shared_budget(connection_for(profile, SECRET), time.monotonic)
    assert history is not None
    try:
        for _ in range(5):
            handle = history.take(time.monotonic(), 300)
            assert handle is not None
            history.finish(time.monotonic(), True, handle)
        loop.run_until_complete(until(lambda: used(budget.text()) == 5 and agree(), within=10))
        # Idle: the requests leave the budget and the number goes back to 0, both places alike.
        loop.run_until_complete(until(lambda: used(budget.text()) == 0 and agree(), within=20))
    finally:
        history.close()


def test_a_request_held_back_for_budget_says_how_long(
    loop: qasync.QEventLoop, open_window: Opener, server: SimServer
) -> None:
    # A tight budget: 4 requests per 20 s, no share kept for interactive work.
    profile = replace(profile_for(server), rate_limit=4, rate_window=20.0, interactive_reserve=0.0)
    opened = open_window(profile)
    session, status = opened.session, opened.window.status
    seen: list[str] = []

    async def paced() -> None:  # the opening sync lists more than 4 resources
        await until(lambda: status.pacing.isVisible(), within=30)
        seen.append(status.pacing.text())
        await session.tasks.cancel_all()

    loop.run_until_complete(paced())
    assert re.fullmatch(r"waiting for budget: \d+ s", seen[0]), seen
    assert status.pause.isHidden()  # pacing, not a 403: no countdown of a pause
