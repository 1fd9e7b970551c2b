"""Editing: the Editor, undo steps, the overlay, reverts; may import push and pull."""
