"""Issue 30, point 8: anyone can use it. A screen reader knows the window only through Qt's
accessibility API, so these tests read it the same way: the whole accessibility tree of the main
window on the demo show (start page, a customer's form beside its table, the outbox, the menus
and the toolbar) and of the dialogs it opens (conflict, import, profile, the review before a
push, the keyboard shortcuts), walked with `QAccessible.queryAccessibleInterface`, `child(i)`,
`role()`, `state()` and `text()`. Every visible control a person can operate must have a name,
and every input or list must also say what it holds or takes (its description).

On Linux Qt reads a combo box's *value* as its name (its label comes as a `Label` relation, as
AT-SPI wants it), so a combo counts as named by a label linked to it or by its own
accessible name (what Windows and macOS read).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import qasync
from PySide6.QtGui import QAccessible, QAccessibleInterface, QAction
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from app.sim import SimServer, generate_show
from app.store.changes import NewChange
from app.ui.window.shortcuts_dialog import ShortcutsDialog
from tests.gui.conftest import Opened, Opener, config, profile_for, wait_synced
from tests.gui.window.test_screenshots_at_every_size import dialogs

Role = QAccessible.Role
NAME, DESCRIPTION = QAccessible.Text.Name, QAccessible.Text.Description

CONTROLS = {
    Role.Button, Role.ButtonMenu, Role.ButtonDropDown, Role.CheckBox, Role.RadioButton,
    Role.ComboBox, Role.EditableText, Role.SpinBox, Role.Slider, Role.Table, Role.Tree,
    Role.List, Role.PageTab, Role.MenuItem,
}  # fmt: skip
INPUTS = {Role.ComboBox, Role.EditableText, Role.SpinBox, Role.Table, Role.Tree, Role.List}
WHOLE = {Role.ComboBox, Role.Table, Role.Tree, Role.List}  # their parts are data, not controls


def heard_name(node: QAccessibleInterface) -> str:
    """The name a screen reader says for this control."""
    if node.role() != Role.ComboBox:
        return node.text(NAME).strip()
    widget = node.object()
    own = widget.accessibleName() if isinstance(widget, QWidget) else ""
    labels = [label.text(NAME) for label, _ in node.relations(QAccessible.RelationFlag.Label)]
    return (own or " ".join(labels)).strip()


def shown(node: QAccessibleInterface, parent: QAccessibleInterface | None) -> bool:
    """Visible, or an entry of a closed menu (the keyboard reaches it through the menu bar)."""
    if not node.state().invisible:
        return True
    action = node.object()
    if node.role() == Role.PopupMenu:
        return parent is not None and parent.role() == Role.MenuItem
    return node.role() == Role.MenuItem and isinstance(action, QAction) and action.isVisible()


def walk(
    node: QAccessibleInterface, parent: QAccessibleInterface | None = None, where: str = ""
) -> Iterator[tuple[QAccessibleInterface, QAccessibleInterface | None, str]]:
    """Every shown node under `node`, with its parent and the names of the nodes around it."""
    yield node, parent, where
    if node.role() in WHOLE:
        return
    name = node.text(NAME).strip()
    inner = f"{where} › {name}" if name and len(name) < 60 else where
    for i in range(node.childCount()):
        child = node.child(i)
        if child is not None and child.isValid() and shown(child, node):
            yield from walk(child, node, inner)


def described(node: QAccessibleInterface, where: str) -> str:
    widget = node.object()
    kind = type(widget).__name__ if widget is not None else "?"
    name = f"{kind} {widget.objectName()}".strip() if widget is not None else kind
    return f"{node.role().name} ({name}) in {where.lstrip(' ›') or 'the window'}"


def unnamed(root: QWidget) -> list[str]:
    """Every shown control under `root` with no name a screen reader could say."""
    top = QAccessible.queryAccessibleInterface(root)
    assert top is not None and top.isValid()
    return [
        described(node, where)
        for node, parent, where in walk(top)
        if node.role() in CONTROLS
        and not (parent is not None and parent.role() == Role.ComboBox)  # the combo's own line
        and not heard_name(node)
    ]


def undescribed(root: QWidget) -> list[str]:
    """Every shown input or list under `root` that does not say what it holds or takes."""
    top = QAccessible.queryAccessibleInterface(root)
    assert top is not None and top.isValid()
    return [
        f"{described(node, where)}: {heard_name(node)!r}"
        for node, parent, where in walk(top)
        if node.role() in INPUTS
        and not (parent is not None and parent.role() == Role.ComboBox)
        and not node.text(DESCRIPTION).strip()
    ]


def opened_demo(loop: qasync.QEventLoop, open_window: Opener, server: SimServer) -> Opened:
    opened = open_window(profile_for(server, "Demo show"))
    opened.window.resize(1280, 800)
    wait_synced(loop, opened.session)
    return opened


def test_every_control_of_the_window_has_a_name_and_every_input_a_description(
    loop: qasync.QEventLoop, open_window: Opener
) -> None:
    with SimServer(generate_show("demo", seed=1), config()) as server:
        opened = opened_demo(loop, open_window, server)
        window = opened.window
        nameless, silent = unnamed(window), undescribed(window)  # the start page
        tab = window.open_resource("customers")
        assert tab is not None and tab.form is not None
        tab.table.setCurrentIndex(tab.model.index(2, 0))  # the customer's form beside the grid
        assert tab.form.isVisible()
        tab.edit_column_filter(tab.model.column_of("city"))  # a column's own filter, open
        assert tab.column_filter_edit.isVisible()
        nameless += unnamed(window)
        silent += undescribed(window)
        window.show_outbox()
        nameless += unnamed(window)
        silent += undescribed(window)
    assert sorted(set(nameless)) == []
    assert sorted(set(silent)) == []


def test_every_control_of_the_dialogs_has_a_name_and_every_input_a_description(
    loop: qasync.QEventLoop, open_window: Opener, qtbot: QtBot, tmp_path: Path
) -> None:
    with SimServer(generate_show("demo", seed=1), config()) as server:
        opened = opened_demo(loop, open_window, server)
        window, session = opened.window, opened.session
        tab = window.open_resource("customers")
        assert tab is not None
        found: dict[str, list[str]] = {}
        for name, dialog in dialogs(opened, tab, tab.model.record(2), tmp_path):
            dialog.show()
            found[name] = unnamed(dialog) + undescribed(dialog)
            dialog.close()

        window.actions_["shortcuts"].trigger()
        shortcuts = window.findChild(ShortcutsDialog)
        assert shortcuts is not None
        qtbot.waitUntil(shortcuts.isVisible)
        found["shortcuts"] = unnamed(shortcuts) + undescribed(shortcuts)
        shortcuts.close()

        record = tab.model.record(3)
        session.outbox.add(
            NewChange("customers", "update", str(record["id"]),
                      payload={**record, "city": "Akron"}, changed_fields=("city",), base=record)
        )  # fmt: skip
        session.profile.review_push_over = 0  # every push is reviewed first
        window.actions_["push"].trigger()
        gate = window.push_gate
        assert gate is not None and gate.dialog is not None
        review = gate.dialog
        qtbot.waitUntil(review.isVisible)
        found["push review"] = unnamed(review) + undescribed(review)
        review.reject()
        qtbot.waitUntil(lambda: gate.dialog is None)
    assert QApplication.activeModalWidget() is None
    assert {name: sorted(set(problems)) for name, problems in found.items() if problems} == {}
