"""The record form beside each resource tab's table, and the panels inside it (issue 5, 14).

A form's Save goes through the session's Editor into the outbox, becomes an undo step of the
window until it is pushed, and — when the profile pushes a record when it is saved — asks for a
push through the window's one door (app/ui/window/session_events.py), reviewed like Ctrl+S. The
panels each resource has (app/ui/panels/attach.py) queue their changes the same way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.ui.table.resource_tab import ResourceTab

if TYPE_CHECKING:
    from app.ui.session.session import ShowSession
    from app.ui.window.window_parts import ShowWindow


def attach_form(window: ShowWindow, tab: ResourceTab, session: ShowSession) -> None:
    """The record form beside `tab`'s table, wired to the session, the undo stack and the
    status bar; then the resource's panels in it. Imported here: forms and panels come with
    the session, after the window's first paint."""
    from app.ui.form.record_form import RecordForm
    from app.ui.panels.attach import attach_panels
    from app.ui.panels.record_panel import PanelContext

    references = window.references
    if references is None:
        return
    form = RecordForm(
        session.editor,
        tab.resource,
        references,
        confirm=window.ask,
        push_on_save=session.profile.push_on_save,
    )
    form.saved.connect(session.changes_written)
    slug = tab.resource.slug

    def saved(seqs: list[int]) -> None:  # issue 14 (k6): a Save is an undo step until pushed
        if window.undoable_edits is not None:
            window.undoable_edits.saved(slug, seqs)

    form.saved.connect(saved)
    if window.events is not None:
        form.push_requested.connect(window.events.on_form_push_requested)
    form.message.connect(window.status.show_message)
    session.data_changed.connect(form.on_session_data_changed)
    session.push_finished.connect(form.refresh)  # follow what the push settled
    # a conflict settled, a change discarded in the outbox view: the form follows at once
    session.watch_outbox(slug, form).changed.connect(form.on_outbox_changed)
    tab.attach_form(form)
    context = PanelContext(session.editor, session, references, window.ask, window.undoable_edits)
    for panel in attach_panels(tab, form, context):  # per resource: app/ui/panels/attach.py
        panel.queued.connect(session.changes_written)
        panel.message.connect(window.status.show_message)
