"""What opens a profile: settings, secrets, files, the demo, the client; below commands and ui.

- `settings` (`Profile`, `ProfileStore`, `SecretStore`: the OS keyring or this session only),
  `local_show` (the profile's registry, cache and outbox opened with no network: what the first
  paint shows, decision 0016), `connect` (from a profile to a live client, the shared request
  history, the team opened), `demo` (the simulator on loopback and its profile).
- `logs` (the rotating log file, secrets redacted), `drafts` (unsaved form edits rescued by the
  crash path).
"""
