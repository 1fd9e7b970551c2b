"""The work between the desk and the show: pull, push, edit, files, reports; no Qt.

The network is reached only through app.api, files only through app.store. Sub-packages in layers
(tests/unit/test_boundaries.py): `pull` < `push`, `edit` (side by side) < `files` < `reports`;
`change_rules` (what a change is, to editing and pushing alike) under them all.
"""
