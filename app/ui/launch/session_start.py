"""A show's session over what the window shows (client, sign-in, sync): attached, started."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from app.profile.local_show import LocalShow, open_local
from app.profile.settings import Profile
from app.ui.session.tasks import TaskRunner
from app.ui.window.main_window import MainWindow

if TYPE_CHECKING:  # the session talks to the show: after the first paint
    from app.ui.session.session import ShowSession


@contextmanager
def open_show(
    window: MainWindow, profile: Profile, secret: str, tasks: TaskRunner
) -> Iterator[ShowSession]:
    """Open a profile's cache and outbox, attach a session to the window, start it."""
    with open_local(profile) as local:
        window.show_local(local)
        yield connect_show(window, local, profile, secret, tasks)


def connect_show(
    window: MainWindow, local: LocalShow, profile: Profile, secret: str, tasks: TaskRunner
) -> ShowSession:
    """The session of a show the window shows (its client, sign-in, sync), attached, started.

    `profile` is `local`'s, or the same show at another address (the demo's simulator on this
    run's port). Imported here: the client and all that talks to the show come after the
    window's first paint."""
    from app.ui.session.session import ShowSession

    # Owned by the window, so Qt deletes it on the GUI thread (never a GC in another one).
    session = ShowSession(profile, secret, local.registry, local.cache, local.outbox, tasks, window)
    window.attach(session)
    tasks.start(start_session(session), what="Connect")
    return session


async def start_session(session: ShowSession) -> None:
    """Sign in; sync when the show answers, else stay offline on the cache (and keep trying)."""
    if await session.check():
        session.sync()
