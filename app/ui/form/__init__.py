"""One record: form, fields, layouts, inputs, pickers; imports session and common."""
