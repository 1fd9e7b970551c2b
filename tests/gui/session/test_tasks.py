"""Work the loop refuses is closed, not left to the garbage collector's "coroutine was never
awaited": a start with no loop to run on (a closed one), held work whose release is refused, held
work cancelled before the loop was made (app/ui/session/tasks.py `TaskRunner`)."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Coroutine, Iterator
from typing import Any

import pytest

from app.ui.session.tasks import TaskRunner


async def sort_rows() -> None:
    return None


@pytest.fixture(params=["closed loop", "no loop"])
def refusing_loop(request: pytest.FixtureRequest) -> Iterator[None]:
    """The loop of a window that has closed, or none yet: a new task is refused."""
    if request.param == "closed loop":
        loop = asyncio.new_event_loop()
        loop.close()
        asyncio.set_event_loop(loop)
    else:
        asyncio.set_event_loop(None)
    yield
    asyncio.set_event_loop(None)


@pytest.fixture
def coroutines() -> Iterator[list[Coroutine[Any, Any, None]]]:
    made: list[Coroutine[Any, Any, None]] = []
    yield made
    for coro in made:
        coro.close()  # a failed test leaves no warning behind it


def closed(coro: Coroutine[Any, Any, None]) -> bool:
    return inspect.getcoroutinestate(coro) == inspect.CORO_CLOSED


@pytest.mark.usefixtures("refusing_loop")
def test_a_refused_start_closes_its_coroutine(
    coroutines: list[Coroutine[Any, Any, None]],
) -> None:
    coroutines.append(sort_rows())
    with pytest.raises(RuntimeError):
        TaskRunner().start(coroutines[0], what="Sorting and filtering")
    assert closed(coroutines[0])


@pytest.mark.usefixtures("refusing_loop")
def test_held_work_whose_release_is_refused_is_all_closed(
    coroutines: list[Coroutine[Any, Any, None]],
) -> None:
    tasks = TaskRunner()
    tasks.hold()
    coroutines.extend([sort_rows(), sort_rows(), sort_rows()])
    for coro in coroutines:
        tasks.start_soon(coro, what="Sorting and filtering")
    with pytest.raises(RuntimeError):
        tasks.release()
    assert all(closed(coro) for coro in coroutines)
    assert not tasks.busy


def test_held_work_cancelled_before_the_loop_is_made_is_closed(
    coroutines: list[Coroutine[Any, Any, None]],
) -> None:
    tasks = TaskRunner()
    tasks.hold()
    coroutines.append(sort_rows())
    tasks.start_soon(coroutines[0], what="Sorting and filtering")
    asyncio.run(tasks.cancel_all())
    assert closed(coroutines[0])
    tasks.release()  # nothing left to start
    assert not tasks.busy
