"""Settling one conflict: my edit against the server's newer record, field by field.

A row per field that either side changed since the edit was made and where mine and theirs
differ: the field's title, the value then (base), mine and theirs as the table shows them (a
reference by its name, an enumeration in words, a nested object by its label: the table's
`CellPresenter`), a long value cut at a word with the whole of it on hovering, with a choice
between mine and theirs. "Keep mine" and "Take theirs" settle the
whole change; "Apply choices" merges per field. Each writes the outbox (`Outbox.resolve`) and
accepts; `resolution` says what was chosen. Tests drive `choose` and the three slots directly.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from PySide6.QtWidgets import (
    QButtonGroup,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QPushButton,
    QRadioButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.api.registry import Registry
from app.store.changes import Change
from app.store.outbox import Outbox, Resolution
from app.sync.push.verdicts import conflict_fields, same_on_show
from app.sync.reports.change_list import format_value
from app.ui.common.palette import Hue, background_brush
from app.ui.table.presenter import CellPresenter
from app.wording.references import ReferenceNames, column_title
from app.wording.words import title_of

Side = Literal["mine", "theirs"]
SIDES: tuple[Side, Side] = ("mine", "theirs")
SHORT = 40  # characters of a value shown in its cell; the whole of it on hovering


def shortened(text: str, most: int = SHORT) -> str:
    """`text` cut at the last word that fits in `most` characters, with "…" (never mid-word
    unless one word is longer than that)."""
    if len(text) <= most:
        return text
    cut = text[: most - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > most // 2 else cut).rstrip(" ,;") + "…"


class ConflictDialog(QDialog):
    """Mine or theirs, for one conflicting change. Signals: only QDialog's own.

    After `accept`, `resolution` holds "mine", "theirs" or the merged {field: value}.
    """

    def __init__(
        self,
        outbox: Outbox,
        change: Change,
        registry: Registry,
        parent: QWidget | None = None,
        *,
        names: ReferenceNames | None = None,
    ) -> None:
        super().__init__(parent)
        self._outbox = outbox
        self.change = change
        self.resolution: Resolution | None = None
        self._groups: dict[str, QButtonGroup] = {}
        resource = registry.resources.get(change.resource)
        self._resource = resource if names is not None else None  # references read as names
        self._presenter = (
            CellPresenter(resource, names) if resource is not None and names is not None else None
        )
        self.fields = [f for f in conflict_fields(change) if self.differs(f)]
        title = resource.title if resource is not None else change.resource
        key = resource.key if resource is not None else ""
        which = change.key_value or change.payload.get(key) or (change.base or {}).get(key)
        self.setWindowTitle(f"Resolve conflict — {title} {which or ''}".rstrip())
        self.table = self._build_table()
        self._lay_out()

    # --------------------------------------------------------------------------- choices

    def choose(self, field: str, side: Side) -> None:
        self._groups[field].button(0 if side == "mine" else 1).setChecked(True)

    def choice(self, field: str) -> Side:
        return "mine" if self._groups[field].checkedId() == 0 else "theirs"

    def choices(self) -> dict[str, Any]:
        """The merged value of every field shown, as chosen."""
        return {f: self._value(f, self.choice(f)) for f in self.fields}

    def differs(self, field: str) -> bool:
        return not same_on_show(self._value(field, "mine"), self._value(field, "theirs"))

    # ------------------------------------------------------------------------------ slots

    def on_keep_mine_clicked(self) -> None:
        self._settle("mine")

    def on_take_theirs_clicked(self) -> None:
        self._settle("theirs")

    def on_apply_choices_clicked(self) -> None:
        self._settle(self.choices())

    # -------------------------------------------------------------------------- internals

    def _settle(self, resolution: Resolution) -> None:
        self._outbox.resolve(self.change.seq, resolution)
        self.resolution = resolution
        self.accept()

    def _value(self, field: str, side: Side) -> Any:
        record = self.change.payload if side == "mine" else self.change.theirs or {}
        if side == "mine" and field not in record:
            record = self.change.base or {}
        return record.get(field)

    def _build_table(self) -> QTableWidget:
        table = QTableWidget(len(self.fields), 4, self)
        table.setAccessibleName("Fields in conflict")
        table.setAccessibleDescription(
            "A row per field: its value when you edited it, then Mine and Theirs to choose from"
        )
        table.setHorizontalHeaderLabels(["Field", "When edited", "Mine", "Theirs"])
        table.verticalHeader().hide()
        table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        # Tab goes on to the choices and the buttons; within the table, Tab only went round
        # its cells and their Mine/Theirs buttons, and Keep mine was out of the keyboard's reach
        table.setTabKeyNavigation(False)
        header = table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)  # every value whole
        header.setStretchLastSection(True)
        base = self.change.base or {}
        for row, name in enumerate(self.fields):
            shown_as = self._resource
            title = column_title(shown_as, name) if shown_as is not None else title_of(name)
            field = QTableWidgetItem(title)  # "Warehouse" when its cells show the names
            field.setToolTip(name)  # the API's name, for whoever needs it
            table.setItem(row, 0, field)
            then = self.shown(name, base.get(name))
            before = QTableWidgetItem(shortened(then))
            before.setToolTip(then)
            table.setItem(row, 1, before)
            self._add_choice(table, row, name, base)
        for column in (2, 3):  # a cell's radio button is not counted by ResizeToContents
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Interactive)
            choices = [table.cellWidget(r, column) for r in range(table.rowCount())]
            widest = max((w.sizeHint().width() for w in choices if w is not None), default=80)
            table.setColumnWidth(column, max(widest + 12, header.sectionSizeHint(column)))
        table.resizeRowsToContents()
        return table

    def shown(self, field: str, value: Any) -> str:
        """A value as the table shows it (as it was stored, without the names of a cache)."""
        if self._presenter is not None:
            text = self._presenter.text(field, value)
            return "—" if text is None else (text if text else '""')
        return format_value(value)

    def _add_choice(
        self, table: QTableWidget, row: int, name: str, base: Mapping[str, Any]
    ) -> None:
        group = QButtonGroup(self)
        moved = {s: not same_on_show(self._value(name, s), base.get(name)) for s in SIDES}
        clash = self.differs(name) and all(moved.values())
        for column, side in enumerate(SIDES, start=2):
            whole = self.shown(name, self._value(name, side))
            button = QRadioButton(shortened(whole))
            button.setToolTip(whole)
            button.setAccessibleName(f"{side.capitalize()}: {whole}")
            group.addButton(button, column - 2)
            item = QTableWidgetItem()
            if clash or moved[side]:
                item.setBackground(background_brush(Hue.ERROR if clash else Hue.CHANGED))
            table.setItem(row, column, item)
            table.setCellWidget(row, column, button)
        self._groups[name] = group
        self.choose(
            name, "mine" if name in self.change.changed_fields or moved["mine"] else "theirs"
        )

    def _lay_out(self) -> None:
        note = QLabel(
            "Someone changed this record on the server after you edited it. Choose, per field, "
            "which value the show should keep.",
            wordWrap=True,
        )
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel, self)
        actions = {
            "Keep mine": self.on_keep_mine_clicked,
            "Take theirs": self.on_take_theirs_clicked,
            "Apply choices": self.on_apply_choices_clicked,
        }
        self.buttons: dict[str, QPushButton] = {}
        for text, slot in actions.items():
            button = buttons.addButton(text, QDialogButtonBox.ButtonRole.ActionRole)
            button.clicked.connect(slot)
            self.buttons[text] = button
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        for widget in (note, self.table, buttons):
            layout.addWidget(widget)
        self._fit()

    def _fit(self) -> None:
        """As wide as the values need (each cut at SHORT characters), within the screen."""
        table = self.table
        wanted = table.verticalHeader().width() + 2 * table.frameWidth() + 40
        header = table.horizontalHeader()
        wanted += sum(
            max(table.sizeHintForColumn(c), header.sectionSizeHint(c), table.columnWidth(c))
            for c in range(table.columnCount())
        )
        owner = self.parentWidget()
        room = max(
            self.screen().availableGeometry().width() if self.screen() is not None else 0,
            owner.window().width() if owner is not None else 0,
        )
        most = int(room * 0.9) if room else 1200
        self.resize(min(max(640, wanted), most), 360)
