"""Editing: the Editor, undo steps, the overlay, reverts; may import pull.

- `editor` (`Editor`: stage, create, delete, special changes — ONE outbox transaction per
  gesture), `staging` (`Seen`, `Staged`), `values` (what can be edited and how a typed value
  becomes a field's: `FieldEdit`, `Rejected`, `coerced`, `required_fields`, `same_in_form`),
  `numbers` (a number as a person types it, read with their locale's marks: `read_number`,
  `typed_number`, `Misread`).
- `undo` (`UndoSteps`: edit, delete, queued and revert steps), `revert` (the opposite of a pushed
  change queued as a new one), `record_moves` (what moved a form's record since it was read),
  `special_changes` (operations other than a record's fields).
- `overlay` (`PendingOverlay`: pending changes over cached records, the ONE rule every view uses;
  `PendingFollower`: what changed since a view last looked, decision 0017).
"""
