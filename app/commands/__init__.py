"""The headless `showdesk` commands, for scripts and schedulers; no Qt, and nothing imports them.

sync, push, import, export, status, conflicts, resolve, audit, check.

They drive the same core as the window (client → cache/outbox → sync). One module per command
(`sync.py`, `push.py`, …), each a `cmd_*(args, ws) -> int`; `runner.run` carries a parsed command
line out and turns every error into a message and an exit code; `parser.py` is the command line;
`workspace.py` what a command works on (profile, registry, cache, outbox, team); `output.py` the
one way a command speaks: lines for people, or with `--json` one JSON document on stdout (and
errors as one JSON object on stderr).

Exit codes: 0 everything succeeded, 1 some rows failed or are in conflict, 2 usage or connection
errors, 130 interrupted (Ctrl-C). Progress goes to stderr when it is a terminal.
"""

HEADLESS = (
    "sync", "push", "import", "export", "status", "conflicts", "resolve", "audit", "check",
)  # fmt: skip
