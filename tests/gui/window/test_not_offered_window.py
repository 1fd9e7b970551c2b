"""The window on a show that does not offer a resource: the sync goes on, the tree greys it."""

from __future__ import annotations

import qasync
from PySide6.QtGui import QPalette

from app.sim import SimServer, generate_show
from tests.gui.conftest import Opener, config, profile_for, wait_synced


def test_the_tree_greys_a_resource_the_show_does_not_offer(
    loop: qasync.QEventLoop, open_window: Opener
) -> None:
    show = generate_show("tiny", seed=2)
    with SimServer(show, config(missing=frozenset({"brokers"}))) as server:
        opened = open_window(profile_for(server))
        wait_synced(loop, opened.session)
        window, cache = opened.window, opened.session.cache
        assert window.tree is not None
        brokers = window.tree.item_of("brokers")
        grey = window.tree.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text)
        assert brokers.foreground().color() == grey
        assert "Not offered by this show: GET /Broker answered 404" in brokers.toolTip()
        users = window.tree.item_of("broker-users")
        assert users.foreground().color() != grey
        assert cache.count("broker-users") == server.show.count("broker-users") > 0
        message = "Not offered by this show (skipped, greyed): Brokers"
        assert window.status.currentMessage() == message
        opened.close()
