"""One resource as a spreadsheet (model, gestures, undo, import); imports form and below."""
