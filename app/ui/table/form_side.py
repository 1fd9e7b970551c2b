"""The record form's place beside the table: a side panel that leaves the table the width.

The table takes every pixel the side panel does not: the side keeps its own width when the
window grows. Dragging the handle never collapses the side to nothing (a minimum width, not
collapsible); it is hidden only on purpose, with the tab's "Hide form" button, and comes back at
the width it had. Under the form, a resource's panels (app/ui/panels/attach.py) get a vertical
split with minimum heights on both sides. The side's width, whether it is shown and the split
are remembered per resource in the QSettings passed in, so they survive closing a tab, the
window and switching to another profile's show.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QAbstractButton, QSplitter, QVBoxLayout, QWidget

SIDE_MIN_WIDTH = 340
SIDE_WIDTH = 520  # a form alone: its pickers show a long name whole (issue 30, point 6)
SIDE_WITH_PANELS_WIDTH = 600  # a form with panels under it (price lists, an order's lines…)
FORM_MIN_HEIGHT = 180
PANELS_MIN_HEIGHT = 240


@dataclass
class SideLayout:
    """What is remembered of a resource's side panel (width 0: not known, the default)."""

    width: int = 0
    shown: bool = True
    split: list[int] = field(default_factory=list)  # form height, panels height

    @classmethod
    def from_json(cls, text: str) -> SideLayout:
        try:
            raw: dict[str, Any] = json.loads(text)
            split = [int(v) for v in raw.get("split", [])]
            return cls(int(raw.get("width", 0)), bool(raw.get("shown", True)), split)
        except (ValueError, TypeError, AttributeError):
            return cls()


def side_key(slug: str) -> str:
    return f"tables/{slug}/form_side"


class FormSide(QSplitter):
    """The table │ the side panel (the form, and the panels under it).

    Signals: Qt's own `splitterMoved`; the layout is saved on every move and toggle.
    """

    def __init__(self, table: QWidget, settings: QSettings, slug: str, owner: QWidget) -> None:
        """Take the table's place in `owner`'s layout, with the table on its left."""
        super().__init__(Qt.Orientation.Horizontal, owner)
        layout = owner.layout()
        if layout is not None:
            layout.replaceWidget(table, self)  # while the table is still the owner's child
        self._settings = settings
        self._slug = slug
        self._remembered = self._load()
        self._width_known = self._remembered.width > 0
        self.side = QWidget(self)
        self.side.setObjectName("form_side")
        self.side.setMinimumWidth(SIDE_MIN_WIDTH)
        self._holder = QVBoxLayout(self.side)
        self._holder.setContentsMargins(0, 0, 0, 0)
        self.panels_split: QSplitter | None = None
        self.addWidget(table)
        self.addWidget(self.side)
        self.setChildrenCollapsible(False)
        self.setCollapsible(0, False)
        self.setCollapsible(1, False)  # never dragged away to nothing
        self.setStretchFactor(0, 1)  # the table takes the room the window gains
        self.setStretchFactor(1, 0)
        self.side.setVisible(self._remembered.shown)
        self._apply_width(self._remembered.width or SIDE_WIDTH)
        self.splitterMoved.connect(self.on_splitter_moved)

    # ------------------------------------------------------------------------------ public

    def hold(self, form: QWidget, panels: QWidget | None = None) -> None:
        """The side shows the form, and the panels under it in a split of their own."""
        if panels is None:
            self._holder.addWidget(form)
            return
        split = QSplitter(Qt.Orientation.Vertical, self.side)
        split.setObjectName("panels_split")
        form.setMinimumHeight(FORM_MIN_HEIGHT)
        panels.setMinimumHeight(PANELS_MIN_HEIGHT)
        split.addWidget(form)
        split.addWidget(panels)
        split.setChildrenCollapsible(False)
        split.setCollapsible(0, False)
        split.setCollapsible(1, False)
        split.setStretchFactor(0, 2)
        split.setStretchFactor(1, 3)  # the panels' tables need the height
        if len(self._remembered.split) == 2 and min(self._remembered.split) > 0:
            split.setSizes(self._remembered.split)
        else:
            split.setSizes([400, 600])
        split.splitterMoved.connect(self.on_splitter_moved)
        self._holder.addWidget(split)
        self.panels_split = split
        if not self._width_known:
            self._apply_width(SIDE_WITH_PANELS_WIDTH)

    def bind_toggle(self, button: QAbstractButton) -> None:
        """The tab's "Hide form" / "Show form" button: the one way to hide the side."""
        button.setCheckable(True)
        button.setChecked(self.shown)
        button.setText("Hide form" if self.shown else "Show form")
        button.setToolTip("Show or hide the record form beside the table")
        button.setVisible(True)

        def toggled(shown: bool) -> None:
            button.setText("Hide form" if shown else "Show form")
            self.set_shown(shown)

        button.toggled.connect(toggled)

    @property
    def shown(self) -> bool:
        return not self.side.isHidden()

    def set_shown(self, shown: bool) -> None:
        """Show or hide the side on purpose (the tab's button); remembered."""
        self.side.setVisible(shown)
        self.save()

    def side_width(self) -> int:
        return self.sizes()[1] if self.shown else self._remembered.width

    def save(self) -> None:
        layout = self._remembered
        if self.shown and self.sizes()[1] > 0:
            layout.width = self.sizes()[1]
        layout.shown = self.shown
        if self.panels_split is not None and min(self.panels_split.sizes()) > 0:
            layout.split = list(self.panels_split.sizes())
        self._settings.setValue(side_key(self._slug), json.dumps(asdict(layout)))

    def on_splitter_moved(self, _pos: int, _index: int) -> None:
        self.save()

    # ----------------------------------------------------------------------------- helpers

    def _load(self) -> SideLayout:
        value = self._settings.value(side_key(self._slug), "")
        return SideLayout.from_json(value) if isinstance(value, str) and value else SideLayout()

    def _apply_width(self, width: int) -> None:
        width = max(width, SIDE_MIN_WIDTH)
        self._remembered.width = width
        self.setSizes([max(self.width() - width, 400), width])
