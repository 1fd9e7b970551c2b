"""Work the loop refuses is closed, not left to the garbage collector's "coroutine was never
awaited": a start with no loop to run on (a closed one), held work whose release is refused, held
work cancelled before the loop was made (app/ui/session/tasks.py `TaskRunner`); and work a
cancelled task starts as it ends is cancelled with it."""

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


def test_work_started_by_a_cancelled_task_as_it_ends_is_cancelled_too() -> None:
    """A push cancelled as the window closes settles its changes, and the outbox saying so has
    the start page read its figures: that read is cancelled too, not left running."""
    tasks = TaskRunner()

    async def read_figures() -> None:
        await asyncio.Event().wait()  # until cancelled

    async def push() -> None:
        try:
            await asyncio.Event().wait()
        finally:
            tasks.start_soon(read_figures(), what="Start page")

    async def scenario() -> None:
        tasks.start(push(), what="Push")
        await asyncio.sleep(0)  # the push is waiting
        await tasks.cancel_all()
        await asyncio.sleep(0)  # the done callbacks; before asyncio.run cancels what is left
        assert not tasks.busy

    asyncio.run(scenario())
