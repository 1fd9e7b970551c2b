"""A wrong client secret (issue 30, item 16): the window says the show refused the sign-in, with
the show's reason first and what to do, and the message stays until the user acts — never cut
before the reason, never gone in seconds, never only in the log."""

from __future__ import annotations

import qasync

from app.sim import SimConfig, SimServer, generate_show
from tests.gui.conftest import Opener, profile_for, until


def test_a_refused_secret_is_said_with_its_reason_and_stays(
    loop: qasync.QEventLoop, open_window: Opener
) -> None:
    config = SimConfig(show_id="GUI-SHOW", client_secret="another-secret", throttle=False)
    with SimServer(generate_show("tiny"), config) as server:
        opened = open_window(profile_for(server))
        status = opened.window.status
        loop.run_until_complete(until(lambda: "refused" in status.currentMessage(), within=30))
        said = status.currentMessage()
        assert said.index("invalid_client") < 80, said  # the reason, before anything is cut
        assert "client secret" in said and "Profiles" in said, said
        assert "http://" not in said  # the address is in the tooltip, not in the way
        assert server.auth_url in status.connection.toolTip()  # the whole answer, on hover
        status.show_message("Pushed 3 changes")  # a later message replaces it, and ends
        assert status.currentMessage() == "Pushed 3 changes"
        opened.close()
