"""Between the window's record forms and the draft stash (app/profile/drafts.py).

`collect_drafts(window)` reads every form with unsaved edits; `restore_drafts(window, drafts)`
puts drafts back into forms (the record shown, the fields as the user left them, Save enabled);
`offer_drafts` asks first and clears the stash whatever the answer.
"""

from __future__ import annotations

from collections.abc import Callable

from app.profile.drafts import Draft, DraftStash
from app.ui.form.record_form import RecordForm
from app.ui.table.resource_tab import ResourceTab
from app.ui.window.main_window import MainWindow
from app.wording.words import count


def collect_drafts(window: MainWindow) -> list[Draft]:
    """The unsaved edits of every record form in the window."""
    drafts = []
    for tab in window.resource_tabs():
        form = tab.form
        if form is None or not (form.is_new or form.record_id is not None):
            continue
        values = _new_values(form) if form.is_new else form.changed_values()
        if values:
            drafts.append(Draft(tab.resource.slug, form.record_id, values, _label(form, values)))
    return drafts


def _new_values(form: RecordForm) -> dict[str, object]:
    return {f: v for f, e in form.editors.items() if (v := e.value()) not in (None, "", [], {})}


def _label(form: RecordForm, values: dict[str, object]) -> str:
    res = form.resource
    record = form.editor.current(res.slug, form.record_id) if form.record_id else None
    record = {**(record or {}), **values}
    name = record.get(res.label) or record.get(res.key) or form.record_id or "new record"
    return f"{res.title}: {name}"


def restore_drafts(window: MainWindow, drafts: list[Draft]) -> list[RecordForm]:
    """Open each draft's record in a form with the unsaved values typed back in."""
    restored, used = [], set()
    session = window.session
    for draft in drafts:
        if session is None or draft.resource not in session.registry:
            continue
        tab = window.open_resource(draft.resource, new_tab=draft.resource in used)
        if tab is None or tab.form is None:
            continue
        used.add(draft.resource)
        _fill(tab, tab.form, draft)
        restored.append(tab.form)
    return restored


def _fill(tab: ResourceTab, form: RecordForm, draft: Draft) -> None:
    if draft.record_id is None:
        form.new_record()
    else:
        row = tab.model.row_of(draft.record_id)
        if row >= 0:
            tab.table.setCurrentIndex(tab.model.index(row, 0))
        form.show_record(draft.record_id)
    for field, value in draft.values.items():
        if field in form.editors:
            form.editors[field].set_value(value)
            form.on_fields_field_edited(field)


def offer_drafts(window: MainWindow, stash: DraftStash, ask: Callable[[str], bool]) -> int:
    """Offer the stashed drafts back (how many were restored); the stash is cleared."""
    drafts = stash.load()
    if not drafts:
        return 0
    names = "\n".join(
        f"• {d.label or d.resource} ({count(len(d.values), 'field')})" for d in drafts
    )
    question = (
        f"ShowDesk stopped on an error while these forms had unsaved changes:\n\n{names}\n\n"
        "Put them back in their forms? (You can still check them before saving.)"
    )
    restored = restore_drafts(window, drafts) if ask(question) else []
    stash.clear()
    return len(restored)
